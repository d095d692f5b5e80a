"""Judging as a library: read human judgements in any supported form, meta-evaluate metrics against them,
rank and cluster systems, judge error spans, compare systems (mt-metrics-eval's ``data``/``stats``/``tasks``,
as importable calls).  Nothing here imports torch, parses arguments or prints.

* :func:`read_human` -> :class:`EvalSet` (formats: :mod:`docmetrics.judging.formats`, a registry with the
  entry-point group ``docmetrics.human_formats``);
* :func:`meta_evaluate` -> :class:`MetaEvaluation` (checked before scoring: :func:`check_human`; its text's line
  on the human scores: :func:`describe_human`), over language pairs :func:`wmt_average` -> :class:`WmtAverage`;
* :func:`human_clusters` (rules: :mod:`docmetrics.judging.rules`, entry-point group ``docmetrics.cluster_rules``);
* :func:`mbr`, :func:`rerank` -> :class:`CandidateSelection` (:mod:`docmetrics.judging.mbr`);
* :func:`autorank`, :func:`span_f1`, :func:`compare_systems`, :func:`write_report` (:mod:`docmetrics.judging.tools`);
* :func:`run_mtme` (score mt-metrics-eval data), :func:`write_mtme_scores` and :func:`read_mtme_dir` (MTME score files)
  (:mod:`docmetrics.judging.mtme`).
"""

from __future__ import annotations

from ..formats.base import EvalSet
from .formats import HumanFormat, read_human
from .mbr import CandidateSelection, UnitChoice, mbr, rerank
from .metaeval import MetaEvaluation, WmtAverage, check_human, describe_human, meta_evaluate, wmt_average
from .mtme import (
    NO_HUMAN_SCORES,
    ONE_SYSTEM,
    MtmeMetric,
    MtmeObserver,
    MtmeRun,
    WrittenScores,
    mtme_metric_name,
    read_mtme_dir,
    run_mtme,
    uses_reference,
    write_mtme_scores,
)
from .rules import ClusterRule, human_clusters
from .tools import autorank, compare_systems, span_f1, write_report

__all__ = ["EvalSet", "HumanFormat", "read_human", "MetaEvaluation", "meta_evaluate", "check_human", "describe_human",
           "wmt_average", "WmtAverage", "ClusterRule", "human_clusters", "autorank", "span_f1", "compare_systems",
           "write_report", "mbr", "rerank", "CandidateSelection", "UnitChoice", "run_mtme", "MtmeRun", "MtmeMetric",
           "MtmeObserver", "NO_HUMAN_SCORES", "ONE_SYSTEM", "write_mtme_scores", "WrittenScores", "mtme_metric_name",
           "uses_reference", "read_mtme_dir"]
