"""docmetrics.stats (issue 47): mt-metrics-eval's statistics under its names, checked against independent
computations: scipy, pair counts by hand (itertools, exact fractions), and the worked examples of MTME's
docstrings and of the papers (Deutsch et al. 2023 for tau_23/acc_23; WMT20 for the Kendall-like statistic;
Graham and Baldwin 2014 for Williams' test, through MTME's documented values)."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats
from cli_fixtures import run_cli
from test_golden_cli import MTME, TEXTS, folder  # noqa: F401 - the golden commands' input files, a fixture

from docmetrics import stats
from docmetrics.stats import pce, tau_optimization
from docmetrics.values.errors import UserError


def _pair_counts(gold, metric, epsilon=0.0):
    """(concordant, discordant, tied in metric only, tied in gold only, tied in both), by looking at each pair."""
    c = d = tm = tg = tb = 0
    for i, j in itertools.combinations(range(len(gold)), 2):
        dg, dm = gold[j] - gold[i], metric[j] - metric[i]
        mt, gt = abs(dm) <= epsilon, dg == 0
        if mt and gt:
            tb += 1
        elif mt:
            tm += 1
        elif gt:
            tg += 1
        elif (dg > 0) == (dm > 0):
            c += 1
        else:
            d += 1
    return c, d, tm, tg, tb


# -- Kendall's variants --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,levels,seed", [(7, 3, 0), (40, 5, 1), (300, 7, 2), (1000, 50, 3)])
def test_tau_b_and_c_equal_scipy(n, levels, seed):
    """The same counts as scipy (tau-c to the bit; tau-b divides by the metric's square root first, as MTME, where
    scipy divides by the gold's first: at most a unit in the last place apart)."""
    rng = np.random.default_rng(seed)
    gold, metric = rng.integers(0, levels, n), rng.integers(0, levels, n)
    pre = stats.KendallPreproc(gold)
    for variant in ("b", "c"):
        ref = scipy.stats.kendalltau(gold, metric, variant=variant)[0]
        exact = {} if variant == "c" else {"rel": 1e-15}
        assert stats.KendallVariants(gold, metric, variant=variant)[0] == pytest.approx(ref, **exact)
        assert stats.KendallVariants(None, metric, variant=variant, preproc=pre)[0] == pytest.approx(ref, **exact)
        if variant == "c":
            assert stats.KendallVariants(gold, metric, variant=variant)[0] == ref


@pytest.mark.parametrize("epsilon", [0.0, 0.5, 1.0, 2.5])
def test_tau_23_and_acc_23_equal_a_count_of_pairs(epsilon):
    rng = np.random.default_rng(4)
    gold, metric = rng.integers(0, 4, 25).tolist(), rng.random(25).round(1) * 5
    c, d, tm, tg, tb = _pair_counts(gold, list(metric), epsilon)
    total = c + d + tm + tg + tb
    assert stats.KendallVariants(gold, metric, "23", epsilon=epsilon)[0] == pytest.approx((c + tb - d - tm - tg) / total)
    assert stats.KendallVariants(gold, metric, "acc23", epsilon=epsilon)[0] == pytest.approx((c + tb) / total)
    pd = stats.PairwiseDiffs(metric, epsilon)  # the matrix route gives the same
    assert stats.KendallVariants(gold, None, "acc23", metric_preproc=pd)[0] == pytest.approx((c + tb) / total)


def test_tau_23_of_the_worked_example():
    """x = [1,1,1,2,2,3,4], y = [1,1,2,2,4,3,3]: 21 pairs; ties in x: 4, in y: 3, in both: 1 (so 3 in x only, 2
    in y only); 2 discordant; so 21 - 2 - 3 - 2 - 1 = 13 concordant: tau_23 = (13 + 1 - 2 - 3 - 2) / 21,
    acc_23 = (13 + 1) / 21."""
    x, y = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    assert _pair_counts(x, y) == (13, 2, 2, 3, 1)  # (metric y only: 2, gold x only: 3)
    assert stats.KendallVariants(x, y, variant="23")[0] == (13 + 1 - 2 - 3 - 2) / 21
    assert stats.KendallVariants(x, y, variant="acc23")[0] == (13 + 1) / 21


def test_kendall_like_of_wmt20_counts_the_pairs_by_hand():
    """gold [10, 11, 100, 150], metric [2, 1, 4, 3], threshold 25: the 5 pairs whose gold scores differ by >= 25;
    (100, 150) is ordered 4 > 3 by the metric, the other 4 agree: (4 - 1) / 5."""
    assert stats.KendallLike([10, 11, 100, 150], [2, 1, 4, 3]) == (3 / 5, 0, 5, 4, 1)
    assert stats.KendallLike([10, 11, 100, 150], [2, 1, 4, 3], 1) == (2 / 6, 0, 6, 4, 2)  # (10, 11) joins: 2 > 1


def test_agreement_counts_pairs_a_tie_in_both_agreeing():
    gold, metric = [1, 2, 3, 3, 4], [1, 1, 2, 1, 2]
    by_hand = sum(np.sign(gold[i] - gold[j]) == np.sign(metric[i] - metric[j])
                  for i, j in itertools.combinations(range(5), 2))
    assert stats.Agreement(gold, metric) == (by_hand, 10) == (5, 10)


# -- Correlation and its averages ------------------------------------------------------------------------------
GOLD = [1, 2, 3, 4, 5, 6, 2, 9, 1]
METRIC = [2, 1, 8, 3, 5, 6, 1, 7, 3]


@pytest.mark.parametrize("name,fn", [("Pearson", scipy.stats.pearsonr), ("Spearman", scipy.stats.spearmanr),
                                     ("Kendall", scipy.stats.kendalltau)])
def test_averages_by_system_and_item_are_means_of_scipy(name, fn):
    corr = stats.Correlation(3, GOLD, METRIC)
    g, m = np.reshape(GOLD, (3, 3)), np.reshape(METRIC, (3, 3))
    assert getattr(corr, name)("none")[0] == pytest.approx(fn(GOLD, METRIC)[0])
    assert getattr(corr, name)("sys")[0] == pytest.approx(np.mean([fn(a, b)[0] for a, b in zip(g, m)]))
    assert getattr(corr, name)("item")[0] == pytest.approx(np.mean([fn(a, b)[0] for a, b in zip(g.T, m.T)]))


def test_micro_average_weights_each_row_by_its_size():
    gold, metric = [1, None, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    cf = stats.AverageCorrelation(scipy.stats.pearsonr, num_sys=2, average_by="sys", macro=False)
    r1, r2 = scipy.stats.pearsonr([1, 3], [2, 8])[0], scipy.stats.pearsonr([4, 5, 6], [3, 5, 6])[0]
    value, _, weight = cf(gold, metric)
    assert value == pytest.approx((2 * r1 + 3 * r2) / 5) and weight == 5


def test_an_undefined_row_is_left_out_or_counted_as_zero():
    gold, metric = [1, 2, 3, 4, 5, 6], [2, 2, 2, 4, 5, 6]  # system 1's metric scores are constant
    left_out = stats.AverageCorrelation(scipy.stats.pearsonr, 2, "sys")(gold, metric)[0]
    zero = stats.AverageCorrelation(scipy.stats.pearsonr, 2, "sys", replace_nans_with_zeros=True)(gold, metric)[0]
    assert (left_out, zero) == (pytest.approx(1.0), pytest.approx(0.5))


def test_item_grouped_pearson_with_three_systems_tied_on_an_item_is_mtmes_one():
    """Issue 47's done-when: gold [1,1,2,2,4,3], metric [0.1,1,0.1,2,0.1,3], 3 systems: item 1's metric scores
    are all 0.1 (undefined, left out), item 2 is perfect."""
    corr = stats.Correlation(3, [1, 1, 2, 2, 4, 3], [0.1, 1, 0.1, 2, 0.1, 3])
    assert corr.Pearson(average_by="item")[0] == pytest.approx(1.0)


def test_no_defined_correlation_is_nan_or_mtmes_zero():
    gold, metric = [1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 1]
    value, pvalue, weight = stats.Correlation(2, gold, metric).Pearson("sys")
    assert math.isnan(value) and math.isnan(pvalue) and weight == 0
    assert stats.Correlation(2, gold, metric, compat="mtme").Pearson("sys") == (0, 0, 0)


def test_pdp_of_one_row_is_pearson_and_pools_differences():
    gold, metric = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7]
    corr = stats.Correlation(2, gold, metric)
    assert corr.Pearson("none", pdp=True)[0] == pytest.approx(scipy.stats.pearsonr(gold, metric)[0])
    g, m = np.reshape(gold, (2, 3)).T, np.reshape(metric, (2, 3)).T  # items x systems
    dg = np.concatenate([[r[j] - r[i] for i in range(2) for j in range(2)] for r in g])
    dm = np.concatenate([[r[j] - r[i] for i in range(2) for j in range(2)] for r in m])
    assert corr.Pearson("item", pdp=True)[0] == pytest.approx(scipy.stats.pearsonr(dg, dm)[0])


# -- tie calibration --------------------------------------------------------------------------------------------
def _acc23_by_hand(metric_rows, human_rows, eps):
    accs = []
    for m, h in zip(metric_rows, human_rows):
        c, d, tm, tg, tb = _pair_counts(h, m, eps)
        accs.append(Fraction(c + tb, c + d + tm + tg + tb))
    return sum(accs) / len(accs)


def test_tau_optimization_equals_acc23_by_hand_at_every_threshold():
    metric = [[3, 2, 5], [1, 5, 0], [3, 3, 5], [1, 5, 4]]
    human = [[2, 0, 2], [2, 0, 1], [1, 0, 1], [1, 2, 2]]
    res = tau_optimization.tau_optimization(metric, human, tau_optimization.TauSufficientStats.acc_23)
    assert res.thresholds == [0, 1, 2, 3, 4, 5]
    exact = [_acc23_by_hand(metric, human, t) for t in res.thresholds]
    assert res.taus == [pytest.approx(float(e)) for e in exact]
    # eps 0 and eps 2 both give exactly 1/2: docmetrics reports the smallest; MTME's running sum puts a rounding
    # error on eps 2 (0.5000000000000002) and reports it
    assert exact[0] == exact[2] == Fraction(1, 2) == max(exact)
    assert (res.best_threshold, res.best_tau) == (0.0, 0.5)
    mtme = tau_optimization.tau_optimization(metric, human, tau_optimization.TauSufficientStats.acc_23, compat="mtme")
    assert mtme.best_threshold == 2 and mtme.taus == res.taus


def test_kendall_with_ties_opt_matches_its_own_epsilon():
    gold, metric = [1, 2, 2, 3, 3, 4], [2, 1, 1.5, 5, 3, 2]
    corr, eps, _ = stats.KendallWithTiesOpt(gold, metric, sample_rate=1.0)
    best = max((float(_acc23_by_hand([metric], [gold], e)), -e) for e in [0.0] + [abs(a - b) for a, b in
                                                                             itertools.combinations(metric, 2)])
    assert (corr, eps) == (pytest.approx(best[0]), -best[1])


def test_sample_rate_draws_from_the_given_generator():
    metric, human = list(range(0, 40, 3)), list(range(14))
    a = stats.KendallWithTiesOpt(human, metric, sample_rate=0.3, rng=11)[2].thresholds
    b = stats.KendallWithTiesOpt(human, metric, sample_rate=0.3, rng=11)[2].thresholds
    full = stats.KendallWithTiesOpt(human, metric, sample_rate=1.0)[2].thresholds
    assert a == b and 1 < len(a) < len(full)


# -- PCE / SPA -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("compat", ["docmetrics", "mtme"])
def test_pairwise_p_values_equal_a_count_over_the_same_sign_vectors(compat):
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 5, (4, 9)).astype(float)
    u = np.random.default_rng(4).random(size=(200, 9), dtype=np.float32)
    signs = np.where(np.rint(u) > 0, 1, -1)
    got = pce.compute_pairwise_p_values(scores, num_permutations=200, compat=compat)
    for i, j in itertools.combinations(range(4), 2):
        d = scores[i] - scores[j]  # integers: every sum exact
        assert got[i, j] == sum(int(s @ d >= d.sum()) for s in signs) / 200
        assert math.isnan(got[j, i])


