""":func:`perm_both` / :func:`perm_both_acc_eq`: whether one metric's statistic is significantly
higher than another's (MTME's ``stats.PermutationSigDiff``, the PERM-BOTH test of Deutsch, Dror
and Roth, 2021): each metric's scores are z-scored, then each resample swaps, independently for
every cell (every system at system level, every (system, segment) at segment level), which
metric's score goes to which side; ``p = #{stat(side a) - stat(side b) >= observed delta} / k``.
For ``acc_eq`` the swap unit is each pair's outcome, with each metric's own epsilon (MTME's
``PairwisePermutationSigDiff``, used for the WMT23/24 segment-level task)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ...stats.base import zscore
from ...stats.ties import at_least
from .acc_eq import Pairs, calibrate, pairs_of
from .rows import Score, score_rows, systems_of

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DEFAULT_RESAMPLES", "DEFAULT_SEED", "PermResult", "perm_both", "perm_both_acc_eq", "zscore"]

#: PERM-BOTH: resamples (MTME's Task default k)
DEFAULT_RESAMPLES = 1000
#: the default seed of every resampling docmetrics does: PERM-BOTH here, the paired tests and
#: confidence intervals of :mod:`docmetrics.judging.paired` (``--seed``)
DEFAULT_SEED = 12345


@dataclass
class PermResult:
    """Whether statistic(a) > statistic(b) is significant: the one-sided p-value, the observed
    difference, and the resampling that gave it."""

    p_value: float
    delta: float
    n_resamples: int
    seed: int | None
    #: stat(a side) - stat(b side) for every resample (for averaging over tasks)
    null: Any = field(default=None, repr=False)
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = {"p_value": self.p_value, "delta": self.delta, "n_resamples": self.n_resamples, "seed": self.seed}
        d.update(self.details)
        return d


def _stat0(value: float) -> float:
    return 0.0 if math.isnan(value) else float(value)


def perm_both(
    scores_a: Sequence[float] | np.ndarray,
    scores_b: Sequence[float] | np.ndarray,
    statistic: Callable[[np.ndarray], float],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    standardize: bool = True,
) -> PermResult:
    """PERM-BOTH test of "statistic(a) > statistic(b)" (see the module docstring).

    ``scores_a`` / ``scores_b``: the two metrics' scores of the same cells (flattened, no missing
    entry); ``statistic`` maps a cell vector to the statistic (it knows the human scores and the
    cells' layout).
    """
    import numpy as np

    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"the two metrics score different cells ({a.shape} and {b.shape})")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("PERM-BOTH needs a score in every cell for both metrics")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    if standardize:
        a, b = zscore(a), zscore(b)
    delta = _stat0(statistic(a)) - _stat0(statistic(b))
    rng = np.random.default_rng(seed)
    null = np.empty(n_resamples)
    for r in range(n_resamples):
        swap = rng.integers(0, 2, size=a.shape[0]).astype(bool)
        side_a = np.where(swap, b, a)
        side_b = np.where(swap, a, b)
        null[r] = _stat0(statistic(side_a)) - _stat0(statistic(side_b))
    p = float(at_least(null, delta, delta).mean())
    return PermResult(p, float(delta), n_resamples, seed, null)


def perm_both_acc_eq(
    metric_a: Mapping[str, Sequence[Score]],
    metric_b: Mapping[str, Sequence[Score]],
    human: Mapping[str, Sequence[Score]],
    *,
    group_by_item: bool = True,
    epsilon_a: float | None = None,
    epsilon_b: float | None = None,
    systems: Sequence[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> PermResult:
    """PERM-BOTH for acc_eq, swapping pair outcomes (MTME's ``PairwisePermutationSigDiff``).

    The pairs are those scored by the humans and by both metrics; an epsilon left as None is
    calibrated for its metric on those pairs, then kept fixed over the resamples.
    """
    import numpy as np

    names = systems_of(systems, human, metric_a, metric_b)
    h = score_rows(human, names, group_by_item, "human scores")
    ma = score_rows(metric_a, names, group_by_item, "scores of metric a")
    mb = score_rows(metric_b, names, group_by_item, "scores of metric b")
    p, (diff_b,) = pairs_of(ma, h, mb)
    if p.n == 0:
        raise ValueError("no pair of entries is scored by the humans and by both metrics")
    pb = Pairs(p.group, diff_b, p.human_diff, p.weight, p.n_groups)
    eps_a = calibrate(p).epsilon if epsilon_a is None else float(epsilon_a)
    eps_b = calibrate(pb).epsilon if epsilon_b is None else float(epsilon_b)
    if eps_a < 0 or eps_b < 0:
        raise ValueError("epsilon must be >= 0")
    contrib = p.weight * (p.correct(eps_a) - pb.correct(eps_b))
    delta = float(contrib.sum())
    moving = contrib[contrib != 0]
    rng = np.random.default_rng(seed)
    null = np.empty(n_resamples)
    chunk = max(1, min(n_resamples, 2_000_000 // max(1, len(moving))))
    for start in range(0, n_resamples, chunk):
        k = min(chunk, n_resamples - start)
        signs = rng.integers(0, 2, size=(k, len(moving))) * 2.0 - 1.0
        null[start : start + k] = signs @ moving
    pval = float(at_least(null, delta).mean())
    return PermResult(pval, delta, n_resamples, seed, null, {"epsilon_a": eps_a, "epsilon_b": eps_b})

