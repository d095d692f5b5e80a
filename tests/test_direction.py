"""Direction, end to end (issue 29, item 1): a metric whose lower scores are better (MetricX's errors, TER) is
read the right way round by every consumer.  Each row judges a metric and its negated twin (the same scores
times -1, declared lower-is-better) and asserts the same verdicts: statistics, comparisons and clusters,
detection, written MTME files, paired tests; output keeps each metric's own values."""

from __future__ import annotations

import dataclasses
import math

import pytest
from plugin_fixtures import toy_dist  # noqa: F401

import docmetrics
from docmetrics.algorithms.detection import detect
from docmetrics.judging import paired as significance
from docmetrics.judging.evaluate import evaluate_wmt
from docmetrics.judging.mtme import write_mtme_scores
from docmetrics.values.result import Result
from docmetrics.values.testset import TestSet

pytestmark = pytest.mark.usefixtures("toy_dist")

SYSTEMS = {
    "sysA": ["Good news one.", "Good news two today.", "A talk.", "Another talk here.", "Short.", "Long answer here."],
    "sysB": ["Bad.", "Good news two.", "A long talk indeed here.", "Talk.", "Short one.", "Answer."],
    "sysC": ["News.", "News two today, fine.", "Talk talk.", "Another talk.", "Short answer.", "Ok."],
    "sysD": ["The news.", "Two news today.", "The talk here.", "Other talk here.", "Shorter.", "An answer here."],
}
HUMAN = {"sysA": [95, 90, 70, 88, 100, 60], "sysB": [40, 86, 92, 50, 85, 30], "sysC": [66, 99, 75, 91, 87, 20],
         "sysD": [80, 70, 65, 95, 90, 55]}
DOC_IDS = ["n1", "n1", "t1", "t1", "t2", "t2"]
SOURCES = [f"Quelle {i} mit Wörtern." for i in range(6)]


def negated(r: Result) -> Result:
    """The twin: every score times -1, declared lower-is-better (sufficient statistics kept)."""
    return dataclasses.replace(
        r, score=-r.score, units=[dataclasses.replace(u, score=-u.score) for u in r.units],
        docs=[dataclasses.replace(d, score=None if d.score is None else -d.score) for d in r.docs],
        higher_is_better=False)


def wobbled(r: Result, k: int) -> Result:
    """Another metric: the toy's scores moved a little, segment by segment."""
    units = [dataclasses.replace(u, score=u.score + 0.05 * math.sin(3 * u.start + k)) for u in r.units]
    return dataclasses.replace(r, units=units, score=math.fsum(u.score for u in units) / len(units))


@pytest.fixture(scope="module")
def results():
    testset = TestSet.from_lists(SYSTEMS, SOURCES, None, DOC_IDS)
    a = docmetrics.load("slide:w=1,s=1,backbone=toy").compute(testset)
    return {"a": a, "a-": [negated(r) for r in a], "c": [wobbled(r, k) for k, r in enumerate(a)]}


def stats(ev):
    keys = ("pearson", "spearman", "kendall", "accuracy", "spa", "seg_acc_eq", "seg_pearson", "seg_kendall", "pdp",
            "doc_acc_eq", "doc_pearson", "doc_kendall", "doc_spa", "doc_pdp")
    return {k: ev.get(k) for k in keys}


def test_the_oriented_view_negates_scores_and_keeps_statistics(results):
    a, twin = results["a"][0], results["a-"][0]
    view = twin.oriented()
    assert view.higher_is_better and view.score == a.score and [u.score for u in view.units] == [u.score for u in a.units]
    assert [d.score for d in view.docs] == [d.score for d in a.docs] and view.units[0].stats == a.units[0].stats
    assert a.oriented() is a and twin.to_dict()["higher_is_better"] is False and "higher_is_better" not in a.to_dict()


