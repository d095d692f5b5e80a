"""Ranking metrics and averaging over the tasks of a task set, as mt-metrics-eval does: :func:`assign_ranks` /
:func:`significance_clusters` (``data.AssignRanks``: metrics in decreasing order of the statistic; a metric starts
a new cluster, rank + 1, when any metric of the current cluster is significantly better than it, ``p <= alpha``),
:func:`weighted_average` (``TaskSetResults.AverageCorrs``: statistics mapped to [0, 1] from their range, then a
weighted sum), :func:`average_ranks` (``AverageRanks``) and :func:`combined_pvalue` (``AverageCorrMatrix``: the
per-task null draws, mapped and weighted the same way, summed draw by draw).

numpy is imported inside the functions: importing this module stays light.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .base import StatsError
from .ties import at_least

if TYPE_CHECKING:
    import numpy as np

__all__ = ["assign_ranks", "RankedMetric", "rank_order", "significance_clusters", "to_unit_range",
           "weighted_average", "average_ranks", "combined_pvalue"]


def assign_ranks(pvalues: Sequence[Sequence[float]] | np.ndarray, alpha: float = 0.05) -> list[int]:
    """MTME's ``AssignRanks``: metrics in decreasing order of the statistic; ``pvalues[i][j]``
    (j > i) is the p-value of "metric i is better than metric j".  Metric j starts a new cluster when
    any metric of the current cluster is significantly better than it (p <= alpha)."""
    n = len(pvalues)
    ranks = [0] * n
    rank, start = 1, 0
    for j in range(n):
        if len(pvalues[j]) != n:
            raise StatsError("the p-value matrix must be square")
        if any(pvalues[i][j] <= alpha for i in range(start, j)):
            rank += 1
            start = j
        ranks[j] = rank
    return ranks


@dataclass
class RankedMetric:
    metric: str
    value: float
    rank: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "value": None if math.isnan(self.value) else self.value, "rank": self.rank}


def rank_order(values: Mapping[str, float]) -> list[str]:
    """Metrics by decreasing value, the name breaking ties (as MTME sorts); NaN last."""
    return sorted(values, key=lambda m: (math.isnan(values[m]), -values[m] if not math.isnan(values[m]) else 0, m))


def significance_clusters(
    values: Mapping[str, float],
    pvalue: Mapping[tuple[str, str], float] | Callable[[str, str], float] | None,
    alpha: float = 0.05,
) -> list[RankedMetric]:
    """Metrics in decreasing order with their cluster rank (:func:`assign_ranks`).

    ``pvalue[(a, b)]`` is the p-value of "a is better than b" for a ranked above b; without p-values
    every rank is None (the order alone).
    """
    order = rank_order(values)
    if pvalue is None:
        return [RankedMetric(m, values[m], None) for m in order]
    get = pvalue if callable(pvalue) else (lambda a, b: pvalue[(a, b)])  # type: ignore[index]
    n = len(order)
    matrix = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            matrix[i][j] = get(order[i], order[j])
    ranks = assign_ranks(matrix, alpha)
    return [RankedMetric(m, values[m], r) for m, r in zip(order, ranks)]


def to_unit_range(value: float, low: float, high: float) -> float:
    """Map a statistic from [low, high] to [0, 1] (MTME: correlations from [-1, 1], accuracies as is)."""
    if not high > low:
        raise StatsError(f"bad range [{low}, {high}]")
    return (value - low) / (high - low)


def _check_weights(n: int, weights: Sequence[float] | None) -> list[float]:
    if weights is None:
        return [1.0 / n] * n
    if len(weights) != n:
        raise StatsError(f"{len(weights)} weights for {n} tasks")
    return [float(w) for w in weights]


def weighted_average(
    task_values: Sequence[Mapping[str, float | None]],
    weights: Sequence[float] | None = None,
    ranges: Sequence[tuple[float, float]] | None = None,
) -> dict[str, float]:
    """MTME's ``AverageCorrs``: sum over tasks of weight * statistic mapped to [0, 1]; only metrics
    with a value in every task; by decreasing average."""
    n = len(task_values)
    if n == 0:
        raise StatsError("no task to average")
    w = _check_weights(n, weights)
    rng = list(ranges) if ranges is not None else [(0.0, 1.0)] * n
    if len(rng) != n:
        raise StatsError(f"{len(rng)} ranges for {n} tasks")
    out: dict[str, float] = {}
    present = [{m for m, v in tv.items() if v is not None and not math.isnan(v)} for tv in task_values]
    common = set.intersection(*present)
    for m in common:
        out[m] = math.fsum(wk * to_unit_range(float(tv[m]), *r) for tv, wk, r in zip(task_values, w, rng))  # type: ignore[arg-type]
    return {m: out[m] for m in rank_order(out)}


def average_ranks(task_ranks: Sequence[Mapping[str, int]], weights: Sequence[float] | None = None) -> dict[str, float]:
    """MTME's ``AverageRanks`` (WMT22's overall ranking): weighted sum of cluster ranks over tasks,
    for metrics ranked in every task; by increasing average rank."""
    n = len(task_ranks)
    if n == 0:
        raise StatsError("no task to average")
    w = _check_weights(n, weights)
    common = set.intersection(*[set(t) for t in task_ranks])
    out = {m: math.fsum(wk * t[m] for t, wk in zip(task_ranks, w)) for m in common}
    return dict(sorted(out.items(), key=lambda x: (x[1], x[0])))


def combined_pvalue(
    observed: float,
    task_nulls: Sequence[Sequence[float] | np.ndarray],
    weights: Sequence[float] | None = None,
    ranges: Sequence[tuple[float, float]] | None = None,
) -> float:
    """MTME's ``AverageCorrMatrix``: the p-value of an average difference, from each task's null
    draws (stat(a) - stat(b) per resample) mapped to [0, 1] and weighted, summed draw by draw (a
    task with fewer draws is repeated to the longest)."""
    import numpy as np

    n = len(task_nulls)
    if n == 0:
        raise StatsError("no task")
    w = _check_weights(n, weights)
    rng = list(ranges) if ranges is not None else [(0.0, 1.0)] * n
    length = max(len(t) for t in task_nulls)
    if length == 0:
        raise StatsError("no resampling draws")
    total = np.zeros(length)
    for null, wk, (lo, hi) in zip(task_nulls, w, rng):
        arr = np.asarray(null, dtype=float)
        if len(arr) == 0:
            raise StatsError("a task has no resampling draws")
        arr = np.tile(arr, int(np.ceil(length / len(arr))))[:length]
        total += wk * arr / (hi - lo)
    return float(at_least(total, observed, observed).mean())


