"""System-level pairwise accuracy of a metric against human scores.

* :func:`pooled_pairwise_accuracy`: system-level pairwise accuracy (Kocmi et al., 2021, as MTME's
  ``stats.Agreement`` counts it: :func:`~docmetrics.algorithms.correlation.pairwise_accuracy`) pooled
  over several language pairs (WMT23's "global" accuracy: pairs are formed within a language pair only).
* :func:`soft_pairwise_accuracy` (SPA; Thompson et al., 2024, used at WMT24): for every pair of
  systems (i, j), the one-sided p-value of a paired permutation test of "i is better than j" on
  per-item scores, once for the human scores and once for the metric's; SPA = 1 - mean over pairs of
  ``|p_human - p_metric|``.  The test statistic is the sum of the per-item differences (the mean
  times the number of items); each of R random sign vectors (one per resample, shared by every pair
  of systems) flips the sign of each item's difference; ``p = #{null >= observed} / R`` (no +1
  correction).  The sign vectors are drawn exactly as MTME's ``pce.compute_pairwise_p_values``
  draws them (``numpy.random.default_rng(seed).random((R, n), dtype=float32)`` rounded to 0/1; R =
  1000, seed 4), so the same inputs give MTME's p-values; :func:`perm_test_pvalues` with
  ``exact=True`` enumerates all 2^n sign vectors instead.  The sign vectors and the p-values of a matrix are
  :mod:`docmetrics.stats.pce`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ...stats.pce import DEFAULT_PERMUTATIONS, MAX_EXACT_ITEMS, SPA_SEED, all_sign_vectors, sign_vectors, upper_pvalues
from ..correlation import pairwise_accuracy
from .rows import Score, pair_indices, systems_of, to_matrix

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DEFAULT_PERMUTATIONS", "SPA_SEED", "MAX_EXACT_ITEMS", "pooled_pairwise_accuracy", "sign_vectors",
    "all_sign_vectors", "upper_pvalues", "PairPValues", "perm_test_pvalues", "SpaResult", "soft_pairwise_accuracy",
]



def pooled_pairwise_accuracy(groups: Iterable[tuple[Sequence[Score], Sequence[Score]]]) -> tuple[float, int, int]:
    """Pairwise accuracy pooled over groups (language pairs): sum of agreeing pairs / sum of pairs,
    pairs formed within each group only (WMT23's system-level accuracy over all language pairs)."""
    agree = total = 0
    for metric, human in groups:
        _, a, t = pairwise_accuracy(metric, human)
        agree += a
        total += t
    return (agree / total if total else math.nan), agree, total


@dataclass
class PairPValues:
    """One-sided p-values of "system a is better than system b" for every pair (a before b)."""

    systems: list[str]
    pvalues: dict[tuple[str, str], float]
    n_items: int
    n_permutations: int
    exact: bool
    seed: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "systems": self.systems,
            "pvalues": {f"{a} > {b}": p for (a, b), p in self.pvalues.items()},
            "n_items": self.n_items,
            "n_permutations": self.n_permutations,
            "exact": self.exact,
            "seed": self.seed,
        }


def _signs(n_items: int, n_permutations: int, seed: int, exact: bool) -> np.ndarray:
    return all_sign_vectors(n_items) if exact else sign_vectors(n_items, n_permutations, seed)


def perm_test_pvalues(
    scores: Mapping[str, Sequence[Score]],
    *,
    systems: Sequence[str] | None = None,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = SPA_SEED,
    exact: bool = False,
) -> PairPValues:
    """Paired permutation test for every pair of systems (see the module docstring).

    ``scores``: system -> per-item scores (``None``: missing); only the items scored for every system
    are used.  Pairs are (systems[i], systems[j]) for i < j; ``systems`` defaults to the sorted names.
    """
    import numpy as np

    names = systems_of(systems, scores)
    mat = to_matrix(scores, names, "scores")
    mat = mat[:, ~np.isnan(mat).any(axis=0)]
    if mat.shape[1] == 0:
        raise ValueError("no item is scored for every system")
    signs = _signs(mat.shape[1], n_permutations, seed, exact)
    pv = upper_pvalues(mat, signs)
    first, second = pair_indices(len(names))
    pairs = {(names[i], names[j]): float(p) for i, j, p in zip(first, second, pv)}
    return PairPValues(names, pairs, mat.shape[1], signs.shape[0], exact, None if exact else seed)


@dataclass
class SpaResult:
    """Soft pairwise accuracy and the p-values it compares."""

    spa: float
    human: PairPValues
    metric: PairPValues

    @property
    def n_pairs(self) -> int:
        return len(self.human.pvalues)

    def to_dict(self) -> dict[str, Any]:
        return {"spa": self.spa, "pairs": self.n_pairs, "human": self.human.to_dict(), "metric": self.metric.to_dict()}


def _item_masks(human: np.ndarray, metric: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Items kept on each side: scored for every system; the same items on both sides when both
    score the same items (segments), as MTME filters the metric where the gold score is missing."""
    import numpy as np

    keep_h = ~np.isnan(human).any(axis=0)
    keep_m = ~np.isnan(metric).any(axis=0)
    if human.shape[1] == metric.shape[1]:
        both = keep_h & keep_m
        return both, both
    return keep_h, keep_m


def soft_pairwise_accuracy(
    metric_seg: Mapping[str, Sequence[Score]],
    human_seg: Mapping[str, Sequence[Score]],
    *,
    systems: Sequence[str] | None = None,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = SPA_SEED,
    exact: bool = False,
) -> SpaResult:
    """SPA (Thompson et al., 2024) of a metric against human scores (see the module docstring).

    ``metric_seg`` / ``human_seg``: system -> per-item scores.  When both have the same number of
    items (segment-level metric and human scores) the items scored by both for every system are used
    on both sides; otherwise (a metric scoring windows) each side uses its own fully-scored items.
    """
    import numpy as np

    names = systems_of(systems, human_seg, metric_seg)
    h = to_matrix(human_seg, names, "human scores")
    m = to_matrix(metric_seg, names, "metric scores")
    keep_h, keep_m = _item_masks(h, m)
    h, m = h[:, keep_h], m[:, keep_m]
    if h.shape[1] == 0 or m.shape[1] == 0:
        raise ValueError("no item is scored for every system (by the humans and by the metric)")
    ph = upper_pvalues(h, _signs(h.shape[1], n_permutations, seed, exact))
    pm = upper_pvalues(m, _signs(m.shape[1], n_permutations, seed, exact))
    first, second = pair_indices(len(names))
    keys = [(names[i], names[j]) for i, j in zip(first, second)]
    n_perm_h = 2 ** h.shape[1] if exact else n_permutations
    n_perm_m = 2 ** m.shape[1] if exact else n_permutations
    hp = PairPValues(names, dict(zip(keys, map(float, ph))), h.shape[1], n_perm_h, exact, None if exact else seed)
    mp = PairPValues(names, dict(zip(keys, map(float, pm))), m.shape[1], n_perm_m, exact, None if exact else seed)
    return SpaResult(float(1.0 - np.abs(ph - pm).mean()), hp, mp)
