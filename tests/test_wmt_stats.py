"""WMT meta-evaluation statistics in docmetrics.stats (acc_eq, SPA, PERM-BOTH, clusters, task averages): MTME's published test vectors,
hand-worked examples, brute force and scipy."""

import itertools
import math
import random
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.stats

from docmetrics import stats as ws
from docmetrics.stats.vector import pairwise_accuracy, pearson


# -- pairwise accuracy ---------------------------------------------------------------------------------------
def test_pairwise_accuracy_mtme_test_vector():
    # mt_metrics_eval/stats_test.py testAgreement: gold [1,2,3,3,4], metric [1,1,2,1,2] -> 5 of 10
    assert pairwise_accuracy([1, 1, 2, 1, 2], [1, 2, 3, 3, 4]) == (0.5, 5, 10)


def test_pairwise_accuracy_mtme_ties_and_missing():
    # a pair tied in both agrees; pairs with a missing human score are skipped
    assert pairwise_accuracy([1, 1], [5, 5]) == (1.0, 1, 1)
    acc, agree, pairs = pairwise_accuracy([0.1, 0.2, 0.3, 0.4], [1.0, None, 2.0, 4.0])
    assert (agree, pairs) == (3, 3) and acc == 1.0
    assert math.isnan(pairwise_accuracy([1.0, 2.0], [None, 3.0])[0])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pairwise_accuracy_without_missing_counts_every_pair(seed):
    rng = np.random.default_rng(seed)
    m, h = list(rng.integers(0, 4, 9).astype(float)), list(rng.integers(0, 3, 9).astype(float))
    agree = sum(np.sign(m[i] - m[j]) == np.sign(h[i] - h[j]) for i in range(9) for j in range(i + 1, 9))
    assert pairwise_accuracy(m, h) == (agree / 36, agree, 36)


def test_pooled_pairwise_accuracy_pairs_within_groups():
    # group 1: 3 pairs, all agree; group 2: 1 pair, disagrees -> 3 / 4 (not the mean of 1 and 0)
    groups = [([1, 2, 3], [1, 2, 3]), ([2, 1], [1, 2])]
    assert ws.pooled_pairwise_accuracy(groups) == (0.75, 3, 4)


# -- SPA --------------------------------------------------------------------------------------------------
def test_spa_mtme_test_vector():
    # mt_metrics_eval/stats_test.py testPairwiseConfidenceError: Correlation(2, gold, metric) -> 0.872
    gold = {"s1": [1, 2, 3], "s2": [2, 3, 4]}
    metric = {"s1": [2, 2, 4], "s2": [1, 3, 5]}
    res = ws.soft_pairwise_accuracy(metric, gold)
    assert res.spa == pytest.approx(0.872, abs=5e-4)
    # by hand: humans: every sign vector gives null >= -3, p = 1; metric: differences [1, -1, -1],
    # null >= -1 except for signs (-,+,+): p = 1 - share of (-,+,+) among the 1000 MTME vectors
    signs = ws.sign_vectors(3, 1000, 4)
    share = np.mean((signs == [-1, 1, 1]).all(axis=1))
    assert res.human.pvalues[("s1", "s2")] == 1.0
    assert res.metric.pvalues[("s1", "s2")] == pytest.approx(1 - share)
    assert res.spa == pytest.approx(1 - abs(1.0 - (1 - share)))


def test_sign_vectors_shared_and_seeded():
    s = ws.sign_vectors(7, 50, 4)
    assert s.shape == (50, 7) and set(np.unique(s)) <= {-1.0, 1.0}
    assert np.array_equal(s, ws.sign_vectors(7, 50, 4))
    assert not np.array_equal(s, ws.sign_vectors(7, 50, 5))


def brute_force_pvalues(scores, systems):
    """p(a > b) over all 2^n sign vectors, in exact rational arithmetic."""
    out = {}
    n = len(scores[systems[0]])
    for a, b in itertools.combinations(systems, 2):
        d = [Fraction(x) - Fraction(y) for x, y in zip(scores[a], scores[b])]
        observed = sum(d)
        hits = sum(sum(s * x for s, x in zip(signs, d)) >= observed for signs in itertools.product((1, -1), repeat=n))
        out[(a, b)] = hits / 2**n
    return out


