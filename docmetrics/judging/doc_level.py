"""Document-level meta-evaluation: does a metric rank the systems' translations of each document as
the humans do?  Used by :func:`docmetrics.judging.evaluate.evaluate_wmt` when asked for
(``doc_rule``; ``--doc-level`` on the command line).

* gold per (system, document): the document-level human scores where the test set has them (MTME's
  ``LP.doc.score`` files), otherwise derived from the segment-level human scores by a rule recorded
  in the output: ``mean`` of the document's judged segments (default) or ``sum`` (MQM-style
  penalties over a document).  A document no system has a judged segment of is left out and
  counted; one judged for some systems only is an error.
* metric scores per (system, document): each Result's ``docs``.
* statistics (:data:`DOC_STATISTICS`): ``doc_acc_eq`` (acc_eq with tie calibration, grouped by
  document: each document an item comparing the systems; its epsilon reported), ``doc_pearson`` and
  ``doc_kendall`` (tau-b) over all (system, document) pairs, ``doc_pearson_item`` and
  ``doc_kendall_item`` grouped by document (MTME's ``average_by='item'``: the mean of the
  per-document correlations), ``doc_spa`` (SPA with the documents as the items of the permutation
  test) and ``doc_pdp`` (Pairwise Difference Pearson over the systems' differences within each
  document, MTME's ``Pearson(average_by='item', pdp=True)``).
* PERM-BOTH (:func:`doc_cells`): the cells are the (system, document) pairs both metrics and the
  humans score (the documents every system has, for ``doc_spa``); ``doc_acc_eq`` swaps pair outcomes.

Nothing here parses arguments or prints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence

from .. import stats
from ..stats.base import EPSILON_RULE, ITEM_RULE
from ..stats.pce import common_items
from ..stats.vector import kendall, pearson
from ..values.errors import InputError
from ..values.result import Result
from ..values.units import as_score

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DOC_RULES", "DOC_STATISTICS", "DocGold", "DocEval", "doc_gold", "doc_eval", "doc_matrix", "doc_cells"]

DOC_RULES = ("mean", "sum")
DOC_STATISTICS = (
    "doc_acc_eq", "doc_pearson", "doc_kendall", "doc_pearson_item", "doc_kendall_item", "doc_spa", "doc_pdp",
)
Score = Optional[float]


@dataclass
class DocGold:
    """Human scores per (system, document): ``scores[system][k]`` for document ``docs[k]`` (None where
    missing); ``source`` says where they come from, ``rule`` how segments made them (None when read)."""

    docs: list[str]
    scores: dict[str, list[Score]]
    source: str
    rule: str | None
    left_out: int = 0


def _spans(doc_ids: Sequence[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, d in enumerate(doc_ids):
        out.setdefault(d, []).append(i)
    return out


def doc_gold(
    order: Sequence[str],
    *,
    doc_ids: Sequence[str] | None,
    human_seg: Mapping[str, Sequence[Score]] | None,
    human_doc: Mapping[str, Sequence[Any]] | None = None,
    doc_names: Sequence[str] | None = None,
    rule: str = "mean",
    human_file: str = "human scores",
) -> DocGold:
    """The gold per (system, document) of the systems ``order``: ``human_doc`` (system -> one score per
    document of ``doc_names``) when given, else from ``human_seg`` (system -> per-segment scores) with
    ``doc_ids`` (the document of each segment) by ``rule``."""
    if rule not in DOC_RULES:
        raise InputError(f"document rule {rule!r}: expected one of {', '.join(DOC_RULES)}")
    if human_doc is not None:
        names = list(doc_names or [])
        missing = [s for s in order if s not in human_doc]
        if missing:
            raise InputError(f"{human_file}: no document-level scores for system {missing[0]!r}")
        scores: dict[str, list[Score]] = {}
        for s in order:
            row = [as_score(v[0] if isinstance(v, (list, tuple)) else v) for v in human_doc[s]]
            if len(row) != len(names):
                raise InputError(
                    f"{human_file}: system {s!r} has {len(row)} document scores, the test set {len(names)} documents"
                )
            scores[s] = row
        return _drop_unjudged(DocGold(names, scores, f"document-level human scores ({human_file})", None), human_file)
    if human_seg is None:
        raise InputError("document-level meta-evaluation needs segment-level or document-level human scores")
    if doc_ids is None:
        raise InputError("document-level meta-evaluation needs the document of every segment (doc ids)")
    spans = _spans(doc_ids)
    scores = {}
    for s in order:
        row_seg = human_seg[s]
        if len(row_seg) != len(doc_ids):
            raise InputError(
                f"{human_file}: system {s!r} has {len(row_seg)} segment scores, the documents cover {len(doc_ids)}"
            )
        row: list[Score] = []
        for idx in spans.values():
            vals = [x for i in idx if (x := as_score(row_seg[i])) is not None]
            if not vals:
                row.append(None)
            else:
                total = math.fsum(vals)
                row.append(total / len(vals) if rule == "mean" else total)
        scores[s] = row
    src = f"{rule} of each document's judged segments ({human_file})"
    return _drop_unjudged(DocGold(list(spans), scores, src, rule), human_file)


def _drop_unjudged(g: DocGold, human_file: str) -> DocGold:
    keep: list[int] = []
    for k, d in enumerate(g.docs):
        have = [s for s, row in g.scores.items() if row[k] is not None]
        if not have:
            continue
        if len(have) != len(g.scores):
            lacking = [s for s in g.scores if g.scores[s][k] is None]
            raise InputError(
                f"{human_file}: document {d!r} has human scores for {len(have)} of {len(g.scores)} systems "
                f"(none for {', '.join(map(repr, lacking[:3]))}{' ...' if len(lacking) > 3 else ''})"
            )
        keep.append(k)
    return DocGold(
        [g.docs[k] for k in keep], {s: [row[k] for k in keep] for s, row in g.scores.items()},
        g.source, g.rule, len(g.docs) - len(keep),
    )


def doc_matrix(results: Sequence[Result], order: Sequence[str], docs: Sequence[str]) -> dict[str, list[Score]]:
    """system -> the metric's score of each document of ``docs`` (None where it has none); ``results``
    parallel to ``order``."""
    out: dict[str, list[Score]] = {}
    for s, r in zip(order, results):
        by_doc = {d.doc_id: as_score(d.score) for d in r.docs}
        out[s] = [by_doc.get(d) for d in docs]
    return out


@dataclass
class DocEval:
    """One metric's document-level statistics (see the module docstring)."""

    gold: str
    rule: str | None
    n_docs: int
    docs_left_out: int
    acc_eq: float | None = None
    epsilon: float | None = None
    acc_eq_items: int | None = None
    acc_eq_pairs: int | None = None
    pearson: float | None = None
    kendall: float | None = None
    n: int = 0
    pearson_item: float | None = None
    kendall_item: float | None = None
    items: int = 0
    spa: float | None = None
    spa_items: int | None = None
    pdp: float | None = None
    note: str | None = None

    def get(self, stat: str) -> float | None:
        return as_score(getattr(self, stat[len("doc_"):]))

    def to_dict(self) -> dict[str, Any]:
        return {
            "gold": self.gold,
            "rule": self.rule,
            "documents": self.n_docs,
            "documents_left_out": self.docs_left_out,
            "acc_eq": as_score(self.acc_eq),
            "epsilon": self.epsilon,
            "epsilon_rule": EPSILON_RULE,
            "acc_eq_items": self.acc_eq_items,
            "acc_eq_pairs": self.acc_eq_pairs,
            "pearson": as_score(self.pearson),
            "kendall": as_score(self.kendall),
            "n": self.n,
            "pearson_item": as_score(self.pearson_item),
            "kendall_item": as_score(self.kendall_item),
            "items": self.items,
            "item_rule": ITEM_RULE,
            "spa": as_score(self.spa),
            "spa_items": self.spa_items,
            "pdp": as_score(self.pdp),
            "note": self.note,
        }


