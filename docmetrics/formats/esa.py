"""ESA human judgements as WMT's GenMT files write them (wmt-conference/wmt25-general-mt): one system's translation
of one segment judged by one or more annotations, each an ESA score (0-100) and error spans.

A judgement comes in the three shapes in use: ``{"human": 87, "errors": [...]}`` (one annotation),
``{"human1": 87, "errors1": [...], "human2": ...}`` (one per annotation wave, as ``04-collect_humeval.py`` writes) or
a list of annotations ``[{"score": 87, "errors": [...], "annotator": ...}, ...]`` (the released file).  Its score
is the mean of the annotations' scores (None when none gives one), its error spans those of every annotation (None
when no annotation lists spans), each span ``{"start_i", "end_i", "severity"}``: :func:`read_judgement`,
:func:`read_spans`.  Every mistake is an :class:`~docmetrics.values.errors.InputError` naming where it is.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from ..values.errors import InputError, shown
from .base import Span, span_objects
from .judgements import exact_mean

__all__ = ["WMT26_ERROR_FREE_THRESHOLD", "OMISSION", "ESA_RANGE", "Judgement", "read_judgement", "read_spans"]

#: The ESA score at or above which a segment without error spans is error-free (WMT26 subtask 3).
WMT26_ERROR_FREE_THRESHOLD = 85.0
#: What ESA writes for both offsets of an omission (an error with no place in the translation).
OMISSION = "missing"
#: The range of an ESA score (a score outside it is refused: it is not ESA).
ESA_RANGE = (0.0, 100.0)
#: The keys of one annotation wave (``human2``, ``errors2``; no number: the first).
_WAVE = re.compile(r"^(?:human|errors)(\d*)$")


@dataclass(frozen=True)
class Judgement:
    """The human judgement of one system's output of one segment.

    ``score``: the ESA score (0-100), the mean over the annotations that give one (None: none does);
    ``scores``: each annotation's score; ``errors``: the error spans of every annotation (None when no
    annotation lists spans: only a score was given); ``line``: where it was read.
    """

    score: float | None
    scores: tuple[float, ...]
    errors: tuple[Span, ...] | None
    line: int

    def error_free(self, threshold: float = WMT26_ERROR_FREE_THRESHOLD,
                   score_only_threshold: float = 100.0) -> bool | None:
        """Whether the humans found the output error-free: no error span and a score at or above
        ``threshold`` (WMT26 subtask 3's rule: ESA >= 85 AND no span); with spans but no score, no
        span; with a score but no span annotation, a score at or above ``score_only_threshold``;
        None when there is neither."""
        if self.errors is not None:
            return not self.errors and (self.score is None or self.score >= threshold)
        if self.score is not None:
            return self.score >= score_only_threshold
        return None


def read_judgement(raw: Any, where: str, line: int, text: str | None = None) -> Judgement | None:
    """A judgement in any of the three shapes (module docstring) of the translation ``text``; None for an
    empty one.  An annotation's score is ESA (0-100) unless its ``protocol`` names another."""
    if isinstance(raw, list):
        annotations = raw
        for k, a in enumerate(annotations):
            if not isinstance(a, dict):
                raise InputError(f"{where}[{k}]: {json.dumps(a)[:60]} is not an annotation object "
                                 '{"score": ESA score, "errors": [...]}')
        pieces = [(a.get("score", a.get("human")), a.get("errors"), f"{where}[{k}].score",
                   f"{where}[{k}].errors", a.get("protocol")) for k, a in enumerate(annotations)]
    elif isinstance(raw, dict):
        waves = sorted({m.group(1) for key in raw if (m := _WAVE.match(key))})
        pieces = [(raw.get(f"human{w}"), raw.get(f"errors{w}"), f"{where}.human{w}", f"{where}.errors{w}",
                   raw.get("protocol")) for w in waves]
    elif raw is None:
        return None
    else:
        raise InputError(f"{where}: {json.dumps(raw)[:60]} is not a judgement "
                         '({"human": ESA score, "errors": [...]}, or a list of annotations)')
    scores: list[float] = []
    spans: list[Span] | None = None
    for score, errors, score_at, errors_at, protocol in pieces:
        if score is not None:
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise InputError(f"{score_at}: the human score {json.dumps(score)[:40]} is not a number")
            low, high = ESA_RANGE
            if protocol in (None, "ESA") and not low <= score <= high:
                raise InputError(f"{score_at}: the ESA score {score:g} is outside {low:g}-{high:g}; fix the file, "
                                 'or name the scale of other scores in the annotation ("protocol": "MQM")')
            scores.append(float(score))
        if errors is not None:
            spans = (spans or []) + read_spans(errors, errors_at, text)
    if not scores and spans is None:
        return None
    return Judgement(exact_mean(scores) if scores else None, tuple(scores),
                     tuple(spans) if spans is not None else None, line)


def read_spans(errors: Any, where: str, text: str | None) -> list[Span]:
    """The error spans of one annotation, checked against the translation ``text`` they mark: offsets
    are 0-based characters with ``0 <= start <= end <= len(text)`` (an empty span marks a place), or both
    ``"missing"`` (ESA's omission: an error with no place in the translation, kept with no offsets)."""
    out = []
    for at, e in span_objects(errors, where):
        start, end = e.get("start_i", e.get("start")), e.get("end_i", e.get("end"))
        severity = e.get("severity")
        severity = str(severity) if severity is not None else None
        if start == OMISSION and end == OMISSION:
            out.append(Span(None, None, severity))
            continue
        for key, v in (("start_i", start), ("end_i", end)):
            if v == OMISSION:
                raise InputError(f"{at}.{key}: {shown(OMISSION)} on one side only; an omission has "
                                 f'"start_i": "{OMISSION}" and "end_i": "{OMISSION}", a span two offsets')
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise InputError(f"{at}.{key}: {json.dumps(v)[:40]} is not a character offset (an "
                                 f'integer), nor "{OMISSION}" (an omission)')
            if v is not None and v < 0:
                raise InputError(f"{at}.{key}: {v} is negative; offsets count characters from 0")
        if start is not None and end is not None and start > end:
            raise InputError(f"{at}: start_i {start} is after end_i {end}; a span runs from start_i "
                             "to end_i (end_i excluded)")
        if text is not None and max(v for v in (start, end, 0) if v is not None) > len(text):
            raise InputError(f"{at}: the span {start}-{end} ends past the translation it marks "
                             f"({len(text)} characters); offsets count characters of tgt_text")
        out.append(Span(start, end, severity))
    return out
