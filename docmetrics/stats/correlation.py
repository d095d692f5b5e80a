"""Correlations of gold and metric scores with mt-metrics-eval's names: :class:`Correlation` (the scores and
every statistic of them), :class:`AverageCorrelation` (a vector correlation applied to the rows of packed
matrices and averaged), and the statistics scipy does not have: :func:`KendallLike` (WMT20),
:func:`PairwiseConfidenceError` (soft pairwise accuracy); :func:`Agreement` (pairwise accuracy) is
:mod:`.kendall`'s, re-exported.

Scores are packed by system (system 0's items, then system 1's, ...); ``average_by`` 'none' correlates
the whole vectors, 'sys' each system's row and 'item' each item's column, then averages (macro: equal
weights; ``macro=False``: micro, weighted by each row's pairs or size).  A gold ``None`` drops the entry.
A correlation with a constant input is undefined (NaN) and left out of the average (or counted as 0 with
``replace_nans_with_zeros``).  Where nothing is left: NaN (``compat="docmetrics"``) or 0 (``compat="mtme"``).
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any, Callable

import numpy as np
import scipy.stats

from . import pce
from .base import StatsError, check_compat, filter_gold_nones, is_constant_array, pairwise_diff_arrays, reshape
from .kendall import Agreement, KendallVariants, KendallWithTiesOpt

__all__ = ["Correlation", "AverageCorrelation", "KendallLike", "Agreement", "PairwiseConfidenceError",
           "enumerate_pairwise_diffs", "UNDEFINED_WHEN_CONSTANT"]

#: the correlations undefined with a constant input even where scipy returns a number for it
UNDEFINED_WHEN_CONSTANT = (scipy.stats.pearsonr, scipy.stats.spearmanr)


class Correlation:
    """Gold and metric scores of ``num_sys`` systems (packed by system; gold ``None``: missing) and every
    correlation statistic of them.  Each method returns (correlation, p-value, the weight it averaged)."""

    def __init__(self, num_sys: int, gold_scores: Any, metric_scores: Any, *, compat: str = "docmetrics"):
        check_compat(compat)
        gold_scores, metric_scores = list(gold_scores), list(metric_scores)
        if num_sys < 1 or len(gold_scores) % num_sys:
            raise StatsError(f"{len(gold_scores)} gold scores do not split into {num_sys} systems")
        if len(metric_scores) != len(gold_scores):
            raise StatsError(f"{len(gold_scores)} gold scores but {len(metric_scores)} metric scores")
        self.num_sys = num_sys
        self.num_items = len(gold_scores) // num_sys
        self.gold_scores = gold_scores
        self.metric_scores = metric_scores
        self.none_count = gold_scores.count(None)
        self.compat = compat

    def AverageCorrelation(self, corr_fcn: Callable[..., Any], average_by: str, replace_nans_with_zeros: bool = False,
                           macro: bool = True, **corr_fcn_args: Any) -> AverageCorrelation:
        """An :class:`AverageCorrelation` of ``corr_fcn`` over this object's rows."""
        return AverageCorrelation(corr_fcn, self.num_sys, average_by, True,
                                  replace_nans_with_zeros, macro, compat=self.compat, **corr_fcn_args)

    def _run(self, corr_fcn: Callable[..., Any], average_by: str, **kw: Any) -> Any:
        macro = kw.pop("macro", True)
        return self.AverageCorrelation(corr_fcn, average_by, macro=macro, **kw)(self.gold_scores, self.metric_scores)

    def Pearson(self, average_by: str = "none", pdp: bool = False) -> Any:
        """Pearson's r; ``pdp=True``: Pairwise Difference Pearson (the r of all within-row differences)."""
        return self._run(scipy.stats.pearsonr, average_by, pdp=pdp)

    def Spearman(self, average_by: str = "none") -> Any:
        return self._run(scipy.stats.spearmanr, average_by)

    def Kendall(self, average_by: str = "none", variant: str = "b") -> Any:
        """scipy's Kendall tau-b (``variant='b'``) or tau-c (``'c'``)."""
        return self._run(scipy.stats.kendalltau, average_by, variant=variant)

    def KendallLike(self, average_by: str = "item", thresh: float = 25) -> Any:
        """The WMT20 Kendall-like statistic, micro-averaged over items by default."""
        return self._run(KendallLike, average_by, macro=False, thresh=thresh)

    def KendallVariants(self, average_by: str = "none", variant: str = "b", epsilon: float = 0.0) -> Any:
        """tau-b, tau-c, tau_23 or acc_23 (:func:`.kendall.KendallVariants`) with a fixed epsilon."""
        return self._run(KendallVariants, average_by, variant=variant, epsilon=epsilon)

    def KendallWithTiesOpt(self, average_by: str = "none", variant: str = "acc23", sample_rate: float = 0.1,
                           *, rng: Any = None) -> Any:
        """tau_23 or acc_23 at the epsilon that maximises it (:func:`.kendall.KendallWithTiesOpt`)."""
        return self._run(KendallWithTiesOpt, average_by, variant=variant, sample_rate=sample_rate, rng=rng)

    def PairwiseConfidenceError(self, average_by: str = "none") -> Any:
        """System-level soft pairwise accuracy (1 - PCE)."""
        return self._run(PairwiseConfidenceError, average_by)


