"""The overall ranking of metrics over several language pairs, as the WMT23 and WMT24 metrics tasks
report it, or over any statistics of the registry (:func:`wmt_average`, from the per-language-pair
:class:`~docmetrics.judging.metaevaluation.MetaEvaluation`).

Nothing here parses arguments or prints; every object has ``to_dict()`` (JSON-ready: NaN -> None); an average's
``to_text()`` is what ``docmetrics metaeval`` prints of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence, Union

from .. import stats
from ..values.errors import InputError
from ..values.units import as_score
from . import statistics as registry  # the statistics as named values
from .comparisons import Comparison
from .labels import namer
from .metaevaluation import MetaEvaluation
from .text import num, table

__all__ = ["SCHEMES", "PER_LP", "AVERAGE_TITLES", "AverageTask", "WmtAverage", "average_statistics",
           "wmt_average"]

SCHEMES = ("wmt23", "wmt24")
#: the statistics of every language pair in MTME's task sets (WMT23 adds the pooled pairwise accuracy)
PER_LP = {"wmt23": ("pearson", "seg_pearson", "seg_acc_eq"), "wmt24": ("spa", "seg_acc_eq")}
#: the titles of the WMT schemes' averages (another average is titled by its statistics' registry titles)
AVERAGE_TITLES = {
    "wmt24": "WMT24 average: SPA and acc_eq of every language pair, equal weights",
    "wmt23": "WMT23 average: pairwise accuracy pooled over the language pairs (weight: their number), then "
             "Pearson, seg-Pearson and acc_eq of every language pair (weight 1 each)",
}
#: a WMT scheme's name, or the statistics (names or aliases) averaged over every language pair
Scheme = Union[str, Sequence[str]]


@dataclass
class AverageTask:
    """One task of an average: a statistic on a language pair (or pooled over all), its weight."""

    name: str
    lp: str
    statistic: str
    weight: float
    low: float
    high: float

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "lp": self.lp, "statistic": self.statistic, "weight": self.weight,
                "range": [self.low, self.high]}


@dataclass
class WmtAverage:
    """The overall ranking over language pairs (``scheme``: ``wmt23``, ``wmt24``, or the averaged
    statistics' names joined by commas)."""

    scheme: str
    tasks: list[AverageTask]
    ranking: list[stats.RankedMetric]
    task_values: list[dict[str, float | None]]
    excluded: dict[str, str]
    pvalues: dict[tuple[str, str], float]
    n_resamples: int
    seed: int | None
    alpha: float
    note: str | None = None

    @property
    def statistics(self) -> tuple[str, ...]:
        """The statistics averaged, in the order of the tasks (``global_accuracy``: WMT23's pooled one)."""
        return tuple(dict.fromkeys(t.statistic for t in self.tasks))

    @property
    def title(self) -> str:
        """What the average is of, in words: the WMT scheme's title, or the registry's titles of its statistics."""
        if self.scheme in AVERAGE_TITLES:
            return AVERAGE_TITLES[self.scheme]
        titles = [registry.get(n).title for n in self.statistics]
        return f"Average of {'; '.join(titles)} of every language pair, equal weights"

    def to_text(self, width: int = 4, labels: dict[str, int] | None = None) -> str:
        """The overall ranking as ``docmetrics metaeval`` prints it: the title, then a row per metric (its cluster,
        ``LABEL [k]`` by ``labels``, spec -> k; the average and every task's value, ``width`` decimals), the
        weights, how the clusters were formed and the metrics not averaged."""
        name = namer(labels or {})
        headers = ["Rank", "Metric", "average"] + [t.name for t in self.tasks]
        rows = []
        for r in self.ranking:
            values = [num(tv.get(r.metric), width) if tv.get(r.metric) is not None else "-" for tv in self.task_values]
            rows.append([str(r.rank) if r.rank is not None else "-", name(r.metric), num(r.value, width)] + values)
        text = f"{self.title}\n" + table(headers, rows, align="rl" + "r" * (len(headers) - 2))
        notes = [f"weights: {', '.join(f'{t.name} {t.weight:.3g}' for t in self.tasks)}; statistics mapped to [0, 1] "
                 "from their range (correlations from [-1, 1])."]
        if self.note:
            notes.append(f"Rank: none ({self.note}).")
        else:
            notes.append(f"Rank: significance cluster on the average (PERM-BOTH, {self.n_resamples} resamples, "
                         f"seed {self.seed}, alpha {self.alpha}).")
        notes += [f"{name(m)} not averaged: {why}" for m, why in self.excluded.items()]
        return text + "\n".join(notes) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "scheme": self.scheme,
            "tasks": [t.to_dict() for t in self.tasks],
            "ranking": [r.to_dict() for r in self.ranking],
            "task_values": [{k: as_score(v) for k, v in tv.items()} for tv in self.task_values],
            "excluded": self.excluded,
            "pvalues": [{"better": a, "worse": b, "p_value": p} for (a, b), p in self.pvalues.items()],
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "alpha": self.alpha,
            "note": self.note,
        }


