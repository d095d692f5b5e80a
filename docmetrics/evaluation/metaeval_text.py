"""The text ``docmetrics --human`` / ``--genmt`` print under and around the table of statistics (and the notes
``--mtme`` shares): :func:`metaeval_text` renders a :class:`~docmetrics.evaluation.metaeval.WmtEval`; the library's
``MetaEvaluation.to_text`` and the command line both call it."""

from __future__ import annotations

import io
from typing import Any, Mapping

from ..algorithms.wmt_stats import DEFAULT_PERMUTATIONS, SPA_SEED
from . import statistics as stats
from .metaeval import WmtEval
from .stat_table import significance_lines, stat_table, untested_lines

__all__ = ["metaeval_text", "human_description", "esa_description", "mtme_description", "spa_text", "ACC_EQ_TEXT",
           "DOC_TEXT", "PDP_TEXT", "MQM_TEXT"]

#: what acc_eq is, in the notes under a table
ACC_EQ_TEXT = ("acc_eq: pairwise accuracy over the systems' segment scores per source segment, ties in the metric "
               "within epsilon (tie calibration), averaged over segments.")


#: what the system-level PDP column is, in the notes under a table
PDP_TEXT = "sys-pdp: system-level Pairwise Difference Pearson (MTME 2025)."
#: what the document-level columns are, in the notes under a table
DOC_TEXT = ("Document level: gold per (system, document); acc_eq grouped by document (each document compares the "
            "systems; tie calibration, epsilon); pearson/kendall over all (system, document) pairs; "
            "pearson-doc/kendall-doc: the mean of the per-document correlations (MTME average_by='item'); SPA with the "
            "documents as permutation items; pdp: Pairwise Difference Pearson of the systems' differences within each "
            "document.  " + PDP_TEXT)


def spa_text(n_permutations: int, seed: int) -> str:
    """What SPA is, in the notes under a table."""
    return (f"SPA: p-values of a paired permutation test on segment scores ({n_permutations} permutations, seed "
            f"{seed}) for the humans and the metric, 1 - mean |difference| over system pairs.")


#: how a raw MQM file's scores are computed, in the notes under a table
MQM_TEXT = ("raw MQM ratings: per segment, the errors' weights (Major 5, Minor 1, Minor Fluency/Punctuation 0.1, "
            "Major Non-translation! 25, else 0) summed per rater and averaged over raters, as mt-metrics-eval's "
            "score_mqm.py computes them; a penalty, lower is better, negated")


def human_description(path: str, *, column: str | None = None, lower_better: bool = False,
                      raw_mqm: bool = False) -> str:
    """What the human scores of ``--human PATH`` are, under the table: the file, its column (``auto`` where
    none was named) and direction, or how a raw MQM file's scores were computed."""
    negated = " after negation" if lower_better else ""
    how = MQM_TEXT if raw_mqm else f"column {column or 'auto'}; higher is better{negated}"
    return f"{path} ({how})"


def mtme_description(source: str, lp: str, name: str) -> str:
    """What the human scores of an MTME test set are, under the table (``name``: its human scores, e.g. mqm)."""
    return (f"{name} scores of {source} ({lp}, MTME: segment scores from human-scores/{lp}.{name}.seg.score, "
            f"system scores from {lp}.{name}.sys.score where it has them, else the mean of the segments; higher is "
            "better)")


def esa_description(source: str, lp: str, segments: Mapping[str, Mapping[Any, Any]]) -> str:
    """What the human scores of a GenMT file are, under the table (``segments``: system -> its judged segments)."""
    items = sum(len(judged) for judged in segments.values())
    return (f"ESA scores of {source} ({lp}, field scores; an item's score is the mean of its annotations; {items} "
            f"judged (segment, system) items of {len(segments)} systems; higher is better)")


def metaeval_text(ev: WmtEval, *, human: str, width: int = 4) -> str:
    """The meta-evaluation table (:mod:`docmetrics.evaluation.stat_table`) with ``width`` decimals, what the human
    scores are (``human``: :func:`human_description`, :func:`esa_description`), how each statistic is computed, the
    clusters, what is left out, the signatures: what ``docmetrics --human`` / ``--genmt`` print."""
    evals = list(ev.metrics.values())
    segment = ev.n_segments is not None
    out = io.StringIO()
    out.write(stat_table(ev.metrics, ev.comparisons, width, segment=segment))
    out.write(f"\nHuman scores: {human}.  accuracy: pairwise system accuracy (Kocmi et al., 2021), pairs "
              "agreeing/all.\n")
    for line in significance_lines(ev.comparisons, len(evals), ev.n_resamples, ev.seed, ev.alpha):
        out.write(line + "\n")
    if any(e.seg_kendall is not None for e in evals):
        e0 = next(e for e in evals if e.seg_kendall is not None)
        out.write(f"seg-kendall: Kendall tau-b over pooled (system, {e0.seg_level_name}) pairs; seg-pearson: Pearson "
                  "over pooled (system, segment) pairs, for metrics with one unit per segment.\n")
    if any(e.seg_level_name is not None for e in evals):
        out.write(spa_text(DEFAULT_PERMUTATIONS, SPA_SEED) + "\n" + ACC_EQ_TEXT + "\n")
        for k, e in enumerate(evals):
            for what, why in (("SPA", e.spa_note), ("acc_eq", e.seg_note)):
                if why:
                    out.write(f"[{k + 1}] no {what}: {why}\n")
            if e.acc_eq_note:
                out.write(f"[{k + 1}] acc_eq: {e.acc_eq_note}\n")
    for name in dict.fromkeys(p for e in evals for p in e.plugin_statistics()):
        found = stats.get(name)
        whose = "mt-metrics-eval's, by docmetrics.stats" if found.opt_in else "a plugin statistic"
        out.write(f"{found.header}: {found.title} ({whose}).\n")
        for k, e in enumerate(evals):
            if name in e.notes:
                out.write(f"[{k + 1}] no {name}: {e.notes[name]}\n")
    docs = [e for e in evals if e.document is not None]
    if any(e.with_pdp for e in evals) and not docs:
        out.write(PDP_TEXT + "\n")
    if docs:
        out.write("\nDocument level\n" + stat_table(ev.metrics, ev.comparisons, width, segment=segment,
                                                     block="document") + "\n")
        out.write(f"Gold: {docs[0].document.gold}.  " + DOC_TEXT + "\n")  # type: ignore[union-attr]
        for k, e in enumerate(evals):
            if e.document is not None and e.document.note:
                out.write(f"[{k + 1}] document level: {e.document.note}\n")
    for k, e in enumerate(evals):
        if e.left_out:
            out.write(f"[{k + 1}] left out: {', '.join(e.left_out)}\n")
    for line in untested_lines(ev.comparisons):
        out.write(line + "\n")
    if ev.left_out and len(evals) > 1:
        out.write(f"Left out of the comparisons between metrics: {', '.join(ev.left_out)}\n")
    out.write("\nSignatures:\n")
    for k, e in enumerate(evals):
        out.write(f"[{k + 1}] {e.signature}\n")
        if e.unit_signature:
            out.write(f"[{k + 1}] segment scores: {e.unit_signature}\n")
    return out.getvalue()
