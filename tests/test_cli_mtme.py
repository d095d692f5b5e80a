"""The command line on mt-metrics-eval data: ``docmetrics --mtme`` and ``docmetrics metaeval``, on the toy
backbone (no model): score, write MTME score files, read them back, and the same numbers as the library;
bad inputs exit 2 naming the culprit before any model is loaded; WMT21 TED laid out as MTME from ../shared."""

import json
import re
from pathlib import Path

import pytest
import scipy.stats
from cli_fixtures import run_cli as run
from mtme_fixtures import read_back
from plugin_fixtures import toy_dist  # noqa: F401
from test_mtme import build_ted, build_tiny

import docmetrics
from docmetrics.formats.mtme import load_mtme
from docmetrics.judging.averages import wmt_average
from docmetrics.judging.evaluate import evaluate_mtme
from docmetrics.judging.mtme import mtme_metric_name
from docmetrics.values.result import Result, UnitScore
from docmetrics.values.signature import Signature

pytestmark = pytest.mark.usefixtures("toy_dist")

QE = "slide:w=1,s=1,backbone=toy"  # one unit per segment: system and segment level
REF = "slide:w=1,s=1,backbone=toy,model=toy-ref"  # the same, reference-based
WIN = "slide:w=2,s=1,backbone=toy"  # windows: system level only


@pytest.fixture()
def tiny(tmp_path):
    build_tiny(tmp_path / "data")
    build_tiny(tmp_path / "data", lp="zh-en")
    return tmp_path


def library(root, lp, specs, **kw):
    data, testset = load_mtme(root, "toy", lp, ref="refA")
    results = {spec: docmetrics.load(spec, defaults={"lang": lp}).compute(testset) for spec in specs}
    return data, testset, results, evaluate_mtme(results, data, **kw)


# -- docmetrics --mtme: round trip and the numbers --------------------------------------------------------------
def test_score_write_read_back_and_meta_evaluate_like_the_library(tiny, capsys):
    root, out_dir = tiny / "data", tiny / "out"
    code, out, err = run(capsys, "-m", QE, REF, WIN, "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refA",
                         "--write-mtme", out_dir, "--resamples", "100", "--seed", "7", "-f", "json")
    assert code == 0, err
    assert "sysC.txt: 1 line(s) read '[No translation supplied]'" in err
    report = json.loads(out)
    data, testset, results, ev = library(root, "en-de", [QE, REF, WIN], n_resamples=100, seed=7)
    assert report["testset"] == "toy" and report["reference"] == "refA" and report["systems"] == ev.systems
    assert report["perm_both"] == {"n_resamples": 100, "seed": 7, "alpha": 0.05}
    assert report["metrics"] == json.loads(json.dumps(ev.to_dict()["metrics"]))
    assert report["comparisons"] == json.loads(json.dumps(ev.to_dict()["comparisons"]))
    # the files: a QE metric is NAME-src, a reference-based one NAME-refA; windows have no seg file
    back = read_back(out_dir, "toy", "en-de")
    written = {w["ref"]: w for w in report["written"]}
    for spec, ref, levels in ((QE, "src", {"sys", "doc", "seg"}), (REF, "refA", {"sys", "doc", "seg"})):
        name = mtme_metric_name(results[spec][0].signature.format(short=True))
        assert name.startswith("slide_w_1_s_1_") and set(back_levels(back, name)) == levels
        assert back[(name, ref, "sys")] == {r.system: [r.score] for r in results[spec]}
        assert back[(name, ref, "seg")] == {r.system: [u.score for u in r.units] for r in results[spec]}
        assert back[(name, ref, "doc")] == {r.system: [d.score for d in r.docs] for r in results[spec]}
    assert set(written) == {"src", "refA"} and "seg" in report["written"][2]["skipped"]
    win_name = mtme_metric_name(results[WIN][0].signature.format(short=True))
    assert set(back_levels(back, win_name)) == {"sys", "doc"}
    # read back, the scores meta-evaluate to the same numbers
    name = mtme_metric_name(results[QE][0].signature.format(short=True))
    seg_back, sys_back = back[(name, "src", "seg")], back[(name, "src", "sys")]
    rebuilt = [Result(s, "back", sys_back[s][0], Signature("back"), {},
                      [UnitScore(testset.doc_ids[i], i, i + 1, v) for i, v in enumerate(seg_back[s])])
               for s in seg_back]
    again = evaluate_mtme({"back": rebuilt}, data, significance=()).to_dict()["metrics"][0]
    first = report["metrics"][0]
    assert first["metric"] == QE and again["system"] == first["system"] and again["segment"] == first["segment"]


