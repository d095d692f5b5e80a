"""Signatures: the exact, citable description of how a number was computed.

Format (like sacrebleu's)::

    NAME|key:value|key:value|...|v:VERSION

Every parameter that can change the number is present (defaults included); the backbone adds its
model, a fingerprint of the weights, its own parameters, the precision and the versions of the libraries
that compute the number; where a plugin that took part (metric, backbone, segmenter...) comes from another
distribution than docmetrics, the ``plugins`` field names each such distribution and its version
(``plugins:my-dist@1.0``).  Values are percent-escaped (``%``, ``|``, ``,``, ``=``, whitespace and control
characters), so any model id or path round-trips.  The short form uses short keys (``m`` for ``model``),
like sacrebleu's ``-sh``.  Both forms parse back with :func:`parse_signature`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote

from .errors import SpecError

_ESCAPE = set("%|,=")
VERSION_KEY = "v"
#: Fields a paired significance test adds to a signature (docmetrics.judging.paired): they describe the
#: test, not the metric, so a signature carrying them still recomputes the metric without a warning.
TEST_KEYS = ("bs", "ar", "seed")
#: The field naming the third-party distributions whose plugins computed the number (``plugins:my-dist@1.0``;
#: several joined by ``;``).  Checked against the installed distributions when a signature is loaded
#: (docmetrics.api.load), so :func:`compare` passes over it.
PLUGINS_KEYS = ("plugins", "pl")
_IN_PLUGINS = set("%;@")


def escape(value: str) -> str:
    """Percent-escape the characters that would break a signature or a spec.  (A lone surrogate, which
    no parser accepts, is written as its would-be UTF-8 bytes rather than crash.)"""
    out = []
    for ch in value:
        if ch in _ESCAPE or ch.isspace() or not ch.isprintable():
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))
        else:
            out.append(ch)
    return "".join(out)


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be part of a spec, signature or parameter value, or None.  A lone surrogate
    (U+D800..U+DFFF) is not a character: it comes from bytes that are not UTF-8 (the command line
    passes them on that way) and cannot be written out or used as a path."""
    for i, ch in enumerate(text):
        if "\ud800" <= ch <= "\udfff":
            return (f"character {i + 1} ({ascii(ch)}) is not valid Unicode text (a lone surrogate: bytes "
                    "that are not UTF-8, e.g. from the command line); write it as UTF-8")
    return None


def unescape(value: str) -> str:
    return unquote(value, errors="strict")


@dataclass(frozen=True)
class SigField:
    """One field of a signature: long key, short key, value, and whether it is a parameter
    (parsed back into the spec) or a fact about the environment (compared and warned about)."""

    key: str
    short: str
    value: str
    is_param: bool = True


@dataclass
class Signature:
    """A metric's signature: its name, its fields in order, and the docmetrics version."""

    metric: str
    fields: list[SigField] = field(default_factory=list)
    version: str = ""
    #: Keys (long and short) that earlier versions printed and this signature no longer does, because a
    #: parameter gives the same fact (sacrebleu's ``tok`` beside ``tokenize``): :func:`compare` passes
    #: over them, so an old signature still recomputes without a warning.
    folded: tuple[str, ...] = ()

    def format(self, short: bool = False) -> str:
        parts = [self.metric]
        for f in self.fields:
            parts.append(f"{f.short if short else f.key}:{escape(f.value)}")
        parts.append(f"{VERSION_KEY}:{escape(self.version)}")
        return "|".join(parts)

    def __str__(self) -> str:
        return self.format()

    def as_dict(self) -> dict[str, str]:
        d = {f.key: f.value for f in self.fields}
        d["version"] = self.version
        return d

    def get(self, key: str) -> str | None:
        for f in self.fields:
            if key in (f.key, f.short):
                return f.value
        return None


@dataclass
class ParsedSignature:
    """A signature read back: the metric name and its ``key -> value`` pairs, in order, keys as
    written (long or short); ``version`` is the docmetrics version it was made with."""

    metric: str
    items: list[tuple[str, str]]
    version: str | None

    def get(self, *keys: str) -> str | None:
        for k, v in self.items:
            if k in keys:
                return v
        return None

    def format(self) -> str:
        """The signature as text again (keys as they were written; ``parse_signature`` reads it back
        to an equal object)."""
        parts = [self.metric] + [f"{k}:{escape(v)}" for k, v in self.items]
        if self.version is not None:
            parts.append(f"{VERSION_KEY}:{escape(self.version)}")
        return "|".join(parts)


#: A plugin's name as registered (an entry-point name): a metric, a backbone.
PLUGIN_NAME = r"[A-Za-z][A-Za-z0-9_.\-]*"
#: A distribution's name (PEP 508), as in ``slide@my-dist``.
DIST_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9_.\-]*[A-Za-z0-9])?"
#: A metric name (also in specs): a plugin's name, optionally with the distribution that provides it
#: (``slide@my-dist``: that distribution's ``slide``, where more than one registers it).
NAME = re.compile(rf"^{PLUGIN_NAME}(?:@{DIST_NAME})?$")


