"""Document-level meta-evaluation and Pairwise Difference Pearson (PDP): every statistic against an
independent computation (MTME's published test vectors, scipy, hand loops)."""

import itertools
import math

import numpy as np
import pytest
import scipy.stats

from docmetrics import stats as ws
from docmetrics.judging.doc_level import doc_gold
from docmetrics.judging.evaluate import evaluate_wmt
from docmetrics.values.errors import InputError
from docmetrics.values.result import DocScore, Result, UnitScore
from docmetrics.values.signature import Signature


# -- PDP ---------------------------------------------------------------------------------------------------
def mtme_rows(num_sys, vec, average_by):
    """MTME's _Reshape of a system-major packed vector."""
    a = np.array([np.nan if v is None else v for v in vec], dtype=float)
    if average_by == "none":
        return a.reshape(1, -1)
    if average_by == "sys":
        return a.reshape(num_sys, -1)
    return a.reshape(num_sys, -1).T


@pytest.mark.parametrize("gold, metric, average_by, expected", [
    # mt_metrics_eval/stats_test.py: testPearsonPdp
    ([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7], "item", 0.926),
    ([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7], "none", 0.776),
    ([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7], "sys", 0.766),
    # testPdpWithAveragingAndNones
    ([1, 5, None, 10, 2, 12], [3, 15, 1, 20, 4, 24], "item", 0.968),
    ([1, 5, None, 10, 2, 12], [3, 15, 1, 20, 4, 24], "none", 0.975),
])
def test_pdp_equals_mtme_test_vectors(gold, metric, average_by, expected):
    assert ws.pdp(mtme_rows(2, gold, average_by), mtme_rows(2, metric, average_by)) == pytest.approx(expected, abs=5e-4)


def hand_pdp(gold_rows, metric_rows):
    dg, dm = [], []
    for g, m in zip(gold_rows, metric_rows):
        for i in range(len(g)):
            for j in range(len(g)):
                if g[i] is None or g[j] is None or m[i] is None or m[j] is None:
                    continue
                dg.append(g[j] - g[i])
                dm.append(m[j] - m[i])
    return scipy.stats.pearsonr(dg, dm)[0]


@pytest.mark.parametrize("seed", range(5))
def test_pdp_equals_hand_loop_and_pearson_on_one_row(seed):
    rng = np.random.default_rng(seed)
    g = rng.normal(size=(4, 6)).tolist()
    m = (np.asarray(g) + rng.normal(size=(4, 6))).tolist()
    g[1][2] = None
    m[3][0] = None
    assert ws.pdp(g, m) == pytest.approx(hand_pdp(g, m), abs=1e-12)
    # one row (system level): PDP is Pearson's r of the row
    h, x = rng.normal(size=7), rng.normal(size=7)
    assert ws.pdp([h], [x]) == pytest.approx(scipy.stats.pearsonr(h, x)[0], abs=1e-12)


def test_grouped_correlation_is_mtme_item_average():
    g = [[1, 2, 3], [3, 1, 2], [5, 5, 5], [1, None, 2]]
    m = [[1, 3, 2], [2, 1, 3], [1, 2, 3], [4, 0, 1]]
    # rows: scipy per row; the constant row (NaN) is left out, the row with a missing entry keeps 2
    want_p = np.mean([scipy.stats.pearsonr(a, b)[0] for a, b in
                      [([1, 2, 3], [1, 3, 2]), ([3, 1, 2], [2, 1, 3]), ([1, 2], [4, 1])]])
    from docmetrics.stats.vector import pearson
    got, n = ws.grouped_correlation(g, m, pearson)
    assert n == 3 and got == pytest.approx(want_p)
    from docmetrics.stats.vector import kendall
    got_k, n_k = ws.grouped_correlation(g, m, kendall)
    want_k = np.mean([scipy.stats.kendalltau([1, 2, 3], [1, 3, 2])[0], scipy.stats.kendalltau([3, 1, 2], [2, 1, 3])[0],
                      scipy.stats.kendalltau([1, 2], [4, 1])[0]])
    assert n_k == 3 and got_k == pytest.approx(want_k)


# -- document level ----------------------------------------------------------------------------------------
DOCS = ["d1", "d1", "d2", "d2", "d2", "d3", "d4"]  # d4: no judged segment
HUMAN = {
    "A": [1.0, 3.0, 2.0, None, 4.0, 5.0, None],
    "B": [2.0, 2.0, 1.0, 1.0, 1.0, 6.0, None],
    "C": [0.0, 1.0, 3.0, 3.0, None, 5.0, None],
}


