"""Benchmark: Doc-COMET and Doc-COMET-QE on ../shared/data/wmt21_ted_ende (all MT systems) with tiny
random COMET models (the numbers mean nothing; the work is the real pipeline: contexts, fitting to
the encoder's limit, dedup, batching, scoring, signature).

    python tests/benchmarks/bench_doc_comet.py [--data ../shared/data/wmt21_ted_ende] [--repeat 3]
        [--max-positions 514] [--threads N]

Prints, per spec, the end-to-end time of the ``docmetrics`` command (start-up and model loading
included) and the coverage line of the first system (truncation and context counters).  With
``--max-positions 66`` (a 62-token encoder) the context-fitting rule is exercised on real sentences.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def timed(cmd: list[str], repeat: int, env: dict[str, str]) -> tuple[float, float, str]:
    times, out = [], ""
    for _ in range(repeat):
        t = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr}")
        out = proc.stdout
    return statistics.median(times), min(times), out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(HERE.parents[2] / "shared" / "data" / "wmt21_ted_ende"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-positions", type=int, default=514,
                    help="the tiny encoder's max_position_embeddings (514 as XLM-R)")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    a = ap.parse_args()
    if not Path(a.data, "segments.tsv").exists():
        print(f"no data at {a.data}; pass --data", file=sys.stderr)
        return 2
    import wmt_data
    from docmetrics_backbones.comet.testing import build_tiny_comet

    env = dict(os.environ)
    if a.threads:
        env["OMP_NUM_THREADS"] = str(a.threads)
    with tempfile.TemporaryDirectory() as tmp:
        data = wmt_data.write(a.data, tmp)
        t = time.perf_counter()
        da = build_tiny_comet(Path(tmp) / "tiny-da", kind="regression", seed=0,
                              max_position_embeddings=a.max_positions)
        qe = build_tiny_comet(Path(tmp) / "tiny-qe", kind="referenceless", seed=0,
                              max_position_embeddings=a.max_positions)
        print(f"built two tiny COMET models in {time.perf_counter() - t:.1f} s "
              f"(max_position_embeddings {a.max_positions})")
        systems = sorted(str(p) for p in Path(tmp, "sys").glob("*.txt"))
        n_docs = len(dict.fromkeys(data["doc_ids"]))
        print(f"data: {Path(a.data).name}, {len(systems)} systems x {len(data['src'])} segments, "
              f"{n_docs} documents")
        common = ["-i", *systems, "-s", f"{tmp}/src.txt", "--doc-ids", f"{tmp}/docids.txt",
                  "--device", "cpu", "-f", "json", "-q"]
        specs = [
            (f"doc-comet:k=0,model={da}", True),
            (f"doc-comet:k=2,model={da}", True),
            (f"doc-comet:k=2,hyp-context=mt,model={da}", True),
            (f"doc-comet-qe:k=0,model={qe}", False),
            (f"doc-comet-qe:k=2,model={qe}", False),
        ]
        import json

        for spec, ref in specs:
            cmd = ["docmetrics", "-m", spec, *common] + (["-r", f"{tmp}/ref.txt"] if ref else [])
            med, best, out = timed(cmd, a.repeat, env)
            results = json.loads(out)
            cov = results[0]["coverage"]
            extra = {k: v for k, v in cov.items() if k not in (
                "segments_total", "segments_scored", "ratio", "units", "documents_total",
                "documents_scored")}
            total = {k: sum(r["coverage"].get(k, 0) for r in results) for k in extra}
            short = spec.split(",model=")[0]
            print(f"{short:<34} median {med:6.2f} s, best {best:6.2f} s (end to end); "
                  f"first system {extra}; all systems {total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