def _pooled(metric: Mapping[str, Sequence[Score]], gold: Mapping[str, Sequence[Score]], order: Sequence[str]):
    xs: list[float] = []
    ys: list[float] = []
    for s in order:
        for x, y in zip(metric[s], gold[s]):
            if x is not None and y is not None:
                xs.append(x)
                ys.append(y)
    return xs, ys


def doc_eval(
    metric: Mapping[str, Sequence[Score]],
    gold: DocGold,
    order: Sequence[str],
    *,
    spa: bool = True,
    n_permutations: int = stats.DEFAULT_PERMUTATIONS,
    spa_seed: int = stats.SPA_SEED,
) -> DocEval:
    """The document-level statistics of one metric (``metric``: system -> per-document scores, parallel
    to ``gold.docs``)."""
    out = DocEval(gold.source, gold.rule, len(gold.docs), gold.left_out)
    if not gold.docs:
        out.note = "no document has human scores"
        return out
    if all(v is None for s in order for v in metric[s]):
        out.note = "the metric gives no document scores for the judged documents"
        return out
    m_rows = stats.score_rows(metric, order, True, "metric document scores")
    g_rows = stats.score_rows(gold.scores, order, True, "human document scores")
    try:
        res = stats.acc_eq_rows(m_rows, g_rows)
        out.acc_eq, out.epsilon, out.acc_eq_items, out.acc_eq_pairs = (
            as_score(res.accuracy), res.epsilon, res.n_groups, res.n_pairs)
        out.note = res.ties_note()
    except ValueError as exc:
        out.note = str(exc)
    xs, ys = _pooled(metric, gold.scores, order)
    out.n = len(xs)
    if len(xs) >= 2:
        out.pearson, out.kendall = pearson(xs, ys), kendall(xs, ys)
    out.pearson_item, out.items = stats.grouped_correlation(g_rows, m_rows, pearson)
    out.kendall_item, _ = stats.grouped_correlation(g_rows, m_rows, kendall)
    out.pdp = stats.pdp(g_rows, m_rows)
    if spa:
        try:
            r = stats.soft_pairwise_accuracy(metric, gold.scores, systems=order, n_permutations=n_permutations,
                                          seed=spa_seed)
            out.spa, out.spa_items = r.spa, r.metric.n_items
        except ValueError as exc:
            out.note = str(exc)
    return out


