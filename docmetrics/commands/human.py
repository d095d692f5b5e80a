"""The ``--human`` options of ``docmetrics`` and ``docmetrics sweep`` (meta-evaluation against a file of
human scores), and what ``--human`` and ``--genmt`` print: the library's
:func:`docmetrics.judging.meta_evaluate`, printed through its result's ``to_text()`` and ``to_dict()``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..api import Result, TestSet
from ..judging import DEFAULT_SEED
from ..judging import statistics as stats
from ..values.errors import InputError, UserError
from .conflicts import NEEDS, WITH, Conflicts, Option
from .messages import warn
from .options import Options

if TYPE_CHECKING:
    from ..judging import EvalSet, HumanScores, MetaEvaluation

__all__ = ["asked_statistics", "warn_unmatched", "check_args", "read_human", "judging_options",
           "run_metaeval"]


#: Options that only mean something with human scores (--doc-level and --pdp: or with --mtme's).
HUMAN_ONLY = Conflicts("--human FILE", NEEDS, tuple(Option(attr) for attr in (
    "human_column", "seg_level", "no_human_systems", "human_lower_better", "doc_level", "pdp")))
#: Options of ``docmetrics`` that a meta-evaluation against --human refuses.
PAIRED = Conflicts("--human", "give either a paired test (--paired-bs/--paired-ar) or {other}, not both",
                   (Option("paired_bs"), Option("paired_ar")))
REFUSED = Conflicts("--human", WITH, (
    Option("ci", "--ci", "the meta-evaluation prints correlations, not system scores; drop --ci"),))
#: The PERM-BOTH tests between metrics: a meta-evaluation's, with any source of human scores.
COMPARING = Conflicts("human scores to judge metrics against (--human FILE, a --genmt FILE with scores, or --mtme "
                      "ROOT)", NEEDS, (Option("resamples"), Option("metric_test"), Option("statistics")))


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
    from .. import judging  # numpy and the statistics: not for --help

    read = judging.read_human(opts.human, format="human-tsv", column=opts.human_column,
                              lower_is_better=opts.human_lower_better)
    for text in read.notes:
        warn(text)
    return read.human


def warn_unmatched(opts: Options, testset: TestSet | None, human: HumanScores | None,
                   who: str = "docmetrics") -> None:
    """One warning naming every system (not excluded) that has no human score, each with the human file's
    closest name ("did you mean"): they are left out of the correlations.  With ``--doc-level``, the document
    gold is built first, so that a mistake in the human scores (a document judged for some systems only,
    segments beyond the test set) is reported before scoring, not after it."""
    if human is None or testset is None:
        return
    from .. import judging  # numpy and the statistics: not for --help

    missing = judging.check_human(human, testset, exclude=getattr(opts, "exclude_systems", None) or (),
                                  exclude_humans=bool(getattr(opts, "no_human_systems", False)),
                                  doc_rule=getattr(opts, "doc_level", None))
    if not missing:
        return
    names = [f"{system} (did you mean {close}?)" if close else system for system, close in missing.items()]
    path = getattr(human, "human", human).path  # an EvalSet (--data): its scores' file
    warn(f"--human {path} has no scores for {', '.join(names)}: left out of the correlations (a system is "
         "matched by its name or its file name without the extension, case and all; rename the file or the "
         "system in the human file)", who)


def judging_options(opts: Options, also: tuple[str, ...] = ()) -> dict[str, Any]:
    """The options every meta-evaluation of the command line takes, as :func:`docmetrics.judging.meta_evaluate`'s
    arguments: --stat (and ``also``) the statistics compared besides the main ones, --resamples the PERM-BOTH
    resamples, --seed, --metric-test, --pdp, --doc-level's rule, --short."""
    return dict(statistics=(*asked_statistics(opts), *also), significance=getattr(opts, "resamples", None),
                seed=getattr(opts, "seed", DEFAULT_SEED), metric_test=getattr(opts, "metric_test", None) or "perm-both",
                pdp=bool(getattr(opts, "pdp", False)), doc_rule=getattr(opts, "doc_level", None) or "mean",
                short=opts.short)


def run_metaeval(
    all_results: list[tuple[str, list[Result]]],
    opts: Options,
    testset: TestSet | None,
    human: EvalSet | HumanScores | None = None,
) -> MetaEvaluation:
    """The library's :func:`docmetrics.judging.meta_evaluate` of every metric's results against ``human`` (default:
    read from --human; an EvalSet, as ``--data`` reads it: judged by its format's own path, MTME's included), the
    options as its arguments (:func:`judging_options`; --seg-level and --doc-level the
    levels).  What it prints is the result's ``to_text()`` (-w decimals) / ``to_dict()``."""
    from .. import judging  # numpy and the statistics: not for --help

    human = human if human is not None else read_human(opts)
    genmt_lp = testset.lp if getattr(opts, "genmt", None) and testset else None
    doc_rule = getattr(opts, "doc_level", None)
    levels = ("system", *(("segment",) if opts.seg_level or doc_rule else ()), *(("document",) if doc_rule else ()))
    # MTME data names its human scores in its text's first line: no line on them from here
    mtme = isinstance(human, judging.EvalSet) and human.format == "mtme"
    return judging.meta_evaluate(
        all_results, human, levels=levels, testset=testset, exclude=opts.exclude_systems or (),
        exclude_humans=opts.no_human_systems, **judging_options(opts),
        human_text=None if mtme else judging.describe_human(human, column=opts.human_column, lp=genmt_lp))
