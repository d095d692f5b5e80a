"""tests/benchmarks/bench_gpu.py --smoke runs in CI so that the GPU benchmark (issues 33, 41) cannot rot: one run
with tiny models on the CPU (the committed text sample, no ../shared, no network), whose JSON must hold every arm,
MetricX and the LLM judge included, every implementation and precision (run or skipped with the reason), the
work and the arithmetic of every timed row (tokens needed and run, FLOPs, TFLOP/s, mfu against the measured
peak), and scores of docmetrics equal to COMET's predict(), bert-score's, MetricX's predict logic and a plain
generate loop within the stated tolerance.  The FLOPs model is checked against torch's own FLOP counter; the two
faults of the first GPU run are checked on the CPU.  Timings are recorded, never asserted."""

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
    peak = report["peaks"]["fp32"]["tflops"]
    assert peak > 0
    for impl in bench_gpu.IMPLS:
        (row,) = rows(report, arm=arm.name, impl=impl, precision="fp32")
        if impl == "peer" and arm.peer is None:
            assert row["skipped"] == "no peer"
            continue
        if impl == "exact" and not arm.exact:
            assert row["skipped"].startswith("no exact-length reference")
            continue
        assert row["units"] > 0
        assert len(row["seconds"]) >= 3 and row["median_s"] > 0 and row["units_per_s"] > 0
        assert row["peak_gpu_gib"] is None  # a CPU run
        # the arithmetic: FLOPs of the tokens that must be seen, per second, over the measured peak
        assert row["tokens_needed"] > 0 and row["flops_needed"] > row["tokens_needed"]
        assert row["tflops"] == pytest.approx(row["flops_needed"] / row["median_s"] / 1e12, rel=1e-2, abs=1e-3)
        assert row["mfu"] == pytest.approx(row["flops_needed"] / row["median_s"] / 1e12 / peak, rel=1e-2, abs=1e-4)
        if impl in ("docmetrics", "exact"):  # counted by the forward hook: padding only adds
            assert row["tokens_run"] >= row["tokens_needed"]
    (dm,) = rows(report, arm=arm.name, impl="docmetrics", precision="fp32")
    if arm.exact:  # the reference runs every distinct sequence once, unpadded: exactly what is needed
        (exact,) = rows(report, arm=arm.name, impl="exact", precision="fp32")
        assert exact["tokens_run"] == exact["tokens_needed"] and exact["flops_run"] == exact["flops_needed"]
    if arm.model != "llm":
        assert dm["flops_run"] >= dm["flops_needed"]
    assert dm["tokens_run"] <= 1.10 * dm["tokens_needed"]  # issue 50: padding to the floor


@pytest.mark.parametrize("arm", [a for a in bench_gpu.ARMS if a.peer], ids=lambda a: a.name)
def test_docmetrics_equals_its_peer(smoke, arm):
    report, _, _ = smoke
    (peer,) = rows(report, arm=arm.name, impl="peer", precision="fp32")
    assert peer["diff_to_docmetrics"] <= bench_gpu.TOLERANCE["fp32"]
    (docmetrics,) = rows(report, arm=arm.name, impl="docmetrics", precision="fp32")
    assert peer["units"] == docmetrics["units"]


def test_comet_reference_scores_the_same_units(smoke):
    report, _, _ = smoke
    for arm in (a for a in bench_gpu.ARMS if a.peer == "predict"):
        (exact,) = rows(report, arm=arm.name, impl="exact", precision="fp32")
        assert exact["diff_to_docmetrics"] <= 1e-4  # unpadded vs padded batches: rounding only


def test_metricx_and_llm_judge_equal_their_peers(smoke):
    report, _, _ = smoke
    (mx,) = rows(report, key="metricx", impl="peer", precision="fp32")
    assert mx["diff_to_docmetrics"] <= 25 * bench_gpu.TOLERANCE["fp32"]  # MetricX's scale is 0-25
    assert mx["tokens_run"] == mx["tokens_needed"]  # one input at a time: no padding
    (llm,) = rows(report, key="llm", impl="peer", precision="fp32")
    assert llm["diff_to_docmetrics"] <= 1e-6  # greedy answers, the same integer scores
    assert llm["units"] == bench_gpu.SMOKE.llm_units
    assert llm["sequences_needed"] == 2 * llm["units"]  # GEMBA-ESA: two steps a unit
    (vllm,) = rows(report, key="llm", impl="vllm", precision="fp32")
    assert vllm["skipped"]


