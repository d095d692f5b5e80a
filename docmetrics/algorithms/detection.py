"""A metric as a detector of error-free segments (WMT26 automated MT evaluation, subtask 3): pure numpy.

Items are (system, segment) pairs.  ``gold[i]`` says whether the humans found item ``i`` error-free (WMT26:
no annotated error span and ESA >= 85; see :meth:`docmetrics.formats.esa.Judgement.error_free`);
``scores[i]`` is the metric's score of it.  Items whose gold flag is None or whose score is None / NaN
are left out (and counted).  The metric predicts "error-free" for an item when its score is AT OR ABOVE
the threshold; the positive class is "error-free" throughout.

* Confusion counts ``tp`` (error-free, predicted so), ``fp``, ``fn``, ``tn``.
* ``precision = tp / (tp + fp)``, ``recall = tp / (tp + fn)``, ``f1 = 2 tp / (2 tp + fp + fn)``.
* ``mcc``: Matthews' correlation coefficient ``(tp tn - fp fn) / sqrt((tp+fp)(tp+fn)(tn+fp)(tn+fn))``;
  WMT26 subtask 3 ranks by it (precision and recall are its secondary measures).
* A statistic whose denominator is 0 is undefined: :func:`detect` reports it as NaN and says why in
  :attr:`Detection.undefined` (no gold error-free item: recall, MCC and AP; every item error-free: MCC;
  none predicted error-free: precision and MCC; all predicted: MCC).  The plain functions
  :func:`precision_recall_f1` and :func:`mcc` keep scikit-learn's 0 there (``zero_division=0``), which is
  what choosing a threshold compares.
* ``average_precision``: the area under the precision-recall curve as scikit-learn's
  ``average_precision_score`` defines it: ``sum_n (R_n - R_{n-1}) P_n`` over the distinct scores taken
  as thresholds in decreasing order (``R_0 = 0``), no interpolation; NaN when no item is error-free.
* A threshold chosen on the data (:func:`best_threshold`): among the distinct scores (each one the
  threshold that predicts exactly the items scored at or above it; predicting no item error-free is not
  a candidate), the one that maximises the objective (``mcc``, WMT26's measure, by default; or ``f1``);
  ties (within 1e-12) go to the LOWER threshold (more items predicted error-free).  A threshold chosen
  on the data it is evaluated on is an optimistic (oracle) operating point: report it as such, or choose
  it on other data and pass it in.

numpy is imported inside the functions: importing this module stays light.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..stats.ties import TIE_TOLERANCE

if TYPE_CHECKING:
    import numpy as np

__all__ = ["OBJECTIVES", "Detection", "items", "confusion", "precision_recall_f1", "mcc", "average_precision",
           "best_threshold", "detect"]

#: What a threshold chosen on the data maximises.
OBJECTIVES = ("mcc", "f1")
#: Objective values this close count as a tie (broken towards the lower threshold).
TIE = TIE_TOLERANCE


@dataclass(frozen=True)
class Detection:
    """A metric's error-free detection on a set of items."""

    #: Items predicted error-free have a score >= threshold.
    threshold: float
    #: How the threshold was set: "given", or the objective it maximises on these items ("mcc", "f1").
    chosen_by: str
    #: Items used; items left out (gold None, or score None / NaN).
    n: int
    skipped: int
    #: Gold error-free items; items predicted error-free.
    positives: int
    predicted: int
    tp: int
    fp: int
    fn: int
    tn: int
    precision: float
    recall: float
    f1: float
    mcc: float
    average_precision: float
    #: Why the statistics that are NaN are undefined ("" when every one is defined).
    undefined: str = ""
    #: True for a metric whose lower scores are better: it predicts error-free at or BELOW the threshold
    #: (the items were detected on negated scores; ``threshold`` is in the metric's own units).
    at_or_below: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN and infinities as None)."""
        def num(x: float) -> float | None:
            return None if x is None or not math.isfinite(x) else float(x)

        return {
            "threshold": num(self.threshold), "chosen_by": self.chosen_by, "n": self.n, "skipped": self.skipped,
            "error_free": self.positives, "predicted_error_free": self.predicted,
            "tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn,
            "precision": num(self.precision), "recall": num(self.recall), "f1": num(self.f1),
            "mcc": num(self.mcc), "average_precision": num(self.average_precision),
            **({"undefined": self.undefined} if self.undefined else {}),
            **({"at_or_below": True} if self.at_or_below else {}),
        }


def items(
    gold: Mapping[str, Sequence[bool | None]], scores: Mapping[str, Sequence[float | None]]
) -> tuple[list[bool | None], list[float | None]]:
    """Pool per-system lists (``system -> one value per segment``) into item lists, system by system in
    the order of ``gold``, over the systems in both; a system's two lists must be equally long."""
    g: list[bool | None] = []
    s: list[float | None] = []
    for system, flags in gold.items():
        if system not in scores:
            continue
        values = scores[system]
        if len(values) != len(flags):
            raise ValueError(f"system {system!r}: {len(flags)} gold flags but {len(values)} scores")
        g.extend(flags)
        s.extend(values)
    return g, s


