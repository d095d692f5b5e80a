"""Benchmark: `docmetrics --list`, and SLIDE(6,6) on ../shared/data/wmt21_ted_ende (all systems) with a
tiny random CometKiwi (the numbers mean nothing; the work is the real pipeline: windows, dedup,
batching, scoring, signature).

    python tests/benchmarks/bench_slide.py [--data ../shared/data/wmt21_ted_ende] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def timed(cmd: list[str], repeat: int) -> tuple[float, float, str]:
    times, out = [], ""
    for _ in range(repeat):
        t = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr}")
        out = proc.stdout + proc.stderr
    return statistics.median(times), min(times), out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(HERE.parents[2] / "shared" / "data" / "wmt21_ted_ende"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--spec", default="slide:w=6,s=6")
    a = ap.parse_args()
    if not Path(a.data, "segments.tsv").exists():
        print(f"no data at {a.data}; pass --data", file=sys.stderr)
        return 2
    import wmt_data
    from docmetrics_backbones.comet.testing import build_tiny_comet

    med, best, _ = timed(["docmetrics", "--list"], a.repeat)
    print(f"docmetrics --list: median {med:.3f} s, best {best:.3f} s over {a.repeat} runs")
    med, best, _ = timed([sys.executable, "-c", "import docmetrics.cli.main"], a.repeat)
    print(f"python -c 'import docmetrics.cli.main': median {med:.3f} s")

    with tempfile.TemporaryDirectory() as tmp:
        data = wmt_data.write(a.data, tmp)
        model = build_tiny_comet(Path(tmp) / "tiny-kiwi", kind="unified", seed=0)
        systems = sorted(str(p) for p in Path(tmp, "sys").glob("*.txt"))
        cmd = ["docmetrics", "-m", f"{a.spec},model={model}", "-i", *systems, "-s", f"{tmp}/src.txt",
               "--doc-ids", f"{tmp}/docids.txt", "--device", "cpu", "-q"]
        med, best, out = timed(cmd, max(1, a.repeat // 2))
        print(f"{a.spec} on {Path(a.data).name}: {len(systems)} systems x {len(data['src'])} segments, "
              f"tiny CometKiwi, CPU: median {med:.2f} s, best {best:.2f} s (end to end, incl. start-up)")
        print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
