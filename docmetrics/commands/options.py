"""The commands' options as typed, frozen values: what ``docmetrics`` and its subcommands were asked, parsed once
by the command line and passed down, never changed in place.  A step that derives a value (the system output read
from stdin, sacrebleu's signatures read as specs) returns a new value with :func:`dataclasses.replace`.

Each command's value is a frozen dataclass derived from its parser (:func:`docmetrics.cli.args.options_type`): a
field per option, named by its dest, with the parser's default, and the few fields no option sets
(:data:`docmetrics.cli.args.DERIVED`).  A field another command's parser lacks is read with
``getattr(opts, NAME, default)``."""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Protocol

__all__ = ["Options", "flag_of"]


class Options(Protocol):
    """A command's options: its parser's options as fields; ``flags``: the option as typed that sets each."""

    flags: ClassVar[Mapping[str, str]]

    def __getattr__(self, name: str) -> Any: ...


def flag_of(opts: Options, field_name: str) -> str:
    """The option as typed that sets the field ``field_name`` of ``opts`` (``doc_ids``: ``--doc-ids``; ``input``:
    ``-i``), as the command's parser declares it."""
    return type(opts).flags[field_name]
