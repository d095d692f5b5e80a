"""Typed, validated parameters of metrics and backbones.

A metric or backbone declares its parameters as a tuple of :class:`Param`.  The spec parser
(``slide:w=6,s=6``) and the signature parser both go through :meth:`Param.convert`, so a value is
validated the same way whichever road it takes.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .errors import SpecError
from .signature import text_problem

_TRUE = {"1", "true", "yes", "on", "y"}
_FALSE = {"0", "false", "no", "off", "n"}


@dataclass(frozen=True)
class Param:
    """One parameter.

    name: the key in a spec (``w`` in ``slide:w=6``) and the long key in a signature.
    type: ``int``, ``float``, ``str`` or ``bool``.
    default: the value when the spec does not name it (``None``: resolved later, e.g. a model's default).
    help: one line for ``--describe``.
    choices: allowed values (strings or numbers), or empty for any value of the type.
    minimum / maximum: bounds for numbers (inclusive).
    short: the key in the short signature form (defaults to ``name``).
    in_signature: False for parameters that cannot change the number (none so far).
    """

    name: str
    type: type = str
    default: Any = None
    help: str = ""
    choices: Sequence[Any] = field(default_factory=tuple)
    minimum: float | None = None
    maximum: float | None = None
    short: str | None = None
    in_signature: bool = True
    check: Callable[[Any], str | None] | None = None

    @property
    def short_key(self) -> str:
        return self.short or self.name

    def allowed(self) -> str:
        """Human text for what values are allowed."""
        if self.choices:
            return "one of " + ", ".join(str(c) for c in self.choices)
        if self.type is bool:
            return "true or false"
        if self.type in (int, float):
            kind = "an integer" if self.type is int else "a number"
            if self.minimum is not None and self.maximum is not None:
                return f"{kind} from {_num(self.minimum)} to {_num(self.maximum)}"
            if self.minimum is not None:
                return f"{kind} >= {_num(self.minimum)}"
            if self.maximum is not None:
                return f"{kind} <= {_num(self.maximum)}"
            return kind
        return "a string"

    def convert(self, raw: Any, owner: str = "") -> Any:
        """Turn ``raw`` (a string from a spec, or a Python value) into a validated value.

        Raises :class:`SpecError` naming the parameter and what is allowed.
        """
        where = f"{owner}: " if owner else ""
        value: Any
        if raw is None:
            return None
        if isinstance(raw, str):
            problem = text_problem(raw)
            if problem:
                raise SpecError(f"{where}parameter '{self.name}' has value {raw!r}: {problem}")
        if self.default is None and isinstance(raw, str) and raw.strip().lower() == "none":
            return None  # what format(None) writes: an optional parameter left unset round-trips
        try:
            if self.type is bool:
                if isinstance(raw, bool):
                    value = raw
                else:
                    text = str(raw).strip().lower()
                    if text in _TRUE:
                        value = True
                    elif text in _FALSE:
                        value = False
                    else:
                        raise ValueError(raw)
            elif self.type is int:
                if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
                    raise ValueError(raw)
                value = int(str(raw).strip()) if isinstance(raw, str) else int(raw)
            elif self.type is float:
                if isinstance(raw, bool):
                    raise ValueError(raw)
                value = float(raw)
                if not math.isfinite(value):
                    raise ValueError(raw)  # nan slips through every bound check; inf is no setting
            else:
                value = str(raw)
        except (TypeError, ValueError, OverflowError):
            raise SpecError(
                f"{where}parameter '{self.name}' has value {raw!r}; it must be {self.allowed()}"
            ) from None
        if self.choices and value not in self.choices:
            raise SpecError(
                f"{where}parameter '{self.name}' has value {raw!r}; it must be {self.allowed()}"
            )
        if self.minimum is not None and value < self.minimum:
            raise SpecError(
                f"{where}parameter '{self.name}' has value {raw!r}; it must be {self.allowed()}"
            )
        if self.maximum is not None and value > self.maximum:
            raise SpecError(
                f"{where}parameter '{self.name}' has value {raw!r}; it must be {self.allowed()}"
            )
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise SpecError(f"{where}parameter '{self.name}' has value {raw!r}; {problem}")
        return value

    def format(self, value: Any) -> str:
        """The canonical text of a value (what a signature shows)."""
        if value is None:
            return "none"
        if self.type is bool:
            return "yes" if value else "no"
        if self.type is float:
            return _num(value)
        return str(value)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def find_param(params: Sequence[Param], key: str) -> Param | None:
    """The parameter whose long or short key is ``key``."""
    for p in params:
        if p.name == key:
            return p
    for p in params:
        if p.short_key == key:
            return p
    return None


def check_batch_size(value: Any, option: str = "batch_size") -> int | None:
    """``value`` as a batch size (units per batch: an integer >= 1, or None for the backbone's default);
    a SpecError naming ``option`` otherwise.  The one check for the API's ``batch_size=``, the command
    line's ``--batch-size`` and :class:`~docmetrics.plugin.backbone.Backbone`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SpecError(f"{option} must be an integer >= 1 (units per batch), not {value!r}")
    return value


#: The longest name of one file or directory (bytes) on the file systems in use (ext4, APFS, NTFS).
NAME_MAX = 255
#: The longest path (bytes) the OS takes.
PATH_MAX = 4096


def path_problem(text: str) -> str | None:
    """Why ``text`` can be neither a local path nor a hub id, or None: a ``~user`` whose home is
    unknown, a file or directory name over :data:`NAME_MAX` bytes, a path over :data:`PATH_MAX`
    bytes, a NUL character or a lone surrogate.  A ``check`` for parameters that name a model."""
    problem = text_problem(text)
    if problem:
        return problem
    if "\0" in text:
        return "it contains a NUL character, which no path or hub id has"
    if text.startswith("~") and os.path.expanduser(text) == text:
        user = text[1:].replace("\\", "/").split("/", 1)[0]
        return (f"there is no home directory for '~{user}' (no such user, or HOME is unset); "
                "write the full path")
    size = len(text.encode("utf-8"))
    if size > PATH_MAX:
        return f"it is {size} bytes long; a path has at most {PATH_MAX}"
    for part in text.replace("\\", "/").split("/"):
        n = len(part.encode("utf-8"))
        if n > NAME_MAX:
            short = part if len(part) <= 40 else part[:20] + "..." + part[-10:]
            return (f"'{short}' is {n} bytes long: a file or directory name has at most {NAME_MAX} "
                    "(and a hub id is shorter still)")
    return None