def test_one_minus_pce_of_identical_p_values_is_one():
    p = pce.compute_pairwise_p_values(np.arange(12.0).reshape(3, 4))
    assert pce.compute_one_minus_pce(p, p) == 1.0
    q = p.copy()
    q[0, 1] += 0.3
    assert pce.compute_one_minus_pce(p, q) == pytest.approx(1 - 0.3 / 3)


# -- significance ------------------------------------------------------------------------------------------------
def test_williams_test_matches_mtmes_documented_values_and_is_symmetric():
    gold = [1, 2, 3, 4, 5]
    c1 = stats.Correlation(5, gold, [1.1, 2, 3.1, 4, 5.1])
    c2 = stats.Correlation(5, gold, [1.5, 2, 3.1, 4, 5.5])
    p, r1, r2 = stats.WilliamsSigDiff(c1, c2, scipy.stats.pearsonr)
    assert (round(p, 3), round(r1, 3), round(r2, 3)) == (0.019, 0.999, 0.987)
    assert r1 == pytest.approx(scipy.stats.pearsonr(gold, c1.metric_scores)[0])
    assert stats.WilliamsSigDiff(c2, c1, scipy.stats.pearsonr)[0] == pytest.approx(p)
    assert stats.WilliamsSigDiff(c1, c2, scipy.stats.pearsonr, one_sided=False)[0] == pytest.approx(2 * p)


