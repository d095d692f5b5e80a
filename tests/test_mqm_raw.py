"""Raw MQM files as google/wmt-mqm-human-evaluation publishes them, read by ``--human FILE``
(docmetrics.formats.mqm): penalties as mt-metrics-eval's converters/score_mqm.py computes them, error spans
with the ``<v>`` marks stripped, positions from ``doc_id``.

``data/mqm_ted_ende.excerpt.tsv`` is an excerpt (the header and the 14 lines of 8 segments, unchanged) of
``ted/ende/mqm_ted_ende.tsv`` from https://github.com/google/wmt-mqm-human-evaluation (commit 7fadea28,
Apache License 2.0, Copyright Google LLC): the MQM ratings of the WMT21 TED talks test suite, en-de.

The shapes of the real files, checked by script over the whole of each (mqm_ted_ende.tsv 8,435 lines,
mqm_ted_zhen.tsv 9,915, newstest2020 {ende,zhen} *.source-errors.tsv 872 and 193, generalMT2023
sxs_mqm_generalMT2023_ende.3ratingsPerSegment.tsv 10,970; the other raw files are not in the repository's git
objects), each a row of the fixture written below or a line of the excerpt:

- header ``system doc doc_id seg_id rater source target category severity``; TED en-de adds ``comment`` (38
  lines fill it); the WMT23 side-by-side file names doc_id and seg_id ``docSegId`` and ``globalSegId`` and adds
  ``metadata`` (JSON) and a header column ``# Documentation: ...`` that no line fills (10 fields under 11 names);
- ``doc_id`` is the segment's 1-based position in the document ``doc`` (as score_mqm.py reads it);
- severities Major, Minor, No-error (TED), Neutral (newstest2020, 3 lines), HOTW-test (WMT23 attention checks,
  245 lines, categories Found/Missed); categories with one or two levels ("Accuracy/Mistranslation", "Other",
  "Source error", "Source error/-"), "No-error" with severity No-error, "Non-translation!" (WMT23, Major, once);
- one ``<v>...</v>`` per line, in the target (TED en-de 4,017, zh-en 5,269), in the source for an omission
  (14; 349; WMT23 732), or none (No-error, HOTW-test and 79 newstest2020 lines); a ``<v>`` never closed
  (TED en-de ``...Mobilität. <v>?`` and zh-en: runs to the end); no empty mark ``<v></v>``, no line with
  two marks (both written here anyway: an insertion point, and a span from the first mark to the last);
- one rater per segment (TED), 1-3 (newstest2020), exactly 3 (WMT23); several error lines per rater;
- texts with ``"`` (TED: 135 lines, never wrapped in quotes); newstest2020 wraps 542 texts in CSV quotes with
  doubled inner quotes; no tab or CR inside a field;
- malformed: every line of newstest2020 zhen ``source-errors.tsv`` has 8 fields under 9 names (no seg_id,
  rater): exit 2 naming the line.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from cli_fixtures import run_cli

from docmetrics.formats.human_tsv import load_human
from docmetrics.formats.mqm import error_weight, is_human_name, read_mqm, strip_marks

EXCERPT = Path(__file__).parent / "data" / "mqm_ted_ende.excerpt.tsv"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21_ted_ende"
#: the whole raw file, e.g. from `git show HEAD:ted/ende/mqm_ted_ende.tsv` in google/wmt-mqm-human-evaluation
FULL = os.environ.get("DOCMETRICS_MQM_TED_ENDE")
HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"


# -- the real excerpt -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("system, doc, seg_id, doc_pos, penalty, spans", [
    ("Facebook-AI", "talk.1", "1", 1, 1.0, [("target", "in Betracht zu ziehen", "minor")]),
    ("VolcTrans-GLAT", "talk.1", "1", 1, 0.0, []),
    ("ref", "talk.1", "1", 1, 0.0, []),
    ("metricsystem2", "talk.1", "10", 10, 0.1, [("target", "-", "minor")]),
    ("Facebook-AI", "talk.1", "27", 27, 2.0, [("target", "Schwarzes", "minor"), ("target", "Schwarze", "minor")]),
    ("metricsystem5", "talk.1", "112", 112, 6.0,
     [("target", "Stehen außerhalb des Universums", "minor"), ("source", ".", "major")]),
    ("ref", "talk.4", "372", 124, 2.3, [("target", t, "minor") for t in
                                        ("finde", "poetisches", "Filter", "werden", "ihre Nebel")]),
    ("metricsystem1", "talk.6", "475", 28, 0.1, [("target", "?", "minor")]),  # <v>? never closed
])
def test_excerpt_segments(system, doc, seg_id, doc_pos, penalty, spans):
    seg = read_mqm(str(EXCERPT)).segments[(system, doc, seg_id)]
    assert seg.doc_pos == doc_pos
    assert seg.penalty == pytest.approx(penalty, abs=1e-12)
    assert "<v>" not in seg.target + seg.source and "</v>" not in seg.target + seg.source
    assert [(s.side, s.marked(seg), s.severity) for s in seg.spans] == spans
    assert all(s.text is None for s in seg.spans)  # every line of a segment shows the same texts


def test_excerpt_as_human_scores():
    human = load_human(str(EXCERPT))
    assert human.raw_mqm and human.lower_is_better and human.column == "mqm_penalty"
    assert human.humans == {"ref"}
    assert human.segments["ref"][("talk.4", "372")] == pytest.approx(-2.3)
    assert human.system["ref"] == pytest.approx(-2.3 / 2)
    assert human.positions[("talk.6", "475")] == 28
    assert [s.category for s in human.spans["Facebook-AI"][("talk.1", "27")]] == ["Fluency/Spelling"] * 2
    # --human-lower-better only says what the raw file already is: nothing is negated twice
    assert load_human(str(EXCERPT), lower_is_better=True).system == human.system


def _shared_rows(name):
    with open(SHARED / name, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def _compare_with_shared(path):
    """Every segment of the raw file against seg_scores.tsv and every error span against spans.tsv (the
    derived files call system 'ref' ref-A); returns (segments, largest |difference|, spans equal, spans, differing)."""
    ours = {("ref-A" if s.system == "ref" else s.system, s.doc, s.seg_id): s for s in read_mqm(str(path)).segments.values()}
    worst, n = 0.0, 0
    for row in _shared_rows("seg_scores.tsv"):
        seg = ours.get((row["system"], row["doc_id"], row["seg_id"]))
        if seg is None:
            continue
        n += 1
        worst = max(worst, abs(seg.penalty - float(row["mqm_penalty"])))
        assert seg.doc_pos == int(row["doc_pos"]) and len(seg.raters) == int(row["n_raters"])
    theirs = {}
    for row in _shared_rows("spans.tsv"):
        key = (row["system"], row["doc_id"], row["seg_id"])
        if key in ours and row["severity"] != "no-error":
            span = (row["rater"], row["severity"], row["category"],
                    int(row["start"]) if row["start"] else None, int(row["end"]) if row["end"] else None)
            theirs.setdefault(key, []).append(span)
    equal = total = 0
    differ = []
    for key, seg in ours.items():
        mine = [(s.rater, s.severity, s.category, *((s.start, s.end) if s.side == "target" else (None, None)))
                for s in seg.spans]
        for a, b in zip(mine, theirs.get(key, [])):
            total += 1
            if a == b:
                equal += 1
            else:
                differ.append((key, a, b))
        assert len(mine) == len(theirs.get(key, [])), key
    return n, worst, equal, total, differ


# the derived spans.tsv gives the one never-closed mark of en-de no offsets; the reader runs it to the text's end
UNCLOSED = (("metricsystem1", "talk.6", "475"), ("rater4", "minor", "Fluency/Punctuation", 382, 383),
            ("rater4", "minor", "Fluency/Punctuation", None, None))


@pytest.mark.skipif(not (SHARED / "seg_scores.tsv").exists(), reason="../shared/data/wmt21_ted_ende is not here")
def test_excerpt_against_shared():
    n, worst, equal, total, differ = _compare_with_shared(EXCERPT)
    assert (n, equal, total) == (8, 11, 12) and worst < 1e-9
    assert differ == [UNCLOSED]


@pytest.mark.skipif(not (FULL and (SHARED / "seg_scores.tsv").exists()),
                    reason="set DOCMETRICS_MQM_TED_ENDE to the whole raw mqm_ted_ende.tsv (and have ../shared)")
def test_whole_file_against_shared():
    n, worst, equal, total, differ = _compare_with_shared(FULL)
    assert (n, equal, total) == (7406, 4030, 4031) and worst < 1e-9
    assert differ == [UNCLOSED]


# -- a fixture with every other shape the real files have -----------------------------------------------------------
SXS_HEADER = ("system\tdoc\tdocSegId\tglobalSegId\trater\tsource\ttarget\tcategory\tseverity\tmetadata\t"
              "# Documentation: https://github.com/google-research/google-research/tree/master/MAROT_viewer")
SXS = [  # three raters per segment; every line 10 fields under 11 names
    ("A", "d1", "1", "1", "r1", "Hello there.", "<v>Hallo</v> da.", "Non-translation!", "Major", "{}"),
    ("A", "d1", "1", "1", "r2", "Hello there.", "Hallo da<v>.</v>", "Fluency/Punctuation", "Minor", "{}"),
    ("A", "d1", "1", "1", "r2", "Hello there.", "Hallo da.", "Found", "HOTW-test", "{}"),
    ("A", "d1", "1", "1", "r3", "Hello there.", "Hallo da.", "No-error", "No-error", "{}"),
    ("A", "d1", "2", "2", "r1", "<v>Bye</v> now.", "Jetzt.", "Accuracy/Omission", "major", "{}"),
    ("A", "d1", "2", "2", "r2", "Bye now.", "Jetzt<v></v>.", "Accuracy/Omission", "MINOR", "{}"),
    # a line whose target differs from the segment's first line (WMT23: a trailing space)
    ("A", "d1", "2", "2", "r3", "Bye now.", "<v>Jetzt</v> und <v>hier</v>.", "Style/Awkward", "Minor", "{}"),
    ("A", "d1", "2", "2", "r3", "Bye now.", "Jetzt.", "Non-translation!", "Minor", "{}"),
    ("refA", "d1", "1", "1", "r1", "Hello there.", "Hallo.", "Accuracy/Mistranslation", "Neutral", "{}"),
]
NEWS = [  # newstest2020: CSV-quoted texts, a category with a '-' subcategory
    ("Human-A.0", "upi.1", "3", "609", "rater1", '"a ""serious"" deal"', '"ein <v>""ernster""</v> Deal"',
     "Source error/-", "Minor"),
    ("OPPO.1535", "upi.1", "3", "609", "rater1", '"He said: ""no"""', '"Er sagte: <v>""nein""</v>"',
     "Fluency/Punctuation", "Minor"),
]


