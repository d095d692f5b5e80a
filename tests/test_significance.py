"""Paired significance tests that resample whole documents, from already computed unit scores."""

import json
import math

import numpy as np
import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401

import docmetrics
from docmetrics.cli import main
from docmetrics.judging.paired import (
    bootstrap_indices,
    doc_order,
    doc_stats,
    mean_ci,
    paired_test,
    randomization_masks,
    resampled_scores,
)
from docmetrics.values.errors import InputError, UserError
from docmetrics.values.result import DocScore, Result, UnitScore
from docmetrics.values.signature import Signature


def make_result(system, units, docs=None):
    """A Result built by hand: units are (doc_id, score, weight)."""
    us = [UnitScore(d, k, k + 1, s, w) for k, (d, s, w) in enumerate(units)]
    num = sum(u.score * u.weight for u in us)
    den = sum(u.weight for u in us)
    ids = list(dict.fromkeys(u.doc_id for u in us)) if docs is None else docs
    return Result(
        system,
        "toy-metric",
        num / den,
        Signature("toy-metric", [], "0"),
        {},
        us,
        [DocScore(d, None, 0) for d in ids],
    )


def random_results(n_docs=7, n_systems=3, seed=0, weighted=True):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 5, size=n_docs)
    weights = [[float(rng.integers(1, 4)) if weighted else 1.0 for _ in range(n)] for n in sizes]
    out = []
    for s in range(n_systems):
        units = [
            (f"d{d}", float(rng.normal(0.5 + 0.05 * s, 0.2)), weights[d][k])
            for d in range(n_docs)
            for k in range(sizes[d])
        ]
        out.append(make_result(f"sys{s}", units))
    return out


def by_hand_score(result, docs):
    """A system score over a list of documents (with repeats), from its units, by plain loops."""
    num = den = 0.0
    for d in docs:
        for u in result.units:
            if u.doc_id == d:
                num += u.weight * u.score
                den += u.weight
    return num / den


def test_bootstrap_equals_independent_computation_and_sacrebleu_statistics():
    from sacrebleu.significance import _compute_p_value, estimate_ci

    results = random_results()
    n, seed = 200, 7
    test = paired_test(results, "bs", n, seed)
    docs = [f"d{d}" for d in range(7)]
    assert test.doc_ids == docs
    # the resamples: documents drawn with replacement by numpy's default_rng(seed), as sacrebleu draws
    idx = np.random.default_rng(seed).choice(len(docs), size=(n, len(docs)), replace=True)
    resampled = {
        r.system: np.array([by_hand_score(r, [docs[i] for i in row]) for row in idx]) for r in results
    }
    base = resampled["sys0"]
    for row, r in zip(test.rows, results):
        assert row.score == pytest.approx(r.score, abs=1e-12)
        mean, ci = estimate_ci(resampled[r.system])  # sacrebleu's own CI function
        assert row.mean == pytest.approx(mean, abs=1e-12) and row.ci == pytest.approx(ci, abs=1e-12)
    assert test.rows[0].baseline and test.rows[0].p_value is None
    for row, r in zip(test.rows[1:], results[1:]):
        diffs = np.abs(resampled[r.system] - base)
        # sacrebleu's own p-value function on the same statistics
        expected = _compute_p_value(diffs - diffs.mean(), abs(r.score - results[0].score))
        assert row.p_value == pytest.approx(expected, abs=1e-12)


def test_randomization_equals_independent_computation():
    results = random_results(n_docs=9, seed=3)  # 2^9 = 512 swaps > 300 trials: sampled
    n, seed = 300, 11
    test = paired_test(results, "ar", n, seed)
    docs = test.doc_ids
    swap = np.random.default_rng(seed).integers(2, size=(n, len(docs)), dtype=bool)
    base = results[0]
    for row, r in zip(test.rows[1:], results[1:]):
        count = 0
        for trial in swap:
            a_num = a_den = b_num = b_den = 0.0
            for d, sw in zip(docs, trial):
                for src, is_a in ((base, not sw), (r, bool(sw))):
                    for u in src.units:
                        if u.doc_id == d:
                            if is_a:
                                a_num += u.weight * u.score
                                a_den += u.weight
                            else:
                                b_num += u.weight * u.score
                                b_den += u.weight
            count += abs(a_num / a_den - b_num / b_den) > abs(r.score - base.score)
        assert row.p_value == pytest.approx((count + 1) / (n + 1), abs=1e-12)
        assert row.mean is None and row.ci is None


def test_reproducible_with_a_seed_and_recorded_in_the_signature():
    results = random_results(seed=5)
    a = paired_test(results, "bs", 500, 42)
    b = paired_test(results, "bs", 500, 42)
    c = paired_test(results, "bs", 500, 43)
    assert [r.to_dict() for r in a.rows] == [r.to_dict() for r in b.rows]
    assert [r.mean for r in a.rows] != [r.mean for r in c.rows]
    assert a.signature_text().endswith("|bs:500|seed:42|v:0")
    ar = paired_test(results, "ar", 99, None)
    assert ar.signature_text(short=True).endswith("|ar:99|seed:none|v:0")