def doc_cells(
    stat: str,
    a: Mapping[str, Sequence[Score]],
    b: Mapping[str, Sequence[Score]],
    gold: Mapping[str, Sequence[Score]],
    order: Sequence[str],
    n_permutations: int,
    spa_seed: int,
) -> tuple[np.ndarray, np.ndarray, Callable[[np.ndarray], float]]:
    """The (system, document) cells both metrics and the humans score, and ``stat`` over a cell vector
    (for :func:`~docmetrics.stats.permutation.perm_both`)."""
    import numpy as np

    ma = stats.score_rows(a, order, False, "metric a")[0].reshape(len(order), -1)
    mb = stats.score_rows(b, order, False, "metric b")[0].reshape(len(order), -1)
    g = stats.score_rows(gold, order, False, "human scores")[0].reshape(len(order), -1)
    present = ~np.isnan(ma) & ~np.isnan(mb) & ~np.isnan(g)
    if stat == "doc_spa":
        g, ma, mb = common_items(g, ma, mb, same_items=True)
        return ma.ravel(), mb.ravel(), stats.spa_statistic(g, ma.shape, n_permutations, spa_seed)
    if not present.any():
        raise ValueError("no (system, document) pair is scored by the humans and by both metrics")
    pos = np.nonzero(present)
    gv = g[pos]
    if stat in ("doc_pearson", "doc_kendall"):
        pooled = pearson if stat == "doc_pearson" else kendall
        return ma[pos], mb[pos], lambda x: pooled(x, gv)
    gm = np.full(g.shape, np.nan)
    gm[pos] = gv
    gt = gm.T.copy()
    corr: Callable[[np.ndarray], float]
    if stat in ("doc_pearson_item", "doc_kendall_item", "doc_pdp"):
        def corr(x: np.ndarray) -> float:
            mm = np.full(g.shape, np.nan)
            mm[pos] = x
            if stat == "doc_pdp":
                return stats.pdp(gt, mm.T)
            return stats.grouped_correlation(gt, mm.T, pearson if stat == "doc_pearson_item" else kendall)[0]

        return ma[pos], mb[pos], corr
    raise ValueError(f"no PERM-BOTH test for {stat}")
