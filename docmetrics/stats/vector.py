"""One correlation of two score vectors as one float, NaN where it is undefined: what docmetrics' meta-evaluation
computes for every metric and recomputes on every PERM-BOTH resample (so it must be fast: scipy's ``pearsonr``
and ``rankdata`` cost about ten times as much per call).  Pearson's r (exact sums, ``math.fsum``, on lists),
Spearman's rho (Pearson's r of the average ranks, scipy's ``rankdata`` numbers), Kendall's tau-b
(:func:`.kendall.KendallVariants`), pairwise accuracy (:func:`.kendall.Agreement`), and their grouped forms: by
item (:class:`.correlation.AverageCorrelation`) and Pairwise Difference Pearson.  Checked against scipy and MTME
in the tests.

numpy (and scipy, for the grouped forms) imported inside the functions: importing this module stays light.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Sequence

from ..values.units import as_score
from .base import Score, StatsError, as_rows, is_constant_array, pairwise_diff_arrays

__all__ = ["pearson", "spearman", "kendall", "pairwise_accuracy", "pooled_pairwise_accuracy", "grouped_correlation",
           "pdp"]

#: Beyond this magnitude squares and sums of products overflow a float: such values are scaled first.
_HUGE = 1e150


def _check_pair(x: Sequence[Any], y: Sequence[Any]) -> None:
    if len(x) != len(y):
        raise StatsError(f"x and y have different lengths ({len(x)} and {len(y)})")


def _clamp(r: float) -> float:
    """``r`` limited to [-1, 1] (rounding may step just past them); NaN stays NaN."""
    return math.nan if math.isnan(r) else max(-1.0, min(1.0, r))


def _has_nan(x: Any) -> bool:
    import numpy as np

    return bool(np.isnan(np.asarray(x, dtype=float)).any())


def _tamed(x: Any) -> Any:
    """``x`` divided by its largest magnitude when that is huge (r does not change under a positive scaling and
    1e308 squared overflows); ``x`` itself otherwise, so ordinary scores are computed exactly as given."""
    if hasattr(x, "dtype"):
        import numpy as np

        biggest = float(np.max(np.abs(x))) if x.size else 0.0
    else:
        biggest = max((abs(float(v)) for v in x), default=0.0)
    if not math.isfinite(biggest) or biggest <= _HUGE:
        return x
    return x / biggest if hasattr(x, "dtype") else [float(v) / biggest for v in x]


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r (NaN with fewer than 2 values, a constant input or a NaN among the values); lists are
    summed exactly (``math.fsum``: the same bits on every machine), numpy arrays with numpy."""
    _check_pair(x, y)
    if len(x) < 2 or is_constant_array(x) or is_constant_array(y):  # tested on the values, not after centring
        return math.nan
    x, y = _tamed(x), _tamed(y)
    if hasattr(x, "dtype") or hasattr(y, "dtype"):
        import numpy as np

        ax, ay = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        dx, dy = ax - ax.mean(), ay - ay.mean()
        den = math.sqrt(float(np.dot(dx, dx)) * float(np.dot(dy, dy)))
        return math.nan if den == 0 else _clamp(float(np.dot(dx, dy)) / den)
    mx, my = math.fsum(x) / len(x), math.fsum(y) / len(y)
    dx, dy = [a - mx for a in x], [b - my for b in y]
    sxx, syy = math.fsum(a * a for a in dx), math.fsum(b * b for b in dy)
    if sxx == 0 or syy == 0:
        return math.nan
    return _clamp(math.fsum(a * b for a, b in zip(dx, dy)) / math.sqrt(sxx * syy))


def _average_ranks(x: Any) -> list[float]:
    """1-based ranks, ties given the mean of the ranks they span: scipy's ``rankdata`` (method 'average'), whose
    numbers these are, costs ten times as much per call (PERM-BOTH ranks on every resample)."""
    import numpy as np

    _, position, counts = np.unique(np.asarray(x, dtype=float), return_inverse=True, return_counts=True)
    last = np.cumsum(counts)
    return ((last - counts + 1 + last) / 2)[position.ravel()].tolist()


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson's r of the average ranks; NaN with a NaN among the values."""
    _check_pair(x, y)
    if _has_nan(x) or _has_nan(y):
        return math.nan
    return pearson(_average_ranks(x), _average_ranks(y))


