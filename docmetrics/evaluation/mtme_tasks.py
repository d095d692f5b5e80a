"""MTME's task sets (``tasks.py``): the statistics of the official ranking of WMT23-25 (:data:`MTME_TASKS`),
e.g. segment-level accuracy with tie calibration averaged by item (a source segment) and compared with the
permutation test over pairs, and the docmetrics statistic each one is (:data:`DOCMETRICS_STATISTICS`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MtmeTask", "MTME_TASKS", "DOCMETRICS_STATISTICS", "official_statistics", "segment_tasks"]


@dataclass(frozen=True)
class MtmeTask:
    """One entry of an MTME task set (``tasks.Task``): a statistic at a level, how it is averaged
    (``avg_by``: 'none' over all (system, item) pairs; 'item': one correlation per item, i.e. per source
    segment, comparing the systems' translations of it, then averaged) and what the permutation test
    swaps (``perm_test``: 'scores', the two metrics' scores; 'pairs', the two metrics' outcomes on each
    pair of translations, so each metric keeps its own calibrated tie threshold).  ``sample_rate``: the
    share of items the tie threshold (epsilon) is calibrated on.  ``all_lps``: one statistic over every
    language pair of the test set (WMT23's system-level accuracy).  ``corr_fcn`` 'pce' is
    ``stats.PairwiseConfidenceError``, which returns 1 - PCE (``pce.compute_one_minus_pce``): soft
    pairwise accuracy, docmetrics' ``spa``."""

    @property
    def statistic(self) -> str:
        """The name of this statistic in docmetrics' meta-evaluation (:data:`DOCMETRICS_STATISTICS`)."""
        return DOCMETRICS_STATISTICS[(self.level, self.corr_fcn, self.avg_by)]

    level: str
    corr_fcn: str
    avg_by: str = "none"
    perm_test: str = "scores"
    sample_rate: float | None = None
    all_lps: bool = False


_ACC_EQ_BY_ITEM = MtmeTask("seg", "KendallWithTiesOpt", avg_by="item", perm_test="pairs", sample_rate=1.0)
#: MTME's tasks.py (WMT23, WMT24, WMT25 task sets; checked at 68a481a): the statistics of the official
#: ranking per test set.  Every task set calls its tasks with k=0 by default (no permutation test unless
#: asked for).  The segment-level accuracy (acc_eq, 'acc23' with an optimised tie threshold) is grouped by
#: item and compared with the pairs permutation test, sample_rate 1.0, in all three.
MTME_TASKS: dict[str, tuple[MtmeTask, ...]] = {
    "wmt23": (MtmeTask("sys", "accuracy", all_lps=True), MtmeTask("sys", "pearson"), MtmeTask("seg", "pearson"),
              _ACC_EQ_BY_ITEM),
    "wmt24": (MtmeTask("sys", "pce"), _ACC_EQ_BY_ITEM),
    "wmt25": (MtmeTask("sys", "pce"), _ACC_EQ_BY_ITEM),
}


#: (level, MTME corr_fcn, avg_by) -> the statistic of docmetrics.evaluation.metaeval that computes it
DOCMETRICS_STATISTICS: dict[tuple[str, str, str], str] = {
    ("sys", "accuracy", "none"): "accuracy",
    ("sys", "pearson", "none"): "pearson",
    ("sys", "pce", "none"): "spa",
    ("seg", "pearson", "none"): "seg_pearson",
    ("seg", "KendallWithTiesOpt", "item"): "seg_acc_eq",
}


def official_statistics(testset: str) -> tuple[str, ...]:
    """The docmetrics statistics of MTME's official ranking for ``testset`` (wmt25: spa, seg_acc_eq);
    () when MTME has no task set for it."""
    return tuple(t.statistic for t in MTME_TASKS.get(testset, ()))


def segment_tasks(testset: str) -> tuple[MtmeTask, ...]:
    """The segment-level statistics MTME's task set for ``testset`` computes (() when MTME has no
    task set for it)."""
    return tuple(t for t in MTME_TASKS.get(testset, ()) if t.level == "seg")

