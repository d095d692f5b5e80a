"""The ``--human`` options of ``docmetrics`` and ``docmetrics sweep`` (meta-evaluation against a file of
human scores), and what ``--human`` and ``--genmt`` print: the table of statistics (:mod:`docmetrics.cli.stat_table`)
and its notes; the work is :func:`docmetrics.evaluation.metaeval_human.evaluate_human`."""

from __future__ import annotations

import argparse
import io
from typing import Any, Sequence

from ..algorithms.wmt_stats import DEFAULT_PERMUTATIONS, DEFAULT_RESAMPLES, DEFAULT_SEED, SPA_SEED
from ..evaluation import labels
from ..evaluation import statistics as stats
from ..evaluation.doc_level import DOC_RULES, doc_gold
from ..evaluation.human import closest_system, match_systems, segment_rows
from ..evaluation.metaeval import WmtEval
from ..evaluation.metaeval_human import evaluate_human, human_dicts
from ..values.errors import UserError
from ..values.human_tsv import SCORE_COLUMNS, HumanScores, load_human
from ..values.result import Result
from ..values.testset import TestSet
from .conflicts import NEEDS, WITH, Conflicts, Option
from .errors import warn
from .output import Output
from .stat_table import significance_lines, stat_table, untested_lines

__all__ = ["check_document_gold", "warn_unmatched", "add_arguments", "add_level_arguments", "check_args", "read_human",
           "run_metaeval", "row_labels", "metaeval_output", "metaeval_data", "metaeval_text", "spa_text", "ACC_EQ_TEXT",
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


def add_level_arguments(g: argparse._ActionsContainer) -> None:
    """--doc-level and --pdp (shared by the docmetrics command, sweeps and docmetrics metaeval)."""
    g.add_argument(
        "--doc-level", nargs="?", const="mean", choices=DOC_RULES, metavar="RULE",
        help="also meta-evaluate at the document level: gold per (system, document) from document-level human "
        "scores where the test set has them (MTME), else the mean (default) or sum of each document's judged "
        "segments; adds system-level PDP.  Adds a 'document' object (and 'pdp') to JSON output",
    )
    g.add_argument(
        "--pdp", action="store_true",
        help="also system-level Pairwise Difference Pearson (PDP, MTME 2025); adds 'pdp' to JSON output",
    )


def spa_text(n_permutations: int, seed: int) -> str:
    """What SPA is, in the notes under a table."""
    return (f"SPA: p-values of a paired permutation test on segment scores ({n_permutations} permutations, seed "
            f"{seed}) for the humans and the metric, 1 - mean |difference| over system pairs.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``docmetrics`` (and ``docmetrics sweep``) for meta-evaluation."""
    g = parser.add_argument_group("meta-evaluation against human judgements")
    g.add_argument(
        "--human",
        metavar="TSV",
        help="human scores: TSV with system + score (system level) or system, doc_id, seg_id "
        "(+ doc_pos) + score (segment level; e.g. an MQM seg_scores.tsv), or a raw MQM file as "
        "google/wmt-mqm-human-evaluation publishes it (one line per error; penalties computed as "
        "mt-metrics-eval's score_mqm.py does, lower is better)",
    )
    g.add_argument(
        "--human-column",
        metavar="NAME",
        help=f"the score column (default: the first of {', '.join(SCORE_COLUMNS)})",
    )
    g.add_argument(
        "--human-lower-better",
        action="store_true",
        help="lower human scores are better (e.g. MQM penalties): they are negated",
    )
    g.add_argument(
        "--no-human-systems",
        action="store_true",
        help="leave out the systems the human file marks is_human=1 (references rated as systems)",
    )
    g.add_argument(
        "--exclude-systems",
        nargs="+",
        default=[],
        metavar="NAME",
        help="leave these systems out of the meta-evaluation",
    )
    g.add_argument(
        "--seg-level",
        action="store_true",
        help="also segment-level Kendall tau, acc_eq with tie calibration and soft pairwise accuracy (SPA), "
        "as --mtme computes them (needs segment-level human scores and --doc-ids)",
    )
    add_level_arguments(g)


#: Options that only mean something with human scores (--doc-level and --pdp: or with --mtme's).
HUMAN_ONLY = Conflicts("--human FILE", NEEDS, tuple(Option(attr, "--" + attr.replace("_", "-")) for attr in (
    "human_column", "seg_level", "no_human_systems", "human_lower_better", "doc_level", "pdp")))
#: Options of ``docmetrics`` that a meta-evaluation against --human refuses.
PAIRED = Conflicts("--human", "give either a paired test (--paired-bs/--paired-ar) or {other}, not both",
                   (Option("paired_bs", "--paired-bs"), Option("paired_ar", "--paired-ar")))
REFUSED = Conflicts("--human", WITH, (
    Option("ci", "--ci", "the meta-evaluation prints correlations, not system scores; drop --ci"),))
#: The PERM-BOTH tests between metrics: a meta-evaluation's, with any source of human scores.
COMPARING = Conflicts("human scores to judge metrics against (--human FILE, a --genmt FILE with scores, or --mtme "
                      "ROOT)", NEEDS, (Option("resamples", "--resamples"),))


def check_args(args: argparse.Namespace) -> None:
    if not getattr(args, "human", None):
        (HUMAN_ONLY.without("doc_level", "pdp") if getattr(args, "mtme", None) else HUMAN_ONLY).check(args)
        if not getattr(args, "mtme", None):
            COMPARING.check(args)
    resamples = getattr(args, "resamples", None)
    if resamples is not None and resamples < 0:
        raise UserError(f"--resamples must be >= 0, not {resamples}")


def read_human(args: argparse.Namespace) -> HumanScores | None:
    """The --human scores (None without --human), read and checked (file, columns, numbers) before
    any model is loaded."""
    if not getattr(args, "human", None):
        return None
    human = load_human(args.human, args.human_column, args.human_lower_better)
    for text in human.warnings:
        warn(text)
    return human


def check_document_gold(args: argparse.Namespace, testset: TestSet | None, human: HumanScores | None) -> None:
    """``--doc-level``: build the document gold before any model runs, so that a mistake in the human
    scores (a document judged for some systems only, segments beyond the test set) is reported before
    scoring, not after it.  The systems are those of the test set with a human score, not excluded."""
    if not getattr(args, "doc_level", None) or human is None or testset is None:
        return
    excluded = set(args.exclude_systems or ()) | (set(human.humans) if args.no_human_systems else set())
    mapping = match_systems(list(testset.systems), list(human.system))
    order = [h for s, h in mapping.items() if h not in excluded and s not in excluded]
    if len(order) < 2:
        return  # the meta-evaluation says which systems lack a human score
    rows = segment_rows(human, testset)
    doc_gold(order, doc_ids=testset.doc_ids, human_seg={h: rows[h] for h in order}, rule=args.doc_level,
             human_file=str(human.path))


def warn_unmatched(args: argparse.Namespace, testset: TestSet | None, human: HumanScores | None,
                   who: str = "docmetrics") -> None:
    """One warning naming every system (not excluded) that has no human score, each with the human file's
    closest name ("did you mean"): they are left out of the correlations."""
    if human is None or testset is None:
        return
    mapping = match_systems(list(testset.systems), list(human.system))
    excluded = set(getattr(args, "exclude_systems", None) or ())
    missing = [s for s in testset.systems if s not in mapping and s not in excluded]
    if not missing:
        return
    names = []
    for system in missing:
        close = closest_system(system, list(human.system))
        names.append(f"{system} (did you mean {close}?)" if close else system)
    warn(f"--human {human.path} has no scores for {', '.join(names)}: left out of the correlations (a system is "
         "matched by its name or its file name without the extension, case and all; rename the file or the "
         "system in the human file)", who)


def run_metaeval(
    all_results: list[tuple[str, list[Result]]],
    args: argparse.Namespace,
    testset: TestSet | None,
    human: HumanScores | None = None,
) -> WmtEval:
    """Meta-evaluate every metric's results against ``human`` (default: read from --human) and, with two
    metrics or more, compare them by PERM-BOTH (--resamples, --seed), each named as the table names it."""
    human = human if human is not None else load_human(args.human, args.human_column, args.human_lower_better)
    resamples = getattr(args, "resamples", None)
    return evaluate_human(
        all_results,
        human,
        names=row_labels([spec for spec, _ in all_results], [rs[0].metric if rs else spec for spec, rs in all_results]),
        exclude=args.exclude_systems,
        exclude_humans=args.no_human_systems,
        seg_level=args.seg_level or bool(getattr(args, "doc_level", None)),
        testset=testset,
        short=args.short,
        pdp=bool(getattr(args, "pdp", False)),
        doc_rule=getattr(args, "doc_level", None),
        n_resamples=DEFAULT_RESAMPLES if resamples is None else resamples,
        seed=getattr(args, "seed", DEFAULT_SEED),
    )


def row_labels(specs: Sequence[str], names: Sequence[str] | None = None) -> list[str]:
    """``LABEL [k]`` of each metric, as every table names it (:func:`~docmetrics.evaluation.labels.row_labels`)."""
    return labels.row_labels(specs, names)


#: how a raw MQM file's scores are computed, in the notes under a table
MQM_TEXT = ("raw MQM ratings: per segment, the errors' weights (Major 5, Minor 1, Minor Fluency/Punctuation 0.1, "
            "Major Non-translation! 25, else 0) summed per rater and averaged over raters, as mt-metrics-eval's "
            "score_mqm.py computes them; a penalty, lower is better, negated")


def metaeval_output(ev: WmtEval, args: argparse.Namespace, human: HumanScores | None = None) -> Output:
    """The meta-evaluation table and its notes (``human``: the scores read, to say how a raw MQM file's
    were computed); in JSON a list, one object per metric (with its clusters where metrics were compared)."""
    return Output(data=lambda: metaeval_data(ev), text=lambda: metaeval_text(ev, args, human))


def metaeval_data(ev: WmtEval) -> list[dict[str, Any]]:
    """``-f json``: each metric's object (:func:`~docmetrics.evaluation.metaeval_human.human_dicts`)."""
    return human_dicts(ev)


def metaeval_text(ev: WmtEval, args: argparse.Namespace, human: HumanScores | None = None) -> str:
    """The meta-evaluation table (:mod:`docmetrics.cli.stat_table`), how each statistic is computed, the
    clusters, what is left out, the signatures."""
    evals = list(ev.metrics.values())
    segment = ev.n_segments is not None
    out = io.StringIO()
    out.write(stat_table(ev.metrics, ev.comparisons, args.width, segment=segment))
    negated = " after negation" if args.human_lower_better else ""
    how = (MQM_TEXT if human is not None and human.raw_mqm
           else f"column {args.human_column or 'auto'}; higher is better{negated}")
    out.write(
        f"\nHuman scores: {getattr(args, 'human_text', None) or f'{args.human} ({how})'}.  accuracy: pairwise system "
        "accuracy "
        "(Kocmi et al., 2021), pairs agreeing/all.\n"
    )
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
        out.write(f"{stats.get(name).header}: {stats.get(name).title} (a plugin statistic).\n")
        for k, e in enumerate(evals):
            if name in e.notes:
                out.write(f"[{k + 1}] no {name}: {e.notes[name]}\n")
    docs = [e for e in evals if e.document is not None]
    if any(e.with_pdp for e in evals) and not docs:
        out.write(PDP_TEXT + "\n")
    if docs:
        out.write("\nDocument level\n" + stat_table(ev.metrics, ev.comparisons, args.width, segment=segment,
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