def kendall(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b over every pair (:func:`.kendall.KendallVariants` 'b', scipy's numbers); NaN with a NaN
    among the values, fewer than 2 values or a constant input."""
    _check_pair(x, y)
    if len(x) < 2 or _has_nan(x) or _has_nan(y):
        return math.nan
    from .kendall import KendallVariants

    return float(KendallVariants(y, x, "b")[0])


def pairwise_accuracy(metric: Sequence[Any], human: Sequence[Any]) -> tuple[float, int, int]:
    """(accuracy, agreeing pairs, pairs) over every pair of systems (Kocmi et al., 2021; MTME's
    :func:`.kendall.Agreement`): a pair agrees when ``sign(metric_i - metric_j) == sign(human_i - human_j)`` (tied
    in both agrees); a pair with a missing score (None or NaN) on either side is skipped; NaN when none is left."""
    from .kendall import Agreement

    _check_pair(metric, human)
    m = [as_score(v) for v in metric]
    h = [as_score(v) for v in human]
    agree, total = Agreement([hv if mv is not None else None for mv, hv in zip(m, h)], m)
    return (agree / total if total else math.nan), agree, total


def pooled_pairwise_accuracy(groups: Iterable[tuple[Sequence[Score], Sequence[Score]]]) -> tuple[float, int, int]:
    """Pairwise accuracy pooled over groups (language pairs): agreeing pairs / pairs, pairs formed within each
    group only (WMT23's system-level accuracy over all language pairs)."""
    agree = total = 0
    for metric, human in groups:
        _, a, t = pairwise_accuracy(metric, human)
        agree, total = agree + a, total + t
    return (agree / total if total else math.nan), agree, total


def grouped_correlation(gold_rows: Any, metric_rows: Any, corr: Callable[[Any, Any], float]) -> tuple[float, int]:
    """MTME's ``average_by='item'`` (macro) by :class:`.correlation.AverageCorrelation`: ``corr(metric, gold)``
    within each row (an item: the systems' scores of one segment or document), averaged with equal weight over
    the rows with at least two entries scored on both sides and a defined correlation.  Returns (average, rows
    averaged); NaN and 0 when no row counts.  Each row reaches ``corr`` as a list of floats, so :func:`pearson`
    sums exactly (numpy's dot product sums in an order that depends on the CPU)."""
    import numpy as np

    from .correlation import AverageCorrelation

    g, m = as_rows(gold_rows, "gold scores"), as_rows(metric_rows, "metric scores")
    if g.shape != m.shape:
        raise StatsError(f"gold and metric rows have different shapes ({g.shape} and {m.shape})")
    if g.size == 0:
        return math.nan, 0
    missing = np.isnan(g) | np.isnan(m)  # packed by system; missing on either side: a missing gold score
    gold = [None if x else float(v) for v, x in zip(g.T.ravel(), missing.T.ravel())]
    metric = [float(v) for v in m.T.ravel()]

    def within(gold_row: Sequence[float], metric_row: Sequence[float]) -> tuple[float, float]:
        return corr([float(v) for v in metric_row], [float(v) for v in gold_row]), 0.0

    average, _, rows = AverageCorrelation(within, g.shape[1], "item")(gold, metric)
    return (float(average), int(rows)) if rows else (math.nan, 0)


def pdp(gold_rows: Any, metric_rows: Any) -> float:
    """Pairwise Difference Pearson (MTME 2025, ``Correlation.Pearson(pdp=True)``): Pearson's r of the
    differences ``row[j] - row[i]`` of every ordered pair of entries of each row (diagonal included), pooled
    over the rows; pairs missing on either side left out.  NaN when the differences are constant.  Summed with
    ``np.sum`` of products (pairwise summation, the same on every machine), not BLAS's ``@``."""
    import numpy as np

    g, m = as_rows(gold_rows, "gold scores"), as_rows(metric_rows, "metric scores")
    if g.shape != m.shape:
        raise StatsError(f"gold and metric rows have different shapes ({g.shape} and {m.shape})")
    if g.shape[1] < 2:
        raise StatsError("pairwise differences need at least 2 systems")
    dg, dm = (d.ravel() for d in pairwise_diff_arrays(g, m))
    keep = ~np.isnan(dg) & ~np.isnan(dm)
    dg, dm = dg[keep], dm[keep]
    if len(dg) < 2:
        return math.nan
    dg, dm = dg - dg.mean(), dm - dm.mean()
    den = math.sqrt(float(np.sum(dg * dg)) * float(np.sum(dm * dm)))
    return math.nan if den == 0 else _clamp(float(np.sum(dg * dm)) / den)
