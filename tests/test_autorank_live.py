"""AutoRank over live metrics and its clusters by resampling documents (issue 30, leftovers).

``docmetrics rank -m ... -i ...`` ranks the toy backbone through SLIDE (one sentence per window: segment
scores) and sacrebleu's chrF exactly as AutoRank computed here from each metric's own segment scores
(sacrebleu's sentence_chrf, the toy's own formula), a window metric by its own system score; a stored and a
live copy of the same metric rank identically (also with clusters); the clusters equal an independent
re-implementation of the paired bootstrap over documents on data the tests make (a clear gap: two clusters;
identical systems: one); bad input exits 2 with one line (toy backbone and sacrebleu: no model)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import sacrebleu
from cli_fixtures import run_cli
from plugin_fixtures import toy_dist  # noqa: F401
from test_autorank import independent, write_tsv
from test_cli_genmt import genmt  # noqa: F401

import docmetrics
from docmetrics.values.testset import TestSet

pytestmark = pytest.mark.usefixtures("toy_dist")

TOY = "slide:w=1,s=1,backbone=toy"
WINDOWS = "slide:w=2,s=1,backbone=toy"
WORDS = "the a cat dog sat on mat house red blue green quickly over under river tree".split()


@pytest.fixture()
def files(tmp_path):
    """Four systems of 20 lines in 7 documents, ever closer to the reference."""
    rng = random.Random(1)

    def line():
        return " ".join(rng.choices(WORDS, k=rng.randint(3, 8)))

    src, ref = [line() for _ in range(20)], [line() for _ in range(20)]
    ids = [f"d{i // 3}" for i in range(20)]
    paths = {"src": tmp_path / "src.txt", "ref": tmp_path / "ref.txt", "ids": tmp_path / "ids.txt"}
    for key, lines in (("src", src), ("ref", ref), ("ids", ids)):
        paths[key].write_text("\n".join(lines) + "\n", encoding="utf-8")
    systems = {}
    for k in range(4):
        systems[f"sys{k}"] = [r if rng.random() < 0.25 * k else line() for r in ref]
        (tmp_path / f"sys{k}.txt").write_text("\n".join(systems[f"sys{k}"]) + "\n", encoding="utf-8")
    args = ["-i", *[tmp_path / f"sys{k}.txt" for k in range(4)], "-s", paths["src"], "-r", paths["ref"],
            "--doc-ids", paths["ids"], "-l", "en-de"]
    return {"args": args, "src": src, "ref": ref, "ids": ids, "systems": systems, "dir": tmp_path}


def rank_json(capsys, *argv):
    code, out, err = run_cli(capsys, "rank", *argv, "-f", "json")
    assert code == 0, err
    return json.loads(out)


def test_live_metrics_rank_as_autorank_of_their_own_segment_scores(capsys, files):
    from docmetrics_toy import toy_score

    data = rank_json(capsys, "-m", TOY, "chrf", *files["args"])
    names = [f"sys{k}.txt" for k in range(4)]
    segs = {
        TOY: {n: [toy_score(mt, s) for mt, s in zip(files["systems"][n[:-4]], files["src"])] for n in names},
        "chrf": {n: [sacrebleu.sentence_chrf(mt, [r]).score for mt, r in zip(files["systems"][n[:-4]], files["ref"])]
                 for n in names},
    }
    want = independent(segs, {TOY: True, "chrf": True})
    got = {s["system"]: s["autorank"] for s in data["systems"]}
    assert got == pytest.approx(want, abs=1e-9)
    for s in data["systems"]:
        for m in (TOY, "chrf"):
            assert s["scores"][m] == pytest.approx(np.mean(segs[m][s["system"]]), abs=1e-9)
    info = {m["name"]: m for m in data["metrics"]}
    assert info["chrf"]["system_score"] == "mean over segments" and info["chrf"]["higher_is_better"] is True
    assert info["chrf"]["signature"].startswith("chrf|")
    assert "cluster" not in data["systems"][0] and "significance" not in data
    assert any("chrf: AutoRank reads the mean of its segment scores" in n for n in data["notes"])


def test_a_window_metric_ranks_by_its_own_system_score(capsys, files):
    data = rank_json(capsys, "-m", WINDOWS, "chrf", *files["args"])
    ts = TestSet({n: files["systems"][n] for n in files["systems"]}, files["src"], files["ref"], files["ids"])
    own = {r.system: r.score for r in docmetrics.load(WINDOWS).compute(ts)}
    assert {s["system"][:-4]: s["scores"][WINDOWS] for s in data["systems"]} == pytest.approx(own)
    assert {m["name"]: m["system_score"] for m in data["metrics"]}[WINDOWS] == "its own system score"
    assert any("units span several segments" in n for n in data["notes"])
    code, out, err = run_cli(capsys, "rank", "-m", WINDOWS, *files["args"], "--paired-bs", "--paired-bs-n", "50")
    assert code == 0, err
    assert "Cluster  System" in out and "paired bootstrap over 7 documents (50 resamples, seed 12345" in out


def write_live_tsv(files, spec, path):
    """A live metric's segment scores as a stored TSV (column 'toy')."""
    ts = TestSet({f"sys{k}.txt": files["systems"][f"sys{k}"] for k in range(4)}, files["src"], files["ref"],
                 files["ids"])
    results = docmetrics.load(spec).compute(ts)
    segs = {"toy": {r.system: [u.score for u in r.units] for r in results}}
    return write_tsv(path, segs, files["ids"])


