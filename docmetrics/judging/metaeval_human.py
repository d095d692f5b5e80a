"""The ``--human`` side of meta-evaluation (``--human FILE``, ``--genmt FILE``, sweeps): metrics judged against
human scores read from a file, by the one meta-evaluation of :mod:`docmetrics.judging.evaluate`.

* :func:`evaluate`: one metric, on the systems it scored that have a human score (sweeps judge each grid point
  so; the systems as given, with those left out and why);
* :func:`evaluate_human`: several metrics, each judged as :func:`evaluate` judges it (its numbers are the same
  whether it is judged alone or beside others), and, with two or more, compared by PERM-BOTH on the systems
  every metric scored (:func:`~docmetrics.judging.evaluate.evaluate_wmt`, as ``--mtme`` compares them),
  with WMT's significance clusters.

Nothing here parses arguments or prints; the result's ``to_dict()`` is the JSON of ``--human -f json``
(:class:`~docmetrics.judging.metaevaluation.MetaEvaluation`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

from .. import stats as ws  # docmetrics.stats, WMT's statistics
from ..formats.human_tsv import HumanScores
from ..values.errors import InputError
from ..values.result import Result
from ..values.testset import TestSet
from .comparisons import Comparison
from .evaluate import compared_statistics, evaluate_wmt
from .human_match import match_systems, segment_rows
from .metaeval_metric import MetaEval
from .metaevaluation import MetaEvaluation

__all__ = ["evaluate", "evaluate_human"]


def _chosen(results: Sequence[Result], human: HumanScores, exclude: Sequence[str],
            exclude_humans: bool) -> tuple[list[tuple[Result, str]], list[str]]:
    """The results judged, each with its system's name in the human file, and the systems left out and why."""
    mapping = match_systems([r.system for r in results], list(human.system))
    excluded = set(exclude)
    if exclude_humans:
        excluded |= human.humans
    left_out: list[str] = []
    chosen: list[tuple[Result, str]] = []
    for r in results:
        h = mapping.get(r.system)
        if h is None:
            left_out.append(f"{r.system} (no human score)")
        elif h in excluded or r.system in excluded:
            left_out.append(f"{r.system} (excluded)")
        elif math.isnan(r.score):
            left_out.append(f"{r.system} (no metric score)")
        else:
            chosen.append((r, h))
    return chosen, left_out


def _named(r: Result, system: str) -> Result:
    """``r`` under the human file's name of its system (the meta-evaluation pairs systems by name)."""
    return r if r.system == system else dataclasses.replace(r, system=system)


def evaluate(
    results: Sequence[Result],
    human: HumanScores,
    *,
    spec: str = "",
    exclude: Sequence[str] = (),
    exclude_humans: bool = False,
    seg_level: bool = False,
    testset: TestSet | None = None,
    short: bool = False,
    n_permutations: int = ws.DEFAULT_PERMUTATIONS,
    spa_seed: int = ws.SPA_SEED,
    pdp: bool = False,
    doc_rule: str | None = None,
    statistics: Sequence[str] = (),
) -> MetaEval:
    """Meta-evaluate one metric's results (one per system) against human scores read from a TSV file
    (``--human``, sweeps): :func:`evaluate_wmt` on the systems with a metric and a human score, not
    excluded (``exclude``; ``exclude_humans``: those the file marks as human).  ``seg_level``: the
    segment scores placed on ``testset``'s lines give SPA, the segment level (acc_eq with its epsilon,
    Pearson, Kendall) and, for a metric whose units span several segments, Kendall over its units.
    The result lists the systems as given, with those left out and why.  ``pdp`` / ``doc_rule``: the
    opt-in system-level PDP and document level of :func:`evaluate_wmt` (the document level needs the
    segment-level human scores, hence ``seg_level``); ``statistics``: the opt-in statistics of the registry to
    compute too."""
    if not results:
        raise InputError("no results to meta-evaluate")
    chosen, left_out = _chosen(results, human, exclude, exclude_humans)
    if len(chosen) < 2:
        raise InputError(
            f"{human.path}: only {len(chosen)} system(s) have both a metric and a human score "
            f"(left out: {', '.join(left_out) or 'none'}); system names must match the human file's "
            "(file names without extension match too)"
        )
    human_seg = None
    if doc_rule is not None and not seg_level:
        raise InputError(f"{human.path}: the document level needs segment-level human scores (doc_id and seg_id)")
    if seg_level:
        rows = segment_rows(human, testset)
        human_seg = {h: rows[h] for _, h in chosen}
    label = spec or results[0].metric
    ev = evaluate_wmt(
        {label: [_named(r, h) for r, h in chosen]}, {h: human.system[h] for _, h in chosen}, human_seg,
        significance=(), n_permutations=n_permutations, spa_seed=spa_seed, short=short, unit_level=True,
        pdp=pdp, doc_rule=doc_rule, human_file=str(human.path), statistics=statistics,
        doc_ids=testset.doc_ids if doc_rule is not None and testset is not None else None,
    ).metrics[label]
    if seg_level and (ev.seg_n or 0) < 2:
        raise InputError(f"{human.path}: fewer than 2 scored units have human segment scores")
    ev.metric = results[0].metric
    ev.systems = [r.system for r, _ in chosen]
    ev.metric_scores = [r.score for r, _ in chosen]
    ev.human_scores = [human.system[h] for _, h in chosen]
    ev.left_out = left_out
    return ev


