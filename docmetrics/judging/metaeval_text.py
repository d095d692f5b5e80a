"""The text of a meta-evaluation, what :meth:`MetaEvaluation.to_text
<docmetrics.judging.metaevaluation.MetaEvaluation.to_text>` gives and every command prints: :func:`metaeval_text`
as ``docmetrics --human`` / ``--genmt`` print it, :func:`mtme_text` one language pair of MTME data as ``--mtme`` and
``docmetrics metaeval`` print it; :func:`mtme_run_text` / :func:`mtme_run_dict` a language pair of
:func:`~docmetrics.judging.run_mtme` (its meta-evaluation's, else its scores; then what it wrote)."""

from __future__ import annotations

import io
import os
from typing import TYPE_CHECKING, Any, Collection, Mapping, Sequence

from ..stats.pce import DEFAULT_PERMUTATIONS, SPA_SEED
from ..stats.tasks import rank_order
from ..values.errors import InputError
from . import statistics as stats
from .labels import namer, row_labels
from .metaeval_metric import MetaEval
from .stat_table import significance_lines, stat_table, untested_lines
from .text import num, table

if TYPE_CHECKING:
    from ..formats.mtme import MtmeTestSet
    from .metaevaluation import MetaEvaluation
    from .mtme import MtmeRun, WrittenScores

__all__ = ["metaeval_text", "mtme_text", "mtme_run_text", "mtme_run_dict", "written_lines", "human_description",
           "esa_description", "spa_text", "ACC_EQ_TEXT", "DOC_TEXT", "PDP_TEXT", "MQM_TEXT"]


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


def esa_description(source: str, lp: str, segments: Mapping[str, Mapping[Any, Any]]) -> str:
    """What the human scores of a GenMT file are, under the table (``segments``: system -> its judged segments)."""
    items = sum(len(judged) for judged in segments.values())
    return (f"ESA scores of {source} ({lp}, field scores; an item's score is the mean of its annotations; {items} "
            f"judged (segment, system) items of {len(segments)} systems; higher is better)")