def enumerate_pairwise_diffs(human_scores: Any, metric_scores: Any) -> tuple[list[Any], list[Any]]:
    """For each row (R entries), the R x R differences ``row[j] - row[i]`` flattened (i the slower index), for
    the human and the metric rows; a difference involving a missing human score is None."""
    h = np.array(human_scores, dtype=float)
    m = np.array(metric_scores, dtype=float)
    if h.shape != m.shape or h.ndim != 2:
        raise StatsError(f"human and metric rows must have one 2-D shape, got {h.shape} and {m.shape}")
    if h.shape[1] < 2:
        raise StatsError("Pairwise diffs cannot be calculated for less than 2 systems.")
    hd, md = pairwise_diff_arrays(h, m)
    hd_obj = hd.astype(object)
    hd_obj[np.isnan(hd)] = None
    return hd_obj.tolist(), md.tolist()


class AverageCorrelation:
    """A vector correlation (``corr_fcn(gold, metric, **corr_fcn_args)`` -> (corr, pvalue, ...), e.g.
    ``scipy.stats.pearsonr``) over the rows of packed matrices, averaged (see the module docstring).
    Calling it returns (average correlation, average p-value, the total weight)."""

    def __init__(self, corr_fcn: Callable[..., Any], num_sys: int = 0, average_by: str = "none",
                 filter_nones: bool = True, replace_nans_with_zeros: bool = False, macro: bool = True,
                 *, compat: str = "docmetrics", **corr_fcn_args: Any):
        self._corr_fcn = corr_fcn
        self._num_sys = num_sys
        self._average_by = average_by
        self._filter_nones = filter_nones
        self._replace_nans_with_zeros = replace_nans_with_zeros
        self._macro = macro
        self._mtme = check_compat(compat)
        self._compat = compat
        self._corr_fcn_args = corr_fcn_args

    def __call__(self, gold_vect: Any, metric_vect: Any) -> tuple[float, float, Any]:
        return self.Corr(gold_vect, metric_vect)

    def Corr(self, gold_vect: Any, metric_vect: Any) -> tuple[float, float, Any]:
        """(average correlation, average p-value, total weight) of the packed vectors."""
        args = dict(self._corr_fcn_args)
        gold = reshape(gold_vect, self._num_sys, self._average_by)
        metric = reshape(metric_vect, self._num_sys, self._average_by)
        if self._corr_fcn is KendallWithTiesOpt:  # averages by itself
            corr, _, _ = KendallWithTiesOpt(gold_vect, metric_vect, num_sys=self._num_sys,
                                            average_by=self._average_by, compat=self._compat, **args)
            return corr, 0, gold.shape[0]
        if self._corr_fcn is PairwiseConfidenceError:  # its rows are the systems, whatever average_by says
            corr = PairwiseConfidenceError(gold_vect, metric_vect, num_sys=self._num_sys,
                                           filter_nones=self._filter_nones, compat=self._compat, **args)
            return corr[0], 0, gold.shape[0]
        if args.pop("pdp", False):
            if self._corr_fcn is not scipy.stats.pearsonr:
                raise StatsError("pdp (Pairwise Difference Pearson) is defined for Pearson only: "
                                 "use scipy.stats.pearsonr")
            hd, md = enumerate_pairwise_diffs(gold, metric)
            gold = np.asarray(hd, dtype=object).reshape(1, -1)
            metric = np.asarray(md).reshape(1, -1)
        terms: list[float] = []
        terms_p: list[float] = []
        weight = 0.0
        k: Any = 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for g, m in zip(gold, metric):
                if self._filter_nones:
                    g, m = filter_gold_nones(g, m)
                    if len(g) < 2:
                        continue
                ret = self._corr_fcn(g, m, **args)
                if self._corr_fcn in UNDEFINED_WHEN_CONSTANT and (is_constant_array(g) or is_constant_array(m)):
                    ret = (np.nan, np.nan)
                if not self._macro:
                    k = ret[2] if len(ret) > 2 else len(g)
                if not math.isnan(ret[0]):
                    terms.append(k * ret[0])
                    terms_p.append(k * ret[1])
                    weight += k
                elif self._replace_nans_with_zeros:
                    weight += k
        if not weight:
            return (0, 0, 0) if self._mtme else (math.nan, math.nan, 0)
        n = int(weight) if float(weight).is_integer() else weight
        return _sum(terms, self._mtme) / n, _sum(terms_p, self._mtme) / n, n


