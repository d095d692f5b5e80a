"""The GenMT JSONL reader (docmetrics.formats.genmt): a tiny GenMT file written here (two language pairs,
two domains, the three shapes human scores come in, a doc id with and without the segment number, the
plain document-level layout), read back and checked field by field against what was written; every
malformed input a row of one table, each an InputError naming the file, the line and the field."""

from __future__ import annotations

import json
import math

import pytest

from docmetrics.formats.base import Span
from docmetrics.formats.genmt import REFERENCE, read_genmt, target_language
from docmetrics.values.errors import InputError

SPAN = {"start_i": 4, "end_i": 9, "severity": "minor"}
LONG_SRC = " ".join(f"Sentence number {k} of a long paragraph talks about the river and the city." for k in range(12))


def lines_of_a_genmt_file():
    """(the JSON objects, one per line) of a humeval-layout file."""
    en_de = "en-de_DE"
    out = []
    # en-de, news, doc n1: 3 segments with their numbers, written out of order; one long paragraph
    for k in (2, 0, 1):
        out.append({
            "doc_id": f"{en_de}_#_news_#_n1_#_{k}",
            "src_text": LONG_SRC if k == 1 else f"News source {k}.",
            "tgt_text": {"sysA": f"A news {k}.", "sysB": f"B news {k}.", REFERENCE: f"Ref news {k}."},
            "scores": {"sysA": {"human": 90 - k, "errors": [] if k else [SPAN]},   # one annotation
                       "sysB": {"human1": 60, "errors1": [SPAN], "annotator1": "x",  # two waves
                                "human2": 70, "errors2": [], "annotator2": "y"}},
        })
    # en-de, speech, doc s1: 2 segments in file order (no numbers), annotations as a list; no scores on one
    out.append({"doc_id": f"{en_de}_#_speech_#_s1", "src_text": "Speech one.",
                "tgt_text": {"sysA": "A speech one.", "sysB": "B speech one.", REFERENCE: "Ref speech one."},
                "scores": {"sysA": [{"score": 100, "errors": [], "annotator": "u"},
                                    {"score": 80, "errors": [], "annotator": "v"}],
                           "sysB": [{"score": 100}]}})
    out.append({"doc_id": f"{en_de}_#_speech_#_s1", "src_text": "Speech two.",
                "tgt_text": {"sysA": "A speech two.", "sysB": "B speech two.", REFERENCE: "Ref speech two."}})
    # en-sr (Cyrillic), news only, no reference, different systems
    for k in range(2):
        out.append({"doc_id": f"en-sr_Cyrl_RS_#_news_#_m_#_{k}", "src_text": f"Serbian source {k}.",
                    "tgt_text": {"sysC": f"C {k}."}, "scores": {"sysC": {"human": 50 + k, "errors": []}}})
    return out


def write(tmp_path, rows, name="genmt.jsonl"):
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n"
                            for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def genmt(tmp_path):
    return write(tmp_path, lines_of_a_genmt_file())


def test_pairs_domains_documents_segments(genmt):
    data = read_genmt(genmt)
    assert data.language_pairs() == ["en-de_DE", "en-sr_Cyrl_RS"]
    assert data.pair("en-de_DE").domains == ["news", "speech"] and data.pair("en-sr_Cyrl_RS").domains == ["news"]
    de = data.pair("en-de")  # without the locale: the one pair it names
    assert de is data.pair("en-de_DE") and data.pair("en-sr").name == "en-sr_Cyrl_RS"
    assert (de.source_language, de.target_language, de.lang) == ("en", "de", "en-de")
    assert target_language("en-sr_Cyrl_RS") == "sr" and target_language("cs-de_DE") == "de"
    assert [(d.doc_id, d.domain, d.start, d.end) for d in de.documents] == [
        ("en-de_DE_#_news_#_n1", "news", 0, 3), ("en-de_DE_#_speech_#_s1", "speech", 3, 5)]
    # segments ordered by their number where the doc id has one (written 2, 0, 1), else in file order
    assert [(s.position, s.line, s.source[:13]) for s in de.segments] == [
        (1, 2, "News source 0"), (2, 3, "Sentence numb"), (3, 1, "News source 2"),
        (1, 4, "Speech one."), (2, 5, "Speech two.")]
    assert de.segments[1].source == LONG_SRC
    assert de.systems == ["sysA", "sysB"] and data.pair("en-sr").systems == ["sysC"]
    assert de.outputs["sysB"] == ["B news 0.", "B news 1.", "B news 2.", "B speech one.", "B speech two."]
    assert de.reference == ["Ref news 0.", "Ref news 1.", "Ref news 2.", "Ref speech one.", "Ref speech two."]
    assert data.pair("en-sr").reference is None


