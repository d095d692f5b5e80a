"""MTME data directories (docmetrics.formats.mtme) and the WMT meta-evaluation over them
(docmetrics.judging.evaluate): a tiny directory built here, and WMT21 TED en-de from ../shared."""

import importlib.util
import json
import math
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from mtme_fixtures import read_back

from docmetrics import stats as ws
from docmetrics.formats.mtme import STANDARDS, load_mtme, read_mtme
from docmetrics.formats.mtme_scores import parse_metric_filename
from docmetrics.judging.averages import wmt_average
from docmetrics.judging.evaluate import evaluate_mtme, evaluate_wmt
from docmetrics.judging.mtme import mtme_metric_name, write_mtme_scores
from docmetrics.stats.vector import pairwise_accuracy
from docmetrics.values.errors import InputError
from docmetrics.values.result import Coverage, DocScore, Result, UnitScore
from docmetrics.values.signature import Signature

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


# -- a tiny MTME directory ---------------------------------------------------------------------------------------
SRC = ["a b c", "d e f", "g h", "i j k l", "m n", "o p q"]
DOCS = ["news d1", "news d1", "news d1", "talk d2", "talk d2", "talk d2"]
REF_A = ["A B C", "D E F", "G H", "I J K L", "M N", "O P Q"]
REF_B = ["A B X", "D E F", "G Y", "I J K", "M N", "O P Q R"]
OUTPUTS = {
    "sysA": ["A B C", "D E X", "G H", "I J K L", "M", "O P Q"],
    "sysB": ["A X C", "D E", "G H Z", "I K", "M N", "O P"],
    "sysC": ["X", "D", "G", "[No translation supplied]", "N", "P"],
    "refA": REF_A,
    "refB": REF_B,
}
SEG = {  # MQM-like: higher is better, None = not rated
    "sysA": ["0", "-1", "0", "0", "-5", "0"],
    "sysB": ["-1", "-5", "-1", "-6", "0", "-1"],
    "sysC": ["-25", "-10", "None", "-25", "-5", "-10"],
    "refB": ["0", "0", "-1", "0", "0", "0"],
}


