"""The main command's judged-data options as aliases of ``--data`` (helper slice "run"): ``--wmt26``, ``--wmt25-tsv``
and ``--genmt`` read through ``read_human`` once, their notes said once; what their parsers show (the WMT26 source's
choices and default, the WMT25 set, the GenMT reference) comes from the format registry's ``human_format``."""

from __future__ import annotations

import json

import pytest
from cli_fixtures import run_cli
from test_wmt26_cli import fixture

import docmetrics
from docmetrics.cli.parser import build_parser
from docmetrics.judging import Submission, human_format


def test_human_format_declares_what_the_parsers_show():
    parser = build_parser()
    source = next(a for a in parser._actions if "--wmt26-source" in a.option_strings)
    assert tuple(source.choices) == human_format("wmt26").choices["source"] == ("src_text", "gold_transcript")
    assert source.default == human_format("wmt26").defaults["source"] == "src_text"
    assert parser.get_default("wmt25_set") == human_format("wmt25-tsv").defaults["set_id"] == "official"
    assert human_format("genmt").choices["reference"] == ("refA",)
    assert (Submission.SCORE_FIELD, Submission.SIGNATURE_SUFFIX) == ("overall", ".signature")


def test_human_format_of_an_unknown_name_names_those_there_are():
    with pytest.raises(docmetrics.SpecError, match="unknown human-data format 'nope'; one of .*genmt"):
        human_format("nope")


def test_wmt26_notes_are_said_once_and_as_data_says_them(tmp_path, capsys):
    tf, folder = fixture(tmp_path)
    code, out, err = run_cli(capsys, "-m", "chrf", "--wmt26", tf, "--wmt26-systems", folder, "-l", "en-de",
                             "--wmt26-ref", "refA")
    assert code == 0, err
    left_out = [line for line in err.splitlines() if "sysC left out" in line]
    assert len(left_out) == 1, err
    data = docmetrics.read_human(tf, format="wmt26", lp="en-de", systems=str(folder), references=["refA"])
    for note in data.notes:
        assert err.count(note) == 1, (note, err)


def test_error_free_prints_the_libraries_meta_evaluation_and_detection_table(tmp_path, capsys):
    from test_cli_genmt import genmt_lines

    from docmetrics.judging import error_free, error_free_text

    path = tmp_path / "genmt.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in genmt_lines()), encoding="utf-8")
    code, out, err = run_cli(capsys, "-m", "chrf", "--genmt", path, "-l", "en-de_DE", "--error-free", "-w", "3")
    assert code == 0, err
    data = docmetrics.read_human(path, lp="en-de_DE")
    results = [("chrf", docmetrics.load("chrf").compute(data.testset))]
    found = error_free(results, data)
    assert out == docmetrics.meta_evaluate(results, data).to_text(width=3) + error_free_text(found, 3)
    assert "Error-free translations (WMT26 subtask 3)" in error_free_text(found) and "chrf [1]" in out