def test_human_scores_and_error_spans(genmt):
    de = read_genmt(genmt).pair("en-de_DE")
    a, b = de.human["sysA"], de.human["sysB"]
    assert [j.score if j else None for j in a] == [90, 89, 88, 90, None]          # 100 and 80: their mean
    assert a[3].scores == (100.0, 80.0) and a[0].errors == (Span(4, 9, "minor"),) and a[1].errors == ()
    assert [j.score if j else None for j in b] == [65, 65, 65, 100, None]         # two waves: their mean
    assert b[0].scores == (60.0, 70.0) and b[0].errors == (Span(4, 9, "minor"),)  # wave 1's span
    assert b[3].errors is None and b[4] is None and a[0].line == 2
    assert de.human_scores() == {"sysA": [90, 89, 88, 90, None], "sysB": [65, 65, 65, 100, None]}
    # gold error-free (WMT26 subtask 3): no span AND ESA >= 85; a score alone: >= score_only_threshold
    assert de.error_free() == {"sysA": [False, True, True, True, None],
                               "sysB": [False, False, False, True, None]}
    assert de.error_free(threshold=89.5)["sysA"] == [False, False, False, True, None]
    assert de.error_free(score_only_threshold=101)["sysB"][3] is False
    assert read_genmt(genmt).pair("en-sr").human_scores() == {"sysC": [50, 51]}


def test_testset_for_a_pair_and_its_domains(genmt):
    data = read_genmt(genmt)
    ts = data.pair("en-de_DE").testset()
    assert list(ts.systems) == ["sysA", "sysB"] and ts.references is None
    assert ts.sources == [s.source for s in data.pair("en-de").segments]
    assert [(d.doc_id, d.start, d.end) for d in ts.documents] == [
        ("en-de_DE_#_news_#_n1", 0, 3), ("en-de_DE_#_speech_#_s1", 3, 5)]
    with_ref = data.pair("en-de").testset(reference=True, include_reference=True)
    assert with_ref.references == data.pair("en-de").reference and list(with_ref.systems)[-1] == REFERENCE
    speech = data.pair("en-de").select(["speech"]).testset(["sysB"])
    assert speech.systems == {"sysB": ["B speech one.", "B speech two."]} and speech.n_segments == 2
    sel = data.pair("en-de").select(["speech"])
    assert [(d.start, d.end) for d in sel.documents] == [(0, 2)]
    assert sel.human_scores() == {"sysA": [90, None], "sysB": [100, None]}
    assert "tgt_text.sysB" in speech.describe("sysB") and str(genmt) in speech.describe("source")


def test_document_lines_of_the_plain_release(tmp_path):
    rows = [
        {"doc_id": "cs-de_DE_#_news_#_d1", "domain": "news", "src_lang": "cs", "tgt_lang": "de_DE",
         "src_text": "Prvni odstavec.\n\nDruhy odstavec. Dve vety.", "refs": {"refA": {"ref": "Eins.\n\nZwei. Zwei."}},
         "tgt_text": {"sysA": "A eins.\n\nA zwei."}},
        {"doc_id": "cs-de_DE_#_social_#_d2", "src_text": "Jen jeden.", "refs": {},  # no reference
         "tgt_text": {"sysA": "A nur eins."}},
    ]
    data = read_genmt(write(tmp_path, rows))
    pair = data.pair("cs-de")
    assert pair.domains == ["news", "social"] and [len(d) for d in pair.documents] == [2, 1]
    assert pair.sources == ["Prvni odstavec.", "Druhy odstavec. Dve vety.", "Jen jeden."]
    assert pair.outputs["sysA"][:2] == ["A eins.", "A zwei."] and pair.outputs[REFERENCE][:2] == ["Eins.", "Zwei. Zwei."]
    assert pair.reference is None and pair.human == {} and pair.outputs["sysA"][2] == "A nur eins."
    assert [s.line for s in pair.segments] == [1, 1, 2] and [s.position for s in pair.segments] == [1, 2, 1]
    news = data.pair("cs-de").select(["news"]).testset(reference=True)
    assert news.references == ["Eins.", "Zwei. Zwei."]


