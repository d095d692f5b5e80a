"""Every example of the README and the docs runs as pasted (issue 39): each ``docmetrics`` command of a shell fence
and each Python fence (tests/docs_examples.py collects them), page by page in the page's order, from a fresh folder
that has the repository's ``docmetrics/`` (its shipped data) beside the files the examples write (so a page may use
what an earlier example on it wrote, ``docmetrics sample sample --models`` for instance, and the repository stays
clean).  Commands run in this process (``docmetrics.cli.main``, globs expanded as a shell would; a line that needs a
shell, or ``python -c``, in bash), Python fences in this process too, in one namespace per page.

Conventions:

* An example marked to fail (fence ``expected-failure``, or a command ending ``# exits 2``) must exit 2 with one
  line saying ``error:`` on stderr, no traceback, and not on a missing file; a Python fence marked so must raise
  docmetrics' ``UserError`` with a one-line message.  Every other example must exit 0 (a Python fence: raise
  nothing).
* Shown output (the ``text`` fence right after a shell fence, or a console fence's lines after ``$``) is compared
  with what the command printed, stderr's lines then stdout's (or stdout's then stderr's), blank lines and
  trailing spaces ignored, as doctest's ELLIPSIS does: ``...`` inside a line stands for any text, a line that is
  only ``...`` for any number of lines.  The fence's info string ``approximate`` (``text approximate``) lets each
  number with a decimal point differ from the shown one by 2% or 2 units of its last shown decimal (tiny random
  models, timings); elsewhere the numbers must be the printed ones.

The page tests are ``slow`` (tests/conftest.py): they load COMET, mBART, MT5, a tiny LLM and MiniLM."""

from __future__ import annotations

import contextlib
import glob
import io
import os
import re
import shlex
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
from docs_examples import ROOT, Example, examples

EXAMPLES = examples()
COMMANDS = [e for e in EXAMPLES if e.kind == "command"]
PAGES = sorted({e.page for e in EXAMPLES})
SHELL = set("|<>;&$`")
#: the examples that may fail for want of what no test machine has (a GPU, a Ray cluster, an LLM server):
#: all the others run offline on the shipped data and the tiny models of ``docmetrics sample DIR --models``
NEEDS_WHAT_IS_NOT_HERE = 0.05


