"""The command line as sacrebleu and COMET users type it: the hypothesis from stdin, per-document /
per-unit / per-segment tables (-o), one line of advice for habit flags, and bootstrap confidence
intervals over documents (--ci); all on the toy third-party backbone (no model, fast)."""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401

from docmetrics.judging.paired import bootstrap_ci
from docmetrics.values.errors import InputError
from docmetrics.values.result import DocScore, Result, UnitScore
from docmetrics.values.signature import Signature

pytestmark = pytest.mark.usefixtures("toy_dist")

# 12 documents of 2 to 5 lines (enough to resample without a warning)
IDS = [f"d{k}" for k in range(12) for _ in range(2 + k % 4)]
SRC = [f"Source sentence number {i} says {'more ' * (i % 3)}something." for i in range(len(IDS))]
HYP_A = [f"Satz Nummer {i} sagt {'x' * (i % 5)} etwas." for i in range(len(IDS))]
HYP_B = [f"Satz {i}{'!' * (i % 4)}." for i in range(len(IDS))]


def toy_score(mt, src):
    """The toy backbone's score (plugin_fixtures.TOY_BACKBONE), recomputed."""
    return (len(mt) % 7) / 7 + 0.01 * len(src.split()) - 0.001 * len(mt.split())


def windows(ids, w, s):
    """SLIDE's windows (lists of line numbers) per document, computed by hand: {doc: [lines, ...]}."""
    docs: dict[str, list[int]] = {}
    for i, d in enumerate(ids):
        docs.setdefault(d, []).append(i)
    return {d: [lines[k:k + w] for k in range(0, len(lines) - w + 1, s)] for d, lines in docs.items()}


def doc_scores_by_hand(hyp, w, s):
    """{doc: (mean of its window scores, number of windows)} for the documents with a window."""
    out = {}
    for d, chunks in windows(IDS, w, s).items():
        scores = [toy_score(" ".join(hyp[i] for i in c), " ".join(SRC[i] for i in c)) for c in chunks]
        if scores:
            out[d] = (sum(scores) / len(scores), len(scores))
    return out


@pytest.fixture()
def files(tmp_path):
    def write(name, lines):
        p = tmp_path / name
        p.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return str(p)

    return {"src": write("src.txt", SRC), "a": write("sysA.txt", HYP_A), "b": write("sysB.txt", HYP_B),
            "ids": write("ids.txt", IDS), "dir": tmp_path, "write": write}


class FakeStdin:
    """What ``sys.stdin`` is when something is piped in (bytes under ``.buffer``), or a terminal."""

    def __init__(self, text: str = "", tty: bool = False):
        self.buffer = io.BytesIO(text.encode("utf-8"))
        self.tty = tty

    def isatty(self):
        return self.tty


# -- 1. the hypothesis from stdin -----------------------------------------------------------------------
def test_without_i_one_system_is_read_from_stdin(files, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", FakeStdin("".join(x + "\n" for x in HYP_A)))
    code, out, err = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-s", files["src"], "--doc-ids", files["ids"],
                         "-f", "json")
    assert code == 0, err
    [result] = json.loads(out)
    by_hand = doc_scores_by_hand(HYP_A, 2, 1)
    expected = sum(m * n for m, n in by_hand.values()) / sum(n for _, n in by_hand.values())
    assert result["system"] == "stdin" and result["score"] == pytest.approx(expected, abs=1e-12)


def test_dash_names_stdin_among_files(files, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", FakeStdin("".join(x + "\n" for x in HYP_B)))
    code, out, err = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-i", files["a"], "-", "-s", files["src"],
                         "--doc-ids", files["ids"], "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    assert [d["system"] for d in data] == ["sysA.txt", "stdin"]
    direct = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-i", files["b"], "-s", files["src"], "--doc-ids",
                 files["ids"], "-f", "json")
    assert data[1]["score"] == json.loads(direct[1])[0]["score"]