def name_problem(name: str) -> str | None:
    """Why ``name`` is no metric name (``NAME`` or ``NAME@DISTRIBUTION``), in words, or None."""
    if NAME.fullmatch(name):
        return None
    bare, at, dist = name.partition("@")
    form = "write NAME, or NAME@DISTRIBUTION to pick one distribution's plugin (e.g. slide@docmetrics)"
    if not re.fullmatch(PLUGIN_NAME, bare):
        return f"{bare!r} is not a plugin name (a letter, then letters, digits, '.', '-', '_'); {form}"
    if "@" in dist:
        return f"it has more than one '@'; {form}"
    if not dist:
        return f"no distribution follows '@'; {form}"
    return f"{dist!r} is not a distribution name (letters, digits, '.', '-', '_'); {form}"


def looks_like_signature(text: str) -> bool:
    return "|" in text


def parse_signature(text: str) -> ParsedSignature:
    """Parse a signature (long or short form).  Each field is ``key:value`` with a non-empty key, given
    once; a SpecError names the field otherwise."""
    problem = text_problem(text)
    if problem:
        raise SpecError(f"signature {text!r}: {problem}")
    text = text.strip()
    parts = text.split("|")
    metric = parts[0]
    if not NAME.fullmatch(metric):
        raise SpecError(f"signature {text!r}: it must start with a metric name, e.g. 'slide|w:6|...'")
    items: list[tuple[str, str]] = []
    version = None
    seen: dict[str, str] = {}
    for part in parts[1:]:
        if ":" not in part:
            raise SpecError(
                f"signature field {part!r} is not of the form key:value (in {text!r})"
            )
        key, value = part.split(":", 1)
        if not key.strip():
            raise SpecError(f"signature field {part!r} has no key before ':' (in {text!r}); write key:value")
        name = "version" if key == VERSION_KEY else key
        if name in seen:
            raise SpecError(f"signature field '{key}' is given twice ({seen[name]} and {part}) in {text!r}; "
                            "a signature gives each field once")
        seen[name] = part
        try:
            value = unescape(value)
        except UnicodeDecodeError:
            raise SpecError(f"signature field {part!r} has a bad %-escape") from None
        if name == "version":
            version = value
        else:
            if key in PLUGINS_KEYS:
                parse_plugins_value(value, key)  # a malformed list is told here, naming the field
            items.append((key, value))
    return ParsedSignature(metric, items, version)


def plugins_value(versions: dict[str, str]) -> str:
    """The value of the ``plugins`` field: ``dist@version`` for each distribution, sorted by name, joined by
    ``;`` (a ``%``, ``;`` or ``@`` inside a name or version is %-escaped first, so any of them round-trips)."""
    def part(text: str) -> str:
        return "".join(f"%{ord(ch):02X}" if ch in _IN_PLUGINS else ch for ch in text)

    return ";".join(f"{part(d)}@{part(v)}" for d, v in sorted(versions.items(), key=lambda dv: dv[0].lower()))


def parse_plugins_value(value: str, key: str = "plugins") -> dict[str, str]:
    """``{distribution: version}`` from the value of a ``plugins`` field (:func:`plugins_value`); a SpecError
    naming the field where a part is not ``DISTRIBUTION@VERSION``."""
    out: dict[str, str] = {}
    for piece in value.split(";"):
        dist, at, version = piece.partition("@")
        try:
            dist, version = unescape(dist), unescape(version)
        except UnicodeDecodeError:
            raise SpecError(f"signature field {key}: {piece!r} has a bad %-escape") from None
        if not at or not dist.strip() or not version.strip():
            raise SpecError(f"signature field {key}: {piece!r} is not DISTRIBUTION@VERSION (e.g. "
                            f"{key}:my-dist@1.0; several joined by ';')")
        out[dist] = version
    return out


def compare(expected: ParsedSignature, actual: Signature) -> list[str]:
    """The fields (named) where a recomputed signature differs from the one asked for."""
    diffs = []
    actual_fields = {f.key: f for f in actual.fields}
    by_short = {f.short: f for f in actual.fields}
    for key, value in expected.items:
        if key in TEST_KEYS or key in PLUGINS_KEYS or key in actual.folded:
            continue
        f = actual_fields.get(key) or by_short.get(key)
        if f is None:
            diffs.append(f"{key} (in the signature, not produced here)")
        elif f.value != value:
            diffs.append(f"{f.key}: signature has {value!r}, this run has {f.value!r}")
    if expected.version is not None and expected.version != actual.version:
        diffs.append(f"version: signature has {expected.version!r}, this run has {actual.version!r}")
    return diffs