def workdir(tmp_path: Path) -> Path:
    """A folder where ``docmetrics/data/...`` resolves to the shipped data and written files land."""
    for name in ("docmetrics", "plugins", "signatures", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


@contextlib.contextmanager
def inside(cwd: Path):
    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            yield out, err
    finally:
        os.chdir(here)


def run_command(command: str, cwd: Path) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of a pasted docmetrics command run from ``cwd``."""
    words = shlex.split(command, comments=True)
    if words[0] != "docmetrics" or any(ch in SHELL for w in words for ch in w) or any(
            ch in command.split("#")[0] for ch in "|<>;`"):
        env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "plugins"), env.get("PYTHONPATH", "")])
        done = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
        return done.returncode, done.stdout, done.stderr
    argv = []
    for w in words[1:]:
        hits = sorted(glob.glob(w, root_dir=cwd)) if any(ch in w for ch in "*?[") else []
        argv += hits or [w]
    from docmetrics.cli import main

    with inside(cwd) as (out, err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return code, out.getvalue(), err.getvalue()


def run_python(example: Example, cwd: Path, namespace: dict) -> tuple[int, str, str]:
    """(0, stdout, stderr) of a Python fence run in ``namespace``; (2, ..., 'error: MESSAGE') where it raised
    docmetrics' UserError, (1, ..., the traceback) where it raised anything else."""
    from docmetrics.values.errors import UserError

    with inside(cwd) as (out, err):
        try:
            exec(compile(example.text, example.id, "exec"), namespace)  # noqa: S102 - the page's own example
            code = 0
        except UserError as exc:
            print(f"error: {exc}", file=sys.stderr)
            code = 2
        except BaseException:  # noqa: BLE001 - reported as the example's failure
            traceback.print_exc()
            code = 1
    return code, out.getvalue(), err.getvalue()


def failure_problem(example: Example, code: int, err: str) -> str | None:
    lines = [x for x in err.splitlines() if x.strip()]
    if code != 2:
        return f"exit {code}, expected 2\n{err[-2000:]}"
    if "Traceback" in err:
        return f"a traceback\n{err[-2000:]}"
    errors = [x for x in lines if "error: " in x]
    if len(errors) != 1:
        return f"not one clear error line\n{err[-2000:]}"
    if "no such file" in errors[0].lower():
        return f"fails on a missing file, not on what it needs\n{errors[0]}"
    return None


# -- shown output -------------------------------------------------------------------------------------------------
NUMBER = re.compile(r"-?\d+\.\d+")


def _line_matches(shown: str, printed: str, approximate: bool) -> bool:
    pattern, numbers = "", []
    for piece in re.split(r"(\.\.\.)", shown):
        if piece == "...":
            pattern += ".*"
            continue
        at = 0
        for m in NUMBER.finditer(piece) if approximate else ():
            pattern += re.escape(piece[at:m.start()]) + r"(-?\d+(?:\.\d+)?)"
            numbers.append(m.group())
            at = m.end()
        pattern += re.escape(piece[at:])
    found = re.fullmatch(pattern, printed)
    if not found:
        return False
    for want, got in zip(numbers, found.groups()):
        unit = 10.0 ** -len(want.split(".")[1])
        if abs(float(got) - float(want)) > max(0.02 * abs(float(want)), 2 * unit) + 1e-12:
            return False
    return True


def _lines_match(shown: list[str], printed: list[str], approximate: bool) -> bool:
    if not shown:
        return not printed
    if shown[0] == "...":
        return any(_lines_match(shown[1:], printed[k:], approximate) for k in range(len(printed) + 1))
    return bool(printed) and _line_matches(shown[0], printed[0], approximate) and _lines_match(
        shown[1:], printed[1:], approximate)


def output_problem(example: Example, out: str, err: str) -> str | None:
    shown = [x.rstrip() for x in (example.output or "").splitlines() if x.strip()]
    outs, errs = [[x.rstrip() for x in s.splitlines() if x.strip()] for s in (out, err)]
    approximate = "approximate" in example.output_info.split()
    if _lines_match(shown, errs + outs, approximate) or _lines_match(shown, outs + errs, approximate):
        return None
    return "prints another output than the page shows\nshown:\n" + "\n".join(shown) + "\nprinted:\n" + "\n".join(
        errs + outs)


@pytest.mark.parametrize("page", PAGES)
def test_a_page_runs_as_pasted(page, tmp_path, monkeypatch):
    """Each example of the page in its order, in one fresh folder and one Python namespace."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    work, namespace, problems = workdir(tmp_path), {"__name__": "__main__"}, []
    for example in [e for e in EXAMPLES if e.page == page]:
        if example.kind == "command":
            code, out, err = run_command(example.text, work)
        else:
            code, out, err = run_python(example, work, namespace)
        if example.fails:
            problem = failure_problem(example, code, err)
        elif code != 0:
            problem = f"exit {code}\n{err[-3000:]}"
        else:
            problem = None
        if problem is None and example.output is not None:
            problem = output_problem(example, out, err)
        if problem:
            problems.append(f"{example.id}: {example.text[:300]}\n{problem}")
    assert not problems, "\n\n".join(problems)


def test_the_examples_are_collected_and_nearly_all_must_succeed():
    """Every page's examples are collected; at most 5% are marked to fail for want of a GPU, a cluster or a
    server (the shown mistakes ending ``# exits 2`` apart), and no command carries optional-syntax brackets
    argparse would reject."""
    assert len(COMMANDS) >= 60 and len({e.page for e in EXAMPLES if e.kind == "python"}) >= 3
    wanting = [e for e in EXAMPLES if e.fails and not e.text.rstrip().endswith("# exits 2")]
    assert len(wanting) <= NEEDS_WHAT_IS_NOT_HERE * len(EXAMPLES), [e.id for e in wanting]
    assert not [e.id for e in COMMANDS if any(f"[{o}" in e.text for o in ("-", "--"))], "optional-syntax brackets"
    assert not [e.id for e in EXAMPLES if "/models/" in e.text.replace("sample/models/", "")], "a model not shipped"
