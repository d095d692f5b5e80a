"""Stored scores judged like computed ones (issue 30, part 1): a metric's scores written as MTME files
(``--write-mtme``, or the library's writer) and read back with ``--scores``/``--stored`` give the same
judging output, every statistic equal, in ``--mtme``, ``docmetrics metaeval``, ``--genmt`` (meta-evaluation
and error-free detection) and the paired tests; stored metrics alone need no -m; bad stored input exits 2
with one message naming the file, line and field before any model loads (toy backbone, no model)."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401
from test_cli_genmt import genmt  # noqa: F401
from test_mtme import build_tiny

import docmetrics
from docmetrics.formats.genmt import read_genmt
from docmetrics.judging.mtme import write_mtme_scores

pytestmark = pytest.mark.usefixtures("toy_dist")

QE = "slide:w=1,s=1,backbone=toy"
REF = "slide:w=1,s=1,backbone=toy,model=toy-ref"
NAMES = ("metric", "spec", "signature")  # what names a metric: the rest of the judging output is compared


def strip(obj, names=None):
    """The judging output with every metric's name and signature replaced by its position, so that a live
    metric and its stored twin compare equal where every statistic is equal."""
    names = {} if names is None else names
    if isinstance(obj, dict):
        return {strip(k, names): ("<name>" if k in NAMES else strip(v, names)) for k, v in obj.items()
                if k not in ("written", "higher_is_better")}
    if isinstance(obj, list):
        return [strip(v, names) for v in obj]
    if isinstance(obj, str):
        return re.sub(r"(stored:|slide[:|])[^\s)]*", "<name>", obj)
    return obj


@pytest.fixture()
def tiny(tmp_path):
    build_tiny(tmp_path / "data")
    build_tiny(tmp_path / "data", lp="zh-en")
    return tmp_path


def mtme(root, *extra):
    return ["--mtme", root / "data", "-t", "toy", "-l", "en-de", "--ref", "refA", "--resamples", "60", "--seed", "3",
            "-f", "json", *extra]


def test_write_mtme_then_stored_gives_identical_judging_json(tiny, capsys):
    root = tiny
    code, live, err = run(capsys, "-m", QE, *mtme(root, "--write-mtme", root / "out", "--doc-level", "mean",
                                                   "--pdp"))
    assert code == 0, err
    folder = root / "out" / "toy" / "metric-scores" / "en-de"
    files = sorted(folder.iterdir())
    assert [f.name.rsplit(".", 2)[-2] for f in files] == ["doc", "seg", "sys"]
    code, back, err = run(capsys, "--scores", *files, *mtme(root, "--doc-level", "mean", "--pdp"))
    assert code == 0, err
    a, b = json.loads(live), json.loads(back)
    assert b["metrics"][0]["metric"].startswith("stored:slide_w_1_s_1_")
    assert strip(a) == strip(b)
    assert a["metrics"][0]["system"] == b["metrics"][0]["system"]  # not vacuous: the statistics are there
    assert set(a["metrics"][0]["system"]) >= {"pearson", "accuracy"}
    # the MTME directory's own metric-scores: --stored NAME (NAME-REF, or NAME where one reference has it)
    name = files[0].name.rsplit("-src.", 1)[0]
    shutil.copytree(root / "out" / "toy" / "metric-scores", root / "data" / "toy" / "metric-scores")
    for wanted in (f"{name}-src", name, "all"):
        code, own, err = run(capsys, "--stored", wanted, *mtme(root, "--doc-level", "mean", "--pdp"))
        assert code == 0, err
        assert strip(json.loads(own)) == strip(a)
    # beside a live metric: clusters between the live metric and the stored ones
    code, both, err = run(capsys, "-m", QE, REF, "--stored", name, *mtme(root))
    assert code == 0, err
    report = json.loads(both)
    assert [m["metric"] for m in report["metrics"]] == [QE, REF, f"stored:{name}-src"]
    assert report["metrics"][0]["system"] == report["metrics"][2]["system"]
    assert report["comparisons"]
    code, text, err = run(capsys, "-m", REF, "--stored", name, *mtme(root)[:-2])
    assert code == 0, err
    assert "stored|name:" in text and "level:seg+doc+sys" in text


def test_metaeval_with_stored_metrics_only(tiny, capsys):
    root = tiny
    for lp in ("en-de", "zh-en"):
        code, _, err = run(capsys, "-m", QE, "--mtme", root / "data", "-t", "toy", "-l", lp, "--ref", "refA",
                           "--resamples", "0", "--write-mtme", root / "data")
        assert code == 0, err
    argv = ["metaeval", "--mtme", root / "data", "-t", "toy", "-l", "en-de,zh-en", "--ref", "refA",
            "--resamples", "40", "-f", "json"]
    code, live, err = run(capsys, *argv, "-m", QE)
    assert code == 0, err
    code, back, err = run(capsys, *argv, "--stored", "all")
    assert code == 0, err
    assert strip(json.loads(live)) == strip(json.loads(back))


def _write_genmt_scores(path, out, spec=QE):
    """The library's --write-mtme of a live metric on a GenMT pair: NAME-src.{sys,doc,seg}.score."""
    pair = read_genmt(str(path)).pair("en-de_DE")
    testset = pair.testset()
    results = docmetrics.load(spec).compute(testset)
    written = write_mtme_scores(out, "genmt", "en-de_DE", "live", "src", results, n_segments=testset.n_segments,
                                doc_ids=[d.doc_id for d in testset.documents])
    return sorted(written.paths.values())