@pytest.mark.parametrize("seed,n,n_sys", [(0, 5, 3), (1, 8, 4), (2, 10, 2)])
def test_exact_pvalues_equal_brute_force(seed, n, n_sys):
    rng = random.Random(seed)
    names = [f"sys{k}" for k in range(n_sys)]
    # quarter-point scores (exactly representable, many ties in the null distribution)
    scores = {s: [rng.randint(-8, 8) / 4 for _ in range(n)] for s in names}
    res = ws.perm_test_pvalues(scores, exact=True)
    assert res.n_permutations == 2**n and res.exact
    assert res.pvalues == pytest.approx(brute_force_pvalues(scores, names), abs=0)


def test_exact_pvalues_equal_scipy_permutation_test():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=9), rng.normal(size=9) - 0.3
    ours = ws.perm_test_pvalues({"a": list(a), "b": list(b)}, exact=True).pvalues[("a", "b")]
    ref = scipy.stats.permutation_test(
        (a, b), lambda x, y, axis: np.sum(x - y, axis=axis), permutation_type="samples",
        alternative="greater", n_resamples=np.inf, vectorized=True,
    ).pvalue
    assert ours == pytest.approx(ref, abs=1e-12)


def test_random_pvalues_follow_the_shared_sign_vectors():
    rng = np.random.default_rng(5)
    names = ["a", "b", "c"]
    scores = {s: list(rng.normal(size=12)) for s in names}
    res = ws.perm_test_pvalues(scores, n_permutations=400, seed=9)
    signs = ws.sign_vectors(12, 400, 9)
    for a, b in itertools.combinations(names, 2):
        d = np.subtract(scores[a], scores[b])
        by_loop = sum(float(np.dot(s, d)) >= d.sum() - 1e-9 for s in signs) / 400
        assert res.pvalues[(a, b)] == pytest.approx(by_loop)
    exact = ws.perm_test_pvalues(scores, exact=True).pvalues
    assert all(abs(res.pvalues[k] - exact[k]) < 0.08 for k in exact)


def test_perm_test_uses_items_scored_for_every_system():
    holes = {"a": [1.0, None, 3.0, 2.0, 5.0], "b": [0.0, 9.0, 1.0, 2.5, 1.0], "c": [2.0, 2.0, 2.0, 2.0, None]}
    kept = {"a": [1.0, 3.0, 2.0], "b": [0.0, 1.0, 2.5], "c": [2.0, 2.0, 2.0]}
    # item 1 (None for a) and item 4 (None for c) are left out for every pair
    res = ws.perm_test_pvalues(holes, exact=True)
    assert res.n_items == 3
    assert res.pvalues == ws.perm_test_pvalues(kept, exact=True).pvalues == brute_force_pvalues(kept, ["a", "b", "c"])


def test_spa_of_metric_equal_to_humans_is_one_and_uses_joint_items():
    rng = np.random.default_rng(1)
    human = {s: list(rng.normal(size=15) + k) for k, s in enumerate(["a", "b", "c", "d"])}
    assert ws.soft_pairwise_accuracy(human, human).spa == 1.0
    # the metric is missing item 0 for system a: the humans' item 0 is dropped too (same segments)
    metric = {s: list(v) for s, v in human.items()}
    metric["a"][0] = None
    res = ws.soft_pairwise_accuracy(metric, human)
    assert res.human.n_items == res.metric.n_items == 14 and res.spa == 1.0


def test_spa_with_windows_uses_each_sides_items():
    # a metric scoring 3 windows against 6 human segments: each side keeps its own items
    human = {"a": [1, 2, 3, 4, 5, 6], "b": [0, 1, 2, 3, 4, 5]}
    metric = {"a": [0.5, 0.6, 0.7], "b": [0.9, 0.8, 0.1]}
    res = ws.soft_pairwise_accuracy(metric, human, exact=True)
    assert (res.human.n_items, res.metric.n_items) == (6, 3)
    ph, pm = res.human.pvalues[("a", "b")], res.metric.pvalues[("a", "b")]
    assert ph == 1 / 64  # every difference is +1: only the all-plus vector reaches the observed sum
    assert pm == brute_force_pvalues(metric, ["a", "b"])[("a", "b")]
    assert res.spa == pytest.approx(1 - abs(ph - pm))


