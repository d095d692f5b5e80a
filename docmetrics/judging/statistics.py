"""The statistics of meta-evaluation as values: one registry that every table, JSON layout, sweep choice,
plot range and average reads (as mt-metrics-eval's ``tasks.CORRELATION_FUNCTIONS`` names each correlation
once).

A :class:`Statistic` says what it is (name, aliases, level, title, the column header), its range and chance
level (averages map it to [0, 1] from its range; heatmaps centre their colours on chance), its direction
(higher better for every statistic here), whether it is one of the WMT23/24 ranking statistics (compared
by PERM-BOTH between metrics by default), what it needs (segment-level human scores, ``--pdp``,
``--doc-level``) and its permutation cells: what PERM-BOTH swaps between two metrics (:data:`CELLS`;
:mod:`docmetrics.judging.comparisons` builds them).  The statistics docmetrics defines are computed together by
:mod:`docmetrics.judging.evaluate` (they share intermediate work: SPA's p-values, acc_eq's epsilon);
a statistic added by a plugin (entry-point group ``docmetrics.statistics``, the object a
:class:`Statistic`) brings its ``compute``, which is given a :class:`StatInput` (the systems, the metric's
and the humans' system and segment scores, oriented: higher is better) and returns a number or None, and
it appears in the ``--human``, ``--genmt`` and ``--mtme`` tables and JSON, in ``sweep --stat``, in
``docmetrics metaeval --average`` and its plot, and is compared between metrics on the cells of its level
(PERM-BOTH recomputes it by its ``compute`` on every resample).

Nothing here prints; the registry is read from installed metadata each time (no module state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence

from ..values.errors import InputError

__all__ = ["Statistic", "StatInput", "BUILTIN", "MTME", "CELLS", "statistics", "get", "names", "stat_range", "LEVELS"]

Score = Optional[float]
#: The levels of a meta-evaluation.
LEVELS = ("system", "segment", "document")
#: the permutation cells of a statistic: what PERM-BOTH swaps between two metrics, independently per cell
CELLS = {
    "system": "the metrics' system scores",
    "segment": "the (system, segment) scores both metrics and the humans give",
    "item": "SPA's items (segments, or units of a span of segments) both metrics score for every system",
    "segment pair": "the outcomes of the pairs of systems within each segment (acc_eq, each metric's epsilon)",
    "document": "the (system, document) scores both metrics and the humans give",
    "document pair": "the outcomes of the pairs of systems within each document (acc_eq, each metric's epsilon)",
}


@dataclass(frozen=True)
class StatInput:
    """What a plugin statistic is computed from: the systems (in order), the metric's and the humans'
    system scores (parallel to ``systems``) and, with segment-level human scores, each system's
    per-segment scores (None where unscored; ``metric_seg`` None when the metric's units span several
    segments).  Metric scores are oriented: higher is better.

    In a PERM-BOTH resample (z-scored, swapped between two metrics cell by cell) a system-level statistic
    gets the resampled ``metric_sys`` and no ``metric_seg``; a segment-level one gets the resampled
    ``metric_seg`` (None outside the cells both metrics and the humans score) and as ``metric_sys`` each
    system's mean over its cells."""

    systems: Sequence[str]
    metric_sys: Sequence[float]
    human_sys: Sequence[float]
    metric_seg: Mapping[str, Sequence[Score]] | None = None
    human_seg: Mapping[str, Sequence[Score]] | None = None


@dataclass(frozen=True)
class Statistic:
    """One meta-evaluation statistic (see the module docstring)."""

    name: str
    level: str
    title: str
    header: str
    low: float = -1.0
    high: float = 1.0
    chance: float = 0.0
    aliases: tuple[str, ...] = ()
    #: one of the WMT23/24 ranking statistics: compared by PERM-BOTH between metrics by default
    main: bool = False
    #: "" (the system scores suffice), "segment" (segment-level human scores), "pdp" or "document"
    needs: str = ""
    higher_is_better: bool = True
    #: a plugin statistic's computation (None: computed by docmetrics' meta-evaluation)
    compute: Callable[[StatInput], float | None] | None = None
    #: its permutation cells (a key of :data:`CELLS`); "" (the default): the cells of its level
    cells: str = ""
    #: computed only where asked for by name (``--stat NAME``, ``meta_evaluate(statistics=[...])``): the default
    #: tables and JSON do not change
    opt_in: bool = False

    def __post_init__(self) -> None:
        if not self.cells:
            object.__setattr__(self, "cells", self.level)

    @property
    def scale(self) -> tuple[float, float, float]:
        """(lowest, chance, highest): the colour scale of a heatmap of this statistic."""
        return self.low, self.chance, self.high