def test_genmt_metaeval_detection_and_paired_tests_on_stored_scores(genmt, tmp_path, capsys):  # noqa: F811
    files = _write_genmt_scores(genmt, tmp_path / "out")
    for extra in (["--error-free"], ["--doc-level", "mean"], ["--paired-bs", "--seed", "5", "--paired-bs-n", "200"],
                  ["--paired-ar", "--seed", "5", "--paired-ar-n", "200"]):
        base = ["--genmt", genmt, "-l", "en-de_DE", "-f", "json", *extra]
        code, live, err = run(capsys, "-m", QE, *base)
        assert code == 0, err
        code, back, err = run(capsys, "--scores", *files, *base)
        assert code == 0, (extra, err)
        assert strip(json.loads(live)) == strip(json.loads(back)), extra


def test_plain_files_paired_test_and_stored_only_without_inputs(tmp_path, capsys):
    from test_cli_genmt import DOCS, SYSTEMS

    paths = []
    for s, lines in SYSTEMS.items():
        (tmp_path / s).write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(tmp_path / s)
    (tmp_path / "src.txt").write_text("\n".join(f"Quelle {i}." for i in range(6)) + "\n", encoding="utf-8")
    (tmp_path / "ids.txt").write_text("\n".join(d for _, d in DOCS) + "\n", encoding="utf-8")
    inputs = ["-i", *paths, "-s", tmp_path / "src.txt", "--doc-ids", tmp_path / "ids.txt"]
    code, out, err = run(capsys, "-m", QE, *inputs, "--level", "seg", "-o", tmp_path / "seg.tsv", "-f", "json")
    assert code == 0, err
    rows = json.loads((tmp_path / "seg.tsv").read_text())
    tsv = ["system\tdoc_id\ttoy"] + [f"{r['system']}\t{u['doc_id']}\t{u['score']!r}" for r in rows for u in r["units"]]
    (tmp_path / "scores.tsv").write_text("\n".join(tsv) + "\n", encoding="utf-8")
    test = ["--paired-bs", "--seed", "1", "--paired-bs-n", "300", "-f", "json"]
    code, live, err = run(capsys, "-m", QE, *inputs, *test)
    assert code == 0, err
    code, back, err = run(capsys, "--scores", tmp_path / "scores.tsv", *inputs, *test)
    assert code == 0, err
    assert strip(json.loads(live)) == strip(json.loads(back))
    code, alone, err = run(capsys, "--scores", tmp_path / "scores.tsv", *test)  # no -i: the scores are the test set
    assert code == 0, err
    assert strip(json.loads(alone)) == strip(json.loads(live))
    # a missing score is counted and said, never read as 0
    lines = tsv[:]
    lines[2] = lines[2].rsplit("\t", 1)[0] + "\t"
    (tmp_path / "gap.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "--scores", tmp_path / "gap.tsv", "-f", "json")
    assert code == 0, err
    first = json.loads(out)[0]
    assert first["coverage"]["missing scores"] == 1 and first["coverage"]["segments_scored"] == 5
    assert "missing scores" in err


# -- bad stored input: exit 2, one message naming the file, line and field, no model loaded ----------------------
def _tsv(tmp, rows, name="s.tsv"):
    path = tmp / name
    path.write_text("\n".join(["system\tdoc_id\tM"] + rows) + "\n", encoding="utf-8")
    return path


GOOD = [f"{s}\t{d}\t0.{k}" for s in ("sysA", "sysB", "sysC") for k, (_, d) in enumerate(
    [("news", "n1"), ("news", "n1"), ("talk", "t1"), ("talk", "t1"), ("talk", "t2"), ("talk", "t2")])]


def _jsonl(tmp):
    """WMT25 automatic scores of en-de, one file per system."""
    for s in ("sysA", "sysB", "sysC"):
        docs = [("n1", 2), ("t1", 2), ("t2", 2)]
        (tmp / f"{s}.jsonl").write_text("".join(json.dumps(
            {"language_pair": "en-de", "domain": "news", "document_id": d, "metric_scores": {"M": [0.5] * n}}) + "\n"
            for d, n in docs), encoding="utf-8")
    return tmp / "sysA.jsonl"


def _wmt25_big(tmp):
    first = _jsonl(tmp)
    lines = first.read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].replace('"M": [0.5, 0.5]', '"M": [1e308, 0.5]')
    first.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return first


