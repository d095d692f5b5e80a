"""``docmetrics rank`` is the library's calls (issue 46, the ranking slice): :func:`docmetrics.judging.autorank`,
:func:`~docmetrics.judging.autorank_clusters` (AutoRank's clusters by a paired bootstrap over documents) and
:func:`~docmetrics.judging.cluster_agreement` (each metric's agreement with the human clusters) give, from Python,
the JSON the command prints: ``rank -m ... --paired-bs``, ``rank --scores ... --paired-bs``, ``rank -m ... --genmt``
and ``rank --genmt ... --scores``; and they refuse what they cannot rank, naming the parameter."""

from __future__ import annotations

import json

import pytest
from cli_fixtures import run_cli
from test_autorank import write_tsv
from test_judging_api import genmt_rows

import docmetrics
from docmetrics.judging import (
    AutoRank,
    ClusterAgreement,
    autorank,
    autorank_clusters,
    cluster_agreement,
    human_clusters,
    read_human,
)
from docmetrics.values.errors import InputError, SpecError


@pytest.fixture()
def genmt(tmp_path):
    path = tmp_path / "genmt.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in genmt_rows()), encoding="utf-8")
    return path


@pytest.fixture()
def stored(tmp_path):
    """Stored segment scores of two metrics for four systems, 12 segments in 12 documents (enough to resample)."""
    doc_ids = [f"d{i}" for i in range(12)]
    segments = {
        "m1": {f"s{k}": [float(k * 3 + (i % 4)) for i in range(12)] for k in range(4)},
        "m2": {f"s{k}": [float(k + (i % 3) * 0.5) for i in range(12)] for k in range(4)},
    }
    return write_tsv(tmp_path / "scores.tsv", segments, doc_ids)


def as_json(value):
    return json.loads(json.dumps(value))


def rank_json(capsys, *argv):
    code, out, err = run_cli(capsys, "rank", *argv, "-f", "json")
    assert code == 0, err
    return json.loads(out)


def test_autorank_clusters_of_results_is_what_rank_m_paired_bs_prints(genmt, capsys):
    data = read_human(genmt, lp="en-de")
    results = {s: docmetrics.load(s).compute(data.testset) for s in ("chrf", "bleu")}
    ranked = autorank_clusters(results, lp=data.lp, n=200, seed=7)
    assert isinstance(ranked, AutoRank)
    assert all(s.cluster is not None for s in ranked.systems)
    assert ranked.significance["resamples"] == 200 and ranked.significance["seed"] == 7
    assert any("fewer than 10" in n for n in ranked.notes)  # 2 documents: said
    got = rank_json(capsys, "-m", "chrf", "bleu", "--genmt", genmt, "-l", "en-de", "--paired-bs",
                    "--paired-bs-n", "200", "--seed", "7")
    got.pop("human_clusters")
    assert got == as_json(ranked.to_dict())


def test_autorank_clusters_keeps_a_given_ranking(genmt):
    data = read_human(genmt, lp="en-de")
    results = {"chrf": docmetrics.load("chrf").compute(data.testset)}
    ranking = autorank(results, lp=data.lp)
    ranking.metric_info["chrf"]["mine"] = 1
    assert autorank_clusters(results, ranking=ranking, n=50) is ranking
    assert ranking.metric_info["chrf"]["mine"] == 1 and ranking.significance["resamples"] == 50


def test_autorank_clusters_of_stored_scores_is_what_rank_scores_paired_bs_prints(stored, capsys):
    data = read_human(stored, format="stored")
    ranked = autorank_clusters(data, n=300, seed=3)
    assert [s.system for s in ranked.systems] == ["s3", "s2", "s1", "s0"]
    assert [s.cluster for s in ranked.systems] == [1, 2, 3, 4]  # a clear gap between every pair
    assert [m["name"] for m in ranked.to_dict()["metrics"]] == ["m1", "m2"]
    assert ranked.to_dict()["metrics"][0]["signature"].startswith("stored|name:m1|")
    got = rank_json(capsys, "--scores", stored, "--paired-bs", "--paired-bs-n", "300", "--seed", "3")
    assert got == as_json(ranked.to_dict())


