"""The statistics live in one package, docmetrics.stats: every public name resolves there, the old homes are
gone, the numpy tau_optimization keeps MTME's running sum term by term, acc_eq is tau_optimization's acc_23,
and SPA's resampling statistic is soft_pairwise_accuracy's."""

import importlib
import itertools
import math

import numpy as np
import pytest
import scipy.stats

from docmetrics import stats
from docmetrics.stats import tau_optimization as opt
from docmetrics.stats.vector import kendall, pearson, spearman


def test_every_public_name_resolves_and_the_old_homes_are_gone():
    for name in stats.__all__:
        assert getattr(stats, name) is not None, name
    for gone in ("docmetrics.algorithms.wmt_stats", "docmetrics.algorithms.correlation"):
        with pytest.raises(ImportError):
            importlib.import_module(gone)


def mtme_running_sum(metric_rows, human_rows, tau_fn):
    """MTME's tau_optimization written pair by pair (the loop the numpy version replaced): the reference."""
    pairs = []
    for r, (mr, hr) in enumerate(zip(metric_rows, human_rows)):
        kept = [(h, m) for h, m in zip(hr, mr) if h is not None and m is not None]
        for (h1, m1), (h2, m2) in itertools.combinations(kept, 2):
            if h1 == h2:
                normal = "ties_both" if m1 == m2 else "ties_human"
            elif m1 == m2:
                normal = "ties_metric"
            else:
                normal = "con" if (h1 > h2) == (m1 > m2) else "dis"
            pairs.append((abs(m1 - m2), r, normal, "ties_both" if h1 == h2 else "ties_metric"))
    if not pairs:
        return [0.0], [math.nan]
    rows = {r: opt.TauSufficientStats() for r in sorted({p[1] for p in pairs})}
    for _, r, normal, _ in pairs:
        setattr(rows[r], normal, getattr(rows[r], normal) + 1)
        rows[r].num_pairs += 1
    total = sum(tau_fn(s) for s in rows.values())
    thresholds, taus = [0.0], [total / len(rows)]
    for diff, r, normal, tied in sorted(pairs, key=lambda p: p[0]):
        s = rows[r]
        total -= tau_fn(s)
        setattr(s, normal, getattr(s, normal) - 1)
        setattr(s, tied, getattr(s, tied) + 1)
        total += tau_fn(s)
        if thresholds[-1] == diff:
            taus[-1] = total / len(rows)
        else:
            thresholds.append(diff)
            taus.append(total / len(rows))
    return thresholds, taus


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tau_fn", [opt.TauSufficientStats.acc_23, opt.TauSufficientStats.tau_23])
def test_numpy_tau_optimization_is_mtmes_running_sum_bit_for_bit(seed, tau_fn):
    rng = np.random.default_rng(seed)
    n_rows, n_cols = int(rng.integers(1, 12)), int(rng.integers(2, 9))
    metric = [[None if rng.random() < 0.1 else float(rng.integers(0, 9)) / 4 for _ in range(n_cols)]
              for _ in range(n_rows)]
    human = [[None if rng.random() < 0.1 else float(rng.integers(0, 4)) for _ in range(n_cols)]
             for _ in range(n_rows)]
    res = opt.tau_optimization(metric, human, tau_fn, compat="mtme")
    thresholds, taus = mtme_running_sum(metric, human, tau_fn)
    if math.isnan(taus[0]):  # no pair at all
        assert res.thresholds == [0.0] and math.isnan(res.best_tau)
        return
    assert res.thresholds == thresholds and res.taus == taus  # exactly: the same float operations in order
    assert res.best_threshold == thresholds[int(np.nanargmax(taus))]


def test_acc_eq_is_tau_optimization_of_acc23_within_items():
    rng = np.random.default_rng(3)
    metric = {f"s{i}": list(rng.normal(size=20).round(1)) for i in range(5)}
    human = {s: [None if rng.random() < 0.1 else float(v) for v in rng.integers(0, 5, size=20)] for s in metric}
    res = stats.acc_eq(metric, human)
    names = sorted(metric)
    rows_m = [[metric[s][i] for s in names] for i in range(20)]
    rows_h = [[human[s][i] for s in names] for i in range(20)]
    ref = opt.tau_optimization(rows_m, rows_h, opt.TauSufficientStats.acc_23)
    assert (res.accuracy, res.epsilon, res.calibrated) == (ref.best_tau, ref.best_threshold, True)
    fixed = stats.acc_eq(metric, human, epsilon=0.25)
    assert fixed.accuracy == ref.taus[max(i for i, t in enumerate(ref.thresholds) if t <= 0.25)]
    assert not fixed.calibrated and fixed.epsilon == 0.25


def test_too_many_pairs_are_refused_with_the_way_out():
    with pytest.raises(stats.StatsError, match="too many for one call; group the scores by item"):
        stats.acc_eq_rows(np.zeros((1, 9000)), np.zeros((1, 9000)))


def test_spa_statistic_is_soft_pairwise_accuracy_on_the_same_items():
    rng = np.random.default_rng(5)
    human = rng.normal(size=(4, 12))
    metric = human + rng.normal(size=(4, 12))
    names = ["a", "b", "c", "d"]
    as_map = lambda mat: {s: list(row) for s, row in zip(names, mat)}  # noqa: E731
    spa = stats.soft_pairwise_accuracy(as_map(metric), as_map(human), systems=names, n_permutations=300, seed=9)
    assert stats.spa_statistic(human, metric.shape, 300, 9)(metric.ravel()) == spa.spa
    with pytest.raises(stats.StatsError, match="at least 2 systems"):
        stats.spa_statistic(human[:1], (1, 12))


@pytest.mark.parametrize("seed", range(4))
def test_vector_correlations_equal_scipy_with_ties(seed):
    rng = np.random.default_rng(seed)
    x, y = list(rng.integers(0, 5, size=30).astype(float)), list(rng.integers(0, 4, size=30).astype(float))
    assert pearson(x, y) == pytest.approx(scipy.stats.pearsonr(x, y)[0], abs=1e-14)
    assert spearman(x, y) == pytest.approx(scipy.stats.spearmanr(x, y)[0], abs=1e-14)
    assert kendall(x, y) == pytest.approx(scipy.stats.kendalltau(x, y)[0], abs=1e-14)
    assert math.isnan(kendall([1.0], [2.0])) and math.isnan(spearman([1.0, math.nan], [1.0, 2.0]))
