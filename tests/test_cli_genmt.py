"""``docmetrics --genmt FILE``: the WMT25/26 GenMT JSONL scored and meta-evaluated from the command line
(toy backbone, no model): the human scores are the segments' ESA scores, the system-level Pearson is
scipy's on the systems' mean ESA, and --error-free's precision, recall and F1 equal a hand count."""

from __future__ import annotations

import json

import pytest
import scipy.stats
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401

import docmetrics

pytestmark = pytest.mark.usefixtures("toy_dist")

SPEC = "slide:w=1,s=1,backbone=toy"
SPAN = {"start_i": 0, "end_i": 3, "severity": "major"}
SYSTEMS = {
    "sysA": ["Good news one.", "Good news two today.", "A talk.", "Another talk here.", "Short.", "Long answer here."],
    "sysB": ["Bad.", "Good news two.", "A long talk indeed here.", "Talk.", "Short one.", "Answer."],
    "sysC": ["News.", "News two today, fine.", "Talk talk.", "Another talk.", "Short answer.", "Ok."],
}
ESA = {"sysA": [95, 90, 70, 88, 100, 60], "sysB": [40, 86, 92, 50, 85, 30], "sysC": [66, 99, 75, 91, 87, 20]}
SPANS = {("sysA", 2), ("sysB", 0), ("sysC", 4), ("sysB", 5)}  # error spans: not error-free whatever the score
DOCS = [("news", "n1"), ("news", "n1"), ("talk", "t1"), ("talk", "t1"), ("talk", "t2"), ("talk", "t2")]


def genmt_lines(pair="en-de_DE"):
    out = []
    for i, (domain, doc) in enumerate(DOCS):
        out.append({
            "doc_id": f"{pair}_#_{domain}_#_{doc}", "src_text": f"Quelle {i} mit Wörtern.",
            "tgt_text": {**{s: SYSTEMS[s][i] for s in SYSTEMS}, "refA": f"Reference {i}."},
            "scores": {s: {"human": ESA[s][i], "errors": [SPAN] if (s, i) in SPANS else []} for s in SYSTEMS},
        })
    return out


@pytest.fixture()
def genmt(tmp_path):
    path = tmp_path / "genmt.jsonl"
    rows = genmt_lines() + genmt_lines("en-ko_KR")
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_genmt_meta_evaluates_against_the_esa_scores_and_detects_error_free_segments(genmt, capsys):
    code, out, err = run(capsys, "-m", SPEC, "--genmt", genmt, "-l", "en-de_DE", "--error-free", "0.5",
                         "-f", "json")
    assert code == 0, err
    (ev,) = json.loads(out)  # issue 37: the list of -f json without --error-free, each metric with its detection
    results = docmetrics.load(SPEC).score_systems(SYSTEMS, sources=[f"Quelle {i} mit Wörtern." for i in range(6)],
                                                  doc_ids=[f"en-de_DE_#_{d}_#_{n}" for d, n in DOCS])
    mean_esa = [sum(ESA[s]) / 6 for s in SYSTEMS]
    assert ev["pearson"] == pytest.approx(scipy.stats.pearsonr([results[s].score for s in SYSTEMS], mean_esa)[0])
    assert ev["spa"] is not None and ev["acc_eq"] is not None  # segment level: ESA per segment
    det = ev["error_free"]
    assert det["spec"] == ev["spec"] == SPEC
    tp = fp = fn = 0
    for s in SYSTEMS:
        for i, u in enumerate(results[s].units):
            gold = (s, i) not in SPANS and ESA[s][i] >= 85
            predicted = u.score >= 0.5
            tp += gold and predicted
            fp += predicted and not gold
            fn += gold and not predicted
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    assert (det["tp"], det["fp"], det["fn"]) == (tp, fp, fn) and det["chosen_by"] == "given"
    assert det["precision"] == pytest.approx(precision) and det["recall"] == pytest.approx(recall)
    assert det["f1"] == pytest.approx(2 * precision * recall / (precision + recall))


