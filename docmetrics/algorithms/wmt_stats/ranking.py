""":func:`assign_ranks` / :func:`significance_clusters`: MTME's ``data.AssignRanks``: metrics in
decreasing order of the statistic; a metric starts a new cluster (rank + 1) when any metric of the
current cluster is significantly better than it (``p <= alpha``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

if TYPE_CHECKING:
    import numpy as np

__all__ = ["assign_ranks", "RankedMetric", "rank_order", "significance_clusters"]


def assign_ranks(pvalues: Sequence[Sequence[float]] | np.ndarray, alpha: float = 0.05) -> list[int]:
    """MTME's ``AssignRanks``: metrics in decreasing order of the statistic; ``pvalues[i][j]``
    (j > i) is the p-value of "metric i is better than metric j".  Metric j starts a new cluster when
    any metric of the current cluster is significantly better than it (p <= alpha)."""
    n = len(pvalues)
    ranks = [0] * n
    rank, start = 1, 0
    for j in range(n):
        if len(pvalues[j]) != n:
            raise ValueError("the p-value matrix must be square")
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

