"""Benchmark: how long `docmetrics -m doc-comet:model=DIR` takes to refuse each hostile checkpoint of
tests/test_hostile_checkpoints.py (issue 27: each must finish in under 2 s), the CLI end to end in a
fresh process (start-up included), beside `docmetrics -m bleu` on the same input for the start-up alone:

    python tests/benchmarks/bench_hostile_checkpoints.py [--runs 3] [--dir DIR]

Damaged checkpoints (issue 37) are timed too.  Prints one line per checkpoint: exit status, median / min / max wall time, and whether anything in the
file ran (its marker file exists).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_hostile_checkpoints import DAMAGED_ROWS, ROWS, _model_dir  # noqa: E402


def timed(argv: list[str], runs: int) -> tuple[int, list[float]]:
    times, code = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        code = subprocess.run(argv, capture_output=True).returncode
        times.append(time.perf_counter() - start)
    return code, times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", type=Path, default=None, help="where to write the checkpoints (default: a temporary one)")
    args = ap.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="hostile-"))
    root.mkdir(parents=True, exist_ok=True)
    for name, text in (("hyp.txt", "Hallo Welt.\nGut.\n"), ("src.txt", "Hello world.\nGood.\n"), ("ids.txt", "d1\nd1\n")):
        (root / name).write_text(text, encoding="utf-8")
    files = ["-i", str(root / "hyp.txt"), "-r", str(root / "hyp.txt"), "--doc-ids", str(root / "ids.txt")]
    for row, build, yaml_text, *_ in [*ROWS, *DAMAGED_ROWS]:
        model = root / row
        if not model.exists():
            _model_dir(model, build(root / f"{row}.ran"), yaml_text)
        code, times = timed(["docmetrics", "-m", f"doc-comet:model={model}", "-s", str(root / "src.txt"), *files],
                            args.runs)
        print(f"{row:32s} exit {code}  median {statistics.median(times):.2f} s  (min {min(times):.2f}, max "
              f"{max(times):.2f})  ran: {'YES' if (root / f'{row}.ran').exists() else 'no'}")
    code, times = timed(["docmetrics", "-m", "bleu", *files], args.runs)
    print(f"{'(docmetrics -m bleu: start-up)':32s} exit {code}  median {statistics.median(times):.2f} s")


if __name__ == "__main__":
    main()
