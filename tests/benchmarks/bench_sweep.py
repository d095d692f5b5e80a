"""Benchmark: a SLIDE (w, s) sweep with and without the score cache, and an interrupted run resumed.

    python tests/benchmarks/bench_sweep.py [--data ../shared/data/wmt21_ted_ende] [--per-doc 24]
        [--grid w=1..4 s=1..w] [--model DIR] [--out DIR] [--kill-after 0.4]

On the first --per-doc sentences of every document of an MQM data set (all MT systems, human
references left out), with a tiny random CometKiwi (built here unless --model is given; the numbers
mean nothing, the pipeline is the real one), it runs ``docmetrics sweep`` four times and prints:

1. ``--no-cache``: every grid point scores all its units;
2. a fresh cache: a unit shared by several points (SLIDE(2,2)'s chunks are SLIDE(2,1)'s) is scored once;
3. the same command again: everything comes from the cache;
4. a fresh cache, the process killed (SIGKILL) after --kill-after of run 2's time, then run again:
   what was committed before the kill comes from the cache, and the results equal run 2's.

and, for each, the wall time, the units the backbone scored and the share answered by the cache, the
largest score difference from run 2, and the pairwise accuracy table of the last run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def sweep_cmd(data: Path, model: str, grid: list[str], extra: list[str]) -> list[str]:
    systems = sorted(str(p) for p in (data / "sys").glob("*.txt"))
    return [
        sys.executable,
        "-m",
        "docmetrics",
        "sweep",
        "-m",
        f"slide:model={model}",
        "--grid",
        *grid,
        "-i",
        *systems,
        "-s",
        str(data / "src.txt"),
        "--doc-ids",
        str(data / "docids.txt"),
        "--human",
        str(data / "human_seg.tsv"),
        "--no-human-systems",
        "-q",
        "-f",
        "json",
        *extra,
    ]


def cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds, the sweep's JSON report)."""
    t, c = time.perf_counter(), cpu_children()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    took, cpu = time.perf_counter() - t, cpu_children() - c
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    return took, cpu, json.loads(proc.stdout)


def scored_units(report: dict) -> tuple[int, int, int]:
    """(units scored by the backbone, distinct units looked up, of those from the cache); without a
    cache: chunks x systems summed over the points (before the per-point deduplication)."""
    if report["cache"] is None:
        done = [p for p in report["points"] if "coverage" in p]
        return sum(p["coverage"]["units"] * len(p["scores"]) for p in done), 0, 0
    c = report["cache"]
    return c["scored"], c["looked_up"], c["hits"]


def same_printed(a: dict, b: dict, width: int = 4) -> bool:
    """Scores equal at the printed precision and meta-evaluations equal."""
    for p, q in zip(a["points"], b["points"]):
        if {k: f"{v:.{width}f}" for k, v in p.get("scores", {}).items()} != {
            k: f"{v:.{width}f}" for k, v in q.get("scores", {}).items()
        }:
            return False
        if p.get("metaeval", {}).get("accuracy") != q.get("metaeval", {}).get("accuracy"):
            return False
    return True


def max_diff(a: dict, b: dict) -> float:
    out = 0.0
    for p, q in zip(a["points"], b["points"]):
        for k in p.get("scores", {}):
            out = max(out, abs(p["scores"][k] - q["scores"][k]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(HERE.parents[2] / "shared" / "data" / "wmt21_ted_ende"))
    ap.add_argument("--per-doc", type=int, default=24)
    ap.add_argument("--grid", nargs="+", default=["w=1..4", "s=1..w"])
    ap.add_argument("--model", help="a COMET checkpoint directory (default: a tiny random CometKiwi)")
    ap.add_argument("--out", help="work directory (default: a temporary one)")
    ap.add_argument("--kill-after", type=float, default=0.4, help="fraction of the cold run's time")
    a = ap.parse_args(argv)
    if not Path(a.data, "segments.tsv").exists():
        print(f"{a.data}: no segments.tsv (the MQM data in ../shared/data is not part of the project)")
        return 2
    work = Path(a.out or tempfile.mkdtemp(prefix="bench_sweep_"))
    work.mkdir(parents=True, exist_ok=True)
    from mqm_subset import write

    info = write(a.data, work / "data", a.per_doc)
    model = a.model
    if model is None:
        from docmetrics_backbones.comet.testing import build_tiny_comet

        model = str(build_tiny_comet(work / "tiny-kiwi", kind="unified", seed=0))
    env = dict(os.environ, DOCMETRICS_CACHE=str(work / "dmcache"))
    data = work / "data"
    print(
        f"data: {info['segments']} segments ({a.per_doc} per document), {len(info['systems'])} systems; "
        f"grid {' '.join(a.grid)}; model {model}"
    )
    rows = []
    t0, c0, nocache = run(sweep_cmd(data, model, a.grid, ["--no-cache"]), env)
    rows.append(("1 no cache", t0, c0, nocache))
    cold_db = work / "cold.sqlite"
    t1, c1, cold = run(sweep_cmd(data, model, a.grid, ["--cache", str(cold_db)]), env)
    rows.append(("2 fresh cache", t1, c1, cold))
    t2, c2, warm = run(sweep_cmd(data, model, a.grid, ["--cache", str(cold_db)]), env)
    rows.append(("3 same again", t2, c2, warm))
    killed_db = work / "killed.sqlite"
    cmd = sweep_cmd(data, model, a.grid, ["--cache", str(killed_db), "--cache-chunk", "64"])
    c = cpu_children()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    time.sleep(a.kill_after * t1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_cpu = cpu_children() - c
    t3, c3, resumed = run(cmd, env)
    for name, rep in (("nocache", nocache), ("cold", cold), ("warm", warm), ("resumed", resumed)):
        (work / f"{name}.json").write_text(json.dumps(rep, indent=1), encoding="utf-8")
    rows.append((f"4 killed at {a.kill_after:.0%}, rerun", t3, c3, resumed))

    print(
        f"\n{'run':<26} {'wall s':>8} {'cpu s':>8} {'scored':>8} {'looked up':>10} {'from cache':>11} "
        f"{'max |diff| vs 2':>16} {'same at -w 4':>13}"
    )
    for name, t, cpu, rep in rows:
        scored, looked, hits = scored_units(rep)
        share = f"{100 * hits / looked:.1f}%" if looked else "-"
        print(
            f"{name:<26} {t:>8.1f} {cpu:>8.1f} {scored:>8} {looked or '-':>10} {share:>11} "
            f"{max_diff(rep, cold):>16.3g} {'yes' if same_printed(rep, cold) else 'NO':>13}"
        )
    print(
        "\n(run 1 'scored': chunks x systems over all points, before deduplication; differences of ~1e-8\n"
        " are fp32 noise: a unit is batched with other neighbours once some units come from the cache;\n"
        f" the killed run used {killed_cpu:.1f} cpu s before the kill; wall times depend on the load)"
    )
    print(
        f"\nw  s  accuracy  pairs   (pairwise accuracy vs MQM, {len(info['systems'])} MT systems; "
        "random weights)"
    )
    for p in resumed["points"]:
        if "metaeval" in p:
            m = p["metaeval"]
            print(
                f"{p['params'].get('w', ''):<2} {p['params'].get('s', ''):<2} {m['accuracy']:.4f}    "
                f"{m['agreeing_pairs']}/{m['pairs']}"
            )
    print(f"\nwork directory: {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
