"""``docmetrics --wmt26 TESTFILE --wmt26-systems ...`` (docmetrics.cli.wmt26) on the fixture of
test_wmt26_release: chrF against refA at system and document level, equal to sacrebleu on the segments
built by hand (paragraphs where every count agrees, else the whole document); ASD with unit=segment on
the toy backbone realigning the document held whole; the notes; bad input exiting 2 with one line."""

from __future__ import annotations

import json

import pytest
import sacrebleu
from cli_fixtures import run_cli
from plugin_fixtures import toy_dist  # noqa: F401
from test_wmt26_release import IDS, TEST, write

ENDE = "eng_Latn-deu_Latn"


def fixture(tmp_path):
    test = json.loads(json.dumps(TEST))
    test[1]["refs"] = {"refA": "Wir fahren heute in den Süden."}  # every en-de document has refA
    return write(tmp_path, test)


def test_chrf_document_level_equals_sacrebleu_on_the_segments(tmp_path, capsys):
    tf, folder = fixture(tmp_path)
    code, out, err = run_cli(capsys, "-m", "chrf", "--wmt26", tf, "--wmt26-systems", folder, "-l", "en-de",
                             "--wmt26-ref", "refA", "-f", "json")
    assert code == 0, err
    got = {r["system"]: r for r in json.loads(out)}
    assert list(got) == ["sysA", "sysB"]  # sysC skipped a document: left out, said
    assert f"{ENDE}: sysC left out: it translated 2 of the 3 documents" in err
    assert f"{ENDE}: 3 documents, 2 as their paragraphs (2 segments), 1 whole" in err
    assert f"{IDS[0]}: whole document as one segment (source 2 paragraphs; sysB 3)" in err
    # by hand: the news document whole (sysB has 3 paragraphs), the others one paragraph each
    refs = ["Tom & Jerry gewannen.\nEs regnete > 3 Tage.", "Wir fahren heute in den Süden.", "@ann hallo<br>bis bald"]
    hyps = {"sysA": ["Tom & Jerry gewannen.\nEs regnete.", "Wir fahren heute in den Süden.", "@ann hallo<br>tschüss"],
            "sysB": ["Tom und Jerry.\nEs regnete.\nDrei Tage.", "Wir fahren.", "@ann hi"]}
    for system, segs in hyps.items():
        assert got[system]["score"] == pytest.approx(sacrebleu.corpus_chrf(segs, [refs]).score, abs=1e-9)
    code, out, err = run_cli(capsys, "-m", "chrf", "--wmt26", tf, "--wmt26-systems", folder / "sysA.jsonl",
                             "-l", ENDE, "--wmt26-ref", "refA", "--level", "doc", "-q")
    assert code == 0, err
    rows = [ln.split("\t") for ln in out.splitlines()[1:]]
    assert [r[3] for r in rows] == IDS[:3] and [r[4] for r in rows] == ["2", "1", "1"]  # paragraphs as units


@pytest.mark.usefixtures("toy_dist")  # the toy backbone: a fast QE scorer and aligner
def test_asd_unit_segment_realigns_the_whole_document(tmp_path, capsys):
    tf, folder = fixture(tmp_path)
    dump = tmp_path / "align.jsonl"
    code, out, err = run_cli(capsys, "-m", "asd:backbone=toy,aligner=toy,unit=segment", "--wmt26", tf,
                             "--wmt26-systems", folder, "-l", "en-de", "-f", "json", "--dump-alignment", dump)
    assert code == 0, err
    assert {r["system"] for r in json.loads(out)} == {"sysA", "sysB"}
    records = [json.loads(line) for line in dump.read_text().splitlines()]
    news = [r for r in records if r.get("doc_id") == IDS[0] and r["system"] == "sysB"]
    assert [(r["source_sentences"], r["target_sentences"]) for r in news] == [(2, 3)]  # realigned 3 -> 2


