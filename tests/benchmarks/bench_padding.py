"""Padding before and after issue 50, in one interleaved run: tokens run per token needed on every arm of
bench_gpu.py's smoke run (tiny models, the committed sample, the CPU), docmetrics scoring each arm with the
earlier batching rule (``before``: a batch also closed at more than a quarter padding, once it held a quarter of the
budget; the function as it was, copied below) and with the current one (``after``: at most 10% padding over a
call), alternately, ``--repeats`` rounds.  Token counts are exact (a forward hook on the encoder); seconds are
the median of the rounds, on whatever else the machine runs.

    python tests/benchmarks/bench_padding.py [--out DIR] [--repeats 3] [--arms slide66,...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_gpu  # noqa: E402


def token_batches_before(lengths: Sequence[int], *, max_tokens: int | None = None, max_size: int | None = None,
                         max_padding: float | None = 0.25) -> list[list[int]]:
    """docmetrics.algorithms.batching.token_batches before issue 50 (commit a6d597f), unchanged."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    width = 0
    real = 0
    for i in order:
        n = max(int(lengths[i]), 1)
        full = (max_size is not None and len(current) >= max_size) or (
            max_tokens is not None and current and (len(current) + 1) * width > max_tokens)
        if not full and current and max_tokens is not None and max_padding is not None:
            padded = (len(current) + 1) * width
            full = 4 * len(current) * width >= max_tokens and padded - real - n > max_padding * padded
        if full:
            batches.append(current)
            current = []
        if not current:
            width = n
            real = 0
        current.append(i)
        real += n
    if current:
        batches.append(current)
    return batches


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", help="write bench_padding.json and bench_padding.md here")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--arms", default=",".join(bench_gpu.ARM_KEYS))
    args = p.parse_args(argv)

    import docmetrics
    from docmetrics.algorithms import batching

    rules = {"before": token_batches_before, "after": batching.token_batches}
    bench = bench_gpu.Bench(bench_gpu.SMOKE, bench_gpu.read_sample(), "cpu", 3600.0,
                            Path(tempfile.mkdtemp(prefix="bench-padding-")))
    keys = tuple(args.arms.split(","))
    bench.build(keys)
    rows = []
    t0 = time.perf_counter()
    for arm in (a for a in bench_gpu.ARMS if a.key in keys):
        session = docmetrics.Session(cache=None, device="cpu", precision="fp32", quiet=True)
        try:
            built = bench.impls(arm, "fp32", session, peers=False)
            if arm.model == "llm":  # what the judge must see comes from the one-at-a-time loop
                built.impls["peer"].run()
            need = built.need().tokens
            run = built.impls["docmetrics"].run
            tokens: dict[str, int] = {}
            times: dict[str, list[float]] = {r: [] for r in rules}
            scores: dict[str, dict[str, list[float]]] = {}
            for r in range(args.repeats + 1):  # round 0: warm-up, and the count
                for rule in (list(rules) if r % 2 == 0 else list(rules)[::-1]):
                    batching.token_batches = rules[rule]  # Backbone.batches imports it when it runs
                    try:
                        with bench_gpu.TokenCounter() as counter:
                            t = time.perf_counter()
                            scores[rule] = run()
                            seconds = time.perf_counter() - t
                    finally:
                        batching.token_batches = rules["after"]
                    if r == 0:
                        tokens[rule] = counter.tokens()
                    else:
                        times[rule].append(seconds)
            diff = bench_gpu.max_diff(scores["before"], scores["after"])
            for rule in rules:
                rows.append({"arm": arm.name, "key": arm.key, "rule": rule, "tokens_needed": need,
                             "tokens_run": tokens[rule], "padded": round(tokens[rule] / need, 4),
                             "median_s": round(statistics.median(times[rule]), 4),
                             "seconds": [round(x, 4) for x in times[rule]],
                             "max_diff_before_after": diff})
        finally:
            session.close()
    lines = ["| arm | tokens needed | before: run | before: padded | after: run | after: padded | before s | after s "
             "| max score diff |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for before, after in zip(rows[::2], rows[1::2]):
        lines.append(f"| {before['arm']} | {before['tokens_needed']:,} | {before['tokens_run']:,} | {before['padded']:.3f} "
                     f"| {after['tokens_run']:,} | {after['padded']:.3f} | {before['median_s']:.3f} | "
                     f"{after['median_s']:.3f} | {before['max_diff_before_after']:.1e} |")
    table = "\n".join(lines) + f"\n\nmedian of {args.repeats} interleaved rounds; {time.perf_counter() - t0:.1f} s\n"
    print(table)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "bench_padding.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
        (Path(args.out) / "bench_padding.md").write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
