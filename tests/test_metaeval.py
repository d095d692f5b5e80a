"""Meta-evaluation against human judgements: correlations, pairwise accuracy, human score files."""

import json
import math
import re

import numpy as np
import pytest
import scipy.stats
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401

from docmetrics.cli import main
from docmetrics.formats.human_tsv import load_human
from docmetrics.judging.human_match import match_systems
from docmetrics.stats.vector import kendall, pairwise_accuracy, pearson, spearman
from docmetrics.values.errors import InputError


def data(seed, n, ties):
    rng = np.random.default_rng(seed)
    if ties:
        return list(rng.integers(0, 4, n).astype(float)), list(rng.integers(0, 3, n).astype(float))
    x = rng.normal(size=n)
    return list(x), list(0.5 * x + rng.normal(size=n))


@pytest.mark.parametrize(
    "seed,n,ties", [(0, 5, False), (1, 13, False), (2, 13, True), (3, 40, True), (4, 2, False)]
)
def test_correlations_equal_scipy(seed, n, ties):
    x, y = data(seed, n, ties)
    assert pearson(x, y) == pytest.approx(scipy.stats.pearsonr(x, y)[0], abs=1e-12)
    assert spearman(x, y) == pytest.approx(scipy.stats.spearmanr(x, y)[0], abs=1e-12)
    tau = scipy.stats.kendalltau(x, y)[0]  # tau-b
    assert kendall(x, y) == pytest.approx(tau, abs=1e-12)
    assert kendall(np.asarray(x), np.asarray(y)) == pytest.approx(tau, abs=1e-12)  # the numpy path


def test_hand_computed_example():
    # metric orders 4 systems 1<2<3<4; humans swap systems 2 and 3
    metric, human = [0.1, 0.2, 0.3, 0.4], [1.0, 3.0, 2.0, 4.0]
    acc, agree, pairs = pairwise_accuracy(metric, human)
    assert (agree, pairs) == (5, 6) and acc == pytest.approx(5 / 6)
    assert kendall(metric, human) == pytest.approx((5 - 1) / 6)
    # Spearman: rank differences 0, -1, 1, 0 -> 1 - 6 * 2 / (4 * 15) = 0.8
    assert spearman(metric, human) == pytest.approx(0.8)
    # Pearson by hand: x - mean = [-.15,-.05,.05,.15], y - mean = [-1.5,.5,-.5,1.5]
    num = 0.225 - 0.025 - 0.025 + 0.225
    den = math.sqrt(0.05 * 5.0)
    assert pearson(metric, human) == pytest.approx(num / den)


def test_pairwise_accuracy_ties():
    # (0,1): metric tie, humans differ -> disagree; (0,2): both lower -> agree;
    # (1,2): metric differs, humans tie -> disagree; a pair tied in both would agree
    assert pairwise_accuracy([1, 1, 2], [1, 2, 2]) == (pytest.approx(1 / 3), 1, 3)
    assert pairwise_accuracy([1, 1], [5, 5]) == (1.0, 1, 1)


def test_constant_input_gives_nan():
    assert math.isnan(pearson([1, 1, 1], [1, 2, 3])) and math.isnan(kendall([1, 1, 1], [1, 2, 3]))


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_load_system_level_with_and_without_header(tmp_path):
    h = load_human(write(tmp_path / "h.tsv", "system\tscore\nA\t0.5\nB\t-1\n"))
    assert h.system == {"A": 0.5, "B": -1.0} and not h.segment_level
    h = load_human(write(tmp_path / "h2.tsv", "A\t0.5\nB\t-1\n"))
    assert h.system == {"A": 0.5, "B": -1.0}
    h = load_human(
        write(tmp_path / "h3.tsv", "system\tis_human\tmqm_penalty_mean\nref\t1\t0.9\nA\t0\t2.5\n"),
        column="mqm_penalty_mean",
        lower_is_better=True,
    )
    assert h.system == {"ref": -0.9, "A": -2.5} and h.humans == {"ref"}