def evaluate_human(
    all_results: Sequence[tuple[str, Sequence[Result]]],
    human: HumanScores,
    *,
    names: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    exclude_humans: bool = False,
    seg_level: bool = False,
    testset: TestSet | None = None,
    short: bool = False,
    n_permutations: int = ws.DEFAULT_PERMUTATIONS,
    spa_seed: int = ws.SPA_SEED,
    pdp: bool = False,
    doc_rule: str | None = None,
    significance: Sequence[str] | None = None,
    n_resamples: int = ws.DEFAULT_RESAMPLES,
    seed: int | None = ws.DEFAULT_SEED,
    alpha: float = 0.05,
    metric_test: str = "perm-both",
    statistics: Sequence[str] = (),
) -> MetaEvaluation:
    """Meta-evaluate every metric of ``all_results`` ((spec, its results) per metric) against ``human``.

    ``metrics`` of the result: each metric's :class:`MetaEval` exactly as :func:`evaluate` gives it (its
    systems as given, those left out and why), under its name in ``names`` (default: its spec; the names
    must differ), in the order given.  ``comparisons``: with two metrics or more and ``n_resamples`` > 0, each
    statistic of ``significance`` (default: :func:`~docmetrics.judging.evaluate.compared_statistics`, as
    ``--mtme`` compares them) compared between every pair of metrics
    by PERM-BOTH (``metric_test="williams"``: Williams' test for Pearson's r) and clustered, by
    :func:`evaluate_wmt` on the systems every metric scored (``systems``);
    ``left_out`` names those some metric did not score, left out of the comparisons only.  ``n_segments``
    is set where segment-level human scores were given (``seg_level``).  ``statistics``: the opt-in statistics of
    the registry to compute too (and compare, beside ``significance``)."""
    if not all_results:
        raise InputError("no results to meta-evaluate")
    names = list(names) if names is not None else [spec for spec, _ in all_results]
    if len(names) != len(all_results) or len(set(names)) != len(names):
        raise InputError(f"metrics to meta-evaluate: name each once ({', '.join(names)})")
    common: dict[str, Any] = dict(spa_seed=spa_seed, n_permutations=n_permutations, short=short, pdp=pdp,
                                  doc_rule=doc_rule, statistics=statistics)
    metrics = {
        name: evaluate(results, human, spec=spec, exclude=exclude, exclude_humans=exclude_humans,
                       seg_level=seg_level, testset=testset, **common)
        for name, (spec, results) in zip(names, all_results)
    }
    chosen = {name: {h: r for r, h in _chosen(results, human, exclude, exclude_humans)[0]}
              for name, (_, results) in zip(names, all_results)}
    every = sorted(set().union(*chosen.values()))
    systems = [h for h in every if all(h in c for c in chosen.values())]
    left_out = [f"{h} (no score from {', '.join(n for n in names if h not in chosen[n])})"
                for h in every if h not in systems]
    # judged by the humans, scored by no metric (MTME's human reference): said, as --mtme says it
    left_out += [f"{h} (no score from {', '.join(spec for spec, _ in all_results)})" for h in sorted(human.system)
                 if h not in every and h not in exclude and not (exclude_humans and h in human.humans)]
    wanted = tuple(compared_statistics(pdp, doc_rule, also=statistics) if significance is None else significance)
    comparisons: dict[str, Comparison] = {}
    if len(metrics) >= 2 and n_resamples > 0 and wanted and len(systems) >= 2:
        rows = segment_rows(human, testset) if seg_level else None
        compared = evaluate_wmt(
            {name: [_named(chosen[name][h], h) for h in systems] for name in names},
            {h: human.system[h] for h in systems}, None if rows is None else {h: rows[h] for h in systems},
            significance=wanted, n_resamples=n_resamples, seed=seed, alpha=alpha, unit_level=True,
            metric_test=metric_test,
            human_file=str(human.path),
            doc_ids=testset.doc_ids if doc_rule is not None and testset is not None else None,
            **common,
        )
        comparisons = compared.comparisons
    elif len(metrics) >= 2 and n_resamples > 0 and len(systems) < 2:
        left_out.append(f"fewer than 2 systems scored by every metric ({', '.join(systems) or 'none'}): "
                        "no comparison")
    n_segments = testset.n_segments if seg_level and testset is not None else None
    return MetaEvaluation("", str(human.path), systems, left_out, metrics, comparisons, n_resamples, seed,
                          n_permutations, spa_seed, alpha, n_segments, layout="human")
