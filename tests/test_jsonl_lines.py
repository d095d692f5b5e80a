"""One JSONL line reader (docmetrics/values/jsonl.py) for the four JSONL readers: every bad line (invalid JSON,
a key given twice, nesting too deep, a value that is not an object) is refused by each of them, through the
command line, with exit status 2 and one message naming the file, the line and what a line of that file holds.
Before, the GenMT reader gave a traceback on a deep line, and the WMT25 stored-score and span readers took a
key given twice (the last value won) or a deep line without a word."""

from __future__ import annotations

import json

import pytest
from cli_fixtures import run_cli as run
from test_span_f1 import PRED, genmt_file

from docmetrics.values.errors import InputError
from docmetrics.values.jsonl import MAX_JSON_DEPTH, json_lines


def nested_lists(n: int) -> str:
    """An object holding ``n`` lists one in the next: by hand, n + 1 levels (the object, then each list)."""
    return '{"k": ' + "[" * n + "]" * n + "}"


# -- the four readers, each given a file whose line 1 is good and whose line 2 is the bad line -------------------
def _test_set(tmp, bad):
    path = tmp / "segments.jsonl"
    path.write_text(json.dumps({"doc_id": "d", "src": "s", "mt": "m", "ref": "r"}) + "\n" + bad + "\n",
                    encoding="utf-8")
    return path, ["-m", "chrf", "-i", path, "--jsonl"]


def _genmt(tmp, bad):
    path = tmp / "genmt.jsonl"
    good = {"doc_id": "en-cs_CZ_#_news_#_d1", "src_text": "a", "tgt_text": {"sysA": "b", "refA": "c"}}
    path.write_text(json.dumps(good) + "\n" + bad + "\n", encoding="utf-8")
    return path, ["--genmt", path, "-l", "en-cs", "-m", "chrf"]


def _stored(tmp, bad):
    """WMT25's automatic scores, one file per system (as tests/test_stored_judging.py gives them)."""
    good = json.dumps({"language_pair": "en-de", "domain": "news", "document_id": "d1", "metric_scores": {"M": [0.5]}})
    (tmp / "sysB.jsonl").write_text(good + "\n", encoding="utf-8")
    path = tmp / "sysA.jsonl"
    path.write_text(good + "\n" + bad + "\n", encoding="utf-8")
    return path, ["--scores", path, tmp / "sysB.jsonl"]


def _spans(tmp, bad):
    """Span predictions judged against a GenMT file's error spans (as tests/test_span_f1.py gives them)."""
    path = tmp / "pred.jsonl"
    path.write_text("".join(line + "\n" for line in [json.dumps(PRED[0]), bad, *map(json.dumps, PRED[1:])]),
                    encoding="utf-8")
    return path, ["--genmt", genmt_file(tmp), "--spans", path]


READERS = [
    # (reader, its file and command line, what its messages say a line holds)
    ("test-set", _test_set, "a line holds one JSON object with doc_id, src, mt, ref (a segment)"),
    ("genmt", _genmt, "a line holds one JSON object with doc_id, src_text, tgt_text (a GenMT segment or document)"),
    ("wmt25-stored", _stored, "a line holds one JSON object with language_pair, domain, document_id, metric_scores"),
    ("spans", _spans, "a line holds one JSON object with system, doc_id and errors"),
]

DEEP = "a JSON value nested more than 64 levels deep"
BAD_LINES = [
    # (case, the line, what the message says after "FILE, line 2", whether it says what a line holds)
    # '{"a": 1,}': the '}' at 0-based offset 8 is where a key was expected: character 9
    ("invalid JSON", '{"a": 1,}', ": not valid JSON (Expecting property name enclosed in double quotes at character 9)",
     True),
    ("cut short", '{"doc_id": "x"', ": not valid JSON (Expecting ',' delimiter at character 15)", True),
    ("a key twice", '{"doc_id": "x", "doc_id": "y"}', ", field doc_id: given twice in the object; give each key once",
     False),
    ("a nested key twice", '{"k": {"v": [1, {"a": 1, "a": 2}]}}', ", field k.v[1].a: given twice in the object", False),
    ("65 levels", nested_lists(64), f": {DEEP}", True),
    ("100000 levels (RecursionError)", "[" * 100_000 + "]" * 100_000, f": {DEEP}", True),
    ("100000 levels in an object", '{"k": ' + "[" * 100_000 + "]" * 100_000 + "}", f": {DEEP}", True),
    ("a list", "[1, 2]", ": a list, not a JSON object", True),
    ("a string", '"doc_id"', ": a string, not a JSON object", True),
    ("a number", "3.5", ": a number, not a JSON object", True),
    ("null", "null", ": null, not a JSON object", True),
]