def test_stored_and_live_copies_of_a_metric_rank_identically(capsys, files):
    tsv = write_live_tsv(files, TOY, files["dir"] / "toy.tsv")
    for extra in ([], ["--paired-bs", "--paired-bs-n", "200", "--seed", "5"]):
        live = rank_json(capsys, "-m", TOY, *files["args"], *extra)
        stored = rank_json(capsys, "--scores", tsv, "-l", "en-de", *extra)
        assert [s["system"] for s in live["systems"]] == [s["system"] for s in stored["systems"]]
        for a, b in zip(live["systems"], stored["systems"]):
            assert (a["autorank"], a["mean_z"], a.get("cluster")) == (b["autorank"], b["mean_z"], b.get("cluster"))
            assert a["scores"][TOY] == b["scores"]["toy"]
        if extra:
            assert live["significance"] == stored["significance"]
    both = rank_json(capsys, "-m", TOY, *files["args"], "--scores", tsv)  # side by side in one ranking
    for s in both["systems"]:
        assert s["z"][TOY] == s["z"]["toy"] and s["scores"][TOY] == s["scores"]["toy"]


def test_genmt_supplies_the_test_set(capsys, genmt):
    data = rank_json(capsys, "-m", TOY, "--genmt", genmt, "-l", "en-de_DE")
    assert data["lp"] == "en-de_DE" and len(data["systems"]) >= 2
    assert {m["name"] for m in data["metrics"]} == {TOY}


# -- clusters against an independent re-implementation -----------------------------------------------------------
def independent_clusters(segs, doc_ids, higher, n, seed, alpha=0.05):
    """metric -> system -> segment scores (None missing): (system -> cluster, shares), written from the
    README: the same document resamples (numpy's default_rng(seed).choice) for every system and metric,
    AutoRank per resample, a boundary where the upper system is strictly better in more than 1 - alpha."""
    docs = list(dict.fromkeys(doc_ids))
    systems = list(next(iter(segs.values())))
    observed = independent(segs, higher)
    order = sorted(systems, key=lambda s: (observed[s], systems.index(s)))
    idx = np.random.default_rng(seed).choice(len(docs), size=(n, len(docs)), replace=True)
    ranks = []
    for row in idx:
        drawn = {}
        for m in segs:
            drawn[m] = {}
            for s in systems:
                vals = []
                for d in row:
                    vals += [v for v, i in zip(segs[m][s], doc_ids) if i == docs[d] and v is not None]
                drawn[m][s] = vals
        ranks.append(independent(drawn, higher))
    clusters, shares, c = {order[0]: 1}, [], 1
    for up, low in zip(order, order[1:]):
        share = sum(r[up] < r[low] for r in ranks) / n
        shares.append(share)
        c += (1 - share) < alpha
        clusters[low] = c
    return clusters, shares


