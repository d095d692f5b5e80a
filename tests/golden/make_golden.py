"""The golden outputs of docmetrics 0.3.0: four runs whose JSON must not change while the runtime is
rebuilt underneath (the README quickstart, a SLIDE run, an ASD run and an --mtme run).

``python tests/golden/make_golden.py`` writes them next to this file (run it with the version whose
outputs are the reference); tests/test_golden.py runs the same commands and compares.  Everything
the runs read is built here: a tiny CometKiwi-shaped model (seed 0) and a tiny MTME directory.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
QUICK = ROOT / "docmetrics" / "data" / "quickstart"


def commands(kiwi: Path, mtme: Path) -> dict[str, list[str]]:
    """name -> docmetrics arguments."""
    q = {n: str(QUICK / f"{n}.txt") for n in ("src", "ref", "sysA", "sysB", "docids")}
    systems = ["-i", q["sysA"], q["sysB"]]
    return {
        "quickstart": ["-m", "doc-bertscore:model=minilm", "doc-bertscore:model=minilm,k=0", *systems,
                       "-r", q["ref"], "--doc-ids", q["docids"], "-f", "json"],
        "slide": ["-m", f"slide:w=2,s=1,model={kiwi}", f"slide:w=1,s=1,model={kiwi}", *systems,
                  "-s", q["src"], "--doc-ids", q["docids"], "-f", "json", "--level", "chunk"],
        "asd": ["-m", f"asd:model={kiwi},aligner_model={kiwi},lang=de-en", *systems,
                "-s", q["src"], "--doc-ids", q["docids"], "-f", "json", "--level", "chunk"],
        "mtme": ["-m", f"slide:w=1,s=1,model={kiwi}", f"slide:w=2,s=1,model={kiwi}", "--mtme", str(mtme),
                 "-t", "toy", "-l", "en-de", "--ref", "refA", "--resamples", "50", "--seed", "7", "-f", "json"],
    }


def build_inputs(root: Path) -> tuple[Path, Path]:
    """(tiny CometKiwi directory, MTME root) under ``root``."""
    sys.path.insert(0, str(ROOT / "tests"))
    from docmetrics_backbones.comet.testing import build_tiny_comet
    from test_mtme import build_tiny

    kiwi = build_tiny_comet(root / "kiwi", kind="unified", seed=0)
    build_tiny(root / "mtme")
    return Path(kiwi), root / "mtme"


def normalise(text: str, root: Path) -> object:
    """The JSON with the temporary directory replaced by ``<ROOT>``."""
    return json.loads(text.replace(str(root), "<ROOT>"))


#: ``docmetrics ARGS`` -> (exit status, stdout, stderr)
Runner = Callable[[list[str]], "tuple[int | str | None, str, str]"]


def run(args: list[str], env: dict[str, str] | None = None) -> tuple[int | str | None, str, str]:
    """``python -m docmetrics ARGS`` in a fresh process, offline, without a score cache."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **(env or {})}
    env.pop("DOCMETRICS_SCORE_CACHE", None)
    proc = subprocess.run([sys.executable, "-m", "docmetrics", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


#: Where the inputs are built: always the same path, because a COMET checkpoint records the absolute
#: path of its encoder, so the model's fingerprint depends on where it was built.
FIXED_ROOT = Path(tempfile.gettempdir()) / "docmetrics-golden-inputs"


@contextlib.contextmanager
def only_one_at_a_time(root: Path) -> Iterator[None]:
    """Hold ``root``'s lock file: two test runs at once (pytest-xdist workers, two checkouts) would delete
    each other's inputs."""
    with open(f"{root}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def outputs(root: Path = FIXED_ROOT, names: list[str] | None = None, runner: Runner = run) -> dict[str, object]:
    with only_one_at_a_time(root):
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        kiwi, mtme = build_inputs(root)
        out = {}
        for name, args in commands(kiwi, mtme).items():
            if names is not None and name not in names:
                continue
            code, stdout, stderr = runner(args)
            if code != 0:
                raise RuntimeError(f"{name}: exit {code}: {stderr}")
            out[name] = normalise(stdout, root)
        return out


if __name__ == "__main__":
    for name, data in outputs().items():
        (HERE / f"{name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                                           encoding="utf-8")
        print("wrote", name)