def write(path: Path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")


def build_tiny(root: Path, testset="toy", lp="en-de", seg=SEG, outputs=OUTPUTS):
    d = root / testset
    write(d / "sources" / f"{lp}.txt", SRC)
    write(d / "documents" / f"{lp}.docs", DOCS)
    write(d / "references" / f"{lp}.refA.txt", REF_A)
    write(d / "references" / f"{lp}.refB.txt", REF_B)
    for name, lines in outputs.items():
        write(d / "system-outputs" / lp / f"{name}.txt", lines)
    write(d / "human-scores" / f"{lp}.mqm.seg.score", [f"{s}\t{v}" for s, vals in seg.items() for v in vals])
    sys_lines = []
    for s, vals in seg.items():
        scored = [float(v) for v in vals if v != "None"]
        sys_lines.append(f"{s}\t{sum(scored) / len(scored)}")
    write(d / "human-scores" / f"{lp}.mqm.sys.score", sys_lines)
    write(d / "human-scores" / f"{lp}.mqm.doc.score", [f"{s} {v}" for s in seg for v in ("-1.5", "None")])
    write(d / "human-scores" / f"{lp}.mqm.domain.score", ["talk sysA -2", "news sysA -0.5"])
    return d


def test_read_tiny_directory(tmp_path):
    build_tiny(tmp_path)
    ts = read_mtme(tmp_path, "toy", "en-de")
    assert ts.sources == SRC and ts.references == {"refA": REF_A, "refB": REF_B}
    assert ts.doc_ids == ["d1"] * 3 + ["d2"] * 3 and ts.domains == ["news"] * 3 + ["talk"] * 3
    assert ts.docs == {"d1": (0, 3), "d2": (3, 6)} and ts.domain_names == ["news", "talk"]
    # MTME's rule: a system named like a reference is a human translation
    assert ts.human_systems == {"refA", "refB"}
    sysc = str(tmp_path / "toy" / "system-outputs" / "en-de" / "sysC.txt")
    assert ts.system_outputs["sysC"][3] == "" and ts.missing == {sysc: [3]}
    seg = ts.human("mqm", "seg")
    assert seg["sysC"][2] is None and seg["sysA"][4] == -5.0 and len(seg) == 4
    assert ts.human("mqm", "sys")["sysA"] == [pytest.approx(-1)]
    assert ts.human("mqm", "doc")["sysB"] == [-1.5, None]
    assert ts.human("mqm", "domain")["sysA"] == [-0.5, -2.0]  # in sorted domain order
    assert ts.default_human_name("seg") == "mqm" and ts.standard is None


def test_read_directory_with_glob_characters(tmp_path):
    root = tmp_path / "data [v2]*"
    build_tiny(root)
    assert sorted(read_mtme(root, "toy", "en-de").human_score_names) == ["mqm"]


def test_load_tiny_leaves_out_reference_and_humans(tmp_path):
    build_tiny(tmp_path)
    data, testset = load_mtme(tmp_path, "toy", "en-de", ref="refA")
    assert data.ref == "refA" and data.human_name == "mqm"
    assert list(testset.systems) == ["sysA", "sysB", "sysC"] == data.systems
    assert testset.references == REF_A and testset.sources == SRC
    assert [(d.doc_id, d.start, d.end) for d in testset.documents] == [("d1", 0, 3), ("d2", 3, 6)]
    assert testset.describe("reference").endswith("en-de.refA.txt")
    _, with_humans = load_mtme(tmp_path, "toy", "en-de", ref="refA", include_human=True)
    assert list(with_humans.systems) == ["refB", "sysA", "sysB", "sysC"]  # never the reference in use
    _, chosen = load_mtme(tmp_path, "toy", "en-de", ref="refB", systems=["sysB", "refA"])
    assert list(chosen.systems) == ["sysB", "refA"] and chosen.references == REF_B


def test_standard_reference_and_outliers(tmp_path):
    # wmt23 en-de: standard reference refA, outlier synthetic_ref (mt_metrics_eval/meta_info.py)
    assert STANDARDS[("wmt23", "en-de")].ref == "refA"
    build_tiny(tmp_path, "wmt23", outputs={**OUTPUTS, "synthetic_ref": REF_B})
    data, testset = load_mtme(tmp_path, "wmt23", "en-de")
    assert data.ref == "refA" and "synthetic_ref" not in testset.systems
    _, everything = load_mtme(tmp_path, "wmt23", "en-de", include_outliers=True)
    assert "synthetic_ref" in everything.systems


# -- metric results built by the tests --------------------------------------------------------------------------
def unigram_f1(hyp: str, ref: str) -> float:
    h, r = Counter(hyp.split()), Counter(ref.split())
    common = sum((h & r).values())
    if not common:
        return 0.0
    p, q = common / sum(h.values()), common / sum(r.values())
    return 2 * p * q / (p + q)


def sentence_results(metric, testset, fn=unigram_f1, system_names=None):
    out = []
    for name, hyp in testset.systems.items():
        units = [
            UnitScore(d.doc_id, i, i + 1, fn(hyp[i], testset.references[i]))
            for d in testset.documents
            for i in range(d.start, d.end)
        ]
        docs = [DocScore(d.doc_id, float(np.mean([u.score for u in units[d.start : d.end]])), len(d))
                for d in testset.documents]
        cov = Coverage(testset.n_segments, testset.n_segments, len(units))
        out.append(Result((system_names or {}).get(name, name), metric, float(np.mean([u.score for u in units])),
                          Signature(metric), {}, units, docs, cov))
    return out


def window_results(metric, testset, w=2):
    """SLIDE-like: windows of w segments, stride w, within each document (partial windows dropped)."""
    out = []
    for name, hyp in testset.systems.items():
        units, docs = [], []
        for d in testset.documents:
            mine = []
            for start in range(d.start, d.end - w + 1, w):
                h = " ".join(hyp[start : start + w])
                r = " ".join(testset.references[start : start + w])
                mine.append(UnitScore(d.doc_id, start, start + w, unigram_f1(h, r)))
            units += mine
            docs.append(DocScore(d.doc_id, float(np.mean([u.score for u in mine])) if mine else None, len(mine)))
        out.append(Result(name, metric, float(np.mean([u.score for u in units])), Signature(metric), {}, units, docs))
    return out


# -- writing and reading metric scores ---------------------------------------------------------------------------
def test_write_and_read_back_metric_scores(tmp_path):
    build_tiny(tmp_path)
    data, testset = load_mtme(tmp_path, "toy", "en-de", ref="refA")
    results = sentence_results("doc-comet:model=x/y, k=2", testset)
    out = tmp_path / "out"
    written = write_mtme_scores(out, "toy", "en-de", "doc-comet:model=x/y, k=2", "refA", results)
    assert written.metric == mtme_metric_name("doc-comet:model=x/y, k=2") == "doc-comet_model_x_y_k_2"
    assert set(written.paths) == {"sys", "doc", "seg"} and written.skipped == {}
    seg_path = out / "toy" / "metric-scores" / "en-de" / "doc-comet_model_x_y_k_2-refA.seg.score"
    assert written.paths["seg"] == str(seg_path)
    lines = seg_path.read_text().splitlines()
    assert len(lines) == 3 * 6 and lines[0].split("\t") == ["sysA", repr(results[0].units[0].score)]
    assert [ln.split("\t")[0] for ln in lines[:7]] == ["sysA"] * 6 + ["sysB"]  # a block per system
    back = read_back(out, "toy", "en-de")
    name = written.metric
    assert back[(name, "refA", "sys")] == {r.system: [r.score] for r in results}
    assert back[(name, "refA", "seg")] == {r.system: [u.score for u in r.units] for r in results}
    assert back[(name, "refA", "doc")] == {r.system: [d.score for d in r.docs] for r in results}
    assert parse_metric_filename(written.paths["seg"]) == (name, "refA", "seg")


def test_write_window_metric_skips_segment_level(tmp_path):
    build_tiny(tmp_path)
    _, testset = load_mtme(tmp_path, "toy", "en-de", ref="refA")
    written = write_mtme_scores(tmp_path / "out", "toy", "en-de", "slide", "src", window_results("slide", testset),
                                n_segments=6)
    assert set(written.paths) == {"sys", "doc"} and "seg" in written.skipped
    assert Path(written.paths["sys"]).name == "slide-src.sys.score"
    # a document without a score cannot be written: the level is skipped, with the reason
    holes = window_results("slide", testset)
    holes[1].docs[1].score = None
    gap = write_mtme_scores(tmp_path / "out", "toy", "en-de", "slide3", "src", holes, n_segments=6)
    assert "doc" in gap.skipped and "no score for document" in gap.skipped["doc"]


# -- bad inputs --------------------------------------------------------------------------------------------------
def _break(rel, lines):
    def apply(d: Path):
        write(d / rel, lines)
    return apply


def _remove(rel):
    def apply(d: Path):
        os.remove(d / rel)
    return apply


BAD_DIRS = [
    ("no sources", _remove("sources/en-de.txt"), "sources/en-de.txt: no such file"),
    ("no documents", _remove("documents/en-de.docs"), "en-de.docs: no such file"),
    ("docs line", _break("documents/en-de.docs", ["news d1"] * 5 + ["d2only"]), "en-de.docs, line 6"),
    ("docs length", _break("documents/en-de.docs", ["news d1"] * 5), "en-de.docs: 5 lines"),
    ("docs not contiguous", _break("documents/en-de.docs", ["n d1", "n d2", "n d1", "n d3", "n d3", "n d3"]),
     "en-de.docs, line 3"),
    ("output length", _break("system-outputs/en-de/sysB.txt", ["x"] * 5), "sysB.txt: 5 lines"),
    ("reference name", _break("references/en-de.ref-C.txt", SRC), "en-de.ref-C.txt: bad reference file name"),
    ("score fields", _break("human-scores/en-de.mqm.sys.score", ["sysA 1 2"]), "en-de.mqm.sys.score, line 1"),
    ("score number", _break("human-scores/en-de.mqm.sys.score", ["sysA 1", "sysB abc"]), "mqm.sys.score, line 2"),
    ("unknown system", _break("human-scores/en-de.mqm.sys.score", ["sysZ 1"]), "line 1: unknown system 'sysZ'"),
    ("sys twice", _break("human-scores/en-de.mqm.sys.score", ["sysA 1", "sysA 2"]), "mqm.sys.score, line 2"),
    ("seg count", _break("human-scores/en-de.mqm.seg.score", ["sysA 1"] * 5), "has 5 scores; expected 6"),
    ("level name", _break("human-scores/en-de.mqm.word.score", ["sysA 1"]), "unknown level 'word'"),
    ("invalid utf-8", lambda d: (d / "sources" / "en-de.txt").write_bytes(b"ok\n\xff\n"), "en-de.txt, line 2"),
]


@pytest.mark.parametrize("name,damage,message", BAD_DIRS, ids=[b[0] for b in BAD_DIRS])
def test_bad_directory_raises_naming_the_file(tmp_path, name, damage, message):
    damage(build_tiny(tmp_path))
    with pytest.raises(InputError, match=None) as err:
        load_mtme(tmp_path, "toy", "en-de", ref="refA")
    assert message in str(err.value)


BAD_CALLS = [
    ("no testset", lambda root: load_mtme(root, "nope", "en-de"), "no such directory"),
    ("two references", lambda root: load_mtme(root, "toy", "en-de"), "2 references"),
    ("unknown reference", lambda root: load_mtme(root, "toy", "en-de", ref="refZ"), "no reference 'refZ'"),
    ("unknown human", lambda root: load_mtme(root, "toy", "en-de", ref="refA", human_name="esa"), "'esa'"),
    ("unknown system", lambda root: load_mtme(root, "toy", "en-de", ref="refA", systems=["sysZ"]), "'sysZ'"),
    ("reference scored", lambda root: load_mtme(root, "toy", "en-de", ref="refA", systems=["refA"]),
     "reference in use"),
    ("metric file name", lambda root: parse_metric_filename("bleu.sys.score"), "NAME-REF.LEVEL.score"),
    ("write: ref name", lambda root: write_mtme_scores(root, "toy", "en-de", "m", "ref-A", [
        Result("s", "m", 1.0, Signature("m"), {})]), "bad reference name"),
    ("write: no score", lambda root: write_mtme_scores(root, "toy", "en-de", "m", "refA", [
        Result("s", "m", math.nan, Signature("m"), {})]), "no m score"),
    ("write: system name", lambda root: write_mtme_scores(root, "toy", "en-de", "m", "refA", [
        Result("my sys", "m", 1.0, Signature("m"), {})]), "without whitespace"),
]


@pytest.mark.parametrize("name,call,message", BAD_CALLS, ids=[b[0] for b in BAD_CALLS])
def test_bad_call_raises(tmp_path, name, call, message):
    build_tiny(tmp_path)
    with pytest.raises(InputError) as err:
        call(tmp_path)
    assert message in str(err.value)


# -- the WMT meta-evaluation on the tiny directory ----------------------------------------------------------------
def length_ratio(hyp, ref):
    return -abs(len(hyp.split()) - len(ref.split()))


def test_evaluate_tiny_against_independent_computations(tmp_path):
    build_tiny(tmp_path)
    data, testset = load_mtme(tmp_path, "toy", "en-de", ref="refA")
    results = {
        "f1": sentence_results("f1", testset),
        "len": sentence_results("len", testset, length_ratio),
        "win": window_results("win", testset),
    }
    ev = evaluate_mtme(results, data, n_resamples=200, n_permutations=300)
    assert ev.systems == ["sysA", "sysB", "sysC"] and ev.human_name == "mqm"
    human_sys = [data.human("mqm", "sys")[s][0] for s in ev.systems]
    f1 = ev.metrics["f1"]
    m = [r.score for r in results["f1"]]
    assert f1.human_scores == human_sys
    assert f1.pearson == pytest.approx(scipy.stats.pearsonr(m, human_sys)[0])
    assert f1.kendall == pytest.approx(scipy.stats.kendalltau(m, human_sys)[0])
    assert (f1.accuracy, f1.get("accuracy_mtme")) == (pairwise_accuracy(m, human_sys)[0],) * 2
    seg_m = {r.system: [u.score for u in r.units] for r in results["f1"]}
    seg_h = data.human("mqm", "seg")
    expected_spa = ws.soft_pairwise_accuracy(seg_m, seg_h, systems=ev.systems, n_permutations=300).spa
    assert f1.spa == pytest.approx(expected_spa)
    acc = ws.acc_eq(seg_m, {s: seg_h[s] for s in ev.systems})
    assert (f1.seg_acc_eq, f1.seg_epsilon) == (pytest.approx(acc.accuracy), acc.epsilon)
    pairs = [(seg_m[s][i], seg_h[s][i]) for s in ev.systems for i in range(6) if seg_h[s][i] is not None]
    assert f1.seg_n == 17
    assert f1.seg_pearson == pytest.approx(scipy.stats.pearsonr(*zip(*pairs))[0])
    # a window metric: SPA over its windows, no segment level
    win = ev.metrics["win"]
    assert win.seg_acc_eq is None and win.seg_pearson is None and "several segments" in win.seg_note
    assert win.spa_items == "2 units"  # one window of 2 segments in each 3-segment document
    units = {r.system: [u.score for u in r.units] for r in results["win"]}
    assert win.spa == pytest.approx(ws.soft_pairwise_accuracy(units, seg_h, systems=ev.systems,
                                                              n_permutations=300).spa)
    # comparisons: the ranking, PERM-BOTH p-values, the seed and resamples recorded
    comp = ev.comparisons["pearson"]
    assert [r.metric for r in comp.ranking] == ws.rank_order({k: v.pearson for k, v in ev.metrics.items()})
    assert all(0 <= t.p_value <= 1 and t.n_resamples == 200 for t in comp.tests.values())
    assert "win" in ev.comparisons["seg_acc_eq"].skipped
    assert ev.comparisons["spa"].skipped["f1 vs win"].startswith(
        "no significance test: f1 scores 6 segments, win scores 2 units of 2 segments each")
    d = json.loads(json.dumps(ev.to_dict(), allow_nan=False))
    assert d["perm_both"] == {"n_resamples": 200, "seed": ws.DEFAULT_SEED, "alpha": 0.05}
    assert d["spa"] == {"n_permutations": 300, "seed": 4}


def test_evaluate_matches_file_names_and_reports_left_out(tmp_path):
    build_tiny(tmp_path)
    data, testset = load_mtme(tmp_path, "toy", "en-de", ref="refA")
    renamed = sentence_results("f1", testset, system_names={"sysA": "sysA.txt", "sysB": "sysB.en-de.txt"})
    extra = Result("unknown", "f1", 0.5, Signature("f1"), {})
    ev = evaluate_wmt(renamed + [extra], {s: v[0] for s, v in data.human("mqm", "sys").items()}, significance=())
    assert ev.systems == ["sysA", "sysB", "sysC"]
    assert any(x.startswith("unknown") for x in ev.left_out) and any(x.startswith("refB") for x in ev.left_out)
    assert ev.metrics["f1"].spa is None and ev.comparisons == {}


def test_evaluate_bad_inputs(tmp_path):
    build_tiny(tmp_path)
    data, testset = load_mtme(tmp_path, "toy", "en-de", ref="refA")
    res = sentence_results("f1", testset)
    with pytest.raises(InputError, match="no human scores"):
        evaluate_wmt(res)
    with pytest.raises(InputError, match="only 1 system"):
        evaluate_wmt(res, {"sysA": 1.0})
    with pytest.raises(InputError, match="unknown statistic"):
        evaluate_wmt(res, {"sysA": 1.0, "sysB": 2.0}, significance=("bleu",))
    with pytest.raises(InputError, match="two results"):
        evaluate_wmt({"f1": res + res[:1]}, {"sysA": 1.0, "sysB": 2.0})
    with pytest.raises(InputError, match="human scores cover 4 segments"):
        evaluate_wmt(res, None, {s: [0.0, 1.0, None, 2.0] for s in ("sysA", "sysB", "sysC")})
    bare = [Result(r.system, "bare", r.score, r.signature, {}) for r in res]
    ev = evaluate_mtme({"bare": bare}, data, significance=())
    assert ev.metrics["bare"].spa is None and ev.metrics["bare"].spa_note == "the metric gives no unit scores"


def test_wmt_average_schemes(tmp_path):
    evals = []
    for lp, out in (("en-de", OUTPUTS), ("zh-en", {**OUTPUTS, "sysA": OUTPUTS["sysB"], "sysB": OUTPUTS["sysA"]})):
        build_tiny(tmp_path, "toy", lp, outputs=out)
        data, testset = load_mtme(tmp_path, "toy", lp, ref="refA")
        results = {"f1": sentence_results("f1", testset), "len": sentence_results("len", testset, length_ratio)}
        evals.append(evaluate_mtme(results, data, n_resamples=100, n_permutations=200))
    avg24 = wmt_average(evals, "wmt24")
    assert [t.name for t in avg24.tasks] == ["en-de:spa", "en-de:seg_acc_eq", "zh-en:spa", "zh-en:seg_acc_eq"]
    by_hand = {m: np.mean([e.metrics[m].spa for e in evals] + [e.metrics[m].seg_acc_eq for e in evals])
               for m in ("f1", "len")}
    assert {r.metric: r.value for r in avg24.ranking} == pytest.approx(by_hand)
    assert all(r.rank is not None for r in avg24.ranking) and avg24.note is None
    avg23 = wmt_average(evals, "wmt23")
    assert avg23.tasks[0].statistic == "global_accuracy" and avg23.tasks[0].weight == pytest.approx(2 / 8)
    glob = {m: ws.pooled_pairwise_accuracy(
        [(e.metrics[m].metric_scores, e.metrics[m].human_scores) for e in evals])[0] for m in ("f1", "len")}
    for r in avg23.ranking:
        m = r.metric
        per_lp = sum((e.metrics[m].pearson + 1) / 2 + (e.metrics[m].seg_pearson + 1) / 2 + e.metrics[m].seg_acc_eq
                     for e in evals)
        assert r.value == pytest.approx((2 * glob[m] + per_lp) / 8)
    json.dumps(avg23.to_dict(), allow_nan=False)
    no_sig = [evaluate_mtme({"f1": sentence_results("f1", load_mtme(tmp_path, "toy", lp, ref="refA")[1]),
                             "len": sentence_results("len", load_mtme(tmp_path, "toy", lp, ref="refA")[1],
                                                     length_ratio)},
                            load_mtme(tmp_path, "toy", lp, ref="refA")[0], significance=(), n_permutations=100)
              for lp in ("en-de", "zh-en")]
    plain = wmt_average(no_sig, "wmt24")
    assert all(r.rank is None for r in plain.ranking) and plain.note
    with pytest.raises(InputError, match="unknown averaging scheme"):
        wmt_average(evals, "wmt99")
    with pytest.raises(InputError, match="appear twice"):
        wmt_average([evals[0], evals[0]])


# -- WMT21 TED en-de from ../shared, laid out as MTME --------------------------------------------------------------
def build_ted(root: Path) -> Path:
    """WMT21 TED en-de laid out as MTME by tests/benchmarks/mtme_layout.py (the benchmarks' script)."""
    src_dir = SHARED / "wmt21_ted_ende"
    if not src_dir.is_dir():
        pytest.skip(f"{src_dir} is not here (the shared data lives beside the repository)")
    spec = importlib.util.spec_from_file_location("mtme_layout", Path(__file__).parent / "benchmarks" / "mtme_layout.py")
    layout = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layout)
    return layout.layout(src_dir, root)