GOOD = {"doc_id": "en-de_DE_#_news_#_n1_#_0", "src_text": "S.", "tgt_text": {"sysA": "A.", "refA": "R."},
        "scores": {"sysA": {"human": 90, "errors": []}}}


def changed(**fields):
    row = json.loads(json.dumps(GOOD))
    for key, value in fields.items():
        if value is ...:
            row.pop(key)
        else:
            row[key] = value
    return row


BAD = [
    # (name, lines of the file, the message's pattern: file, line and field)
    ("not JSON", [GOOD, "{not json"], r"line 2: not valid JSON"),
    ("not an object", ["[1, 2]"], r"line 1: a list, not a JSON object"),
    ("a key twice", ['{"doc_id": "en-de_DE_#_n_#_d", "doc_id": "x"}'], r"line 1, field doc_id: given twice"),
    ("no src_text", [changed(src_text=...)], r"line 1, field src_text: missing"),
    ("src_text not text", [changed(src_text=3)], r"line 1, field src_text: 3 is not a string"),
    ("no tgt_text", [GOOD, changed(tgt_text=...)], r"line 2, field tgt_text: missing"),
    ("tgt_text not an object", [changed(tgt_text=["A."])], r"line 1, field tgt_text: .* is not an object"),
    ("an output not text", [changed(tgt_text={"sysA": None})], r"line 1, field tgt_text.sysA: null is not a string"),
    ("a scored system without output", [changed(scores={"sysZ": {"human": 3}})],
     r"line 1, field scores.sysZ: system 'sysZ' has human scores but no output"),
    ("a score not a number", [changed(scores={"sysA": {"human": "good"}})],
     r"line 1, field scores.sysA.human: the human score \"good\" is not a number"),
    ("a wave's score not a number", [changed(scores={"sysA": {"human2": "x"}})], r"field scores.sysA.human2"),
    ("errors not a list", [changed(scores={"sysA": {"human": 5, "errors": "many"}})],
     r"line 1, field scores.sysA.errors: .* is not a list"),
    ("an annotation not an object", [changed(scores={"sysA": [3]})], r"line 1, field scores.sysA\[0\]"),
    ("a span offset not a number", [changed(scores={"sysA": [{"score": 5, "errors": [{"start_i": "a"}]}]})],
     r"line 1, field scores.sysA\[0\].errors\[0\].start_i"),
    ("scores not an object", [changed(scores=[1])], r"line 1, field scores: .* is not an object"),
    # issue 27: offsets and scores a real file could not have
    ("an omission on one side only", [changed(scores={"sysA": [{"score": 5, "errors": [
        {"start_i": "missing", "end_i": 1}]}]})], r"field scores.sysA\[0\].errors\[0\].start_i: 'missing' on one side"),
    ("a negative offset", [changed(scores={"sysA": [{"score": 5, "errors": [{"start_i": -5, "end_i": 1}]}]})],
     r"field scores.sysA\[0\].errors\[0\].start_i: -5 is negative"),
    ("start after end", [changed(scores={"sysA": [{"score": 5, "errors": [{"start_i": 2, "end_i": 1}]}]})],
     r"field scores.sysA\[0\].errors\[0\]: start_i 2 is after end_i 1"),
    ("a span past the text", [changed(scores={"sysA": [{"score": 5, "errors": [{"start_i": 1, "end_i": 3}]}]})],
     r"field scores.sysA\[0\].errors\[0\]: the span 1-3 ends past the translation it marks \(2 characters\)"),
    ("an ESA score above 100", [changed(scores={"sysA": [{"score": 150, "protocol": "ESA"}]})],
     r"field scores.sysA\[0\].score: the ESA score 150 is outside 0-100"),
    ("an ESA score below 0", [changed(scores={"sysA": {"human": -20}})],
     r"field scores.sysA.human: the ESA score -20 is outside 0-100"),
    ("an ESA score near the float limit", [changed(scores={"sysA": [{"score": 1e308}]})],
     r"field scores.sysA\[0\].score: the ESA score 1e\+308 is outside 0-100"),
    ("no doc_id", [changed(doc_id=...)], r"line 1, field doc_id: missing"),
    ("doc_id of two parts", [changed(doc_id="en-de_DE_#_news")], r"line 1, field doc_id: .* is not LP_#_DOMAIN_#_DOC"),
    ("doc_id without a pair", [changed(doc_id="english_#_news_#_d")], r"field doc_id: .* does not start with a language pair"),
    ("segment number not a number", [changed(doc_id="en-de_DE_#_news_#_d_#_x")], r"field doc_id: the segment number 'x'"),
    ("a segment twice", [GOOD, GOOD], r"line 2, field doc_id: segment 0 of document .* given twice \(also line 1\)"),
    ("numbers on some lines only", [GOOD, changed(doc_id="en-de_DE_#_news_#_n1")],
     r"line 2, field doc_id: document .* has segment numbers on some lines only"),
    ("segment counts differ across systems", [GOOD, changed(doc_id="en-de_DE_#_news_#_n1_#_1", tgt_text={"sysA": "A.", "sysB": "B."}),
                                              changed(doc_id="en-de_DE_#_news_#_n1_#_2")],
     r"line 1, field tgt_text: system 'sysB' has no output for this segment .* 1 segments of en-de_DE where the "
     r"pair has 3"),
    ("a document line's paragraphs differ", [{"doc_id": "en-de_DE_#_news_#_d", "src_text": "A.\n\nB.", "refs": {},
                                              "tgt_text": {"sysA": "one paragraph"}}],
     r"line 1, field tgt_text.sysA: 1 segments .* but src_text has 2"),
    ("a document line's reference differs", [{"doc_id": "en-de_DE_#_news_#_d", "src_text": "A.\n\nB.",
                                              "refs": {"refA": {"ref": "R."}}}], r"line 1, field refs.refA.ref: 1 segments"),
    ("a document line with scores", [{"doc_id": "en-de_DE_#_news_#_d", "src_text": "A.", "refs": {}, "scores": {}}],
     r"line 1, field scores: a document line"),
    ("an empty file", [], r"no line with a segment"),
]


