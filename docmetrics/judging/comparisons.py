"""Comparing metrics on one statistic as the WMT metrics tasks do: PERM-BOTH between every pair of
metrics (:func:`~docmetrics.stats.permutation.perm_both`, the pair-outcome variant for ``seg_acc_eq``)
and the significance clusters of MTME's ``AssignRanks``.  What is swapped is the statistic's permutation
cells, as the registry declares them (:data:`docmetrics.judging.statistics.CELLS`): a plugin statistic
is swapped on the cells of its level and recomputed by its own ``compute`` on every resample.  Used by
:func:`docmetrics.judging.evaluate.evaluate_wmt`; the averages over language pairs read the null draws
it keeps."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .. import stats
from ..stats.base import to_matrix
from ..stats.pce import common_items
from ..stats.vector import kendall, pairwise_accuracy, pearson, spearman
from . import statistics as registry  # the statistics as named values
from .aligned import Aligned, Score
from .doc_level import doc_cells

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Comparison", "compare", "METRIC_TESTS", "WILLIAMS_STATISTICS", "SYSTEM_STATISTICS"]

#: The tests between two metrics: PERM-BOTH (every statistic), or Williams' test of two dependent correlations
#: (WMT17-20; Pearson's r only: the other statistics keep PERM-BOTH).
METRIC_TESTS = ("perm-both", "williams")
#: the statistics Williams' test compares (Pearson's r over the system or the (system, segment) scores)
WILLIAMS_STATISTICS = ("pearson", "seg_pearson")


@dataclass
class Comparison:
    """One statistic compared across metrics: the ranking with WMT clusters and the PERM-BOTH
    p-value of every pair (``(a, b)``: a ranked above b; p of "a is better than b")."""

    statistic: str
    ranking: list[stats.RankedMetric]
    tests: dict[tuple[str, str], stats.PermResult]
    alpha: float
    n_resamples: int
    seed: int | None
    skipped: dict[str, str] = field(default_factory=dict)
    #: the test between metrics: "perm-both" or "williams" (see :data:`METRIC_TESTS`)
    metric_test: str = "perm-both"

    def pvalue(self, a: str, b: str) -> float:
        return self.tests[(a, b)].p_value

    def to_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "ranking": [r.to_dict() for r in self.ranking],
            "pvalues": [{"better": a, "worse": b, **t.to_dict()} for (a, b), t in self.tests.items()],
            "alpha": self.alpha,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "skipped": self.skipped,
            **({"test": self.metric_test} if self.metric_test != "perm-both" else {}),
        }


class ItemsDiffer(ValueError):
    """SPA's PERM-BOTH swaps item scores between two metrics, so both must score the same items; these two
    do not (:meth:`explain` says what each scores)."""

    def __init__(self, a: Aligned, b: Aligned) -> None:
        super().__init__("the two metrics score different items")
        self.a, self.b = a, b

    def explain(self, name_a: str, name_b: str) -> str:
        what_a, what_b = items_text(self.a), items_text(self.b)
        if what_a == what_b:
            return (f"{name_a} and {name_b} both score {what_a}, but not the same spans of segments; SPA's "
                    "significance test swaps item scores between two metrics and needs the same items")
        return (f"{name_a} scores {what_a}, {name_b} scores {what_b}; SPA's significance test swaps item "
                "scores between two metrics and needs the same items")


def items_text(x: Aligned) -> str:
    """What a metric's SPA items are, in words: segments, units of a span of segments (windows,
    documents), or none."""
    if x.items is None:
        return "no item a system shares with every other (no SPA item)"
    if x.item_kind == "segment":
        return f"{len(x.item_keys)} segments"
    spans = sorted({end - start for start, end in x.item_keys})
    size = f"{spans[0]}" if len(spans) == 1 else f"{spans[0]} to {spans[-1]}"
    return f"{len(x.item_keys)} units of {size} segment{'s' if spans[-1] > 1 else ''} each"


def _plugin_value(statistic: registry.Statistic, data: registry.StatInput) -> float:
    """A plugin statistic on one side of a resample; NaN (counted as 0 by PERM-BOTH) where it is undefined,
    as the metric's own value is None then."""
    try:
        value = statistic.compute(data)  # type: ignore[misc]
    except (ValueError, ZeroDivisionError):
        return math.nan
    return math.nan if value is None else float(value)


def _segment_cells(a: Aligned, b: Aligned, order: Sequence[str], human_seg: Mapping[str, Sequence[Score]] | None):
    """The (system, segment) cells both metrics and the humans score: the two metrics' scores there, the
    humans', and where each cell is (system, segment index)."""
    if human_seg is None:
        raise ValueError("no segment-level human scores")
    if a.seg is None or b.seg is None:
        raise ValueError("a metric's units span several segments: no segment-level scores to swap")
    xa, xb, hh, where = [], [], [], []
    for s in order:
        for i, (va, vb, vh) in enumerate(zip(a.seg[s], b.seg[s], human_seg[s])):
            if va is not None and vb is not None and vh is not None:
                xa.append(va)
                xb.append(vb)
                hh.append(vh)
                where.append((s, i))
    return xa, xb, hh, where