# -- acc_eq with tie calibration ------------------------------------------------------------------------------
def tie_calibration(metric_rows, human_rows):
    """The accuracy at every candidate epsilon: docmetrics.stats.tau_optimization of acc_23, in acc_eq's words."""
    from docmetrics.stats import tau_optimization as opt

    res = opt.tau_optimization(metric_rows, human_rows, opt.TauSufficientStats.acc_23)
    return SimpleNamespace(thresholds=res.thresholds, accuracies=res.taus, epsilon=res.best_threshold,
                           accuracy=res.best_tau, n_groups=ws.acc_eq_rows(metric_rows, human_rows).n_groups)


def test_tie_calibration_mtme_test_vectors():
    # mt_metrics_eval/tau_optimization_test.py
    zero = tie_calibration([0, 2, 6, 8], [1, 2, 3, 4])
    assert zero.thresholds == [0, 2, 4, 6, 8]
    assert zero.accuracies == [6 / 6, 4 / 6, 3 / 6, 1 / 6, 0 / 6]
    assert (zero.epsilon, zero.accuracy) == (0, 1.0)
    nonzero = tie_calibration([0, 2, 6, 8], [1, 1, 1, 4])
    assert nonzero.thresholds == [0, 2, 4, 6, 8]
    assert nonzero.accuracies == [3 / 6, 3 / 6, 4 / 6, 4 / 6, 3 / 6]
    assert (nonzero.epsilon, nonzero.accuracy) == (4, 4 / 6)


def test_acc_eq_mtme_test_vector_through_the_system_api():
    metric = {"a": [0], "b": [2], "c": [6], "d": [8]}
    human = {"a": [1], "b": [1], "c": [1], "d": [4]}
    res = ws.acc_eq(metric, human)
    assert (res.epsilon, res.accuracy, res.n_groups, res.n_pairs) == (4.0, 4 / 6, 1, 6)


def test_tie_calibration_mtme_regression_example():
    # mt_metrics_eval/tau_optimization_test.py test_regression_example (rows are groups; None missing)
    metric = [[0, 5, 2, 3, 2], [None, 2, 1, 5, 3], [9, 1, 5, 3, 8], [9, 3, 4, 4, 1], [None] * 5]
    human = [[1, 5, 2, 1, 1], [4, 2, 2, 1, 4], [5, 9, 2, 8, 7], [7, 6, None, 3, 2], [None] * 5]
    res = tie_calibration(metric, human)
    assert res.thresholds == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    expected = [0.4666666666666667, 0.4916666666666668, 0.38333333333333347, 0.29166666666666674,
                0.2666666666666667, 0.2, 0.15833333333333335, 0.15833333333333335, 0.1166666666666667]
    assert res.accuracies == pytest.approx(expected, abs=1e-12)
    assert (res.epsilon, res.accuracy) == (1, pytest.approx(0.4916666666666668))
    assert res.n_groups == 4


def test_acc_eq_mtme_kendall_variants_vectors():
    # stats_test.py: Correlation(1, gold [1,2,2,3,4], metric [2,1,1.5,5,3]): acc23 0.6, epsilon 2 -> 0.4,
    # KendallWithTiesOpt -> 0.7
    m, h = [2, 1, 1.5, 5, 3], [1, 2, 2, 3, 4]
    assert ws.acc_eq_rows(m, h, epsilon=0).accuracy == pytest.approx(0.6)
    assert ws.acc_eq_rows(m, h, epsilon=2).accuracy == pytest.approx(0.4)
    assert ws.acc_eq_rows(m, h).accuracy == pytest.approx(0.7)


