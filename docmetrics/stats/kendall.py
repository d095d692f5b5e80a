"""Kendall's tau and its variants with mt-metrics-eval's names (``KendallVariants``, ``KendallPreproc``,
``PairwiseDiffs``, ``KendallWithTiesOpt``): tau-b and tau-c (scipy's definitions, bit for bit), tau_23 and
acc_23 (Deutsch, Foster and Freitag, 2023), optionally with an epsilon under which the metric ties a pair.

The counts of pairs (concordant, discordant, tied in one or both vectors) come from sorting (O(n log n):
ties by group sizes, discordant pairs as inversions counted by merging) or, with an epsilon or a
precomputed :class:`PairwiseDiffs`, from the n x n matrices of differences.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from . import tau_optimization as tau_opt
from .base import StatsError, reshape

__all__ = ["KendallPreproc", "PairwiseDiffs", "KendallVariants", "KendallWithTiesOpt", "sufficient_statistics",
           "VARIANTS", "Agreement"]

#: the variants of :func:`KendallVariants`
VARIANTS = ("b", "c", "23", "acc23")


def _diff_matrix(v: np.ndarray) -> np.ndarray:
    """``d[i, j] = v[j] - v[i]`` (MTME's orientation)."""
    return v[None, :] - v[:, None]


def _tied_pairs(v: np.ndarray) -> int:
    _, counts = np.unique(v, return_counts=True)
    return int((counts * (counts - 1) // 2).sum())


class KendallPreproc:
    """What Kendall's counts need of one vector (the gold scores), computed once for comparing it with
    many metric vectors: its sort order and tied pairs (the matrices of differences only when asked)."""

    def __init__(self, y: Any):
        self.y = np.asarray(y)
        self.perm = np.argsort(self.y, kind="stable")
        self.ytie = _tied_pairs(self.y)

    @cached_property
    def y_diffs(self) -> np.ndarray:
        return _diff_matrix(self.y)

    @cached_property
    def y_is_tie(self) -> np.ndarray:
        return self.y_diffs == 0.0


class PairwiseDiffs:
    """The n x n differences of a metric vector (``x_diffs[i, j] = x[j] - x[i]``), those within ``epsilon``
    set to 0 and marked in ``x_is_tie``."""

    def __init__(self, x: Any = None, epsilon: float = 0.0):
        if x is not None:
            d = _diff_matrix(np.asarray(x))
            self.x_is_tie = np.abs(d) <= epsilon
            self.x_diffs = np.where(self.x_is_tie, 0.0, d)

    def Combine(self, other: PairwiseDiffs, self_wts: np.ndarray, other_wts: np.ndarray) -> PairwiseDiffs:
        """Pair by pair, this object's outcome where ``self_wts`` is 1 and ``other``'s where ``other_wts`` is 1
        (two complementary symmetric 0/1 matrices)."""
        out = PairwiseDiffs()
        out.x_diffs = self_wts * self.x_diffs + other_wts * other.x_diffs
        out.x_is_tie = self_wts * self.x_is_tie + other_wts * other.x_is_tie
        return out


def _inversions(a: np.ndarray) -> tuple[int, np.ndarray]:
    """(pairs i < j with a[i] > a[j], a sorted), by merging halves."""
    n = len(a)
    if n <= 32:
        i, j = np.triu_indices(n, 1)
        return int((a[i] > a[j]).sum()), np.sort(a, kind="stable")
    left_count, left = _inversions(a[: n // 2])
    right_count, right = _inversions(a[n // 2 :])
    cross = int((len(left) - np.searchsorted(left, right, side="right")).sum())
    return left_count + right_count + cross, np.sort(np.concatenate([left, right]), kind="stable")


def _sorted_counts(x: np.ndarray, y: np.ndarray, preproc: KendallPreproc | None) -> tuple[int, int, int, int, int]:
    n = len(x)
    order = np.lexsort((y, x))  # by x, then y
    xs, ys = x[order], y[order]
    dis, _ = _inversions(ys)
    new_pair = np.r_[True, (xs[1:] != xs[:-1]) | (ys[1:] != ys[:-1]), True]
    runs = np.diff(np.flatnonzero(new_pair))
    tie_both = int((runs * (runs - 1) // 2).sum())
    xtie = _tied_pairs(x)
    ytie = preproc.ytie if preproc is not None else _tied_pairs(y)
    tot = n * (n - 1) // 2
    con = tot - (xtie - tie_both) - (ytie - tie_both) - tie_both - dis
    return con, dis, xtie - tie_both, ytie - tie_both, tie_both


def _matrix_counts(x_diffs: np.ndarray, x_is_tie: np.ndarray, y_diffs: np.ndarray, y_is_tie: np.ndarray
                   ) -> tuple[int, int, int, int, int]:
    n = y_diffs.shape[0]
    i, j = np.triu_indices(n, 1)
    xd, yd = x_diffs[i, j], y_diffs[i, j]
    xt, yt = x_is_tie[i, j] != 0, y_is_tie[i, j] != 0
    con = int((((xd > 0) & (yd > 0)) | ((xd < 0) & (yd < 0))).sum())
    t_x = int((xt & ~yt).sum())
    t_y = int((~xt & yt).sum())
    t_xy = int((xt & yt).sum())
    return con, len(i) - con - t_x - t_y - t_xy, t_x, t_y, t_xy


def sufficient_statistics(metric: Any, gold: Any, epsilon: float = 0.0, preproc: KendallPreproc | None = None,
                          metric_preproc: PairwiseDiffs | None = None) -> tuple[int, int, int, int, int]:
    """(concordant, discordant, tied in the metric only, tied in the gold only, tied in both) over every
    pair; a metric difference of at most ``epsilon`` is a tie."""
    y = preproc.y if preproc is not None else np.asarray(gold)
    if epsilon > 0 or metric_preproc is not None:
        pd = metric_preproc if metric_preproc is not None else PairwiseDiffs(metric, epsilon)
        if preproc is not None:
            y_diffs, y_is_tie = preproc.y_diffs, preproc.y_is_tie
        else:
            y_diffs = _diff_matrix(y)
            y_is_tie = y_diffs == 0.0
        return _matrix_counts(pd.x_diffs, pd.x_is_tie, y_diffs, y_is_tie)
    x = np.asarray(metric)
    if len(x) != len(y):
        raise StatsError(f"gold and metric vectors have different lengths ({len(y)} and {len(x)})")
    return _sorted_counts(x, y, preproc)


def KendallVariants(
    gold_scores: Any,
    metric_scores: Any,
    variant: str = "b",
    preproc: KendallPreproc | None = None,
    epsilon: float = 0.0,
    metric_preproc: PairwiseDiffs | None = None,
) -> tuple[float, float]:
    """(tau, 0) for ``variant`` 'b' or 'c' (scipy's tau-b and tau-c), '23' or 'acc23' (Deutsch et al., 2023);
    ``epsilon``: a metric difference at most this is a tie.  ``preproc`` (of the gold vector) and
    ``metric_preproc`` (of the metric vector) stand in for the vectors (tau-c still needs the metric
    scores).  No missing entries.  NaN for 'b' and 'c' when either vector is constant."""
    if variant not in VARIANTS:
        raise StatsError(f"Unknown variant of the method chosen: {variant}. "
                         "variant must be 'b', 'c', '23', or 'acc23'.")
    if epsilon < 0:
        raise StatsError("Epsilon must be non-negative.")
    if epsilon > 0 and variant == "c":
        raise StatsError("Non-zero epsilon with tau-c not supported.")
    if metric_scores is None and variant == "c":
        raise StatsError("Metric scores must be provided for tau-c.")
    if preproc is None and gold_scores is None:
        raise StatsError("give the gold scores or their KendallPreproc")
    if metric_preproc is None and metric_scores is None:
        raise StatsError("give the metric scores or their PairwiseDiffs")
    con, dis, x_only, y_only, both = sufficient_statistics(metric_scores, gold_scores, epsilon, preproc,
                                                           metric_preproc)
    y = preproc.y if preproc is not None else np.asarray(gold_scores)
    size = y.size
    xtie, ytie = x_only + both, y_only + both
    tot = con + dis + x_only + y_only + both
    if variant in ("b", "c") and (xtie == tot or ytie == tot):
        return np.nan, 0
    if tot == 0:
        return np.nan, 0
    if variant == "b":
        tau = (con - dis) / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    elif variant == "c":
        minclasses = min(len(set(np.asarray(metric_scores).tolist())), len(set(y.tolist())))
        tau = 2 * (con - dis) / (size**2 * (minclasses - 1) / minclasses)
    elif variant == "23":
        tau = (con + both - dis - x_only - y_only) / tot
    else:
        tau = (con + both) / tot
    return tau, 0


def KendallWithTiesOpt(
    gold_scores: Any,
    metric_scores: Any,
    variant: str = "acc23",
    num_sys: int = 1,
    average_by: str = "none",
    sample_rate: float = 0.1,
    *,
    rng: Any = None,
    compat: str = "docmetrics",
) -> tuple[float, float, tau_opt.TauOptimizationResult]:
    """(tau, epsilon, the whole search) of tau_23 or acc_23 with the epsilon that maximises it, averaged over
    the rows that ``average_by`` makes of the packed vectors (see :func:`.tau_optimization.tau_optimization`;
    ``sample_rate``: the share of pairs searched, drawn from ``rng``)."""
    if variant == "23":
        fn = tau_opt.TauSufficientStats.tau_23
    elif variant == "acc23":
        fn = tau_opt.TauSufficientStats.acc_23
    else:
        raise StatsError("Only the *23 variants support epsilon optimization.")
    gold = reshape(gold_scores, num_sys, average_by)
    metric = reshape(metric_scores, num_sys, average_by)
    res = tau_opt.tau_optimization(metric, gold, fn, sample_rate, rng=rng, compat=compat)
    return res.best_tau, res.best_threshold, res


def _sign(v: float) -> int:
    return (v > 0) - (v < 0)


def Agreement(gold_vect: Any, metric_vect: Any) -> tuple[int, int]:
    """(agreeing pairs, pairs) of pairwise accuracy (Kocmi et al., 2021): a pair agrees when the signs of its
    gold and metric differences are equal (tied in both: agrees; a NaN difference never agrees, as numpy's
    sign of NaN equals nothing); a gold None skips the pair.  The one count of pairwise accuracy:
    :func:`.vector.pairwise_accuracy` is this with the missing entries made None."""
    agree = pairs = 0
    gold, metric = list(gold_vect), list(metric_vect)
    for i in range(len(gold)):
        g1, m1 = gold[i], metric[i]
        if g1 is None:
            continue
        for j in range(i + 1, len(gold)):
            g2 = gold[j]
            if g2 is None:
                continue
            dg, dm = g1 - g2, m1 - metric[j]
            agree += dg == dg and dm == dm and _sign(dg) == _sign(dm)
            pairs += 1
    return agree, pairs
