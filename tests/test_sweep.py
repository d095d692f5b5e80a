"""``docmetrics sweep``: a metric over a parameter grid, meta-evaluated per point, with the score cache."""

import json
import subprocess
import sys

import numpy as np
import pytest
from plugin_fixtures import toy_dist  # noqa: F401

from docmetrics.algorithms.grids import expand_grid, parse_grid, point_spec
from docmetrics.cli import main
from docmetrics.judging.sweeps import Sweep
from docmetrics.stats.vector import pairwise_accuracy
from docmetrics.values.errors import SpecError

SRC = [f"Source sentence {i} says {'w ' * (i % 5)}" for i in range(13)]
IDS = ["d1"] * 2 + ["d2"] * 6 + ["d3"] * 5
HYPS = {
    "A": [f"Satz {i} sagt {'v ' * (i % 3)}" for i in range(13)],
    "B": [f"Satz {i}" for i in range(13)],
    "C": [f"Ein anderer Satz {i} {'q ' * (i % 4)}" for i in range(13)],
    "D": [f"Noch ein Satz {i} mit mehr Wörtern {'r ' * (i % 2)}" for i in range(13)],
}
HUMAN = {"A": 0.3, "B": -0.4, "C": 0.8, "D": 0.1}


def toy_score(mt, src):
    return (len(mt) % 7) / 7 + 0.01 * len(src.split()) - 0.001 * len(mt.split())


def chunks_by_hand(w, s):
    """SLIDE windows (partial=drop) as lists of line numbers, independently of docmetrics."""
    docs = {}
    for i, d in enumerate(IDS):
        docs.setdefault(d, []).append(i)
    out = []
    for lines in docs.values():
        start = 0
        while start + w <= len(lines):
            out.append(lines[start : start + w])
            start += s
    return out


def slide_by_hand(hyp, w, s):
    scores = [
        toy_score(" ".join(hyp[i] for i in c), " ".join(SRC[i] for i in c)) for c in chunks_by_hand(w, s)
    ]
    return sum(scores) / len(scores)


def test_grid_parsing_and_expansion():
    axes = parse_grid(["w=1..4", "s=1..w"])
    points = expand_grid(axes)
    assert [(p["w"], p["s"]) for p in points] == [
        (str(w), str(s)) for w in range(1, 5) for s in range(1, w + 1)
    ]
    assert len(points) == 10
    pts = expand_grid(parse_grid(["partial=drop,keep", "w=2..3"]))
    assert pts == [
        {"partial": "drop", "w": "2"},
        {"partial": "drop", "w": "3"},
        {"partial": "keep", "w": "2"},
        {"partial": "keep", "w": "3"},
    ]
    assert point_spec("slide:backbone=toy,w=9", {"w": "2", "s": "1"}) == "slide:backbone=toy,w=2,s=1"
    with pytest.raises(SpecError, match="given before it"):
        expand_grid(parse_grid(["s=1..w", "w=1..3"]))
    for bad in (["w"], ["w=1..3", "w=2"], ["p=a,,b"]):
        with pytest.raises(SpecError):
            parse_grid(bad)


@pytest.fixture()
def files(tmp_path):
    def w(name, lines):
        p = tmp_path / name
        p.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return str(p)

    return {
        "src": w("src.txt", SRC),
        "ids": w("ids.txt", IDS),
        "sys": [w(f"{k}.txt", v) for k, v in HYPS.items()],
        "human": w("human.tsv", ["system\tscore"] + [f"{k}\t{v}" for k, v in HUMAN.items()]),
        "dir": tmp_path,
    }


def sweep(capsys, files, *extra):
    code = main(
        [
            "sweep",
            "-m",
            "slide:backbone=toy",
            "--grid",
            "w=1..4",
            "s=1..w",
            "-i",
            *files["sys"],
            "-s",
            files["src"],
            "--doc-ids",
            files["ids"],
            "--human",
            files["human"],
            "-f",
            "json",
            *extra,
        ]
    )
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def test_sweep_scores_and_meta_evaluates_every_point(toy_dist, files, capsys):
    code, report, err = sweep(capsys, files, "--cache", str(files["dir"] / "c.sqlite"))
    assert code == 0, err
    assert len(report["points"]) == 10
    for p in report["points"]:
        w, s = int(p["params"]["w"]), int(p["params"]["s"])
        names = list(HYPS)
        expected = [slide_by_hand(HYPS[n], w, s) for n in names]
        assert [p["scores"][f"{n}.txt"] for n in names] == pytest.approx(expected, abs=1e-12)
        acc = pairwise_accuracy(expected, [HUMAN[n] for n in names])[0]
        assert p["metaeval"]["accuracy"] == pytest.approx(acc)
        assert p["signature"].startswith(f"slide|w:{w}|s:{s}|partial:drop|backbone:toy|")


