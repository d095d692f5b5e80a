"""One MTME path (issue 46): ``docmetrics --mtme`` and the library's ``meta_evaluate`` on MTME data are one
computation (the command calls ``meta_evaluate`` on the EvalSet the library's MTME reader builds, and
``meta_evaluate`` runs ``evaluate_mtme``), and one renderer prints both: ``MetaEvaluation.to_text()`` on the
shipped MTME folder is the command's stdout, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_fixtures import run_cli as run

import docmetrics
from docmetrics import judging
from docmetrics.judging import metaeval as lib
from docmetrics.judging import mtme as mtme_run
from docmetrics.values.errors import InputError, SpecError

ROOT = Path(__file__).resolve().parents[1]
MTME = ROOT / "docmetrics" / "data" / "mtme"
SPECS = ("chrf", "bleu")


@pytest.fixture(scope="module")
def data():
    return docmetrics.read_human(MTME / "wmt21.tedtalks", lp="en-de")


@pytest.fixture(scope="module")
def results(data):
    return {spec: docmetrics.load(spec).compute(data.testset) for spec in SPECS}


def command(capsys, *extra):
    code, out, err = run(capsys, "-m", *SPECS, "--mtme", MTME, "-t", "wmt21.tedtalks", "-l", "en-de", "-q", *extra)
    assert code == 0, err
    return out


@pytest.mark.parametrize("width", [4, 2])
def test_to_text_on_the_shipped_mtme_folder_is_what_the_command_prints(capsys, data, results, width):
    text = docmetrics.meta_evaluate(results, data).to_text(width=width)
    printed = command(capsys, "-w", width)
    assert text == printed
    # it is the --mtme layout: the pair's line, the table sorted by SPA, what was not scored, the signatures
    assert text.startswith("wmt21.tedtalks en-de: 6 systems, 24 segments, 3 documents; reference refA; human "
                           "scores mqm\n")
    assert "Sorted by spa:" in text and "Not scored: refA (the reference in use)" in text
    assert "\nSignatures:\n[1] chrf|" in text and "\n[2] bleu|" in text


def test_the_json_is_the_commands_to_the_last_digit(capsys, data, results):
    mine = docmetrics.meta_evaluate(results, data, significance=50).to_dict(layout="mtme")
    printed = json.loads(command(capsys, "--resamples", "50", "-f", "json"))
    assert set(printed) - set(mine) == {"written"}
    assert json.dumps({k: printed[k] for k in mine}) == json.dumps(json.loads(json.dumps(mine)))


def _spy(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_one_function_computes_the_mtme_meta_evaluation(monkeypatch, capsys, data, results):
    """The command meta-evaluates through meta_evaluate (with the EvalSet of the library's reader), which runs
    evaluate_mtme; nothing else computes it (_judge, the --human path, is not called on MTME data)."""
    front = _spy(monkeypatch, judging, "meta_evaluate")  # the public call the command makes
    work = _spy(monkeypatch, lib, "evaluate_mtme")
    other = _spy(monkeypatch, lib, "_judge")
    printed = command(capsys)
    assert len(front) == 1 and len(work) == 1 and other == []
    assert not hasattr(mtme_run, "evaluate_mtme")  # the scoring run no longer meta-evaluates on its own
    (given, judged), options = front[0]
    assert list(given) == list(SPECS) and judged.format == "mtme" and judged.lp == "en-de"
    assert options["significance"] is None and options["levels"] is None
    # the library call is that same call: the same function, the same text
    assert judging.meta_evaluate(results, data).to_text() == printed
    assert len(front) == 2 and len(work) == 2 and other == []


def test_metaeval_command_also_goes_through_meta_evaluate(monkeypatch, capsys):
    front = _spy(monkeypatch, judging, "meta_evaluate")
    code, out, err = run(capsys, "metaeval", "-m", *SPECS, "--mtme", MTME, "-t", "wmt21.tedtalks", "-l", "en-de",
                         "--resamples", "20", "-q")
    assert code == 0, err
    assert len(front) == 1 and front[0][0][1].format == "mtme" and front[0][1]["significance"] == 20


def test_metrics_are_named_by_spec_and_by_their_table_labels(data, results):
    ev = docmetrics.meta_evaluate(results, data, significance=0)
    assert list(ev.metrics) == list(SPECS)
    assert ev.value("chrf [1]", "pearson") == ev.value("chrf", "pearson") == ev.value(0, "pearson")
    assert ev.value("bleu [2]", "pearson") == ev.metrics["bleu"].pearson != ev.value(0, "pearson")


def test_exclude_leaves_a_system_out_as_systems_would(data, results):
    every = docmetrics.meta_evaluate(results, data, significance=0)
    left = docmetrics.meta_evaluate(results, data, significance=0, exclude=[every.systems[0]])
    assert every.systems[0] not in left.systems
    assert len(left.systems) == len(every.systems) - 1


# -- bad input, one row per case -----------------------------------------------------------------------------------
BAD = [
    ("a spec twice", lambda r: [("chrf", r["chrf"]), ("chrf", r["chrf"])], {}, InputError, "'chrf' is given twice"),
    ("a level that is none", lambda r: r, {"levels": ["paragraph"]}, SpecError, "not a level"),
    ("negative resamples", lambda r: r, {"significance": -1}, SpecError, "0 or more"),
    ("no segment level", lambda r: r, {"levels": ["system"]}, SpecError, "name 'segment' in levels"),
    ("a text for the human scores", lambda r: r, {"human_text": "mine"}, SpecError, "leave human_text out"),
]


@pytest.mark.parametrize("what, given, options, error, message", BAD, ids=[row[0] for row in BAD])
def test_bad_input_on_mtme_data(data, results, what, given, options, error, message):
    with pytest.raises(error, match=message):
        docmetrics.meta_evaluate(given(results), data, **options)
