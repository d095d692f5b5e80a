"""The small exception hierarchy of docmetrics.

Every mistake a user can make (a bad file, an unknown metric, a bad parameter, a model that cannot be
found offline) raises a :class:`UserError`.  The command line turns it into one message on stderr and
exit status 2, with no traceback (``--debug`` shows one).  Anything else is a bug.
"""

from __future__ import annotations


def shown(value: object, limit: int = 80) -> str:
    """``value`` as a message quotes it from the input: its repr, cut after ``limit`` characters with its
    length said (a 50 MB doc id is not echoed whole)."""
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else f"{value[:limit]!r}… ({len(value):,} characters)"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


class DocMetricsError(Exception):
    """Base class of every error docmetrics raises on purpose."""


class UserError(DocMetricsError):
    """A mistake in what the user asked for or gave; the message says what to do.

    ``exit_code`` is what the command line exits with (2, like argparse's usage errors).

    Below the command line a message names the library's parameters as ``name=VALUE`` (``workers=0``,
    ``cache=PATH``) and lists them in ``params``; the command line writes its own flags in their place
    (``--workers 0``, ``--cache PATH``), so each layer speaks the language its user typed.
    """

    exit_code = 2

    def __init__(self, *args: object, params: tuple[str, ...] = ()) -> None:
        super().__init__(*args)
        #: The parameters the message names as ``name=...``.
        self.params = tuple(params)


class InputError(UserError):
    """Bad input data: files of different lengths, invalid UTF-8, empty input, bad JSONL."""


class SpecError(UserError):
    """A bad metric spec or signature: unknown metric, unknown or invalid parameter."""


class PluginError(UserError):
    """A plugin is unknown, cannot be loaded, or lacks an optional dependency."""


class ModelError(UserError):
    """A model cannot be found or loaded (for example: offline and not cached)."""


class CapabilityError(UserError):
    """A metric needs something from a backbone that the backbone (or its model) cannot do."""


class DocMetricsWarning(UserWarning):
    """Something the user should know that does not stop the run (e.g. a damaged score cache set
    aside); the command line prints it as ``docmetrics: warning: ...``."""
