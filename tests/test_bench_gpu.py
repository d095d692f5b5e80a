"""tests/benchmarks/bench_gpu.py --smoke runs in CI so that the GPU benchmark (issue 33) cannot rot: one run with
tiny models on the CPU (the committed text sample, no ../shared, no network), whose JSON must hold every arm,
every implementation and precision (run or skipped with the reason), and scores of docmetrics equal to COMET's
predict() and bert-score's within the stated tolerance.  Timings are recorded, never asserted."""

from __future__ import annotations

import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parent / "benchmarks"
sys.path.insert(0, str(BENCH))
import bench_gpu  # noqa: E402  (tests/benchmarks/bench_gpu.py)

pytest.importorskip("comet")
pytest.importorskip("bert_score")


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench-gpu")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, str(BENCH / "bench_gpu.py"), "--smoke", "--out", str(out)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / "bench_gpu.json").read_text()), (out / "bench_gpu.md").read_text(), proc.stdout


def rows(report, **match):
    return [r for r in report["rows"] if all(r.get(k) == v for k, v in match.items())]


@pytest.mark.parametrize("arm", bench_gpu.ARMS, ids=lambda a: a.name)
def test_every_arm_runs_at_fp32(smoke, arm):
    report, _, _ = smoke
    for impl in bench_gpu.IMPLS:
        (row,) = rows(report, arm=arm.name, impl=impl, precision="fp32")
        if impl == "peer" and arm.peer is None:
            assert row["skipped"] == "no peer"
            continue
        assert row["units"] > 0
        assert len(row["seconds"]) >= 3 and row["median_s"] > 0 and row["units_per_s"] > 0
        assert row["peak_gpu_gib"] is None  # a CPU run


@pytest.mark.parametrize("arm", [a for a in bench_gpu.ARMS if a.peer], ids=lambda a: a.name)
def test_docmetrics_equals_its_peer(smoke, arm):
    report, _, _ = smoke
    (peer,) = rows(report, arm=arm.name, impl="peer", precision="fp32")
    assert peer["diff_to_docmetrics"] <= bench_gpu.TOLERANCE["fp32"]
    (docmetrics,) = rows(report, arm=arm.name, impl="docmetrics", precision="fp32")
    assert peer["units"] == docmetrics["units"]


def test_comet_floor_scores_the_same_units(smoke):
    report, _, _ = smoke
    for arm in (a for a in bench_gpu.ARMS if a.peer == "predict"):
        (floor,) = rows(report, arm=arm.name, impl="floor", precision="fp32")
        assert floor["diff_to_docmetrics"] <= 1e-4  # unpadded vs padded batches: rounding only


def test_gpu_precisions_and_missing_backbones_are_listed_as_skipped(smoke):
    report, table, _ = smoke
    for precision in ("fp16", "bf16"):
        listed = rows(report, precision=precision)
        assert {(r["arm"], r["impl"]) for r in listed} == {(a.name, i) for a in bench_gpu.ARMS for i in bench_gpu.IMPLS}
        assert all(r["skipped"] == f"{precision} needs a GPU" for r in listed)
        assert f"| every arm | {precision} |" in table
    for arm, backbone in (("metricx", "metricx"), ("llm_judge", "llm")):  # until their functions are written
        assert rows(report, arm=arm, precision="fp32")[0]["skipped"].startswith("skipped: ")
        assert backbone in rows(report, arm=arm, precision="fp32")[0]["skipped"]


def test_report_says_where_and_what(smoke):
    report, table, stdout = smoke
    env = report["env"]
    for key in ("torch", "transformers", "unbabel-comet", "bert-score", "numpy", "python", "gpu"):
        assert key in env
    assert env["device"] == "cpu" and env["gpu"] is None
    assert report["data"]["segments"] == 101 and report["data"]["documents"] == 2
    assert {r["max_tokens"] for r in report["budget_sweep"]} == set(bench_gpu.SMOKE.budgets)
    assert {r["arm"] for r in report["budget_sweep"]} == set(bench_gpu.SWEPT)
    for arm in bench_gpu.ARMS:
        assert f"| {arm.name} | fp32 | docmetrics |" in table
    assert table.strip() in stdout


def test_sample_is_two_whole_documents():
    data = bench_gpu.read_sample()
    assert len(data["src"]) == len(data["ref"]) == len(data["doc_ids"]) == 101
    assert sorted(set(data["doc_ids"])) == ["talk.3", "talk.5"]
    assert all(len(h) == 101 and all(h) for h in data["systems"].values())


def test_sample_is_what_ted_sample_writes(tmp_path):
    shared = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21_ted_ende"
    if not (shared / "segments.tsv").exists():
        pytest.skip("no ../shared/data/wmt21_ted_ende")
    out = tmp_path / "sample.tsv.xz"
    subprocess.run([sys.executable, str(BENCH / "ted_sample.py"), str(shared), "--out", str(out)], check=True,
                   capture_output=True)
    assert lzma.decompress(out.read_bytes()) == lzma.decompress(bench_gpu.SAMPLE.read_bytes())


@pytest.mark.parametrize("script", ["gpu_run.sh", "gpu_wheels.sh"])
def test_gpu_scripts_parse(script):
    subprocess.run(["bash", "-n", str(BENCH / script)], check=True)
