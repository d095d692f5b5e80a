"""The command line end to end, on the toy third-party backbone (no model, fast)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401

SRC = [f"Source sentence number {i} says something." for i in range(11)]
HYP_A = [f"Satz Nummer {i} sagt etwas." for i in range(11)]
HYP_B = [f"Satz {i}." for i in range(11)]
IDS = ["d1"] * 3 + ["d2"] * 7 + ["d3"]


def toy_score(mt, src, scale=1.0):
    return scale * ((len(mt) % 7) / 7 + 0.01 * len(src.split()) - 0.001 * len(mt.split()))


def slide_by_hand(hyp, w, s, ids=IDS, src=SRC, policy="drop"):
    """SLIDE on the toy model, computed independently of docmetrics' window code."""
    docs = {}
    for i, d in enumerate(ids):
        docs.setdefault(d, []).append(i)
    num = den = 0.0
    for lines in docs.values():
        n = len(lines)
        start = 0
        chunks = []
        while start + w <= n:
            chunks.append(lines[start:start + w])
            start += s
        last = chunks[-1][-1] + 1 - lines[0] if chunks else 0
        if policy != "drop" and last < n:
            chunks.append(lines[last:])
        for c in chunks:
            sc = toy_score(" ".join(hyp[i] for i in c), " ".join(src[i] for i in c))
            weight = len(c) if policy == "weighted" else 1
            num += weight * sc
            den += weight
    return num / den


@pytest.fixture()
def files(tmp_path):
    def write(name, lines):
        p = tmp_path / name
        p.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return str(p)

    return {
        "src": write("src.txt", SRC), "a": write("sysA.txt", HYP_A), "b": write("sysB.txt", HYP_B),
        "ids": write("ids.txt", IDS), "dir": tmp_path, "write": write,
    }


@pytest.mark.parametrize("w,s,policy", [(2, 1, "drop"), (4, 2, "drop"), (4, 2, "keep"), (4, 2, "weighted"),
                                        (3, 3, "keep"), (1, 1, "drop")])
def test_score_equals_hand_computation(toy_dist, files, capsys, w, s, policy):
    code, out, err = run(capsys, "-m", f"slide:w={w},s={s},partial={policy},backbone=toy",
                         "-i", files["a"], "-s", files["src"], "--doc-ids", files["ids"], "-w", "8")
    assert code == 0, err
    sig, _, rest = out.strip().partition(" = ")
    assert sig.startswith(f"slide|w:{w}|s:{s}|partial:{policy}|backbone:toy|model:toy-v1|fingerprint:")
    assert float(rest.split()[0]) == pytest.approx(slide_by_hand(HYP_A, w, s, policy=policy), abs=1e-7)
    assert "coverage" in rest and "truncated" in rest


def test_json_contract_and_levels(toy_dist, files, capsys):
    code, out, err = run(capsys, "-m", "slide:w=2,s=2,backbone=toy", "-i", files["a"], files["b"],
                         "-s", files["src"], "--doc-ids", files["ids"], "-f", "json", "--level", "chunk")
    assert code == 0, err
    data = json.loads(out)
    assert [d["system"] for d in data] == ["sysA.txt", "sysB.txt"]
    for d, hyp in zip(data, (HYP_A, HYP_B)):
        assert {"system", "metric", "score", "signature", "params", "coverage", "docs", "units"} <= set(d)
        assert d["metric"] == "slide" and d["params"]["w"] == 2 and d["params"]["backbone"] == "toy"
        assert d["score"] == pytest.approx(slide_by_hand(hyp, 2, 2), abs=1e-9)
        # d1: 3 lines -> [0,2) ; d2: 7 lines -> 3 chunks ; d3: 1 line -> none
        assert [(u["start"], u["end"]) for u in d["units"]] == [(0, 2), (3, 5), (5, 7), (7, 9)]
        assert d["coverage"]["segments_scored"] == 8 and d["coverage"]["segments_total"] == 11
        assert [x["units"] for x in d["docs"]] == [1, 3, 0] and d["docs"][2]["score"] is None


