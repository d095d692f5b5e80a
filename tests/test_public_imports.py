"""What the command line imports is what a notebook imports (issue 46): ``docmetrics.api`` names its API in
``__all__``, ``docmetrics.judging`` the defaults and choices its calls take, and both resolve to the library's
own objects; ``write_sample`` writes what ``docmetrics sample`` writes."""

from __future__ import annotations

import subprocess
import sys

import pytest

import docmetrics
import docmetrics.api as api
import docmetrics.judging as judging
from docmetrics.values.errors import UserError


def test_every_name_of_the_api_resolves():
    missing = [name for name in api.__all__ if not hasattr(api, name)]
    assert missing == []


def test_the_api_and_the_top_level_package_give_the_same_objects():
    for name in ("Session", "TestSet", "Result", "Param", "parse_spec", "parse_signature", "read_testset", "load"):
        assert getattr(api, name) is getattr(docmetrics, name)


def test_the_paired_defaults_are_the_ones_compare_systems_uses():
    import inspect

    assert set(judging.DEFAULT_N) == set(judging.TEST_NAMES) == {"bs", "ar"}
    assert judging.MAX_N >= max(judging.DEFAULT_N.values())
    assert 0 < judging.ALPHA < 1 and 0 < judging.DEFAULT_CI_LEVEL < 1
    ci = inspect.signature(judging.confidence_intervals).parameters
    assert ci["level"].default == judging.DEFAULT_CI_LEVEL


def test_the_sweep_statistics_are_choices_sweep_takes():
    assert set(judging.SEG_STATS) <= set(judging.STAT_CHOICES)
    assert "accuracy" in judging.STAT_CHOICES


def test_the_choices_for_read_human_and_mbr():
    assert judging.DOC_RULES == ("mean", "sum")
    assert "score" in judging.SCORE_COLUMNS
    assert "document" in judging.UNITS and isinstance(judging.TIES, str)
    assert judging.SCHEMES and all(isinstance(s, str) for s in judging.SCHEMES)


def test_the_new_names_load_no_numerics():
    code = ("import sys\nfrom docmetrics.judging import DEFAULT_N, MAX_N, STAT_CHOICES, SCORE_COLUMNS, DOC_RULES, "
            "UNITS, MAIN_STATISTICS, DEFAULT_SEED, read_candidates\nimport docmetrics.api\n"
            "print(','.join(m for m in ('numpy', 'scipy', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_read_candidates_reads_a_jsonl_for_mbr(tmp_path):
    path = tmp_path / "cands.jsonl"
    path.write_text('{"doc_id": "d1", "candidates": ["a b", "a c"]}\n{"doc_id": "d1", "candidates": ["x", "y"]}\n',
                    encoding="utf-8")
    read = judging.read_candidates(str(path))
    assert isinstance(read, judging.CandidateFile)
    assert read.testset.systems == {"candidate 0": ["a b", "x"], "candidate 1": ["a c", "y"]}
    assert read.testset.doc_ids == ["d1", "d1"]


def test_write_sample_writes_the_sample_folders(tmp_path):
    written = api.write_sample(tmp_path / "s")
    assert written.models == []
    folders = {p.relative_to(tmp_path / "s").parts[0] for p in written.files if p.parent != tmp_path / "s"}
    assert folders == set(api.SAMPLES)
    assert all(p.is_file() for p in written.files)
    assert api.write_sample(tmp_path / "s").files == written.files  # its own files are overwritten


def test_write_sample_refuses_a_folder_holding_other_files(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(UserError, match="mine.txt"):
        api.write_sample(tmp_path)
    assert (tmp_path / "mine.txt").read_text(encoding="utf-8") == "keep me"
