"""Stored scores in the judging commands: ``--scores FILE... --stored NAME...|all --direction NAME=higher|lower``
of ``docmetrics`` (with ``--human``, ``--genmt``, ``--paired-bs``/``--paired-ar``, ``--mtme``) and
``docmetrics metaeval``.  Each stored metric joins the run as a metric whose units are already scored
(:class:`~docmetrics.judging.stored_scoring.StoredScorer`), named ``stored:NAME`` among the metrics, and is
checked against the run's test set before any model loads."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence, TypeVar

from ..api import TestSet
from ..formats.stored import parse_direction
from ..judging import StoredMetric, read_mtme_dir
from ..judging.stored_scoring import NO_PAIR, StoredScorer, choose_stored, read_stored
from ..values.errors import InputError, SpecError, UserError
from .conflicts import NEEDS_FOR, Conflicts, Option
from .options import MetaevalOptions, Options, RankOptions, RunOptions

Opts = TypeVar("Opts", RunOptions, MetaevalOptions, RankOptions)

__all__ = ["requested", "check_args", "label", "for_pair", "for_mtme", "stored_metrics", "testset_of", "scorers"]

#: How a stored metric is named among the metrics of a run (``stored:NAME``).
PREFIX = "stored:"
#: Options that only mean something with stored scores.
STORED_ONLY = Conflicts("--scores FILE... or --stored", NEEDS_FOR, (
    Option("direction", "--direction", "declares a stored metric's direction"),))
#: --stored names metrics of files: it needs them (the caller knows whether --mtme gives them).
FILES_NEEDED = Conflicts("--scores FILE... (or an MTME directory with --mtme ROOT, whose metric-scores it reads)",
                         "{option} {names}: give the files with {other}", (Option("stored", "--stored"),))
#: Options that stored scores read without the system outputs (--scores and no -i) refuse.
WITHOUT_OUTPUTS = Conflicts("--scores and no -i", "{option} {specs} with {other}: {instead}", (
    Option("metrics", "-m", "a live metric needs the system outputs (-i HYP... -s SRC --doc-ids IDS) that the "
                            "stored scores were computed on"),))
#: Options that stored metrics in an MTME run refuse.
IN_MTME = Conflicts("stored metrics (--scores/--stored)", "{option} names the score files of -m metrics one by one; "
                    "with {other} {instead}", (
                        Option("metric_name", "--metric-name", "drop it: each file is named after the metric's "
                                                               "signature"),))


def requested(opts: Options) -> bool:
    return bool(getattr(opts, "scores", None) or getattr(opts, "stored", None))


def check_args(opts: Options) -> dict[str, bool]:
    """The option combinations (before any file is read); the declared directions, name -> higher_is_better."""
    stored = getattr(opts, "stored", None) or []
    if "all" in stored and len(stored) > 1:
        raise UserError("--stored all names every metric; give 'all' or metric names, not both")
    if not getattr(opts, "scores", None) and not getattr(opts, "mtme", None):
        FILES_NEEDED.check(opts, names=" ".join(stored))
    if not requested(opts):
        STORED_ONLY.check(opts)
    try:
        return dict(parse_direction(d) for d in getattr(opts, "direction", None) or [])
    except SpecError as exc:
        raise UserError(f"--direction: {exc}") from None


def label(metric: StoredMetric) -> str:
    return f"{PREFIX}{metric.name}"


def _where(files: Sequence[str]) -> str:
    return files[0] if len(files) == 1 else f"{files[0]} (and {len(files) - 1} more)"


def for_pair(opts: Options, lp: str | None) -> list[StoredMetric]:
    """The stored metrics of ``--scores`` (those ``--stored`` names) for the language pair ``lp`` (the only
    one of the files where None)."""
    declared = check_args(opts)
    stored = read_stored(opts.scores, lp=lp, declared=declared)
    where = _where(opts.scores)
    have = stored.language_pairs()
    _check_declared(declared, [m for metrics in stored.pairs.values() for m in metrics], where)
    if lp:
        name, metrics = stored.pair(lp, where)
    elif len(have) > 1:
        raise InputError(f"{where}: scores of {len(have)} language pairs ({', '.join(have)}); pick one with -l")
    else:
        name = have[0] if have else NO_PAIR
        metrics = stored.pairs[name]
    return [metrics[m] for m in choose_stored(list(metrics), opts.stored, name, where)]


def for_mtme(opts: Options, lps: Sequence[str]) -> dict[str, list[StoredMetric]]:
    """lp -> the stored metrics of a run on MTME data: ``--scores`` files (any format) and, without them,
    the MTME directory's own metric-scores that ``--stored`` names.  With several language pairs every
    pair has the same metrics: ``--stored all`` keeps those every pair has."""
    declared = check_args(opts)
    out: dict[str, list[StoredMetric]] = {}
    for lp in lps:
        if getattr(opts, "scores", None):
            out[lp] = for_pair(opts, lp)
        else:
            out[lp] = read_mtme_dir(opts.mtme, opts.testset, lp, opts.stored, declared)
    if len(lps) > 1:
        names = [[m.name for m in ms] for ms in out.values()]
        common = [n for n in names[0] if all(n in other for other in names[1:])]
        if not common:
            raise InputError(f"--stored {' '.join(opts.stored or ['all'])}: no stored metric is in every language "
                             f"pair ({', '.join(lps)})")
        out = {lp: [m for m in ms if m.name in common] for lp, ms in out.items()}
    if not getattr(opts, "scores", None):
        _check_declared(declared, [m.name for ms in out.values() for m in ms], f"--mtme {opts.mtme}")
    return out


def _check_declared(declared: dict[str, bool], names: Sequence[str], where: str) -> None:
    """--direction NAME=... naming no stored metric would be ignored: refuse it, listing the names."""
    for name, higher in declared.items():
        if name not in names:
            have = sorted(set(names))
            raise UserError(f"--direction {name}={'higher' if higher else 'lower'}: {where} has no stored metric "
                            f"{name!r} (its metrics: {', '.join(have[:12])}{' ...' if len(have) > 12 else ''}); "
                            "give one of those names")


def stored_metrics(metrics: dict[str, StoredMetric], lp: str, wanted: Sequence[str] | None, preset: str | None,
                   where: str) -> dict[str, StoredMetric]:
    """The stored metrics of a language pair to rank or compare: ``wanted`` (--stored), else the preset's, else
    all (:func:`~docmetrics.judging.stored_scoring.choose_stored`: an InputError naming a metric the files lack)."""
    if (not wanted or wanted == ["all"]) and preset:
        from ..judging import AUTORANK_PRESETS  # numpy: not when --help imports this module

        wanted = list(AUTORANK_PRESETS[preset].metrics_for(lp))
    return {n: metrics[n] for n in choose_stored(list(metrics), wanted, lp, where)}


def testset_of(metrics: Sequence[StoredMetric]) -> TestSet:
    """The test set stored scores describe where no -i gives one: the systems and documents of the first
    metric (the others are checked against it), no texts."""
    first = metrics[0]
    doc_ids = [d for d, start, end in first.documents() for _ in range(end - start)] if first.level == "seg" else None
    if first.level != "seg":
        raise InputError(f"{first.file_of(first.systems[0])}: {first.level}-level scores give no segments; give the "
                         "test set with -i HYP... --doc-ids, or segment-level scores")
    n = first.n_items
    return TestSet({s: [""] * n for s in first.systems}, doc_ids=doc_ids if first.doc_ids is not None else None,
                   names={s: first.file_of(s) for s in first.systems})


def scorers(opts: Opts, stored: Sequence[StoredMetric], testset: TestSet) -> tuple[Opts, list[StoredScorer]]:
    """A :class:`StoredScorer` per stored metric, each checked against ``testset`` (an InputError naming
    the file, line and field where it does not fit: called before any model loads), and the options with
    each one's ``stored:NAME`` in ``metrics`` after the live specs."""
    names = list(opts.metrics)
    out = []
    for m in stored:
        name = label(m)
        if name in names:
            raise UserError(f"--stored: {m.name} is given twice")
        scorer = StoredScorer(m)
        scorer.check(testset)
        names.append(name)
        out.append(scorer)
    return replace(opts, metrics=names), out
