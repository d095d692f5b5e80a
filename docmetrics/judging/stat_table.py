"""The one table of meta-evaluation statistics: ``--human``, ``--genmt``, ``--mtme`` (and each language pair of
``docmetrics metaeval``) print it, and a sweep's rows are its cells.  Its columns are read from the registry of
statistics (:mod:`docmetrics.judging.statistics`), so a statistic added there, docmetrics' own or a plugin's,
is a column here with no edit.

Which columns show, as data in this one place: a block (:data:`BLOCKS`: the system and segment levels, then the
document level) is led by what each metric was judged on (the systems, the documents), then every statistic of
its levels in registry order that at least one metric was given (a value, or a reason for none; those that need
segment-level human scores only where the run had them), headed by its ``Statistic.header`` and followed by its
companion where it has one (:data:`COMPANIONS`: the pairs that accuracy counts, acc_eq's tie-calibration
epsilon).  A cell is ``value (cluster)`` where the statistic was compared between metrics (PERM-BOTH, WMT's
significance clusters), ``-`` where the metric has no value."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Callable, Iterable, Mapping

from . import statistics as stats
from .comparisons import Comparison
from .metaeval_metric import MetaEval
from .text import num, table

__all__ = ["Column", "Block", "BLOCKS", "COMPANIONS", "needs_segments", "shown", "columns", "ranks", "stat_table",
           "clusters_text", "significance_lines", "tie_lines", "untested_lines", "NO_TESTS"]


@dataclass(frozen=True)
class Column:
    """One column: its header, its text for a metric (``text(e, width)``) and, for a statistic's column, the
    statistic (its cells carry the metric's cluster where the statistic was compared)."""

    header: str
    text: Callable[[MetaEval, int], str]
    statistic: str | None = None

    def cell(self, e: MetaEval, width: int, clusters: Mapping[str, int | None] | None = None) -> str:
        """The metric's cell, ``value (cluster)`` where ``clusters`` (statistic -> cluster) gives one."""
        text = self.text(e, width)
        rank = (clusters or {}).get(self.statistic) if self.statistic is not None else None
        return text if rank is None or text == "-" else f"{text} ({rank})"


def _value(name: str, e: MetaEval, width: int) -> str:
    v = e.get(name)
    return "-" if v is None else num(v, width)


def _epsilon(v: float | None, width: int) -> str:
    return "-" if v is None else num(v, width + 2)


def _documents(e: MetaEval, width: int) -> str:
    d = e.document
    if d is None:
        return "-"
    return f"{d.n_docs}" + (f" (+{d.docs_left_out} unjudged)" if d.docs_left_out else "")


@dataclass(frozen=True)
class Block:
    """A table of statistics: the levels whose statistics are its columns, after its leading column."""

    levels: tuple[str, ...]
    leading: Column


#: the tables: the system and segment levels (one row per metric), the document level (its own block)
BLOCKS: Mapping[str, Block] = MappingProxyType({
    "statistics": Block(("system", "segment"), Column("systems", lambda e, w: str(len(e.systems)))),
    "document": Block(("document",), Column("documents", _documents)),
})
#: the column after a statistic's: what it counts, or the epsilon of its tie calibration
COMPANIONS: Mapping[str, Column] = MappingProxyType({
    "accuracy": Column("pairs", lambda e, w: f"{e.agree}/{e.pairs}"),
    "seg_acc_eq": Column("epsilon", lambda e, w: _epsilon(e.seg_epsilon, w)),
    "doc_acc_eq": Column("epsilon", lambda e, w: _epsilon(None if e.document is None else e.document.epsilon, w)),
})
#: under a table of several metrics compared with no test
NO_TESTS = "No significance clusters (--resamples 0)."


def needs_segments(s: stats.Statistic) -> bool:
    """Whether ``s`` needs segment-level human scores (a run without them has no column for it)."""
    return s.needs == "segment" or s.level == "segment"


def _given(e: MetaEval, s: stats.Statistic) -> bool:
    """Whether the meta-evaluation gave metric ``e`` statistic ``s``: a value (None where undefined), or a
    reason for none."""
    if s.level == "document":
        return e.document is not None
    return s.name in e.values or e.note(s.name) is not None


def shown(evals: Iterable[MetaEval], block: str = "statistics", *, segment: bool) -> list[stats.Statistic]:
    """The statistics of ``block`` that have a column for these metrics, in registry order (``segment``:
    the run had segment-level human scores)."""
    evals = list(evals)
    levels = BLOCKS[block].levels
    return [s for s in stats.statistics(opt_in=True) if s.level in levels and (segment or not needs_segments(s))
            and any(_given(e, s) for e in evals)]


def columns(evals: Iterable[MetaEval], block: str = "statistics", *, segment: bool,
            leading: bool = True) -> list[Column]:
    """The columns of ``block`` for these metrics: its leading column (``leading``), then each statistic
    :func:`shown` and its companion; none where no statistic of the block is shown."""
    found = shown(evals, block, segment=segment)
    out = [BLOCKS[block].leading] if leading and found else []
    for s in found:
        out.append(Column(s.header, partial(_value, s.name), s.name))
        if s.name in COMPANIONS:
            out.append(COMPANIONS[s.name])
    return out


def ranks(comparisons: Mapping[str, Comparison]) -> dict[str, dict[str, int | None]]:
    """metric -> statistic -> its significance cluster, of every statistic compared."""
    out: dict[str, dict[str, int | None]] = {}
    for stat, comp in comparisons.items():
        for r in comp.ranking:
            out.setdefault(r.metric, {})[stat] = r.rank
    return out


def stat_table(metrics: Mapping[str, MetaEval], comparisons: Mapping[str, Comparison], width: int, *,
               segment: bool, labels: Mapping[str, str] | None = None, block: str = "statistics") -> str:
    """The table of ``block``: one row per metric (``metrics``: its name in ``comparisons`` -> its MetaEval,
    in row order; ``labels``: name -> the row's label, default the name), the statistics with ``width``
    decimals; "" where no statistic of the block has a column (no document level)."""
    cols = columns(metrics.values(), block, segment=segment)
    if not cols:
        return ""
    clusters = ranks(comparisons)
    rows = [[(labels or {}).get(name, name)] + [c.cell(e, width, clusters.get(name)) for c in cols]
            for name, e in metrics.items()]
    return table(["Metric"] + [c.header for c in cols], rows)


def clusters_text(n_resamples: int, seed: int | None, alpha: float) -> str:
    """What ``(n)`` after a value is, under a table with clusters."""
    return (f"(n): significance cluster of that statistic (PERM-BOTH between metrics, {n_resamples} resamples, "
            f"seed {seed}, alpha {alpha}); cluster 1 holds the metrics no other is significantly better than.")


def significance_lines(comparisons: Mapping[str, Comparison], n_metrics: int, n_resamples: int, seed: int | None,
                       alpha: float, explain: bool = True) -> list[str]:
    """The notes on the clusters under a table of ``n_metrics`` metrics: what ``(n)`` is (``explain``), or
    that no test ran (0 resamples)."""
    if comparisons:
        williams = [s for s, c in comparisons.items() if c.metric_test == "williams"]
        note = ([f"{', '.join(williams)}: clusters by Williams' test of two dependent correlations (one-sided, "
                 f"alpha {alpha}) instead of PERM-BOTH"] if williams else [])
        return ([clusters_text(n_resamples, seed, alpha)] if explain else []) + note + tie_lines(comparisons)
    return [NO_TESTS] if n_metrics > 1 and n_resamples == 0 else []


def tie_lines(comparisons: Mapping[str, Comparison]) -> list[str]:
    """Why two metrics with the same value of a statistic sit in different clusters: the later one is
    significantly worse than a metric ranked above both, the earlier one is not (equal values tie on the
    observed difference, not on the resamples)."""
    lines = []
    for stat, comp in comparisons.items():
        ranking = comp.ranking
        for i, a in enumerate(ranking):
            for b in ranking[i + 1:]:
                if a.rank is None or b.rank is None or a.rank == b.rank or a.value != b.value:
                    continue
                above = [r for r in ranking[:i] + [a] if r.metric != b.metric and (r.metric, b.metric) in comp.tests
                         and comp.pvalue(r.metric, b.metric) < comp.alpha]
                if not above:
                    continue
                top = above[0]
                p_b = comp.pvalue(top.metric, b.metric)
                p_a = comp.pvalue(top.metric, a.metric) if (top.metric, a.metric) in comp.tests else None
                lines.append(f"{stat}: {a.metric} and {b.metric} have the same value ({a.value:.4f}) but sit in "
                             f"clusters {a.rank} and {b.rank}: {b.metric} is significantly worse than {top.metric} "
                             f"(p = {p_b:.4f} < {comp.alpha:g})" + (f", {a.metric} is not (p = {p_a:.4f})"
                                                                     if p_a is not None and top is not a else "")
                             + "; a cluster starts at the first metric significantly worse than one above it, and "
                             "the test compares the metrics on the same resamples, where equal values can differ")
    return lines


def untested_lines(comparisons: Mapping[str, Comparison]) -> list[str]:
    """Each pair of metrics a statistic could not be compared on, and why."""
    return [f"{stat}: {who}: {why}" for stat, comp in comparisons.items() for who, why in comp.skipped.items()
            if " vs " in who]
