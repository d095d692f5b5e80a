"""Stored scores in the judging commands: ``--scores FILE... --stored NAME...|all --direction NAME=higher|lower``
of ``docmetrics`` (with ``--human``, ``--genmt``, ``--paired-bs``/``--paired-ar``, ``--mtme``), ``docmetrics metaeval``
and ``docmetrics rank``.  The files are read by the library's ``stored`` format (``read_human(..., format="stored")``,
:func:`docmetrics.judging.read_stored`); each stored metric joins the run as a metric whose units are already
scored (:class:`docmetrics.judging.StoredScorer`), named ``stored:NAME`` among the metrics, and is checked against
the run's test set before any model loads."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Callable, Iterator, Sequence

from ..api import TestSet
from ..judging import AUTORANK_PRESETS, StoredMetric, StoredScorer, read_mtme_dir
from ..values.errors import InputError, UserError
from .data import read_judged
from .options import Options

__all__ = ["requested", "check_args", "worded", "label", "for_pair", "for_mtme", "wanted_metrics",
           "testset_of", "with_stored", "scorers"]

#: How a stored metric is named among the metrics of a run (``stored:NAME``).
PREFIX = "stored:"


def requested(opts: Options) -> bool:
    return bool(getattr(opts, "scores", None) or getattr(opts, "stored", None))


def check_args(opts: Options) -> None:
    """The option combinations, before any file is read (a --direction is read with the files): --stored names
    metrics of files, so it needs them (--scores, or --mtme's metric-scores); --direction needs stored metrics."""
    stored = getattr(opts, "stored", None) or []
    if "all" in stored and len(stored) > 1:
        raise UserError("--stored all names every metric; give 'all' or metric names, not both")
    if stored and not getattr(opts, "scores", None) and not getattr(opts, "mtme", None):
        raise UserError(f"--stored {' '.join(stored)}: give the files with --scores FILE... (or an MTME directory "
                        "with --mtme ROOT, whose metric-scores it reads)")
    if getattr(opts, "direction", None) and not requested(opts):
        raise UserError("--direction declares a stored metric's direction: it needs --scores FILE... or --stored")


@contextlib.contextmanager
def worded() -> Iterator[None]:
    """The library's errors on a declared direction (its parameter ``directions``) as --direction's."""
    try:
        yield
    except UserError as exc:
        if "directions" not in exc.params:
            raise
        raise type(exc)(f"--direction: {exc}", params=exc.params) from None


def label(metric: StoredMetric) -> str:
    return f"{PREFIX}{metric.name}"


def for_pair(opts: Options, lp: str | None) -> list[StoredMetric]:
    """The stored metrics of ``--scores`` (those ``--stored`` names) for the language pair ``lp`` (the only
    one of the files where None): the library's ``stored`` format."""
    check_args(opts)
    with worded():
        (data,) = read_judged(opts.scores, [lp], format="stored", directions=opts.direction, metrics=opts.stored)
    return list(data.stored.values())


def for_mtme(opts: Options, lps: Sequence[str]) -> dict[str, list[StoredMetric]]:
    """lp -> the stored metrics of a run on MTME data: ``--scores`` files (any format) and, without them,
    the MTME directory's own metric-scores that ``--stored`` names.  With several language pairs every
    pair has the same metrics: ``--stored all`` keeps those every pair has."""
    check_args(opts)
    out: dict[str, list[StoredMetric]] = {}
    for lp in lps:
        if getattr(opts, "scores", None):
            out[lp] = for_pair(opts, lp)
        else:
            with worded():
                out[lp] = read_mtme_dir(opts.mtme, opts.testset, lp, opts.stored, opts.direction)
    if len(lps) > 1:
        names = [[m.name for m in ms] for ms in out.values()]
        common = [n for n in names[0] if all(n in other for other in names[1:])]
        if not common:
            raise InputError(f"--stored {' '.join(opts.stored or ['all'])}: no stored metric is in every language "
                             f"pair ({', '.join(lps)})")
        out = {lp: [m for m in ms if m.name in common] for lp, ms in out.items()}
    return out


def wanted_metrics(wanted: Sequence[str] | None, preset: str | None) -> Sequence[str] | Callable | None:
    """The stored metrics to rank or compare, as :meth:`~docmetrics.judging.StoredScores.evalset` takes them:
    ``wanted`` (--stored), else the preset's of each pair, else all."""
    if (not wanted or list(wanted) == ["all"]) and preset:
        return AUTORANK_PRESETS[preset].metrics_for
    return wanted


def testset_of(metrics: Sequence[StoredMetric]) -> TestSet:
    """The test set stored scores describe where no -i gives one: the systems and documents of the first
    metric (the others are checked against it), no texts."""
    first = metrics[0]
    if first.level != "seg":
        raise InputError(f"{first.file_of(first.systems[0])}: {first.level}-level scores give no segments; give the "
                         "test set with -i HYP... --doc-ids, or segment-level scores")
    doc_ids = None if first.doc_ids is None else [d for d, start, end in first.documents() for _ in range(end - start)]
    return TestSet({s: [""] * first.n_items for s in first.systems}, doc_ids=doc_ids,
                   names={s: first.file_of(s) for s in first.systems})


def with_stored(opts: Options, stored: Sequence[StoredMetric]) -> Options:
    """The options with each stored metric's ``stored:NAME`` in ``metrics`` after the live specs (one named twice:
    a UserError)."""
    names = list(opts.metrics)
    for m in stored:
        if label(m) in names:
            raise UserError(f"--stored: {m.name} is given twice")
        names.append(label(m))
    return replace(opts, metrics=names)


def scorers(opts: Options, stored: Sequence[StoredMetric], testset: TestSet) -> tuple[Options, list[StoredScorer]]:
    """The options :func:`with_stored` and a :class:`StoredScorer` per stored metric, each checked against
    ``testset`` (an InputError naming the file, line and field where it does not fit: called before any model
    loads)."""
    opts, out = with_stored(opts, stored), [StoredScorer(m) for m in stored]
    for scorer in out:
        scorer.check(testset)
    return opts, out
