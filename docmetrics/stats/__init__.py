"""docmetrics' statistics with mt-metrics-eval's public names and signatures: code written for
``from mt_metrics_eval import stats`` runs with ``from docmetrics import stats`` (and ``pce``,
``tau_optimization`` with ``from docmetrics.stats import pce, tau_optimization``).

* :mod:`.correlation`: :class:`Correlation`, :class:`AverageCorrelation`, :func:`KendallLike` (WMT20),
  :func:`PairwiseConfidenceError`;
* :mod:`.kendall`: :func:`KendallVariants` (tau-b, tau-c, tau_23, acc_23), :func:`Agreement`, :class:`KendallPreproc`,
  :class:`PairwiseDiffs`, :func:`KendallWithTiesOpt`;
* :mod:`.significance`: :func:`PermutationSigDiff`, :class:`PermutationSigDiffParams`,
  :func:`PairwisePermutationSigDiff`, :func:`WilliamsSigDiff`, :func:`WilliamsTest`;
* :mod:`.sample`: :class:`Sample`, :func:`AssignWeights`;
* :mod:`.pce` and :mod:`.tau_optimization`.

and docmetrics' own forms of them, which its meta-evaluation calls (system -> scores mappings, a seed, results
as objects): :mod:`.vector` (:func:`~.vector.pearson`, ``spearman``, ``kendall``, ``pairwise_accuracy``,
:func:`grouped_correlation`, :func:`pdp`: one float each, fast enough for every resample), :func:`acc_eq`
(:mod:`.tau_optimization`), :func:`perm_both` and :func:`perm_both_acc_eq` (:mod:`.permutation`),
:func:`soft_pairwise_accuracy` (:mod:`.pce`), :func:`significance_clusters` and the averages over tasks
(:mod:`.tasks`).

Where docmetrics differs from mt-metrics-eval on purpose, ``compat="mtme"`` gives MTME's numbers bit for
bit (see ``docs/stats.md``): an average with no defined correlation is NaN, not 0; permutation tests count
a resample that ties the observed statistic up to float rounding (1e-12), and PCE sums in float64; among
epsilons of equal accuracy the smallest is reported.  Random draws come from ``rng`` (None: numpy's global
generator, as MTME; an int: a new seeded generator).  numpy and scipy only; no torch.
"""

from __future__ import annotations

import importlib
from typing import Any

#: each public name -> the submodule that defines it (loaded on first use: importing docmetrics.stats, or
#: its light submodules ties / pce / base, does not import scipy)
_HOMES = {
    "Correlation": "correlation", "AverageCorrelation": "correlation", "KendallLike": "correlation",
    "PairwiseConfidenceError": "correlation", "enumerate_pairwise_diffs": "correlation",
    "Agreement": "kendall", "KendallPreproc": "kendall", "PairwiseDiffs": "kendall", "KendallVariants": "kendall",
    "KendallWithTiesOpt": "kendall",
    "PermutationSigDiff": "significance", "PermutationSigDiffParams": "significance",
    "PairwisePermutationSigDiff": "significance", "WilliamsSigDiff": "significance", "WilliamsTest": "significance",
    "reshape_and_filter": "significance", "_ReshapeAndFilter": "significance",
    "Sample": "sample", "AssignWeights": "sample",
    "COMPATS": "base", "StatsError": "base", "filter_gold_nones": "base", "is_constant_array": "base",
    "reshape": "base", "_Reshape": "base",
    "pce": None, "tau_optimization": None, "ties": None, "vector": None,
    # docmetrics' own forms (the vector correlations: import them from docmetrics.stats.vector, since
    # ``kendall`` is also the name of a submodule)
    "DEFAULT_RESAMPLES": "base", "DEFAULT_SEED": "base", "EPSILON_RULE": "base", "ITEM_RULE": "base",
    "score_rows": "base", "zscore": "base",
    "pooled_pairwise_accuracy": "vector", "grouped_correlation": "vector", "pdp": "vector",
    "AccEqResult": "tau_optimization", "acc_eq": "tau_optimization", "acc_eq_rows": "tau_optimization",
    "PermResult": "permutation", "perm_both": "permutation", "perm_both_acc_eq": "permutation",
    "DEFAULT_PERMUTATIONS": "pce", "SPA_SEED": "pce", "sign_vectors": "pce", "upper_pvalues": "pce",
    "PairPValues": "pce", "perm_test_pvalues": "pce", "SpaResult": "pce", "soft_pairwise_accuracy": "pce",
    "spa_statistic": "pce",
    "RankedMetric": "tasks", "assign_ranks": "tasks", "rank_order": "tasks", "significance_clusters": "tasks",
    "to_unit_range": "tasks", "weighted_average": "tasks", "average_ranks": "tasks", "combined_pvalue": "tasks",
}
#: MTME's private helpers, under their MTME names, for code that reaches them
_ALIASES = {"_Reshape": "reshape", "_ReshapeAndFilter": "reshape_and_filter"}

__all__ = [n for n in _HOMES if not n.startswith("_")]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'docmetrics.stats' has no attribute {name!r}")
    home = _HOMES[name]
    if home is None:
        return importlib.import_module(f"{__name__}.{name}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), _ALIASES.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_HOMES))