@pytest.mark.parametrize("argv,stdin,message", [
    (["-s", "{src}"], FakeStdin(tty=True), "stdin is a terminal"),
    (["-i", "-", "-", "-s", "{src}"], FakeStdin("a\n"), "-i and -i all read stdin"),
    (["-s", "-"], FakeStdin("a\n"), "-i and -s all read stdin"),
    (["-s", "{src}"], FakeStdin(""), "inputs have different lengths (stdin: 0 lines, "),
], ids=["terminal", "dash-twice", "no-i-and-source-dash", "nothing-piped"])
def test_stdin_errors(files, capsys, monkeypatch, argv, stdin, message):
    monkeypatch.setattr(sys, "stdin", stdin)
    code, _, err = run(capsys, "-m", "slide:w=2,s=1,backbone=toy",
                       *[files["src"] if a == "{src}" else a for a in argv])
    assert code == 2 and message in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_a_real_pipe(files, toy_dist):
    env = dict(os.environ, PYTHONPATH=str(toy_dist) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(["docmetrics", "-m", "slide:w=2,s=1,backbone=toy", "-s", files["src"], "--doc-ids",
                           files["ids"], "-b", "-w", "10"], input="".join(x + "\n" for x in HYP_A),
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    by_hand = doc_scores_by_hand(HYP_A, 2, 1)
    expected = sum(m * n for m, n in by_hand.values()) / sum(n for _, n in by_hand.values())
    assert float(proc.stdout) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("sig,code,says", [("SIGINT", 130, "docmetrics: interrupted"),
                                           ("SIGTERM", 143, "docmetrics: terminated (SIGTERM)")])
def test_a_signal_while_it_waits_stops_it_in_one_line(files, sig, code, says):
    """Issue 37: SIGTERM stops a run as Ctrl-C does (before: a stack dump); here it waits on stdin."""
    import signal
    import time

    # SIGINT as a terminal delivers it: a runner started in the background (bash '&', or an xdist worker
    # under one) ignores SIGINT, and a child inherits that, so Python would never raise KeyboardInterrupt
    proc = subprocess.Popen([sys.executable, "-m", "docmetrics", "-m", "chrf", "-r", files["src"]],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(5)  # started and reading stdin, which never ends
        proc.send_signal(getattr(signal, sig))
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == code and says in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err


# -- 2. tables: --level doc|chunk|seg, -o ---------------------------------------------------------------------
SPECS = ("slide:w=2,s=1,backbone=toy", "slide:w=3,s=3,backbone=toy")


def read_tsv(text_or_path):
    pd = pytest.importorskip("pandas")
    source = io.StringIO(text_or_path) if "\t" in text_or_path else text_or_path
    return pd.read_csv(source, sep="\t", keep_default_na=False, na_values=["nan"])


def test_doc_table_on_stdout_tells_two_specs_of_one_metric_apart(files, capsys):
    code, out, err = run(capsys, "-m", *SPECS, "-i", files["a"], files["b"], "-s", files["src"],
                         "--doc-ids", files["ids"], "--level", "doc", "-w", "10")
    assert code == 0, err
    df = read_tsv(out)  # stdout is the table alone
    assert list(df.columns) == ["system", "metric", "spec", "doc_id", "units", "score"]
    assert len(df) == 2 * 2 * 12 and set(df["spec"]) == set(SPECS) and set(df["metric"]) == {"slide"}
    for spec, (w, s) in zip(SPECS, ((2, 1), (3, 3))):
        for system, hyp in (("sysA.txt", HYP_A), ("sysB.txt", HYP_B)):
            rows = df[(df["spec"] == spec) & (df["system"] == system)]
            assert list(rows["doc_id"]) == [f"d{k}" for k in range(12)]
            by_hand = doc_scores_by_hand(hyp, w, s)
            for _, row in rows.iterrows():
                if row["doc_id"] in by_hand:
                    assert row["score"] == pytest.approx(by_hand[row["doc_id"]][0], abs=1e-9)
                    assert row["units"] == by_hand[row["doc_id"]][1]
                else:  # a document shorter than the window: no unit, no score
                    assert row["units"] == 0 and math.isnan(row["score"])
    # the system scores and their signatures still reach the user, on stderr
    assert "[1] slide|w:2|s:1|" in err and "[2] slide|w:3|s:3|" in err and "sysB.txt" in err


def test_chunk_table_to_a_file(files, capsys, tmp_path):
    path = tmp_path / "units.tsv"
    code, out, err = run(capsys, "-m", SPECS[0], "-i", files["a"], "-s", files["src"], "--doc-ids", files["ids"],
                         "--level", "chunk", "-o", path, "-w", "10")
    assert code == 0, err
    assert out.startswith("slide|w:2|s:1|") and " = " in out  # stdout: the usual report
    df = read_tsv(str(path))
    assert list(df.columns) == ["system", "metric", "spec", "doc_id", "unit", "first_line", "last_line", "weight",
                                "group", "truncated", "partial", "score"]
    expected = [(d, k + 1, c[0] + 1, c[-1] + 1) for d, chunks in windows(IDS, 2, 1).items()
                for k, c in enumerate(chunks)]
    assert list(zip(df["doc_id"], df["unit"], df["first_line"], df["last_line"])) == expected
    scores = [toy_score(" ".join(HYP_A[i] for i in range(a - 1, b)), " ".join(SRC[i] for i in range(a - 1, b)))
              for _, _, a, b in expected]
    assert list(df["score"]) == pytest.approx(scores, abs=1e-9)
    assert set(df["weight"]) == {1} and not df["truncated"].any() and set(df["spec"]) == {SPECS[0]}


def test_seg_level_for_single_segment_units(files, capsys, tmp_path):
    code, out, err = run(capsys, "-m", "slide:w=1,s=1,backbone=toy", "-i", files["a"], "-s", files["src"],
                         "--doc-ids", files["ids"], "--level", "seg", "-w", "10")
    assert code == 0, err
    df = read_tsv(out)
    assert list(df.columns) == ["system", "metric", "spec", "doc_id", "seg", "line", "score"]
    assert list(df["line"]) == list(range(1, len(IDS) + 1)) and list(df["doc_id"]) == IDS
    assert list(df["seg"]) == [IDS[:i + 1].count(d) for i, d in enumerate(IDS)]  # position in its document
    assert list(df["score"]) == pytest.approx([toy_score(h, s) for h, s in zip(HYP_A, SRC)], abs=1e-9)
    # JSON: the results with their units (one per segment) and the spec
    path = tmp_path / "seg.json"
    code, out, err = run(capsys, "-m", "slide:w=1,s=1,backbone=toy", "-i", files["a"], "-s", files["src"],
                         "--doc-ids", files["ids"], "--level", "seg", "-f", "json", "-o", path)
    assert code == 0 and out == "", err
    [result] = json.loads(path.read_text(encoding="utf-8"))
    assert result["spec"] == "slide:w=1,s=1,backbone=toy" and len(result["units"]) == len(IDS)


def test_seg_level_for_window_metrics_points_to_chunk(files, capsys):
    code, out, err = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-i", files["a"], "-s", files["src"],
                         "--doc-ids", files["ids"], "--level", "seg")
    assert code == 2 and out == "" and "Traceback" not in err
    assert "--level seg: slide:w=2,s=1,backbone=toy scores units of several segments" in err
    assert "--level chunk" in err


# -- 3. flags typed by habit ----------------------------------------------------------------------------------
HABIT_ROWS = [
    # (flag and value as typed, what the one line must say)
    (["--gpus", "1"], "--device auto|cpu|cuda"),
    (["--gpu", "0"], "--device auto|cpu|cuda"),
    (["--cuda"], "use --device cuda"),
    (["--cpu"], "use --device cpu"),
    (["--batch_size", "8"], "use --batch-size N"),
    (["--model", "Unbabel/wmt22-comet-da"], "-m doc-comet:model=Unbabel/wmt22-comet-da"),
    (["--model=x"], "the model belongs to the metric spec"),
    (["--to_json", "out.json"], "use -f json, and -o FILE"),
    (["--only_system"], "use -b/--score-only"),
    (["--echo", "docid"], "--level doc|chunk|seg"),
    (["--sentence-level"], "use --level seg"),
    (["--download"], "downloads no test set"),
    (["-t", "wmt23"], "docmetrics downloads no test set"),
    (["-t", "{a}"], "system outputs are given with -i here (COMET's -t/--translations)"),
    (["--paired_bs"], "use --paired-bs (with dashes)"),
    (["--refrence", "r.txt"], "did you mean --reference?"),
    (["--frobnicate"], "unrecognized argument: --frobnicate (see docmetrics --help)"),
]


@pytest.mark.parametrize("typed,advice", [r[0:2] for r in HABIT_ROWS], ids=[r[0][0] + "-" + str(k)
                                                                          for k, r in enumerate(HABIT_ROWS)])
def test_habit_flags_get_one_line_of_advice(files, capsys, monkeypatch, typed, advice):
    import docmetrics.api

    def no_model(*a, **k):
        raise AssertionError("a backbone was built for a command line that is refused")

    monkeypatch.setattr(docmetrics.api.Session, "backbone", no_model)  # the one place a backbone is built
    typed = [files["a"] if t == "{a}" else t for t in typed]
    code, out, err = run(capsys, "-m", "slide:backbone=toy", "-i", files["a"], "-s", files["src"], *typed)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "usage:" not in err and "Traceback" not in err, err
    assert advice in err


def test_gpus_names_workers_once_the_option_exists():
    from docmetrics.cli.habits import advice

    assert "--workers N" in advice("--gpus", {"--device", "--workers"})
    assert "--workers" not in advice("--gpus", {"--device"})


def test_argparse_errors_are_one_line(files, capsys):
    code, _, err = run(capsys, "-m", "slide:backbone=toy", "-i", files["a"], "--level", "sentence")
    assert code == 2 and err.count("\n") == 1 and "invalid choice: 'sentence'" in err and "usage:" not in err


def test_quiet_exists_and_silences_notes(files, capsys):
    code, out, err = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-i", files["a"], "-s", files["src"],
                         "--doc-ids", files["ids"], "--quiet")
    assert code == 0 and out.startswith("slide|") and err == ""


# -- 4. --ci: bootstrap confidence intervals over documents ----------------------------------------------------
def numpy_bootstrap(doc_means, doc_weights, n, seed, level):
    """The interval computed here from per-document scores: resample documents with numpy, the weighted
    mean of the resampled documents' scores, the (1-level)/2 and (1+level)/2 order statistics."""
    m, w = np.asarray(doc_means), np.asarray(doc_weights, dtype=float)
    idx = np.random.default_rng(seed).choice(len(m), size=(n, len(m)), replace=True)
    scores = (m[idx] * w[idx]).sum(axis=1) / w[idx].sum(axis=1)
    a = (1 - level) / 2
    return (float(np.quantile(scores, a, method="higher")), float(np.quantile(scores, 1 - a, method="lower")),
            float(scores.mean()))


@pytest.mark.parametrize("n,level,seed", [(1000, 0.95, 12345), (2000, 0.9, 7)])
def test_ci_equals_an_independent_bootstrap_over_documents(files, capsys, n, level, seed):
    code, out, err = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-i", files["a"], files["b"], "-s", files["src"],
                         "--doc-ids", files["ids"], "-f", "json", "--level", "doc", "--ci", "--ci-n", n,
                         "--ci-level", level, "--seed", seed)
    assert code == 0, err
    for result in json.loads(out):
        docs = [d for d in result["docs"] if d["units"]]
        lo, hi, mean = numpy_bootstrap([d["score"] for d in docs], [d["units"] for d in docs], n, seed, level)
        ci = result["ci"]
        assert (ci["low"], ci["high"]) == pytest.approx((lo, hi), abs=1e-12)
        assert ci["mean"] == pytest.approx(mean, abs=1e-12) and ci["low"] < result["score"] < ci["high"]
        assert (ci["n"], ci["seed"], ci["level"], ci["documents"]) == (n, seed, level, 12)
    assert "warning" not in err


