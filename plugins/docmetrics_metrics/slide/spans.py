"""A SLIDE window's error spans, given to the segments they fall in (pure: the standard library only).

A window's MT text is its segments joined with one space (:data:`~.metric.JOINER`), so segment ``k``
holds the characters ``offset_k .. offset_k + len_k - 1`` of the window, ``offset_k`` being the lengths
of the segments before it plus one joiner each.  A span ``[start, end)`` in the window goes to every
segment it shares a character with, cut to that segment and shifted to its own offsets: a span across a
boundary is split in two (the joiner between them belongs to neither), a span over the joiner alone
goes nowhere.  A span of no character (``start == end``, as COMET gives one where only ``<s>`` is
tagged) goes to the segment whose extent ``[offset_k, offset_k + len_k]`` holds it, the first such.
Each piece keeps its span's severity and confidence.

Where windows overlap (stride s < w) a segment takes the spans of its *first* window only, the one that
starts earliest (:func:`first_window_spans`): that window gives it the most preceding context (it
ends at or after the segment), every character is judged once (a union over windows would count an
error found by two windows twice, and the span scorer counts a character once per span covering it), and
with s = w, the windows being disjoint, it is simply the window's spans.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from docmetrics.values.units import UnitSpan

__all__ = ["split_window_spans", "first_window_spans", "severity_counts"]


def split_window_spans(lengths: Sequence[int], spans: Iterable[UnitSpan], joiner: int = 1
                       ) -> list[tuple[UnitSpan, ...]]:
    """Per segment of a window whose segments have ``lengths`` characters (joined with ``joiner``
    characters): the window's ``spans`` that fall in it, in offsets of the segment, in the spans'
    order.  A span outside the window is a ValueError."""
    offsets, at = [], 0
    for n in lengths:
        offsets.append(at)
        at += n + joiner
    total = at - joiner if lengths else 0
    out: list[list[UnitSpan]] = [[] for _ in lengths]
    for s in spans:
        if not 0 <= s.start <= s.end <= total:
            raise ValueError(f"error span {s.start}-{s.end} is not within the window's {total} characters")
        if s.start == s.end:
            k = next((k for k, (o, n) in enumerate(zip(offsets, lengths)) if o <= s.start <= o + n), None)
            if k is not None:
                out[k].append(UnitSpan(s.start - offsets[k], s.start - offsets[k], s.severity, s.confidence))
            continue
        for k, (o, n) in enumerate(zip(offsets, lengths)):
            a, b = max(s.start, o), min(s.end, o + n)
            if a < b:
                out[k].append(UnitSpan(a - o, b - o, s.severity, s.confidence))
    return [tuple(x) for x in out]


def first_window_spans(windows: Iterable[tuple[int, int, Iterable[UnitSpan]]], lengths: Sequence[int],
                       joiner: int = 1) -> dict[int, tuple[UnitSpan, ...]]:
    """``line -> its spans`` for every segment some window covers: each ``(start, end, spans)`` window
    (segments ``start .. end - 1``, spans in its joined MT text; in the metric's order, so the earliest
    window of a segment comes first) gives its spans to the segments no earlier window covered.
    ``lengths``: every segment's length in characters, by line."""
    out: dict[int, tuple[UnitSpan, ...]] = {}
    for start, end, spans in windows:
        pieces = split_window_spans([lengths[i] for i in range(start, end)], spans, joiner)
        for line, found in zip(range(start, end), pieces):
            out.setdefault(line, found)
    return out


def severity_counts(spans: Iterable[UnitSpan]) -> dict[str, int]:
    """How many spans of each severity: minor, major, critical first (always present), then any other."""
    counts = {"minor": 0, "major": 0, "critical": 0}
    for s in spans:
        counts[s.severity] = counts.get(s.severity, 0) + 1
    return counts