def test_genmt_text_output_and_a_threshold_chosen_on_the_data(genmt, capsys):
    code, out, err = run(capsys, "-m", SPEC, "slide:w=2,s=1,backbone=toy", "--genmt", genmt, "-l", "en-ko_KR",
                         "--domains", "talk", "--error-free")
    assert code == 0, err
    assert "Error-free translations (WMT26 subtask 3): (segment, system) items" in out and "(mcc)" in out
    assert "its units span several segments" in out  # slide w=2 has no score per segment


@pytest.mark.parametrize("argv, message", [
    (["--genmt", "{f}", "-l", "en-de_DE", "-i", "{f}"], "drop -i"),
    (["--genmt", "{f}"], "holds 2 language pairs (en-de_DE, en-ko_KR): pick one with -l"),
    (["--genmt", "{f}", "-l", "en-de_DE", "--domains", "sports"], "no domain 'sports'"),
    (["--genmt", "{f}", "-l", "fr-de"], "fr-de"),
    (["--error-free"], "--error-free needs --genmt FILE"),
    (["--genmt", "{f}", "-l", "en-de_DE", "--error-free", "high"], "give a score threshold"),
])
def test_genmt_bad_input_exits_2_naming_the_culprit(genmt, capsys, argv, message):
    code, out, err = run(capsys, "-m", SPEC, *[a.format(f=genmt) for a in argv])
    assert code == 2 and message in err and "Traceback" not in err, err


def test_a_metric_with_no_usable_score_is_a_note_not_a_traceback(genmt):
    from docmetrics.formats.genmt import read_genmt
    from docmetrics.judging import error_free
    from docmetrics.values.result import Result, UnitScore

    pair = read_genmt(genmt).pair("en-de_DE")
    nan = float("nan")
    results = [Result(s, "x", nan, None, {}, [UnitScore("d", i, i + 1, nan, 1.0, False) for i in range(6)], [],
                      None, {}, "mean") for s in SYSTEMS]
    (found,) = error_free([("x", results)], pair)
    assert found.spec == "x" and found.detection is None and "nothing to detect" in found.note


# -- --ref: a GenMT file carries one reference per segment (refA) ----------------------------------------------------
@pytest.mark.parametrize("ref, message", [
    ("refA,refB", "--ref refA,refB: --genmt takes one reference: a GenMT file carries one reference per segment, refA"),
    ("refB", "--ref refB: no such reference in {f} (references: refA)"),
])
def test_genmt_refuses_several_references_and_names_why(genmt, capsys, ref, message):
    code, out, err = run(capsys, "-m", "bleu", "--genmt", genmt, "-l", "en-de_DE", "--ref", ref)
    assert code == 2 and message.format(f=genmt) in err and "Traceback" not in err, err


def test_genmt_ref_refa_is_the_files_reference(genmt, tmp_path, capsys):
    import sacrebleu

    code, out, err = run(capsys, "-m", "bleu", "--genmt", genmt, "-l", "en-de_DE", "--ref", "refA", "-f", "json")
    assert code == 0, err
    code, plain, err = run(capsys, "-m", "bleu", "--genmt", genmt, "-l", "en-de_DE", "-f", "json")
    assert code == 0 and out == plain
    refs = [f"Reference {i}." for i in range(6)]
    (ev,) = json.loads(out)
    assert "|nrefs:1|" in ev["signature"] and ev["systems"] == list(SYSTEMS)
    assert ev["metric_scores"] == pytest.approx([sacrebleu.corpus_bleu(SYSTEMS[s], [refs]).score for s in SYSTEMS])
    # a language pair without a reference: --ref refA says so (without it, bleu is refused as usual)
    bare = tmp_path / "bare.jsonl"
    rows = [{**r, "tgt_text": {k: v for k, v in r["tgt_text"].items() if k != "refA"}} for r in genmt_lines()]
    bare.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run(capsys, "-m", SPEC, "--genmt", bare, "-l", "en-de_DE", "--ref", "refA")
    assert code == 2 and "has no reference (field tgt_text.refA)" in err, err