def test_ci_text_output(files, capsys):
    code, out, err = run(capsys, "-m", *SPECS, "-i", files["a"], files["b"], "-s", files["src"], "--doc-ids",
                         files["ids"], "--ci")
    assert code == 0, err
    lines = out.splitlines()
    cells = lines[2].split(None, 1)[1]
    assert cells.count("[") == 2 and cells.count("]") == 2  # score [low, high] for both metrics
    assert ("95% confidence intervals [low, high]: bootstrap over whole documents (1000 resamples, seed 12345): "
            "[1] 12 documents, [2] 9 of 12 documents (the others have no scored unit)") in out
    assert "warning: slide: only 9 documents to resample" in err  # [2]: documents of 2 lines have no window


def test_ci_of_a_system_constant_per_document_has_zero_width(files, capsys):
    same = files["write"]("same.txt", ["Immer derselbe Satz."] * len(IDS))
    src = files["write"]("samesrc.txt", ["Always the same sentence."] * len(IDS))
    code, out, err = run(capsys, "-m", "slide:w=1,s=1,backbone=toy", "-i", same, "-s", src, "--doc-ids",
                         files["ids"], "-f", "json", "--ci")
    assert code == 0, err
    [result] = json.loads(out)
    assert result["ci"]["low"] == pytest.approx(result["score"], abs=1e-15)
    assert result["ci"]["high"] == pytest.approx(result["score"], abs=1e-15)