#: docmetrics' own statistics of the system scores (metric, humans): what the meta-evaluation computes and
#: PERM-BOTH recomputes on every resampled vector
SYSTEM_STATISTICS: dict[str, Callable[[Sequence[float], Sequence[float]], float]] = {
    "pearson": pearson, "spearman": spearman, "kendall": kendall,
    "accuracy": lambda x, y: pairwise_accuracy(x, y)[0],
}


def _cells(
    statistic: registry.Statistic,
    a: Aligned,
    b: Aligned,
    order: Sequence[str],
    human_sys: Sequence[float],
    human_seg: Mapping[str, Sequence[Score]] | None,
    n_permutations: int,
    spa_seed: int,
) -> tuple[np.ndarray, np.ndarray, Callable[[np.ndarray], float]]:
    """The cells both metrics score (``statistic.cells``) and the statistic over a cell vector (for
    perm_both): docmetrics' own recomputation, or a plugin statistic's ``compute`` on a StatInput holding
    the resampled vector where the metric's scores were."""
    import numpy as np

    stat, kind = statistic.name, statistic.cells
    if kind == "system":
        h = list(human_sys)
        if statistic.compute is not None:
            return np.asarray(a.sys), np.asarray(b.sys), lambda x: _plugin_value(
                statistic, registry.StatInput(list(order), x.tolist(), h, None, human_seg))
        if stat == "pdp":
            hrow = [h]
            return np.asarray(a.sys), np.asarray(b.sys), lambda x: stats.pdp(hrow, [x])
        fn = SYSTEM_STATISTICS[stat]
        return np.asarray(a.sys), np.asarray(b.sys), lambda x: float(fn(list(x), h))
    if kind == "segment":
        xa, xb, hh, where = _segment_cells(a, b, order, human_seg)
        if statistic.compute is not None:
            n = len(human_seg[order[0]])  # type: ignore[index]

            def rebuilt(x: np.ndarray) -> float:
                seg: dict[str, list[Score]] = {s: [None] * n for s in order}
                for (s, i), v in zip(where, x.tolist()):
                    seg[s][i] = v
                means = [math.fsum(c) / len(c) if (c := [v for v in seg[s] if v is not None]) else math.nan
                         for s in order]
                return _plugin_value(statistic, registry.StatInput(list(order), means, list(human_sys), seg, human_seg))

            return np.asarray(xa), np.asarray(xb), rebuilt
        if stat in ("seg_pearson", "seg_kendall"):
            pooled, harr = pearson if stat == "seg_pearson" else kendall, np.asarray(hh, dtype=float)
            return np.asarray(xa), np.asarray(xb), lambda x: pooled(x, harr)
    if kind == "item":
        assert human_seg is not None
        return _spa_cells(a, b, order, human_seg, n_permutations, spa_seed)
    raise ValueError(f"no PERM-BOTH test for {stat}")


def _spa_cells(
    a: Aligned, b: Aligned, order: Sequence[str], human_seg: Mapping[str, Sequence[Score]], n_permutations: int,
    spa_seed: int,
) -> tuple[np.ndarray, np.ndarray, Callable[[np.ndarray], float]]:
    """SPA's items both metrics score for every system, and SPA over an item vector (the humans' p-values
    fixed, the metric's recomputed with the same sign vectors)."""

    if a.items is None or b.items is None or a.item_keys != b.item_keys or a.item_kind != b.item_kind:
        raise ItemsDiffer(a, b)
    hm, ma, mb = (to_matrix(x, order, "scores") for x in (human_seg, a.items, b.items))
    hm, ma, mb = common_items(hm, ma, mb, same_items=a.item_kind == "segment" and hm.shape[1] == ma.shape[1])
    return ma.ravel(), mb.ravel(), stats.spa_statistic(hm, ma.shape, n_permutations, spa_seed)


def williams(a: Sequence[float], b: Sequence[float], human: Sequence[float]) -> stats.PermResult:
    """Williams' test that metric a correlates better with ``human`` than metric b (Pearson's r; one-sided, n - 3
    degrees of freedom: :func:`docmetrics.stats.WilliamsTest`), as a result beside PERM-BOTH's (no resamples)."""
    from ..stats import WilliamsTest

    r_a, r_b, r_ab = pearson(a, human), pearson(b, human), pearson(a, b)
    if any(math.isnan(r) for r in (r_a, r_b, r_ab)):
        raise ValueError("Williams' test needs defined correlations (a metric or the humans are constant)")
    if len(human) <= 3:
        raise ValueError(f"Williams' test needs more than 3 scores, got {len(human)}")
    p = WilliamsTest(r_a, r_b, r_ab, len(human))
    return stats.PermResult(p, r_a - r_b, 0, None, None, {"test": "williams", "r_ab": r_ab, "n": len(human)})