def test_permutation_sig_diff_counts_its_resamples_and_repeats_with_a_seed():
    gold = [1, 2, 3, 4, 5, 5, 7, 8]
    c1, c2 = stats.Correlation(4, gold, [1, 2, 3, 3, 7, 3, 5, 5]), stats.Correlation(4, gold, [2, 1, 2, 6, 8, 8, 7, 6])
    p, delta, k, corrs = stats.PermutationSigDiff(c1, c2, scipy.stats.pearsonr, "none", 300, rng=1)
    ref = scipy.stats.pearsonr(c2.metric_scores, gold)[0] - scipy.stats.pearsonr(c1.metric_scores, gold)[0]
    assert delta == pytest.approx(ref) and k == 300 == len(corrs)
    assert p == sum(b - a >= delta - 1e-12 for b, a in corrs) / 300
    assert stats.PermutationSigDiff(c1, c2, scipy.stats.pearsonr, "none", 300, rng=1)[0] == p


def test_early_stopping_stops_at_a_block_boundary_outside_the_bounds():
    gold = list(range(12))
    same = stats.Correlation(1, gold, list(range(12)))
    params = stats.PermutationSigDiffParams(block_size=20, early_min=0.0, early_max=0.2)
    p, delta, k, _ = stats.PermutationSigDiff(same, same, scipy.stats.pearsonr, "none", 1000, params, rng=2)
    assert delta == 0 and k == 20 and p == 1.0  # identical metrics: every resample ties delta 0