def test_a_chunk_is_scored_once_across_the_grid_and_a_rerun_is_all_cache(toy_dist, files, capsys):
    from docmetrics_toy import ToyBackbone

    path = str(files["dir"] / "c.sqlite")
    ToyBackbone.calls.clear()
    code, first, err = sweep(capsys, files, "--cache", path)
    assert code == 0, err
    distinct = {
        (" ".join(HYPS[n][i] for i in c), " ".join(SRC[i] for i in c))
        for w in range(1, 5)
        for s in range(1, w + 1)
        for c in chunks_by_hand(w, s)
        for n in HYPS
    }
    scored = [(u.mt, u.src) for call in ToyBackbone.calls for u in call]
    assert len(scored) == len(set(scored)) == len(distinct) and set(scored) == distinct
    # e.g. SLIDE(2,2)'s chunks are all among SLIDE(2,1)'s: that point is answered by the cache
    p22 = next(p for p in first["points"] if p["params"] == {"w": 2, "s": 2})  # numbers, not text
    assert p22["cache"]["hits"] == p22["cache"]["looked_up"] > 0
    assert first["cache"]["scored"] == len(distinct)
    ToyBackbone.calls.clear()
    code, second, err = sweep(capsys, files, "--cache", path)
    assert code == 0 and ToyBackbone.calls == []
    assert [p["scores"] for p in second["points"]] == [p["scores"] for p in first["points"]]
    assert second["cache"]["hits"] == second["cache"]["looked_up"] and second["cache"]["scored"] == 0


def test_an_interrupted_sweep_resumes_with_identical_results(toy_dist, files, capsys, monkeypatch):
    from docmetrics_toy import ToyBackbone

    code, clean, err = sweep(capsys, files, "--no-cache")
    assert code == 0, err
    assert clean["cache"] is None
    path = str(files["dir"] / "resume.sqlite")
    original = ToyBackbone.score
    calls = {"n": 0}

    def dying(self, units):
        calls["n"] += 1
        if calls["n"] > 4:
            raise KeyboardInterrupt  # the run is killed in the middle of a grid point
        return original(self, units)

    monkeypatch.setattr(ToyBackbone, "score", dying)
    code, _, err = sweep(capsys, files, "--cache", path, "--cache-chunk", "7")
    assert code == 130 and "run again to resume" in err
    monkeypatch.setattr(ToyBackbone, "score", original)
    code, resumed, err = sweep(capsys, files, "--cache", path, "--cache-chunk", "7")
    assert code == 0, err
    assert [p["scores"] for p in resumed["points"]] == [p["scores"] for p in clean["points"]]
    assert [p["metaeval"] for p in resumed["points"]] == [p["metaeval"] for p in clean["points"]]
    assert resumed["cache"]["hits"] >= 4 * 7  # the four committed chunks came from the cache
    assert 0 < resumed["cache"]["scored"] < clean["points"][0]["coverage"]["units"] * 4 * 4


