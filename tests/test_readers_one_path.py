"""One reader per form of judged data (issue 46): ``docmetrics --genmt``, ``--wmt25-tsv`` and ``--wmt26`` read
through :func:`docmetrics.read_human`, so what Python reads is what the command scores and says; the command's
own jobs are library calls: :func:`docmetrics.judging.error_free` (--error-free) and
:func:`docmetrics.judging.wmt25_submission` (--write-submission).  Toy backbone, no model."""

from __future__ import annotations

import json

import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401
from test_cli_genmt import ESA, SPANS, SYSTEMS, genmt, genmt_lines  # noqa: F401  (genmt: its fixture)
from test_wmt25_tsv import lines, write_tsv
from test_wmt26_cli import ENDE
from test_wmt26_cli import fixture as wmt26_fixture

import docmetrics
from docmetrics.judging import ErrorFree, Submission, error_free, read_human, wmt25_submission
from docmetrics.values.errors import InputError

pytestmark = pytest.mark.usefixtures("toy_dist")

QE = "slide:w=1,s=1,backbone=toy"


# -- error-free detection: the library's is the command's -----------------------------------------------------------
@pytest.mark.parametrize("threshold", [None, 0.5])
def test_error_free_from_python_is_what_the_command_prints(genmt, capsys, threshold):
    argv = ["-m", QE, "chrf", "--genmt", genmt, "-l", "en-de_DE", "--error-free", "-f", "json"]
    if threshold is not None:
        argv.insert(argv.index("--error-free") + 1, str(threshold))
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    printed = [m["error_free"] for m in json.loads(out)]
    data = read_human(genmt, lp="en-de")
    results = {spec: docmetrics.load(spec).compute(data.testset) for spec in (QE, "chrf")}
    found = error_free(results, data, threshold)
    assert all(isinstance(f, ErrorFree) for f in found)
    assert [f.to_dict() for f in found] == printed


def test_error_free_counts_items_against_the_gold_by_hand(genmt):
    """Gold: no error span and ESA >= 85; with threshold 0 every scored item is predicted error-free."""
    data = read_human(genmt, lp="en-de")
    (found,) = error_free({QE: docmetrics.load(QE).compute(data.testset)}, data, threshold=-1e9)
    gold = {(s, i) for s in SYSTEMS for i in range(6) if ESA[s][i] >= 85 and (s, i) not in SPANS}
    d = found.detection
    assert (d.tp, d.fp, d.fn, d.n) == (len(gold), 18 - len(gold), 0, 18) and d.chosen_by == "given"


def test_error_free_of_a_metric_without_segment_scores_says_why(genmt):
    data = read_human(genmt, lp="en-de")
    (found,) = error_free([("w2", docmetrics.load("slide:w=2,s=1,backbone=toy").compute(data.testset))], data)
    assert found.detection is None and "its units span several segments" in found.note
    assert found.to_dict() == {"spec": "w2", "note": found.note}


def test_error_free_needs_genmt_data(tmp_path):
    tsv = write_tsv(tmp_path / "t.tsv", lines())
    data = read_human(tsv, lp="en-de")
    with pytest.raises(InputError, match="error-free detection needs GenMT data"):
        error_free({}, data)


# -- the GenMT reader's options ---------------------------------------------------------------------------------------
def test_genmt_reference_option_insists_on_refa_and_names_no_other(genmt, tmp_path):
    assert read_human(genmt, lp="en-de", reference="refA").testset.references[0] == "Reference 0."
    with pytest.raises(InputError, match="no reference 'refB'; a GenMT file carries one reference per segment, refA"):
        read_human(genmt, lp="en-de", reference="refB")
    rows = [dict(r, tgt_text={k: v for k, v in r["tgt_text"].items() if k != "refA"}) for r in genmt_lines()]
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert read_human(bare).testset.references is None  # no reference: reference-free metrics only
    with pytest.raises(InputError, match="has no reference"):
        read_human(bare, reference="refA")


