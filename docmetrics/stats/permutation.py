""":func:`perm_both` / :func:`perm_both_acc_eq`: docmetrics' PERM-BOTH (Deutsch, Dror and Roth, 2021), the test
of :func:`.significance.PermutationSigDiff` on any statistic of a cell vector: each metric's scores are
z-scored, then each resample swaps, independently for every cell (every system at system level, every (system,
segment) at segment level), which metric's score goes to which side; ``p = #{stat(side a) - stat(side b) >=
observed delta} / k`` (ties within :mod:`.ties`).  For acc_eq the swap unit is each pair's outcome, with each
metric's own epsilon (:func:`.significance.PairwisePermutationSigDiff`, used for the WMT23/24 segment-level
task).  Unlike MTME's functions: no early stopping, a seed (``numpy.random.default_rng``), delta a - b.

numpy is imported inside the functions: importing this module stays light.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .base import DEFAULT_RESAMPLES, DEFAULT_SEED, Score, StatsError, score_rows, systems_of, zscore
from .ties import at_least

if TYPE_CHECKING:
    import numpy as np

__all__ = ["PermResult", "perm_both", "perm_both_acc_eq"]


@dataclass
class PermResult:
    """Whether statistic(a) > statistic(b) is significant: the one-sided p-value, the observed difference, and
    the resampling that gave it."""

    p_value: float
    delta: float
    n_resamples: int
    seed: int | None
    #: stat(a side) - stat(b side) for every resample (for averaging over tasks)
    null: Any = field(default=None, repr=False)
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"p_value": self.p_value, "delta": self.delta, "n_resamples": self.n_resamples, "seed": self.seed,
                **self.details}


def _stat0(value: float) -> float:
    return 0.0 if math.isnan(value) else float(value)


def perm_both(scores_a: Any, scores_b: Any, statistic: Callable[[np.ndarray], float], *,
              n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = DEFAULT_SEED) -> PermResult:
    """PERM-BOTH test of "statistic(a) > statistic(b)": ``scores_a`` / ``scores_b`` the two metrics' scores of
    the same cells (flattened, none missing); ``statistic`` maps a cell vector to the statistic (it knows the
    human scores and the cells' layout).  A NaN statistic counts as 0, as in MTME."""
    import numpy as np

    a, b = np.asarray(scores_a, dtype=float), np.asarray(scores_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise StatsError(f"the two metrics score different cells ({a.shape} and {b.shape})")
    if np.isnan(a).any() or np.isnan(b).any():
        raise StatsError("PERM-BOTH needs a score in every cell for both metrics")
    if n_resamples < 1:
        raise StatsError(f"n_resamples must be >= 1, got {n_resamples}")
    a, b = zscore(a), zscore(b)
    delta = _stat0(statistic(a)) - _stat0(statistic(b))
    rng = np.random.default_rng(seed)
    null = np.empty(n_resamples)
    for r in range(n_resamples):
        swap = rng.integers(0, 2, size=a.shape[0]).astype(bool)
        null[r] = _stat0(statistic(np.where(swap, b, a))) - _stat0(statistic(np.where(swap, a, b)))
    return PermResult(float(at_least(null, delta, delta).mean()), float(delta), n_resamples, seed, null)


def _correct(metric_diff: np.ndarray, human_diff: np.ndarray, epsilon: float) -> np.ndarray:
    """1.0 where a pair is correct under acc_23 when the metric ties pairs with |difference| <= epsilon."""
    import numpy as np

    tie_h = human_diff == 0
    agree = (np.sign(metric_diff) == np.sign(human_diff)) & ~tie_h
    return np.where(np.abs(metric_diff) <= epsilon, tie_h, agree).astype(float)


def perm_both_acc_eq(metric_a: Mapping[str, Sequence[Score]], metric_b: Mapping[str, Sequence[Score]],
                     human: Mapping[str, Sequence[Score]], *, epsilon_a: float | None = None,
                     epsilon_b: float | None = None, systems: Sequence[str] | None = None,
                     n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = DEFAULT_SEED) -> PermResult:
    """PERM-BOTH for acc_eq, swapping pair outcomes (MTME's ``PairwisePermutationSigDiff``): the pairs (within each
    item) scored by the humans and by both metrics, each pair weighted as in acc_eq's macro average; an epsilon left
    None is calibrated for its metric on those pairs (:func:`.tau_optimization.acc_eq_rows`), then kept fixed."""
    import numpy as np

    from .tau_optimization import acc_eq_rows, pair_differences

    names = systems_of(systems, human, metric_a, metric_b)
    h = score_rows(human, names, True, "human scores")
    ma = score_rows(metric_a, names, True, "scores of metric a")
    mb = score_rows(metric_b, names, True, "scores of metric b")
    group, hd, (da, db) = pair_differences(h, ma, mb)
    if not len(group):
        raise StatsError("no pair of entries is scored by the humans and by both metrics")
    shared = np.isnan(h) | np.isnan(ma) | np.isnan(mb)  # the entries all three score: calibrate on their pairs
    eps_a = acc_eq_rows(np.where(shared, np.nan, ma), h).epsilon if epsilon_a is None else float(epsilon_a)
    eps_b = acc_eq_rows(np.where(shared, np.nan, mb), h).epsilon if epsilon_b is None else float(epsilon_b)
    if eps_a < 0 or eps_b < 0:
        raise StatsError("epsilon must be >= 0")
    counts = np.bincount(group)
    weight = 1.0 / (int((counts > 0).sum()) * counts[group])
    contrib = weight * (_correct(da, hd, eps_a) - _correct(db, hd, eps_b))
    delta = float(contrib.sum())
    moving = contrib[contrib != 0]
    rng = np.random.default_rng(seed)
    null = np.empty(n_resamples)
    chunk = max(1, min(n_resamples, 2_000_000 // max(1, len(moving))))
    for start in range(0, n_resamples, chunk):
        k = min(chunk, n_resamples - start)
        null[start : start + k] = (rng.integers(0, 2, size=(k, len(moving))) * 2.0 - 1.0) @ moving
    return PermResult(float(at_least(null, delta).mean()), delta, n_resamples, seed, null,
                      {"epsilon_a": eps_a, "epsilon_b": eps_b})
