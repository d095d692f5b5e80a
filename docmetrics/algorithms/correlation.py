"""Correlation statistics between metric and human scores, written from their definitions and checked
against scipy in the tests: Pearson's r, Spearman's rho (Pearson of average ranks), Kendall's tau-b
(``(C - D) / sqrt((P - Tx) * (P - Ty))``), and pairwise system accuracy (Kocmi et al., 2021: a pair
tied in both counts as agreeing, a pair tied in one only as disagreeing; a pair with a missing score
is skipped, as MTME's ``stats.Agreement`` skips it).  Each is defined here once and serves every
meta-evaluation (``--human``, ``--mtme``, sweeps) and the WMT statistics of
:mod:`~docmetrics.algorithms.wmt_stats`.

Lists are summed exactly (``math.fsum``); numpy arrays (PERM-BOTH's resamples) with numpy.  Kendall's
pairs and pairwise accuracy's agreeing pairs are counted by :mod:`docmetrics.stats.kendall` (``sufficient_statistics``,
``Agreement``: exact integers; imported inside the functions).

stdlib only at import; numpy for numpy inputs and Kendall.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from ..values.units import as_score

__all__ = ["clamp_correlation", "is_constant", "has_nan", "pearson", "ranks", "spearman", "kendall",
           "pairwise_accuracy", "check_pair"]


def check_pair(x: Sequence[Any], y: Sequence[Any]) -> None:
    if len(x) != len(y):
        raise ValueError(f"x and y have different lengths ({len(x)} and {len(y)})")


def _is_array(x: Any) -> bool:
    return hasattr(x, "dtype")


def clamp_correlation(r: float) -> float:
    """``r`` limited to [-1, 1] (float rounding may step just past them); NaN stays NaN (``max(-1, min(1,
    nan))`` would give 1.0)."""
    if math.isnan(r):
        return math.nan
    return max(-1.0, min(1.0, r))


def is_constant(x: Sequence[float]) -> bool:
    """Whether every value of ``x`` equals the first, exactly (as MTME's ``is_constant_array``): a
    correlation with a constant input is undefined.  Tested on the values themselves, not after
    subtracting a mean, which rounding leaves a hair away from 0 (``[0.1] * 3``)."""
    if _is_array(x):
        import numpy as np

        a = np.asarray(x, dtype=float)
        return bool(a.size == 0 or np.all(a == a[0]))
    return all(v == x[0] for v in x)


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r (NaN if fewer than 2 values, a constant input, or a NaN among the values)."""
    check_pair(x, y)
    n = len(x)
    if n < 2 or is_constant(x) or is_constant(y):
        return math.nan
    x, y = _tamed(x), _tamed(y)
    if _is_array(x) or _is_array(y):
        import numpy as np

        ax, ay = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        dxa, dya = ax - ax.mean(), ay - ay.mean()
        den = math.sqrt(float(np.dot(dxa, dxa)) * float(np.dot(dya, dya)))
        if den == 0:
            return math.nan
        return clamp_correlation(float(np.dot(dxa, dya)) / den)
    mx = math.fsum(x) / n
    my = math.fsum(y) / n
    dx = [a - mx for a in x]
    dy = [b - my for b in y]
    sxx = math.fsum(a * a for a in dx)
    syy = math.fsum(b * b for b in dy)
    if sxx == 0 or syy == 0:
        return math.nan
    return clamp_correlation(math.fsum(a * b for a, b in zip(dx, dy)) / math.sqrt(sxx * syy))


#: Beyond this magnitude squares and sums of products overflow a float: such values are scaled first.
_HUGE = 1e150


def _tamed(x: Sequence[float]) -> Sequence[float]:
    """``x`` divided by its largest magnitude when that is huge (Pearson's r does not change under a
    positive scaling, and 1e308 squared would overflow); ``x`` itself otherwise, so ordinary scores are
    computed exactly as before."""
    if _is_array(x):  # the same largest magnitude, found by numpy (PERM-BOTH calls this per resample)
        import numpy as np

        arr = np.asarray(x, dtype=float)
        biggest = float(np.max(np.abs(arr))) if arr.size else 0.0
        if not math.isfinite(biggest) or biggest <= _HUGE:
            return x
        return arr / biggest
    biggest = max((abs(float(v)) for v in x), default=0.0)
    if not math.isfinite(biggest) or biggest <= _HUGE:
        return x
    return [float(v) / biggest for v in x]


def ranks(x: Sequence[float]) -> list[float]:
    """1-based ranks, ties given the average of the ranks they span."""
    order = sorted(range(len(x)), key=lambda i: x[i])
    out = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        avg = (i + j) / 2 + 1
        for k in range(i, j + 1):
            out[order[k]] = avg
        i = j + 1
    return out


def has_nan(x: Sequence[Any]) -> bool:
    """Whether ``x`` holds a NaN (its correlations are then NaN, as scipy's with ``nan_policy='propagate'``)."""
    if _is_array(x):
        import numpy as np

        return bool(np.isnan(np.asarray(x, dtype=float)).any())
    return any(v != v for v in x)  # NaN is the one value unequal to itself


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson's r of the (average) ranks; NaN with a NaN among the values."""
    check_pair(x, y)
    if has_nan(x) or has_nan(y):
        return math.nan
    return pearson(ranks(x), ranks(y))


def kendall(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b over every pair of items: ``(C - D) / sqrt((P - Tx) * (P - Ty))``, the counts of pairs
    from :func:`docmetrics.stats.kendall.sufficient_statistics` (exact integers, O(n log n)); NaN with a
    NaN among the values or a constant input."""
    check_pair(x, y)
    if has_nan(x) or has_nan(y):
        return math.nan
    n = len(x)
    if n < 2:
        return math.nan
    from ..stats.kendall import sufficient_statistics

    con, dis, x_only, y_only, both = sufficient_statistics(x, y)
    pairs = n * (n - 1) // 2
    nx, ny = pairs - x_only - both, pairs - y_only - both
    if nx == 0 or ny == 0:
        return math.nan
    return (con - dis) / math.sqrt(nx * ny)


def pairwise_accuracy(metric: Sequence[Any], human: Sequence[Any]) -> tuple[float, int, int]:
    """(accuracy, agreeing pairs, pairs) over every pair of systems (Kocmi et al., 2021): a pair agrees
    when ``sign(metric_i - metric_j) == sign(human_i - human_j)`` (so a pair tied in both agrees); a
    pair with a missing score (None or NaN) on either side is skipped; NaN when no pair is left."""
    from ..stats.kendall import Agreement

    check_pair(metric, human)
    m = [as_score(v) for v in metric]
    h = [as_score(v) for v in human]
    # a pair with a missing score on either side is skipped: Agreement skips a None gold score
    agree, total = Agreement([hv if mv is not None else None for mv, hv in zip(m, h)], m)
    return (agree / total if total else math.nan), agree, total