def _mtme_seg(tmp, lines):
    folder = tmp / "m" / "toy" / "metric-scores" / "en-de"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "X-refA.seg.score").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "X-refA.seg.score"


BAD = [
    ("a system missing", lambda t: _tsv(t, GOOD[:12]), [], "s.tsv, field system: no M scores of system 'sysC'"),
    ("a segment missing", lambda t: _tsv(t, [r for k, r in enumerate(GOOD) if k % 6 != 5]), [],
     "s.tsv, line 6, field M: 5 seg-level scores of system 'sysA', the test set has 6 segments"),
    ("other documents", lambda t: _tsv(t, [r.replace("t2", "t3") for r in GOOD]), [],
     "s.tsv, line 6, field doc_id: the stored documents differ from the test set's at document 3"),
    ("NaN", lambda t: _tsv(t, GOOD[:4] + ["sysA\tt1\tNaN"] + GOOD[5:]), [], "s.tsv, line 6, field M: 'NaN'"),
    ("text", lambda t: _tsv(t, ["sysA\tn1\tgood"] + GOOD[1:]), [], "s.tsv, line 2, field M: 'good' is not a number"),
    ("unknown metric", lambda t: _tsv(t, GOOD), ["--stored", "Nope"], "no metric 'Nope'"),
    ("all and names", lambda t: _tsv(t, GOOD), ["--stored", "all", "M"], "--stored all names every metric"),
    ("bad direction", lambda t: _tsv(t, GOOD), ["--direction", "M=up"], "--direction: direction 'M=up'"),
    # issue 37: a direction naming no stored metric (before: accepted without a word)
    ("direction of no metric", lambda t: _tsv(t, GOOD), ["--direction", "Nope=lower"],
     "s.tsv has no stored metric 'Nope' (its metrics: M); give one of those names"),
    # issue 37: scores that overflow sums (before: '0.0000 (nan ± inf) (p = 1.0000)', exit 0)
    ("1e308 and -1e308", lambda t: _tsv(t, [r.rsplit("\t", 1)[0] + ("\t1e308" if k % 2 else "\t-1e308")
                                           for k, r in enumerate(GOOD)]), [],
     "s.tsv, line 2, field M: '-1e308' is beyond ±1e+100, too large to average or resample"),
    ("1e308 in JSON lines", lambda t: _wmt25_big(t), ["-l", "en-de"],
     "sysA.jsonl, line 1, field metric_scores.M[0]: 1e+308 is beyond ±1e+100"),
    ("1e308 in an MTME file", lambda t: _mtme_seg(t, [f"{s}\t1e308" for s in ("sysA", "sysB", "sysC")
                                                     for _ in range(6)]), [],
     "X-refA.seg.score, line 1: '1e308' is beyond ±1e+100"),
    ("unknown language pair", lambda t: _jsonl(t), ["-l", "en-fr"], "no language pair 'en-fr'"),
    # issue 37: a metric with every cell empty (before: advice to give --doc-ids, after scoring)
    ("every cell empty", lambda t: _tsv(t, [r.rsplit("\t", 1)[0] + "\t" for r in GOOD]), [],
     "s.tsv, field M: every seg-level score is empty (all 18 of 3 systems): there is nothing to judge"),
    ("mtme seg count", lambda t: _mtme_seg(t, [f"{s}\t0.5" for s in ("sysA", "sysB", "sysC") for _ in range(5)]), [],
     "X-refA.seg.score, line 5, field X-refA: 5 seg-level scores of system 'sysA', the test set has 6"),
]