def test_wmt21_ted_as_mtme(tmp_path):
    root = build_ted(tmp_path)
    data, testset = load_mtme(root, "wmt21.tedtalks", "en-de")
    # meta_info: wmt21.tedtalks en-de has standard reference refA and standard gold mqm
    assert data.ref == "refA" and data.human_name == "mqm" and data.human_systems == {"refA"}
    assert len(testset.systems) == 13 and "refA" not in testset.systems
    assert testset.n_segments == 529 and [d.doc_id for d in testset.documents] == [
        "talk.1", "talk.3", "talk.4", "talk.5", "talk.6"]
    seg = data.human("mqm", "seg")
    for s in ("Facebook-AI", "Nemo", "refA"):  # the published system score is the mean of the segment scores
        assert np.mean(seg[s]) == pytest.approx(data.human("mqm", "sys")[s][0], abs=1e-3)
    results = {"f1": sentence_results("f1", testset), "len": sentence_results("len", testset, length_ratio)}
    ev = evaluate_mtme(results, data, n_resamples=30, n_permutations=200)
    f1 = ev.metrics["f1"]
    assert len(ev.systems) == 13 and f1.pairs == 78
    assert 0 <= f1.spa <= 1 and 0 <= f1.seg_acc_eq <= 1 and f1.seg_epsilon >= 0
    assert f1.seg_groups == 529 and f1.seg_n == 13 * 529
    assert f1.spa == pytest.approx(ws.soft_pairwise_accuracy(
        {r.system: [u.score for u in r.units] for r in results["f1"]}, seg, systems=ev.systems,
        n_permutations=200).spa)
    json.dumps(ev.to_dict(), allow_nan=False)
    written = write_mtme_scores(root, "wmt21.tedtalks", "en-de", "unigram f1", "refA", results["f1"])
    back = read_back(root, "wmt21.tedtalks", "en-de")
    assert back[(written.metric, "refA", "seg")]["Nemo"] == [
        u.score for u in next(r for r in results["f1"] if r.system == "Nemo").units]
