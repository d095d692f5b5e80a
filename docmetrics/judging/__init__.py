"""Judging as a library: read human judgements in any supported form, meta-evaluate metrics against them,
rank and cluster systems, judge error spans, compare systems (mt-metrics-eval's ``data``/``stats``/``tasks``,
as importable calls).  Nothing here imports torch, parses arguments or prints.

* :func:`read_human` -> :class:`EvalSet` (formats: :mod:`docmetrics.judging.formats`, a registry with the
  entry-point group ``docmetrics.human_formats``);
* :func:`meta_evaluate` -> :class:`MetaEvaluation`;
* :func:`human_clusters` (rules: :mod:`docmetrics.judging.rules`, entry-point group ``docmetrics.cluster_rules``);
* :func:`mbr`, :func:`rerank` -> :class:`CandidateSelection` (:mod:`docmetrics.judging.mbr`);
* :func:`autorank`, :func:`span_f1`, :func:`compare_systems` (and :func:`confidence_intervals`),
  :func:`write_report` (with :func:`read_spans_tsv`), :func:`sweep` (:mod:`docmetrics.judging.tools`);
* :func:`run_mtme` (score mt-metrics-eval data), :func:`write_mtme_scores` and :func:`read_mtme_dir` (MTME score files)
  (:mod:`docmetrics.judging.mtme`).
"""

from __future__ import annotations

from ..formats.base import EvalSet
from .formats import HumanFormat, read_human
from .mbr import CandidateSelection, UnitChoice, mbr, rerank
from .metaeval import MetaEvaluation, meta_evaluate
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
from .tools import autorank, compare_systems, confidence_intervals, read_spans_tsv, span_f1, sweep, write_report

__all__ = ["EvalSet", "HumanFormat", "read_human", "MetaEvaluation", "meta_evaluate", "ClusterRule",
           "human_clusters", "autorank", "span_f1", "compare_systems", "confidence_intervals",
           "write_report", "read_spans_tsv", "sweep",
           "mbr", "rerank", "CandidateSelection", "UnitChoice", "run_mtme", "MtmeRun", "MtmeMetric", "MtmeObserver",
           "NO_HUMAN_SCORES", "ONE_SYSTEM", "write_mtme_scores", "WrittenScores", "mtme_metric_name", "uses_reference",
           "read_mtme_dir"]