def result(system, metric, doc_scores, seg_scores):
    units = []
    for i, (d, v) in enumerate(zip(DOCS, seg_scores)):
        units.append(UnitScore(d, i, i + 1, v))
    docs = [DocScore(d, v, 1) for d, v in doc_scores.items()]
    return Result(system, metric, float(np.mean(seg_scores)), Signature(metric), {}, units, docs)


M1 = {"A": {"d1": 0.5, "d2": 0.9, "d3": 0.2, "d4": 0.0}, "B": {"d1": 0.5, "d2": 0.1, "d3": 0.8, "d4": 0.0},
      "C": {"d1": 0.1, "d2": 0.95, "d3": 0.2, "d4": 0.0}}
M2 = {"A": {"d1": 0.3, "d2": 0.2, "d3": 0.1, "d4": 0.0}, "B": {"d1": 0.6, "d2": 0.4, "d3": 0.9, "d4": 0.0},
      "C": {"d1": 0.2, "d2": 0.5, "d3": 0.15, "d4": 0.0}}


def results():
    rng = np.random.default_rng(0)
    return {
        name: [result(s, name, scores[s], rng.normal(size=len(DOCS)).tolist()) for s in "ABC"]
        for name, scores in (("m1", M1), ("m2", M2))
    }


def test_doc_gold_mean_and_sum_leave_out_unjudged_documents():
    g = doc_gold("ABC", doc_ids=DOCS, human_seg=HUMAN, rule="mean")
    assert g.docs == ["d1", "d2", "d3"] and g.left_out == 1 and g.rule == "mean"
    assert g.scores["A"] == [2.0, 3.0, 5.0] and g.scores["B"] == [2.0, 1.0, 6.0] and g.scores["C"] == [0.5, 3.0, 5.0]
    s = doc_gold("ABC", doc_ids=DOCS, human_seg=HUMAN, rule="sum")
    assert s.scores["A"] == [4.0, 6.0, 5.0] and s.scores["C"] == [1.0, 6.0, 5.0]


def hand_acc_eq(metric_rows, gold_rows):
    """Tie-calibrated pairwise accuracy grouped by item, by brute force over candidate epsilons."""
    cands = {0.0}
    for m in metric_rows:
        for i, j in itertools.combinations(range(len(m)), 2):
            cands.add(abs(m[i] - m[j]))
    best = (-1.0, None)
    for eps in sorted(cands):
        accs = []
        for m, g in zip(metric_rows, gold_rows):
            ok = []
            for i, j in itertools.combinations(range(len(m)), 2):
                mt = abs(m[i] - m[j]) <= eps
                ht = g[i] == g[j]
                ok.append((mt and ht) or (not mt and not ht and (m[i] - m[j]) * (g[i] - g[j]) > 0))
            accs.append(sum(ok) / len(ok))
        acc = sum(accs) / len(accs)
        if acc > best[0] + 1e-12:
            best = (acc, eps)
    return best