def metaeval_text(ev: MetaEvaluation, *, human: str, width: int = 4) -> str:
    """The meta-evaluation table (:mod:`docmetrics.judging.stat_table`) with ``width`` decimals, what the human
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


# -- MTME: one language pair, as --mtme and docmetrics metaeval print it ------------------------------------------
def mtme_text(ev: MetaEvaluation | None, data: MtmeTestSet, systems: Sequence[str], signatures: Mapping[str, str], *,
              width: int = 4, rank_by: str = "spa", explain: bool = True, written: Sequence[str] = (),
              scores_table: str = "") -> str:
    """One language pair of MTME data (``data``, its ``systems`` scored): the line naming the test set, then the
    meta-evaluation ``ev`` (:func:`_mtme_table`; None: not meta-evaluated, and ``scores_table``, the scores, in its
    place), the systems not scored and why, the lines of ``written`` (the score files a run wrote), and
    ``signatures`` (spec -> its signature, in the order given: the metrics' ``LABEL [k]``); ``rank_by``: the statistic the metrics are sorted by; ``explain``: say what the
    columns mean.  What ``docmetrics --mtme`` prints and ``MetaEvaluation.to_text()`` gives on MTME data."""
    labels = {spec: k + 1 for k, spec in enumerate(signatures)}
    refs = (f"references {', '.join(data.refs)}" if len(data.refs) > 1 else f"reference {data.ref or 'none'}")
    out = io.StringIO()
    out.write(f"{data.testset} {data.lp}: {len(systems)} systems, {data.n_segments} segments, "
              f"{len(data.docs)} documents; {refs}")
    if ev is None:
        out.write(("; no human scores\n" if data.human_name is None else "; no meta-evaluation\n") + scores_table)
    else:
        out.write(f"; human scores {ev.human_name}\n")
        out.write(_mtme_table(ev, width, labels, rank_by, systems, explain))
    not_scored = [f"{s} ({_why_not_scored(data, s)})" for s in sorted(data.system_outputs) if s not in systems]
    if not_scored:
        out.write(f"Not scored: {', '.join(not_scored)}\n")
    out.writelines(line + "\n" for line in written)
    out.write("\nSignatures:\n")
    for spec, signature in signatures.items():
        out.write(f"[{labels[spec]}] {signature}\n")
    return out.getvalue()


def written_lines(written: Sequence[WrittenScores], specs: Sequence[str]) -> list[str]:
    """The line of each metric's MTME score files (``written``, parallel to ``specs``), ``[k]`` its label."""
    out = []
    for k, w in enumerate(written[: len(specs)]):
        levels = ",".join(lv for lv in ("sys", "doc", "seg") if lv in w.paths)
        out.append(f"[{k + 1}] MTME scores: {os.path.dirname(w.paths['sys'])}/{w.metric}-{w.ref}.{{{levels}}}.score")
    return out


def mtme_run_text(run: MtmeRun, width: int | None = None, *, rank_by: str = "spa", explain: bool = True,
                  short: bool = False) -> str:
    """One language pair of :func:`~docmetrics.judging.run_mtme`, as ``docmetrics --mtme`` prints it: its
    meta-evaluation's :meth:`~docmetrics.judging.MetaEvaluation.to_text` (``width`` decimals, default 4; the
    metrics sorted by ``rank_by``; ``explain``: say what the columns mean) with the score files the run wrote, or,
    where it was not meta-evaluated, the system scores (``width`` decimals, default each metric's own).

    >>> print(docmetrics.judging.mtme_run_text(run))                                   # doctest: +SKIP
    """
    if run.evaluation is not None:
        return run.evaluation.to_text(4 if width is None else width, rank_by=rank_by, explain=explain,
                                      written=run.written)
    specs = list(run.results)
    named = dict(zip(specs, row_labels(specs)))
    rows = [[s] + [num(r.score, width if width is not None else getattr(r, "decimals", None) or 4)
                   for r in (run.results[spec][i] for spec in specs)] for i, s in enumerate(run.testset.systems)]
    signatures = {spec: run.results[spec][0].signature.format(short=short) for spec in specs}
    return mtme_text(None, run.data, list(run.testset.systems), signatures, written=written_lines(run.written, specs),
                     scores_table=table(["System"] + [named[s] for s in specs], rows))


def mtme_run_dict(run: MtmeRun, *, short: bool = False) -> dict[str, Any]:
    """The JSON of :func:`mtme_run_text`: the meta-evaluation's ``to_dict(layout="mtme")`` (else the language pair's
    scores), the score files written (``written``) and what MTME's metadata files say (``metadata``, where some)."""
    data = run.data
    if run.evaluation is not None:
        d: dict[str, Any] = run.evaluation.to_dict(layout="mtme")
    else:
        d = {"testset": data.testset, "lp": run.lp, "root": data.root, "reference": data.ref,
             "references": list(data.refs),
             "scores": [r.to_dict(level="system", short=short) for rs in run.results.values() for r in rs]}
    d["written"] = [w.to_dict() for w in run.written]
    if data.metadata:  # MTME's metadata/LP/*.jsonl (WMT25): what the records say of documents and domains
        d["metadata"] = data.metadata_summary()
    return d


def _why_not_scored(data: MtmeTestSet, system: str) -> str:
    if system in data.refs:
        return "the reference in use" if len(data.refs) == 1 else "a reference in use"
    if system in data.human_systems:
        return "human translation; --include-human"
    if data.standard is not None and system in data.standard.outliers:
        return "outlier; --include-outliers"
    return "not in --systems"


def _mtme_doc_block(ev: MetaEvaluation, metrics: dict[str, MetaEval], labels: dict[str, str], width: int) -> str:
    """The document-level block, only when asked for (--doc-level)."""
    first = next((mw.document for mw in metrics.values() if mw.document is not None), None)
    if first is None:
        return ""
    left = f", {first.docs_left_out} without a judged segment left out" if first.docs_left_out else ""
    return (f"\nDocument level: {first.n_docs} documents{left}; gold: {first.gold}\n"
            + stat_table(metrics, ev.comparisons, width, segment=ev.n_segments is not None, labels=labels,
                         block="document"))


def _title(name: str) -> str:
    """A statistic's title as the registry gives it (a name it does not know: the name)."""
    try:
        return stats.get(name).title
    except InputError:
        return name


def _mtme_table(ev: MetaEvaluation, width: int, labels: Mapping[str, int], rank_by: str, scored: Collection[str] | None,
                explain: bool) -> str:
    """The table of statistics (:mod:`docmetrics.judging.stat_table`): the metrics sorted by ``rank_by`` (those
    without it last), each statistic with its significance cluster in parentheses, then what the columns
    mean, notes and the systems left out (of ``scored``, the systems scored, where given); ``explain``: say
    what the columns mean."""
    named = namer(labels)
    have = {m: v for m in ev.metrics if (v := ev.metrics[m].get(rank_by)) is not None}
    order = rank_order(have) + [m for m in ev.metrics if m not in have]
    metrics = {m: ev.metrics[m] for m in order}
    shown = {m: named(m) for m in order}
    text = (stat_table(metrics, ev.comparisons, width, segment=ev.n_segments is not None, labels=shown)
            + _mtme_doc_block(ev, metrics, shown, width))
    lines = [f"Sorted by {rank_by}: {_title(rank_by)}."]
    lines += significance_lines(ev.comparisons, len(ev.metrics), ev.n_resamples, ev.seed, ev.alpha, explain)
    if explain:
        lines.append(spa_text(ev.n_permutations, ev.spa_seed))
        lines.append(ACC_EQ_TEXT)
        lines.append("accuracy: pairwise system accuracy (pairs ordered as the humans order them / all pairs); "
                     "seg-pearson and seg-kendall over all (system, segment) pairs.")
        if any(mw.document is not None for mw in metrics.values()):
            lines.append(DOC_TEXT)
        elif any(mw.with_pdp for mw in metrics.values()):
            lines.append(PDP_TEXT)
    for m in order:
        mw = ev.metrics[m]
        if mw.document is not None and mw.document.note:
            lines.append(f"[{labels.get(m, '?')}] document level: {mw.document.note}")
        for what, text_note in (("SPA", mw.spa_note), ("segment level", mw.seg_note)):
            if text_note:
                lines.append(f"[{labels.get(m, '?')}] no {what}: {text_note}")
        if mw.acc_eq_note:
            lines.append(f"[{labels.get(m, '?')}] acc_eq: {mw.acc_eq_note}")
        for p in mw.plugin_statistics():
            if p in mw.notes:
                lines.append(f"[{labels.get(m, '?')}] no {p}: {mw.notes[p]}")
    lines += untested_lines(ev.comparisons)
    left_out = [x for x in ev.left_out if scored is None or x.split(" (")[0] in scored]
    if left_out:
        lines.append(f"Left out of the meta-evaluation: {', '.join(left_out)}")
    return text + "\n" + "\n".join(lines) + "\n"
