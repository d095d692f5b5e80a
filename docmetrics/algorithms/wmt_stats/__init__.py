"""Meta-evaluation statistics of the WMT metrics shared tasks, as mt-metrics-eval (MTME) computes them.

Written from the definitions (and checked against MTME's own test vectors in the tests):

* :mod:`.pairwise`: system-level pairwise accuracy pooled over language pairs, and soft pairwise accuracy
  (SPA) from paired permutation tests;
* :mod:`.acc_eq`: pairwise accuracy with tie calibration;
* :mod:`.perm_both`: PERM-BOTH significance between two metrics;
* :mod:`.ranking`: significance clusters (MTME's ``AssignRanks``);
* :mod:`.task_averages`: averages over tasks (MTME's ``AverageCorrs``, ``AverageRanks``, ``AverageCorrMatrix``);
* :mod:`.grouped`: correlations grouped by item, and PDP;
* :mod:`.rows`: the score rows they share.

Differences from MTME, on purpose: comparisons of permutation statistics use float64 and the one tie
tolerance of :mod:`docmetrics.stats.ties` (``1e-12 * max(1, sum |differences|)``; MTME compares float32
sums exactly, so an exact tie may or may not count), in every test here; the best epsilon is the smallest
of equal accuracy (:data:`.acc_eq.EPSILON_RULE`); an average over items with no defined correlation is NaN
(MTME: 0; :data:`.acc_eq.ITEM_RULE`); PERM-BOTH has no early stopping and takes a seed (MTME draws from
numpy's global generator); a NaN statistic counts as 0 in a resample, as in MTME.

stdlib and numpy (imported inside the functions) only.
"""

from __future__ import annotations

from .acc_eq import AccEqResult, TieCalibration, acc_eq, acc_eq_rows, tie_calibration
from .grouped import grouped_correlation, pdp
from .pairwise import (
    DEFAULT_PERMUTATIONS,
    MAX_EXACT_ITEMS,
    SPA_SEED,
    PairPValues,
    SpaResult,
    all_sign_vectors,
    perm_test_pvalues,
    pooled_pairwise_accuracy,
    sign_vectors,
    soft_pairwise_accuracy,
    upper_pvalues,
)
from .perm_both import DEFAULT_RESAMPLES, DEFAULT_SEED, PermResult, perm_both, perm_both_acc_eq, zscore
from .ranking import RankedMetric, assign_ranks, rank_order, significance_clusters
from .rows import Score, score_rows
from .task_averages import average_ranks, combined_pvalue, to_unit_range, weighted_average

__all__ = [
    "DEFAULT_PERMUTATIONS", "SPA_SEED", "DEFAULT_RESAMPLES", "DEFAULT_SEED", "MAX_EXACT_ITEMS",
    "pooled_pairwise_accuracy",
    "sign_vectors", "all_sign_vectors", "upper_pvalues", "PairPValues", "perm_test_pvalues", "SpaResult",
    "soft_pairwise_accuracy",
    "TieCalibration", "AccEqResult", "tie_calibration", "acc_eq_rows", "acc_eq", "score_rows",
    "PermResult", "perm_both", "perm_both_acc_eq", "zscore",
    "assign_ranks", "RankedMetric", "rank_order", "significance_clusters",
    "to_unit_range", "weighted_average", "average_ranks", "combined_pvalue",
    "grouped_correlation", "pdp", "Score",
]
