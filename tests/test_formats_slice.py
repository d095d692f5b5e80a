"""The judged-data formats after their second paths went (issue 46, the size part): a GenMT file's ESA spans
reach the report through the human scores as a raw MQM file's do (one ``error_spans``); a raw MQM file is read
once; one reader of a score written as text; one expression of a pair without its locales; the registry's one
lookup finds docmetrics' own formats without reading any plugin."""

from __future__ import annotations

import json

import pytest

from docmetrics.formats import human_tsv
from docmetrics.formats import mqm as mqm_module
from docmetrics.formats.base import bare_pair
from docmetrics.formats.stored_metric import parse_score
from docmetrics.formats.wmt26 import iso_pair
from docmetrics.judging import formats as registry
from docmetrics.judging import read_human
from docmetrics.judging.tools import error_spans
from docmetrics.values.errors import InputError

DOC = "en-de_DE_#_news_#_d1"


def genmt_file(tmp_path):
    """Two segments of one document, two systems and the reference judged, spans on some of them (an omission
    among them)."""
    rows = [
        {"doc_id": f"{DOC}_#_1", "src_text": "Eins.", "tgt_text": {"sysA": "One.", "sysB": "Uno.", "refA": "One!"},
         "scores": {"sysA": {"human": 90, "errors": [{"start_i": 0, "end_i": 3, "severity": "minor"}]},
                    "sysB": {"human": 40, "errors": []},
                    "refA": {"human": 95, "errors": [{"start_i": 3, "end_i": 4, "severity": "major"}]}}},
        {"doc_id": f"{DOC}_#_2", "src_text": "Zwei.", "tgt_text": {"sysA": "Two.", "sysB": "Dos.", "refA": "Two!"},
         "scores": {"sysA": {"human": 70, "errors": []},
                    "sysB": {"human": 20, "errors": [{"start_i": "missing", "end_i": "missing",
                                                      "severity": "major"}]}}},
    ]
    path = tmp_path / "genmt.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_genmt_spans_are_carried_by_the_human_scores_and_placed_on_the_lines(tmp_path):
    data = read_human(genmt_file(tmp_path))
    assert set(data.human.system) == {"sysA", "sysB"}  # the reference is judged, not scored as a system
    assert set(data.human.spans) == {"sysA", "sysB", "refA"}  # its spans are kept, as the report showed them
    assert error_spans(data.human, data.testset) == {
        "sysA": {"0": [[0, 3, "minor", ""]]},
        "refA": {"0": [[3, 4, "major", ""]]},
        "sysB": {"1": [[None, None, "major", ""]]},  # an omission: no place
    }


def test_every_judged_output_of_the_raw_pair_gives_the_same_report_spans(tmp_path):
    """What error_spans gives from the human scores is what the GenMT pair's judgements hold, line by line."""
    data = read_human(genmt_file(tmp_path))
    pair = data.raw
    by_hand = {system: {str(line): [[e.start, e.end, e.severity, ""] for e in j.errors]
                        for line, j in enumerate(judged) if j is not None and j.errors}
               for system, judged in pair.human.items()}
    assert error_spans(data.human, data.testset) == {s: v for s, v in by_hand.items() if v}


MQM = ("system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
       "sysA\td1\t1\t1\tr1\tQuelle eins.\t<v>One</v> target.\tAccuracy/Mistranslation\tMajor\n"
       "sysA\td1\t2\t2\tr1\t<v>Quelle</v> zwei.\tTwo target.\tAccuracy/Omission\tMinor\n"
       "sysB\td1\t1\t1\tr1\tQuelle eins.\tUno target.\tNo-error\tNo-error\n"
       "sysB\td1\t2\t2\tr1\tQuelle zwei.\tDos <v>target</v>.\tFluency/Grammar\tMinor\n")


def test_a_raw_mqm_file_is_read_once_and_its_spans_reach_the_report(tmp_path, monkeypatch):
    path = tmp_path / "ratings.tsv"
    path.write_text(MQM, encoding="utf-8")
    reads = []
    for module in (mqm_module, human_tsv):  # each reader of the file's lines
        monkeypatch.setattr(module, "read_lines", lambda p, read=module.read_lines: reads.append(str(p)) or read(p))
    data = read_human(path)
    assert reads == [str(path)]
    assert data.human.raw_mqm and data.human.system == {"sysA": -3.0, "sysB": -0.5}
    assert error_spans(data.human, data.testset) == {
        "sysA": {"0": [[0, 3, "major", "Accuracy/Mistranslation"]], "1": [[None, None, "minor", "Accuracy/Omission"]]},
        "sysB": {"0": [], "1": [[4, 10, "minor", "Fluency/Grammar"]]},  # a clean segment: no span
    }


@pytest.mark.parametrize("text,kwargs,expected", [
    ("0.25", {}, 0.25), ("-3", {}, -3.0), ("nan", {"nan_is_missing": True}, None), ("1e200", {"bounded": False}, 1e200)])
def test_parse_score_reads_a_score(text, kwargs, expected):
    assert parse_score(text, "f, line 2", "write None", **kwargs) == expected


@pytest.mark.parametrize("text,kwargs,message", [
    ("good", {}, "f, line 2: 'good' is not a number; write None where a score is missing"),
    ("inf", {}, "f, line 2: 'inf' is not a finite number; write None where a score is missing"),
    ("nan", {}, "f, line 2: 'nan' is not a finite number"),
    ("1e200", {}, "f, line 2: '1e200' is beyond ±1e+100, too large to average or resample"),
])
def test_parse_score_names_where_and_how_a_missing_score_is_written(text, kwargs, message):
    with pytest.raises(InputError) as caught:
        parse_score(text, "f, line 2", "write None", **kwargs)
    assert str(caught.value).startswith(message)


def test_one_expression_of_a_pair_without_its_locales():
    assert [bare_pair(p) for p in ("en-sr_Cyrl_RS", "EN-de_DE", "cs-uk", "ja_JP-zh_CN")] == [
        "en-sr", "en-de", "cs-uk", "ja-zh"]
    assert iso_pair("eng_Latn-isl_Latn") == "en-is" and iso_pair("ces_Latn-ukr_Cyrl") == "cs-uk"


def test_human_format_finds_its_own_formats_without_reading_the_plugins(monkeypatch):
    from docmetrics.plugin import registry as plugins

    def refuse(kind):
        raise AssertionError("the plugins were read")

    monkeypatch.setattr(plugins, "names", refuse)
    assert registry.human_format("genmt").name == "genmt"
    assert [f.name for f in registry.human_formats(plugins=False)] == [f.name for f in registry.builtin()]


@pytest.mark.parametrize("errors,message", [
    ({"start_i": 0}, "W: {\"start_i\": 0} is not a list of error spans"),
    ([{"start_i": 0, "end_i": 1, "severity": "minor"}, 3], "W[1]: 3 is not an error span"),
])
def test_one_reader_of_a_list_of_error_spans_for_gold_and_predictions(errors, message):
    from docmetrics.formats.base import span_objects
    from docmetrics.formats.esa import read_spans

    for read in (lambda: span_objects(errors, "W"), lambda: read_spans(errors, "W", None)):
        with pytest.raises(InputError) as caught:
            read()
        assert str(caught.value).startswith(message)
    assert span_objects([{"start_i": 0}], "W") == [("W[0]", {"start_i": 0})]
