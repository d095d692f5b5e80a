"""Python = shell for the span judgement's table and JSON (round s54, slice "library"): ``docmetrics --genmt FILE
--spans PRED.jsonl`` prints what :func:`docmetrics.judging.spans_text` (text) and
:func:`docmetrics.judging.spans_dict` (``-f json``) give a Python user for the same judgement."""

from __future__ import annotations

import json

import pytest
from cli_fixtures import run_cli
from test_python_equals_shell import TED, predicted_spans

import docmetrics
from docmetrics import judging


@pytest.fixture()
def judged(tmp_path):
    predicted = predicted_spans(TED, tmp_path / "predicted.jsonl")
    data = docmetrics.read_human(str(TED))
    return predicted, data, [docmetrics.span_f1(predicted, data)]


def test_the_command_prints_spans_text(judged, capsys):
    predicted, data, found = judged
    code, out, err = run_cli(capsys, "--genmt", TED, "--spans", predicted)
    assert code == 0, err
    assert out.rstrip("\n") == judging.spans_text(found, data.spans, notes=data.spans.notes).rstrip("\n")
    assert "Error spans (WMT25 subtask 2)" in out and str(predicted) in out


def test_the_command_json_is_spans_dict(judged, capsys):
    predicted, data, found = judged
    code, out, err = run_cli(capsys, "--genmt", TED, "--spans", predicted, "-f", "json")
    assert code == 0, err
    assert json.loads(out) == json.loads(json.dumps(judging.spans_dict(found, data.spans, data.spans.notes)))
