"""The wheel holds every file the packages read at run time, not only their modules.

The llm backbone's shipped prompts (plugins/docmetrics_backbones/llm/prompts/*.txt) were missing from the wheel:
from a wheel, `prompt=gemba-esa` failed with "not a shipped prompt ()" (found when bench_gpu.py ran docmetrics
installed from its wheel on a GPU machine).  Here the wheel is built from a copy of the tracked files, as
gpu_wheels.sh builds it, and every tracked non-Python file inside a package must be in it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Where each installed top-level package comes from in the source tree (setup.py's layout).
SOURCES = {"docmetrics": ROOT / "docmetrics", "docmetrics_signatures": ROOT / "signatures",
           **{p.name: p for p in (ROOT / "plugins").iterdir() if (p / "__init__.py").exists()}}


def _tracked() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    pytest.importorskip("setuptools")
    src = tmp_path_factory.mktemp("src")
    for rel in _tracked():
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                           "--no-index", "-w", str(out), str(src)], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.skip(f"pip wheel failed here: {proc.stderr[-300:]}")
    (built,) = out.glob("docmetrics-*.whl")
    with zipfile.ZipFile(built) as z:
        return set(z.namelist())


def test_every_data_file_of_a_package_is_in_the_wheel(wheel):
    expected = set()
    for rel in _tracked():
        path = ROOT / rel
        if path.suffix == ".py" or not path.is_file():
            continue
        for name, folder in SOURCES.items():
            if folder in path.parents:
                expected.add(f"{name}/{path.relative_to(folder).as_posix()}")
    assert expected, "no data files found: the layout changed"
    assert "docmetrics_backbones/llm/prompts/gemba-esa.txt" in expected
    assert sorted(expected - wheel) == []
