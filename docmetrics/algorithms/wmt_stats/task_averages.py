"""Averages over the tasks of a task set, as MTME computes them: :func:`weighted_average`
(``TaskSetResults.AverageCorrs``: statistics mapped to [0, 1] from their range, then a weighted sum),
:func:`average_ranks` (``AverageRanks``) and :func:`combined_pvalue` (``AverageCorrMatrix``: the per-task
null draws, mapped and weighted the same way, summed draw by draw)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Mapping, Sequence

from ...stats.ties import at_least
from .ranking import rank_order

if TYPE_CHECKING:
    import numpy as np

__all__ = ["to_unit_range", "weighted_average", "average_ranks", "combined_pvalue"]


def to_unit_range(value: float, low: float, high: float) -> float:
    """Map a statistic from [low, high] to [0, 1] (MTME: correlations from [-1, 1], accuracies as is)."""
    if not high > low:
        raise ValueError(f"bad range [{low}, {high}]")
    return (value - low) / (high - low)


def _check_weights(n: int, weights: Sequence[float] | None) -> list[float]:
    if weights is None:
        return [1.0 / n] * n
    if len(weights) != n:
        raise ValueError(f"{len(weights)} weights for {n} tasks")
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
        raise ValueError("no task to average")
    w = _check_weights(n, weights)
    rng = list(ranges) if ranges is not None else [(0.0, 1.0)] * n
    if len(rng) != n:
        raise ValueError(f"{len(rng)} ranges for {n} tasks")
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
        raise ValueError("no task to average")
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
        raise ValueError("no task")
    w = _check_weights(n, weights)
    rng = list(ranges) if ranges is not None else [(0.0, 1.0)] * n
    length = max(len(t) for t in task_nulls)
    if length == 0:
        raise ValueError("no resampling draws")
    total = np.zeros(length)
    for null, wk, (lo, hi) in zip(task_nulls, w, rng):
        arr = np.asarray(null, dtype=float)
        if len(arr) == 0:
            raise ValueError("a task has no resampling draws")
        arr = np.tile(arr, int(np.ceil(length / len(arr))))[:length]
        total += wk * arr / (hi - lo)
    return float(at_least(total, observed, observed).mean())