def back_levels(back, name):
    return [lv for (n, _, lv) in back if n == name]


def test_text_table_sorted_with_clusters_and_metric_names(tiny, capsys):
    root, out_dir = tiny / "data", tiny / "out"
    code, out, err = run(capsys, "-m", QE, REF, "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refA",
                         "--resamples", "50", "--write-mtme", out_dir, "--metric-name", "toy-qe", "toy.ref",
                         "--rank-by", "pearson")
    assert code == 0, err
    _, _, _, ev = library(root, "en-de", [QE, REF], n_resamples=50)
    order = sorted(ev.metrics, key=lambda m: -ev.metrics[m].pearson)
    rows = [ln for ln in out.splitlines() if ln.startswith("slide:")]
    assert [r.split(" [")[0] for r in rows] == order
    best = ev.metrics[order[0]]
    assert f"{best.pearson:.4f} (1)" in rows[0] and f"{best.spa:.4f}" in rows[0]
    assert "Sorted by pearson" in out and "Not scored: refA (the reference in use), refB (human translation" in out
    assert "[1] MTME scores: " in out and "toy-qe-src.{sys,doc,seg}.score" in out
    assert (out_dir / "toy" / "metric-scores" / "en-de" / "toy.ref-refA.seg.score").exists()
    assert "Signatures:\n[1] slide|w:1|s:1|" in out