BAD = [
    ("no-systems", lambda t, f: ["--wmt26", t], ["--wmt26-systems"]),
    ("systems-alone", lambda t, f: ["--wmt26-systems", f], ["--wmt26-systems names the system files", "--wmt26"]),
    ("with-input", lambda t, f: ["--wmt26", t, "--wmt26-systems", f, "-i", t], ["drop -i"]),
    ("two-pairs", lambda t, f: ["--wmt26", t, "--wmt26-systems", f], ["2 language pairs", "-l"]),
    ("missing-reference", lambda t, f: ["--wmt26", t, "--wmt26-systems", f, "-l", "cs-uk", "--wmt26-ref", "refA"],
     ["wmt26-genmt.jsonl, line 4, field refs", "no reference 'refA'"]),
    ("incomplete-only", lambda t, f: ["--wmt26", t, "--wmt26-systems", f / "sysC.jsonl", "-l", "en-de"],
     ["no system translated every document of eng_Latn-deu_Latn", "sysC (2)"]),
    ("unknown-doc", lambda t, f: ["--wmt26", t, "--wmt26-systems", _foreign(f), "-l", "en-de"],
     ["x.jsonl, line 1, field doc_id", "is no document of the test file"]),
]


def _foreign(folder):
    path = folder / "x.jsonl"
    path.write_text(json.dumps({"doc_id": "WMT26_###_news_###_eng_Latn_###_fra_Latn_###_1", "hypothesis": "",
                                "metadata": {}}) + "\n")
    return path


@pytest.mark.parametrize("args,needles", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, args, needles):
    tf, folder = fixture(tmp_path)
    code, out, err = run_cli(capsys, "-m", "chrf", *args(tf, folder))
    assert code == 2, (out, err)
    lines = [ln for ln in err.strip().splitlines() if "error" in ln]
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_rank_m_ranks_the_release_by_live_metrics(tmp_path, capsys):
    """``rank -m chrf --wmt26 ...``: AutoRank over a metric scored on the release, each document held as the
    main command holds it; chrF's AutoRank input is the mean of its segment scores, equal to sacrebleu's
    sentence chrF on the segments built by hand; lang= is the pair's ISO 639-1 form."""
    tf, folder = fixture(tmp_path)
    code, out, err = run_cli(capsys, "rank", "-m", "chrf", "--wmt26", tf, "--wmt26-systems", folder, "-l", "en-de",
                             "--wmt26-ref", "refA", "-f", "json")
    assert code == 0, err
    ranking = json.loads(out)
    assert ranking["lp"] == ENDE and [s["system"] for s in ranking["systems"]] == ["sysA", "sysB"]
    assert f"{ENDE}: sysC left out: it translated 2 of the 3 documents" in err
    refs = ["Tom & Jerry gewannen.\nEs regnete > 3 Tage.", "Wir fahren heute in den Süden.", "@ann hallo<br>bis bald"]
    hyps = {"sysA": ["Tom & Jerry gewannen.\nEs regnete.", "Wir fahren heute in den Süden.", "@ann hallo<br>tschüss"],
            "sysB": ["Tom und Jerry.\nEs regnete.\nDrei Tage.", "Wir fahren.", "@ann hi"]}
    for row in ranking["systems"]:
        by_hand = [sacrebleu.sentence_chrf(h, [r]).score for h, r in zip(hyps[row["system"]], refs)]
        assert row["scores"]["chrf"] == pytest.approx(sum(by_hand) / len(by_hand), abs=1e-9)


@pytest.mark.parametrize("argv,message", [
    (["-m", "chrf", "-i", "x.txt", "--wmt26-systems", "d"], "--wmt26-systems: names files or references of the WMT26"),
    (["--wmt26", "t.jsonl"], "--wmt26 t.jsonl: the release is ranked by live metrics; give them with -m"),
    (["-m", "chrf", "--wmt26", "t.jsonl"], "--wmt26 t.jsonl: give the system files with --wmt26-systems"),
    (["-m", "chrf", "--wmt26", "t.jsonl", "--wmt26-systems", "d", "--genmt", "g.jsonl"],
     "--genmt and --wmt26: give one test set"),
])
def test_rank_wmt26_bad_options_exit_2(capsys, argv, message):
    code, out, err = run_cli(capsys, "rank", *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_report_of_the_release(tmp_path, capsys):
    tf, folder = fixture(tmp_path)
    page = tmp_path / "r.html"
    code, out, err = run_cli(capsys, "-m", "chrf", "--wmt26", tf, "--wmt26-systems", folder, "-l", "en-de",
                             "--wmt26-ref", "refA", "--report", page, "-q")
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "sysA" in html and "sysB" in html and "sysC" not in html