def test_the_command_words_the_readers_names_as_its_options(genmt, tmp_path, capsys):
    code, _, err = run(capsys, "-m", QE, "--genmt", genmt)
    assert code == 2 and "holds 2 language pairs (en-de_DE, en-ko_KR): pick one with -l" in err and "lp=" not in err
    rows = [dict(r, tgt_text={k: v for k, v in r["tgt_text"].items() if k != "refA"}) for r in genmt_lines()]
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, _, err = run(capsys, "-m", QE, "--genmt", bare, "--include-human")
    assert code == 2 and "to score as a system (--include-human)" in err and "include_reference" not in err


def test_the_reference_judged_note_names_the_option(genmt, tmp_path, capsys):
    rows = genmt_lines()
    for r in rows:
        r["scores"]["refA"] = {"human": 90, "errors": []}
    path = tmp_path / "judged-ref.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert any("include_reference=True scores it too" in n for n in read_human(path).notes)
    code, _, err = run(capsys, "-m", QE, "--genmt", path)
    assert code == 0 and "--include-human scores it too" in err, err


# -- WMT25 TSV: the submission through the library --------------------------------------------------------------------
def test_a_submission_from_python_is_the_commands_file(tmp_path, capsys):
    tsv = write_tsv(tmp_path / "test.tsv", lines())
    shell = tmp_path / "shell.tsv"
    code, _, err = run(capsys, "-m", QE, "--wmt25-tsv", tsv, "--write-submission", shell)
    assert code == 0, err
    data = read_human(tsv)
    done = wmt25_submission(str(tmp_path / "py.tsv"), docmetrics.load(QE).compute(data.testset), data, QE)
    assert isinstance(done, Submission) and done.lines == 18 and done.missing == 0 and not done.negated
    assert (tmp_path / "py.tsv").read_text() == shell.read_text()
    assert open(done.signature_path).read() == (tmp_path / "shell.tsv.signature").read_text()


def test_a_submission_refuses_units_of_several_segments_and_other_data(tmp_path, genmt):
    tsv = write_tsv(tmp_path / "test.tsv", lines())
    data = read_human(tsv)
    with pytest.raises(InputError, match="scores units of several segments"):
        wmt25_submission(str(tmp_path / "s.tsv"),
                         docmetrics.load("slide:w=2,s=1,backbone=toy").compute(data.testset), data, "w2")
    with pytest.raises(InputError, match="writes the lines of the WMT25 test TSV"):
        wmt25_submission(str(tmp_path / "s.tsv"), [], read_human(genmt, lp="en-de"))
    assert not (tmp_path / "s.tsv").exists()


# -- WMT26: the library's notes are the command's ---------------------------------------------------------------------
def test_wmt26_notes_from_python_are_what_the_command_says(tmp_path, capsys):
    tf, folder = wmt26_fixture(tmp_path)
    code, _, err = run(capsys, "-m", "chrf", "--wmt26", tf, "--wmt26-systems", folder, "-l", "en-de",
                       "--wmt26-ref", "refA")
    assert code == 0, err
    data = read_human(tf, lp="en-de", systems=[str(folder)], references=["refA"])  # [FOLDER] as the shell gives it
    assert data.notes and all(f"docmetrics: {n}\n" in err for n in data.notes)
    assert any(n.startswith(f"{ENDE}: 3 documents, 2 as their paragraphs") for n in data.notes)
    assert data.testset.lp == "en-de"  # the metrics' lang, as the command loads them


def test_a_paired_test_on_one_system_is_refused_before_scoring(tmp_path, capsys):
    rows = [dict(r, tgt_text={"sysA": r["tgt_text"]["sysA"], "refA": r["tgt_text"]["refA"]},
                 scores={"sysA": r["scores"]["sysA"]}) for r in genmt_lines()]
    path = tmp_path / "one.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run(capsys, "-m", "chrf", "--genmt", path, "--paired-bs")
    assert code == 2 and f"--paired-bs: {path} has 1 system to score for en-de_DE; a paired test needs two" in err
    assert "Traceback" not in err and out == ""
