"""Language pairs as users and mt-metrics-eval (MTME) write them: the one parser of ``-l``, ``--mtme``'s
language pair and every ``lang=`` parameter.

A pair is ``SRC-TGT``; each side is a language code, optionally followed by a script and/or a region,
joined with ``_`` as MTME names its WMT24++ and WMT25 language pairs (``meta_info.py``: ``en-ko_KR``,
``cs-de_DE``, ``en-sr_Cyrl_RS``, ``en-fil_PH``)::

    SIDE     = LANGUAGE [ "_" SCRIPT ] [ "_" REGION ]
    LANGUAGE = 2 or 3 letters (ISO 639-1 / 639-3: de, bho, mas)
    SCRIPT   = 4 letters (ISO 15924: Cyrl, Latn, Hans)
    REGION   = 2 letters or 3 digits (ISO 3166-1 / UN M.49: KR, RS, 419)

Case is normalised the BCP 47 way (language lower case, script title case, region upper case), so
``EN-DE`` reads as ``en-de``.  ``en-ko_KR`` means source language ``en``, target language ``ko``,
target region ``KR``.  Anything else (``en-ko-KR``, ``en-ko_KOR``, ``en_de``, ``english-german``) is a
:class:`~docmetrics.values.errors.SpecError` that says how to write a pair.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import SpecError

__all__ = ["Language", "LangPair", "parse_language", "parse_langpair", "check_langpair", "PAIR_FORM"]

#: How a pair is written, for messages.
PAIR_FORM = ("SRC-TGT with language codes (en-de), each optionally with a script and/or region joined by "
             "'_' as MTME writes them (en-ko_KR, cs-de_DE, en-sr_Cyrl_RS)")

_LANGUAGE = re.compile(r"[A-Za-z]{2,3}")
_SCRIPT = re.compile(r"[A-Za-z]{4}")
_REGION = re.compile(r"[A-Za-z]{2}|[0-9]{3}")


@dataclass(frozen=True)
class Language:
    """One side of a pair: ``sr_Cyrl_RS`` -> language ``sr``, script ``Cyrl``, region ``RS``."""

    language: str
    script: str | None = None
    region: str | None = None

    @property
    def code(self) -> str:
        """As MTME writes it: ``sr_Cyrl_RS``, ``ko_KR``, ``de``."""
        return "_".join(x for x in (self.language, self.script, self.region) if x)

    def __str__(self) -> str:
        return self.code


@dataclass(frozen=True)
class LangPair:
    """A parsed language pair (see the module docstring)."""

    source: Language
    target: Language

    @property
    def code(self) -> str:
        """The pair, normalised, as MTME writes it (``en-ko_KR``)."""
        return f"{self.source.code}-{self.target.code}"

    @property
    def src(self) -> str:
        """The source language alone (``en``)."""
        return self.source.language

    @property
    def tgt(self) -> str:
        """The target language alone (``ko`` for ``en-ko_KR``)."""
        return self.target.language

    def __str__(self) -> str:
        return self.code


def _side_problem(text: str) -> str | None:
    """Why ``text`` is not LANGUAGE[_SCRIPT][_REGION]; None when it is."""
    parts = text.split("_")
    if not _LANGUAGE.fullmatch(parts[0]):
        return f"{parts[0]!r} is not a language code (2 or 3 letters)"
    rest = parts[1:]
    if len(rest) > 2:
        return f"{text!r} has {len(rest)} '_' suffixes; at most a script and a region"
    if len(rest) == 2:
        if not _SCRIPT.fullmatch(rest[0]):
            return f"{rest[0]!r} in {text!r} is not a script (4 letters, e.g. Cyrl)"
        if not _REGION.fullmatch(rest[1]):
            return f"{rest[1]!r} in {text!r} is not a region (2 letters or 3 digits, e.g. RS)"
    elif len(rest) == 1 and not (_SCRIPT.fullmatch(rest[0]) or _REGION.fullmatch(rest[0])):
        return (f"{rest[0]!r} in {text!r} is neither a script (4 letters, e.g. Cyrl) nor a region "
                "(2 letters or 3 digits, e.g. KR)")
    return None


def parse_language(text: str) -> Language:
    """``"ko_KR"`` -> Language("ko", None, "KR"); SpecError for anything that is not
    LANGUAGE[_SCRIPT][_REGION]."""
    raw = str(text).strip()
    problem = _side_problem(raw)
    if problem:
        raise SpecError(f"language {text!r}: {problem}")
    parts = raw.split("_")
    script = region = None
    for p in parts[1:]:
        if _SCRIPT.fullmatch(p):
            script = p.title()
        else:
            region = p.upper()
    return Language(parts[0].lower(), script, region)


def parse_langpair(text: str) -> LangPair:
    """``"en-ko_KR"`` -> LangPair(Language("en"), Language("ko", None, "KR")); SpecError naming the
    problem for anything that is not a pair as the module docstring writes it."""
    raw = str(text).strip()
    sides = raw.split("-")
    if len(sides) != 2 or not all(sides):
        raise SpecError(f"language pair {text!r} is not of the form {PAIR_FORM}")
    out = []
    for side in sides:
        problem = _side_problem(side)
        if problem:
            raise SpecError(f"language pair {text!r}: {problem}; write {PAIR_FORM}")
        out.append(parse_language(side))
    return LangPair(out[0], out[1])


def check_langpair(text: str) -> str | None:
    """A Param check: None when ``text`` is a language pair, else the problem."""
    try:
        parse_langpair(text)
    except SpecError as exc:
        return str(exc)
    return None