def test_pairwise_permutation_keeps_each_metrics_epsilon():
    gold = [1, 3, 3, 3, 1, 2, 1, 2]
    c1, c2 = stats.Correlation(4, gold, [2, 4, 6, 6, 2, 6, 3, 7]), stats.Correlation(4, gold, [1, 5, 4, 4, 4, 3, 2, 1])
    _, delta, k, corrs = stats.PairwisePermutationSigDiff(c1, c2, "b", "item", 10, epsilon1=1, epsilon2=1, rng=3)
    expected = c2.KendallVariants("item", "b", epsilon=1)[0] - c1.KendallVariants("item", "b", epsilon=1)[0]
    assert delta == pytest.approx(expected) and k == 10 == len(corrs)


# -- sampling and weights --------------------------------------------------------------------------------------
@pytest.mark.parametrize("bins,size,expected", [
    ([2, 2, 2, 2], 4, [1, 1, 1, 1]),
    ([2, 6], 4, [1, 3]),
    ([1, 7], 3, [0, 3]),          # 0.375 and 2.625: the larger remainder gets the rounding
    ([2, 3, 5], 4, [1, 1, 2]),    # 0.8, 1.2, 2.0: the first has the largest remainder
])
def test_stratified_sample_sizes_by_largest_remainder(bins, size, expected):
    s = stats.Sample(sum(bins), size, "stratify", bins, seed=7)
    starts = np.r_[0, np.cumsum(bins)]
    got = [int(((s.sample >= a) & (s.sample < b)).sum()) for a, b in zip(starts[:-1], starts[1:])]
    assert got == expected and len(set(s.sample.tolist())) == size