@pytest.mark.parametrize("name,rows,pattern", BAD, ids=[b[0] for b in BAD])
def test_bad_input_names_file_line_and_field(tmp_path, name, rows, pattern):
    path = write(tmp_path, rows)
    with pytest.raises(InputError, match=pattern) as info:
        read_genmt(path)
    assert str(path) in str(info.value)


LOOKUPS = [
    # (what is asked of a good file, the message's pattern)
    (lambda d: d.pair("fr-de"), r"no language pair 'fr-de' \(field doc_id, its first part\); the file has en-de_DE"),
    (lambda d: d.pair("en-de").select(["sport"]), r"language pair en-de_DE has no domain 'sport' \(field doc_id.* "
                                                   r"it has news, speech"),
    (lambda d: d.pair("en-sr").testset(reference=True), r"en-sr_Cyrl_RS has no reference \(field tgt_text.refA\)"),
    (lambda d: d.pair("en-de").testset(["sysZ"]), r"has no system 'sysZ' \(field tgt_text\)"),
    (lambda d: d.pair("en-de").select([]), r"no domain given"),
]


@pytest.mark.parametrize("ask,pattern", LOOKUPS)
def test_unknown_pair_domain_system_or_missing_reference(genmt, ask, pattern):
    with pytest.raises(InputError, match=pattern) as info:
        ask(read_genmt(genmt))
    assert str(genmt) in str(info.value)


def test_a_reference_missing_on_some_segments_is_named_where_it_is_needed(tmp_path):
    rows = lines_of_a_genmt_file()
    del rows[4]["tgt_text"][REFERENCE]  # "Speech two." has no reference
    data = read_genmt(write(tmp_path, rows))
    assert data.pair("en-de").reference is None
    with pytest.raises(InputError, match=r"line 5, field tgt_text.refA: segment 2 of document "
                                         r"'en-de_DE_#_speech_#_s1' has no reference, but 4 of the 5"):
        data.pair("en-de").testset(reference=True)
    assert data.pair("en-de").select(["news"]).testset(reference=True).references[0] == "Ref news 0."


def test_ambiguous_pair_without_locale(tmp_path):
    rows = [changed(doc_id=f"en-sr_{script}_RS_#_news_#_d_#_0") for script in ("Cyrl", "Latn")]
    data = read_genmt(write(tmp_path, rows))
    with pytest.raises(InputError, match=r"'en-sr' is ambiguous here: en-sr_Cyrl_RS, en-sr_Latn_RS"):
        data.pair("en-sr")
    assert data.pair("en-sr_Latn_RS").name == "en-sr_Latn_RS"


