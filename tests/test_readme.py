"""The README's examples work as printed."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_fixtures import write_distribution

README = Path(__file__).resolve().parents[1] / "README.md"


def _block_after(heading: str, lang: str) -> str:
    text = README.read_text(encoding="utf-8")
    part = text[text.index(heading):]
    return re.search(rf"```{lang}\n(.*?)```", part, re.S).group(1)


def test_third_party_backbone_example(tmp_path):
    code = _block_after("## Writing a backbone", "python")
    ini = _block_after("## Writing a backbone", "ini")
    group, line = re.search(r"(docmetrics\.backbones) =\n\s+(.+)", ini).groups()
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
