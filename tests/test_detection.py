"""Error-free segment detection (docmetrics.algorithms.detection) against hand computations: a small
example worked out on paper (confusion counts, precision, recall, F1, MCC, the precision-recall
curve and its average precision as fractions), thresholds chosen by brute force over every candidate,
and, where scikit-learn is installed, its own functions on random data."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random

import pytest

from docmetrics.algorithms.detection import (
    average_precision,
    best_threshold,
    confusion,
    detect,
    items,
    mcc,
    precision_recall_f1,
)

# Nine items; the seventh has no gold flag and the eighth no score: both are left out.
GOLD = [True, False, True, True, False, False, None, True, False]
SCORES = [0.9, 0.8, 0.8, 0.5, 0.4, 0.9, 0.7, math.nan, 0.1]


def test_the_worked_example_at_a_given_threshold():
    # kept: (T .9) (F .8) (T .8) (T .5) (F .4) (F .9) (F .1); score >= 0.6 predicts .9, .8, .8, .9
    d = detect(GOLD, SCORES, threshold=0.6)
    assert (d.n, d.skipped, d.positives, d.predicted) == (7, 2, 3, 4)
    assert (d.tp, d.fp, d.fn, d.tn) == (2, 2, 1, 2) == confusion(GOLD, SCORES, 0.6)
    assert d.precision == pytest.approx(2 / 4) and d.recall == pytest.approx(2 / 3)
    assert d.f1 == pytest.approx(4 / 7)                       # 2 * (1/2 * 2/3) / (1/2 + 2/3)
    assert d.mcc == pytest.approx((2 * 2 - 2 * 1) / math.sqrt(4 * 3 * 4 * 3))
    # the curve, thresholds from the top: .9 (1/2, 1/3), .8 (2/4, 2/3), .5 (3/5, 1), .4 (3/6, 1), .1 (3/7, 1)
    assert d.average_precision == pytest.approx(1 / 3 * 1 / 2 + 1 / 3 * 2 / 4 + 1 / 3 * 3 / 5) == pytest.approx(8 / 15)
    assert d.chosen_by == "given" and d.threshold == 0.6
    # at or above: a score equal to the threshold is predicted error-free
    assert confusion(GOLD, SCORES, 0.5) == (3, 2, 0, 2)


def test_the_worked_example_chooses_the_threshold_of_the_best_mcc_and_f1():
    # MCC by threshold: .9 1/sqrt(120), .8 1/6, .5 6/sqrt(120), .4 3/sqrt(72), .1 0 -> 0.5
    d = detect(GOLD, SCORES)
    assert d.chosen_by == "mcc" and d.threshold == 0.5
    assert d.mcc == pytest.approx(6 / math.sqrt(120)) and (d.tp, d.fp, d.fn, d.tn) == (3, 2, 0, 2)
    # F1 by threshold: .9 2/5, .8 4/7, .5 3/4, .4 2/3, .1 3/5 -> 0.5
    assert detect(GOLD, SCORES, objective="f1").threshold == 0.5


def test_ties_go_to_the_lower_threshold():
    gold, scores = [True, False, False, True], [0.9, 0.8, 0.7, 0.6]
    # F1: .9 -> P 1, R 1/2: 2/3; .6 -> P 1/2, R 1: 2/3 as well; the lower one wins
    assert best_threshold(gold, scores, "f1") == 0.6
    # MCC: .9 -> 2/sqrt(12); .6 predicts all: 0
    assert best_threshold(gold, scores, "mcc") == 0.9


def brute_force(gold, scores, objective):
    """Every distinct score as the threshold, counted item by item; the best, ties to the lower."""
    kept = [(g, s) for g, s in zip(gold, scores) if g is not None and s is not None and not math.isnan(s)]
    best, at = None, None
    for t in sorted({s for _, s in kept}, reverse=True):
        tp = sum(g and s >= t for g, s in kept)
        fp = sum((not g) and s >= t for g, s in kept)
        fn = sum(g and s < t for g, s in kept)
        tn = sum((not g) and s < t for g, s in kept)
        if objective == "f1":
            v = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
        else:
            den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
            v = (tp * tn - fp * fn) / math.sqrt(den) if den else 0.0
        if best is None or v >= best - 1e-12:
            best, at = v, t
    return at, best


def test_chosen_threshold_equals_brute_force_on_random_data():
    rng = random.Random(5)
    for trial in range(40):
        n = rng.randint(1, 30)
        gold = [rng.random() < 0.4 for _ in range(n)]
        scores = [round(rng.random(), 1) for _ in range(n)]  # many ties among scores
        for objective in ("mcc", "f1"):
            at, value = brute_force(gold, scores, objective)
            d = detect(gold, scores, objective=objective)
            assert d.threshold == at, (trial, objective)
            got = getattr(d, objective)
            if math.isnan(got):  # reported undefined where the choice compared scikit-learn's 0
                assert value == 0 and d.undefined, (trial, objective)
            else:
                assert got == pytest.approx(value, abs=1e-12)


def test_average_precision_by_hand_with_ties_on_random_data():
    rng = random.Random(11)
    for _ in range(40):
        n = rng.randint(1, 25)
        gold = [rng.random() < 0.5 for _ in range(n)]
        scores = [rng.choice([0.1, 0.2, 0.5, 0.7, 0.9]) for _ in range(n)]
        if not any(gold):
            assert math.isnan(average_precision(gold, scores))
            continue
        ap, prev = 0.0, 0.0
        for t in sorted(set(scores), reverse=True):  # sum over thresholds of (R_n - R_n-1) * P_n
            tp = sum(g and s >= t for g, s in zip(gold, scores))
            fp = sum((not g) and s >= t for g, s in zip(gold, scores))
            r = tp / sum(gold)
            ap += (r - prev) * tp / (tp + fp)
            prev = r
        assert average_precision(gold, scores) == pytest.approx(ap, abs=1e-12)


def test_scikit_learn_agrees():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(3)
    for _ in range(20):
        n = rng.randint(2, 40)
        gold = [rng.random() < 0.3 for _ in range(n)]
        gold[0], gold[1] = True, False
        scores = [rng.choice([rng.random(), 0.5]) for _ in range(n)]
        t = rng.choice(scores)
        d = detect(gold, scores, threshold=t)
        pred = [s >= t for s in scores]
        assert d.precision == pytest.approx(metrics.precision_score(gold, pred, zero_division=0))
        assert d.recall == pytest.approx(metrics.recall_score(gold, pred, zero_division=0))
        assert d.f1 == pytest.approx(metrics.f1_score(gold, pred, zero_division=0))
        if math.isnan(d.mcc):  # scikit-learn's 0 where a factor is 0: every item predicted error-free here
            assert all(pred) and metrics.matthews_corrcoef(gold, pred) == 0 and "predicts every item" in d.undefined
        else:
            assert d.mcc == pytest.approx(metrics.matthews_corrcoef(gold, pred))
        assert d.average_precision == pytest.approx(metrics.average_precision_score(gold, scores))


def test_degenerate_sets():
    # nothing error-free: precision 0 (one false positive), F1 0; recall, MCC and AP undefined, and said so
    d = detect([False, False], [0.3, 0.4], threshold=0.35)
    assert (d.tp, d.fp, d.fn, d.tn) == (0, 1, 0, 1) and (d.precision, d.f1) == (0, 0)
    assert math.isnan(d.recall) and math.isnan(d.mcc) and math.isnan(d.average_precision)
    assert d.undefined == "no item is error-free in the gold, so recall, MCC and AP are undefined"
    assert [d.to_dict()[k] for k in ("recall", "mcc", "average_precision")] == [None, None, None]
    assert d.to_dict()["undefined"] == d.undefined
    # ... and nothing predicted either: precision and F1 undefined too
    d = detect([False, False], [0.3, 0.4], threshold=0.5)
    assert all(math.isnan(x) for x in (d.precision, d.recall, d.f1, d.mcc)) and "predicts no item" in d.undefined
    # everything error-free and predicted so: P = R = F1 = 1, MCC undefined (two factors are 0), AP 1
    d = detect([True, True], [0.3, 0.4])
    assert (d.precision, d.recall, d.f1, d.average_precision) == (1, 1, 1, 1) and d.threshold == 0.3
    assert math.isnan(d.mcc) and d.undefined == ("every item is error-free in the gold, so MCC is undefined; the "
                                                  "metric predicts every item error-free, so MCC is undefined")
    # a defined case says nothing
    assert detect([True, False], [0.9, 0.1], threshold=0.5).undefined == ""
    assert precision_recall_f1(0, 0, 0) == (0.0, 0.0, 0.0) and mcc(0, 0, 0, 5) == 0.0
    with pytest.raises(ValueError, match="no item"):
        detect([None, True], [0.5, None])
    with pytest.raises(ValueError, match="objective"):
        detect([True], [0.5], objective="auc")
    with pytest.raises(ValueError, match="2 gold flags but 1 scores"):
        detect([True, False], [0.5])


def test_items_pool_systems_in_order():
    gold = {"A": [True, None], "B": [False, True], "C": [True]}
    scores = {"B": [0.2, 0.9], "A": [0.8, 0.1]}
    assert items(gold, scores) == ([True, None, False, True], [0.8, 0.1, 0.2, 0.9])
    with pytest.raises(ValueError, match="system 'A': 2 gold flags but 1 scores"):
        items(gold, {"A": [0.1]})
    # the pooled items give what the flat lists give
    g, s = items(gold, scores)
    flat = detect([True, False, True], [0.8, 0.2, 0.9], threshold=0.5)
    assert detect(g, s, threshold=0.5) == dataclasses.replace(flat, skipped=1)


def test_every_candidate_threshold_is_a_distinct_score():
    gold = [True, False, True]
    for scores in itertools.permutations([0.1, 0.5, 0.9]):
        assert best_threshold(gold, list(scores)) in scores