def _arrays(gold: Sequence[bool | None], scores: Sequence[float | None]) -> tuple[np.ndarray, np.ndarray, int]:
    """(gold as bool, scores as float, how many items were left out)."""
    import numpy as np

    if len(gold) != len(scores):
        raise ValueError(f"{len(gold)} gold flags but {len(scores)} scores")
    keep = [i for i, (g, s) in enumerate(zip(gold, scores))
            if g is not None and s is not None and not math.isnan(float(s))]
    g = np.asarray([bool(gold[i]) for i in keep], dtype=bool)
    s = np.asarray([float(scores[i]) for i in keep], dtype=float)  # type: ignore[arg-type]
    return g, s, len(gold) - len(keep)


def confusion(gold: Sequence[bool | None], scores: Sequence[float | None],
              threshold: float) -> tuple[int, int, int, int]:
    """(tp, fp, fn, tn) of predicting error-free where score >= threshold."""
    g, s, _ = _arrays(gold, scores)
    pred = s >= threshold
    return (int((pred & g).sum()), int((pred & ~g).sum()), int((~pred & g).sum()), int((~pred & ~g).sum()))


def precision_recall_f1(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall and F1 of the positive class; 0 where a denominator is 0."""
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def mcc(tp: int, fp: int, fn: int, tn: int) -> float:
    """Matthews' correlation coefficient; 0 where a factor of the denominator is 0."""
    den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    return (tp * tn - fp * fn) / math.sqrt(den) if den else 0.0


def _sweep(g: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each distinct score, from the highest down: (threshold, tp, fp) of predicting error-free
    where score >= threshold."""
    import numpy as np

    order = np.argsort(-s, kind="stable")
    s_sorted, g_sorted = s[order], g[order]
    last = np.r_[np.nonzero(np.diff(s_sorted))[0], len(s_sorted) - 1]  # the last item of each distinct score
    tp = np.cumsum(g_sorted)[last]
    return s_sorted[last], tp, (last + 1) - tp


def average_precision(gold: Sequence[bool | None], scores: Sequence[float | None]) -> float:
    """scikit-learn's ``average_precision_score`` of the error-free class (module docstring); NaN when
    no item is error-free."""
    import numpy as np

    g, s, _ = _arrays(gold, scores)
    positives = int(g.sum())
    if not positives:
        return math.nan
    _, tp, fp = _sweep(g, s)
    recall = tp / positives
    precision = tp / (tp + fp)
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def best_threshold(gold: Sequence[bool | None], scores: Sequence[float | None], objective: str = "mcc") -> float:
    """The distinct score that, as the threshold, maximises ``objective`` on these items; ties to the
    lower threshold.  ValueError when there is no item."""
    import numpy as np

    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    g, s, _ = _arrays(gold, scores)
    if not len(s):
        raise ValueError("no item with both a gold flag and a score")
    thresholds, tp, fp = _sweep(g, s)
    positives, n = int(g.sum()), len(g)
    fn = positives - tp
    tn = n - positives - fp
    if objective == "f1":
        values = np.asarray([precision_recall_f1(int(a), int(b), int(c))[2] for a, b, c in zip(tp, fp, fn)])
    else:
        values = np.asarray([mcc(int(a), int(b), int(c), int(d)) for a, b, c, d in zip(tp, fp, fn, tn)])
    best = np.nonzero(values >= values.max() - TIE)[0][-1]  # thresholds descend: the last is the lowest
    return float(thresholds[best])


def detect(gold: Sequence[bool | None], scores: Sequence[float | None], threshold: float | None = None,
           objective: str = "mcc") -> Detection:
    """The detection statistics at ``threshold``, or at the threshold :func:`best_threshold` chooses on
    these items for ``objective`` when none is given."""
    g, s, skipped = _arrays(gold, scores)
    if threshold is None:
        chosen_by = objective
        threshold = best_threshold(gold, scores, objective)
    else:
        chosen_by = "given"
        if math.isnan(threshold):
            raise ValueError("the threshold is NaN")
    tp, fp, fn, tn = confusion(gold, scores, threshold)
    p, r, f1 = precision_recall_f1(tp, fp, fn)
    m, ap = mcc(tp, fp, fn, tn), average_precision(gold, scores)
    n, positives, predicted = len(s), tp + fn, tp + fp
    why = []
    if not positives:
        why.append("no item is error-free in the gold, so recall, MCC and AP are undefined")
        r = m = ap = math.nan
    elif positives == n:
        why.append("every item is error-free in the gold, so MCC is undefined")
        m = math.nan
    if not predicted:
        why.append("the metric predicts no item error-free, so precision and MCC are undefined")
        p = m = math.nan
    elif predicted == n:
        why.append("the metric predicts every item error-free, so MCC is undefined")
        m = math.nan
    if not 2 * tp + fp + fn:
        f1 = math.nan
    return Detection(float(threshold), chosen_by, n, skipped, positives, predicted, tp, fp, fn, tn,
                     p, r, f1, m, ap, "; ".join(why))
