"""Which writing system a text is in, and whether it fits a language: a cheap check on a sample.

A language pair (``-l en-zh``) decides things that depend on the text (sacrebleu's BLEU tokenizer, an
English-only model's fitness); a pair that does not match the text changes the number silently.  These
functions read a sample of the text (at most :data:`SAMPLE_LINES` lines, :data:`SAMPLE_CHARS` characters
each), count its letters by Unicode script (code-point ranges, no library) and compare the most common
script with the scripts a language is written in.  Latin-script languages are told apart from English
by their most common words only where a caller asks (an English-only model).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

__all__ = ["ScriptFound", "SAMPLE_LINES", "SAMPLE_CHARS", "MIN_LETTERS", "scripts_of", "dominant_script",
           "script_mismatch", "LatinGuess", "latin_language", "sample", "outside_languages"]

SAMPLE_LINES = 200
SAMPLE_CHARS = 300
#: fewer letters than this in the sample: no judgement (a test set of "a", "b", ...)
MIN_LETTERS = 20
#: fewer words than this: no guess of a Latin-script language
MIN_WORDS = 12

#: (first, last, script) code-point ranges of letters, sorted by first
_RANGES = sorted([
    (0x0041, 0x024F, "Latin"), (0x0250, 0x02AF, "Latin"), (0x1E00, 0x1EFF, "Latin"), (0x2C60, 0x2C7F, "Latin"),
    (0xA720, 0xA7FF, "Latin"), (0xFF21, 0xFF5A, "Latin"),
    (0x0370, 0x03FF, "Greek"), (0x1F00, 0x1FFF, "Greek"),
    (0x0400, 0x052F, "Cyrillic"), (0x1C80, 0x1C8F, "Cyrillic"), (0x2DE0, 0x2DFF, "Cyrillic"),
    (0xA640, 0xA69F, "Cyrillic"),
    (0x0530, 0x058F, "Armenian"), (0x0590, 0x05FF, "Hebrew"),
    (0x0600, 0x06FF, "Arabic"), (0x0750, 0x077F, "Arabic"), (0x08A0, 0x08FF, "Arabic"), (0xFB50, 0xFDFF, "Arabic"),
    (0xFE70, 0xFEFF, "Arabic"),
    (0x0900, 0x097F, "Devanagari"), (0xA8E0, 0xA8FF, "Devanagari"), (0x0980, 0x09FF, "Bengali"),
    (0x0A00, 0x0A7F, "Gurmukhi"), (0x0A80, 0x0AFF, "Gujarati"), (0x0B00, 0x0B7F, "Oriya"), (0x0B80, 0x0BFF, "Tamil"),
    (0x0C00, 0x0C7F, "Telugu"), (0x0C80, 0x0CFF, "Kannada"), (0x0D00, 0x0D7F, "Malayalam"),
    (0x0D80, 0x0DFF, "Sinhala"), (0x0E00, 0x0E7F, "Thai"), (0x0E80, 0x0EFF, "Lao"), (0x0F00, 0x0FFF, "Tibetan"),
    (0x1000, 0x109F, "Myanmar"), (0x10A0, 0x10FF, "Georgian"), (0x2D00, 0x2D2F, "Georgian"),
    (0x1100, 0x11FF, "Hangul"), (0x3130, 0x318F, "Hangul"), (0xA960, 0xA97F, "Hangul"), (0xAC00, 0xD7AF, "Hangul"),
    (0xD7B0, 0xD7FF, "Hangul"), (0xFFA0, 0xFFDC, "Hangul"),
    (0x1200, 0x139F, "Ethiopic"), (0x1780, 0x17FF, "Khmer"),
    (0x3040, 0x309F, "Hiragana"), (0x30A0, 0x30FF, "Katakana"), (0x31F0, 0x31FF, "Katakana"),
    (0xFF66, 0xFF9F, "Katakana"), (0x3100, 0x312F, "Bopomofo"),
    (0x2E80, 0x2FDF, "Han"), (0x3005, 0x3007, "Han"), (0x3021, 0x3029, "Han"), (0x3038, 0x303B, "Han"),
    (0x3400, 0x4DBF, "Han"), (0x4E00, 0x9FFF, "Han"), (0xF900, 0xFAFF, "Han"), (0x20000, 0x3134F, "Han"),
])
_STARTS = [r[0] for r in _RANGES]

_BY_SCRIPT = {
    "Latin": "en de fr es it pt nl cs pl sk sl hr bs ro hu fi et lv lt sv da no nb nn is tr id ms vi sq ca eu gl af "
             "sw tl cy ga mt uz az ha yo ig zu xh so lb fy oc br eo la tk mi sm ht qu ay gn rw ln lg ny sn st tn ts",
    "Cyrillic": "ru uk bg be mk kk ky tg mn ba tt cv ce os",
    "Greek": "el", "Arabic": "ar fa ur ps ug ckb sd", "Hebrew": "he yi", "Devanagari": "hi mr ne sa",
    "Bengali": "bn as", "Gurmukhi": "pa", "Gujarati": "gu", "Oriya": "or", "Tamil": "ta", "Telugu": "te",
    "Kannada": "kn", "Malayalam": "ml", "Sinhala": "si", "Thai": "th", "Lao": "lo", "Myanmar": "my",
    "Georgian": "ka", "Armenian": "hy", "Ethiopic": "am ti", "Khmer": "km", "Tibetan": "bo",
}
#: ISO 639-1 code -> the scripts the language is written in (a language not here is not checked)
LANGUAGE_SCRIPTS: dict[str, frozenset[str]] = {
    **{lang: frozenset({script}) for script, langs in _BY_SCRIPT.items() for lang in langs.split()},
    "zh": frozenset({"Han"}), "ja": frozenset({"Han", "Hiragana", "Katakana"}),
    "ko": frozenset({"Hangul", "Han"}), "sr": frozenset({"Cyrillic", "Latin"}),
    "pa": frozenset({"Gurmukhi", "Arabic"}), "uz": frozenset({"Latin", "Cyrillic"}),
    "az": frozenset({"Latin", "Cyrillic", "Arabic"}),
}


def script_of(ch: str) -> str | None:
    """The script of the letter ``ch`` (see :data:`_RANGES`), or None for a letter of no script listed."""
    cp = ord(ch)
    k = bisect.bisect_right(_STARTS, cp) - 1
    if k >= 0 and _RANGES[k][0] <= cp <= _RANGES[k][1]:
        return _RANGES[k][2]
    return None


def scripts_of(language: str | None) -> frozenset[str] | None:
    """The scripts ``language`` (ISO 639-1, any case) is written in, or None where it is not known here."""
    return LANGUAGE_SCRIPTS.get(language.lower()) if language else None


def sample(texts: Sequence[str]) -> list[str]:
    """At most :data:`SAMPLE_LINES` lines spread evenly over ``texts``, each cut at :data:`SAMPLE_CHARS`."""
    n = len(texts)
    step = max(1, n // SAMPLE_LINES)
    return [texts[i][:SAMPLE_CHARS] for i in range(0, n, step)][:SAMPLE_LINES]


@dataclass(frozen=True)
class ScriptFound:
    """The most common script of a text's sampled letters: its name, its share of them and their number."""

    script: str
    share: float
    letters: int

    def __str__(self) -> str:
        return f"{self.script} script ({self.share:.0%} of {self.letters} letters sampled)"


