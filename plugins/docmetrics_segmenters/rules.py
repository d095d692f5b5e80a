"""The ``rules`` segmenter: sentence splitting by punctuation rules, no model, no dependency.

Rules (version 1), applied to each line of the text (a line break always ends a sentence):

1. A sentence ends after a run of sentence-final marks and the closing quotes and brackets attached
   to it (``."``, ``?)``, ``。」``, ``!»``; also a closing guillemet after a space: ``Bonjour. »``).
2. CJK marks ``。 ！ ？ ｡`` end a sentence wherever they stand (CJK text has no spaces), except
   before the Japanese quotative particles ``と`` / ``って`` right after a closing quote
   (``「はい。」と言った`` is one sentence).
3. The other marks (``. ! ? … ؟ ۔ । ॥ ։`` and runs of them such as ``...`` or ``?!``) end a sentence
   only when followed by white space (or the end of the line), and the next word, after any opening
   quotes, brackets or dashes, does not start with a lower-case letter.  So decimals (``3.14``),
   URLs, ``"Why?" she asked`` and ``etc. and so on`` stay whole; caseless scripts (Arabic, Hindi,
   Hebrew, ...) split at every such mark.
4. A single ``.`` does not end a sentence after
   * a known abbreviation of the language (``Dr.``, ``Prof.``, ``bzw.``, ``vgl.``, ...; when the
     language is unknown, the union of all lists less the entries that are ordinary words of
     another language, such as Italian ``On.`` / English ``on``);
   * an abbreviation that is followed by a number (``No. 5``, ``Nr. 3``, ``S. 12``, ``Jan. 5``);
   * dotted letters (``U.S.``, ``e.g.``, ``z.B.``, ``Ph.D.``) and a single capital letter (``J. K.
     Rowling``; not ``I``);
   * a number of at most three digits that opens the line (``1. Introduction``: an enumeration);
   * in German (or unknown language): an ordinal, i.e. a number of at most three digits after an
     article or preposition (``am 3. Oktober``, ``der 2. Weltkrieg``) or before a month name.

The rules are deliberately conservative around abbreviations: a sentence that really ends with
``Dr.`` or ``U.S.`` is joined with the next one.
"""

from __future__ import annotations

import re
from typing import ClassVar

from docmetrics.plugin.segmenter import Segmenter

__all__ = ["RuleSegmenter", "ABBREVIATIONS", "NUMBER_ABBREVIATIONS"]

CJK_TERMINALS = "。！？｡"
LATIN_TERMINALS = ".!?…؟۔।॥։"
#: Closing quotes and brackets that stay with the sentence they follow (attached, no space).
CLOSERS = "\"'”’“‘»«›‹)]}」』）］】〉》"
#: What may open a sentence before its first letter.
OPENERS = "\"'“‘„‚«»‹›([{¿¡「『（［【《〈-–—*•"

_RUN = re.compile(
    "([" + re.escape(CJK_TERMINALS + LATIN_TERMINALS) + "]+)([" + re.escape(CLOSERS) + "]*)"
)
_DOTTED = re.compile(r"^(?:[^\W\d_]{1,2}\.)+[^\W\d_]{1,2}$")
_JA_QUOTATIVE = ("と", "って")

#: Abbreviations that (almost) never end a sentence, by language (lower case, without the dot).
ABBREVIATIONS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "mr mrs ms messrs dr prof sr jr st rev gen col lt sgt capt gov sen rep hon mt ft vs cf al "
        "approx dept univ esp".split()
    ),
    "de": frozenset(
        "hr hrn fr frl dr prof hrsg bzw vgl ggf evtl sog bspw inkl exkl zzgl ggü allg geb gest "
        "mio mrd tsd jh jhd st u".split()
    ),
    "fr": frozenset("mme mlle mm dr pr st ste me mgr cf env".split()),
    "es": frozenset("sr sra srta sres dr dra ud uds lic ing pág dña".split()),
    "it": frozenset("sig sigg dott prof ing avv arch geom on".split()),
    "pt": frozenset("sr sra srta dr dra prof eng exmo exma".split()),
    "nl": frozenset("dhr mevr mw dr prof ir ing drs mr bijv ca".split()),
    "ru": frozenset("г гг ул им др пр проф акад доц млн млрд тыс руб коп".split()),
}

#: Abbreviations that do not end a sentence when a number follows (``No. 5``), by language.
NUMBER_ABBREVIATIONS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "no nos nr p pp vol vols fig figs sec ch art tab eq ref jan feb mar apr jun jul aug sep sept "
        "oct nov dec ca".split()
    ),
    "de": frozenset("nr s abs art kap abb tab bd ca str tel jan feb mär apr jun jul aug sep sept okt "
                    "nov dez".split()),
    "fr": frozenset("no p pp vol fig art chap".split()),
    "es": frozenset("no núm pág art cap vol fig".split()),
    "it": frozenset("n pag art cap vol fig".split()),
    "pt": frozenset("n nº pág art cap vol fig".split()),
    "nl": frozenset("nr p blz art hfst".split()),
    "ru": frozenset("с ст рис табл гл п".split()),
}