@pytest.mark.parametrize("reader,make,holds", READERS, ids=[r[0] for r in READERS])
@pytest.mark.parametrize("case,line,says,tells", BAD_LINES, ids=[b[0] for b in BAD_LINES])
def test_every_reader_refuses_every_bad_line(tmp_path, capsys, reader, make, holds, case, line, says, tells):
    path, argv = make(tmp_path, line)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "", (code, out, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert f"{path}, line 2{says}" in err, err
    assert (holds in err) == tells, err


@pytest.mark.parametrize("reader,make,holds", READERS, ids=[r[0] for r in READERS])
def test_the_good_line_alone_is_read(tmp_path, capsys, reader, make, holds):
    """The rows above fail for their bad line: the same file without it is read (exit 0)."""
    path, argv = make(tmp_path, "")
    code, out, err = run(capsys, *argv)
    assert code == 0, err


# -- the reader itself ---------------------------------------------------------------------------------------
def test_lines_numbered_from_1_blank_lines_skipped():
    lines = ['{"a": 1}', "", "   ", '{"b": [2, {"c": null}]}']
    got = list(json_lines("f.jsonl", lines, "WHAT"))
    assert got == [(1, "f.jsonl, line 1", {"a": 1}), (4, "f.jsonl, line 4", {"b": [2, {"c": None}]})]


def test_the_depth_limit_is_exact():
    """64 levels are read (one object, 63 lists in it), 65 refused; the limit can be given."""
    assert MAX_JSON_DEPTH == 64
    [(_, _, obj)] = json_lines("f", [nested_lists(63)], "WHAT")
    inner, levels = obj["k"], 2
    while inner:
        inner, levels = inner[0], levels + 1
    assert levels == 64
    with pytest.raises(InputError, match=f"^f, line 1: {DEEP}; a line holds WHAT$"):
        list(json_lines("f", [nested_lists(64)], "WHAT"))
    assert list(json_lines("f", [nested_lists(2)], "WHAT", max_depth=3))
    with pytest.raises(InputError, match="nested more than 3 levels deep"):
        list(json_lines("f", [nested_lists(3)], "WHAT", max_depth=3))
    # brackets inside strings are text, not nesting
    assert list(json_lines("f", ['{"k": "' + "[" * 500 + '"}'], "WHAT"))


def test_a_line_read_up_to_the_bad_one():
    """The reader yields the good lines before it refuses the bad one (it is a generator, reading on)."""
    lines = iter(json_lines("f", ['{"a": 1}', '{"a": 1, "a": 1}'], "WHAT"))
    assert next(lines)[2] == {"a": 1}
    with pytest.raises(InputError, match=r"^f, line 2, field a: given twice"):
        next(lines)


FIELDS = {
    # reader -> (a line missing a field, what the message says; a line with a field of the wrong type, what it says)
    "test-set": ('{"doc_id": "d", "src": "s", "ref": "r"}',
                 ", field mt: missing (fields: doc_id, src, ref); every line needs the system output",
                 '{"doc_id": "d", "src": "s", "mt": 5, "ref": "r"}', ", field mt: 5 is not a string; every line needs"),
    "genmt": ('{"doc_id": "en-cs_CZ_#_news_#_d2", "tgt_text": {"sysA": "b", "refA": "c"}}',
              ", field src_text: missing (fields: doc_id, tgt_text); every line needs the source segment",
              '{"doc_id": "en-cs_CZ_#_news_#_d2", "src_text": 5, "tgt_text": {"sysA": "b", "refA": "c"}}',
              ", field src_text: 5 is not a string; every line needs the source segment"),
    "wmt25-stored": ('{"language_pair": "en-de", "document_id": "d2", "metric_scores": {"M": [0.5]}}',
                     ", field domain: missing (fields: language_pair, document_id, metric_scores); a line of WMT25's",
                     '{"language_pair": "en-de", "domain": " ", "document_id": "d2", "metric_scores": {"M": [0.5]}}',
                     ', field domain: " " is not a non-empty string; a line of WMT25\'s'),
    "spans": ('{"doc_id": "en-de_DE_#_news_#_d1_#_1", "errors": []}',
              ", field system: missing (fields: doc_id, errors); every line names its system",
              '{"system": 5, "doc_id": "en-de_DE_#_news_#_d1_#_1", "errors": []}',
              ", field system: 5 is not a non-empty string; every line names its system"),
}


@pytest.mark.parametrize("reader,make,holds", READERS, ids=[r[0] for r in READERS])
@pytest.mark.parametrize("fault", ["missing", "not a string"])
def test_every_reader_words_a_bad_field_alike(tmp_path, capsys, reader, make, holds, fault):
    """A missing field and a field that is not a string, in one form for every reader (issue 38, item 4):
    ``FILE, line N, field KEY: missing (fields: ...); NEED`` and ``FILE, line N, field KEY: VALUE is not a string;
    NEED`` (MTME's texts likewise: tests/test_mtme_wmt25.py)."""
    missing, says_missing, wrong, says_wrong = FIELDS[reader]
    path, argv = make(tmp_path, missing if fault == "missing" else wrong)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (code, out, err)
    assert f"{path}, line 2{says_missing if fault == 'missing' else says_wrong}" in err, err