def _write(tmp_path, name, header, rows):
    path = tmp_path / name
    path.write_text(header + "\n" + "".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("key, penalty, spans", [
    # (25 + 0.1 + 0 + 0) / 3 raters; HOTW-test and No-error are no error
    (("A", "d1", "1"), (25 + 0.1) / 3, [("r1", "target", "Hallo", "major"), ("r2", "target", ".", "minor")]),
    # 5 (source omission) + 1 (empty mark: an insertion point) + 1 + 1 (Minor Non-translation!: plain Minor)
    (("A", "d1", "2"), (5 + 1 + 2) / 3, [("r1", "source", "Bye", "major"), ("r2", "target", "", "minor"),
                                        ("r3", "target", "Jetzt und hier", "minor"), ("r3", None, None, "minor")]),
    (("refA", "d1", "1"), 0.0, [("r1", None, None, "neutral")]),
])
def test_side_by_side_shapes(tmp_path, key, penalty, spans):
    seg = read_mqm(_write(tmp_path, "sxs.tsv", SXS_HEADER, SXS)).segments[key]
    assert seg.penalty == pytest.approx(penalty, abs=1e-12) and len(seg.raters) == (1 if key[0] == "refA" else 3)
    assert [(s.rater, s.side, s.marked(seg), s.severity) for s in seg.spans] == spans


def test_csv_quoted_texts(tmp_path):
    segs = read_mqm(_write(tmp_path, "news.tsv", HEADER, NEWS)).segments
    seg = segs[("Human-A.0", "upi.1", "609")]
    assert (seg.source, seg.target, seg.doc_pos, seg.penalty) == ('a "serious" deal', 'ein "ernster" Deal', 3, 1.0)
    assert seg.target[seg.spans[0].start:seg.spans[0].end] == '"ernster"'
    seg = segs[("OPPO.1535", "upi.1", "609")]
    assert seg.target[seg.spans[0].start:seg.spans[0].end] == '"nein"' and seg.penalty == pytest.approx(0.1)
    assert load_human(str(tmp_path / "news.tsv")).humans == {"Human-A.0"}


@pytest.mark.parametrize("severity, category, weight", [
    ("Major", "Accuracy/Mistranslation", 5), ("major", "Non-translation!", 25), ("Minor", "Non-translation!", 1),
    ("Minor", "Fluency/Punctuation", 0.1), ("MINOR", "fluency/punctuation/comma", 0.1), ("Minor", "Fluency", 1),
    ("Neutral", "Style/Awkward", 0), ("No-error", "No-error", 0), ("HOTW-test", "Found", 0),
])
def test_weights_as_score_mqm(severity, category, weight):
    assert error_weight(severity, category) == weight


@pytest.mark.parametrize("name, human", [
    ("ref", True), ("refB", True), ("ref-A", True), ("ref.A", True), ("refA", True), ("Human-A.0", True),
    ("Human-P.0", True), ("referee", False), ("HuaweiTSC", False), ("Online-W", False), ("metricsystem1", False),
])
def test_human_names(name, human):
    assert is_human_name(name) is human


@pytest.mark.parametrize("text, plain, span", [
    ("a <v>b</v> c", "a b c", (2, 3)), ("<v></v>x", "x", (0, 0)), ("x <v>?", "x ?", (2, 3)),
    ("<v>a</v> b <v>c</v>", "a b c", (0, 5)), ("plain", "plain", (None, None)),
])
def test_strip_marks(text, plain, span):
    assert strip_marks(text) == (plain, *span)


# -- the command line --------------------------------------------------------------------------------------------
@pytest.fixture()
def testset(tmp_path):
    """Two systems and refA on the excerpt's talk.1 segments 1 and 10 laid out as a 2-line document."""
    (tmp_path / "ids").write_text("talk.1\ntalk.1\n", encoding="utf-8")
    (tmp_path / "ref").write_text("Ich bitte Sie.\nDas ist gut.\n", encoding="utf-8")
    for name, text in (("A", "Ich bitte euch.\nDas ist schlecht.\n"), ("B", "Ich bitte Sie.\nDas ist gut.\n"),
                       ("refA", "Ich bitte Sie alle.\nDas ist gut.\n")):
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
    rows = [("A", "talk.1", "1", "1", "r1", "s", "<v>euch</v>", "Fluency/Register", "Major"),
            ("A", "talk.1", "2", "10", "r1", "s", "Das ist <v>schlecht</v>.", "Accuracy/Mistranslation", "Major"),
            ("B", "talk.1", "1", "1", "r1", "s", "t", "No-error", "No-error"),
            ("B", "talk.1", "2", "10", "r1", "s", "t<v>.</v>", "Fluency/Punctuation", "Minor"),
            ("refA", "talk.1", "1", "1", "r2", "s", "t", "No-error", "No-error"),
            ("refA", "talk.1", "2", "10", "r2", "s", "t", "No-error", "No-error")]
    _write(tmp_path, "mqm.tsv", HEADER + "\tcomment", [r + ("",) for r in rows])
    derived = "system\tdoc_id\tseg_id\tdoc_pos\tmqm_penalty\n" + "".join(
        f"{s}\ttalk.1\t{seg}\t{pos}\t{p}\n" for s, seg, pos, p in
        (("A", "1", 1, 5), ("A", "10", 2, 5), ("B", "1", 1, 0), ("B", "10", 2, 0.1), ("refA", "1", 1, 0),
         ("refA", "10", 2, 0)))
    (tmp_path / "derived.tsv").write_text(derived, encoding="utf-8")
    return tmp_path


def test_cli_reads_the_raw_file_as_the_derived_one(testset, capsys):
    common = ["-m", "chrf", "-i", testset / "A.txt", testset / "B.txt", testset / "refA.txt", "-r", testset / "ref",
              "--doc-ids", testset / "ids", "-f", "json", "-q"]
    code, raw, err = run_cli(capsys, *common, "--human", testset / "mqm.tsv")
    assert code == 0, err
    code, derived, err = run_cli(capsys, *common, "--human", testset / "derived.tsv", "--human-column",
                                 "mqm_penalty", "--human-lower-better")
    assert code == 0, err
    assert json.loads(raw) == json.loads(derived)
    code, out, err = run_cli(capsys, *common[:-3], "--human", testset / "mqm.tsv", "--no-human-systems")
    assert code == 0, err
    assert "(raw MQM ratings: per segment, the errors' weights (Major 5, Minor 1" in out and "score_mqm.py" in out
    assert "[1] left out: refA.txt (excluded)" in out  # refA is named as the organisers name a reference


BAD = [  # (file name, lines after the header, what the one line of the message must hold)
    ("short.tsv", ["A\tupi.1\t16\tsrc\ttgt <v>x</v>\tSource error\tMinor\t"],
     "short.tsv, line 2: 8 tab-separated fields, the header has 9"),
    ("tab.tsv", ["A\td\t1\t1\tr1\tsrc\tt\tx\tAccuracy\tMajor"], "tab.tsv, line 2: 10 tab-separated fields"),
    ("severity.tsv", ["A\td\t1\t1\tr1\tsrc\t<v>t</v>\tAccuracy\tCritical"],
     "severity.tsv, line 2, column severity: unknown severity 'Critical'"),
    ("position.tsv", ["A\td\tone\t1\tr1\tsrc\tt\tNo-error\tNo-error"],
     "position.tsv, line 2, column doc_id: 'one' is not a 1-based position"),
    ("zero.tsv", ["A\td\t0\t1\tr1\tsrc\tt\tNo-error\tNo-error"], "zero.tsv, line 2, column doc_id: '0'"),
    ("moved.tsv", ["A\td\t1\t1\tr1\ts\tt\tNo-error\tNo-error", "B\td\t2\t1\tr1\ts\tt\tNo-error\tNo-error"],
     "moved.tsv, line 3, column doc_id: segment 1 of document 'd' is at position 2 here and 1 on line 2"),
    ("close.tsv", ["A\td\t1\t1\tr1\ts\tt</v>\tAccuracy\tMinor"], "close.tsv, line 2, column target: a </v>"),
    ("rater.tsv", ["A\td\t1\t1\t\ts\tt\tNo-error\tNo-error"], "rater.tsv, line 2, column rater: empty"),
    ("empty.tsv", [], "empty.tsv: a header and no rating"),
]


@pytest.mark.parametrize("name, lines, message", BAD, ids=[b[0] for b in BAD])
def test_bad_raw_mqm_exits_2_naming_file_line_and_field(tmp_path, testset, capsys, name, lines, message):
    path = tmp_path / name
    path.write_text(HEADER + "\n" + "".join(ln + "\n" for ln in lines), encoding="utf-8")
    code, out, err = run_cli(capsys, "-m", "chrf", "-i", testset / "A.txt", testset / "B.txt", "-r", testset / "ref",
                             "--doc-ids", testset / "ids", "--human", path)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err


WARNED = [  # issue 37: (file name, lines after the header, the one warning); before: accepted without a word
    ("open.tsv", ["A\ttalk.1\t1\t1\tr1\ts\tIch bitte <v>euch.\tFluency/Register\tMajor",
                  "B\ttalk.1\t1\t1\tr1\ts\tt\tNo-error\tNo-error"],
     "open.tsv, line 2, column target: a <v> is never closed; the error span is read to the end of the text"),
    ("two-open.tsv", ["A\ttalk.1\t1\t1\tr1\t<v>s\tIch bitte euch.\tAccuracy/Omission\tMajor",
                      "B\ttalk.1\t1\t1\tr1\ts\tIch <v>bitte Sie.\tFluency/Register\tMinor"],
     "two-open.tsv, line 2, column source and 1 more: a <v> is never closed"),
]


@pytest.mark.parametrize("name, lines, message", WARNED, ids=[w[0] for w in WARNED])
def test_an_unclosed_mark_is_read_to_the_end_and_warned_of(tmp_path, testset, capsys, name, lines, message):
    path = tmp_path / name
    path.write_text(HEADER + "\n" + "".join(ln + "\n" for ln in lines), encoding="utf-8")
    code, out, err = run_cli(capsys, "-m", "chrf", "-i", testset / "A.txt", testset / "B.txt", "-r", testset / "ref",
                             "--doc-ids", testset / "ids", "--human", path, "-q")
    assert code == 0, err
    assert message in err and err.count("never closed") == 1 and "warning" in err
    ratings = read_mqm(str(path))
    (span,) = ratings.segments[("A", "talk.1", "1")].spans
    assert (span.start, span.end) == ((10, 15) if name == "open.tsv" else (0, 1))  # to the end of the text


def test_a_raw_file_has_one_score_column(testset, capsys):
    code, _, err = run_cli(capsys, "-m", "chrf", "-i", testset / "A.txt", testset / "B.txt", "-r", testset / "ref",
                           "--doc-ids", testset / "ids", "--human", testset / "mqm.tsv", "--human-column", "score")
    assert code == 2 and "drop --human-column" in err and len(err.strip().splitlines()) == 1
