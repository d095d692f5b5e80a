"""Benchmark: ASD on one long document, banded vs full alignment: wall time, CPU time and model calls.

The document: N source sentences (default 1000, generated, deterministic) and a "translation" that is
the source with about 3% of sentences omitted, 3% merged with the next one and 3% split in two (so it
has its own sentence count, as an LLM's whole-document output does).  The scorer is a tiny random
CometKiwi (built here; the numbers mean nothing, the work is the real pipeline); the aligner is the
same tiny CometKiwi (a QE aligner: one model call per candidate pair, the paper's default kind) or the
real all-MiniLM-L6-v2 (sentence embeddings: one model call per sentence).  Every run is the CLI end to
end (start-up, model loading, segmentation, alignment, chunk scoring), in a fresh process:

    python tests/benchmarks/bench_asd.py [--sentences 1000] [--full-sizes 100,200,300] [--threads N]
        [--full-qe-at-n]      # also run the full m x n QE alignment at N (slow on a CPU)

The full QE alignment at N is extrapolated from the smaller sizes (time grows with m x n) unless
--full-qe-at-n is given.  CPU time is user + system of the child process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def make_document(n: int, seed: int = 7) -> tuple[str, str, int, int]:
    """(source text, MT text, source sentences, MT sentences) for a document of ``n`` sentences."""
    from docmetrics_backbones.comet.testing import sample_sentences

    rng = random.Random(seed)
    src: list[str] = []
    for s in sample_sentences(6 * n, seed=5):
        words = [w.strip(",") for w in s.rstrip(".!?;").split() if not w[0].isdigit()]
        words = [w for w in words if w not in ("I",)]
        if len(words) >= 3:
            src.append(" ".join([words[0].capitalize()] + [w.lower() for w in words[1:]]) + ".")
        if len(src) == n:
            break
    mt: list[str] = []
    i = 0
    while i < len(src):
        r = rng.random()
        if r < 0.03:  # omission
            i += 1
            continue
        if r < 0.06 and i + 1 < len(src):  # two source sentences merged into one
            mt.append(src[i][:-1] + ", and " + src[i + 1][0].lower() + src[i + 1][1:])
            i += 2
            continue
        words = src[i][:-1].split()
        if r < 0.09 and len(words) > 6:  # one source sentence split in two
            h = len(words) // 2
            mt.append(" ".join(words[:h]) + ".")
            mt.append(words[h].capitalize() + " " + " ".join(words[h + 1:]) + ".")
            i += 1
            continue
        mt.append(src[i])
        i += 1
    return " ".join(src), " ".join(mt), len(src), len(mt)


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds, the JSON result) of one CLI run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(proc.stdout)[0]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sentences", type=int, default=1000)
    ap.add_argument("--full-sizes", default="100,200,300",
                    help="sizes at which the full QE alignment is measured (and extrapolated to N)")
    ap.add_argument("--full-qe-at-n", action="store_true", help="also run the full QE alignment at N")
    ap.add_argument("--threads", type=int, default=None, help="OMP_NUM_THREADS for the runs")
    ap.add_argument("--model", default=None, help="a COMET model directory (default: a tiny CometKiwi)")
    a = ap.parse_args()

    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    if a.threads:
        env["OMP_NUM_THREADS"] = str(a.threads)
    with tempfile.TemporaryDirectory() as tmp:
        if a.model:
            model = a.model
        else:
            from docmetrics_backbones.comet.testing import build_tiny_comet

            model = str(build_tiny_comet(Path(tmp) / "tiny-kiwi", kind="unified", seed=0))
        env.setdefault("DOCMETRICS_CACHE", str(Path(tmp) / "cache"))

        def doc_file(n: int) -> tuple[str, int, int]:
            src, mt, m, k = make_document(n)
            path = Path(tmp) / f"doc{n}.jsonl"
            path.write_text(json.dumps({"doc_id": f"doc{n}", "src": src, "mt": mt}) + "\n", encoding="utf-8")
            return str(path), m, k

        def asd(path: str, spec: str) -> list[str]:
            return ["docmetrics", "-m", f"asd:model={model},{spec}", "-i", path, "--device", "cpu",
                    "-q", "-f", "json"]

        def report(label: str, wall: float, cpu: float, res: dict) -> None:
            c = res["coverage"]
            print(f"{label:<44} wall {wall:7.1f} s  cpu {cpu:7.1f} s  align pairs {c['align_pairs']:>8}  "
                  f"align model calls {c['align_model_calls']:>8}  chunks {c['units']:>5}  "
                  f"band edge docs {c['align_band_edge_docs']}  score {res['score']:.4f}")

        n = a.sentences
        path, m, k = doc_file(n)
        print(f"document: {m} source sentences, {k} MT sentences (segmented by the rules segmenter "
              f"as generated); threads: {a.threads or 'torch default'}; {os.cpu_count()} CPUs")
        print("command:", " ".join(asd(path, f"aligner_model={model}")))
        runs = [
            ("banded (default), QE aligner = tiny kiwi", f"aligner_model={model}"),
            ("banded (default), aligner = MiniLM", "aligner=sentence-embedding,aligner_model=minilm"),
            ("full, aligner = MiniLM", "aligner=sentence-embedding,aligner_model=minilm,mode=full"),
        ]
        if a.full_qe_at_n:
            runs.append(("full, QE aligner = tiny kiwi", f"aligner_model={model},mode=full"))
        for label, spec in runs:
            wall, cpu, res = run(asd(path, spec), env)
            report(f"N={n} {label}", wall, cpu, res)

        # the full QE matrix at smaller sizes, extrapolated to N (time ~ a + b * m * n)
        points = []
        for size in [int(x) for x in a.full_sizes.split(",") if x.strip()]:
            p, ms, ks = doc_file(size)
            for label, spec in (("banded", f"aligner_model={model}"),
                                ("full", f"aligner_model={model},mode=full")):
                wall, cpu, res = run(asd(p, spec), env)
                report(f"N={size} {label}, QE aligner = tiny kiwi", wall, cpu, res)
                if label == "full":
                    points.append((res["coverage"]["align_pairs"], wall, cpu))
        if len(points) >= 2:
            (p0, w0, c0), (p1, w1, c1) = points[0], points[-1]
            pairs = m * k
            rate_w = (w1 - w0) / (p1 - p0)
            rate_c = (c1 - c0) / (p1 - p0)
            print(f"full QE alignment extrapolated to N={n} ({pairs} pairs = model calls): "
                  f"wall ~{w1 + rate_w * (pairs - p1):.0f} s, cpu ~{c1 + rate_c * (pairs - p1):.0f} s "
                  f"({1000 * rate_c:.2f} ms cpu per pair)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
