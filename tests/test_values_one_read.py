"""The readers of docmetrics/values after their second paths went (issue 46, slice "values"): the test-set JSONL
read into columns once (no rows of dicts turned back into columns), a JSONL line parsed once (a key given twice
found in the same parse), a candidates file whose per-segment lines are read as documents of one line, and a grid
point written by MetricSpec.format.  Each keeps what the reader said before: the file, the line, the field."""

from __future__ import annotations

import json

import pytest

from docmetrics.algorithms.grids import point_spec
from docmetrics.values.candidates import read_candidates
from docmetrics.values.errors import InputError
from docmetrics.values.io import read_testset
from docmetrics.values.jsonl import json_object
from docmetrics.values.spec import parse_spec


def write(path, rows):
    """``rows`` as JSONL (a string is written as it is: "" is a blank line)."""
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return str(path)


# -- the test-set JSONL (-i FILE.jsonl) -------------------------------------------------------------------------
def test_jsonl_columns_keep_the_files_own_line_numbers_and_number_doc_ids(tmp_path):
    a = write(tmp_path / "a.jsonl", [{"doc_id": 7, "src": "s1", "mt": "m1"}, "", {"doc_id": 7, "src": "s2", "mt": "m2"}])
    b = write(tmp_path / "b.jsonl", [{"doc_id": "7", "src": "s1", "mt": "x1"}, {"doc_id": 7, "src": "s2", "mt": "x2"}])
    ts = read_testset([a, b])
    assert ts.systems == {"a.jsonl": ["m1", "m2"], "b.jsonl": ["x1", "x2"]}
    assert (ts.sources, ts.references, ts.doc_ids) == (["s1", "s2"], None, ["7", "7"])
    assert ts.line_numbers == [1, 3]  # the blank line 2 is no segment


@pytest.mark.parametrize("first, second, said", [
    ([{"src": "s", "mt": "m"}, "", {"mt": "m"}], None, "a.jsonl, line 3: 'src' is missing here but present on other lines"),
    ([{"src": "s", "mt": "m"}, {"src": "t", "mt": "m"}], [{"src": "s", "mt": "x"}, {"src": "T", "mt": "x"}],
     "b.jsonl, line 2: 'src' differs from "),
    ([{"mt": "m"}, {"mt": "m"}], [{"mt": "x"}], "a.jsonl: 2 segments, ", ),
    ([{"mt": 3}], None, "a.jsonl, line 1, field mt: 3 is not a string"),
])
def test_a_bad_jsonl_test_set_names_file_line_and_field(tmp_path, first, second, said):
    paths = [write(tmp_path / "a.jsonl", first)] + ([write(tmp_path / "b.jsonl", second)] if second else [])
    with pytest.raises(InputError) as exc:
        read_testset(paths)
    assert said in str(exc.value)


# -- one JSONL line, parsed once ----------------------------------------------------------------------------------
def test_a_line_without_repeats_is_a_plain_dict():
    value = json_object('{"a": {"b": [1, {"c": 2}]}}', "f, line 1", "WHAT")
    assert value == {"a": {"b": [1, {"c": 2}]}} and type(value) is dict and type(value["a"]) is dict


@pytest.mark.parametrize("text, field", [
    ('{"a": 1, "b": 2, "a": 3}', "a"),
    ('{"x": [{"k": 1}, {"k": 1, "j": 2, "j": 3, "k": 4}]}', "x[1].j"),  # the first key given twice, in text order
    ('{"x": {"y": 1}, "z": {"y": 1, "y": 2}}', "z.y"),
])
def test_a_key_given_twice_is_named_where_it_is(text, field):
    with pytest.raises(InputError) as exc:
        json_object(text, "f, line 2", "WHAT")
    assert str(exc.value) == f"f, line 2, field {field}: given twice in the object; give each key once"


def test_a_line_too_deep_is_refused_before_its_repeated_key():
    text = '{"a": 1, "a": ' + "[" * 70 + "]" * 70 + "}"
    with pytest.raises(InputError, match="nested more than 64 levels deep"):
        json_object(text, "f, line 1", "WHAT")


# -- candidates: one way into the columns for both layouts --------------------------------------------------------
def test_the_two_candidate_layouts_give_the_same_test_set(tmp_path):
    segments = write(tmp_path / "seg.jsonl", [
        {"doc_id": "d", "src": "s1", "paragraph_id": 1, "candidates": ["a1", "b1"]},
        {"doc_id": "d", "src": "s2", "paragraph_id": 1, "candidates": ["a2", "b2"]},
        {"doc_id": "e", "src": "s3", "paragraph_id": 2, "candidates": ["a3", "b3"]}])
    documents = write(tmp_path / "doc.jsonl", [
        {"doc_id": "d", "src": ["s1", "s2"], "paragraph_id": [1, 1], "candidates": [["a1", "a2"], ["b1", "b2"]]},
        {"doc_id": "e", "src": ["s3"], "paragraph_id": [2], "candidates": [["a3"], ["b3"]]}])
    seg, doc = read_candidates(segments), read_candidates(documents)
    assert (seg.layout, doc.layout) == ("segment", "document")
    for read in (seg, doc):
        assert read.testset.systems == {"candidate 0": ["a1", "a2", "a3"], "candidate 1": ["b1", "b2", "b3"]}
        assert (read.testset.sources, read.testset.doc_ids, read.paragraph_ids) == (
            ["s1", "s2", "s3"], ["d", "d", "e"], ["1", "1", "2"])
        assert read.testset.references is None
    assert (seg.testset.line_numbers, doc.testset.line_numbers) == ([1, 2, 3], [1, 1, 2])


@pytest.mark.parametrize("rows, said", [
    ([{"doc_id": "d", "candidates": [["a", "b"], ["c"]]}], "line 1, field candidates[1]: 1 lines, and candidates[0] has 2"),
    ([{"doc_id": "d", "src": "s", "candidates": [["a"], ["b"]]}], "line 1, field src: \"s\" is not a list of lines"),
    ([{"doc_id": "d", "candidates": [[], []]}], "line 1, field candidates: the document has no lines"),
    ([{"doc_id": "d", "ref": ["r", "s"], "candidates": [["a"], ["b"]]}], "line 1, field ref: 2 lines, and the candidates have 1"),
    ([{"candidates": ["a", "b"], "src": "s"}, {"candidates": ["a", "b"], "src": 5}], "line 2, field src: 5 is not a string"),
])
def test_a_bad_candidates_line_names_its_field(tmp_path, rows, said):
    with pytest.raises(InputError) as exc:
        read_candidates(write(tmp_path / "c.jsonl", rows))
    assert said in str(exc.value)


# -- a grid point is a spec ---------------------------------------------------------------------------------------
def test_a_grid_point_is_written_as_a_spec_and_reads_back():
    spec = point_spec("slide:w=6,model=/m/a%2Cb", {"w": "2", "partial": "keep"})
    assert spec == "slide:w=2,model=/m/a%2Cb,partial=keep"
    assert parse_spec(spec).params == {"w": "2", "model": "/m/a,b", "partial": "keep"}
    assert point_spec("chrf", {}) == "chrf"
