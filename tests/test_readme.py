"""The plugin-writing examples of docs/plugins.md (the README's until issue 39) work as printed."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_fixtures import write_distribution

README = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"


def _block_after(heading: str, lang: str) -> str:
    text = README.read_text(encoding="utf-8")
    part = text[text.index(heading):]
    return re.search(rf"```{lang}\n(.*?)```", part, re.S).group(1)


def _entry_point(heading: str) -> tuple[str, str]:
    """(group, "name = module:Class") of the pyproject.toml block after ``heading``."""
    toml = _block_after(heading, "toml")
    group, name, target = re.search(r'\[project\.entry-points\."([\w.]+)"\]\n(\S+) = "(.+)"', toml).groups()
    return group, f"{name} = {target}"


def test_third_party_backbone_example(tmp_path):
    code = _block_after("## Writing a backbone", "python")
    group, line = _entry_point("## Writing a backbone")
    root = write_distribution(tmp_path / "site", "my-backbone", "1.0", {"my_backbone/__init__.py": code},
                              f"[{group}]\n{line}\n")
    src = tmp_path / "src.txt"
    hyp = tmp_path / "hyp.txt"
    ids = tmp_path / "ids.txt"
    src.write_text("".join(f"source sentence {i}\n" for i in range(6)), encoding="utf-8")
    hyp.write_text("".join(f"Satz {'x' * i}\n" for i in range(6)), encoding="utf-8")
    ids.write_text("a\na\na\na\nb\nb\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(root))
    cmd = [sys.executable, "-m", "docmetrics", "-m", "slide:w=4,s=2,backbone=length-ratio,power=2",
           "-i", str(hyp), "-s", str(src), "--doc-ids", str(ids), "-w", "8"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("slide|w:4|s:2|partial:drop|backbone:length-ratio|model:length-ratio-v1|")
    assert "|power:2|" in proc.stdout
    s, h = src.read_text().splitlines(), hyp.read_text().splitlines()
    a, b = " ".join(s[0:4]), " ".join(h[0:4])  # doc a: one window [0,4); doc b too short
    expected = (min(len(a), len(b)) / max(len(a), len(b))) ** 2
    assert float(proc.stdout.split(" = ")[1].split()[0]) == pytest.approx(expected, abs=1e-7)
    listing = subprocess.run([sys.executable, "-m", "docmetrics", "--list"], capture_output=True, text=True, env=env)
    assert "length-ratio" in listing.stdout


def test_the_backbone_recipe_installs_with_pip_as_written(tmp_path):
    """The README's two files, laid out as it says, are a project pip installs (no network: the
    installed setuptools builds it)."""
    from importlib.metadata import version

    from packaging.version import Version

    if Version(version("setuptools")) < Version("61"):
        pytest.skip("pyproject.toml [project] needs setuptools >= 61")
    project = tmp_path / "my-backbone"
    (project / "my_backbone").mkdir(parents=True)
    (project / "my_backbone" / "__init__.py").write_text(_block_after("## Writing a backbone", "python"))
    (project / "pyproject.toml").write_text(_block_after("## Writing a backbone", "toml"))
    site = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
           "--target", str(site), str(project)]
    proc = subprocess.run(pip, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    env = dict(os.environ, PYTHONPATH=str(site))
    listing = subprocess.run([sys.executable, "-m", "docmetrics", "--list"], capture_output=True, text=True, env=env)
    assert re.search(r"length-ratio\s+my-backbone 1\.0", listing.stdout), listing.stdout


def test_third_party_metric_example_with_paired_tests(tmp_path):
    backbone = _block_after("## Writing a backbone", "python")
    code = _block_after("## Writing a metric", "python")
    assert len([x for x in code.splitlines() if x.strip() and not x.startswith("#")]) < 40
    bb_line = _entry_point("## Writing a backbone")[1]
    m_line = _entry_point("## Writing a metric")[1]
    site = tmp_path / "site"
    write_distribution(site, "my-backbone", "1.0", {"my_backbone/__init__.py": backbone},
                       f"[docmetrics.backbones]\n{bb_line}\n")
    root = write_distribution(site, "my-metric", "1.0", {"my_metric/__init__.py": code},
                              f"[docmetrics.metrics]\n{m_line}\n")
    src = [f"source sentence number {i} of the test" for i in range(9)]
    a = [f"Satz {'x' * (3 * i)}" for i in range(9)]
    b = [f"ein ganz anderer Satz {'y' * i}" for i in range(9)]
    ids = ["d1"] * 4 + ["d2"] * 3 + ["d3"] * 2
    files = {}
    for name, lines in {"src": src, "A": a, "B": b, "A-copy": a, "ids": ids}.items():
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(root))
    cmd = [sys.executable, "-m", "docmetrics", "-m", "whole-doc:backbone=length-ratio", "-i",
           str(files["A"]), str(files["B"]), str(files["A-copy"]), "-s", str(files["src"]),
           "--doc-ids", str(files["ids"]), "-f", "json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    rows = {r["system"]: r for r in json.loads(proc.stdout)}
    assert rows["A.txt"]["signature"].startswith("whole-doc|by_length:yes|backbone:length-ratio|")

    def expected(hyp):  # by hand: each document joined, length ratio, weighted by sentence count
        spans = [(0, 4), (4, 7), (7, 9)]
        ratios = []
        for s, e in spans:
            m, x = " ".join(hyp[s:e]), " ".join(src[s:e])
            ratios.append((min(len(m), len(x)) / max(len(m), len(x)), e - s))
        return sum(r * n for r, n in ratios) / sum(n for _, n in ratios)

    assert rows["A.txt"]["score"] == pytest.approx(expected(a), abs=1e-12)
    assert rows["B.txt"]["score"] == pytest.approx(expected(b), abs=1e-12)
    assert rows["A-copy.txt"]["score"] == rows["A.txt"]["score"]
    for flag in ("--paired-bs", "--paired-ar"):
        proc = subprocess.run(cmd + [flag], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        tested = {r["system"]: r for r in json.loads(proc.stdout)}
        assert tested["A-copy.txt"]["p_value"] == 1.0 and tested["A.txt"]["baseline"]
        assert tested["B.txt"]["p_value"] < 1.0
    listing = subprocess.run([sys.executable, "-m", "docmetrics", "--list"], capture_output=True, text=True, env=env)
    assert "whole-doc" in listing.stdout and "my-metric" in listing.stdout
