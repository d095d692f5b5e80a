"""Clusters of AutoRank by a paired bootstrap over documents.

WMT25 defines no significance test for AutoRank (its preliminary ranking prints AutoRank alone); this
is docmetrics' own, built on the document resampling of :mod:`docmetrics.judging.paired`:

1. ``n`` resamples of the D documents, D drawn with replacement each time
   (:func:`~docmetrics.judging.paired.bootstrap_indices`, ``numpy.random.default_rng(seed)``),
   the same resamples for every system and every metric (paired);
2. in each resample every metric's system score is recomputed from its documents as
   :func:`~docmetrics.judging.ranking.rank_results` reads it: the mean over the scored segments of the
   drawn documents (a metric with segment scores), or the metric's declared aggregation of the drawn
   documents' units (one whose units span several segments; :func:`~docmetrics.judging.paired.
   doc_stats`); then AutoRank is recomputed over all systems (robust scaling, equal-weight mean, 1..N);
3. systems are taken in the observed AutoRank order (best first); between adjacent systems A (above) and
   B (below) a cluster boundary is drawn where the share of resamples in which A does NOT rank strictly
   better than B (ties and reversals) is below ``alpha`` (0.05): a one-sided bootstrap p-value.  Only
   adjacent systems are tested; systems tied in AutoRank are never split.

A resample in which some system has no scored segment of some metric has no AutoRank; it counts as one
in which the upper system is not better (so it can only merge clusters), and their number is reported.
Nothing here prints.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from ..values.errors import InputError
from ..values.result import Result
from .paired import ALPHA, bootstrap_indices, doc_order, doc_stats, groups_of, resampled_scores
from .ranking import EPS, AutoRank, by_segments, linear_ranks, robust_scale

__all__ = ["TEST", "document_sums", "resampled_system_scores", "resampled_autoranks", "bootstrap_clusters"]

TEST = "paired bootstrap over documents (docmetrics' own; WMT25 defines none)"


def document_sums(results: Sequence[Result], doc_ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """A metric with segment scores: per system and document, the sum of its finite unit scores and
    their number, arrays of shape (systems, documents)."""
    pos = {d: k for k, d in enumerate(doc_ids)}
    num = np.zeros((len(results), len(doc_ids)))
    den = np.zeros((len(results), len(doc_ids)))
    for i, r in enumerate(results):
        for u in r.units:
            if math.isfinite(u.score):
                num[i, pos[u.doc_id]] += u.score
                den[i, pos[u.doc_id]] += 1
    return num, den


def resampled_system_scores(results: Sequence[Result], doc_ids: Sequence[str], idx: np.ndarray) -> np.ndarray:
    """Each system's score in each resample (rows of ``idx``, document positions in ``doc_ids``), as
    AutoRank reads it: shape (resamples, systems); NaN where a system has no scored segment."""
    if by_segments(results):
        num, den = document_sums(results, doc_ids)
        counts = np.zeros((len(idx), len(doc_ids)))  # how often each resample drew each document
        np.add.at(counts, (np.arange(len(idx))[:, None], idx), 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (counts @ num.T) / (counts @ den.T)
    if any(not r.units for r in results):
        raise InputError(f"{results[0].metric}: its scores have no units in documents (document- or system-level "
                         "stored scores), so AutoRank cannot be resampled by documents; give segment-level scores")
    groups = groups_of(results)  # doc_stats checks that each one's aggregation rebuilds its score
    return np.stack([resampled_scores(doc_stats(r, doc_ids, groups), idx) for r in results], axis=1)


def resampled_autoranks(x: np.ndarray, higher: Sequence[bool], eps: float = EPS) -> np.ndarray:
    """AutoRank in each resample: ``x`` of shape (metrics, resamples, systems) holds system scores in
    each metric's own direction (``higher``); rows with a NaN give NaN.  Shape (resamples, systems)."""
    sign = np.where(np.asarray(higher, dtype=bool), 1.0, -1.0)[:, None, None]
    return linear_ranks(robust_scale(x * sign, eps).mean(axis=0))


def bootstrap_clusters(ranking: AutoRank, metrics: Mapping[str, Sequence[Result]], *, n: int, seed: int | None,
                       alpha: float = ALPHA) -> dict[str, Any]:
    """The clusters of ``ranking`` (AutoRank of ``metrics`` by :func:`~.ranking.rank_results`) by the
    paired bootstrap of the module docstring; sets each system's ``cluster`` and ``ranking.significance``, how
    they were drawn (returned): the test, resamples, seed, alpha, documents, undefined resamples, the rule and
    per pair of adjacent systems (``boundaries``) the share of resamples in which the upper one ranks strictly
    better, the one-sided p-value (1 - that share) and whether a cluster ends between them."""
    names = list(ranking.metrics)
    systems = [r.system for r in metrics[names[0]]]
    doc_ids = doc_order([r for m in names for r in metrics[m]])
    if not doc_ids:
        raise InputError(f"{ranking.lp or 'the scores'}: no document has a score of every metric ranked; give the "
                         "scores (a metric whose cells are all empty cannot be ranked)")
    if len(doc_ids) < 2:
        raise InputError(f"{ranking.lp or 'the scores'}: {len(doc_ids)} document with scores; resampling documents "
                         "needs two or more (give the doc ids: --doc-ids, or scores files that name documents)")
    idx = bootstrap_indices(len(doc_ids), n, seed)
    x = np.stack([resampled_system_scores(list(metrics[m]), doc_ids, idx) for m in names])
    ranks = resampled_autoranks(x, [ranking.higher_is_better[m] for m in names], ranking.eps)
    undefined = int(np.isnan(ranks).any(axis=-1).sum())
    col = {s: k for k, s in enumerate(systems)}
    order = [r.system for r in ranking.systems]
    boundaries = []
    cluster = 1
    clusters = {order[0]: 1}
    for upper, lower in zip(order, order[1:]):
        better = float(np.mean(ranks[:, col[upper]] < ranks[:, col[lower]]))  # NaN compares False
        split = 1.0 - better < alpha
        boundaries.append({"upper": upper, "lower": lower, "share_better": better, "p_value": 1.0 - better,
                           "split": split})
        cluster += split
        clusters[lower] = cluster
    if undefined:
        ranking.notes.append(f"{undefined} of {n} resamples left some system without any scored segment of a metric: "
                             "no AutoRank, counted as not better")
    for r in ranking.systems:
        r.cluster = clusters[r.system]
    ranking.significance = {
        "test": TEST, "resamples": n, "seed": seed, "alpha": alpha, "documents": len(doc_ids),
        "undefined_resamples": undefined,
        "rule": "a boundary between adjacent systems where the share of resamples in which the upper one does not "
                "rank strictly better is below alpha",
        "boundaries": boundaries}
    return ranking.significance
