"""``docmetrics sweep``: score one metric over a grid of parameters and meta-evaluate every point.

::

    docmetrics sweep -m slide:model=/models/cometkiwi --grid w=1..10 s=1..w \\
        -i sys/*.txt -s src.txt --doc-ids ids.txt --human seg_scores.tsv --human-column mqm_score \\
        --plot heatmap.png -o sweep.json

The grid: one ``KEY=VALUES`` per parameter, outermost first.  ``VALUES`` is a range ``A..B``
(integers, both ends included; an end may name a parameter given before it, as in ``s=1..w``) or a
comma-separated list (``partial=drop,keep,weighted``).  A point the metric rejects (e.g. s > w) is
skipped and reported.

Every point is a separate metric built from the base spec plus the point's parameters; they share
one loaded backbone, and a score cache (:mod:`docmetrics.runtime.cache`; the command line's is a
temporary file unless ``--cache`` asks for a persistent one) means a unit scored for one point (a SLIDE
chunk appears at many (w, s)) is not scored again for another; with a persistent cache, an interrupted
sweep, run again, takes what was already scored from it.

With ``--human``, each point is meta-evaluated (:func:`docmetrics.judging.meta_evaluate`, as
``--human`` does; with ``--seg-level`` also SPA, acc_eq and segment-level Kendall): a table, JSON, and
with ``--plot`` a heatmap of one statistic over two grid parameters (rows: the first, columns: the
second), like Figure 2 of the SLIDE paper (window x stride, pairwise accuracy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from ..algorithms.grids import Axis, expand_grid, parse_grid, point_spec
from ..formats.human_tsv import HumanScores
from ..plugin.metric import Metric
from ..values.errors import InputError, SpecError
from ..values.testset import TestSet
from ..values.versions import __version__
from . import statistics as stats
from .metaeval import meta_evaluate

__all__ = ["Sweep", "run", "Point", "STAT_CHOICES", "SEG_STATS"]

#: the statistics ``--stat`` takes as its help names them (MetaEval.get's names; any alias of
#: :mod:`docmetrics.judging.statistics` and a plugin statistic's name are taken too)
STAT_CHOICES = tuple(next((a for a in s.aliases if "-" in a or a == "acc_eq"), s.name) for s in stats.BUILTIN)
#: those that need segment-level human scores
SEG_STATS = tuple(n for n, s in zip(STAT_CHOICES, stats.BUILTIN) if s.needs == "segment")


@dataclass
class Point:
    """One grid position: its parameters as written in the spec (``params``), and once scored, the
    same parameters as the metric typed them (``values``: 6 not "6", True not "yes")."""

    params: dict[str, str]
    spec: str
    signature: str = ""
    scores: dict[str, float] = field(default_factory=dict)
    coverage: dict[str, Any] = field(default_factory=dict)
    cache: dict[str, int] = field(default_factory=dict)
    metaeval: Any = None
    skipped: str | None = None
    values: dict[str, Any] = field(default_factory=dict)
    #: units cut at the model's maximum length, over every system: units, units_truncated, tokens_cut
    truncated: dict[str, int] = field(default_factory=dict)
    #: what the point's metric advises when units are cut (:meth:`Metric.truncation_fix`)
    truncation_fix: str = ""

    def typed_params(self) -> dict[str, Any]:
        """The parameters with their types: as the metric read them, else numbers where the text is
        one (a point that was skipped)."""
        return {k: self.values[k] if k in self.values else _number_or_text(v) for k, v in self.params.items()}

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"params": self.typed_params(), "spec": self.spec}
        if self.skipped:
            d["skipped"] = self.skipped
            return d
        d.update(
            {
                "signature": self.signature,
                "scores": self.scores,
                "coverage": self.coverage,
                "cache": self.cache,
                "truncated": self.truncated,
            }
        )
        if self.metaeval is not None:
            d["metaeval"] = self.metaeval.to_dict()
        return d


@dataclass
class Sweep:
    """One metric over a grid: the base spec, the grid as written, the statistic it is judged by (``stat``) and
    the levels that statistic needs (``segment``: segment-level human scores; ``doc_rule``, ``pdp``), the grid's
    ``axes`` and ``points``; once run, the human scores' file (``human``) and the score cache the points shared
    (``cache_path``: None where it was temporary or there was none; ``cache_stats``: its counts)."""

    metric: str
    grid: list[str]
    stat: str
    axes: list[Axis]
    points: list[Point]
    segment: bool = False
    doc_rule: str | None = None
    pdp: bool = False
    opt_in: tuple[str, ...] = ()
    human: str | None = None
    cache_path: str | None = None
    cache_stats: Any = None
    #: the decimals the metric prints its scores with (its Results' ``decimals``), once a point is scored
    decimals: int | None = None

    @classmethod
    def plan(cls, metric: str, grid: Sequence[str], *, stat: str = "accuracy", seg_level: bool = False,
             doc_level: str | None = None, pdp: bool = False) -> Sweep:
        """The sweep of ``metric`` over ``grid`` (``["w=1..10", "s=1..w"]``), not yet run: its points, and the
        levels ``stat`` needs (a document statistic: ``doc_level`` "mean" unless given; ``pdp``); an InputError
        where ``stat`` is unknown or needs ``seg_level``, a SpecError where the grid is malformed: what
        :func:`docmetrics.judging.sweep` checks before it scores, for a caller to check before it reads data."""
        try:
            statistic = stats.get(stat)
        except InputError:
            raise InputError(f"stat={stat}: no such statistic; one of {', '.join(STAT_CHOICES)} (or a plugin "
                             "statistic's name: docmetrics --list shows them)", params=("stat",)) from None
        doc_rule = doc_level or ("mean" if statistic.needs == "document" else None)
        segment = bool(seg_level or doc_rule)
        if statistic.needs == "segment" and not segment:
            raise InputError(f"stat={stat} needs seg_level=True", params=("stat", "seg_level"))
        axes = parse_grid(list(grid))
        points = [Point(pt, point_spec(metric, pt)) for pt in expand_grid(axes)]  # each: the base spec with its values
        return cls(metric, list(grid), stat, axes, points, segment=segment, doc_rule=doc_rule,
                   pdp=pdp or statistic.needs == "pdp", opt_in=(statistic.name,) if statistic.opt_in else ())

    def heatmap(self) -> tuple[list[str], list[str], list[list[float]]]:
        """(row labels, column labels, values) of the statistic over the first two grid parameters (NaN where no
        point)."""
        points, axes, stat = self.points, self.axes, self.stat
        if len(axes) < 1:
            raise InputError("a heatmap needs at least one grid parameter", params=("grid",))
        rk = axes[0].name
        ck = axes[1].name if len(axes) > 1 else None
        varying = sorted(a.name for a in axes[2:] if len({p.params[a.name] for p in points}) > 1)
        if varying:
            raise InputError(f"the heatmap has two axes ({rk}, {ck}); {', '.join(varying)} also varies: fix it in "
                             "the metric's spec and sweep it in separate runs", params=("grid",))
        rows: list[str] = []
        cols: list[str] = []
        for p in points:
            if p.params[rk] not in rows:
                rows.append(p.params[rk])
            c = p.params[ck] if ck else stat
            if c not in cols:
                cols.append(c)
        cols = sorted(cols, key=_sort_key)
        rows = sorted(rows, key=_sort_key)
        values = [[math.nan] * len(cols) for _ in rows]
        for p in points:
            if p.skipped or p.metaeval is None:
                continue
            c = p.params[ck] if ck else stat
            value = p.metaeval.get(stat)
            values[rows.index(p.params[rk])][cols.index(c)] = math.nan if value is None else value
        return rows, cols, values

    @property
    def scale(self) -> tuple[float, float, float]:
        """The statistic's (lowest, chance, highest) values, what a heatmap's colours are scaled around."""
        return stats.get(self.stat).scale

    def to_dict(self) -> dict[str, Any]:
        """What ``docmetrics sweep -o`` writes: the metric, grid, statistic, cache and every point."""
        cache = None if self.cache_stats is None else {"path": self.cache_path, "kept": self.cache_path is not None,
                                                       **self.cache_stats.to_dict()}
        return {"metric": self.metric, "grid": self.grid, "version": __version__, "human": self.human,
                "stat": self.stat, "cache": cache, "points": [p.to_dict() for p in self.points]}

    def to_text(self, width: int | None = None, *, temporary: str = "(temporary: cache=True keeps it)") -> str:
        """What ``docmetrics sweep`` prints: one row per point scored, its parameters then, with human scores, the
        columns of the meta-evaluation table (:mod:`docmetrics.judging.stat_table`; the document level's headed
        ``doc-``), else each system's score; the metric and the first point's signature; the score cache's counts
        (named by its path, else by ``temporary``) and the points skipped.  ``width``: decimals (default 4, and
        a score the metric's own, as the score table prints it)."""
        from .stat_table import columns
        from .text import num, table

        done = [p for p in self.points if not p.skipped]
        keys = list(done[0].params)
        if done[0].metaeval is not None:  # the statistics' columns of --human's table (no clusters: one metric)
            w = 4 if width is None else width
            evals = [p.metaeval for p in done]
            cols = columns(evals, segment=self.segment, leading=False) + [
                replace(c, header=f"doc-{c.header}") for c in columns(evals, "document", segment=self.segment)]
            headers = keys + [c.header for c in cols]
            rows = [[p.params[k] for k in keys] + [c.cell(p.metaeval, w) for c in cols] for p in done]
        else:  # the scores: the metric's decimals (bleu: 1, as sacrebleu prints them)
            w = (self.decimals or 4) if width is None else width
            systems = list(done[0].scores)
            headers = keys + systems
            rows = [[p.params[k] for k in keys] + [num(p.scores[s], w) for s in systems] for p in done]
        text = table(headers, rows, align="r" * len(headers))
        text += f"\nmetric: {self.metric}; first point's signature: {done[0].signature}\n"
        if self.cache_stats is not None:
            text += f"\nscore cache {self.cache_path or temporary}: {self.cache_stats.summary()}\n"
        skipped = [p.spec for p in self.points if p.skipped]
        if skipped:
            text += f"skipped {len(skipped)} point(s): " + ", ".join(skipped) + "\n"
        return text


def run(sweep: Sweep, testset: TestSet, load: Callable[[str], Metric], *, human: HumanScores | None = None,
        exclude: Sequence[str] = (), exclude_humans: bool = False, short: bool = False, cache: Any = None,
        on_point: Callable[[int, Point], None] | None = None) -> Sweep:
    """Score every point of ``sweep`` (``load(spec)`` builds its metric, with the score cache ``cache`` in use:
    its hits are counted per point) and, with human scores, meta-evaluate it at the levels the sweep's statistic
    needs.  A point the metric rejects (a bad parameter combination, or no unit to score) is marked skipped, not
    fatal; ``on_point(k, point)`` follows each point (1-based k)."""
    for k, pt in enumerate(sweep.points, 1):
        try:
            metric = load(pt.spec)
        except SpecError as exc:
            pt.skipped = str(exc)
        else:
            before = cache.stats.copy() if cache is not None else None
            try:
                results = metric.compute(testset)
            except InputError as exc:  # e.g. every document shorter than this point's window
                pt.skipped = str(exc)
            else:
                pt.signature = results[0].signature.format(short=short)
                known = results[0].params
                pt.values = {k: known[k] for k in pt.params if k in known and known[k] is not None}
                pt.scores = {r.system: r.score for r in results}
                sweep.decimals = sweep.decimals or results[0].decimals
                if results[0].coverage is not None:
                    pt.coverage = results[0].coverage.to_dict()
                pt.truncated = truncation(results)
                pt.truncation_fix = metric.truncation_fix() if pt.truncated.get("units_truncated") else ""
                if cache is not None and before is not None:
                    pt.cache = cache.stats.since(before).to_dict()
                if human is not None:
                    levels = ("system", *("segment",) * sweep.segment, *("document",) * bool(sweep.doc_rule))
                    pt.metaeval = meta_evaluate(
                        {pt.spec: results}, human, levels=levels, statistics=sweep.opt_in, significance=0,
                        testset=testset, exclude=exclude, exclude_humans=exclude_humans,
                        doc_rule=sweep.doc_rule or "mean", pdp=sweep.pdp, short=short).metric(0)
        if on_point is not None:
            on_point(k, pt)
    if not any(not p.skipped for p in sweep.points):
        raise SpecError("no grid point could be built: " + "; ".join(p.skipped or "" for p in sweep.points[:3]))
    sweep.human = getattr(human, "path", None)
    return sweep


def truncation(results: Sequence[Any]) -> dict[str, int]:
    """Units, units cut at the model's maximum length and tokens cut, summed over the systems' results
    (empty where no result has a coverage)."""
    covered = [r.coverage for r in results if r.coverage is not None]
    if not covered:
        return {}
    return {"units": sum(c.units for c in covered), "units_truncated": sum(c.units_truncated for c in covered),
            "tokens_cut": sum(int(c.counters.get("tokens_cut", 0)) for c in covered)}


def _number_or_text(v: str) -> Any:
    for kind in (int, float):
        try:
            x = kind(v)
        except ValueError:
            continue
        return x if math.isfinite(x) else v
    return v


def _sort_key(v: str) -> tuple[int, float, str]:
    try:
        return (0, float(v), "")
    except ValueError:
        return (1, 0.0, v)