def _oriented_null(comp: Comparison | None, a: str, b: str) -> Any:
    if comp is None:
        return None
    if (a, b) in comp.tests:
        return comp.tests[(a, b)].null
    if (b, a) in comp.tests:
        null = comp.tests[(b, a)].null
        return None if null is None else -null  # Williams' test draws no resamples
    return None


def _global_accuracy(evals: Sequence[MetaEvaluation], names: Sequence[str], n_resamples: int, seed: int | None):
    """WMT23's system-level pairwise accuracy pooled over language pairs, and PERM-BOTH over the
    concatenated system scores (pairs within a language pair only)."""
    import numpy as np

    sizes = [len(e.systems) for e in evals]
    bounds = np.cumsum([0, *sizes])
    human = [h for e in evals for h in e.metrics[names[0]].human_scores]

    def pooled(x: np.ndarray) -> float:
        groups = [(list(x[b:e]), human[b:e]) for b, e in zip(bounds[:-1], bounds[1:])]
        return stats.pooled_pairwise_accuracy(groups)[0]

    scores = {m: np.asarray([v for e in evals for v in e.metrics[m].metric_scores]) for m in names}
    values = {m: pooled(x) for m, x in scores.items()}
    order = stats.rank_order(values)
    nulls: dict[tuple[str, str], Any] = {}
    if n_resamples:
        for i, a in enumerate(order):
            for b in order[i + 1 :]:
                nulls[(a, b)] = stats.perm_both(scores[a], scores[b], pooled, n_resamples=n_resamples, seed=seed)
    return values, nulls


def average_statistics(statistics: Sequence[str], *, pdp: bool = True, document: bool = True) -> tuple[str, ...]:
    """The statistics of a custom average (``docmetrics metaeval --average``; :func:`wmt_average`'s ``scheme``) by
    their registry names, checked before anything is scored: an InputError for an unknown name (naming every name
    there is), a statistic named twice or none, one that needs system-level PDP without ``pdp`` (``--pdp``) or
    the document level, or the document level without ``document`` (``--doc-level``).

    >>> docmetrics.judging.average_statistics(["pearson", "seg_acc_eq"])       # doctest: +SKIP
    ('pearson', 'seg_acc_eq')
    """
    found = [registry.get(n) for n in statistics]
    names = tuple(s.name for s in found)  # an alias gives its statistic's name
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"{', '.join(twice)} named twice; name each statistic once")
    if not names:
        raise InputError("no statistic to average")
    for s in found:
        if s.needs == "pdp" and not (pdp or document):
            raise InputError(f"{s.name} ({s.title}) needs --pdp or --doc-level", params=("pdp",))
        if s.needs == "document" and not document:
            raise InputError(f"{s.name} ({s.title}) needs --doc-level", params=("document",))
    return names


