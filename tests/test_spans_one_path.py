"""One error-span path (issue 46): each format carries its gold spans (``HumanFormat.spans``), ``--spans`` reads
with ``read_human`` and judges with ``span_f1``, so the command prints what the library returns; a metric's spans
are keyed by ``SpanGold.lines`` and judged on the test set's systems; a raw MQM file's reference is checked once,
by its reader."""

from __future__ import annotations

import dataclasses
import json

import pytest
from cli_fixtures import run_cli as run
from test_span_f1 import PRED, TEXTS, genmt_file, pred_file

import docmetrics
from docmetrics.judging import Span, SpanGold, SpanItem, check_gives_spans, read_human, span_f1
from docmetrics.judging import formats as registry
from docmetrics.values.errors import InputError, UserError
from docmetrics.values.testset import TestSet
from docmetrics.values.units import UnitSpan

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
#: a raw MQM file: refA rated everywhere, sysA twice (two raters on d1/1), sysB not on d2/1, Human-B not on d1/2
ROWS = [
    ("sysA", "d1", 1, "1", "r1", "A cat.", "Eine <v>Katze</v>.", "Major"),
    ("sysA", "d1", 1, "1", "r2", "A cat.", "<v>Eine</v> Katze.", "Minor"),
    ("sysA", "d1", 2, "2", "r1", "A dog.", "Ein <v>Hund</v>.", "Minor"),
    ("sysA", "d2", 1, "3", "r1", "<v>A bird.</v>", "Ein.", "Major"),
    ("sysB", "d1", 1, "1", "r1", "A cat.", "Die Katze.", "No-error"),
    ("sysB", "d1", 2, "2", "r1", "A dog.", "<v>Der</v> Hund.", "Major"),
    ("refA", "d1", 1, "1", "r3", "A cat.", "Eine Katze.", "No-error"),
    ("refA", "d1", 2, "2", "r3", "A dog.", "Ein Hund.", "No-error"),
    ("refA", "d2", 1, "3", "r3", "A bird.", "Ein Vogel.", "No-error"),
    ("Human-B", "d1", 1, "1", "r3", "A cat.", "Die Katze.", "No-error"),
    ("Human-B", "d2", 1, "3", "r3", "A bird.", "Ein Vogel.", "No-error"),
]


@pytest.fixture()
def mqm(tmp_path):
    path = tmp_path / "mqm.tsv"
    path.write_text(HEADER + "".join(
        f"{s}\t{doc}\t{pos}\t{seg}\t{rater}\t{src}\t{tgt}\t{'No-error' if sev == 'No-error' else 'Accuracy'}\t{sev}\n"
        for s, doc, pos, seg, rater, src, tgt, sev in ROWS), encoding="utf-8")
    return path


def with_spans(results, spans):
    """chrF's Results given ``spans`` (system -> line -> [(start, end, severity)]) as a metric's spans per
    segment (``extras["segment_spans"]``, as SLIDE and XCOMET give them)."""
    return [dataclasses.replace(r, extras={"segment_spans": {
        line: [UnitSpan(a, b, sev) for a, b, sev in found] for line, found in spans.get(r.system, {}).items()}})
        for r in results]


# -- the formats carry their spans ------------------------------------------------------------------------------
def test_each_format_with_spans_builds_them_in_its_own_module():
    built = {f.name: f for f in registry.builtin()}
    assert {name for name, f in built.items() if f.spans is not None} == {"genmt", "mqm", "cesa"}
    for name in ("genmt", "mqm", "cesa"):
        assert built[name].spans.__module__ == f"docmetrics.formats.{name}"
    assert not hasattr(registry, "_GOLD_SPANS")
    import docmetrics.judging.spans as judging_spans

    assert not any(hasattr(judging_spans, n) for n in ("genmt_gold", "mqm_gold", "mqm_keys"))


def test_gold_lines_key_each_line_of_the_test_set(tmp_path, mqm):
    data = read_human(str(genmt_file(tmp_path)), lp="en-de")
    assert data.spans.lines == [("en-de_DE_#_news_#_d1_#_0",), ("en-de_DE_#_news_#_d1_#_1",)]
    assert len(data.spans.lines) == data.testset.n_segments
    raw = read_human(str(mqm))
    assert raw.spans.lines == [("d1", "1"), ("d1", "2"), ("d2", "3")]
    assert raw.testset.doc_ids == [doc for doc, _ in raw.spans.lines]
    # the gold of an item: its first rater's target spans; an omission (a source mark) has no place
    assert raw.spans.items[("sysA", "d1", "1")].gold == (Span(5, 10, "major"),)
    assert raw.spans.items[("sysA", "d2", "3")].gold == (Span(None, None, "major"),)
    assert ("sysB", "d2", "3") not in raw.spans.items  # not rated