def test_table_heatmap_and_skipped_points(toy_dist, files, capsys):
    png = files["dir"] / "fig.png"
    code = main(
        [
            "sweep",
            "-m",
            "slide:backbone=toy",
            "--grid",
            "w=1..3",
            "s=1..3",
            "-i",
            *files["sys"],
            "-s",
            files["src"],
            "--doc-ids",
            files["ids"],
            "--human",
            files["human"],
            "--no-cache",
            "--plot",
            str(png),
            "-o",
            str(files["dir"] / "sweep.json"),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["w", "s", "pearson", "spearman", "kendall", "accuracy", "pairs"]
    assert len([x for x in lines[2:] if x.strip() and x.split()[0].isdigit()]) == 6
    assert "skipped 3 point(s)" in out  # s > w
    report = json.loads((files["dir"] / "sweep.json").read_text())
    import matplotlib.image

    img = matplotlib.image.imread(str(png))
    assert img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100
    # the matrix behind it: rows w, columns s, NaN where s > w
    from docmetrics.judging.metaeval_metric import MetaEval
    from docmetrics.judging.sweeps import Point

    points = []
    for p in report["points"]:
        pt = Point({k: str(v) for k, v in p["params"].items()}, p["spec"], skipped=p.get("skipped"))
        if not pt.skipped:
            m = p["metaeval"]
            pt.metaeval = MetaEval(
                "slide",
                p["spec"],
                "",
                m["systems"],
                m["metric_scores"],
                m["human_scores"],
                values={k: m[k] for k in ("pearson", "spearman", "kendall", "accuracy")},
                agree=m["agreeing_pairs"],
                pairs=m["pairs"],
            )
        points.append(pt)
    rows, cols, values = Sweep("slide", [], "accuracy", parse_grid(["w=1..3", "s=1..3"]), points).heatmap()
    assert rows == cols == ["1", "2", "3"]
    v = np.array(values)
    assert np.isnan(v[0, 1]) and np.isnan(v[0, 2]) and np.isnan(v[1, 2])
    acc21 = pairwise_accuracy([slide_by_hand(HYPS[n], 2, 1) for n in HYPS], list(HUMAN.values()))[0]
    assert v[1, 0] == pytest.approx(acc21)


def test_sweep_errors(toy_dist, files, capsys):
    code = main(
        [
            "sweep",
            "-m",
            "slide:backbone=toy",
            "--grid",
            "w=1..2",
            "-i",
            *files["sys"],
            "-s",
            files["src"],
            "--plot",
            str(files["dir"] / "x.png"),
        ]
    )
    assert code == 2 and "--plot draws a meta-evaluation statistic" in capsys.readouterr().err
    code = main(
        ["sweep", "-m", "slide:backbone=toy", "--grid", "w=x..2", "-i", *files["sys"], "-s", files["src"]]
    )
    assert code == 2 and "not a parameter given before it" in capsys.readouterr().err


def test_cached_comet_scores_equal_uncached(tiny_kiwi_dir, files, capsys):
    """On a real (tiny, random) COMET model: a sweep answered from the cache gives the same floats."""
    args = [
        "sweep",
        "-m",
        f"slide:model={tiny_kiwi_dir}",
        "--grid",
        "w=1..2",
        "s=1..w",
        "-i",
        *files["sys"][:2],
        "-s",
        files["src"],
        "--doc-ids",
        files["ids"],
        "-f",
        "json",
        "-q",
    ]
    assert main(args + ["--no-cache"]) == 0
    plain = json.loads(capsys.readouterr().out)
    path = str(files["dir"] / "kiwi.sqlite")
    assert main(args + ["--cache", path]) == 0
    filled = json.loads(capsys.readouterr().out)
    assert main(args + ["--cache", path]) == 0
    cached = json.loads(capsys.readouterr().out)
    assert cached["cache"]["scored"] == 0 and cached["cache"]["hits"] > 0
    for a, b, c in zip(plain["points"], filled["points"], cached["points"]):
        assert b["scores"] == c["scores"]
        assert a["scores"] == pytest.approx(
            b["scores"], abs=1e-6
        )  # float noise at most: batches differ once some units are cached


def test_help_imports_nothing_heavy():
    code = (
        "import contextlib, io, sys\n"
        "from docmetrics.cli import main\n"
        "from docmetrics_tools.vat.cli import main as vat_main\n"
        "for fn, argv in ((main, ['--help']), (main, ['sweep', '--help']), (vat_main, ['--help'])):\n"
        "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "        try:\n"
        "            fn(argv)\n"
        "        except SystemExit:\n"
        "            pass\n"
        "    assert 'usage:' in out.getvalue()\n"
        "heavy = ('torch', 'numpy', 'matplotlib', 'scipy', 'comet', 'sacrebleu')\n"
        "bad = [m for m in heavy if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unknown_subcommand_is_a_clear_error(capsys):
    assert main(["swep", "-m", "slide"]) == 2
    err = capsys.readouterr().err
    assert "unknown subcommand 'swep'" in err and "sweep" in err and "docmetrics.tools" in err


def random_segment_scores(tmp_path, seed):
    """Integer MQM-like segment scores (-5..0) for every system and line, and the TSV holding them."""
    rng = np.random.default_rng(seed)
    human = {n: [float(rng.integers(-5, 1)) for _ in IDS] for n in HYPS}
    seg = tmp_path / "seg.tsv"
    seg.write_text("system\tdoc_id\tseg_id\tscore\n" + "".join(
        f"{n}\t{d}\t{i}\t{human[n][i]}\n" for n in HYPS for i, d in enumerate(IDS)), encoding="utf-8")
    return human, seg


def test_sweep_spa_and_acc_eq_need_and_use_segment_scores(toy_dist, files, capsys, tmp_path):
    from docmetrics import stats as ws

    human, seg = random_segment_scores(tmp_path, seed=3)
    base = ["sweep", "-m", "slide:backbone=toy", "--grid", "w=1..2", "s=1..w", "-i", *files["sys"], "-s",
            files["src"], "--doc-ids", files["ids"], "--human", str(seg), "--no-cache"]
    for stat in ("spa", "acc_eq"):
        assert main([*base, "--stat", stat]) == 2
        assert f"--stat {stat} needs --seg-level" in capsys.readouterr().err
    png = tmp_path / "acc_eq.png"
    assert main([*base, "--seg-level", "--stat", "acc_eq", "--plot", str(png), "-f", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    points = {(p["params"]["w"], p["params"]["s"]): p["metaeval"] for p in report["points"]}
    # SLIDE(1,1) scores each segment alone: SPA and acc_eq of its toy scores, computed here
    names = sorted(HYPS)
    mine = {n: [toy_score(HYPS[n][i], SRC[i]) for i in range(len(SRC))] for n in names}
    acc = ws.acc_eq(mine, human, systems=names)
    assert points[(1, 1)]["acc_eq"] == pytest.approx(acc.accuracy) and points[(1, 1)]["epsilon"] == pytest.approx(
        acc.epsilon)
    assert points[(1, 1)]["spa"] == pytest.approx(ws.soft_pairwise_accuracy(mine, human, systems=names).spa)
    # windows: SPA over their units, no acc_eq (an empty cell of the heatmap)
    assert points[(2, 1)]["acc_eq"] is None and 0 <= points[(2, 1)]["spa"] <= 1
    import matplotlib.image

    assert matplotlib.image.imread(str(png)).ndim == 3
    assert main([*base, "--seg-level", "--stat", "spa"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["w", "s", "pearson", "spearman", "kendall", "accuracy", "pairs", "spa",
                                           "acc_eq", "epsilon", "seg-pearson", "seg-kendall"]  # --human's columns
    assert f"{points[(1, 1)]['spa']:.4f}" in out.splitlines()[2]


def test_sweep_document_level_and_pdp_stats(toy_dist, files, capsys, tmp_path):
    """--stat doc_* meta-evaluates every point at the document level (--doc-level mean unless given);
    --stat pdp adds system-level PDP; both equal scipy on the points' document / system scores."""
    import scipy.stats

    human, seg = random_segment_scores(tmp_path, seed=5)
    base = ["sweep", "-m", "slide:backbone=toy", "--grid", "w=1..2", "s=1..w", "-i", *files["sys"], "-s",
            files["src"], "--doc-ids", files["ids"], "--human", str(seg), "--no-cache", "-f", "json"]
    assert main([*base, "--seg-level"]) == 0
    plain = json.loads(capsys.readouterr().out)["points"]
    assert all("document" not in p["metaeval"] and "pdp" not in p["metaeval"] for p in plain)
    for rule in ("mean", "sum"):
        assert main([*base, "--stat", "doc_pearson", "--doc-level", rule]) == 0
        points = json.loads(capsys.readouterr().out)["points"]
        for p, q in zip(points, plain):
            me = dict(p["metaeval"])
            doc = me.pop("document")
            me.pop("pdp")
            assert me == q["metaeval"] and doc["rule"] == rule
        # SLIDE(1,1): a document's score is the mean of its segments' toy scores
        me = next(p["metaeval"] for p in points if (p["params"]["w"], p["params"]["s"]) in ((1, 1), ("1", "1")))
        docs = list(dict.fromkeys(IDS))
        xs, ys = [], []
        for n in HYPS:
            for d in docs:
                idx = [i for i, x in enumerate(IDS) if x == d]
                xs.append(np.mean([toy_score(HYPS[n][i], SRC[i]) for i in idx]))
                ys.append((np.mean if rule == "mean" else np.sum)([human[n][i] for i in idx]))
        assert me["document"]["pearson"] == pytest.approx(scipy.stats.pearsonr(xs, ys)[0], abs=1e-9)
    assert main([*base, "--stat", "pdp"]) == 0
    points = json.loads(capsys.readouterr().out)["points"]
    for p in points:
        me = p["metaeval"]
        assert "document" not in me
        assert me["pdp"] == pytest.approx(scipy.stats.pearsonr(me["metric_scores"], me["human_scores"])[0])
    assert main([*base[:-2], "--stat", "doc_acc_eq"]) == 0
    head = capsys.readouterr().out.splitlines()[0].split()
    assert head[-9:] == ["doc-documents", "doc-acc_eq", "doc-epsilon", "doc-pearson", "doc-kendall",
                         "doc-pearson-doc", "doc-kendall-doc", "doc-spa", "doc-pdp"]


@pytest.mark.parametrize("argv, message", [
    (["-m", "slide:stride=1", "--grid", "w=1..2"], "unknown parameter 'stride'; did you mean 's'"),
    (["-m", "bleu", "-tok", "intl", "--grid", "max_ngram_order=2..3"], "-m bleu:tokenize=intl"),
])
def test_sweep_checks_the_spec_and_habits_before_anything_is_scored(tmp_path, capsys, argv, message):
    from docmetrics.cli import main

    hyp = tmp_path / "h.txt"
    hyp.write_text("a b\nc d\n", encoding="utf-8")
    try:
        code = main(["sweep", *argv, "-i", str(hyp), "-s", str(hyp), "-r", str(hyp)])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