def test_gpu_precisions_are_listed_as_skipped(smoke):
    report, table, _ = smoke
    for precision in ("fp16", "bf16"):
        listed = rows(report, precision=precision)
        assert {(r["arm"], r["impl"]) for r in listed} == {(a.name, i) for a in bench_gpu.ARMS for i in bench_gpu.IMPLS}
        assert all(r["skipped"] == f"{precision} needs a GPU" for r in listed)
        assert f"| every arm | {precision} |" in table
    assert report["errors"] == []


def test_report_says_where_and_what(smoke):
    report, table, stdout = smoke
    env = report["env"]
    for key in ("torch", "transformers", "unbabel-comet", "bert-score", "numpy", "python", "gpu"):
        assert key in env
    assert env["device"] == "cpu" and env["gpu"] is None
    assert report["data"]["segments"] == 101 and report["data"]["documents"] == 2
    assert {r["max_tokens"] for r in report["budget_sweep"]} == set(bench_gpu.SMOKE.budgets)
    assert {r["arm"] for r in report["budget_sweep"]} == {a.name for a in bench_gpu.ARMS if a.key in bench_gpu.SWEPT}
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


# -- the FLOPs model against an independent count -------------------------------------------------------------------
def _counted(model, **inputs):
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(**inputs)
    return counter.get_total_flops()


@pytest.mark.parametrize("n", [1, 7, 33])
def test_encoder_flops_equal_torchs_flop_counter(n):
    torch = pytest.importorskip("torch")
    from transformers import XLMRobertaConfig, XLMRobertaModel

    config = XLMRobertaConfig(vocab_size=50, hidden_size=32, num_hidden_layers=3, num_attention_heads=4,
                              intermediate_size=48, max_position_embeddings=64, attn_implementation="eager")
    model = XLMRobertaModel(config, add_pooling_layer=False).eval()  # eager: attention as matmuls torch counts
    ids = torch.randint(3, 50, (1, n))
    assert _counted(model, input_ids=ids) == bench_gpu.encoder_flops(n, 32, 48, 3)
    assert _counted(model, input_ids=ids.repeat(5, 1)) == 5 * bench_gpu.encoder_flops(n, 32, 48, 3)


@pytest.mark.parametrize("n", [1, 9, 40])
def test_mt5_flops_equal_torchs_flop_counter(n):
    torch = pytest.importorskip("torch")
    from transformers import MT5Config, MT5ForConditionalGeneration

    shape = {"d_model": 32, "d_kv": 8, "d_ff": 48, "num_layers": 3, "num_decoder_layers": 2, "num_heads": 4,
             "vocab_size": 120, "relative_attention_num_buckets": 8, "relative_attention_max_distance": 16}
    model = MT5ForConditionalGeneration(MT5Config(**shape, feed_forward_proj="gated-gelu",
                                                  tie_word_embeddings=False)).eval()
    ids = torch.randint(3, 100, (1, n))
    got = _counted(model, input_ids=ids, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long), use_cache=False)
    assert got == bench_gpu.mt5_flops(n, shape)


@pytest.mark.parametrize("prompt,new", [(5, 1), (12, 4), (30, 9)])
def test_causal_flops_by_hand(prompt, new):
    """A greedy answer's FLOPs counted token by token: each token processed (the prompt's and every answer
    token but the last) does the projections and attends causally to every position up to its own; each
    answer token needs the output layer once."""
    c = {"hidden_size": 64, "num_hidden_layers": 3, "intermediate_size": 96, "num_attention_heads": 8,
         "num_key_value_heads": 2, "vocab_size": 500}
    head = c["hidden_size"] // c["num_attention_heads"]
    kv = c["num_key_value_heads"] * head
    total = 0
    for position in range(1, prompt + new):  # 1-based positions of the tokens run
        for _ in range(c["num_hidden_layers"]):
            total += 2 * c["hidden_size"] * c["hidden_size"]       # q
            total += 2 * 2 * c["hidden_size"] * kv                  # k, v
            total += 2 * c["hidden_size"] * c["hidden_size"]       # o
            total += 2 * 3 * c["hidden_size"] * c["intermediate_size"]  # gate, up, down
            total += 2 * 2 * position * c["hidden_size"]            # q k^T and a v over the positions so far
    total += new * 2 * c["hidden_size"] * c["vocab_size"]
    assert bench_gpu.causal_flops(prompt, new, c) == total