def test_systems_include_human_and_no_significance(tiny, capsys):
    root = tiny / "data"
    code, out, err = run(capsys, "-m", QE, "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refA",
                         "--include-human", "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["systems"] == ["refB", "sysA", "sysB", "sysC"] and report["comparisons"] == {}
    code, out, err = run(capsys, "-m", QE, REF, "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refA",
                         "--systems", "sysA", "sysC", "--resamples", "0", "-f", "json")
    report = json.loads(out)
    assert code == 0 and report["systems"] == ["sysA", "sysC"] and report["comparisons"] == {}


# -- docmetrics metaeval ------------------------------------------------------------------------------------------
def test_metaeval_several_language_pairs_averages_and_plot(tiny, capsys):
    root, png = tiny / "data", tiny / "main.png"
    argv = ["metaeval", "--mtme", root, "-t", "toy", "-l", "en-de,zh-en", "-m", QE, REF, "--ref", "refA",
            "--resamples", "40"]
    code, out, err = run(capsys, *argv, "-f", "json", "--plot", png)
    assert code == 0, err
    report = json.loads(out)
    evals = [library(root, lp, [QE, REF], n_resamples=40)[3] for lp in ("en-de", "zh-en")]
    assert [r["lp"] for r in report["lps"]] == ["en-de", "zh-en"]
    assert report["lps"][1]["metrics"] == json.loads(json.dumps(evals[1].to_dict()["metrics"]))
    for scheme in ("wmt23", "wmt24"):
        assert report["averages"][scheme] == json.loads(json.dumps(wmt_average(evals, scheme).to_dict()))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert out.count("Sorted by spa") == 2 and "WMT24 average" in out and "WMT23 average" in out
    assert out.index("toy en-de:") < out.index("toy zh-en:") < out.index("WMT24 average")


# -- bad input: exit 2, one message naming the culprit, no traceback, no model loaded ------------------------------
def _damage(rel, text):
    def apply(root: Path):
        (root / "data" / "toy" / rel).write_text(text, encoding="utf-8")
    return apply


def _remove(rel):
    def apply(root: Path):
        (root / "data" / "toy" / rel).unlink()
    return apply


def _no_human_scores(root: Path):
    for f in (root / "data" / "toy" / "human-scores").iterdir():
        f.unlink()


def _file(name):
    def apply(root: Path):
        (root / name).write_text("x\n", encoding="utf-8")
    return apply


MTME = ["-m", QE, "--mtme", "{root}/data", "-t", "toy", "-l", "en-de", "--ref", "refA"]
META = ["metaeval", "-m", QE, "--mtme", "{root}/data", "-t", "toy", "-l", "en-de,zh-en", "--ref", "refA"]
BAD = [
    ("missing file", MTME, _remove("sources/en-de.txt"), "sources/en-de.txt: no such file"),
    ("malformed line", MTME, _damage("human-scores/en-de.mqm.sys.score", "sysA 1\nsysB x\n"),
     "en-de.mqm.sys.score, line 2"),
    ("docs line", MTME, _damage("documents/en-de.docs", "news d1\n" * 5 + "d2\n"), "en-de.docs, line 6"),
    ("short output", MTME, _damage("system-outputs/en-de/sysB.txt", "x\n"), "sysB.txt: 1 lines"),
    ("unknown system", MTME + ["--systems", "sysA", "sysZ"], None, "no system 'sysZ'"),
    ("no human scores", MTME, _no_human_scores, "no human scores for en-de, so nothing to meta-evaluate"),
    ("one system", MTME + ["--systems", "sysA"], None, "a meta-evaluation needs two systems or more"),
    ("unknown reference", MTME[:-1] + ["refZ"], None, "no reference 'refZ'"),
    ("unknown human name", MTME + ["--human-name", "esa"], None, "no human scores named 'esa'"),
    ("no root", ["-m", QE, "--mtme", "{root}/nope", "-t", "toy", "-l", "en-de"], None, "--mtme {root}/nope: no such"),
    ("no testset dir", MTME[:5] + ["wmt99"] + MTME[6:], None, "wmt99: no such directory"),
    ("no lp", MTME[:6] + ["-l", "de-fr"] + MTME[8:], None, "de-fr.txt: no such file"),
    ("-t without --mtme", ["-m", QE, "-t", "toy", "-l", "en-de"], None, "-t/--testset needs --mtme ROOT"),
    ("--write-mtme without --mtme", ["-m", QE, "-i", "{root}/x.txt", "--write-mtme", "{root}/o"], None,
     "--write-mtme needs --mtme"),
    ("--mtme with -i", MTME + ["-i", "{root}/x.txt"], None, "-i cannot be combined with --mtme"),
    ("--mtme with --human", MTME + ["--human", "{root}/h.tsv"], None, "--human cannot be combined with --mtme"),
    ("--mtme with --paired-bs", MTME + ["--paired-bs"], None, "--paired-bs cannot be combined with --mtme"),
    ("--mtme without -t", MTME[:4] + MTME[6:], None, "--mtme needs -t/--testset"),
    ("--mtme without -l", MTME[:6] + MTME[8:], None, "--mtme needs -l/--lang LP"),
    ("two lps in main", MTME[:7] + ["en-de,zh-en"] + MTME[8:], None, "for several use docmetrics metaeval"),
    ("metric names count", MTME + ["--write-mtme", "{root}/o", "--metric-name", "a", "b"], None,
     "--metric-name: 2 name(s) for 1 metric(s)"),
    ("metric name without write", MTME + ["--metric-name", "a"], None, "--metric-name names the MTME score files"),
    ("write-mtme is a file", MTME + ["--write-mtme", "{root}/afile"], _file("afile"), "{root}/afile: not a directory"),
    ("same spec twice", MTME[:2] + [QE] + MTME[2:], None, f"-m: '{QE}' is given twice"),
    ("negative resamples", MTME + ["--resamples", "-1"], None, "--resamples must be >= 0"),
    ("bad seed", MTME + ["--seed", "x"], None, "--seed must be an integer"),
    ("metaeval: lp twice", META[:8] + ["en-de,en-de"] + META[9:], None, "-l en-de,en-de: en-de given twice"),
    ("metaeval: bad lp", META[:8] + ["en-de,"] + META[9:], None, "-l en-de,: language pairs separated by commas"),
    ("metaeval: one lp broken", META, _damage("system-outputs/zh-en/sysA.txt", "x\n"), "zh-en/sysA.txt: 1 lines"),
    ("metaeval: plot dir", META + ["--plot", "{root}/no/dir/p.png"], None, "--plot {root}/no/dir/p.png: no such"),
    ("metaeval: plot type", META + ["--plot", "{root}/p.pdf"], None, "give a .png file"),
    ("metaeval: no -m", ["metaeval", "--mtme", "{root}/data", "-t", "toy", "-l", "en-de"], None, "-m/--metrics"),
]


@pytest.mark.parametrize("name,argv,damage,message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_exits_2_naming_the_culprit(tiny, capsys, monkeypatch, name, argv, damage, message):
    if damage is not None:
        damage(tiny)

    def no_model(*a, **k):
        raise AssertionError("a model was loaded before the input was checked")

    monkeypatch.setattr(docmetrics.api, "load", no_model)
    code, out, err = run(capsys, *[a.replace("{root}", str(tiny)) for a in argv])
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 20
    assert message.replace("{root}", str(tiny)) in err


def test_missing_human_scores_for_one_level_is_not_an_error(tiny, capsys):
    (tiny / "data" / "toy" / "human-scores" / "en-de.mqm.sys.score").unlink()
    code, out, err = run(capsys, *[a.replace("{root}", str(tiny)) for a in MTME], "-f", "json")
    assert code == 0, err
    assert json.loads(out)["metrics"][0]["system"]["pearson"] is not None  # means of the segment scores


def test_without_human_scores_write_mtme_writes_the_scores_alone(tiny, capsys):
    _no_human_scores(tiny)
    argv = [a.replace("{root}", str(tiny)) for a in MTME]
    code, out, err = run(capsys, *argv, "--write-mtme", tiny / "out", "--metric-name", "q")
    assert code == 0, err
    assert "no human scores for en-de; scores only" in err and "; no human scores" in out
    back = read_back(tiny / "out", "toy", "en-de")
    assert sorted(back[("q", "src", "sys")]) == ["sysA", "sysB", "sysC"]
    assert re.search(rf"^sysA +{back[('q', 'src', 'sys')]['sysA'][0]:.4f}$", out, re.M)


# -- WMT21 TED en-de from ../shared, laid out as MTME -------------------------------------------------------------
def test_wmt21_ted_round_trip(tmp_path, capsys):
    root = build_ted(tmp_path / "data")
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "-m", QE, "--mtme", root, "-t", "wmt21.tedtalks", "-l", "en-de",
                         "--write-mtme", out_dir, "--metric-name", "toyqe", "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["reference"] == "refA" and report["n_systems"] == 13 and report["n_segments"] == 529
    data, testset = load_mtme(root, "wmt21.tedtalks", "en-de")
    results = docmetrics.load(QE, defaults={"lang": "en-de"}).compute(testset)
    ev = evaluate_mtme({QE: results}, data)
    assert report["metrics"] == json.loads(json.dumps(ev.to_dict()["metrics"]))
    back = read_back(out_dir, "wmt21.tedtalks", "en-de")
    assert back[("toyqe", "src", "seg")] == {r.system: [u.score for u in r.units] for r in results}
    assert back[("toyqe", "src", "doc")] == {r.system: [d.score for d in r.docs] for r in results}
    assert back[("toyqe", "src", "sys")] == {r.system: [r.score] for r in results}


# -- --human gives what --mtme gives: one meta-evaluation ----------------------------------------------------------
def test_human_seg_level_reports_spa_and_acc_eq_as_mtme_does(tiny, capsys):
    """The tiny MTME directory, also given as plain files and a --human segment TSV: SPA, acc_eq and its
    epsilon (and the segment-level Pearson and Kendall) are the same numbers either way."""
    root = tiny / "data"
    data, testset = load_mtme(root, "toy", "en-de", ref="refA")
    plain = tiny / "plain"
    plain.mkdir()

    def lines(name, rows):
        (plain / name).write_text("".join(f"{x}\n" for x in rows), encoding="utf-8")
        return plain / name

    hyps = [lines(f"{s}.txt", testset.systems[s]) for s in testset.systems]  # MTME's gaps read as ""
    src, ref = lines("src.txt", testset.sources), lines("ref.txt", testset.references)
    ids = lines("ids.txt", testset.doc_ids)
    position = [i - data.docs[d][0] + 1 for i, d in enumerate(testset.doc_ids)]
    seg = data.human("mqm", "seg")
    human = lines("seg.tsv", ["system\tdoc_id\tseg_id\tscore"] + [
        f"{s}\t{testset.doc_ids[i]}\t{position[i]}\t{'NA' if v is None else v}" for s in seg for i, v in enumerate(seg[s])])
    specs = [QE, REF, WIN]
    code, out, err = run(capsys, "-m", *specs, "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refA", "-f", "json")
    assert code == 0, err
    mtme = json.loads(out)["metrics"]
    code, out, err = run(capsys, "-m", *specs, "-i", *hyps, "-s", src, "-r", ref, "--doc-ids", ids, "-l", "en-de",
                         "--human", human, "--seg-level", "-f", "json")
    assert code == 0, err
    human_evals = json.loads(out)
    assert [e["systems"] for e in human_evals] == [[f"{s}.txt" for s in data.systems]] * 3
    for h, m in zip(human_evals, mtme):
        assert h["spec"] == m["metric"] and h["metric_scores"] == m["system"]["metric_scores"]
        assert h["spa"] == m["system"]["spa"] and h["spa_items"] == m["system"]["spa_items"]
        assert 0 <= h["spa"] <= 1
    for h, m in zip(human_evals[:2], mtme[:2]):  # one unit per segment: the segment level
        assert h["seg_level"] == "segment" and h["acc_eq_items"] == m["segment"]["items"] == 6
        for mine, theirs in (("acc_eq", "acc_eq"), ("epsilon", "epsilon"), ("seg_pearson", "pearson"),
                             ("seg_kendall", "kendall"), ("seg_items", "n"), ("acc_eq_pairs", "pairs")):
            assert h[mine] == m["segment"][theirs] is not None, mine
    # windows: no segment level in either (--human still pairs each window with its segments' mean)
    assert human_evals[2]["acc_eq"] is None and human_evals[2]["epsilon"] is None and mtme[2]["segment"] is None
    code, out, err = run(capsys, "-m", *specs, "-i", *hyps, "-s", src, "-r", ref, "--doc-ids", ids, "-l", "en-de",
                         "--human", human, "--seg-level")
    assert code == 0, err
    header = out.splitlines()[0].split()
    assert header[2:] == ["pearson", "spearman", "kendall", "accuracy", "pairs", "spa", "acc_eq", "epsilon",
                          "seg-pearson", "seg-kendall"]  # the --mtme table's columns
    row = dict(zip(header, re.split(r"\s{2,}", out.splitlines()[2])))
    # each value with its significance cluster between the metrics, as --mtme gives them (none for SPA, which
    # cannot compare the window metric's items with the others')
    assert row["spa"] == f"{human_evals[0]['spa']:.4f}" and row["epsilon"] == f"{human_evals[0]['epsilon']:.6f}"
    assert re.fullmatch(rf"{human_evals[0]['acc_eq']:.4f} \([12]\)", row["acc_eq"]), row
    assert "[3] no acc_eq: the metric's units span several segments" in out
    assert "spa: slide:w=1,s=1,backbone=toy [1] vs slide:w=2,s=1,backbone=toy [3]: no significance test" in out


def test_run_mtme_reads_every_pair_then_loads_then_scores_with_the_callers_loader(tiny):
    from docmetrics.judging.mtme import MtmeObserver, run_mtme
    from docmetrics.values.errors import UserError

    root, heard, loads = tiny / "data", [], []

    class Ear(MtmeObserver):
        def opened(self, run):
            heard.append(("opened", run.lp))

        def loaded(self, run, metrics):
            heard.append(("loaded", run.lp, [(m.name, m.ref) for m in metrics]))

        def scoring(self, run, metric):
            heard.append(("scoring", run.lp, metric.spec))

        def scored(self, run, metric, results, written):
            heard.append(("scored", run.lp, metric.spec, sorted(written.paths)))

    def load(spec, lp):
        loads.append((spec, lp))
        return docmetrics.load(spec, defaults={"lang": lp})

    runs = run_mtme(str(root), "toy", ["en-de", "zh-en"], [QE, REF], load, ref="refA", out_root=str(tiny / "out"),
                    metric_names=["q", "r"], observer=Ear())
    assert loads == [(QE, "en-de"), (REF, "en-de"), (QE, "zh-en"), (REF, "zh-en")]
    assert heard[:4] == [("opened", "en-de"), ("opened", "zh-en"), ("loaded", "en-de", [("q", "src"), ("r", "refA")]),
                         ("loaded", "zh-en", [("q", "src"), ("r", "refA")])]
    assert heard[4:6] == [("scoring", "en-de", QE), ("scored", "en-de", QE, ["doc", "seg", "sys"])]
    for lp_run in runs:  # run_mtme scores and writes; the meta-evaluation is the library's (meta_evaluate)
        assert lp_run.evaluation is None
        expected = library(root, lp_run.lp, [QE, REF], n_resamples=40)[3]
        mine = docmetrics.meta_evaluate(lp_run.results, lp_run.evalset(), significance=40)
        mine_d, expected_d = mine.to_dict(layout="mtme"), expected.to_dict(layout="mtme")
        assert mine_d["testset"] == "toy" and mine_d["reference"] == "refA"  # where the EvalSet was read
        assert json.dumps({k: mine_d[k] for k in expected_d}) == json.dumps(expected_d)
        assert [w.metric for w in lp_run.written] == ["q", "r"] and lp_run.why_no_metaeval is None

    class Stop(MtmeObserver):
        def opened(self, run):
            raise UserError(f"stop at {run.lp}")

    def no_model(spec, lp):
        raise AssertionError("a model was loaded")

    with pytest.raises(UserError, match="stop at en-de"):
        run_mtme(str(root), "toy", ["en-de"], [QE], no_model, ref="refA", observer=Stop())


# -- the document level and PDP (opt-in: --doc-level, --pdp) ----------------------------------------------------
def test_doc_level_json_adds_document_objects_only(tiny, capsys):
    root, out_dir = tiny / "data", tiny / "out"
    base = ["-m", QE, WIN, "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refA", "--resamples", "30", "-f",
            "json"]
    code, out, err = run(capsys, *base)
    assert code == 0, err
    plain = json.loads(out)
    # MTME's document-level file (d1 scored, d2 None for every system): read, d2 left out and counted
    code, out, err = run(capsys, *base, "--doc-level")
    assert code == 0, err
    rep = json.loads(out)
    for a, b in zip(plain["metrics"], rep["metrics"]):
        b = dict(b)
        doc = b.pop("document")
        pdp = b["system"].pop("pdp")
        assert b == a
        assert doc["documents"] == 1 and doc["documents_left_out"] == 1 and doc["rule"] is None
        assert "en-de.mqm.doc.score" in doc["gold"]
        assert pdp == pytest.approx(a["system"]["pearson"])
    assert {k: v for k, v in rep["comparisons"].items() if k in plain["comparisons"]} == plain["comparisons"]
    assert {"pdp", "doc_acc_eq", "doc_pearson", "doc_spa"} <= set(rep["comparisons"])
    # without the document-level file: the mean of each document's judged segments, round-tripped through
    # the MTME score files --write-mtme writes
    (root / "toy" / "human-scores" / "en-de.mqm.doc.score").unlink()
    code, out, err = run(capsys, *base, "--doc-level", "--write-mtme", out_dir)
    assert code == 0, err
    rep = json.loads(out)
    data, testset, results, ev = library(root, "en-de", [QE, WIN], n_resamples=30, doc_rule="mean",
                                         significance=())
    seg = data.human("mqm", "seg")
    back = read_back(out_dir, "toy", "en-de")
    for k, spec in enumerate((QE, WIN)):
        doc = rep["metrics"][k]["document"]
        assert doc["rule"] == "mean" and doc["documents"] == 2 and doc["documents_left_out"] == 0
        xs, ys = [], []
        name = mtme_metric_name(results[spec][0].signature.format(short=True))
        doc_back = back[(name, "src", "doc")]
        for s in ev.systems:
            for j, (a, b) in enumerate(((0, 3), (3, 6))):
                vals = [v for v in seg[s][a:b] if v is not None]
                ys.append(sum(vals) / len(vals))
                xs.append(doc_back[s][j])
        assert doc["pearson"] == pytest.approx(scipy.stats.pearsonr(xs, ys)[0], abs=1e-9)
        assert doc["kendall"] == pytest.approx(scipy.stats.kendalltau(xs, ys)[0], abs=1e-9)
        assert doc == json.loads(json.dumps(ev.metrics[spec].document.to_dict()))


def test_doc_level_text_blocks_and_metaeval(tiny, capsys):
    root = tiny / "data"
    code, out, err = run(capsys, "-m", QE, REF, "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refA",
                         "--resamples", "20", "--doc-level", "sum")
    assert code == 0, err
    assert out.splitlines()[1].split()[-1] == "sys-pdp" and "Document level: 1 documents" in out
    assert "sys-pdp: system-level Pairwise Difference Pearson (MTME 2025)" in out
    assert out.index("Sorted by") > out.index("Document level")
    code, out, err = run(capsys, "metaeval", "--mtme", root, "-t", "toy", "-l", "en-de,zh-en", "-m", QE, REF,
                         "--ref", "refA", "--resamples", "20", "--pdp", "-f", "json")
    assert code == 0, err
    rep = json.loads(out)
    assert all("pdp" in m["system"] and "document" not in m for lp in rep["lps"] for m in lp["metrics"])


@pytest.mark.parametrize("argv, message", [
    (MTME + ["--doc-level", "median"], "--doc-level: invalid choice: 'median'"),
    (META + ["--doc-level", "max"], "--doc-level: invalid choice: 'max'"),
    (MTME + ["--doc-level"], "en-de.mqm.doc.score: document 'd1' has human scores for 2 of 3 systems"),
    (MTME + ["--doc-level", "sum"], "en-de.mqm.seg.score: document 'd2' has human scores for 2 of 3 systems"),
])
def test_doc_level_bad_input_exits_2_before_any_model(tiny, capsys, monkeypatch, argv, message):
    hs = tiny / "data" / "toy" / "human-scores"
    if "doc.score" in message:  # sysC's d1 not judged in MTME's document-level file
        (hs / "en-de.mqm.doc.score").write_text("".join(
            f"{s} {'None' if s == 'sysC' else '-1'}\n{s} None\n" for s in ("sysA", "sysB", "sysC", "refB")))
    elif "seg.score" in message:  # sysB's d2 segments not judged, no document-level file
        (hs / "en-de.mqm.doc.score").unlink()
        lines = (hs / "en-de.mqm.seg.score").read_text().splitlines()
        lines = ["sysB\tNone" if ln.startswith("sysB") and k % 6 >= 3 else ln for k, ln in enumerate(lines)]
        (hs / "en-de.mqm.seg.score").write_text("\n".join(lines) + "\n")

    def no_model(*a, **k):
        raise AssertionError("a model was loaded before the input was checked")

    monkeypatch.setattr(docmetrics.api, "load", no_model)
    code, out, err = run(capsys, *[a.replace("{root}", str(tiny)) for a in argv])
    assert code == 2 and message in err, err
