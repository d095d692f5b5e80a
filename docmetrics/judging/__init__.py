"""Judging as a library: read human judgements in any supported form, meta-evaluate metrics against them,
rank and cluster systems, judge error spans, compare systems (mt-metrics-eval's ``data``/``stats``/``tasks``,
as importable calls).  Nothing here imports torch, parses arguments or prints.

* :func:`read_human` -> :class:`EvalSet`, its human scores a :class:`HumanScores`, its gold error spans a
  :class:`SpanGold` of :class:`SpanItem` (each :class:`Span`) (formats: :mod:`docmetrics.judging.formats`, a
  registry with the entry-point group ``docmetrics.human_formats``; one format by name, its options' defaults and
  choices: :func:`human_format`; every format: :func:`human_formats`; the format of a file: :func:`detect`; every
  language pair of a file, read once: :func:`read_human_pairs`);
  :class:`StoredMetric`: a metric's stored scores, what an EvalSet of stored scores holds; every language pair of
  stored-score files at once: :func:`read_stored` -> :class:`StoredScores` (one pair: its ``evalset``); a stored
  metric as a metric to score beside live ones: :class:`StoredScorer`;
* :func:`meta_evaluate` -> :class:`MetaEvaluation` (checked before scoring: :func:`check_human`; its text's line
  on the human scores: :func:`describe_human`), over language pairs :func:`wmt_average` -> :class:`WmtAverage`
  (the statistics an average may take: :func:`average_statistics`); an :class:`MtmeRun`'s text and JSON as
  ``--mtme`` prints them: :func:`mtme_run_text`, :func:`mtme_run_dict`;
* :func:`human_clusters` and :func:`cluster_agreement` (rules: :mod:`docmetrics.judging.rules`, entry-point
  group ``docmetrics.cluster_rules``; every rule: :func:`cluster_rules`) -> :class:`HumanRanking` (of
  :class:`ClusteredSystem`; its table: ``to_text``), :class:`ClusterAgreement`;
* :func:`autorank`, :func:`autorank_clusters` -> :class:`AutoRank` (presets: :data:`AUTORANK_PRESETS`);
* :func:`mbr`, :func:`rerank` -> :class:`CandidateSelection` (:mod:`docmetrics.judging.mbr`), their candidates
  from a JSONL file: :func:`read_candidates` -> :class:`CandidateFile`;
* :func:`autorank`, :func:`span_f1` (gold spans from a TSV: :func:`read_spans_tsv`; -> :class:`SpanJudgement`
  against a SpanGold, :data:`PARTIAL_CREDIT` across severity classes; the metrics that give spans:
  :data:`SPAN_METRICS`, one known before it scores to give none: :func:`gives_no_spans`, refused by
  :func:`check_gives_spans`), :func:`compare_systems`,
  :func:`confidence_intervals`, :func:`sweep`, :func:`write_report` (:mod:`docmetrics.judging.tools`);
* :func:`run_mtme` (score mt-metrics-eval data), :func:`write_mtme_scores` and :func:`read_mtme_dir` (MTME score files)
  (:mod:`docmetrics.judging.mtme`);
* :func:`error_free` -> [:class:`ErrorFree`] (metrics as detectors of error-free translations, WMT26 subtask 3;
  their table: :func:`error_free_text`);
* :func:`wmt25_submission` -> :class:`Submission` (a WMT25 metrics-task submission from one metric's Results);
* :func:`score_metrics` -> [:class:`Scored`] (several metrics on one test set, in order; a :class:`ScoringObserver`
  hears each start and end); their results as the main command prints them: :class:`Scores`.

The defaults and choices these calls take, for a notebook's loops and the command line's help:
:data:`DEFAULT_SEED` and :data:`DEFAULT_RESAMPLES` (mt-metrics-eval's significance tests); for
:func:`compare_systems` (-> :class:`PairedResult` of :class:`PairedTest`) and :func:`confidence_intervals` (->
[:class:`ConfidenceInterval`]): :data:`DEFAULT_N` (resamples per test, ``bs``/``ar``), :data:`MAX_N`,
:data:`TEST_NAMES`, :data:`ALPHA`, :data:`DEFAULT_CI_LEVEL`; for :func:`meta_evaluate`: :data:`MAIN_STATISTICS`
(what ``rank_by`` takes); for :func:`read_human`: :data:`SCORE_COLUMNS` (the TSV score columns tried, in order) and
:data:`DOC_RULES` (``doc_level``); for :func:`wmt_average`: :data:`SCHEMES`; for :func:`sweep` (-> a
:class:`Sweep`: its grid's parameters :class:`Axis`, its points :class:`Point`): :data:`STAT_CHOICES` (``stat``),
:data:`SEG_STATS` (those that need ``seg_level=True``); for
:func:`mbr` and :func:`rerank`: :data:`UNITS` (``unit``) and :data:`TIES` (which candidate wins a tie).

How every printed result is written (each ``to_text``, the command line's tables, a plugin's own text): :func:`num`
(the one number format), :func:`table` (the plain-text table), :func:`metric_labels` and :func:`column` (how
tables and a meta-evaluation name the metrics: ``LABEL [k]``).
"""

