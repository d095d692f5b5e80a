"""Hardening round 6 (issue 45), "Against mt-metrics-eval": each row compares docmetrics' statistic with an
independent computation (scipy, a hand count with exact fractions, or the value MTME documents)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats

from docmetrics.stats import combined_pvalue, grouped_correlation, pdp, perm_both
from docmetrics.stats.ties import TIE_TOLERANCE, at_least, exceeds
from docmetrics.stats.vector import kendall, pairwise_accuracy, pearson, spearman

# -- 1. an undefined correlation is NaN, never clamped to 1, and a constant input is found exactly -------------
NAN = float("nan")
UNDEFINED = [
    # (why, x, y)
    ("constant 0.1 (its rounded mean is not 0.1)", [0.1] * 3, [1, 2, 4]),
    ("constant second input", [1, 2, 4], [0.3] * 3),
    ("constant 1/3 of many", [1 / 3] * 7, [1, 2, 3, 4, 5, 6, 8]),
    ("a NaN among the values", [NAN, 1.0, 2.0], [1.0, 2.0, 3.0]),
    ("NaN z-scores of a constant metric", [NAN] * 4, [1.0, 2.0, 3.0, 5.0]),
    ("one value", [1.0], [2.0]),
]


@pytest.mark.parametrize("why,x,y", UNDEFINED, ids=[u[0] for u in UNDEFINED])
@pytest.mark.parametrize("as_array", [False, True], ids=["list", "numpy"])
def test_undefined_correlation_is_nan(why, x, y, as_array):
    if as_array:
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) >= 2:  # scipy agrees that the correlation is undefined
        with pytest.warns(Warning) if not np.isnan(np.asarray(x, dtype=float)).any() else _nothing():
            assert math.isnan(scipy.stats.pearsonr(np.asarray(x, float), np.asarray(y, float))[0])
    assert math.isnan(pearson(x, y))
    assert math.isnan(spearman(x, y))
    if not np.isnan(np.asarray(x, dtype=float)).any():
        assert math.isnan(kendall(x, y))


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_pearson_of_a_defined_pair_still_matches_scipy():
    x, y = [0.1, 0.1, 0.2, 0.4], [1, 2, 4, 3]
    assert pearson(x, y) == pytest.approx(scipy.stats.pearsonr(x, y)[0], abs=1e-15)
    assert pearson(np.asarray(x), np.asarray(y, float)) == pytest.approx(scipy.stats.pearsonr(x, y)[0], abs=1e-15)


def test_item_grouped_pearson_skips_an_item_where_every_system_ties():
    """Issue 45's case: 3 systems x 2 items (gold [1,1,2,2,4,3], metric [0.1,1,0.1,2,0.1,3], packed by system as
    MTME packs them); item 1's metric scores are all 0.1 (undefined), item 2 correlates perfectly: MTME's
    ``Correlation(3, gold, metric).Pearson(average_by='item')`` is 1.0 (it was 0.5)."""
    gold = np.array([1, 1, 2, 2, 4, 3], dtype=float).reshape(3, 2).T  # rows: items
    metric = np.array([0.1, 1, 0.1, 2, 0.1, 3]).reshape(3, 2).T
    assert scipy.stats.pearsonr(gold[1], metric[1])[0] == pytest.approx(1.0)
    value, rows = grouped_correlation(gold, metric, pearson)
    assert (value, rows) == (pytest.approx(1.0), 1)


def test_item_grouped_with_no_defined_item_is_nan_with_zero_rows():
    gold = np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]])
    metric = np.array([[0.1, 0.1, 0.1], [1.0, 2.0, 3.0]])
    value, rows = grouped_correlation(gold, metric, pearson)
    assert math.isnan(value) and rows == 0  # MTME reports 0 here: docmetrics' stated choice is NaN


def test_pdp_of_nan_scores_is_nan_not_one():
    gold = np.array([[1.0, 2.0, 4.0]])
    assert math.isnan(pdp(gold, np.array([[NAN, NAN, NAN]])))


# -- 2. one tie tolerance, applied by every resampling test -----------------------------------------------------
def _acc(v, human):
    return Fraction(sum(int(np.sign(v[i] - v[j]) == np.sign(human[i] - human[j]))
                        for i, j in itertools.combinations(range(len(v)), 2)), math.comb(len(v), 2))


def test_perm_both_counts_tied_resamples():
    """Issue 45's case: PERM-BOTH of pairwise accuracy, a=[1,8,8,5,0], b=[0,3,4,6,4], human [4,2,1,3,0], 1000
    resamples, seed 12345.  The hand count redoes the same draws with exact fractions: 359 resamples at least the
    observed difference (an exact compare of the floats counted 283)."""
    a, b, human = [1, 8, 8, 5, 0], [0, 3, 4, 6, 4], [4, 2, 1, 3, 0]
    res = perm_both(a, b, lambda v: pairwise_accuracy(list(v), human)[0], n_resamples=1000, seed=12345)
    za, zb = scipy.stats.zscore(np.asarray(a, float)), scipy.stats.zscore(np.asarray(b, float))
    observed = _acc(za, human) - _acc(zb, human)
    rng = np.random.default_rng(12345)
    count = 0
    for _ in range(1000):
        swap = rng.integers(0, 2, size=5).astype(bool)
        count += _acc(np.where(swap, zb, za), human) - _acc(np.where(swap, za, zb), human) >= observed
    assert count == 359
    assert res.p_value == count / 1000
    assert res.delta == pytest.approx(float(observed))


def test_combined_pvalue_counts_a_tie_of_rounding():
    """0.1 + 0.2 is 0.30000000000000004 in floats: a null draw of 0.3 ties it and is counted."""
    assert combined_pvalue(0.1 + 0.2, [[0.3, 0.0]], weights=[1.0]) == 0.5


@pytest.mark.parametrize("null,observed,scale,ge,gt", [
    (1.0 - 1e-13, 1.0, 1.0, True, False),            # within the tolerance: a tie
    (1.0 - 1e-11, 1.0, 1.0, False, False),           # outside it: below
    (1.0 + 1e-11, 1.0, 1.0, True, True),             # outside it: above
    (1000.0 - 1e-10, 1000.0, 1000.0, True, False),   # the tolerance scales with the summed magnitudes
    (0.5 - 0.9e-12, 0.5, 0.01, True, False),         # never below 1e-12 absolute
])
def test_one_tie_tolerance(null, observed, scale, ge, gt):
    assert TIE_TOLERANCE == 1e-12
    assert bool(at_least([null], observed, scale)[0]) is ge
    assert bool(exceeds([null], observed, scale)[0]) is gt


# -- 3. a constant metric in PERM-BOTH ---------------------------------------------------------------------------
def test_perm_both_with_a_constant_metric():
    """A constant metric's z-scores are NaN and its correlation undefined (0 in a resample, as in MTME): the
    observed delta is 0 - r(b), not 1 - r(b) (the clamp of NaN to 1 gave -1.980 where MTME gives -0.980)."""
    human = np.array([4.0, 2.0, 1.0, 3.0, 0.0])
    b = [0.0, 3.0, 4.0, 6.0, 4.0]
    res = perm_both([2.5] * 5, b, lambda v: pearson(v, human), n_resamples=200, seed=3)
    assert res.delta == pytest.approx(-scipy.stats.pearsonr(b, human)[0], abs=1e-12)
    assert not np.isnan(res.null).any()


# -- 4. docmetrics' conventions where MTME differs, stated in the JSON -------------------------------------------
def test_acc_eq_states_its_epsilon_rule_and_takes_the_smallest_epsilon():
    """Two groups; epsilon 0 and epsilon 1 give the same accuracy (hand count: 3/4 either way), so the reported
    epsilon is the smallest, 0, and the JSON says which rule chose it."""
    from docmetrics.stats import acc_eq_rows
    from docmetrics.stats.base import EPSILON_RULE

    # group 1: metric [0, 1], human [0, 0] (tie in human); group 2: metric [0, 1], human [0, 1]
    # eps 0: group 1 wrong (metric orders, human ties), group 2 right -> 1/2;  eps 1: group 1 right, group 2 wrong
    res = acc_eq_rows([[0.0, 1.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 1.0]])
    assert res.accuracy == 0.5 and res.epsilon == 0.0
    assert res.to_dict()["epsilon_rule"] == EPSILON_RULE == "smallest of equal accuracy"