@pytest.mark.parametrize("name,make,extra,message", BAD, ids=[b[0] for b in BAD])
def test_bad_stored_input_exits_2_naming_file_line_and_field(tmp_path, capsys, monkeypatch, name, make, extra,
                                                              message):
    from test_cli_genmt import DOCS, SYSTEMS

    for s, lines in SYSTEMS.items():
        (tmp_path / s).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "ids.txt").write_text("\n".join(d for _, d in DOCS) + "\n", encoding="utf-8")
    path = make(tmp_path)

    def no_model(*a, **k):
        raise AssertionError("a model was loaded before the stored scores were checked")

    monkeypatch.setattr(docmetrics.api, "load", no_model)
    code, out, err = run(capsys, "-m", QE, "-i", *[tmp_path / s for s in SYSTEMS], "--doc-ids",
                         tmp_path / "ids.txt", "--scores", path, "--paired-bs", *extra)
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert message in err


def test_stored_options_without_files_are_refused(tmp_path, capsys):
    code, _, err = run(capsys, "--stored", "M", "-i", tmp_path / "x.txt")
    assert code == 2 and "--stored M: give the files with --scores FILE..." in err
    code, _, err = run(capsys, "metaeval", "--mtme", tmp_path, "-t", "toy", "-l", "en-de")
    assert code == 2 and "-m/--metrics" in err


def test_mtme_levels_join_in_any_order(tmp_path):
    from docmetrics.judging import read_stored

    folder = tmp_path / "toy" / "metric-scores" / "en-de"
    folder.mkdir(parents=True)
    (folder / "X-refA.sys.score").write_text("a\t1.0\nb\t2.0\n")
    (folder / "X-refA.doc.score").write_text("a\t1.0\nb\t2.0\n")
    (folder / "X-refA.seg.score").write_text("a\t1.0\na\t1.5\nb\t2.0\nb\t2.5\n")
    for order in (["sys", "doc", "seg"], ["doc", "sys", "seg"], ["seg", "sys", "doc"]):
        stored = read_stored([str(folder / f"X-refA.{lv}.score") for lv in order])
        m = stored.pairs["en-de"]["X-refA"]
        assert m.level == "seg" and sorted(m.coarser) == ["doc", "sys"] and m.levels == "seg+doc+sys"
        assert len(stored.notes) == 2
