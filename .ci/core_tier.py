"""CI's core tier: the commands and the judging API a core install (``pip install -e .``, no extra) offers, run
on the shipped data (docmetrics/data); any traceback, nonzero exit or import of a model library fails it.

Run it with the Python of an environment where docmetrics is installed, from anywhere:

    python .ci/core_tier.py            # in a venv made with `pip install -e .` alone (.ci/run does this)
    python .ci/core_tier.py --as-core  # in a full environment: imports outside the core's dependencies fail

``--as-core`` refuses, in every process it starts, the import of any top-level package that docmetrics'
``install_requires`` (and their own requirements) do not bring, as if it were not installed: it catches in a full
environment what a core venv would catch.  Heavy model libraries (torch, transformers, comet, ...) must not even be
tried by ``--help`` and ``--list``: those two commands run with every attempt recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = "docmetrics/data"
TED = f"{DATA}/ted"
#: what --help and --list must never try to import (DESIGN: "docmetrics --help and --list never import torch")
MODEL_LIBRARIES = ("torch", "transformers", "comet", "bert_score", "sentence_transformers", "ray", "matplotlib")

#: run first in every process this script starts: a meta-path finder that records (and, with --as-core, refuses)
#: imports; the list of attempts is written to $CORE_TIER_LOG at exit
PRELUDE = r"""
import atexit, importlib.abc, json, os, sys
_allowed = os.environ.get("CORE_TIER_ALLOWED")
_allowed = set(json.loads(_allowed)) if _allowed else None
_watch = set(json.loads(os.environ["CORE_TIER_WATCH"]))
_tried = []
class _Guard(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in _watch and top not in _tried:
            _tried.append(top)
        if (_allowed is not None and top not in _allowed and top not in sys.stdlib_module_names
                and not top.startswith("_sysconfigdata")):
            raise ModuleNotFoundError(f"No module named {name!r} (not a core dependency)", name=name)
        return None
sys.meta_path.insert(0, _Guard())
if os.environ.get("CORE_TIER_LOG"):
    atexit.register(lambda: open(os.environ["CORE_TIER_LOG"], "w").write(json.dumps(_tried)))
"""


def core_packages() -> list[str]:
    """The top-level import names of the packages this repository installs and of every distribution its
    ``install_requires`` in setup.cfg bring (their own requirements included, extras left out)."""
    import configparser
    import re
    from importlib import metadata

    def key(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    def requirement(text: str) -> str | None:
        text, _, marker = text.partition(";")
        if "extra ==" in marker or (marker.strip() and not _marker_holds(marker.strip())):
            return None
        return re.match(r"\s*([A-Za-z0-9_.-]+)", text).group(1)

    by_dist: dict[str, list[str]] = {}
    for top, dists in metadata.packages_distributions().items():
        for d in dists:
            by_dist.setdefault(key(d), []).append(top)
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    todo = [r for line in cfg["options"]["install_requires"].splitlines()
            if line.strip() and not line.strip().startswith("#") and (r := requirement(line))]
    seen: set[str] = set()
    while todo:
        name = key(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            todo += [r for req in metadata.requires(name) or [] if (r := requirement(req))]
        except metadata.PackageNotFoundError:
            continue
    tops = {top for d in seen for top in by_dist.get(d, [])}
    # this repository's own packages (setup.py), and what a venv's site-packages hooks import
    tops |= {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    tops |= {p.name for p in (ROOT / "plugins").iterdir() if (p / "__init__.py").exists()}
    tops |= {"docmetrics_signatures", "_distutils_hack", "_virtualenv", "sitecustomize", "usercustomize"}
    return sorted(tops)


def _marker_holds(marker: str) -> bool:
    from packaging.markers import Marker

    return Marker(marker).evaluate({"extra": ""})


def commands(out: Path, as_core: bool = False) -> list[list[str]]:
    """Every core command, as ``docmetrics`` arguments (relative paths from the repository root)."""
    from docmetrics.judging import rules

    systems = sorted(str(p.relative_to(ROOT)) for p in (ROOT / TED / "sys").glob("*.txt"))
    ted = ["-i", *systems, "-r", f"{TED}/ref.txt", "--doc-ids", f"{TED}/docids.txt"]
    genmt = ["--genmt", f"{DATA}/genmt/ted-ende.jsonl", "-l", "en-de"]
    mtme = ["--mtme", f"{DATA}/mtme", "-t", "wmt21.tedtalks", "-l", "en-de"]
    wmt26 = ["--wmt26", f"{DATA}/wmt26/wmt26-genmt.jsonl", "--wmt26-systems", f"{DATA}/wmt26/systems", "-l", "en-de"]
    runs = [
        ["--help"],
        ["--list"],
        ["-m", "chrf", "bleu", *ted],
        ["-m", "chrf", "bleu", "d-chrf", *ted, "-f", "json", "-o", str(out / "scores.json")],
        ["-m", "chrf", *ted, "--paired-bs", "--paired-bs-n", "100"],
        ["-m", "chrf", "-i", systems[0], "-r", f"{TED}/ref.txt", "--doc-ids", f"{TED}/docids.txt", "--workers", "2"],
        ["-m", "chrf", "bleu", *ted, "-s", f"{TED}/src.txt", "--human", f"{TED}/human_seg.tsv", "--seg-level"],
        ["-m", "chrf", *ted, "--human", f"{TED}/mqm.tsv"],
        ["-m", "chrf", "bleu", *genmt, "--doc-level", "--error-free"],
        [*genmt, "--spans", f"{DATA}/genmt/predicted-spans.jsonl"],
        ["-m", "chrf", "bleu", *mtme],
        ["-m", "chrf", *wmt26, "--wmt26-ref", "refA"],
        ["metaeval", "-m", "chrf", *mtme],
        *(["rank", *genmt, "--rule", rule] for rule in rules.names()),
        *(["rank", "--human", f"{TED}/human_seg.tsv", "--rule", rule] for rule in rules.names()),
        ["rank", "-m", "chrf", *genmt, "--scores", f"{DATA}/genmt/scores.tsv"],
        ["rank", "-m", "chrf", "bleu", *ted, "-l", "en-de", "--paired-bs"],
        ["rank", "--scores", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / DATA / "wmt25/automatic_scores")
                                     .glob("*.jsonl")), "-l", "en-de_DE"],
        ["report", str(out / "scores.json"), "-o", str(out / "scores.html")],
        ["sample", str(out / "sample"), "-q"],
    ]
    if not as_core:  # which backbones offer models is read from installed metadata, which --as-core cannot hide
        runs.append(["sample", str(out / "sample-models"), "--models", "-q"])
    return runs


#: the judging API on the shipped data, as docs/judging-python.md calls it
API = r"""
import docmetrics
from docmetrics.judging import rules

data = docmetrics.read_human("docmetrics/data/genmt/ted-ende.jsonl", lp="en-de")
chrf = docmetrics.load("chrf").compute(data.testset)
bleu = docmetrics.load("bleu").compute(data.testset)
judged = docmetrics.meta_evaluate({"chrf": chrf, "bleu": bleu}, data, significance=50)
assert judged.metrics, judged
for rule in rules.names():
    ranking = docmetrics.human_clusters(data, rule=rule)
    assert ranking.clusters(), rule
ranked = docmetrics.autorank({"chrf": chrf, "bleu": bleu}, lp=data.lp)
assert len(ranked.systems) == len(chrf)
paired = docmetrics.compare_systems(chrf)
assert paired.rows
spans = docmetrics.span_f1("docmetrics/data/genmt/predicted-spans.jsonl", data)
assert spans.systems
for path in ("docmetrics/data/ted/mqm.tsv", "docmetrics/data/ted/human_seg.tsv"):
    assert docmetrics.read_human(path).human is not None, path
mtme = docmetrics.read_human("docmetrics/data/mtme", testset="wmt21.tedtalks", lp="en-de")
assert docmetrics.human_clusters(mtme).clusters()
assert docmetrics.write_report(OUT + "/judging.html", judged, results={"chrf": chrf, "bleu": bleu},
                               testset=data.testset) > 0
print("judging API: read_human, meta_evaluate, human_clusters (" + ", ".join(rules.names()) + "), autorank, "
      "compare_systems, span_f1, write_report")
"""


def run(argv: list[str], env: dict[str, str], log: Path, *, code: str | None = None) -> list[str]:
    """Runs one docmetrics command (or the ``code``) in a fresh process; returns what went wrong (empty: nothing)."""
    body = code if code is not None else "from docmetrics.cli import main\nraise SystemExit(main())"
    proc = subprocess.run([sys.executable, "-c", PRELUDE + body, *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    problems = []
    if proc.returncode != 0:
        problems.append(f"exit status {proc.returncode}")
    if "Traceback (most recent call last)" in proc.stderr or "Traceback (most recent call last)" in proc.stdout:
        problems.append("a traceback")
    if argv[:1] in (["--help"], ["--list"]):
        tried = json.loads(log.read_text()) if log.exists() else []
        if tried:
            problems.append(f"tried to import {', '.join(tried)}")
    if problems:
        problems.append("stderr:\n" + proc.stderr[-4000:])
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--as-core", action="store_true",
                        help="refuse every import outside the core's dependencies (in a full environment)")
    args = parser.parse_args()
    if args.as_core and not hasattr(sys, "stdlib_module_names"):
        parser.error("--as-core needs Python 3.10 or later (sys.stdlib_module_names)")
    start = time.monotonic()
    failed = 0
    with tempfile.TemporaryDirectory(prefix="core-tier-") as tmp:
        out = Path(tmp)
        log = out / "imports.json"
        env = dict(os.environ, CORE_TIER_WATCH=json.dumps(MODEL_LIBRARIES), CORE_TIER_LOG=str(log),
                   HF_HUB_OFFLINE="1", DOCMETRICS_CACHE=str(out / "cache"), PYTHONUNBUFFERED="1")
        env.pop("DOCMETRICS_DEBUG", None)
        if args.as_core:
            env["CORE_TIER_ALLOWED"] = json.dumps(core_packages())
        runs = [(argv, None) for argv in commands(out, args.as_core)] + [([], f"OUT = {str(out)!r}\n" + API)]
        for argv, code in runs:
            log.unlink(missing_ok=True)
            label = "python: the judging API" if code else "docmetrics " + " ".join(argv)
            problems = run(argv, env, log, code=code)
            print(("FAIL " if problems else "ok   ") + label, flush=True)
            if problems:
                failed += 1
                print("     " + "\n     ".join("\n".join(problems).splitlines()), flush=True)
    print(f"core tier: {len(runs) - failed}/{len(runs)} passed in {time.monotonic() - start:.0f} s"
          + (" (imports outside the core refused)" if args.as_core else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