def test_meta_evaluation_of_a_metric_and_its_negated_twin_is_the_same(results):
    kw = dict(doc_rule="mean", doc_ids=DOC_IDS, significance=())
    plain = evaluate_wmt({"m": results["a"]}, None, HUMAN, **kw).metrics["m"]
    twin = evaluate_wmt({"m": results["a-"]}, None, HUMAN, **kw).metrics["m"]
    assert stats(plain) == stats(twin) and abs(plain.pearson) > 0.05  # it would flip sign if read raw
    assert twin.metric_scores == [-x for x in plain.metric_scores]  # output keeps the metric's own values
    assert not twin.higher_is_better and twin.to_dict()["higher_is_better"] is False
    raw = evaluate_wmt({"m": [dataclasses.replace(r, higher_is_better=True) for r in results["a-"]]}, None, HUMAN,
                       **kw).metrics["m"]
    assert raw.pearson == pytest.approx(-plain.pearson)  # what reading it backwards gives


def test_comparisons_and_clusters_between_metrics_are_the_same(results):
    one = evaluate_wmt({"m": results["a"], "c": results["c"]}, None, HUMAN, n_resamples=50)
    two = evaluate_wmt({"m": results["a-"], "c": results["c"]}, None, HUMAN, n_resamples=50)
    assert set(one.comparisons) == set(two.comparisons) and one.comparisons
    for stat in one.comparisons:
        assert one.comparisons[stat].to_dict() == two.comparisons[stat].to_dict(), stat


def test_error_free_detection_predicts_at_or_below_for_the_twin(results, tmp_path):
    from docmetrics.formats.genmt import read_genmt
    from docmetrics.judging import error_free

    lines = []
    for i in range(6):
        lines.append({"doc_id": f"en-de_DE_#_news_#_{DOC_IDS[i]}_#_{i}", "src_text": SOURCES[i],
                      "tgt_text": {s: SYSTEMS[s][i] for s in SYSTEMS},
                      "scores": {s: {"human": HUMAN[s][i], "errors": []} for s in SYSTEMS}})
    path = tmp_path / "g.jsonl"
    import json

    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    pair = read_genmt(path).pair("en-de")
    threshold = sorted(u.score for r in results["a"] for u in r.units)[10]
    for given in (threshold, None):
        (d,) = [f.detection for f in error_free([("a", results["a"])], pair, given)]
        (t,) = [f.detection for f in error_free([("a-", results["a-"])], pair, None if given is None else -threshold)]
        assert (d.tp, d.fp, d.fn, d.tn, d.mcc) == (t.tp, t.fp, t.fn, t.tn, t.mcc)
        assert t.threshold == -d.threshold and t.at_or_below and not d.at_or_below
    # by hand: the twin predicts error-free where its own score is at or below the threshold
    gold = [True if h >= 85 else False for s in SYSTEMS for h in HUMAN[s]]
    own = [u.score for r in results["a-"] for u in r.units]
    (t,) = [f.detection for f in error_free([("a-", results["a-"])], pair, -threshold)]
    assert t.tp == sum(g and x <= -threshold for g, x in zip(gold, own))
    assert detect(gold, [-x for x in own], threshold).tp == t.tp


def test_mtme_files_hold_the_twin_negated_as_mtme_reads_scores(results, tmp_path):
    one = write_mtme_scores(tmp_path / "a", "toy", "en-de", "m", "refA", results["a"], n_segments=6)
    two = write_mtme_scores(tmp_path / "b", "toy", "en-de", "m", "refA", results["a-"], n_segments=6)
    assert two.negated and not one.negated and two.to_dict()["negated"] is True
    for level in ("sys", "seg", "doc"):
        with open(one.paths[level], encoding="utf-8") as f, open(two.paths[level], encoding="utf-8") as g:
            assert f.read() == g.read(), level


def test_paired_tests_give_the_same_p_values(results):
    for test in ("bs", "ar"):
        one = significance.paired_test(results["a"], test, n=200, seed=3)
        two = significance.paired_test(results["a-"], test, n=200, seed=3)
        assert [r.p_value for r in one.rows] == [r.p_value for r in two.rows], test
        assert [r.score for r in two.rows] == [-r.score for r in one.rows]  # each keeps its own values


def test_ter_is_lower_is_better_and_bleu_is_not():
    testset = TestSet.from_lists({"s": ["a b c", "d e"]}, None, ["a b d", "d e"], ["x", "x"])
    assert docmetrics.load("ter").compute(testset)[0].higher_is_better is False
    assert docmetrics.load("d-ter").compute(testset)[0].higher_is_better is False
    assert docmetrics.load("bleu").compute(testset)[0].higher_is_better is True