def test_whole_documents_are_resampled():
    # doc a: three units scoring 1, doc b: one unit scoring 0.  Resampling DOCUMENTS gives only
    # {a,a} -> 1, {b,b} -> 0, {a,b} -> 0.75; resampling units would also give 0.5, 0.25, ...
    r = make_result("s", [("a", 1.0, 1.0)] * 3 + [("b", 0.0, 1.0)])
    stats = doc_stats(r, ["a", "b"])
    scores = resampled_scores(stats, bootstrap_indices(2, 2000, 1))
    assert set(np.round(scores, 12)) == {0.0, 0.75, 1.0}


def test_a_single_document_cannot_be_resampled_into_more_documents(toy_dist, tmp_path, capsys):
    r = make_result("s", [("only", 0.2, 1.0), ("only", 0.9, 1.0), ("only", 0.4, 2.0)])
    idx = bootstrap_indices(1, 100, 12345)
    assert idx.shape == (100, 1) and (idx == 0).all()
    scores = resampled_scores(doc_stats(r, ["only"]), idx)
    assert np.allclose(scores, r.score)  # every resample is the same document: no distribution
    assert randomization_masks(1, 10, 0).shape == (10, 1)
    with pytest.raises(InputError, match="1 scored document"):
        paired_test([r, make_result("t", [("only", 0.1, 1.0)] * 3)], "bs", 100)
    # the command line says so (exit 2), e.g. when --doc-ids is forgotten
    hyp_a, hyp_b, src = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "src.txt"
    hyp_a.write_text("eins zwei\ndrei\nvier fünf sechs\n")
    hyp_b.write_text("eins\nzwei drei\nvier\n")
    src.write_text("one two\nthree\nfour five six\n")
    code = main(
        ["-m", "slide:w=1,s=1,backbone=toy", "-i", str(hyp_a), str(hyp_b), "-s", str(src), "--paired-bs"]
    )
    err = capsys.readouterr().err
    assert code == 2 and "resample whole documents" in err and "--doc-ids" in err


def test_score_must_be_the_weighted_mean_of_units():
    r = make_result("s", [("a", 1.0, 1.0), ("b", 0.0, 1.0)])
    r.score = 0.9  # a metric that aggregates otherwise
    with pytest.raises(UserError, match="not the weighted mean"):
        doc_stats(r, ["a", "b"])


def test_identical_systems_are_not_significant():
    r = random_results(n_systems=1)[0]
    copy = make_result("copy", [(u.doc_id, u.score, u.weight) for u in r.units])
    for test in ("bs", "ar"):
        assert paired_test([r, copy], test, 200).rows[1].p_value == 1.0


def test_doc_order_follows_the_documents_with_units():
    r = make_result("s", [("b", 1.0, 1.0), ("a", 0.0, 1.0)], docs=["x", "b", "a"])
    assert doc_order([r]) == ["b", "a"]  # 'x' has no unit: nothing to resample


def test_mean_ci_rule():
    scores = np.arange(80, dtype=float)  # lower index 80 // 40 = 2, upper 77
    assert mean_ci(scores) == (pytest.approx(39.5), pytest.approx(0.5 * (77 - 2)))


# -- the command line, on the toy backbone (weighted SLIDE: unit weights matter) ----------------------
SRC = [f"Source sentence {i} with some words {'x ' * (i % 4)}" for i in range(14)]
IDS = ["d1"] * 3 + ["d2"] * 4 + ["d3"] * 2 + ["d4"] * 5
SYSTEMS = {
    "A": [f"Satz {i} mit Wörtern {'y ' * (i % 3)}" for i in range(14)],
    "B": [f"Satz {i}" for i in range(14)],
    "C": [f"Ein ganz anderer Satz Nummer {i} {'z ' * (i % 5)}" for i in range(14)],
}


@pytest.fixture()
def files(tmp_path):
    def write(name, lines):
        p = tmp_path / name
        p.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return str(p)

    return {
        "src": write("src.txt", SRC),
        "ids": write("ids.txt", IDS),
        "sys": [write(f"{k}.txt", v) for k, v in SYSTEMS.items()],
    }