def test_uniform_sample_is_distinct_and_repeatable():
    a, b = stats.Sample(50, 10, "uniform", seed=3), stats.Sample(50, 10, "uniform", seed=3)
    assert list(a.sample) == list(b.sample) and len(set(a.sample.tolist())) == 10
    assert list(a.Select(np.arange(50) * 2)) == [2 * i for i in a.sample]


def test_assign_weights_splits_evenly_attribute_by_attribute():
    tasks = [{"lang": "en-de", "level": "sys"}, {"lang": "en-de", "level": "seg"}, {"lang": "zh-en", "level": "sys"},
             {"lang": "en-de", "level": "seg"}]
    assert stats.AssignWeights(tasks, ["lang"]) == [pytest.approx(1 / 6)] * 2 + [0.5, pytest.approx(1 / 6)]
    assert stats.AssignWeights(tasks, ["lang", "level"]) == [0.25, 0.125, 0.5, 0.125]
    assert stats.AssignWeights(tasks, []) == [0.25] * 4


# -- bad arguments: docmetrics' error, also a ValueError (MTME's class) ------------------------------------------
BAD = [
    ("compat", lambda: stats.Correlation(2, [1, 2], [1, 2], compat="scipy"), "compat='scipy'"),
    ("average_by", lambda: stats.Correlation(2, [1, 2, 3, 4], [1, 2, 3, 4]).Pearson("rows"), "average_by='rows'"),
    ("variant", lambda: stats.KendallVariants([1, 2], [1, 2], "d"), "variant must be"),
    ("negative epsilon", lambda: stats.KendallVariants([1, 2], [1, 2], "23", epsilon=-1), "non-negative"),
    ("tau-c with epsilon", lambda: stats.KendallVariants([1, 2], [1, 2], "c", epsilon=1), "tau-c"),
    ("sample_rate 0", lambda: stats.KendallWithTiesOpt([1, 2], [1, 2], sample_rate=0), "sample_rate"),
    ("ties opt variant b", lambda: stats.KendallWithTiesOpt([1, 2], [1, 2], "b"), "*23"),
    ("pdp with kendall", lambda: stats.AverageCorrelation(scipy.stats.kendalltau, 2, pdp=True)([1, 2], [1, 2]),
     "Pearson"),
    ("pdp with one system", lambda: stats.AverageCorrelation(scipy.stats.pearsonr, 1, "item", pdp=True)([1, 2],
                                                                                                         [1, 2]),
     "2 systems"),
    ("uneven systems", lambda: stats.Correlation(2, [1, 2, 3], [1, 2, 3]), "3 gold scores"),
    ("tau-c pairwise", lambda: stats.PairwisePermutationSigDiff(stats.Correlation(1, [1, 2], [1, 2]),
                                                                stats.Correlation(1, [1, 2], [2, 1]), "c"), "tau-c"),
    ("other gold", lambda: stats.WilliamsSigDiff(stats.Correlation(1, [1, 2], [1, 2]),
                                                 stats.Correlation(1, [2, 1], [1, 2]), scipy.stats.pearsonr), "Gold"),
    ("sample method", lambda: stats.Sample(4, 2, "systematic"), "Unknown method"),
    ("strata sizes", lambda: stats.Sample(4, 2, "stratify", [1, 2]), "bin_sizes"),
    ("rng", lambda: stats.KendallWithTiesOpt([1, 2, 3], [1, 2, 3], sample_rate=0.5, rng="seed"), "rng="),
    ("nan in pce", lambda: pce.compute_pairwise_p_values(np.array([[1.0, np.nan], [1.0, 2.0]])), "NaN"),
]


@pytest.mark.parametrize("why,call,words", BAD, ids=[b[0] for b in BAD])
def test_bad_arguments(why, call, words):
    with pytest.raises(stats.StatsError) as err:
        call()
    assert isinstance(err.value, UserError) and isinstance(err.value, ValueError)
    assert words in str(err.value)