def wmt_average(evals: Sequence[MetaEvaluation], scheme: Scheme = "wmt24", alpha: float | None = None) -> WmtAverage:
    """The overall ranking over language pairs, as MTME's ``tasks.WMT23`` / ``tasks.WMT24`` task sets
    and ``TaskSetResults.AverageCorrs`` / ``AverageCorrMatrix`` compute it (the WMT23 and WMT24
    metrics-task findings report this average, not a mean of ranks; WMT22 used ``AverageRanks``,
    see :func:`~docmetrics.stats.tasks.average_ranks`):

    * ``wmt24``: for every language pair, system-level SPA and segment-level acc_eq (grouped by item),
      all tasks weighted equally;
    * ``wmt23``: system-level pairwise accuracy pooled over all language pairs (weight: the number of
      language pairs), then for every language pair system-level Pearson, segment-level Pearson and
      segment-level acc_eq (weight 1 each); weights normalised to sum to 1;
    * a sequence of statistics (names or aliases of the registry, :func:`average_statistics`): each of them on
      every language pair, all tasks weighted equally, as ``wmt24`` (which is ``["spa", "seg_acc_eq"]``);
      the average's ``scheme`` is their names joined by commas.

    Each statistic is mapped to [0, 1] from its range (correlations from [-1, 1]), weighted and
    summed; only metrics with a value in every task are averaged (the others are in ``excluded``).
    Clusters come from PERM-BOTH on the average: each task's null draws of the pair, mapped and
    weighted the same way, summed draw by draw (needs the per-language-pair comparisons, i.e.
    ``evaluate_wmt`` with significance on the averaged statistics; otherwise ranks are None).
    """
    if isinstance(scheme, str):
        if scheme not in SCHEMES:
            raise InputError(f"unknown averaging scheme {scheme!r}; one of {', '.join(SCHEMES)}, or a list of "
                             "statistics")
        label, per_lp = scheme, PER_LP[scheme]
    else:
        per_lp = average_statistics(scheme)
        label = ",".join(per_lp)
    if not evals:
        raise InputError("no language pair to average")
    lps = [e.lp for e in evals]
    if len(set(lps)) != len(lps):
        raise InputError(f"language pairs appear twice: {', '.join(lps)}; give each evaluation a distinct lp")
    n_resamples, seed = evals[0].n_resamples, evals[0].seed
    alpha = evals[0].alpha if alpha is None else alpha
    names = sorted(set.union(*[set(e.metrics) for e in evals]))
    tasks: list[AverageTask] = []
    task_values: list[dict[str, float | None]] = []
    task_nulls: list[Callable[[str, str], Any]] = []

    def add(task: str, lp: str, stat: str, weight: float, values: dict[str, float | None], nulls) -> None:
        # the range mapped to [0, 1] (MTME's TaskResults.range); WMT23's pooled accuracy is no registry statistic
        low_high = (0.0, 1.0) if stat == "global_accuracy" else registry.stat_range(stat)
        tasks.append(AverageTask(task, lp, stat, weight, *low_high))
        task_values.append(values)
        task_nulls.append(nulls)

    if label == "wmt23":
        in_all = [m for m in names if all(m in e.metrics for e in evals)]
        values, tests = _global_accuracy(evals, in_all, n_resamples, seed) if in_all else ({}, {})
        pooled = Comparison("global_accuracy", [], tests, alpha, n_resamples, seed)
        add("global_accuracy", ",".join(lps), "global_accuracy", float(len(evals)), dict(values),
            lambda a, b, c=pooled: _oriented_null(c, a, b))
    for e in evals:
        for stat in per_lp:
            vals = {m: (e.metrics[m].get(stat) if m in e.metrics else None) for m in names}
            comp = e.comparisons.get(stat)
            add(f"{e.lp}:{stat}", e.lp, stat, 1.0, vals, lambda a, b, c=comp: _oriented_null(c, a, b))
    total = sum(t.weight for t in tasks)
    for t in tasks:
        t.weight /= total
    weights = [t.weight for t in tasks]
    ranges = [(t.low, t.high) for t in tasks]
    avg = stats.weighted_average(task_values, weights, ranges)
    excluded = {}
    for m in names:
        if m not in avg:
            missing = [t.name for t, tv in zip(tasks, task_values) if tv.get(m) is None]
            excluded[m] = f"no value in {', '.join(missing)}"
    order = list(avg)
    pvalues: dict[tuple[str, str], float] = {}
    note = None
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            nulls = [get(a, b) for get in task_nulls]
            if any(n is None for n in nulls):
                note = ("no test on the average: Williams' test has no resamples to average (use PERM-BOTH)"
                        if any(c.metric_test == "williams" for e in evals for c in e.comparisons.values()) else
                        "no test on the average: evaluate_wmt needs significance on every averaged statistic")
                break
            pvalues[(a, b)] = stats.combined_pvalue(avg[a] - avg[b], nulls, weights, ranges)
        if note:
            break
    ranking = stats.significance_clusters(avg, None if note else pvalues, alpha)
    return WmtAverage(label, tasks, ranking, task_values, excluded, {} if note else pvalues, n_resamples, seed,
                      alpha, note)
