"""Correlations grouped by item (MTME's ``average_by='item'``) and Pairwise Difference Pearson (PDP)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ...stats.base import pairwise_diff_arrays
from ..correlation import clamp_correlation
from .rows import Score, as_rows

if TYPE_CHECKING:
    import numpy as np

__all__ = ["grouped_correlation", "pdp"]


def grouped_correlation(
    gold_rows: Sequence[Sequence[Score]] | np.ndarray,
    metric_rows: Sequence[Sequence[Score]] | np.ndarray,
    corr: Callable[[Any, Any], float],
) -> tuple[float, int]:
    """MTME's ``average_by='item'`` (``Correlation.Pearson/Kendall``, macro), by
    :class:`docmetrics.stats.AverageCorrelation`: ``corr`` within each row (an item: the systems' scores of one
    segment or document), averaged with equal weight over the rows with at least two scored entries and a
    defined (non-NaN) correlation; entries missing on either side are left out.  Returns (average, rows
    averaged); NaN and 0 when no row counts.

    Each row reaches ``corr`` as a list of floats, not an array: :func:`~docmetrics.algorithms.correlation.pearson`
    then sums with ``math.fsum`` (correctly rounded, so the same bits on every machine) where on an array it takes
    numpy's dot product, whose order of summation depends on the CPU and the BLAS build."""
    import numpy as np

    from ...stats.correlation import AverageCorrelation

    g = as_rows(gold_rows, "gold scores")
    m = as_rows(metric_rows, "metric scores")
    if g.shape != m.shape:
        raise ValueError(f"gold and metric rows have different shapes ({g.shape} and {m.shape})")
    if g.size == 0:
        return math.nan, 0
    # packed by system as docmetrics.stats takes them; an entry missing on either side is a missing gold score
    missing = np.isnan(g) | np.isnan(m)
    gold = [None if x else float(v) for v, x in zip(g.T.ravel(), missing.T.ravel())]
    metric = [float(v) for v in m.T.ravel()]

    def within(gold_row: Sequence[float], metric_row: Sequence[float]) -> tuple[float, float]:
        return corr([float(v) for v in metric_row], [float(v) for v in gold_row]), 0.0

    average, _, rows = AverageCorrelation(within, g.shape[1], "item")(gold, metric)
    return (float(average), int(rows)) if rows else (math.nan, 0)


def pdp(
    gold_rows: Sequence[Sequence[Score]] | np.ndarray,
    metric_rows: Sequence[Sequence[Score]] | np.ndarray,
) -> float:
    """Pairwise Difference Pearson (MTME 2025, ``Correlation.Pearson(pdp=True)``): within each row (a
    group of scores: one row of all systems' scores at system level, the systems' scores of one item when
    grouped by item), every ordered pair (i, j) of entries, the diagonal included, gives the differences
    ``gold[j] - gold[i]`` and ``metric[j] - metric[i]``; PDP is Pearson's r of all those differences,
    pooled over the rows.  Pairs with a missing score on either side are left out (MTME leaves out the
    missing gold scores).  NaN when the differences are constant.  With one row and nothing missing it
    equals Pearson's r of the row (the sums of products of all pairwise differences are 2n times the
    centred ones)."""
    import numpy as np

    g = as_rows(gold_rows, "gold scores")
    m = as_rows(metric_rows, "metric scores")
    if g.shape != m.shape:
        raise ValueError(f"gold and metric rows have different shapes ({g.shape} and {m.shape})")
    if g.shape[1] < 2:
        raise ValueError("pairwise differences need at least 2 systems")
    dg, dm = (d.ravel() for d in pairwise_diff_arrays(g, m))
    keep = ~np.isnan(dg) & ~np.isnan(dm)
    dg, dm = dg[keep], dm[keep]
    if len(dg) < 2:
        return math.nan
    # np.sum of elementwise products (numpy's pairwise summation, the same order on every machine), not ``@``:
    # BLAS picks its dot-product kernel, and so its order of summation, by CPU
    dg, dm = dg - dg.mean(), dm - dm.mean()
    den = math.sqrt(float(np.sum(dg * dg)) * float(np.sum(dm * dm)))
    if den == 0:
        return math.nan
    return clamp_correlation(float(np.sum(dg * dm)) / den)