def test_document_statistics_equal_independent_computations():
    ev = evaluate_wmt(results(), None, HUMAN, doc_rule="mean", significance=(), doc_ids=DOCS)
    gold = [[2.0, 2.0, 0.5], [3.0, 1.0, 3.0], [5.0, 6.0, 5.0]]  # rows: d1..d3, columns A B C
    for name, scores in (("m1", M1), ("m2", M2)):
        d = ev.metrics[name].document
        rows = [[scores[s][doc] for s in "ABC"] for doc in ("d1", "d2", "d3")]
        assert d.n_docs == 3 and d.docs_left_out == 1 and d.rule == "mean"
        acc, eps = hand_acc_eq(rows, gold)
        assert d.acc_eq == pytest.approx(acc) and d.epsilon == pytest.approx(eps)
        xs = [v for r in rows for v in r]
        ys = [v for r in gold for v in r]
        assert d.pearson == pytest.approx(scipy.stats.pearsonr(xs, ys)[0])
        assert d.kendall == pytest.approx(scipy.stats.kendalltau(xs, ys, variant="b")[0])
        per_doc_p = [scipy.stats.pearsonr(r, g)[0] for r, g in zip(rows, gold) if len(set(r)) > 1 and len(set(g)) > 1]
        per_doc_k = [scipy.stats.kendalltau(r, g)[0] for r, g in zip(rows, gold)]
        per_doc_k = [k for k in per_doc_k if not math.isnan(k)]
        assert d.pearson_item == pytest.approx(np.mean(per_doc_p))
        assert d.kendall_item == pytest.approx(np.mean(per_doc_k))
        assert d.pdp == pytest.approx(hand_pdp(gold, rows))
        # SPA: permutation p-values over the documents, by a hand loop over the same sign vectors
        signs = ws.sign_vectors(3, ws.DEFAULT_PERMUTATIONS, ws.SPA_SEED)

        def pvals(mat, signs=signs):
            out = []
            for i, j in itertools.combinations(range(3), 2):
                diff = np.array([mat[k][i] - mat[k][j] for k in range(3)])
                null = signs @ diff
                out.append(np.mean(null >= diff.sum() - 1e-12 * max(1.0, np.abs(diff).sum())))
            return np.array(out)

        assert d.spa == pytest.approx(1 - np.mean(np.abs(pvals(gold) - pvals(rows))))
        # system level PDP equals Pearson's r of the system scores (one row)
        m = ev.metrics[name]
        assert m.pdp == pytest.approx(scipy.stats.pearsonr(m.metric_scores, m.human_scores)[0])


def test_document_level_acc_eq_by_hand():
    # two documents, three systems; worked out by hand:
    # d1 metric (0.5, 0.5, 0.1) vs human (2, 2, 0.5): at epsilon 0 all 3 pairs agree (the tie too): 1
    # d2 metric (0.9, 0.1, 0.95) vs human (3, 1, 3): A>B ok, A<C but humans tie (wrong at eps 0), B<C ok: 2/3
    # epsilon 0.05 ties A and C: 3/3 in d2, d1 unchanged: accuracy 1 at epsilon 0.05
    res = ws.acc_eq_rows([[0.5, 0.5, 0.1], [0.9, 0.1, 0.95]], [[2, 2, 0.5], [3, 1, 3]])
    assert res.accuracy == pytest.approx(1.0) and res.epsilon == pytest.approx(0.05)
    assert ws.acc_eq_rows([[0.5, 0.5, 0.1], [0.9, 0.1, 0.95]], [[2, 2, 0.5], [3, 1, 3]], 0.0).accuracy == pytest.approx(
        (1 + 2 / 3) / 2)


def test_document_level_perm_both_and_output_only_when_asked():
    plain = evaluate_wmt(results(), None, HUMAN, significance=("pearson",), n_resamples=50)
    for m in plain.metrics.values():
        d = m.to_dict(layout="mtme")
        assert "document" not in d and "pdp" not in d["system"]
        assert "document" not in m.to_dict() and "pdp" not in m.to_dict()
    stats = ("pdp", "doc_acc_eq", "doc_pearson", "doc_kendall", "doc_pearson_item", "doc_kendall_item", "doc_pdp",
             "doc_spa")
    ev = evaluate_wmt(results(), None, HUMAN, doc_rule="sum", significance=stats, n_resamples=50, doc_ids=DOCS)
    for stat in stats:
        comp = ev.comparisons[stat]
        assert not comp.skipped, (stat, comp.skipped)
        (pair, test), = comp.tests.items()
        assert 0.0 <= test.p_value <= 1.0 and test.n_resamples == 50
        better, worse = pair
        assert ev.metrics[better].get(stat) >= ev.metrics[worse].get(stat)
    d = ev.metrics["m1"].to_dict(layout="mtme")
    assert d["document"]["rule"] == "sum" and d["document"]["documents_left_out"] == 1
    assert "pdp" in d["system"]
    # the document ids may come from the metrics' units
    again = evaluate_wmt(results(), None, HUMAN, doc_rule="sum", significance=())
    assert again.metrics["m1"].document.to_dict() == ev.metrics["m1"].document.to_dict()