def test_table_for_several_systems_and_metrics(toy_dist, files, capsys):
    code, out, err = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "slide:w=3,s=3,backbone=toy",
                         "-i", files["a"], files["b"], "-s", files["src"], "--doc-ids", files["ids"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[0] == "System" and "[1]" in lines[0] and "[2]" in lines[0]
    assert lines[2].startswith("sysA.txt") and lines[3].startswith("sysB.txt")
    assert float(lines[2].split()[1]) == pytest.approx(slide_by_hand(HYP_A, 2, 1), abs=1e-4)
    assert any(x.startswith("[2] slide|w:3|s:3|") for x in lines)


def test_score_only_and_doc_level(toy_dist, files, capsys):
    code, out, _ = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-i", files["a"], "-s", files["src"],
                       "--doc-ids", files["ids"], "-b", "-w", "6")
    assert code == 0 and float(out) == pytest.approx(slide_by_hand(HYP_A, 2, 1), abs=1e-6)
    code, out, _ = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-i", files["a"], "-s", files["src"],
                       "--doc-ids", files["ids"], "--level", "doc")
    rows = [x.split("\t") for x in out.splitlines()]  # --level doc: stdout is the table alone
    assert rows[0] == ["system", "metric", "spec", "doc_id", "units", "score"]
    assert [r[3] for r in rows[1:]] == ["d1", "d2", "d3"] and rows[3][5] == "nan"


@pytest.mark.parametrize("short", [False, True])
def test_signature_parses_back_to_the_same_score(toy_dist, files, capsys, short):
    args = ["-i", files["a"], "-s", files["src"], "--doc-ids", files["ids"], "-w", "8"]
    code, out, _ = run(capsys, "-m", "slide:w=3,s=1,partial=weighted,backbone=toy,scale=2.5", *args,
                       *(["-sh"] if short else []))
    sig, _, rest = out.strip().partition(" = ")
    code2, out2, err2 = run(capsys, "-m", sig, *args, *(["-sh"] if short else []))
    assert code2 == 0 and "warning" not in err2, err2
    sig2, _, rest2 = out2.strip().partition(" = ")
    assert sig2 == sig and rest2.split()[0] == rest.split()[0]
    # a field that differs is named in a warning; the number is still computed
    other = sig.replace("|v:", "|torch:1.0|v:9.9.9-")
    code3, _, err3 = run(capsys, "-m", other, *args)
    assert code3 == 0 and "torch" in err3 and "version" in err3


def test_preset_with_override(toy_dist, files, capsys):
    code, out, err = run(capsys, "-m", "slide-raunak2024-w2s1:backbone=toy,model=toy-v1", "-i", files["a"],
                         "-s", files["src"], "--doc-ids", files["ids"], "-w", "8")
    assert code == 0, err
    assert out.startswith("slide|w:2|s:1|partial:drop|backbone:toy|model:toy-v1|")
    assert float(out.split(" = ")[1].split()[0]) == pytest.approx(slide_by_hand(HYP_A, 2, 1), abs=1e-7)


def test_jsonl_input_equals_text_input(toy_dist, files, capsys):
    rows = [json.dumps({"doc_id": d, "src": s, "mt": m}) for d, s, m in zip(IDS, SRC, HYP_A)]
    path = files["write"]("a.jsonl", rows)
    code, out, err = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-i", path, "-b", "-w", "8")
    assert code == 0, err
    assert float(out) == pytest.approx(slide_by_hand(HYP_A, 2, 1), abs=1e-7)


def test_identical_chunks_scored_once(toy_dist, files, capsys):
    from docmetrics_toy import ToyBackbone

    ToyBackbone.calls.clear()
    copy = files["write"]("copyA.txt", HYP_A)  # (the same file given twice is used once)
    code, out, err = run(capsys, "-m", "slide:w=2,s=1,backbone=toy,scale=3", "-i", files["a"], copy,
                         "-s", files["src"], "--doc-ids", files["ids"])
    assert code == 0, err
    assert "copyA.txt" in out
    assert len(ToyBackbone.calls) == 1  # all systems in one pass
    # 2 identical systems x 8 chunks (d1: 2, d2: 6, d3: 0): each distinct chunk reaches the model once
    assert len(ToyBackbone.calls[0]) == 8 == len(set(ToyBackbone.calls[0]))


# -- errors: exit 2, one clear message, no traceback ---------------------------------------------------
def _err(capsys, *argv):
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert "Traceback" not in err
    return err


def test_error_different_lengths(toy_dist, files, capsys):
    short = files["write"]("short.txt", HYP_A[:5])
    err = _err(capsys, "-m", "slide:backbone=toy", "-i", short, "-s", files["src"], "--doc-ids", files["ids"])
    assert "different lengths" in err and "short.txt: 5 lines" in err and "src.txt: 11 lines" in err


