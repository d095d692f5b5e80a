"""Character-level precision, recall and F1 of error spans against human spans (WMT25 metrics task 2,
WMT26 subtask 1), as wmt-conference/wmt25-mteval ``scripts/scoring/task2/scoring_esa.py`` computes them.

What the official scorer does (``get_counts``, ``get_char_f1``, ``main``), and so what this module does:

* Each side of an item (one system's translation of one segment) becomes two counts per character of the
  translation, one for the *major* class (severity ``major`` or ``critical``) and one for *minor*: every span
  adds 1 to each character it covers (``[start, end)``), so overlapping spans count a character twice.
  An omission (offsets ``"missing"``: no place in the translation) and a span of severity ``undecided``
  are left out; any other severity is an error.  An empty span (``start == end``) covers no character.
* Per character: full credit ``min(gold, pred)`` in each class; what is left unmatched on each side
  (``max(0, gold - pred)`` summed over the two classes) earns ``partial_credit`` (0.5) per character
  matched across the classes: a span found with the wrong severity counts half.
* One language pair: the true positives and the gold and predicted character counts are summed over all
  its items (micro), then ``precision = tp / pred`` (1.0 when nothing is predicted), ``recall = tp / gold``
  (1.0 when there is no gold error), ``F1 = 2PR / (P + R)`` (0.0 when P + R = 0).
* Overall: the plain mean of the language pairs' precision, recall and F1 each (macro; the F1 is not
  recomputed from the mean P and R).  The script's output file labels the mean precision ``avg_rec`` and
  the mean recall ``avg_prec`` (swapped); ``avg_f1`` is the mean F1.

Counts are kept as integers (characters matched with the right class, characters matched across classes),
so the scores equal the script's floats exactly.  Pure: numpy and the standard library only; a metric's
per-unit spans are fed the same way as a file's (a :class:`~docmetrics.formats.base.Span` per error, the
value the formats' gold spans are made of).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from ..formats.base import SEVERITY_CLASS, SKIPPED_SEVERITIES, Span

if TYPE_CHECKING:
    import numpy as np

__all__ = ["PARTIAL_CREDIT", "SEVERITY_CLASS", "SKIPPED_SEVERITIES", "Span", "SpanCounts", "SpanScores",
           "severity_class", "char_counts", "item_counts", "prec_rec_f1", "micro", "macro"]

#: The credit for a character marked by both sides with the other severity class (the script's default).
PARTIAL_CREDIT = 0.5


def severity_class(severity: str) -> str | None:
    """``"major"``, ``"minor"``, or None for a skipped severity; ValueError for an unknown one."""
    if severity in SKIPPED_SEVERITIES:
        return None
    cls = SEVERITY_CLASS.get(severity)
    if cls is None:
        raise ValueError(f"unknown severity {severity!r}; the span scorer knows "
                         f"{', '.join([*SEVERITY_CLASS, *SKIPPED_SEVERITIES])}")
    return cls


def char_counts(spans: Iterable[Span], length: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(major, minor): how many spans of each class cover each character (omissions and undecided spans
    left out).  ``length``: the translation's length, which every span must lie within (ValueError
    otherwise); None sizes the arrays to the spans."""
    import numpy as np

    kept: list[tuple[int, int, str]] = []
    for s in spans:
        cls = severity_class(s.severity)
        if s.omission or cls is None:
            continue
        if s.start < 0 or s.start > s.end or (length is not None and s.end > length):  # type: ignore[operator]
            raise ValueError(f"span {s.start}-{s.end} is not within 0-{length if length is not None else 'end'}")
        kept.append((s.start, s.end, cls))  # type: ignore[arg-type]
    size = length if length is not None else max((e for _, e, _ in kept), default=0)
    counts = {"major": np.zeros(size + 1, dtype=np.int64), "minor": np.zeros(size + 1, dtype=np.int64)}
    for start, end, cls in kept:  # +1 at the start, -1 past the end: a cumulative sum gives the cover
        counts[cls][start] += 1
        counts[cls][end] -= 1
    return np.cumsum(counts["major"])[:size], np.cumsum(counts["minor"])[:size]


@dataclass(frozen=True)
class SpanScores:
    """Precision, recall and F1 (the script's ``prec_rec_f1``)."""

    precision: float
    recall: float
    f1: float

    def to_dict(self) -> dict[str, float]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1}


def prec_rec_f1(tp: float, gold: float, pred: float) -> SpanScores:
    """The script's ``prec_rec_f1``: 1.0 for a precision (recall) with nothing predicted (no gold)."""
    p = tp / pred if pred else 1.0
    r = tp / gold if gold else 1.0
    return SpanScores(p, r, (2 * p * r) / (p + r) if p + r else 0.0)


@dataclass(frozen=True)
class SpanCounts:
    """What a set of items adds up to: characters matched with the right class (``full``) and across the
    classes (``partial``), the gold and predicted character counts (with multiplicity), and how many items.
    Sums (``+``, :func:`micro`) are the script's per-language-pair totals."""

    full: int = 0
    partial: int = 0
    gold: int = 0
    pred: int = 0
    items: int = 0

    def __add__(self, other: SpanCounts) -> SpanCounts:
        return SpanCounts(self.full + other.full, self.partial + other.partial, self.gold + other.gold,
                          self.pred + other.pred, self.items + other.items)

    def tp(self, partial_credit: float = PARTIAL_CREDIT) -> float:
        return self.full + self.partial * partial_credit

    def scores(self, partial_credit: float = PARTIAL_CREDIT) -> SpanScores:
        return prec_rec_f1(self.tp(partial_credit), self.gold, self.pred)

    def to_dict(self, partial_credit: float = PARTIAL_CREDIT) -> dict[str, float | int]:
        return {**self.scores(partial_credit).to_dict(), "items": self.items, "tp": self.tp(partial_credit),
                "gold_chars": self.gold, "pred_chars": self.pred, "full_chars": self.full,
                "partial_chars": self.partial}


def item_counts(gold: Iterable[Span], pred: Iterable[Span], length: int | None = None) -> SpanCounts:
    """The counts of one item: its gold and predicted spans over a translation of ``length`` characters."""
    import numpy as np

    g_major, g_minor = char_counts(gold, length)
    p_major, p_minor = char_counts(pred, length)
    size = max(len(g_major), len(p_major))
    g_major, g_minor, p_major, p_minor = (np.pad(a, (0, size - len(a))) for a in (g_major, g_minor, p_major, p_minor))
    full = np.minimum(g_major, p_major) + np.minimum(g_minor, p_minor)
    gold_left = np.maximum(0, g_major - p_major) + np.maximum(0, g_minor - p_minor)
    pred_left = np.maximum(0, p_major - g_major) + np.maximum(0, p_minor - g_minor)
    return SpanCounts(int(full.sum()), int(np.minimum(gold_left, pred_left).sum()),
                      int(g_major.sum() + g_minor.sum()), int(p_major.sum() + p_minor.sum()), 1)


def micro(counts: Iterable[SpanCounts]) -> SpanCounts:
    """The counts summed (one language pair, or one system's items, as the script sums a pair's)."""
    return sum(counts, SpanCounts())


def macro(scores: Sequence[SpanScores]) -> SpanScores:
    """The mean of each of precision, recall and F1 (the script's average over language pairs)."""
    import numpy as np

    if not scores:
        raise ValueError("no scores to average")
    mean = np.mean(np.array([[s.precision, s.recall, s.f1] for s in scores]), axis=0)  # as the script sums
    return SpanScores(float(mean[0]), float(mean[1]), float(mean[2]))