def dominant_script(texts: Sequence[str]) -> ScriptFound | None:
    """The most common script of the letters in a sample of ``texts``; None under :data:`MIN_LETTERS`."""
    counts: Counter[str] = Counter()
    for line in sample(texts):
        for ch in line:
            if ch.isalpha():
                counts[script_of(ch) or "other"] += 1
    total = sum(counts.values())
    if total < MIN_LETTERS:
        return None
    script, n = counts.most_common(1)[0]
    return ScriptFound(script, n / total, total)


def script_mismatch(language: str | None, texts: Sequence[str]) -> ScriptFound | None:
    """The script found where the text's most common script is not one ``language`` is written in;
    None where it is, where the language's scripts are not known here, or where the sample is too small."""
    expected = scripts_of(language)
    if not expected:
        return None
    found = dominant_script(texts)
    return found if found is not None and found.script not in expected else None


# -- Latin-script languages by their most common words --------------------------------------------------------------
_ENGLISH = frozenset("the of and to a in is it that for on with as was be by this are at from or have an not but he "
                     "she they we you i his her their will has had which were can there been would all if so what do "
                     "no one my me our your its".split())
_COMMON = {
    "de": "der die das und ist nicht ein eine zu mit den dem des sich auf für von es ich wir sie er hat sind wird "
          "auch im ich noch nach bei",
    "fr": "le la les et est un une des du de pas que qui dans pour sur avec il elle nous vous ce sont au",
    "es": "el la los las y es un una de del que en por con para se lo su al está son muy",
    "it": "il lo la gli le e è un una di del che per con non si sono della nel al",
    "pt": "o os as e é um uma de do da que em para com não se são no na",
    "nl": "de het een en van dat niet op te met zijn voor er ik wij hij ze",
    "cs": "je se na to že ve jsem není jako pro by ale jak",
    "pl": "w z na się nie to że jest do jak po ale",
}
#: each language's common words that are not English words too
COMMON_WORDS = {lang: frozenset(words.split()) - _ENGLISH for lang, words in _COMMON.items()}
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class LatinGuess:
    """A sample's share of common words of ``language`` and of English, over ``words`` words."""

    language: str
    share: float
    english: float
    words: int

    def __str__(self) -> str:
        return (f"{self.share:.0%} of {self.words} words are common {self.language} words, "
                f"{self.english:.0%} common English ones")


def latin_language(texts: Sequence[str]) -> LatinGuess | None:
    """The Latin-script language of :data:`COMMON_WORDS` whose common words make the largest share of a
    sample of ``texts``, where that share is at least 15% and twice English's; else None (English, too
    few words, or no clear answer)."""
    words = [w.lower() for line in sample(texts) for w in _WORD.findall(line)]
    if len(words) < MIN_WORDS:
        return None
    english = sum(w in _ENGLISH for w in words) / len(words)
    shares = {lang: sum(w in common for w in words) / len(words) for lang, common in COMMON_WORDS.items()}
    lang, share = max(shares.items(), key=lambda kv: kv[1])
    return LatinGuess(lang, share, english, len(words)) if share >= 0.15 and share >= 2 * english else None


def outside_languages(covered: frozenset[str], texts: Sequence[str]) -> str | None:
    """Why a sample of ``texts`` is in none of the languages ``covered`` (ISO 639-1), in words
    (``is written in Han script (...)``, ``reads as de (...)``), or None where it may be: its most common
    script is one of theirs and, where they are English only, its common words are not another's."""
    known = [scripts_of(lang) for lang in covered]
    if not all(known):
        return None  # a language whose scripts are not listed here: no claim
    found = dominant_script(texts)
    if found is None:
        return None
    if found.script not in frozenset().union(*known):
        return f"is written in {found}"
    guess = latin_language(texts) if covered == {"en"} else None
    return f"reads as {guess.language} ({guess})" if guess is not None else None
