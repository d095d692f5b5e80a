"""Whether one metric correlates significantly better than another, with mt-metrics-eval's names:
:func:`PermutationSigDiff` (PERM-BOTH, Deutsch, Dror and Roth, 2021: each resample swaps, cell by cell, which
metric's z-scored score goes to which side), :func:`PairwisePermutationSigDiff` (swaps pair outcomes, so
each metric keeps its own tie epsilon; WMT23/24) and :func:`WilliamsSigDiff` (Williams' test of two
dependent correlations, Graham and Baldwin, 2014; WMT17-20).

Resamples are drawn from ``rng`` (None: numpy's global generator, as MTME; an int seeds a new one).  A
resample counts as "at least the observed difference" up to the tie tolerance of
:mod:`docmetrics.stats.ties` (``compat="mtme"``: exactly).  An undefined statistic counts as 0 in a
resample, as in MTME.  Early stopping: every ``block_size`` resamples, stop when the p-value so far is
below ``early_min`` or above ``early_max``.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, Callable

import numpy as np
import scipy.stats

from .base import StatsError, check_compat, generator, reshape, zscore
from .correlation import UNDEFINED_WHEN_CONSTANT, Correlation
from .kendall import KendallPreproc, KendallVariants, KendallWithTiesOpt, PairwiseDiffs
from .ties import at_least

__all__ = ["PermutationSigDiffParams", "PermutationSigDiff", "PairwisePermutationSigDiff", "WilliamsSigDiff",
           "WilliamsTest", "reshape_and_filter"]


@dataclasses.dataclass
class PermutationSigDiffParams:
    """Early stopping: every ``block_size`` resamples (``k``: never), stop if the p-value so far is below
    ``early_min`` or above ``early_max``."""

    block_size: int = 1000
    early_min: float = 0.02
    early_max: float = 0.5


def reshape_and_filter(corr1: Correlation, corr2: Correlation, average_by: str
                       ) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
    """(size of each group, gold, metric 1, metric 2): the rows that ``average_by`` makes, concatenated,
    without the entries whose gold score is None (rows left empty dropped)."""
    if corr1.gold_scores != corr2.gold_scores:
        raise StatsError("Gold scores for correlations don't match")
    gold = reshape(np.asarray(corr1.gold_scores, dtype=object), corr1.num_sys, average_by)
    s1 = reshape(corr1.metric_scores, corr1.num_sys, average_by)
    s2 = reshape(corr2.metric_scores, corr2.num_sys, average_by)
    lens: list[int] = []
    g_out: list[Any] = []
    a_out: list[Any] = []
    b_out: list[Any] = []
    for g, a, b in zip(gold, s1, s2):
        ok = np.array([v is not None for v in g], dtype=bool)
        if ok.any():
            lens.append(int(ok.sum()))
            g_out.extend(g[ok])
            a_out.extend(a[ok])
            b_out.extend(b[ok])
    return lens, np.asarray(g_out), np.asarray(a_out), np.asarray(b_out)


def _average(vals: Any, replace_nans_with_zeros: bool) -> float:
    v = np.asarray(vals, dtype=float)
    v = np.nan_to_num(v) if replace_nans_with_zeros else v[~np.isnan(v)]
    return float(np.average(v)) if len(v) else 0.0


def _resamples(resample: Callable[[], tuple[float, float]], delta: float, k: int, params: PermutationSigDiffParams,
               mtme: bool) -> tuple[float, float, int, list[tuple[float, float]]]:
    """Up to ``k`` resamples (each ``resample()``: (statistic 1, statistic 2) of one swap): (p-value, delta,
    resamples run, each resample's (statistic 2, statistic 1)), a resample counting when statistic 2 - statistic 1
    is at least ``delta`` (ties within :mod:`.ties`; ``mtme``: exactly).  Early stopping: every ``block_size``
    resamples, stop when the p-value so far is below ``early_min`` or above ``early_max``."""
    corrs: list[tuple[float, float]] = []
    count = i = 0
    for i in range(1, k + 1):
        c1, c2 = resample()
        corrs.append((c2, c1))
        count += bool(c2 - c1 >= delta) if mtme else bool(at_least([c2 - c1], delta)[0])
        if i % params.block_size == 0 and not params.early_min <= count / i <= params.early_max:
            break
    return count / i, delta, i, corrs


def PermutationSigDiff(
    corr1: Correlation,
    corr2: Correlation,
    corr_fcn: Callable[..., Any],
    average_by: str = "none",
    k: int = 1000,
    params: PermutationSigDiffParams | None = None,
    replace_nans_with_zeros: bool = False,
    *,
    rng: Any = None,
    compat: str = "docmetrics",
    **corr_fcn_args: Any,
) -> tuple[float, float, int, list[tuple[float, float]]]:
    """PERM-BOTH test that metric 2 (``corr2``) correlates better than metric 1: (p-value, delta =
    statistic(metric 2) - statistic(metric 1), resamples run, each resample's (statistic 2, statistic 1)).

    ``corr_fcn``: a vector correlation (``scipy.stats.pearsonr``, ...) averaged over the groups of
    ``average_by``; :func:`.kendall.KendallVariants` (the gold side precomputed) and
    :func:`.kendall.KendallWithTiesOpt` (epsilon re-optimised on every resample) are recognised.
    """
    mtme = check_compat(compat)
    params = params or PermutationSigDiffParams()
    if k < 1:
        raise StatsError(f"k must be >= 1, got {k}")
    draw = generator(rng)
    lens, gold, m1, m2 = reshape_and_filter(corr1, corr2, average_by)
    m1 = zscore(m1.astype(float))
    m2 = zscore(m2.astype(float))
    starts = np.r_[0, np.cumsum(lens)].astype(int)
    bounds = list(zip(starts[:-1], starts[1:]))
    preprocs: list[KendallPreproc] = []
    if corr_fcn is KendallVariants:
        preprocs = [KendallPreproc(gold[b:e]) for b, e in bounds]
    elif corr_fcn is KendallWithTiesOpt:  # it filters and groups by itself: the whole vectors
        gold = corr1.gold_scores  # type: ignore[assignment]
        m1 = zscore(np.asarray(corr1.metric_scores, dtype=float))
        m2 = zscore(np.asarray(corr2.metric_scores, dtype=float))

    def statistic(scores: np.ndarray) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if corr_fcn is KendallWithTiesOpt:
                value = KendallWithTiesOpt(gold, scores, num_sys=corr1.num_sys, average_by=average_by,
                                           compat=compat, **corr_fcn_args)[0]
                return 0.0 if math.isnan(value) else float(value)
            if corr_fcn is KendallVariants:
                vals = [KendallVariants(None, scores[b:e], preproc=pp, **corr_fcn_args)[0]
                        for (b, e), pp in zip(bounds, preprocs)]
            else:
                vals = []
                for b, e in bounds:
                    g, s = gold[b:e], scores[b:e]
                    if len(g) < 2 or (corr_fcn in UNDEFINED_WHEN_CONSTANT
                                      and (np.all(g == g[0]) or np.all(s == s[0]))):
                        vals.append(np.nan)
                    else:
                        vals.append(corr_fcn(g, s, **corr_fcn_args)[0])
            return _average(vals, replace_nans_with_zeros)

    delta = statistic(m2) - statistic(m1)
    def resample() -> tuple[float, float]:
        w1 = draw.binomial(1, 0.5, len(m1))
        w2 = 1 - w1
        return statistic(w1 * m1 + w2 * m2), statistic(w2 * m1 + w1 * m2)

    return _resamples(resample, delta, k, params, mtme)


def PairwisePermutationSigDiff(
    corr1: Correlation,
    corr2: Correlation,
    variant: str = "acc23",
    average_by: str = "none",
    k: int = 1000,
    params: PermutationSigDiffParams | None = None,
    epsilon1: float | None = None,
    epsilon2: float | None = None,
    sample_rate: float = 1.0,
    replace_nans_with_zeros: bool = False,
    *,
    rng: Any = None,
    compat: str = "docmetrics",
) -> tuple[float, float, int, list[tuple[float, float]]]:
    """Permutation test that metric 2's Kendall variant is higher, swapping the outcomes of pairs (each metric
    keeps its epsilon; None: the optimal one, calibrated with ``sample_rate``).  Returns as
    :func:`PermutationSigDiff`.  tau-c is refused: it depends on the scores, not only on pair outcomes."""
    mtme = check_compat(compat)
    params = params or PermutationSigDiffParams()
    if variant == "c":
        raise StatsError("tau-c not supported by PairwisePermutationSigDiff.")
    draw = generator(rng)
    if epsilon1 is None:
        _, epsilon1, _ = KendallWithTiesOpt(corr1.gold_scores, corr1.metric_scores, variant, corr1.num_sys,
                                            average_by, sample_rate, rng=rng, compat=compat)
    if epsilon2 is None:
        _, epsilon2, _ = KendallWithTiesOpt(corr2.gold_scores, corr2.metric_scores, variant, corr2.num_sys,
                                            average_by, sample_rate, rng=rng, compat=compat)
    if epsilon1 < 0 or epsilon2 < 0:
        raise StatsError("Epsilon must be non-negative.")
    lens, gold, m1, m2 = reshape_and_filter(corr1, corr2, average_by)
    starts = np.r_[0, np.cumsum(lens)].astype(int)
    bounds = list(zip(starts[:-1], starts[1:]))
    golds = [KendallPreproc(gold[b:e]) for b, e in bounds]
    pd1 = [PairwiseDiffs(m1[b:e], epsilon1) for b, e in bounds]
    pd2 = [PairwiseDiffs(m2[b:e], epsilon2) for b, e in bounds]

    def statistic(pds: list[PairwiseDiffs]) -> float:
        vals = [KendallVariants(None, None, variant, g, 0, pd)[0] for g, pd in zip(golds, pds)]
        return _average(vals, replace_nans_with_zeros)

    delta = statistic(pd2) - statistic(pd1)
    def resample() -> tuple[float, float]:
        hybrid1, hybrid2 = [], []
        for n, a, b in zip(lens, pd1, pd2):
            w1 = np.triu(draw.binomial(1, 0.5, (n, n)), 1)  # one draw per pair (i < j), mirrored
            w1 = w1 + w1.T
            w2 = 1 - w1
            hybrid1.append(a.Combine(b, w1, w2))
            hybrid2.append(b.Combine(a, w1, w2))
        return statistic(hybrid1), statistic(hybrid2)

    return _resamples(resample, delta, k, params, mtme)


def WilliamsTest(r12: float, r13: float, r23: float, n: int, one_sided: bool = True) -> float:
    """p-value of Williams' test that r12 > r13 (two correlations with a shared variable 1; r23 the
    correlation of the others; n observations): t = (r12 - r13) sqrt((n-1)(1+r23)) /
    sqrt(2 (n-1)/(n-3) |R| + rbar^2 (1-r23)^3), |R| = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23, with n - 3
    degrees of freedom (Steiger, 1980; Graham and Baldwin, 2014)."""
    if n <= 3:
        raise StatsError(f"Williams' test needs more than 3 observations, got {n}")
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r23 * r13
    rbar = (r12 + r13) / 2
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / np.sqrt(2 * (n - 1) / (n - 3) * det + rbar**2 * (1 - r23) ** 3)
    p = float(scipy.stats.t.sf(np.abs(t), n - 3))
    return p if one_sided else 2 * p


def WilliamsSigDiff(corr1: Correlation, corr2: Correlation, corr_fcn: Callable[..., Any], one_sided: bool = True
                    ) -> tuple[float, float, float]:
    """(p-value, r1, r2) of Williams' test between the correlations of two metrics with the same gold scores
    (r1 and r2 by ``corr_fcn``; their mutual correlation too).  Meant for Pearson over complete vectors."""
    if corr1.gold_scores != corr2.gold_scores:
        raise StatsError("Gold scores for correlations don't match")
    r1 = corr_fcn(corr1.gold_scores, corr1.metric_scores)[0]
    r2 = corr_fcn(corr2.gold_scores, corr2.metric_scores)[0]
    r12 = corr_fcn(corr1.metric_scores, corr2.metric_scores)[0]
    return WilliamsTest(r1, r2, r12, len(corr1.gold_scores), one_sided), r1, r2