def test_score_is_the_exact_mean_of_the_annotations(tmp_path):
    row = changed(scores={"sysA": [{"score": 0.1}, {"score": 0.2}, {"annotator": "z"}, {"score": 0.4}]})
    (j,) = read_genmt(write(tmp_path, [row])).pair("en-de").human["sysA"]
    assert j.score == math.fsum([0.1, 0.2, 0.4]) / 3 and j.scores == (0.1, 0.2, 0.4) and j.errors is None
    assert j.error_free() is False and j.error_free(score_only_threshold=0.2) is True


def test_gold_flags_feed_the_error_free_detector(genmt):
    from docmetrics.algorithms.detection import detect, items

    de = read_genmt(genmt).pair("en-de")
    metric = {"sysA": [0.2, 0.9, 0.8, 0.7, 0.6], "sysB": [0.9, 0.1, 0.3, 0.95, 0.5]}
    gold, scores = items(de.error_free(), metric)
    # gold (see above): A F T T T -, B F F F T -: the unjudged last segments are left out
    d = detect(gold, scores, threshold=0.75)
    # predicted (>= .75): A .9 .8, B .9 .95 -> tp: A2 A3 B4 = 3, fp: B1 = 1, fn: A4 (.7) = 1, tn: A1 B2 B3 = 3
    assert (d.n, d.skipped, d.tp, d.fp, d.fn, d.tn) == (8, 2, 3, 1, 1, 3)


def test_an_omission_is_an_error_with_no_place(tmp_path):
    """ESA marks an omission with start_i = end_i = "missing" (the WMT24 release has 478): an error span
    without offsets, so the translation is not error-free, whatever its score."""
    omission = {"start_i": "missing", "end_i": "missing", "severity": "major", "error_type": None}
    row = changed(scores={"sysA": [{"score": 95.0, "errors": [omission, {"start_i": 0, "end_i": 2,
                                                                         "severity": "undecided"}]}]})
    (j,) = read_genmt(write(tmp_path, [row])).pair("en-de").human["sysA"]
    assert j.errors == (Span(None, None, "major"), Span(0, 2, "undecided")) and j.score == 95
    assert j.error_free() is False
    only = changed(scores={"sysA": [{"score": 95.0, "errors": [omission]}]})
    (j,) = read_genmt(write(tmp_path, [only])).pair("en-de").human["sysA"]
    assert j.errors == (Span(None, None, "major"),) and j.error_free() is False


def test_scores_of_another_protocol_are_read_as_given(tmp_path):
    """The 0-100 check is ESA's; an annotation naming another protocol keeps its scale, and a mean
    near the float limit does not overflow."""
    row = changed(scores={"sysA": [{"score": -25.0, "protocol": "MQM"}, {"score": -5.0, "protocol": "MQM"}]})
    (j,) = read_genmt(write(tmp_path, [row])).pair("en-de").human["sysA"]
    assert j.score == -15.0
    big = changed(scores={"sysA": [{"score": 1e308, "protocol": "X"}, {"score": 1e308, "protocol": "X"}]})
    (j,) = read_genmt(write(tmp_path, [big])).pair("en-de").human["sysA"]
    assert j.score == 1e308


def test_a_document_that_reappears_is_read_as_one_and_said(tmp_path):
    n = {k: changed(doc_id=f"en-de_DE_#_news_#_n1_#_{k}") for k in range(2)}
    other = changed(doc_id="en-de_DE_#_news_#_n2_#_0")
    data = read_genmt(write(tmp_path, [n[0], other, n[1]]))
    assert [(d.doc_id, len(d)) for d in data.pair("en-de").documents] == [
        ("en-de_DE_#_news_#_n1", 2), ("en-de_DE_#_news_#_n2", 1)]
    (said,) = data.warnings
    assert said.startswith(f"{tmp_path / 'genmt.jsonl'}, line 3: document 'en-de_DE_#_news_#_n1' reappears after "
                           "document 'en-de_DE_#_news_#_n2'") and "by its segment numbers" in said
    plain = [changed(doc_id=d) for d in ("en-de_DE_#_news_#_a", "en-de_DE_#_news_#_b", "en-de_DE_#_news_#_a")]
    assert "in file order" in read_genmt(write(tmp_path, plain)).warnings[0]
    assert read_genmt(write(tmp_path, [n[0], n[1], other])).warnings == []