def _williams_cells(stat: str, a: Aligned, b: Aligned, order: Sequence[str], human_sys: Sequence[float],
                    human_seg: Mapping[str, Sequence[Score]] | None) -> tuple[list[float], list[float], list[float]]:
    if stat == "pearson":
        return list(a.sys), list(b.sys), list(human_sys)
    xa, xb, hh, _ = _segment_cells(a, b, order, human_seg)
    return xa, xb, hh


def compare(
    stat: str,
    values: Mapping[str, float],
    skipped: Mapping[str, str],
    aligned: Mapping[str, Aligned],
    epsilons: Mapping[str, float | None],
    order: Sequence[str],
    human_sys: Sequence[float],
    human_seg: Mapping[str, Sequence[Score]] | None,
    *,
    n_resamples: int,
    seed: int | None,
    n_permutations: int,
    spa_seed: int,
    alpha: float,
    doc_scores: Mapping[str, Mapping[str, Sequence[Score]]] | None = None,
    doc_gold: Mapping[str, Sequence[Score]] | None = None,
    metric_test: str = "perm-both",
) -> Comparison:
    """``stat`` of the metrics in ``values`` compared by PERM-BOTH between every pair (``aligned``: each
    metric's scores; ``epsilons``: each metric's acc_eq epsilon, kept over the resamples), and the metrics
    ranked in WMT's clusters; ``skipped``: the metrics without the statistic and why.  A pair that cannot
    be tested (two metrics scoring different items) is named in ``skipped`` and the ranking has no
    clusters.  The document-level statistics read ``doc_scores`` (metric -> system -> per-document
    scores) and ``doc_gold`` (system -> per-document human scores).  ``metric_test="williams"``: Williams' test
    instead of PERM-BOTH for the statistics of :data:`WILLIAMS_STATISTICS` (the others keep PERM-BOTH)."""
    if metric_test not in METRIC_TESTS:
        raise ValueError(f"metric_test={metric_test!r}: one of {', '.join(METRIC_TESTS)}")
    statistic = registry.get(stat)
    use_williams = metric_test == "williams" and stat in WILLIAMS_STATISTICS
    skipped = dict(skipped)
    ranked = stats.rank_order(values)
    tests: dict[tuple[str, str], stats.PermResult] = {}
    failed: dict[str, str] = {}
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            try:
                if use_williams:
                    tests[(a, b)] = williams(*_williams_cells(stat, aligned[a], aligned[b], order, human_sys,
                                                              human_seg))
                    continue
                document = statistic.cells.startswith("document")
                if document and (doc_scores is None or doc_gold is None):
                    raise ValueError("no document level")
                if statistic.cells.endswith("pair"):  # acc_eq: pair outcomes swapped, each metric its epsilon
                    ma, mb, gold = ((doc_scores[a], doc_scores[b], doc_gold) if document  # type: ignore[index]
                                    else (aligned[a].seg, aligned[b].seg, human_seg))
                    tests[(a, b)] = stats.perm_both_acc_eq(
                        ma, mb, gold, epsilon_a=epsilons[a], epsilon_b=epsilons[b], systems=order,  # type: ignore[arg-type]
                        n_resamples=n_resamples, seed=seed)
                    continue
                xa, xb, fn = (doc_cells(stat, doc_scores[a], doc_scores[b], doc_gold, order,  # type: ignore[index,arg-type]
                                        n_permutations, spa_seed) if document
                              else _cells(statistic, aligned[a], aligned[b], order, human_sys, human_seg,
                                          n_permutations, spa_seed))
                tests[(a, b)] = stats.perm_both(xa, xb, fn, n_resamples=n_resamples, seed=seed)
            except ItemsDiffer as exc:
                failed[f"{a} vs {b}"] = f"no significance test: {exc.explain(a, b)}"
            except ValueError as exc:
                failed[f"{a} vs {b}"] = f"no significance test: {exc}"
    if failed or len(ranked) < 2:
        ranking = stats.significance_clusters(values, None, alpha)
        skipped.update(failed)
    else:
        ranking = stats.significance_clusters(values, {k: t.p_value for k, t in tests.items()}, alpha)
    return Comparison(stat, ranking, tests, alpha, 0 if use_williams else n_resamples, None if use_williams else seed,
                      skipped, "williams" if use_williams else "perm-both")