def test_doc_pearson_perm_both_equals_hand_resampling():
    ev = evaluate_wmt(results(), None, HUMAN, doc_rule="mean", significance=("doc_pearson",), n_resamples=200,
                      seed=7, doc_ids=DOCS)
    comp = ev.comparisons["doc_pearson"]
    (pair, test), = comp.tests.items()
    a, b = pair
    scores = {"m1": M1, "m2": M2}
    gold = doc_gold("ABC", doc_ids=DOCS, human_seg=HUMAN).scores
    xa = np.array([scores[a][s][d] for s in "ABC" for d in ("d1", "d2", "d3")])
    xb = np.array([scores[b][s][d] for s in "ABC" for d in ("d1", "d2", "d3")])
    h = np.array([gold[s][k] for s in "ABC" for k in range(3)])
    za, zb = scipy.stats.zscore(xa), scipy.stats.zscore(xb)
    delta = scipy.stats.pearsonr(za, h)[0] - scipy.stats.pearsonr(zb, h)[0]
    rng = np.random.default_rng(7)
    null = []
    for _ in range(200):
        swap = rng.integers(0, 2, size=len(za)).astype(bool)
        null.append(scipy.stats.pearsonr(np.where(swap, zb, za), h)[0] - scipy.stats.pearsonr(np.where(swap, za, zb), h)[0])
    assert test.delta == pytest.approx(delta)
    assert test.p_value == pytest.approx(np.mean(np.array(null) >= delta - 1e-12), abs=0.01)


@pytest.mark.parametrize("kwargs, message", [
    ({"doc_rule": "median"}, "document rule 'median'"),
    ({"doc_rule": "mean", "human_seg": {**HUMAN, "C": [0.0, 1.0, None, None, None, 5.0, None]}},
     "document 'd2' has human scores for 2 of 3 systems"),
    ({"doc_rule": "mean", "doc_ids": DOCS[:-1]}, "the documents cover 6"),
    ({"doc_rule": "mean", "human_doc": {"A": [1, 2], "B": [1, 2]}, "doc_names": ["d1", "d2"],
      "human_file": "en-de.doc.score"}, "en-de.doc.score: no document-level scores for system 'C'"),
    ({"doc_rule": "mean", "human_doc": {"A": [1], "B": [1, 2], "C": [1, 2]}, "doc_names": ["d1", "d2"]},
     "system 'A' has 1 document scores"),
    ({"significance": ("doc_median",)}, "unknown statistic 'doc_median'"),
])
def test_bad_document_level_input(kwargs, message):
    args = {"human_seg": HUMAN, "doc_ids": DOCS, "significance": (), **kwargs}
    with pytest.raises(InputError, match=message):
        evaluate_wmt(results(), None, args.pop("human_seg"), **args)


def test_document_gold_read_from_document_level_scores():
    human_doc = {"A": [1.0, 2.0, None, 3.0], "B": [2.0, 1.0, None, 3.0], "C": [0.0, 3.0, None, 1.0]}
    ev = evaluate_wmt(results(), None, HUMAN, doc_rule="mean", significance=(), human_doc=human_doc,
                      doc_names=["d1", "d2", "d3", "d4"], human_file="x.doc.score")
    d = ev.metrics["m1"].document
    assert d.rule is None and "x.doc.score" in d.gold and d.n_docs == 3 and d.docs_left_out == 1
    xs = [M1[s][doc] for s in "ABC" for doc in ("d1", "d2", "d4")]
    ys = [human_doc[s][k] for s in "ABC" for k in (0, 1, 3)]
    assert d.pearson == pytest.approx(scipy.stats.pearsonr(xs, ys)[0])


def test_pdp_perm_both_equals_hand_resampling():
    ev = evaluate_wmt(results(), None, HUMAN, pdp=True, significance=("pdp",), n_resamples=200, seed=3)
    (pair, test), = ev.comparisons["pdp"].tests.items()
    a, b = pair
    h = ev.metrics[a].human_scores
    za = scipy.stats.zscore(ev.metrics[a].metric_scores)
    zb = scipy.stats.zscore(ev.metrics[b].metric_scores)

    def pdp_hand(x):
        return hand_pdp([h], [list(x)])

    delta = pdp_hand(za) - pdp_hand(zb)
    rng = np.random.default_rng(3)
    null = []
    for _ in range(200):
        swap = rng.integers(0, 2, size=len(za)).astype(bool)
        null.append(pdp_hand(np.where(swap, zb, za)) - pdp_hand(np.where(swap, za, zb)))
    assert test.delta == pytest.approx(delta)
    assert test.p_value == pytest.approx(np.mean(np.array(null) >= delta - 1e-12), abs=0.01)
