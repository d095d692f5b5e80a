"""docmetrics' statistics with mt-metrics-eval's public names and signatures: code written for
``from mt_metrics_eval import stats`` runs with ``from docmetrics import stats`` (and ``pce``,
``tau_optimization`` with ``from docmetrics.stats import pce, tau_optimization``).

* :mod:`.correlation`: :class:`Correlation`, :class:`AverageCorrelation`, :func:`KendallLike` (WMT20),
  :func:`Agreement`, :func:`PairwiseConfidenceError`;
* :mod:`.kendall`: :func:`KendallVariants` (tau-b, tau-c, tau_23, acc_23), :class:`KendallPreproc`,
  :class:`PairwiseDiffs`, :func:`KendallWithTiesOpt`;
* :mod:`.significance`: :func:`PermutationSigDiff`, :class:`PermutationSigDiffParams`,
  :func:`PairwisePermutationSigDiff`, :func:`WilliamsSigDiff`, :func:`WilliamsTest`;
* :mod:`.sample`: :class:`Sample`, :func:`AssignWeights`;
* :mod:`.pce` and :mod:`.tau_optimization`.

Where docmetrics differs from mt-metrics-eval on purpose, ``compat="mtme"`` gives MTME's numbers bit for
bit (see ``docs/stats.md``): an average with no defined correlation is NaN, not 0; permutation tests count
a resample that ties the observed statistic up to float rounding (1e-12), and PCE sums in float64; among
epsilons of equal accuracy the smallest is reported.  Random draws come from ``rng`` (None: numpy's global
generator, as MTME; an int: a new seeded generator).  numpy and scipy only; no torch.
"""

from __future__ import annotations

from . import pce, tau_optimization
from .base import COMPATS, StatsError, filter_gold_nones, is_constant_array, reshape
from .correlation import (
    Agreement,
    AverageCorrelation,
    Correlation,
    KendallLike,
    PairwiseConfidenceError,
    enumerate_pairwise_diffs,
)
from .kendall import KendallPreproc, KendallVariants, KendallWithTiesOpt, PairwiseDiffs
from .sample import AssignWeights, Sample
from .significance import (
    PairwisePermutationSigDiff,
    PermutationSigDiff,
    PermutationSigDiffParams,
    WilliamsSigDiff,
    WilliamsTest,
    reshape_and_filter,
)

#: MTME's private helpers, for code that reaches them
_Reshape = reshape
_ReshapeAndFilter = reshape_and_filter

__all__ = [
    "Correlation", "AverageCorrelation", "KendallLike", "Agreement", "PairwiseConfidenceError",
    "KendallPreproc", "PairwiseDiffs", "KendallVariants", "KendallWithTiesOpt",
    "PermutationSigDiff", "PermutationSigDiffParams", "PairwisePermutationSigDiff", "WilliamsSigDiff", "WilliamsTest",
    "Sample", "AssignWeights", "filter_gold_nones", "is_constant_array", "enumerate_pairwise_diffs", "reshape",
    "reshape_and_filter", "pce", "tau_optimization", "COMPATS", "StatsError",
]
