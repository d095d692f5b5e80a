"""The ``--human`` side of meta-evaluation (``--human FILE``, ``--genmt FILE``, sweeps): metrics judged against
human scores read from a file, by the one meta-evaluation of :mod:`docmetrics.evaluation.metaeval`.

* :func:`evaluate`: one metric, on the systems it scored that have a human score (sweeps judge each grid point
  so; the systems as given, with those left out and why).

Nothing here parses arguments or prints.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

from ..algorithms import wmt_stats as ws
from ..values.errors import InputError
from ..values.human_tsv import HumanScores
from ..values.result import Result
from ..values.testset import TestSet
from .human import match_systems, segment_rows
from .metaeval import MetaEval, evaluate_wmt

__all__ = ["evaluate"]


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
) -> MetaEval:
    """Meta-evaluate one metric's results (one per system) against human scores read from a TSV file
    (``--human``, sweeps): :func:`evaluate_wmt` on the systems with a metric and a human score, not
    excluded (``exclude``; ``exclude_humans``: those the file marks as human).  ``seg_level``: the
    segment scores placed on ``testset``'s lines give SPA, the segment level (acc_eq with its epsilon,
    Pearson, Kendall) and, for a metric whose units span several segments, Kendall over its units.
    The result lists the systems as given, with those left out and why.  ``pdp`` / ``doc_rule``: the
    opt-in system-level PDP and document level of :func:`evaluate_wmt` (the document level needs the
    segment-level human scores, hence ``seg_level``)."""
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
        pdp=pdp, doc_rule=doc_rule, human_file=str(human.path),
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