def test_load_segment_level_mqm_layout(tmp_path):
    text = (
        "system\tis_human\tdoc_id\tseg_id\tdoc_pos\tmqm_penalty\tmqm_score\n"
        "A\t0\td1\t10\t1\t1\t-1\nA\t0\td1\t11\t2\t5\t-5\nA\t0\td2\t30\t1\t0\t0\n"
        "ref\t1\td1\t10\t1\t0\t0\nref\t1\td1\t11\t2\tNA\tNA\nref\t1\td2\t30\t1\t0.1\t-0.1\n"
    )
    h = load_human(write(tmp_path / "seg.tsv", text))
    assert h.column == "mqm_score" and h.segment_level
    assert h.system["A"] == pytest.approx(-2.0) and h.system["ref"] == pytest.approx(-0.05)  # NA skipped
    assert h.positions == {("d1", "10"): 1, ("d1", "11"): 2, ("d2", "30"): 1}
    assert h.humans == {"ref"} and ("d1", "11") not in h.segments["ref"]


@pytest.mark.parametrize(
    "text,message",
    [
        ("system\tscore\nA\tlots\n", "line 2, column score: 'lots' is not a number"),
        ("name\tscore\nA\t1\n", "no 'system' column"),
        ("system\tvalue\nA\t1\n", "--human-column"),
        ("system\tscore\nA\t1\nA\t2\n", "appears twice"),
        ("", "empty"),
    ],
)
def test_bad_human_files(tmp_path, text, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        load_human(write(tmp_path / "bad.tsv", text))


def test_match_systems_by_file_name():
    m = match_systems(["out/Online-W.txt", "Nemo.en-de.jsonl", "X.txt"], ["Online-W", "Nemo", "Y"])
    assert m == {"out/Online-W.txt": "Online-W", "Nemo.en-de.jsonl": "Nemo"}


# -- end to end on the toy backbone ------------------------------------------------------------------------
SRC = [f"Source sentence {i} says {'w ' * (i % 5)}" for i in range(12)]
IDS = ["d1"] * 4 + ["d2"] * 5 + ["d3"] * 3
HYPS = {
    "A": [f"Satz {i} sagt {'v ' * (i % 3)}" for i in range(12)],
    "B": [f"Satz {i}" for i in range(12)],
    "C": [f"Ein anderer Satz {i} {'q ' * (i % 4)}" for i in range(12)],
    "D": [f"Noch ein Satz {i} mit mehr Wörtern {'r ' * (i % 2)}" for i in range(12)],
    "ref-A": [f"Der Satz {i} sagt etwas" for i in range(12)],
}
HUMAN = {"A": -1.0, "B": -3.0, "C": -0.5, "D": -2.0, "ref-A": -0.2}


def toy_score(mt, src):
    return (len(mt) % 7) / 7 + 0.01 * len(src.split()) - 0.001 * len(mt.split())


@pytest.fixture()
def files(tmp_path):
    def w(name, lines):
        p = tmp_path / name
        p.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return str(p)

    seg = ["system\tis_human\tdoc_id\tseg_id\tdoc_pos\tscore"]
    rng = np.random.default_rng(0)
    human_seg = {}
    for name in HYPS:
        pos = {}
        for i, d in enumerate(IDS):
            pos[d] = pos.get(d, 0) + 1
            v = float(rng.integers(-5, 1))
            human_seg[(name, i)] = v
            seg.append(f"{name}\t{int(name == 'ref-A')}\t{d}\t{100 + i}\t{pos[d]}\t{v}")
    return {
        "src": w("src.txt", SRC),
        "ids": w("ids.txt", IDS),
        "sys": [w(f"{k}.txt", v) for k, v in HYPS.items()],
        "human": w(
            "human.tsv",
            ["system\tis_human\tscore"] + [f"{k}\t{int(k == 'ref-A')}\t{v}" for k, v in HUMAN.items()],
        ),
        "seg": w("seg.tsv", seg),
        "human_seg": human_seg,
    }


def test_cli_system_level_json_equals_scipy(toy_dist, files, capsys):
    args = [
        "-m",
        "slide:w=2,s=1,backbone=toy",
        "slide:w=1,s=1,backbone=toy",
        "-i",
        *files["sys"],
        "-s",
        files["src"],
        "--doc-ids",
        files["ids"],
    ]
    code, out, err = run(capsys, *args, "-f", "json")
    assert code == 0, err
    scores = json.loads(out)
    code, out, err = run(capsys, *args, "--human", files["human"], "--no-human-systems", "-f", "json")
    assert code == 0, err
    evals = json.loads(out)
    assert len(evals) == 2
    for k, e in enumerate(evals):
        mine = {d["system"]: d["score"] for d in scores[k * 5 : (k + 1) * 5]}
        names = ["A.txt", "B.txt", "C.txt", "D.txt"]
        m = [mine[n] for n in names]
        h = [HUMAN[n[:-4]] for n in names]
        assert e["systems"] == names and e["left_out"] == ["ref-A.txt (excluded)"]
        assert e["pearson"] == pytest.approx(scipy.stats.pearsonr(m, h)[0], abs=1e-12)
        assert e["spearman"] == pytest.approx(scipy.stats.spearmanr(m, h)[0], abs=1e-12)
        assert e["kendall"] == pytest.approx(scipy.stats.kendalltau(m, h)[0], abs=1e-12)
        agree = sum((m[i] > m[j]) == (h[i] > h[j]) for i in range(4) for j in range(i + 1, 4))
        assert e["accuracy"] == pytest.approx(agree / 6) and e["pairs"] == 6
        assert e["signature"].startswith("slide|w:")


def test_cli_segment_level_kendall(toy_dist, files, capsys):
    code, out, err = run(
        capsys,
        "-m",
        "slide:w=1,s=1,backbone=toy",
        "-i",
        *files["sys"],
        "-s",
        files["src"],
        "--doc-ids",
        files["ids"],
        "--human",
        files["seg"],
        "--seg-level",
        "--exclude-systems",
        "ref-A",
        "-f",
        "json",
    )
    assert code == 0, err
    e = json.loads(out)[0]
    xs, ys = [], []
    for name in ["A", "B", "C", "D"]:
        for i in range(12):
            xs.append(toy_score(HYPS[name][i], SRC[i]))
            ys.append(files["human_seg"][(name, i)])
    assert e["seg_level"] == "segment" and e["seg_items"] == 48
    assert e["seg_kendall"] == pytest.approx(scipy.stats.kendalltau(xs, ys)[0], abs=1e-12)
    # the system level comes from the mean of the segment scores
    assert e["human_scores"][0] == pytest.approx(np.mean([files["human_seg"][("A", i)] for i in range(12)]))


def test_cli_text_table(toy_dist, files, capsys):
    code, out, err = run(
        capsys,
        "-m",
        "slide:w=2,s=2,backbone=toy",
        "-i",
        *files["sys"],
        "-s",
        files["src"],
        "--doc-ids",
        files["ids"],
        "--human",
        files["human"],
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["Metric", "systems", "pearson", "spearman", "kendall", "accuracy", "pairs"]
    cells = re.split(r"\s{2,}", lines[2])
    assert cells[0] == "slide [1]" and cells[1] == "5" and cells[-1].endswith("/10")
    assert any(x.startswith("[1] slide|w:2|s:2|") for x in lines)


def test_cli_metaeval_errors(toy_dist, files, capsys, tmp_path):
    other = tmp_path / "other.tsv"
    other.write_text("system\tscore\nX\t1\nY\t2\n")
    code, _, err = run(
        capsys,
        "-m",
        "slide:w=2,s=2,backbone=toy",
        "-i",
        *files["sys"],
        "-s",
        files["src"],
        "--doc-ids",
        files["ids"],
        "--human",
        str(other),
    )
    assert code == 2 and "only 0 system(s)" in err
    code, _, err = run(
        capsys,
        "-m",
        "slide:w=2,s=2,backbone=toy",
        "-i",
        *files["sys"],
        "-s",
        files["src"],
        "--doc-ids",
        files["ids"],
        "--seg-level",
    )
    assert code == 2 and "--seg-level needs --human" in err


def test_a_statistic_by_any_of_its_names():
    from docmetrics.judging.metaeval_metric import MetaEval

    e = MetaEval("m", "m", "", ["a", "b"], [1.0, 2.0], [1.0, 2.0], agree=1, pairs=1,
                 values={"pearson": 1.0, "spearman": 1.0, "kendall": 1.0, "accuracy": 1.0, "spa": 0.9,
                         "seg_acc_eq": 0.7, "seg_kendall": math.nan})
    assert e.get("acc_eq") == e.get("seg_acc_eq") == 0.7 and e.get("spa") == 0.9 and e.get("accuracy_mtme") == 1.0
    assert e.get("seg-kendall") is None and e.get("seg_pearson") is None  # undefined, not applicable
    assert "spa" not in e.to_dict()  # no segment-level human scores: --human's JSON as before
    with pytest.raises(InputError, match="unknown statistic 'bleu'"):
        e.get("bleu")


def test_a_metaeval_holds_values_and_notes_by_statistic():
    """Every statistic computed is an entry of ``values`` under its registry name (the attributes are views
    of it), and why one has none is in ``notes`` under the same name: the segment correlations take the
    segment level's reason where they have none of their own."""
    from docmetrics.judging import statistics as stats
    from docmetrics.judging.evaluate import evaluate_wmt
    from docmetrics.judging.metaeval_metric import MetaEval
    from docmetrics.values.result import Result, UnitScore
    from docmetrics.values.signature import Signature

    rng = np.random.default_rng(3)
    human = {s: rng.normal(size=6).tolist() for s in "ABCD"}

    def result(system, shift, window):
        seg = [h + shift * rng.normal() for h in human[system]]
        units = [UnitScore("d", i, min(i + window, 6), float(np.mean(seg[i:i + window]))) for i in range(0, 6, window)]
        return Result(system, "m", float(np.mean(seg)), Signature("m"), {}, units)

    sys_only = evaluate_wmt({"m": [result(s, 0.5, 1) for s in human]}, {s: float(np.mean(v)) for s, v in human.items()},
                            significance=()).metrics["m"]
    assert list(sys_only.values) == list(stats.names("system", needs="", plugins=False))
    assert sys_only.values["pearson"] == sys_only.pearson == pytest.approx(
        pearson(sys_only.metric_scores, sys_only.human_scores))
    for name in ("spa", "seg_acc_eq", "seg_pearson", "seg_kendall"):
        assert sys_only.get(name) is None and sys_only.note(name) == "no segment-level human scores"
    assert sys_only.note("pearson") is None and sys_only.note("doc_pearson") == "no document level"

    windows = evaluate_wmt({"w": [result(s, 0.5, 2) for s in human]}, None, human, significance=(),
                           unit_level=True).metrics["w"]
    assert windows.seg_note == windows.note("seg_pearson") == "the metric's units span several segments: no " \
        "segment-level scores"
    assert windows.get("seg_kendall") is not None and windows.note("seg_kendall") is None  # over its units

    e = MetaEval("m", "m", "", ["a", "b"], [1.0, 2.0], [1.0, 2.0])
    e.pearson = 0.25
    e.spa_note = "why"
    assert e.values == {"pearson": 0.25} and e.notes == {"spa": "why"} and e.get("spa") is None
    e.spa_note = None
    assert e.notes == {}


def test_a_statistic_of_docmetrics_own_is_one_registry_entry(monkeypatch):
    """A statistic added to the registry with its ``compute`` needs no other edit: it is computed, is a
    key of both JSON layouts and a statistic PERM-BOTH may be asked to compare."""
    from docmetrics.judging import statistics as stats
    from docmetrics.judging.evaluate import evaluate_wmt
    from docmetrics.values.result import Result
    from docmetrics.values.signature import Signature

    def top_agrees(data):  # does the metric's best system have the humans' best score?
        best = max(range(len(data.systems)), key=lambda i: data.metric_sys[i])
        return float(data.human_sys[best] == max(data.human_sys))

    extra = stats.Statistic("top_agrees", "system", "the metric's best system is the humans' best", "top",
                            0.0, 1.0, 0.0, compute=top_agrees)
    monkeypatch.setattr(stats, "BUILTIN", stats.BUILTIN + (extra,))
    human = {"A": 1.0, "B": 2.0, "C": 3.0}
    results = [Result(s, "m", v, Signature("m"), {}) for s, v in (("A", 0.1), ("B", 0.9), ("C", 0.5))]
    e = evaluate_wmt({"m": results}, human, significance=()).metrics["m"]
    assert e.get("top_agrees") == 0.0 and e.plugin_statistics() == ["top_agrees"]
    assert e.to_dict()["top_agrees"] == e.to_dict(layout="mtme")["top_agrees"] == 0.0
    results[2] = Result("C", "m", 1.5, Signature("m"), {})
    assert evaluate_wmt({"m": results}, human, significance=()).metrics["m"].get("top_agrees") == 1.0


def test_the_statistics_compared_by_default_are_read_from_the_registry(monkeypatch):
    """A statistic marked main (a plugin's, or one added to the registry) is compared between metrics by
    default, as the WMT ranking statistics are; PDP and the document level where asked for; then an
    average's statistics, each once."""
    from docmetrics.judging import statistics as stats
    from docmetrics.judging.evaluate import DOC_MAIN_STATISTICS, compared_statistics

    main = ("pearson", "accuracy", "spa", "seg_acc_eq", "seg_pearson")
    assert compared_statistics() == main
    assert compared_statistics(pdp=True) == (*main, "pdp")
    assert compared_statistics(doc_rule="mean", also=("spearman", "pearson")) == (*main, *DOC_MAIN_STATISTICS,
                                                                                     "spearman")
    extra = stats.Statistic("mine", "system", "mine", "mine", main=True, compute=lambda data: 0.0)
    monkeypatch.setattr(stats, "_plugins", lambda: [extra])
    assert compared_statistics() == (*main, "mine")


def test_cli_document_level_opt_in(toy_dist, files, capsys):
    """--doc-level: a 'document' object and 'pdp' in JSON (absent without it), gold the mean (or sum) of
    each document's judged segments, statistics equal to scipy's over (system, document) pairs."""
    base = ["-m", "slide:w=1,s=1,backbone=toy", "-i", *files["sys"], "-s", files["src"], "--doc-ids", files["ids"],
            "--human", files["seg"], "--exclude-systems", "ref-A", "-f", "json"]
    code, out, err = run(capsys, *base, "--seg-level")
    assert code == 0, err
    plain = json.loads(out)[0]
    assert "document" not in plain and "pdp" not in plain
    for rule in ("mean", "sum"):
        code, out, err = run(capsys, *base, "--doc-level", rule)
        assert code == 0, err
        e = json.loads(out)[0]
        assert {k: v for k, v in e.items() if k not in ("document", "pdp")} == plain
        d = e["document"]
        assert d["rule"] == rule and d["documents_left_out"] == 0
        docs = list(dict.fromkeys(IDS))
        xs, ys = [], []
        for name in ["A", "B", "C", "D"]:
            for doc in docs:
                idx = [i for i, x in enumerate(IDS) if x == doc]
                xs.append(np.mean([toy_score(HYPS[name][i], SRC[i]) for i in idx]))
                vals = [files["human_seg"][(name, i)] for i in idx]
                ys.append(np.mean(vals) if rule == "mean" else np.sum(vals))
        assert d["documents"] == len(docs) and d["n"] == 4 * len(docs)
        assert d["pearson"] == pytest.approx(scipy.stats.pearsonr(xs, ys)[0], abs=1e-9)
        assert d["kendall"] == pytest.approx(scipy.stats.kendalltau(xs, ys)[0], abs=1e-9)
        assert e["pdp"] == pytest.approx(scipy.stats.pearsonr(e["metric_scores"], e["human_scores"])[0], abs=1e-9)
    code, out, err = run(capsys, *base[:-2], "--doc-level")
    assert code == 0, err
    assert "Document level" in out and "mean of each document's judged segments" in out


@pytest.mark.parametrize("extra, message", [
    (["--doc-level", "median"], "--doc-level: invalid choice: 'median'"),
    (["--pdp"], "--pdp needs --human FILE"),
])
def test_cli_document_level_bad_input(toy_dist, files, capsys, extra, message):
    args = ["-m", "slide:w=1,s=1,backbone=toy", "-i", *files["sys"], "-s", files["src"], "--doc-ids", files["ids"]]
    if extra[0] == "--doc-level":
        args += ["--human", files["seg"]]
    try:
        code = main([str(a) for a in args + extra])
    except SystemExit as exc:  # argparse
        code = exc.code
    assert code == 2
    assert message in capsys.readouterr().err
