"""Benchmark: peak memory (max RSS) against test-set size, for Doc-BERTScore and SLIDE.

    python tests/benchmarks/bench_memory.py [--data ../shared/data/wmt21_ted_ende]
        [--runs bertscore-minilm:2000,bertscore-minilm:16000,slide:2000,slide:16000,slide:200000,bertscore-tiny:200000]
        [--code DIR]   # another checkout to compare with (its modules go first on PYTHONPATH)

A test set of N segments is the source, reference-A and one system of the data set, repeated with
every copy's documents renamed and every sentence marked with its copy number (so nothing is
deduplicated away).  Every run is a fresh ``docmetrics`` process (one system, ``--device cpu``):

* ``bertscore-minilm``: ``doc-bertscore:model=minilm,k=2`` (real all-MiniLM-L6-v2, width 384);
* ``bertscore-tiny``: ``doc-bertscore:k=2`` on a tiny random XLM-R (width 32), to reach 200,000
  segments in minutes;
* ``slide``: ``slide:w=2,s=1`` on a tiny random CometKiwi.

Prints, per run, the peak RSS (``ru_maxrss`` of the process), the time and the system score.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

RUNNER = (
    "import resource, sys\n"
    "from docmetrics.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print('MAXRSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "raise SystemExit(code)\n"
)


def make_set(data: dict, n: int, out: Path) -> None:
    hyp = next(iter(data["systems"].values()))  # the first system
    src, ref, ids = data["src"], data["ref"], data["doc_ids"]
    lines: dict[str, list[str]] = {"hyp": [], "src": [], "ref": [], "ids": []}
    copy = 0
    while len(lines["ids"]) < n:
        for k in range(len(src)):
            if len(lines["ids"]) >= n:
                break
            mark = f" [{copy}]"
            lines["hyp"].append(hyp[k] + mark)
            lines["src"].append(src[k] + mark)
            lines["ref"].append(ref[k] + mark)
            lines["ids"].append(f"{ids[k]}#{copy}")
        copy += 1
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in lines.items():
        (out / f"{name}.txt").write_text("".join(r.replace("\n", " ") + "\n" for r in rows), encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(HERE.parents[2] / "shared" / "data" / "wmt21_ted_ende"))
    ap.add_argument("--runs", default="bertscore-minilm:2000,bertscore-minilm:16000,slide:2000,slide:16000,"
                    "slide:200000,bertscore-tiny:200000")
    ap.add_argument("--code", help="another checkout to run instead of the installed docmetrics")
    a = ap.parse_args()
    if not Path(a.data, "segments.tsv").exists():
        print(f"no data at {a.data}; pass --data", file=sys.stderr)
        return 2
    import wmt_data

    data = wmt_data.load(a.data)
    data["ref"] = data.get("ref") or data["src"]
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    if a.code:
        env["PYTHONPATH"] = os.pathsep.join([a.code, str(Path(a.code, "plugins"))])
    with tempfile.TemporaryDirectory() as tmp:
        from docmetrics_backbones.comet.testing import build_tiny_comet, build_tiny_xlmr

        kiwi = build_tiny_comet(Path(tmp, "kiwi"), kind="unified")
        tiny = build_tiny_xlmr(Path(tmp, "tiny-xlmr"), seed=5)
        specs = {
            "bertscore-minilm": ("doc-bertscore:model=minilm,k=2", "-r"),
            "bertscore-tiny": (f"doc-bertscore:model={tiny},layer=1,k=2", "-r"),
            "slide": (f"slide:w=2,s=1,model={kiwi}", "-s"),
        }
        print(f"{'run':24s} {'segments':>9s} {'peak RSS':>10s} {'time':>8s}  score   ({a.code or 'installed'})")
        for run in a.runs.split(","):
            kind, n = run.split(":")
            d = Path(tmp, f"set{n}")
            if not d.exists():
                make_set(data, int(n), d)
            spec, side = specs[kind]
            cmd = [sys.executable, "-c", RUNNER, "-m", spec, "-i", str(d / "hyp.txt"), side,
                   str(d / ("ref.txt" if side == "-r" else "src.txt")), "--doc-ids", str(d / "ids.txt"),
                   "--device", "cpu", "-q", "-w", "6"]
            t = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
            seconds = time.perf_counter() - t
            rss = [line.split()[1] for line in proc.stderr.splitlines() if line.startswith("MAXRSS_KB")]
            if proc.returncode or not rss:
                print(f"{run}: failed\n{proc.stderr[-2000:]}", file=sys.stderr)
                continue
            score = proc.stdout.strip().splitlines()[0] if proc.stdout.strip() else ""
            print(f"{kind:24s} {int(n):9d} {int(rss[0]) / 1024:8.0f} MiB {seconds:7.1f} s  {score}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