def _sum(terms: list[float], mtme: bool) -> float:
    """MTME's running sum (``compat="mtme"``), else the correctly rounded sum (``math.fsum``: the same bits
    whatever the order, as docmetrics' own averages)."""
    if not mtme:
        return math.fsum(terms)
    total = 0.0
    for t in terms:
        total += t
    return total


def KendallLike(gold_scores: Any, metric_scores: Any, thresh: float = 25.0) -> tuple[float, float, int, int, int]:
    """WMT20's "Kendall-like" statistic: over the pairs whose gold scores differ by at least ``thresh`` (a
    gold None skips the pair), (concordant - discordant) / pairs, a metric tie counting as discordant.
    Returns (statistic, 0, pairs, concordant, discordant); the statistic is 0 when no pair qualifies (its
    weight, the pairs, is then 0: it never moves an average)."""
    con = dis = 0
    for (g1, m1), (g2, m2) in itertools.combinations(zip(gold_scores, metric_scores), 2):
        if g1 is None or g2 is None:
            continue
        diff = g1 - g2
        if abs(diff) >= thresh:  # as WMT20: |diff| >= thresh selects, the sign of diff decides
            if (diff > 0 and m1 > m2) or (diff < 0 and m1 < m2):
                con += 1
            else:
                dis += 1
    pairs = con + dis
    return ((con - dis) / pairs if pairs else 0), 0, pairs, con, dis


def PairwiseConfidenceError(gold_scores: Any, metric_scores: Any, num_sys: int, num_permutations: int = 1000,
                            filter_nones: bool = False, *, compat: str = "docmetrics") -> tuple[float, ...]:
    """(1 - PCE,): soft pairwise accuracy of system-packed segment scores (:mod:`.pce`)."""
    if filter_nones:
        gold_scores, metric_scores = filter_gold_nones(gold_scores, metric_scores)
    gold = reshape(np.asarray(gold_scores, dtype=float), num_sys, "sys")
    metric = reshape(np.asarray(metric_scores, dtype=float), num_sys, "sys")
    hp = pce.compute_pairwise_p_values(gold, num_permutations=num_permutations, compat=compat)
    mp = pce.compute_pairwise_p_values(metric, num_permutations=num_permutations, compat=compat)
    return (pce.compute_one_minus_pce(hp, mp),)