def test_token_counter_sees_padded_batches():
    torch = pytest.importorskip("torch")
    from transformers import XLMRobertaConfig, XLMRobertaModel

    model = XLMRobertaModel(XLMRobertaConfig(vocab_size=50, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                                             intermediate_size=32, max_position_embeddings=64),
                            add_pooling_layer=False).eval()
    with torch.no_grad(), bench_gpu.TokenCounter() as counter:
        model(input_ids=torch.ones((3, 11), dtype=torch.long))
        model(input_ids=torch.ones((2, 4), dtype=torch.long))
    assert counter.tokens() == 3 * 11 + 2 * 4
    assert counter.flops() == 3 * bench_gpu.encoder_flops(11, 16, 32, 2) + 2 * bench_gpu.encoder_flops(4, 16, 32, 2)
    model(input_ids=torch.ones((1, 3), dtype=torch.long))  # after the counter: not counted
    assert counter.tokens() == 41


# -- the two faults the first GPU run found -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_bench(tmp_path_factory):
    docmetrics = pytest.importorskip("docmetrics")
    bench = bench_gpu.Bench(bench_gpu.SMOKE, bench_gpu.read_sample(), "cpu", 600,
                            tmp_path_factory.mktemp("bench-models"))
    bench.build(("slide66", "doc-comet"))
    return bench, docmetrics


def _arm(key):
    return next(a for a in bench_gpu.ARMS if a.key == key)


@pytest.mark.parametrize("key", ["slide66", "doc-comet"])
def test_reference_never_shares_the_peers_model(small_bench, key):
    """COMET's predict() (a Lightning Trainer) returns the model it ran to the CPU; on a GPU the reference,
    sharing that object, met CPU weights with CUDA inputs.  Here the peer's model is moved away (to the meta
    device) after it runs, and the reference still scores every unit as docmetrics does."""
    bench, docmetrics = small_bench
    session = docmetrics.Session(cache=None, device="cpu", quiet=True)
    built = bench.impls(_arm(key), "fp32", session, peers=True)
    peer, exact = built.impls["peer"], built.impls["exact"]
    assert peer.model is not exact.model
    assert not {id(p) for p in peer.model.parameters()} & {id(p) for p in exact.model.parameters()}
    peer.run()
    peer.model.to("meta")
    assert bench_gpu.max_diff(built.impls["docmetrics"].run(), exact.run()) <= 1e-4
    session.close()


def test_doc_comet_reference_runs_in_bf16(small_bench):
    """COMET's compute_sentence_embedding returns fp32 from a half-precision model; the reference writes it into
    a buffer of the model's dtype (the first GPU run failed: 'Index put requires the source and destination
    dtypes match').  bf16 runs on a CPU, so the cast is checked here."""
    bench, docmetrics = small_bench
    session = docmetrics.Session(cache=None, device="cpu", quiet=True)
    arm = _arm("doc-comet")
    metric = docmetrics.load(bench.spec(arm), session=session)
    testset = docmetrics.TestSet.from_lists(bench.systems, bench.src, bench.ref, bench.ids)
    plan = {n: [u.input for u in us] for n, us in metric.units(testset).systems.items()}
    run, need = bench._exact_da(bench.cast(bench.master("da"), "bf16"), plan)
    bf16 = run()
    fp32 = bench._exact_da(bench.cast(bench.master("da"), "fp32"), plan)[0]()
    assert {n: len(v) for n, v in bf16.items()} == {n: len(v) for n, v in plan.items()}
    assert bench_gpu.max_diff(fp32, bf16) <= 0.05  # 8 bits of mantissa
    assert need.tokens > 0
    session.close()


# -- choosing what runs ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv,message", [
    (["--smoke", "--arms", "nope"], "--arms: nope: choose from"),
    (["--smoke", "--precisions", "fp8"], "--precisions: fp8: choose from"),
    (["--smoke", "--peers", ","], "--peers: none given"),
])
def test_bad_selection_exits_2(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        bench_gpu.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_selection_runs_only_what_is_chosen(tmp_path):
    report = bench_gpu.run(True, None, tmp_path, 300, precisions=("bf16",), arms=("metricx",))
    assert {(r["key"], r["precision"]) for r in report["rows"]} == {("metricx", "bf16")}
    assert all(r["skipped"] == "bf16 needs a GPU" for r in report["rows"])
    assert report["selected"] == {"precisions": ["bf16"], "arms": ["metricx"], "peers": ["fp32"]}
    assert json.loads((tmp_path / "bench_gpu.json").read_text())["rows"] == report["rows"]