def test_imports_without_torch():
    code = "import sys; from docmetrics import stats; from docmetrics.stats import pce, tau_optimization; " \
           "print(any(m == 'torch' or m.startswith('torch.') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- Williams' test between metrics (--metric-test williams) --------------------------------------------------
def _williams_by_hand(r12, r13, r23, n):
    """Steiger (1980) / Graham and Baldwin (2014), eq. (2)-(3), written out here: one-sided p of r12 > r13."""
    det = 1 - r12 * r12 - r13 * r13 - r23 * r23 + 2 * r12 * r13 * r23
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(
        2 * (n - 1) / (n - 3) * det + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3)
    return scipy.stats.t.sf(abs(t), n - 3)


def test_williams_between_two_metrics_equals_the_formula():
    from docmetrics.judging.comparisons import williams

    human = [1.0, 2.0, 3.0, 4.0, 5.0, 7.0]
    a, b = [1.1, 2.0, 3.1, 4.0, 5.1, 6.0], [1.5, 2.0, 3.1, 4.0, 5.5, 9.0]
    res = williams(a, b, human)
    r = scipy.stats.pearsonr
    assert res.p_value == pytest.approx(_williams_by_hand(r(a, human)[0], r(b, human)[0], r(a, b)[0], 6))
    assert res.details["test"] == "williams" and res.n_resamples == 0


def test_metric_test_williams_from_the_command_line(monkeypatch, capsys, folder):
    """--human with two metrics: system- and segment-level Pearson are clustered by Williams' test (named in the
    notes and the JSON), each p-value the formula's on the printed scores; the other statistics keep PERM-BOTH."""
    import json

    monkeypatch.chdir(folder)
    code, out, err = run_cli(capsys, "-m", "chrf", "bleu", *TEXTS, "--human", "human.tsv", "--seg-level",
                             "--metric-test", "williams", "-f", "json")
    assert code == 0, err
    rows = {d["metric"]: d for d in json.loads(out)}
    assert rows["chrf"]["williams"] == ["pearson", "seg_pearson"]
    first, second = sorted(rows, key=lambda m: -rows[m]["pearson"])
    ra, rb = rows[first]["metric_scores"], rows[second]["metric_scores"]
    human = rows[first]["human_scores"]
    r = scipy.stats.pearsonr
    expected = _williams_by_hand(r(ra, human)[0], r(rb, human)[0], r(ra, rb)[0], len(human))
    assert rows[first]["pvalues"]["pearson"][second] == pytest.approx(expected)
    code, out, _ = run_cli(capsys, "-m", "chrf", "bleu", *TEXTS, "--human", "human.tsv", "--seg-level",
                           "--metric-test", "williams")
    assert "pearson, seg_pearson: clusters by Williams' test" in out


def test_metric_test_needs_human_scores(monkeypatch, capsys, folder):
    monkeypatch.chdir(folder)
    code, _, err = run_cli(capsys, "-m", "chrf", *TEXTS, "--metric-test", "williams")
    assert code == 2 and "--metric-test" in err and "Traceback" not in err


def test_metric_test_williams_over_language_pairs_states_why_the_average_has_no_test(monkeypatch, capsys, folder):
    """metaeval averages PERM-BOTH's resamples over language pairs; Williams' test has none: the average is
    ranked without clusters, and says why; with 3 systems (n - 3 = 0 degrees of freedom) Williams' test refuses."""
    monkeypatch.chdir(folder)
    code, out, err = run_cli(capsys, "metaeval", *MTME, "-l", "en-de,zh-en", "-m", "chrf", "bleu", "--resamples", "20",
                             "--metric-test", "williams")
    assert code == 0, err
    assert "no test on the average: Williams' test has no resamples to average" in out
    assert "Williams' test needs more than 3 scores, got 3" in out


def test_meta_evaluate_refuses_an_unknown_metric_test():
    from docmetrics.formats.human_tsv import HumanScores
    from docmetrics.judging.metaeval import meta_evaluate
    from docmetrics.values.errors import SpecError

    with pytest.raises(SpecError, match="metric_test='bootstrap': one of perm-both, williams"):
        meta_evaluate({"chrf": []}, HumanScores.__new__(HumanScores), metric_test="bootstrap")