def test_error_invalid_utf8(toy_dist, files, capsys):
    bad = Path(files["dir"]) / "bad.txt"
    bad.write_bytes(b"fine\nalso fine\nbro\xffken\n")
    err = _err(capsys, "-m", "slide:backbone=toy", "-i", str(bad), "-s", files["src"])
    assert "bad.txt, line 3: invalid UTF-8" in err


def test_error_empty_input(toy_dist, files, capsys):
    empty = files["write"]("empty.txt", [])
    err = _err(capsys, "-m", "slide:backbone=toy", "-i", empty)
    assert "empty input" in err


@pytest.mark.parametrize(
    "spec,message",
    [
        ("slidee", "unknown metric 'slidee' (did you mean 'slide'?); available: asd, "),
        ("slide:w=0,backbone=toy", "parameter 'w' has value '0'; it must be an integer >= 1"),
        ("slide:w=2,s=3,backbone=toy", "parameter 's' (3) must be <= 'w' (2)"),
        ("slide:window=3,backbone=toy", "unknown parameter 'window'; did you mean 'w' (window)? allowed: w, s, "
                                        "partial, backbone"),
        ("slide:partial=some,backbone=toy", "one of drop, keep, weighted"),
        ("slide:backbone=nope", "unknown backbone 'nope'; available:"),
        ("slide:backbone=needsextra", 'pip install "docmetrics-toy[heavy]"'),
        ("slide:backbone=broken", "could not be loaded"),
        ("slide:backbone=toy,precision=fp8", "precision"),
        ("slide:w=20,s=20,backbone=toy", "no chunk to score: every document is shorter than w=20"),
    ],
)
def test_error_bad_spec(toy_dist, files, capsys, spec, message):
    err = _err(capsys, "-m", spec, "-i", files["a"], "-s", files["src"], "--doc-ids", files["ids"])
    assert message in err


def test_error_missing_source_and_file(toy_dist, files, capsys):
    err = _err(capsys, "-m", "slide:backbone=toy", "-i", files["a"], "--doc-ids", files["ids"])
    assert "needs the source: pass it with -s" in err
    err = _err(capsys, "-m", "slide:backbone=toy", "-i", "/nonexistent/hyp.txt")
    assert "/nonexistent/hyp.txt: no such file" in err


def test_warnings_doc_id_reappears_and_no_doc_ids(toy_dist, files, capsys):
    ids = files["write"]("ids2.txt", ["a"] * 4 + ["b"] * 4 + ["a"] * 3)
    code, _, err = run(capsys, "-m", "slide:w=2,s=2,backbone=toy", "-i", files["a"], "-s", files["src"],
                       "--doc-ids", ids)
    assert code == 0 and "doc id 'a' reappears at line 9" in err
    code, _, err = run(capsys, "-m", "slide:w=2,s=2,backbone=toy", "-i", files["a"], "-s", files["src"])
    assert code == 0 and "no doc ids" in err


def test_list_and_describe(toy_dist, capsys):
    code, out, _ = run(capsys, "--list")
    assert code == 0
    assert "slide" in out and "toy" in out and "slide-wmt23" in out
    assert 'unavailable: needs definitely-not-installed-xyz; pip install "docmetrics-toy[heavy]"' in out
    code, out, _ = run(capsys, "--describe", "slide")
    assert code == 0 and "partial" in out and "Raunak" in out and "remainder" in out
    code, out, _ = run(capsys, "--describe", "slide-wmt23")
    assert code == 0 and "WMT 2023" in out
    code, _, err = run(capsys, "--describe", "zzz")
    assert code == 2 and "unknown name 'zzz'" in err


def test_subprocess_entry_points(toy_dist, files):
    env = dict(os.environ, PYTHONPATH=str(toy_dist) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = ["-m", "slide:w=2,s=1,backbone=toy", "-i", files["a"], "-s", files["src"], "--doc-ids", files["ids"], "-b"]
    for cmd in (["docmetrics"], [sys.executable, "-m", "docmetrics"]):
        proc = subprocess.run(cmd + args, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        assert float(proc.stdout) == pytest.approx(slide_by_hand(HYP_A, 2, 1), abs=1e-4)
    proc = subprocess.run(["docmetrics", "-m", "slide:w=0", "-i", files["a"]], capture_output=True, text=True, env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