def _correlation(name: str, level: str, title: str, header: str, **kw: object) -> Statistic:
    return Statistic(name, level, title, header, -1.0, 1.0, 0.0, **kw)  # type: ignore[arg-type]


def _share(name: str, level: str, title: str, header: str, **kw: object) -> Statistic:
    return Statistic(name, level, title, header, 0.0, 1.0, 0.5, **kw)  # type: ignore[arg-type]


#: The statistics docmetrics computes, in the order its tables show them.
BUILTIN: tuple[Statistic, ...] = (
    _correlation("pearson", "system", "system-level Pearson", "pearson", main=True),
    _correlation("spearman", "system", "system-level Spearman", "spearman"),
    _correlation("kendall", "system", "system-level Kendall tau-b", "kendall"),
    _share("accuracy", "system", "system-level pairwise accuracy", "accuracy", aliases=("accuracy_mtme",),
           main=True),
    _share("spa", "system", "system-level soft pairwise accuracy (SPA, WMT24)", "spa", main=True, needs="segment",
           cells="item"),
    _share("seg_acc_eq", "segment", "segment-level acc_eq with tie calibration (WMT23/24)", "acc_eq",
           aliases=("acc_eq",), main=True, needs="segment", cells="segment pair"),
    _correlation("seg_pearson", "segment", "segment-level Pearson (no grouping)", "seg-pearson", main=True,
                 needs="segment", aliases=("seg-pearson",)),
    _correlation("seg_kendall", "segment", "segment-level Kendall tau-b (no grouping)", "seg-kendall",
                 aliases=("seg-kendall",), needs="segment"),
    _correlation("pdp", "system", "system-level Pairwise Difference Pearson (MTME 2025)", "sys-pdp", needs="pdp"),
    _share("doc_acc_eq", "document", "document-level acc_eq with tie calibration", "acc_eq", needs="document",
           cells="document pair"),
    _correlation("doc_pearson", "document", "document-level Pearson over (system, document) pairs", "pearson",
                 needs="document"),
    _correlation("doc_kendall", "document", "document-level Kendall over (system, document) pairs", "kendall",
                 needs="document"),
    _correlation("doc_pearson_item", "document", "the mean of the per-document Pearson correlations",
                 "pearson-doc", needs="document"),
    _correlation("doc_kendall_item", "document", "the mean of the per-document Kendall correlations",
                 "kendall-doc", needs="document"),
    _share("doc_spa", "document", "SPA with the documents as permutation items", "spa", needs="document"),
    _correlation("doc_pdp", "document", "Pairwise Difference Pearson within each document", "pdp",
                 needs="document"),
)


# -- mt-metrics-eval's statistics, opt-in, computed through docmetrics.stats ----------------------------------
def _cells(data: StatInput, *, drop_unscored: bool) -> tuple[list[float | None], list[float | None]]:
    """(gold, metric) packed by system (system 0's segments, then system 1's, ...), as docmetrics.stats takes
    them: a cell the humans or the metric did not score is gold None (MTME drops it), or left out with
    ``drop_unscored``."""
    gold: list[float | None] = []
    metric: list[float | None] = []
    assert data.metric_seg is not None and data.human_seg is not None
    for s in data.systems:
        for m, h in zip(data.metric_seg[s], data.human_seg[s]):
            if m is None or h is None:
                if drop_unscored:
                    continue
                m, h = 0.0, None
            gold.append(h)
            metric.append(m)
    return gold, metric


def _kendall_c(data: StatInput) -> float:
    """Kendall's tau-c of the system scores (scipy's variant 'c'), by docmetrics.stats.KendallVariants."""
    from .. import stats as mtme

    return float(mtme.KendallVariants(list(data.human_sys), list(data.metric_sys), variant="c")[0])


def _seg_kendall(variant: str) -> Callable[[StatInput], float]:
    def compute(data: StatInput) -> float:
        from .. import stats as mtme

        gold, metric = _cells(data, drop_unscored=True)
        return float(mtme.KendallVariants(gold, metric, variant=variant)[0])

    compute.__doc__ = (f"Kendall variant {variant!r} over every (system, segment) pair the metric and the humans score "
                       "(no grouping), by docmetrics.stats.KendallVariants.")
    return compute


def _seg_kendall_like(data: StatInput) -> float:
    """WMT20's Kendall-like statistic within each segment (pairs of systems whose human scores differ by 25 or
    more; a metric tie counts against), averaged over the segments by docmetrics.stats.Correlation."""
    from .. import stats as mtme

    gold, metric = _cells(data, drop_unscored=False)
    return float(mtme.Correlation(len(data.systems), gold, metric).KendallLike(average_by="item", thresh=25)[0])