# -- the command prints what span_f1 returns -------------------------------------------------------------------
def test_genmt_command_is_span_f1(tmp_path, capsys):
    gold, pred = genmt_file(tmp_path), pred_file(tmp_path, PRED)
    code, out, err = run(capsys, "--genmt", gold, "--spans", pred, "-f", "json")
    assert code == 0, err
    data = read_human(str(gold), lp="en-de")
    printed = json.loads(out)
    assert printed["predictors"] == [span_f1(pred, data).to_dict()] and printed["gold"] == data.spans.text
    # --human reads any format that has spans: the same judgement through a GenMT file
    code, out, err = run(capsys, "--human", gold, "-l", "en-de", "--spans", pred, "-f", "json")
    assert code == 0, err
    assert json.loads(out) == printed


def test_mqm_command_is_span_f1(mqm, tmp_path, capsys):
    pred = pred_file(tmp_path, [{"system": "sysA", "doc": "d1", "seg_id": "1",
                                 "errors": [{"start_i": 5, "end_i": 10, "severity": "minor"}]},
                                {"system": "sysA", "doc": "d1", "seg_id": "2", "errors": []},
                                {"system": "sysA", "doc": "d2", "seg_id": "3", "errors": []}])
    code, out, err = run(capsys, "--human", mqm, "--spans", pred, "-f", "json")
    assert code == 0, err
    data = read_human(str(mqm))
    printed = json.loads(out)
    assert printed["predictors"] == [span_f1(pred, data).to_dict()]
    assert printed["gold"] == data.spans.text and printed["notes"] == data.spans.notes
    assert printed["notes"] == ["1 of 10 items have several raters: the first rater's spans are the gold, as "
                                "WMT25's dev set takes an item's first annotation"]


# -- a metric's spans: keyed by the gold's lines, judged on the test set's systems ------------------------------
def test_a_metric_is_judged_on_its_test_set_systems_as_a_file_of_its_spans(mqm, tmp_path):
    data = read_human(str(mqm), reference="refA")
    assert list(data.testset.systems) == ["sysA", "sysB", "Human-B"]
    spans = {"sysA": {0: [(5, 10, "major")], 1: [(0, 3, "minor")], 2: []}, "sysB": {0: [], 1: [(0, 3, "major")]},
             "Human-B": {0: [], 2: []}}
    results = with_spans(docmetrics.load("chrf").compute(data.testset), spans)
    judged = span_f1(results, data, name="mine")
    rows = [{"system": s, "doc": data.spans.lines[line][0], "seg_id": data.spans.lines[line][1],
             "errors": [{"start_i": a, "end_i": b, "severity": sev} for a, b, sev in found]}
            for s, by_line in spans.items() for line, found in by_line.items()]
    from_file = span_f1(pred_file(tmp_path, rows), data)
    assert judged.overall == from_file.overall and judged.systems == from_file.systems
    assert judged.overall.items == 7 and judged.predictor == "mine" and judged.signature
    # the reference is no system of the test set: not counted as one without predictions, as it is for the file
    assert "systems without predictions (refA)" not in judged.left_out
    assert from_file.left_out["systems without predictions (refA)"] == 1
    # a SpanGold (public names only) with the key of each line judges a metric's Results too
    gold = SpanGold("toy", None, ("doc", "seg_id"),
                    {("sysA", "d1", "1"): SpanItem("sysA", "sysA d1/1", 11, (Span(5, 10, "major"),))},
                    "toy gold", lines=data.spans.lines)
    alone = span_f1(results[:1], gold)
    assert alone.overall.items == 1 and alone.overall.scores().f1 == 1.0
    with pytest.raises(InputError, match="name no item per line"):
        span_f1(results, dataclasses.replace(gold, lines=[]))


def test_genmt_metric_spans_equal_the_file(tmp_path):
    data = read_human(str(genmt_file(tmp_path)), lp="en-de")
    t = data.testset  # the file has no reference: chrF scores against the sources (its spans are given below)
    scored = TestSet(dict(t.systems), t.sources, t.sources, t.doc_ids)
    results = with_spans(docmetrics.load("chrf").compute(scored),
                         {"sysA": {0: [], 1: [(4, 8, "minor")]}, "sysB": {0: [(8, 16, "minor"), (0, 3, "major")],
                                                                          1: []}})
    judged = span_f1(results, data)
    from_file = span_f1(pred_file(tmp_path, PRED), data)
    assert judged.to_dict() | {"predictor": None, "signature": None} == \
        from_file.to_dict() | {"predictor": None, "signature": None}
    assert list(TEXTS) == list(judged.systems)


def test_a_metric_without_spans_is_refused_by_name():
    check_gives_spans("xcomet", type("M", (), {"backbone": object()})())
    with pytest.raises(UserError, match="-m chrf gives no error spans per segment"):
        check_gives_spans("chrf", docmetrics.load("chrf"))


# -- a raw MQM file's reference: checked by its reader ---------------------------------------------------------
@pytest.mark.parametrize("reference, message", [
    ("refZ", r"mqm.tsv rates no system refZ; give one of .*mqm.tsv's human references \(refA, Human-B\)"),
    (["refA", "Human-B"], r"against one reference, not 2; give one of .*\(refA, Human-B\)"),
    ("Human-B", r"Human-B is not rated on 1 of 3 segments \(e.g. doc 'd1', seg_id '2'\), which would have no "
                r"reference; give a reference rated on every segment \(refA\) or score with a reference-free"),
])
def test_the_mqm_reader_checks_its_reference(mqm, reference, message):
    with pytest.raises(InputError, match=message) as caught:
        read_human(str(mqm), reference=reference)
    assert caught.value.params == ("reference",)


