"""Typed, validated parameters of metrics and backbones.

A metric or backbone declares its parameters as a tuple of :class:`Param`.  The spec parser
(``slide:w=6,s=6``) and the signature parser both go through :meth:`Param.convert`, so a value is
validated the same way whichever road it takes.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .errors import SpecError
from .signature import SigField, text_problem

#: How a spec or signature may write a boolean (any case).
_BOOLS = {**dict.fromkeys(("1", "true", "yes", "on", "y"), True),
          **dict.fromkeys(("0", "false", "no", "off", "n"), False)}


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
    aliases: other names a spec or signature may use (names of earlier versions, e.g. doc-prism's
        ``context``); a hyphen and an underscore are one character in every name (``hyp-context`` is
        ``hyp_context``), so aliases need not list those.
    signature_key: the long key signatures and JSON ``params`` print, where it predates ``name``
        (``hyp-context``): kept so that a signature stays identical; default ``name``.
    value_aliases: ``(spelling, choice)`` pairs: other spellings of a choice (doc-prism's ``hyp`` for
        ``mt``), accepted wherever the choice is.

    Names are written with underscores (``smooth_method``, ``aligner_model``), as Python keywords.
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
    aliases: tuple[str, ...] = ()
    signature_key: str | None = None
    value_aliases: tuple[tuple[str, str], ...] = ()

    @property
    def short_key(self) -> str:
        return self.short or self.name

    @property
    def long_key(self) -> str:
        """The key signatures and JSON ``params`` print (``signature_key``, else ``name``)."""
        return self.signature_key or self.name

    def names(self) -> tuple[str, ...]:
        """Every long name a spec or signature may use: ``name``, ``signature_key``, ``aliases``."""
        return tuple(dict.fromkeys((self.name, self.long_key, *self.aliases)))

    def allowed(self) -> str:
        """Human text for what values are allowed."""
        if self.choices:
            spelled = "".join(f"; {a} = {c}" for a, c in self.value_aliases)
            return "one of " + ", ".join(str(c) for c in self.choices) + (f" ({spelled[2:]})" if spelled else "")
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
        if isinstance(raw, str) and self.value_aliases:
            raw = dict(self.value_aliases).get(raw, raw)
        try:
            if self.type is bool:
                value = raw if isinstance(raw, bool) else _BOOLS[str(raw).strip().lower()]
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
        except (TypeError, ValueError, OverflowError, KeyError):
            value = None  # refused below, with what is allowed
        outside = value is not None and ((self.minimum is not None and value < self.minimum)
                                         or (self.maximum is not None and value > self.maximum))
        if value is None or (self.choices and value not in self.choices) or outside:
            raise SpecError(f"{where}parameter '{self.name}' has value {raw!r}; it must be {self.allowed()}")
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


def spelling(key: str) -> str:
    """A parameter name as compared: a hyphen is an underscore (``hyp-context`` is ``hyp_context``)."""
    return key.replace("-", "_")


def find_param(params: Sequence[Param], key: str) -> Param | None:
    """The parameter whose name, alias or short key is ``key`` (hyphens and underscores alike)."""
    wanted = spelling(key)
    for p in params:
        if wanted in {spelling(n) for n in p.names()}:
            return p
    for p in params:
        if p.short_key == key:
            return p
    return None


def param_fields(params: Sequence[Param], values: Mapping[str, Any]) -> list[SigField]:
    """The signature's fields of ``params`` (those ``in_signature``) at ``values`` (a parameter's default where it has
    none): how a metric and a backbone sign their parameters."""
    return [SigField(p.long_key, p.short_key, p.format(values.get(p.name, p.default)))
            for p in params if p.in_signature]


def param_keys(owner: str, given: Mapping[str, Any], params: Sequence[Param]) -> dict[str, str]:
    """``{parameter name: the key it was given under}`` for the keys of ``given`` that name one of ``params`` (any
    spelling: :func:`find_param`); a parameter given under two of its names is a SpecError naming ``owner``."""
    named: dict[str, str] = {}
    for key in given:
        p = find_param(params, key)
        if p is None:
            continue
        if p.name in named:
            raise SpecError(f"{owner}: parameter '{p.name}' is given twice (as '{named[p.name]}' and '{key}'); "
                            "give it once")
        named[p.name] = key
    return named


def convert_params(owner: str, given: Mapping[str, Any], params: Sequence[Param], extra: Sequence[str] = ()
                   ) -> dict[str, Any]:
    """``{name: value}`` of every one of ``params``: its value in ``given`` (under any of its names) or its default,
    converted.  Every name first, so that an unknown one (:func:`unknown_params`; ``extra``: the other names the
    owner takes) or one given twice is a SpecError naming ``owner`` before any value is read."""
    keys = param_keys(owner, given, params)
    unknown = [key for key in given if key not in keys.values()]
    if unknown:
        raise SpecError(unknown_params(owner, unknown, params, extra))
    return {p.name: p.convert(given[keys[p.name]] if p.name in keys else p.default, owner=owner) for p in params}


def unknown_params(owner: str, keys: Sequence[str], params: Sequence[Param], extra: Sequence[str] = ()) -> str:
    """The message for parameters ``keys`` that none of ``params`` (nor the names ``extra``) takes:
    each named, a close name or the parameter whose help mentions the word where there is one, and
    every allowed name."""
    names = [p.name for p in params] + list(extra)
    every = {spelling(n): p.name for p in params for n in p.names()} | {spelling(n): n for n in extra}
    hints = []
    for key in keys:
        close = difflib.get_close_matches(spelling(key), list(every), n=1, cutoff=0.75)
        if close:
            hints.append(f"did you mean '{every[close[0]]}'?")
            continue
        word = re.compile(rf"\b{re.escape(key.replace('_', ' ').replace('-', ' '))}\b", re.IGNORECASE)
        by_help = [p for p in params if p.help and word.search(p.help)]
        if by_help:
            text = by_help[0].help
            gist = text.split(":", 1)[0] if ":" in text else text.split("(", 1)[0].strip()
            hints.append(f"did you mean '{by_help[0].name}' ({gist})?")
    what = (f"parameter '{keys[0]}'" if len(keys) == 1
            else "parameters " + ", ".join(f"'{k}'" for k in keys))
    hint = "; " + " ".join(hints) + " " if hints else "; "
    return f"{owner}: unknown {what}{hint}allowed: {', '.join(names) or 'none'}"


def check_batch_size(value: Any, option: str = "batch_size", what: str = "units per batch") -> int | None:
    """``value`` as a batch size (units per batch: an integer >= 1, or None for the backbone's default);
    a SpecError naming ``option`` otherwise.  The one check for the API's ``batch_size=``, the command
    line's ``--batch-size`` and :class:`~docmetrics.plugin.backbone.Backbone`."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise SpecError(f"{option} must be an integer >= 1 ({what}), not {value!r}")
    return value


def check_max_tokens(value: Any, option: str = "max_tokens") -> int | None:
    """``value`` as a token budget (padded tokens per batch: an integer >= 1, or None for the backbone's
    default); a SpecError naming ``option`` otherwise, as :func:`check_batch_size` checks a batch size."""
    return check_batch_size(value, option, "padded tokens per batch")


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