def _seg_pearson_micro(data: StatInput) -> float:
    """Pearson's r within each segment (across systems), averaged weighted by each segment's number of scored
    systems (MTME's micro average, ``macro=False``), by docmetrics.stats.AverageCorrelation."""
    import scipy.stats

    from .. import stats as mtme

    gold, metric = _cells(data, drop_unscored=False)
    corr = mtme.Correlation(len(data.systems), gold, metric)
    return float(corr.AverageCorrelation(scipy.stats.pearsonr, "item", macro=False)(gold, metric)[0])


#: mt-metrics-eval's statistics beside docmetrics' own, computed through :mod:`docmetrics.stats` on the oriented
#: scores and compared by PERM-BOTH on the cells of their level; opt-in: asked for by name.
MTME: tuple[Statistic, ...] = (
    _correlation("kendall_c", "system", "system-level Kendall tau-c (MTME KendallVariants 'c')", "tau-c",
                 compute=_kendall_c, opt_in=True, aliases=("tau_c",)),
    _correlation("seg_kendall_c", "segment", "segment-level Kendall tau-c (no grouping)", "seg-tau-c",
                 needs="segment", compute=_seg_kendall("c"), opt_in=True, aliases=("seg-tau-c",)),
    _correlation("seg_kendall_23", "segment", "segment-level Kendall tau_23 (no grouping; Deutsch et al., 2023)",
                 "seg-tau23", needs="segment", compute=_seg_kendall("23"), opt_in=True,
                 aliases=("tau_23", "seg-tau23")),
    _correlation("seg_kendall_like", "segment", "segment-level WMT20 Kendall-like (by segment, threshold 25)",
                 "kendall-like", needs="segment", compute=_seg_kendall_like, opt_in=True,
                 aliases=("kendall_like", "wmt20_kendall")),
    _correlation("seg_pearson_micro", "segment", "segment-level Pearson by segment, micro average (size-weighted)",
                 "pearson-micro", needs="segment", compute=_seg_pearson_micro, opt_in=True,
                 aliases=("pearson_micro",)),
)


def _plugins() -> list[Statistic]:
    """The statistics installed distributions register (entry-point group ``docmetrics.statistics``)."""
    from ..plugin import registry

    out = []
    for name in registry.names("statistic"):
        stat = registry.load("statistic", name)
        if stat.compute is None:
            raise InputError(f"statistic {name!r} (a plugin) has no compute: a plugin statistic brings its own")
        if stat.name in {s.name for s in (*BUILTIN, *MTME)} or stat.level not in ("system", "segment"):
            raise InputError(f"statistic {name!r} (a plugin): its name is taken or its level {stat.level!r} is not "
                             "system or segment")
        if stat.cells != stat.level:
            raise InputError(f"statistic {name!r} (a plugin): permutation cells {stat.cells!r}, but a plugin statistic "
                             f"is compared on the cells of its level ({stat.level!r}): leave cells unset")
        out.append(stat)
    return out


def statistics(level: str | None = None, *, plugins: bool = True, opt_in: bool = False) -> list[Statistic]:
    """Every statistic (docmetrics' own, the opt-in ones of mt-metrics-eval with ``opt_in``, then the plugins'),
    or those of ``level``."""
    found = list(BUILTIN) + (list(MTME) if opt_in else []) + (_plugins() if plugins else [])
    return [s for s in found if level is None or s.level == level]


def get(name: str, *, plugins: bool = True) -> Statistic:
    """The statistic called ``name`` (or one of its aliases); an InputError naming every name there is."""
    found = statistics(plugins=plugins, opt_in=True)
    for s in found:
        if name == s.name or name in s.aliases:
            return s
    raise InputError(f"unknown statistic {name!r}; one of {', '.join(s.name for s in found)}")


def names(level: str | None = None, *, main: bool | None = None, needs: str | None = None,
          plugins: bool = True, opt_in: bool = False) -> tuple[str, ...]:
    """The names of the statistics of ``level`` (all levels: None), main or not, needing ``needs`` (``opt_in``:
    the opt-in ones too)."""
    return tuple(s.name for s in statistics(level, plugins=plugins, opt_in=opt_in)
                 if (main is None or s.main == main) and (needs is None or s.needs == needs))


def stat_range(name: str) -> tuple[float, float]:
    """(lowest, highest) of a statistic: what an average maps to [0, 1]."""
    s = get(name)
    return s.low, s.high