def test_the_only_rated_system_is_no_reference(tmp_path):
    path = tmp_path / "one.tsv"
    path.write_text(HEADER + "refA\td1\t1\t1\tr1\tA cat.\tEine Katze.\tNo-error\tNo-error\n", encoding="utf-8")
    with pytest.raises(InputError, match="refA is the only system .* rates, so no system would be judged"):
        read_human(str(path), reference="refA")


def test_the_command_words_the_reference_as_ref(mqm, capsys):
    code, out, err = run(capsys, "--human", mqm, "-m", "chrf", "--ref", "Human-B", "--spans")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "--ref Human-B: " in err and "(refA) or use a QE metric, e.g. -m xcomet-qe" in err


# -- WMT26 cESA (the documented stand-in): its spans are span_f1's gold, the one module cesa.py adding them ------
def test_cesa_spans_are_span_f1_gold(tmp_path):
    from test_formats_cesa import DATA, DOCS, SYSTEMS, TEST_FILE, judgement, write

    path = write(tmp_path / "cesa.jsonl", [judgement(d, s, a) for d in range(len(DOCS)) for s in range(len(SYSTEMS))
                                           for a in range(2)])
    with pytest.raises(InputError, match="read it with test_file= and systems="):
        _ = read_human(str(path)).spans
    data = read_human(str(path), test_file=str(TEST_FILE), systems=str(DATA / "systems"), references=["refA"])
    gold = data.spans
    assert gold.fields == ("doc_id",) and len(gold.items) == len(DOCS) * len(SYSTEMS)
    assert gold.notes == [f"{len(gold.items)} of {len(gold.items)} items are judged more than once: the first "
                          "judgement's spans are the gold"]
    assert gold.items[(SYSTEMS[2], DOCS[0])].gold == (Span(0, 7, "minor"),)  # the fixture's 0 .. 5 + system
    # each system's spans predicted as judged, but the first system's as major: half credit there
    rows = [{"system": s, "doc_id": d, "errors": [{"start_i": 0, "end_i": 5 + k,
                                                   "severity": "major" if k == 0 else "minor"}]}
            for d in DOCS for k, s in enumerate(SYSTEMS)]
    judged = span_f1(pred_file(tmp_path, rows), data)
    assert judged.systems[SYSTEMS[1]].scores().f1 == 1.0 and judged.systems[SYSTEMS[0]].scores().f1 == 0.5
    assert judged.overall.items == len(gold.items) and judged.left_out == {}
    # the release's documents are split into paragraphs: no line is a whole item, so a metric's spans are refused
    assert gold.lines == []
    with pytest.raises(InputError, match="name no item per line"):
        span_f1(docmetrics.load("chrf").compute(data.testset), data)


# -- GenMT prediction lines: how the format locates their item (SpanGold.locate) ----------------------------------
def test_genmt_lines_name_items_by_doc_id_and_segment_position(tmp_path):
    rows = [("news", "d1", "Ein Hund bellt."), ("news", "d1", "Er schläft."), ("social", "d2", "Hallo Welt.")]
    path = tmp_path / "nonum.jsonl"
    path.write_text("".join(json.dumps({
        "doc_id": f"en-de_DE_#_{domain}_#_{doc}", "src_text": "x", "tgt_text": {"sysA": text},
        "scores": {"sysA": [{"score": 70, "errors": [{"start_i": 0, "end_i": 3, "severity": "minor"}]}]}}) + "\n"
        for domain, doc, text in rows), encoding="utf-8")

    def line(doc, **extra):
        return {"system": "sysA", "doc_id": doc, "errors": [{"start_i": 0, "end_i": 3, "severity": "minor"}], **extra}

    news = read_human(str(path), domains=["news"])
    assert news.spans.lines == [("en-de_DE_#_news_#_d1#1",), ("en-de_DE_#_news_#_d1#2",)]
    judged = span_f1(pred_file(tmp_path, [line("en-de_DE_#_news_#_d1", segment=1),
                                          line("en-de_DE_#_news_#_d1", segment=2),
                                          line("en-de_DE_#_social_#_d2"), line("en-cs_CZ_#_news_#_d9")]), news)
    assert judged.overall.items == 2 and judged.overall.scores().f1 == 1.0
    assert judged.left_out == {"lines of domains not selected": 1, "lines of other language pairs than en-de_DE": 1}
    for rows_, message in (([line("en-de_DE_#_news_#_d1")], "line 1, field segment: missing; the lines of .* name "
                                                              "documents, not segments"),
                           ([line("en-de_DE_#_news_#_d1", segment=5)], "document 'en-de_DE_#_news_#_d1' of .* has no "
                                                                        "segment 5"),
                           ([line("en-de_DE_#_news_#_d1", segment="1")], "field segment: \"1\" is not a 1-based")):
        with pytest.raises(InputError, match=message):
            span_f1(pred_file(tmp_path, rows_, "bad.jsonl"), news)
