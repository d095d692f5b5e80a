"""One output model for every command (issue 28, item 5): a command builds an :class:`Output` (its text
and its JSON-ready object) and :func:`write` picks what ``-f`` asks for and writes it to ``out``, to
``-o FILE`` or to stdout.  The parts are made only when picked, so a part's own
warnings and notes are printed only when it is written."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, Callable, TextIO

from ..values.errors import UserError
from .messages import note
from .options import Options

__all__ = ["Output", "write", "write_output", "json_text", "decimals"]


def decimals(opts: Options) -> int | None:
    """The decimals of every printed score: -w where given, else None (each metric prints its own: BLEU 1, as
    sacrebleu does, else 4)."""
    return opts.width if getattr(opts, "width_given", False) else None


def json_text(data: Any) -> str:
    """The JSON every command prints: indented by one, non-ASCII as it is, a final newline."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Output:
    """What a command prints, in each format: ``text()`` (the tables, or a TSV) and ``data()`` (the object
    ``-f json`` prints)."""

    data: Callable[[], Any]
    text: Callable[[], str]

    def render(self, fmt: str) -> str:
        """The output in format ``fmt`` (``-f``): JSON, else the text."""
        return json_text(self.data()) if fmt == "json" else self.text()


def write(output: Output, opts: Options, out: TextIO | None = None) -> None:
    """The output in ``-f``'s format, to ``out`` where given (a command that writes to a stream), else
    to ``-o FILE`` or stdout (:func:`write_output`)."""
    text = output.render(opts.format)
    if out is not None:
        out.write(text)
    else:
        write_output(opts, text)


def write_output(opts: Options, text: str) -> None:
    """The output, to -o FILE (written whole, once everything is computed) or to stdout."""
    output = getattr(opts, "output", None)
    if not output or output == "-":
        sys.stdout.write(text)
        return
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise UserError(f"-o {output}: cannot write the file ({exc.strerror})") from None
    note(opts, f"wrote {output}")