def made(kind, seed):
    """Two scores per document, 12 documents; 'gap': A and B far above C and D; 'identical': every system
    the same scores; 'missing': the gap with a missing score."""
    rng = np.random.default_rng(seed)
    doc_ids = [f"d{k // 2}" for k in range(24)]
    level = {"A": 80.0, "B": 80.0, "C": 50.0, "D": 50.0}
    segs = {"chrF": {}, "MetricX": {}}
    for s in level:
        if kind == "identical":
            segs["chrF"][s] = (60 + np.sin(np.arange(24))).round(3).tolist()
            segs["MetricX"][s] = (10 + np.cos(np.arange(24))).round(3).tolist()
            continue
        segs["chrF"][s] = (level[s] + rng.normal(0, 5, 24)).round(3).tolist()
        segs["MetricX"][s] = (25 - level[s] / 4 + rng.normal(0, 1, 24)).round(3).tolist()
    if kind == "missing":
        segs["chrF"]["B"][3] = None
    return segs, doc_ids


@pytest.mark.parametrize("kind,want", [("gap", 2), ("identical", 1), ("missing", None)])
def test_clusters_equal_an_independent_reimplementation(capsys, tmp_path, kind, want):
    segs, doc_ids = made(kind, 3)
    tsv = write_tsv(tmp_path / "s.tsv", segs, doc_ids)
    data = rank_json(capsys, "--scores", tsv, "-l", "en-de", "--paired-bs", "--paired-bs-n", "150", "--seed", "9")
    clusters, shares = independent_clusters(segs, doc_ids, {"chrF": True, "MetricX": False}, 150, 9)
    assert {s["system"]: s["cluster"] for s in data["systems"]} == clusters
    assert [b["share_better"] for b in data["significance"]["boundaries"]] == pytest.approx(shares)
    sig = data["significance"]
    assert (sig["resamples"], sig["seed"], sig["alpha"], sig["documents"]) == (150, 9, 0.05, 12)
    if want is not None:
        assert max(clusters.values()) == want
    if kind == "gap":
        assert clusters == {"A": 1, "B": 1, "C": 2, "D": 2}


# -- bad input ------------------------------------------------------------------------------------------------
def _bad_tsv(t):
    p = t / "other.tsv"
    p.write_text("system\tdoc_id\tm\nX\td0\t1\n", encoding="utf-8")
    return p


BAD = [
    ("no-test-set", lambda f: ["-m", "chrf"], ["give the test set to score"]),
    ("input-without-m", lambda f: f["args"], ["give them with -m SPEC"]),
    ("rule-with-m", lambda f: ["-m", "chrf", *f["args"], "--rule", "wmt24"], ["--rule with -m"]),
    ("two-test-sets", lambda f: ["-m", "chrf", *f["args"], "--genmt", f["dir"] / "x.jsonl"], ["give one test set"]),
    ("two-pairs-for-i", lambda f: ["-m", "chrf", *f["args"], "-l", "en-fr"], ["-i files are one language pair"]),
    ("unknown-metric", lambda f: ["-m", "nosuchmetric", *f["args"]], ["nosuchmetric"]),
    ("resamples", lambda f: ["-m", "chrf", *f["args"], "--paired-bs", "--paired-bs-n", "0"], ["--paired-bs-n"]),
    ("stored-other-systems", lambda f: ["-m", "chrf", *f["args"], "--scores", _bad_tsv(f["dir"])], ["other.tsv"]),
    ("mtme-without-t", lambda f: ["-m", "chrf", "--mtme", f["dir"], "-l", "en-de"], ["-t"]),
    ("bs-with-human-clusters", lambda f: ["--genmt", f["dir"] / "x.jsonl", "--paired-bs"], ["--paired-bs"]),
    ("one-document", lambda f: ["--scores", _bad_tsv(f["dir"]), "--paired-bs"], ["resampling documents needs two"]),
]


@pytest.mark.parametrize("argv,needles", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_exits_2_with_one_line(capsys, files, argv, needles):
    (files["dir"] / "x.jsonl").write_text("", encoding="utf-8")
    code, out, err = run_cli(capsys, "rank", *argv(files))
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("docmetrics rank: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_mtme_supplies_the_test_set(capsys, tmp_path):
    from test_mtme import build_tiny

    build_tiny(tmp_path / "data")
    data = rank_json(capsys, "-m", "chrf", "--mtme", tmp_path / "data", "-t", "toy", "-l", "en-de", "--ref", "refA",
                     "--paired-bs", "--paired-bs-n", "40")
    assert data["lp"] == "en-de" and len(data["systems"]) >= 2
    assert data["significance"]["resamples"] == 40 and all("cluster" in s for s in data["systems"])
