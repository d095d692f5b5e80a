"""Comparing metrics on one statistic as the WMT metrics tasks do: PERM-BOTH between every pair of
metrics (:func:`~docmetrics.algorithms.wmt_stats.perm_both`, the pair-outcome variant for ``seg_acc_eq``)
and the significance clusters of MTME's ``AssignRanks``.  Used by :func:`docmetrics.evaluation.metaeval.
evaluate_wmt`; the averages over language pairs read the null draws it keeps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ..algorithms import wmt_stats as ws
from ..algorithms.correlation import kendall, pairwise_accuracy, pearson, spearman
from .aligned import Aligned, Score
from .doc_level import doc_cells

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Comparison", "compare"]


@dataclass
class Comparison:
    """One statistic compared across metrics: the ranking with WMT clusters and the PERM-BOTH
    p-value of every pair (``(a, b)``: a ranked above b; p of "a is better than b")."""

    statistic: str
    ranking: list[ws.RankedMetric]
    tests: dict[tuple[str, str], ws.PermResult]
    alpha: float
    n_resamples: int
    seed: int | None
    skipped: dict[str, str] = field(default_factory=dict)

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


def _cells(
    stat: str,
    a: Aligned,
    b: Aligned,
    order: Sequence[str],
    human_sys: Sequence[float],
    human_seg: Mapping[str, Sequence[Score]] | None,
    n_permutations: int,
    spa_seed: int,
) -> tuple[np.ndarray, np.ndarray, Callable[[np.ndarray], float]]:
    """The cells both metrics score and the statistic over a cell vector (for perm_both)."""
    import numpy as np

    if stat == "pdp":
        hrow = [list(human_sys)]
        return np.asarray(a.sys), np.asarray(b.sys), lambda x: ws.pdp(hrow, [x])
    if stat in ("pearson", "spearman", "kendall", "accuracy", "accuracy_mtme"):
        h = list(human_sys)
        fn: Callable[[list[float], list[float]], Any] = {
            "pearson": pearson, "spearman": spearman, "kendall": kendall,
            "accuracy": lambda x, y: pairwise_accuracy(x, y)[0],
            "accuracy_mtme": lambda x, y: pairwise_accuracy(x, y)[0],
        }[stat]
        return np.asarray(a.sys), np.asarray(b.sys), lambda x: float(fn(list(x), h))
    assert human_seg is not None
    if stat in ("seg_pearson", "seg_kendall"):
        if a.seg is None or b.seg is None:
            raise ValueError("a metric's units span several segments: no segment-level scores to swap")
        xa, xb, hh = [], [], []
        for s in order:
            for va, vb, vh in zip(a.seg[s], b.seg[s], human_seg[s]):
                if va is not None and vb is not None and vh is not None:
                    xa.append(va)
                    xb.append(vb)
                    hh.append(vh)
        harr = np.asarray(hh, dtype=float)
        if stat == "seg_pearson":
            return np.asarray(xa), np.asarray(xb), lambda x: pearson(x, harr)
        return np.asarray(xa), np.asarray(xb), lambda x: kendall(list(x), hh)
    if stat == "spa":
        if a.items is None or b.items is None or a.item_keys != b.item_keys or a.item_kind != b.item_kind:
            raise ItemsDiffer(a, b)
        hm = np.array([[np.nan if v is None else v for v in human_seg[s]] for s in order], dtype=float)
        ma = np.array([[np.nan if v is None else v for v in a.items[s]] for s in order], dtype=float)
        mb = np.array([[np.nan if v is None else v for v in b.items[s]] for s in order], dtype=float)
        keep_m = ~np.isnan(ma).any(axis=0) & ~np.isnan(mb).any(axis=0)
        keep_h = ~np.isnan(hm).any(axis=0)
        if a.item_kind == "segment" and hm.shape[1] == ma.shape[1]:
            keep_h = keep_m = keep_h & keep_m
        hm, ma, mb = hm[:, keep_h], ma[:, keep_m], mb[:, keep_m]
        if hm.shape[1] == 0 or ma.shape[1] == 0:
            raise ValueError("no item is scored for every system")
        human_p = ws.perm_test_pvalues(
            {s: list(row) for s, row in zip(order, hm)}, systems=order, n_permutations=n_permutations, seed=spa_seed
        )
        hp = np.asarray(list(human_p.pvalues.values()))
        signs = ws.sign_vectors(ma.shape[1], n_permutations, spa_seed)
        shape = ma.shape

        def spa_of(x: np.ndarray) -> float:
            mat = x.reshape(shape)
            pm = ws.upper_pvalues(mat, signs)
            return float(1.0 - np.abs(hp - pm).mean())

        return ma.ravel(), mb.ravel(), spa_of
    raise ValueError(f"no PERM-BOTH test for {stat}")


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
) -> Comparison:
    """``stat`` of the metrics in ``values`` compared by PERM-BOTH between every pair (``aligned``: each
    metric's scores; ``epsilons``: each metric's acc_eq epsilon, kept over the resamples), and the metrics
    ranked in WMT's clusters; ``skipped``: the metrics without the statistic and why.  A pair that cannot
    be tested (two metrics scoring different items) is named in ``skipped`` and the ranking has no
    clusters.  The document-level statistics read ``doc_scores`` (metric -> system -> per-document
    scores) and ``doc_gold`` (system -> per-document human scores)."""
    skipped = dict(skipped)
    ranked = ws.rank_order(values)
    tests: dict[tuple[str, str], ws.PermResult] = {}
    failed: dict[str, str] = {}
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            try:
                if stat.startswith("doc_"):
                    if doc_scores is None or doc_gold is None:
                        raise ValueError("no document level")
                    if stat == "doc_acc_eq":
                        tests[(a, b)] = ws.perm_both_acc_eq(
                            doc_scores[a], doc_scores[b], doc_gold, group_by_item=True,
                            epsilon_a=epsilons[a], epsilon_b=epsilons[b], systems=order,
                            n_resamples=n_resamples, seed=seed,
                        )
                    else:
                        xa, xb, fn = doc_cells(stat, doc_scores[a], doc_scores[b], doc_gold, order, n_permutations,
                                               spa_seed)
                        tests[(a, b)] = ws.perm_both(xa, xb, fn, n_resamples=n_resamples, seed=seed)
                elif stat == "seg_acc_eq":
                    assert human_seg is not None and aligned[a].seg is not None and aligned[b].seg is not None
                    tests[(a, b)] = ws.perm_both_acc_eq(
                        aligned[a].seg, aligned[b].seg, human_seg, group_by_item=True,  # type: ignore[arg-type]
                        epsilon_a=epsilons[a], epsilon_b=epsilons[b], systems=order,
                        n_resamples=n_resamples, seed=seed,
                    )
                else:
                    xa, xb, fn = _cells(stat, aligned[a], aligned[b], order, human_sys, human_seg, n_permutations,
                                        spa_seed)
                    tests[(a, b)] = ws.perm_both(xa, xb, fn, n_resamples=n_resamples, seed=seed)
            except ItemsDiffer as exc:
                failed[f"{a} vs {b}"] = f"no significance test: {exc.explain(a, b)}"
            except ValueError as exc:
                failed[f"{a} vs {b}"] = f"no significance test: {exc}"
    if failed or len(ranked) < 2:
        ranking = ws.significance_clusters(values, None, alpha)
        skipped.update(failed)
    else:
        ranking = ws.significance_clusters(values, {k: t.p_value for k, t in tests.items()}, alpha)
    return Comparison(stat, ranking, tests, alpha, n_resamples, seed, skipped)