def test_cli_paired_bootstrap_json_matches_library(toy_dist, files, capsys):
    spec = "slide:w=3,s=2,partial=weighted,backbone=toy"
    base = ["-m", spec, "-i", *files["sys"], "-s", files["src"], "--doc-ids", files["ids"]]
    code, out, err = run(capsys, *base, "-f", "json", "--level", "chunk")
    assert code == 0, err
    results_json = json.loads(out)
    from docmetrics_toy import ToyBackbone

    calls_before = len(ToyBackbone.calls)
    code, out, err = run(capsys, *base, "--paired-bs", "--paired-bs-n", "300", "--seed", "9", "-f", "json")
    assert code == 0, err
    rows = json.loads(out)
    # weighted units: the resamples use each unit's weight
    results = []
    for d in results_json:
        r = make_result(d["system"], [(u["doc_id"], u["score"], u["weight"]) for u in d["units"]])
        assert r.score == pytest.approx(d["score"], abs=1e-12)
        assert {u["weight"] for u in d["units"]} != {1.0}
        results.append(r)
    expected = paired_test(results, "bs", 300, 9)
    assert [x["system"] for x in rows] == ["A.txt", "B.txt", "C.txt"]
    for row, exp in zip(rows, expected.rows):
        assert row["score"] == pytest.approx(exp.score, abs=1e-12)
        assert row["mean"] == pytest.approx(exp.mean, abs=1e-12)
        assert row["ci"] == pytest.approx(exp.ci, abs=1e-12)
        assert (row["p_value"] is None) == (exp.p_value is None)
        if exp.p_value is not None:
            assert row["p_value"] == pytest.approx(exp.p_value, abs=1e-12)
        assert row["signature"].endswith("|bs:300|seed:9|v:" + docmetrics.__version__) and row["documents"] == 4
    # resampling did not call the model again (only the one scoring pass did)
    assert len(ToyBackbone.calls) == calls_before + 1


def test_cli_paired_table_like_sacrebleu(toy_dist, files, capsys):
    code, out, err = run(
        capsys,
        "-m",
        "slide:w=2,s=1,backbone=toy",
        "-i",
        *files["sys"],
        "-s",
        files["src"],
        "--doc-ids",
        files["ids"],
        "--paired-ar",
        "--paired-ar-n",
        "200",
    )
    assert code == 0, err
    lines = out.splitlines()
    assert "System" in lines[0] and "[1]" in lines[0]
    assert lines[2].strip().startswith("Baseline: A.txt") and "(p =" not in lines[2]
    for line in lines[3:5]:
        assert "(p = " in line
        p = float(line.split("(p = ")[1].split(")")[0])
        assert line.rstrip().endswith("*") == (p < 0.05)
    # 4 documents have 2^4 = 16 distinct swaps, fewer than the 200 trials asked: enumerated exactly
    assert "approximate randomization test, exact: all 16 swaps of 4 documents" in out
    assert any(x.startswith("[1] slide|w:2|s:1|") and x.endswith("|ar:16|seed:none|v:" + docmetrics.__version__) for x in lines)
    assert "only 4 documents to resample" in err


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--paired-bs"], "at least two system"),
        (["--paired-bs", "--paired-bs-n", "0"], "must be from 1 to"),
    ],
)
def test_cli_paired_errors(toy_dist, files, capsys, argv, message):
    code, _, err = run(
        capsys,
        "-m",
        "slide:w=2,s=1,backbone=toy",
        "-i",
        files["sys"][0],
        "-s",
        files["src"],
        "--doc-ids",
        files["ids"],
        *argv,
    )
    assert code == 2 and message in err


def test_paired_tests_refuse_nan_units():
    r = make_result("s", [("a", 1.0, 1.0), ("b", 0.5, 1.0)])
    r.units[1].score = math.nan
    r.score = math.nan
    with pytest.raises(InputError, match="no score"):
        doc_stats(r, ["a", "b"])  # the unit's NaN is refused before the score is checked


@pytest.mark.parametrize("n_docs", [1 + 1, 3, 5])
def test_randomization_enumerates_every_swap_exactly_when_they_are_few(n_docs):
    import itertools

    results = random_results(n_docs=n_docs, seed=5)
    test = paired_test(results, "ar", 10000, seed=1)
    assert test.exact and test.n == 2 ** n_docs and test.seed is None
    assert any(f"only {n_docs} documents" in w for w in test.warnings)
    docs, base = test.doc_ids, results[0]
    for row, r in zip(test.rows[1:], results[1:]):
        observed = abs(r.score - base.score)
        count = 0
        for swap in itertools.product([False, True], repeat=len(docs)):  # brute force, plain loops
            a = [u for d, sw in zip(docs, swap) for u in (r if sw else base).units if u.doc_id == d]
            b = [u for d, sw in zip(docs, swap) for u in (base if sw else r).units if u.doc_id == d]
            diff = abs(sum(u.weight * u.score for u in a) / sum(u.weight for u in a)
                       - sum(u.weight * u.score for u in b) / sum(u.weight for u in b))
            count += diff >= observed - 1e-12
        assert row.p_value == pytest.approx(count / 2 ** n_docs, abs=1e-12)
        assert row.p_value >= 2 / 2 ** n_docs  # the identity and the full swap are always as extreme