def test_ci_warns_below_ten_documents_and_refuses_one(files, capsys):
    ids = files["write"]("three.txt", ["a"] * 10 + ["b"] * 10 + ["c"] * (len(IDS) - 20))
    code, out, err = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-i", files["a"], "-s", files["src"],
                         "--doc-ids", ids, "--ci")
    assert code == 0 and "warning: slide: only 3 documents to resample" in err
    code, out, err = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-i", files["a"], "-s", files["src"], "--ci")
    assert code == 2 and "confidence intervals resample whole documents" in err and "--doc-ids" in err


def make_result(units, docs):
    return Result("sys", "toy", 0.0, Signature("toy", [], "0"), {}, units, docs)


def test_bootstrap_ci_on_a_weighted_mean():
    """Units of unequal weights (SLIDE partial=weighted): the document's weight is the sum of its units'."""
    rng = np.random.default_rng(3)
    units = [UnitScore(f"d{k}", k * 10 + j, k * 10 + j + 1, float(rng.normal()), float(rng.integers(1, 5)))
             for k in range(15) for j in range(1 + k % 3)]
    docs = [DocScore(f"d{k}", None, 1 + k % 3) for k in range(15)]
    per_doc = {}
    for u in units:
        s, w = per_doc.get(u.doc_id, (0.0, 0.0))
        per_doc[u.doc_id] = (s + u.weight * u.score, w + u.weight)
    result = make_result(units, docs)
    result.score = sum(s for s, _ in per_doc.values()) / sum(w for _, w in per_doc.values())
    ci = bootstrap_ci(result, n=1000, seed=11, level=0.95)
    lo, hi, mean = numpy_bootstrap([s / w for s, w in per_doc.values()], [w for _, w in per_doc.values()],
                                   1000, 11, 0.95)
    assert (ci.low, ci.high, ci.mean) == pytest.approx((lo, hi, mean), abs=1e-12)
    assert ci.half_width == pytest.approx((hi - lo) / 2) and ci.documents == 15 and not ci.warnings
    with pytest.raises(InputError, match="1 scored document"):
        bootstrap_ci(make_result(units[:1], docs[:1]))


def test_output_file_with_mtme(tmp_path, capsys, monkeypatch):
    from test_mtme import build_tiny

    build_tiny(tmp_path / "data")
    argv = ["-m", "slide:w=1,s=1,backbone=toy", "--mtme", tmp_path / "data", "-t", "toy", "-l", "en-de", "--ref",
            "refA", "--resamples", "0", "-f", "json"]
    code, out, err = run(capsys, *argv, "-o", tmp_path / "report.json")
    assert code == 0 and out == "", err
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["testset"] == "toy"
    import docmetrics.api

    def no_model(*a, **k):
        raise AssertionError("a backbone was built before -o was checked")

    monkeypatch.setattr(docmetrics.api.Session, "backbone", no_model)  # the one place a backbone is built
    code, out, err = run(capsys, *argv, "-o", tmp_path / "nope" / "report.json")
    assert code == 2 and "-o" in err and "no such directory" in err and err.count("\n") == 1