from __future__ import annotations

import importlib
from typing import Any

# imported now: the function mbr shares its module's name, and a later first import of the module
# docmetrics.judging.mbr would otherwise bind the module where the function is meant (it loads no numpy)
from .mbr import CandidateSelection, UnitChoice, mbr, rerank

#: the module each public name lives in, imported when first used, so that ``import docmetrics.judging`` (and
#: a command's ``--help``) stays free of numpy and scipy
_MODULES = {
    "..algorithms.grids": ("Axis",),
    "..algorithms.spans": ("PARTIAL_CREDIT",),
    "..stats.base": ("DEFAULT_SEED", "DEFAULT_RESAMPLES"),
    "..formats.human_tsv": ("SCORE_COLUMNS",),
    "..values.candidates": ("read_candidates", "CandidateFile"),
    ".averages": ("SCHEMES", "WmtAverage", "average_statistics"),
    ".doc_level": ("DOC_RULES",),
    ".evaluate": ("MAIN_STATISTICS",),
    ".mbr": ("TIES", "UNITS"),
    ".paired": ("DEFAULT_N", "MAX_N", "TEST_NAMES", "ALPHA", "DEFAULT_CI_LEVEL", "PairedTest", "PairedResult",
                "ConfidenceInterval"),
    ".spans": ("SpanJudgement", "SPAN_METRICS", "gives_no_spans", "check_gives_spans", "spans_dict", "spans_text"),
    ".score_systems": ("Scored", "ScoringObserver", "score_metrics"),
    ".scores": ("Scores",),
    ".sweeps": ("STAT_CHOICES", "SEG_STATS", "Sweep", "Point"),
    ".plots": ("plot_heatmap", "plot_main_statistics", "pyplot"),
    "..formats.base": ("EvalSet", "SpanGold", "SpanItem", "Span"),
    "..formats.judgements": ("HumanScores",),
    "..formats.stored_metric": ("StoredMetric", "StoredScorer"),
    "..formats.stored": ("StoredScores", "read_stored"),
    ".clusters": ("HumanRanking", "ClusteredSystem", "ClusterAgreement"),
    "..formats.wmt25_tsv": ("Submission", "wmt25_submission"),
    ".error_free_detection": ("ErrorFree", "error_free", "error_free_text"),
    ".formats": ("HumanFormat", "read_human", "read_human_pairs", "human_format", "detect", "human_formats"),
    ".metaeval": ("check_human", "describe_human", "meta_evaluate", "wmt_average", "mtme_run_text", "mtme_run_dict"),
    ".metaevaluation": ("MetaEvaluation",),
    ".mtme": ("NO_HUMAN_SCORES", "ONE_SYSTEM", "MtmeMetric", "MtmeObserver", "MtmeRun", "WrittenScores",
              "mtme_metric_name", "read_mtme_dir", "run_mtme", "uses_reference", "write_mtme_scores"),
    ".rules": ("ClusterRule", "human_clusters", "cluster_agreement", "cluster_rules"),
    ".ranking_presets": ("AUTORANK_PRESETS",),
    ".labels": ("metric_labels", "column"),
    ".text": ("num", "table"),
    ".tools": ("autorank", "autorank_clusters", "AutoRank", "compare_systems",
               "confidence_intervals", "read_spans_tsv", "span_f1", "sweep", "write_report"),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}

#: what the package exports: the names imported above and those of :data:`_MODULES`
__all__ = ["CandidateSelection", "UnitChoice", "mbr", "rerank", *_WHERE]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'docmetrics.judging' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