def test_autorank_of_results_says_where_it_reads_the_segment_mean(genmt):
    data = read_human(genmt, lp="en-de")
    ranked = autorank({"chrf": docmetrics.load("chrf").compute(data.testset)}, lp=data.lp)
    assert ranked.notes and ranked.notes[0].startswith("chrf: AutoRank reads the mean of its segment scores")


def test_cluster_agreement_of_an_autorank_is_what_rank_m_genmt_prints(genmt, capsys):
    data = read_human(genmt, lp="en-de")
    results = {s: docmetrics.load(s).compute(data.testset) for s in ("chrf", "bleu")}
    ranking = human_clusters(data, "wmt25")
    agree = cluster_agreement(ranking, autorank(results, lp=data.lp))
    assert [a.metric for a in agree] == ["chrf", "bleu"] and all(isinstance(a, ClusterAgreement) for a in agree)
    assert agree[0].pairs == 10 and agree[0].share == 1.0
    got = rank_json(capsys, "-m", "chrf", "bleu", "--genmt", genmt, "-l", "en-de")
    assert got["human_clusters"] == as_json({"ranking": ranking.to_dict(), "agreement": [a.to_dict() for a in agree]})


def test_cluster_agreement_of_stored_scores_is_what_rank_genmt_scores_prints(genmt, tmp_path, capsys):
    data = read_human(genmt, lp="en-de")
    ranking = human_clusters(data)
    systems = [s.system for s in ranking.systems]  # best first, each its own cluster
    scores = {"up": {s: [float(9 - k)] * 8 for k, s in enumerate(systems)},
              "down": {s: [float(k)] * 8 for k, s in enumerate(systems)}}
    path = write_tsv(tmp_path / "scores.tsv", scores, ["d1"] * 4 + ["d2"] * 4)
    agree = cluster_agreement(ranking, read_human(path, format="stored"))
    assert [(a.metric, a.agree, a.disagree) for a in agree] == [("up", 10, 0), ("down", 0, 10)]
    got = rank_json(capsys, "--genmt", genmt, "-l", "en-de", "--scores", path)
    assert got["agreement"] == as_json([a.to_dict() for a in agree])


def test_cluster_agreement_of_plain_scores_reads_each_direction(genmt):
    ranking = human_clusters(read_human(genmt, lp="en-de"))
    best_first = [s.system for s in ranking.systems]
    penalty = {s: float(k) for k, s in enumerate(best_first)}
    (lower,) = cluster_agreement(ranking, {"penalty": penalty}, higher_is_better={"penalty": False})
    (higher,) = cluster_agreement(ranking, {"penalty": penalty})
    assert (lower.agree, lower.disagree) == (10, 0) and (higher.agree, higher.disagree) == (0, 10)
    (partial,) = cluster_agreement(ranking, {"m": {best_first[0]: 1.0, best_first[1]: 0.0, best_first[2]: None}})
    assert partial.pairs == 1 and partial.left_out == best_first[2:]


@pytest.mark.parametrize("call, error, needle", [
    (lambda r: autorank_clusters(r, n=0), SpecError, "n= takes the number of resamples"),
    (lambda r: autorank_clusters({"m": {"a": 1.0, "b": 2.0}}), InputError, "needs each metric's Results"),
    (lambda r: autorank_clusters({}), InputError, "no metric to rank with"),
    (lambda r: autorank_clusters([1, 2]), InputError, "scores= takes"),
    (lambda r: cluster_agreement("ranking", r), TypeError, "ranking= takes what human_clusters returns"),
])
def test_refused_naming_what_to_give(genmt, call, error, needle):
    data = read_human(genmt, lp="en-de")
    results = {"chrf": docmetrics.load("chrf").compute(data.testset)}
    with pytest.raises(error, match=needle):
        call(results)


def test_cluster_agreement_of_an_evalset_without_stored_scores_is_refused(genmt):
    data = read_human(genmt, lp="en-de")
    with pytest.raises(InputError, match="no stored scores to compare"):
        cluster_agreement(human_clusters(data), data)