def test_acc_eq_item_grouping_is_the_mean_over_items():
    # stats_test.py testKendallWithTiesOpt, average_by='item' with 2 systems x 3 items
    gold, metric = [1, 2, 2, 3, 3, 4], [2, 1, 1.5, 5, 3, 2]
    human = {"s1": gold[:3], "s2": gold[3:]}
    met = {"s1": metric[:3], "s2": metric[3:]}
    res = ws.acc_eq(met, human, group_by_item=True)
    per_item = [ws.acc_eq_rows([met["s1"][i], met["s2"][i]], [human["s1"][i], human["s2"][i]], epsilon=res.epsilon)
                for i in range(3)]
    assert res.accuracy == pytest.approx(sum(r.accuracy for r in per_item) / 3)
    pooled = ws.acc_eq(met, human, group_by_item=False)
    assert pooled.n_groups == 1 and pooled.n_pairs == 15


def brute_force_acc(metric_rows, human_rows, eps):
    accs = []
    for m, h in zip(metric_rows, human_rows):
        good = total = 0
        for i, j in itertools.combinations(range(len(m)), 2):
            if None in (m[i], m[j], h[i], h[j]):
                continue
            total += 1
            tie_m, tie_h = abs(m[i] - m[j]) <= eps, h[i] == h[j]
            good += (tie_m and tie_h) or (not tie_m and not tie_h and (m[i] > m[j]) == (h[i] > h[j]))
        if total:
            accs.append(Fraction(good, total))
    return sum(accs) / len(accs)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_acc_eq_equals_brute_force_over_every_epsilon(seed):
    rng = random.Random(seed)
    rows_m = [[None if rng.random() < 0.15 else rng.randint(0, 12) / 4 for _ in range(5)] for _ in range(7)]
    rows_h = [[None if rng.random() < 0.15 else rng.randint(0, 3) for _ in range(5)] for _ in range(7)]
    cal = tie_calibration(rows_m, rows_h)
    diffs = {abs(m[i] - m[j]) for m, h in zip(rows_m, rows_h) for i, j in itertools.combinations(range(5), 2)
             if None not in (m[i], m[j], h[i], h[j])}
    assert cal.thresholds == sorted(diffs | {0})
    brute = [brute_force_acc(rows_m, rows_h, t) for t in cal.thresholds]
    assert cal.accuracies == pytest.approx([float(b) for b in brute], abs=1e-12)
    best = max(brute)
    assert cal.epsilon == cal.thresholds[brute.index(best)]  # the smallest best epsilon
    assert cal.accuracy == pytest.approx(float(best), abs=1e-12)


def test_acc_eq_without_ties_is_rescaled_kendall():
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=30), rng.normal(size=30)
    tau = scipy.stats.kendalltau(x, y)[0]
    assert ws.acc_eq_rows(x, y, epsilon=0).accuracy == pytest.approx((1 + tau) / 2)


# -- PERM-BOTH ------------------------------------------------------------------------------------------------
def test_perm_both_identical_metrics_are_never_significant():
    h = [1.0, 2.0, 4.0, 3.0, 5.0]
    m = [0.1, 0.3, 0.2, 0.5, 0.4]
    res = ws.perm_both(m, m, lambda x: pearson(list(x), h), n_resamples=50, seed=1)
    assert res.delta == 0 and res.p_value == 1.0 and (res.n_resamples, res.seed) == (50, 1)


def exact_perm_both(a, b, statistic):
    za, zb = ws.zscore(a), ws.zscore(b)
    delta = statistic(za) - statistic(zb)
    hits = 0
    masks = list(itertools.product((False, True), repeat=len(a)))
    for mask in masks:
        sa = np.where(mask, zb, za)
        sb = np.where(mask, za, zb)
        hits += statistic(sa) - statistic(sb) >= delta - 1e-12
    return hits / len(masks), delta


def test_perm_both_converges_to_the_exact_test():
    h = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    a = [1.1, 1.9, 3.2, 3.9, 5.3, 5.8]  # close to the humans
    b = [2.0, 1.0, 4.0, 3.5, 6.0, 2.0]

    def stat(x):
        return pearson(list(x), h)

    exact, delta = exact_perm_both(a, b, stat)
    res = ws.perm_both(a, b, stat, n_resamples=4000, seed=7)
    assert res.delta == pytest.approx(delta) == pytest.approx(pearson(a, h) - pearson(b, h))
    assert res.p_value == pytest.approx(exact, abs=0.03)
    assert res.p_value == pytest.approx(float(np.mean(res.null >= res.delta)))
    again = ws.perm_both(a, b, stat, n_resamples=4000, seed=7)
    assert again.p_value == res.p_value


