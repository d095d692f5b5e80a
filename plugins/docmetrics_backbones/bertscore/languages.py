"""The ``lang`` parameter of the bertscore backbone: a language code or a pair, and its target language.

bert-score picks its default model and its rescaling baseline by the target language: ``de`` for
``en-de``, the code itself for ``de``, and bert-score's own ``en-sci``.
"""

from __future__ import annotations

from typing import Any

from docmetrics.values.errors import SpecError
from docmetrics.values.langpair import parse_langpair, parse_language

__all__ = ["check_lang", "target_language", "unset"]

#: bert-score language keys that contain a dash but are not language pairs.
_SPECIAL_LANGS = ("en-sci",)


def unset(value: Any) -> Any:
    """A signature writes an unset string parameter as 'none': read it back as unset (None)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
        return None
    return value


def check_lang(value: str) -> str | None:
    """What is wrong with ``value`` as ``lang``, or None (unset, a code, a pair, or bert-score's ``en-sci``)."""
    if unset(value) is None or value.lower() in _SPECIAL_LANGS:
        return None
    try:
        if "-" in value:
            parse_langpair(value)
        else:
            parse_language(value)
    except SpecError as exc:
        return (f"write a language code (de) or a pair SRC-TGT (en-de, or MTME's en-ko_KR), as sacrebleu's "
                f"-l does ({exc})")
    return None


def target_language(lang: str) -> str:
    """The language bert-score is asked about: the target of a pair (``en-de`` -> ``de``), or the
    code itself (``de``, and bert-score's own ``en-sci``)."""
    lang = lang.strip()
    if lang.lower() in _SPECIAL_LANGS:
        return lang.lower()
    if "-" not in lang:
        return parse_language(lang).language
    return parse_langpair(lang).tgt
