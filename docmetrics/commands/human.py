"""The ``--human`` options of ``docmetrics`` and ``docmetrics sweep`` (meta-evaluation against a file of
human scores), and what ``--human`` and ``--genmt`` print: the table of statistics and its notes
(:mod:`docmetrics.evaluation.metaeval_text`); the work is
:func:`docmetrics.evaluation.metaeval_human.evaluate_human`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..algorithms.wmt_stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..evaluation import labels
from ..evaluation import statistics as stats
from ..evaluation.doc_level import doc_gold
from ..evaluation.human import closest_system, match_systems, segment_rows
from ..evaluation.metaeval import WmtEval
from ..evaluation.metaeval_human import evaluate_human, human_dicts
from ..evaluation.metaeval_text import (
    ACC_EQ_TEXT,
    DOC_TEXT,
    MQM_TEXT,
    PDP_TEXT,
    esa_description,
    human_description,
    spa_text,
)
from ..evaluation.metaeval_text import metaeval_text as metaeval_text_of
from ..values.errors import InputError, UserError
from ..formats.human_tsv import HumanScores, load_human
from ..values.result import Result
from ..values.testset import TestSet
from .conflicts import NEEDS, WITH, Conflicts, Option
from .messages import warn
from .options import Options
from .output import Output

if TYPE_CHECKING:
    from ..formats.genmt import GenmtPair

__all__ = ["asked_statistics", "check_document_gold", "warn_unmatched", "check_args", "read_human", "run_metaeval",
           "row_labels",
           "metaeval_output", "metaeval_data", "metaeval_text", "spa_text", "ACC_EQ_TEXT", "DOC_TEXT", "PDP_TEXT",
           "MQM_TEXT"]


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
                      "ROOT)", NEEDS, (Option("resamples", "--resamples"), Option("metric_test", "--metric-test"),
                                      Option("statistics", "--stat")))


def asked_statistics(opts: Options) -> tuple[str, ...]:
    """The statistics of --stat by their registry names (an unknown name: the one message naming those there
    are); each is computed for every metric and compared between metrics."""
    out: list[str] = []
    for name in getattr(opts, "statistics", None) or ():
        try:
            found = stats.get(name.strip()).name
        except InputError as exc:
            raise UserError(f"--stat {name}: {exc}") from None
        if found not in out:
            out.append(found)
    return tuple(out)


def check_args(opts: Options) -> None:
    asked_statistics(opts)  # an unknown --stat before anything is scored
    if not getattr(opts, "human", None):
        (HUMAN_ONLY.without("doc_level", "pdp") if getattr(opts, "mtme", None) else HUMAN_ONLY).check(opts)
        if not getattr(opts, "mtme", None):
            COMPARING.check(opts)
    resamples = getattr(opts, "resamples", None)
    if resamples is not None and resamples < 0:
        raise UserError(f"--resamples must be >= 0, not {resamples}")


def read_human(opts: Options) -> HumanScores | None:
    """The --human scores (None without --human), read and checked (file, columns, numbers) before
    any model is loaded."""
    if not getattr(opts, "human", None):
        return None
    human = load_human(opts.human, opts.human_column, opts.human_lower_better)
    for text in human.warnings:
        warn(text)
    return human


def check_document_gold(opts: Options, testset: TestSet | None, human: HumanScores | None) -> None:
    """``--doc-level``: build the document gold before any model runs, so that a mistake in the human
    scores (a document judged for some systems only, segments beyond the test set) is reported before
    scoring, not after it.  The systems are those of the test set with a human score, not excluded."""
    if not getattr(opts, "doc_level", None) or human is None or testset is None:
        return
    excluded = set(opts.exclude_systems or ()) | (set(human.humans) if opts.no_human_systems else set())
    mapping = match_systems(list(testset.systems), list(human.system))
    order = [h for s, h in mapping.items() if h not in excluded and s not in excluded]
    if len(order) < 2:
        return  # the meta-evaluation says which systems lack a human score
    rows = segment_rows(human, testset)
    doc_gold(order, doc_ids=testset.doc_ids, human_seg={h: rows[h] for h in order}, rule=opts.doc_level,
             human_file=str(human.path))


def warn_unmatched(opts: Options, testset: TestSet | None, human: HumanScores | None,
                   who: str = "docmetrics") -> None:
    """One warning naming every system (not excluded) that has no human score, each with the human file's
    closest name ("did you mean"): they are left out of the correlations."""
    if human is None or testset is None:
        return
    mapping = match_systems(list(testset.systems), list(human.system))
    excluded = set(getattr(opts, "exclude_systems", None) or ())
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
    opts: Options,
    testset: TestSet | None,
    human: HumanScores | None = None,
) -> WmtEval:
    """Meta-evaluate every metric's results against ``human`` (default: read from --human) and, with two
    metrics or more, compare them by PERM-BOTH (--resamples, --seed), each named as the table names it."""
    human = human if human is not None else load_human(opts.human, opts.human_column, opts.human_lower_better)
    resamples = getattr(opts, "resamples", None)
    return evaluate_human(
        all_results,
        human,
        names=row_labels([spec for spec, _ in all_results], [rs[0].metric if rs else spec for spec, rs in all_results]),
        exclude=opts.exclude_systems,
        exclude_humans=opts.no_human_systems,
        seg_level=opts.seg_level or bool(getattr(opts, "doc_level", None)),
        testset=testset,
        short=opts.short,
        pdp=bool(getattr(opts, "pdp", False)),
        doc_rule=getattr(opts, "doc_level", None),
        n_resamples=DEFAULT_RESAMPLES if resamples is None else resamples,
        seed=getattr(opts, "seed", DEFAULT_SEED),
        metric_test=getattr(opts, "metric_test", None) or "perm-both",
        statistics=asked_statistics(opts),
    )


def row_labels(specs: Sequence[str], names: Sequence[str] | None = None) -> list[str]:
    """``LABEL [k]`` of each metric, as every table names it (:func:`~docmetrics.evaluation.labels.row_labels`)."""
    return labels.row_labels(specs, names)


def metaeval_output(ev: WmtEval, opts: Options, human: HumanScores | None = None,
                    pair: GenmtPair | None = None) -> Output:
    """The meta-evaluation table and its notes (``human``: the scores read, to say how a raw MQM file's
    were computed); in JSON a list, one object per metric (with its clusters where metrics were compared)."""
    return Output(data=lambda: metaeval_data(ev), text=lambda: metaeval_text(ev, opts, human, pair))


def metaeval_data(ev: WmtEval) -> list[dict[str, Any]]:
    """``-f json``: each metric's object (:func:`~docmetrics.evaluation.metaeval_human.human_dicts`)."""
    return human_dicts(ev)


def metaeval_text(ev: WmtEval, opts: Options, human: HumanScores | None = None,
                  pair: GenmtPair | None = None) -> str:
    """The meta-evaluation's text (:func:`docmetrics.evaluation.metaeval_text.metaeval_text`), the human scores
    described as those of the --genmt language pair ``pair``, or by --human's file, column and direction."""
    if pair is not None and human is not None:
        about = esa_description(pair.path, pair.name, human.segments)
    else:
        about = human_description(opts.human, column=opts.human_column, lower_better=opts.human_lower_better,
                                  raw_mqm=human is not None and human.raw_mqm)
    return metaeval_text_of(ev, human=about, width=opts.width)