def test_perm_both_acc_eq_identical_and_exact():
    human = {"a": [1, 2, 2], "b": [2, 2, 3], "c": [3, 1, 1]}
    good = {"a": [0.1, 0.5, 0.5], "b": [0.5, 0.55, 0.9], "c": [0.9, 0.2, 0.1]}
    bad = {"a": [0.9, 0.1, 0.3], "b": [0.5, 0.9, 0.2], "c": [0.1, 0.5, 0.6]}
    same = ws.perm_both_acc_eq(good, good, human, n_resamples=20)
    assert same.delta == 0 and same.p_value == 1.0
    res = ws.perm_both_acc_eq(good, bad, human, n_resamples=4000, seed=3)
    ea, eb = res.details["epsilon_a"], res.details["epsilon_b"]
    assert ea == ws.acc_eq(good, human).epsilon and eb == ws.acc_eq(bad, human).epsilon
    assert res.delta == pytest.approx(ws.acc_eq(good, human).accuracy - ws.acc_eq(bad, human).accuracy)
    # exact: every way of swapping the 9 pair outcomes (3 items x 3 pairs) between the metrics
    outcomes = []
    for i in range(3):
        for x, y in itertools.combinations("abc", 2):
            hd = human[x][i] - human[y][i]

            def correct(m, eps, x=x, y=y, i=i, hd=hd):
                d = m[x][i] - m[y][i]
                return float(hd == 0) if abs(d) <= eps else float(hd != 0 and (d > 0) == (hd > 0))

            outcomes.append((correct(good, ea), correct(bad, eb)))
    w = 1 / 9  # 3 items, 3 pairs each
    hits = 0
    for mask in itertools.product((1, -1), repeat=9):
        hits += sum(s * w * (ca - cb) for s, (ca, cb) in zip(mask, outcomes)) >= res.delta - 1e-12
    assert res.p_value == pytest.approx(hits / 2**9, abs=0.03)


# -- clusters, averages ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "matrix,alpha,expected",
    [  # mt_metrics_eval/data_test.py testAssignRanks
        ([[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]], 0.5, [1, 1, 1, 1]),
        ([[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]], 1.0, [1, 2, 3, 4]),
        ([[0, 1, 0, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]], 0.5, [1, 1, 2, 2]),
        ([[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]], 0.5, [1, 2, 2, 3]),
    ],
)
def test_assign_ranks_mtme_test_vectors(matrix, alpha, expected):
    assert ws.assign_ranks(matrix, alpha) == expected


def test_significance_clusters_by_name():
    values = {"x": 0.5, "y": 0.9, "z": 0.7, "w": math.nan}
    p = {("y", "z"): 0.2, ("y", "x"): 0.01, ("z", "x"): 0.3, ("y", "w"): 0.0, ("z", "w"): 0.0, ("x", "w"): 0.0}
    ranked = ws.significance_clusters(values, p)
    assert [(r.metric, r.rank) for r in ranked] == [("y", 1), ("z", 1), ("x", 2), ("w", 3)]
    assert [r.rank for r in ws.significance_clusters(values, None)] == [None] * 4
    assert ws.rank_order({"b": 1.0, "a": 1.0, "c": 2.0}) == ["c", "a", "b"]


def test_weighted_average_maps_ranges_and_keeps_common_metrics():
    tasks = [{"m1": 0.5, "m2": -0.5, "m3": 0.2}, {"m1": 0.75, "m2": 0.25}]  # a correlation, an accuracy
    avg = ws.weighted_average(tasks, [0.5, 0.5], [(-1, 1), (0, 1)])
    assert avg == {"m1": pytest.approx(0.5 * 0.75 + 0.5 * 0.75), "m2": pytest.approx(0.5 * 0.25 + 0.5 * 0.25)}
    assert list(avg) == ["m1", "m2"]
    assert ws.average_ranks([{"a": 1, "b": 2}, {"a": 2, "b": 1, "c": 1}], [0.75, 0.25]) == {"a": 1.25, "b": 1.75}