#: Abbreviations of one language that are ordinary words of another (English "on", "me"): not used
#: when the language is unknown.
_AMBIGUOUS = frozenset({"on", "me", "mm", "arch", "ing", "env"})
_ALL_ABBREVIATIONS = frozenset().union(*ABBREVIATIONS.values()) - _AMBIGUOUS
_ALL_NUMBER_ABBREVIATIONS = frozenset().union(*NUMBER_ABBREVIATIONS.values())

_MONTHS = frozenset(
    "januar februar märz april mai juni juli august september oktober november dezember "
    "jänner feber january february march may june july october december".split()
)
#: Words after which a German number with a dot is an ordinal (``am 3.``, ``der 2.``).
_DE_ORDINAL_BEFORE = frozenset(
    "am im vom zum zur beim ins ans bis ab seit der die das den dem des ein eine einem einen einer "
    "eines für nach vor um zu in an auf über unter mit jeder jede jedes jedem jeden dieser diese "
    "dieses diesem diesen sein seine seinem seinen seiner ihr ihre ihrem ihren ihrer unser unsere "
    "mein meine dein deine".split()
)


class RuleSegmenter(Segmenter):
    """Punctuation rules for Latin, Cyrillic, Greek, Arabic, Indic and CJK text (see the module
    docstring for the exact rules)."""

    name: ClassVar[str] = "rules"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "built-in punctuation rules (Latin and CJK marks, quotes, abbreviations, decimals); no model"
    )

    def split(self, text: str, lang: str | None = None) -> list[str]:
        code = _base(lang)
        out: list[str] = []
        for line in text.splitlines():
            start = 0
            for m in _RUN.finditer(line):
                if m.start() < start:
                    continue  # inside a closing guillemet already taken
                if self._ends_sentence(line, m, code):
                    end = _spaced_closer(line, m.end())
                    piece = line[start:end].strip()
                    if piece:
                        out.append(piece)
                    start = end
            tail = line[start:].strip()
            if tail:
                out.append(tail)
        return out

    # -- the rules ----------------------------------------------------------------------------------
    def _ends_sentence(self, line: str, m: re.Match[str], lang: str | None) -> bool:
        run, closers = m.group(1), m.group(2)
        after = m.end()
        if any(c in CJK_TERMINALS for c in run):
            if closers and line.startswith(_JA_QUOTATIVE, after):
                return False
            return True
        if after >= len(line):
            return True
        if not line[after].isspace():
            return False  # 3.14, example.com, U.S.A, "Stop!", he said
        nxt = _next_word(line, _spaced_closer(line, after))
        if not nxt:
            return True
        if nxt[0].islower():
            return False
        if run != "." or closers:
            return True
        token, token_start = _word_before(line, m.start())
        if not token:
            return True
        low = re.split("['’]", token)[-1].lower()  # L'On. -> on (elided article)
        abbreviations = ABBREVIATIONS.get(lang or "", _ALL_ABBREVIATIONS) if lang else _ALL_ABBREVIATIONS
        if low in abbreviations:
            return False
        numbered = NUMBER_ABBREVIATIONS.get(lang or "", _ALL_NUMBER_ABBREVIATIONS) if lang \
            else _ALL_NUMBER_ABBREVIATIONS
        if low in numbered and nxt[0].isdigit():
            return False
        if _DOTTED.match(token):
            return False
        if len(token) == 1 and token.isalpha() and token.isupper() and token != "I":
            return False  # an initial (J. K. Rowling); not the pronoun or Roman numeral I
        if token.isdigit() and len(token) <= 3:
            if not line[:token_start].strip():
                return False  # an enumeration opening the line: "1. Introduction"
            if lang in (None, "de"):
                before, _ = _word_before(line, token_start)
                word = nxt.rstrip(".,;:!?").lower()
                if word in _MONTHS or before.lower() in _DE_ORDINAL_BEFORE:
                    return False
        return True


def _base(lang: str | None) -> str | None:
    """``de`` for ``de``, ``de-AT``, ``de_AT``; None for None / ``auto`` / empty."""
    if not lang:
        return None
    code = re.split(r"[-_]", lang.strip().lower(), maxsplit=1)[0]
    return None if code in ("", "auto", "none") else code


def _spaced_closer(line: str, pos: int) -> int:
    """French typography puts a space before a closing guillemet (``Bonjour. »``): take it along."""
    k = pos
    while k < len(line) and line[k] in " \u00a0\u202f":
        k += 1
    if k > pos and k < len(line) and line[k] in "»›" and (k + 1 == len(line) or line[k + 1].isspace()):
        return k + 1
    return pos


def _next_word(line: str, pos: int) -> str:
    """The next word after ``pos``, skipping white space and opening quotes, brackets, dashes."""
    n = len(line)
    while pos < n and line[pos].isspace():
        pos += 1
    while pos < n and (line[pos] in OPENERS or line[pos].isspace()):
        pos += 1
    end = pos
    while end < n and not line[end].isspace():
        end += 1
    return line[pos:end]


def _word_before(line: str, pos: int) -> tuple[str, int]:
    """The run of non-space characters ending at ``pos`` (opening quotes/brackets stripped), and
    where it starts."""
    end = pos
    while end > 0 and line[end - 1].isspace():
        end -= 1
    start = end
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    token = line[start:end]
    stripped = token.lstrip(OPENERS)
    return stripped, start + (len(token) - len(stripped))