def test_combined_pvalue_sums_weighted_draws():
    nulls = [np.array([0.0, 0.2, -0.2, 0.4]), np.array([0.1, -0.1])]  # second task repeated to 4 draws
    # total = 0.5*[0,.2,-.2,.4]/2 + 0.5*[.1,-.1,.1,-.1]/1 = [.05,0,0,.05]
    assert ws.combined_pvalue(0.04, nulls, [0.5, 0.5], [(-1, 1), (0, 1)]) == 0.5


# -- bad inputs ------------------------------------------------------------------------------------------------
BAD = [
    ("pairwise accuracy: lengths", lambda: pairwise_accuracy([1, 2], [1])),
    ("perm test: one system", lambda: ws.perm_test_pvalues({"a": [1, 2]})),
    ("perm test: different lengths", lambda: ws.perm_test_pvalues({"a": [1, 2], "b": [1]})),
    ("perm test: no complete item", lambda: ws.perm_test_pvalues({"a": [None, 2], "b": [1, None]})),
    ("perm test: exact too large", lambda: ws.perm_test_pvalues({"a": [0.0] * 25, "b": [1.0] * 25}, exact=True)),
    ("perm test: unknown system", lambda: ws.perm_test_pvalues({"a": [1], "b": [2]}, systems=["a", "c"])),
    ("sign vectors: no item", lambda: ws.sign_vectors(0)),
    ("spa: one common system", lambda: ws.soft_pairwise_accuracy({"a": [1], "b": [2]}, {"a": [1], "c": [2]})),
    ("acc_eq: shapes", lambda: ws.acc_eq_rows([[1, 2, 3]], [[1, 2]])),
    ("acc_eq: ragged groups", lambda: ws.acc_eq_rows([[1, 2, 3], [1, 2]], [[1, 2, 3], [1, 2]])),
    ("acc_eq: negative epsilon", lambda: ws.acc_eq_rows([1, 2], [1, 2], epsilon=-1)),
    ("perm both: different cells", lambda: ws.perm_both([1, 2, 3], [1, 2], lambda x: 0.0)),
    ("perm both: missing score", lambda: ws.perm_both([1, math.nan], [1, 2], lambda x: 0.0)),
    ("perm both: no resample", lambda: ws.perm_both([1, 2], [1, 2], lambda x: 0.0, n_resamples=0)),
    ("perm both acc_eq: no pair", lambda: ws.perm_both_acc_eq({"a": [1], "b": [None]}, {"a": [1], "b": [2]},
                                                              {"a": [1], "b": [2]})),
    ("ranks: not square", lambda: ws.assign_ranks([[0, 1], [0]])),
    ("average: weights", lambda: ws.weighted_average([{"a": 1.0}], [0.5, 0.5])),
    ("average: no task", lambda: ws.weighted_average([])),
    ("unit range: empty range", lambda: ws.to_unit_range(0.5, 1, 1)),
    ("combined p: no draws", lambda: ws.combined_pvalue(0.0, [np.array([])])),
]


@pytest.mark.parametrize("name,call", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises(name, call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize("as_array", [False, True])
def test_pearson_of_scores_near_the_float_limit_is_scipys_on_the_scaled_scores(as_array):
    """Human scores of 1e308 once overflowed Pearson's squares (an OverflowError traceback)."""
    x, y = [1e308, -1e308, 5e307, 0.0], [1.0, 2.0, 0.5, 3.0]
    got = pearson(np.asarray(x), np.asarray(y)) if as_array else pearson(x, y)
    assert got == pytest.approx(scipy.stats.pearsonr(np.asarray(x) / 1e308, y)[0], abs=1e-12)
    assert pearson([1.0, 2.0, 4.0], [2.0, 1.0, 5.0]) == pytest.approx(scipy.stats.pearsonr([1, 2, 4], [2, 1, 5])[0])
