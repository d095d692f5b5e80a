"""ASD with unit=segment: align and slide inside each segment, one score per segment.

Each result is checked against an independent path: plain ASD (unit=document) run on a test set in
which every segment is its own document, built by hand; the toy backbone's formula for the chunks;
the means of the segment scores computed here.  A tiny CometKiwi-shaped model with a short maximum
length shows the point of it: SLIDE with w=1 cuts the long multi-sentence segments, unit=segment
cuts nothing, and says how many segments a whole-segment unit would have cut."""

from __future__ import annotations

import json
import math

import pytest
from plugin_fixtures import toy_dist  # noqa: F401

import docmetrics
from docmetrics.cli import main
from docmetrics.judging.evaluate import evaluate_wmt
from docmetrics.values.testset import TestSet

pytestmark = pytest.mark.usefixtures("toy_dist")  # the toy backbone: a fast QE scorer and aligner

TOY = "asd:backbone=toy,aligner=toy"

# Two documents of segments; each segment is a paragraph of one to five sentences.  The MT of a
# segment merges, splits or drops sentences, so the alignment inside it matters.
SRC = {
    "news": [
        "The weather was cold. John put on his jacket. He walked to the station. The train was late.",
        "He read a book.",
        "A bird sat on the roof. The train finally arrived. It was full of people. He found a seat. "
        "The city looked grey.",
    ],
    "talk": [
        "Thank you all for coming. Today I talk about rivers.",
        "Rivers carry water. They shape valleys. They feed cities.",
    ],
}
MT = {
    "A": {
        "news": [
            "It was cold, so John put on his jacket. He walked to the station. The train was late.",
            "He was reading a book.",
            "A bird sat on the roof. The train arrived. It was full. He found a seat next to the "
            "window. The town looked grey and quiet.",
        ],
        "talk": [
            "Thanks for coming. I will talk about rivers today.",
            "Rivers carry water and shape valleys. They feed cities.",
        ],
    },
    "B": {
        "news": [
            "The weather was cold. John put on his jacket. He walked. To the station. The train was late.",
            "",
            "A bird. The train arrived. It was full of people. He sat.",
        ],
        "talk": [
            "Thank you. Today rivers.",
            "Rivers carry water. They shape valleys. They feed cities.",
        ],
    },
}


def flat(by_doc):
    return [seg for segs in by_doc.values() for seg in segs]


def doc_ids():
    return [d for d, segs in SRC.items() for _ in segs]


def make_testset(per_segment_docs=False, references=None):
    ids = doc_ids()
    if per_segment_docs:  # the independent path: every segment its own document
        ids = [f"{d}#{i}" for i, d in enumerate(ids)]
    return TestSet({name: flat(MT[name]) for name in MT}, flat(SRC), references, ids)


def by_line(result):
    return {u.start: u.score for u in result.units}


@pytest.mark.parametrize("extra", ["", ",mode=full", ",chunks=1+3,short=whole", ",anchor=no,band=1"])
def test_each_segment_scores_as_plain_asd_on_that_segment_alone(extra):
    seg = docmetrics.load(f"{TOY},unit=segment{extra}").compute(make_testset())
    plain = docmetrics.load(f"{TOY}{extra}").compute(make_testset(per_segment_docs=True))
    lines = list(range(len(doc_ids())))
    for s, p in zip(seg, plain):
        assert s.system == p.system
        # one unit per segment, on its line; its score is plain ASD's score of the segment as a document
        assert [(u.start, u.end) for u in s.units] == [(i, i + 1) for i in lines]
        assert [u.doc_id for u in s.units] == doc_ids()
        assert by_line(s) == pytest.approx({i: d.score for i, d in enumerate(p.docs)}, abs=1e-12)
        # documents and the system: the means of their segments' scores (computed here)
        for d in s.docs:
            mine = [u.score for u in s.units if u.doc_id == d.doc_id]
            assert d.score == pytest.approx(math.fsum(mine) / len(mine), abs=1e-12) and d.units == len(mine)
        assert s.score == pytest.approx(math.fsum(by_line(s).values()) / len(lines), abs=1e-12)
        assert s.aggregation == "mean" and {u.weight for u in s.units} == {1.0}
        # the same alignments, each placed on its segment
        recs = [dict(r) for r in s.extras["alignment"]]
        assert [(r.pop("line"), r.pop("segment"), r.pop("doc_id")) for r in recs] == [
            (i + 1, pos, d) for i, (d, pos) in enumerate(
                (d, k + 1) for d, segs in SRC.items() for k in range(len(segs)))]
        assert recs == [{k: v for k, v in r.items() if k != "doc_id"} for r in p.extras["alignment"]]
        c, pc = s.coverage.counters, p.coverage.counters
        for key in ("source_sentences", "mt_sentences", "placeholders", "merged_sources", "align_pairs",
                    "align_full_pairs"):
            assert c[key] == pc[key], key
        assert c["chunks"] == p.coverage.units
        assert s.coverage.units == len(lines) and s.coverage.segments_scored == s.coverage.segments_total == 5


def test_a_segment_by_hand_with_the_toy_formula():
    from docmetrics_toy import toy_score

    res = docmetrics.load(f"{TOY},unit=segment,chunks=1+2").compute(make_testset())
    a = res[0]
    # segment 2 ("He read a book." -> "He was reading a book."): one sentence, one unit: the 1-chunk
    assert by_line(a)[1] == pytest.approx(toy_score("He was reading a book.", "He read a book."), abs=1e-12)
    # segment 5, MT of A: 3 source sentences, 2 MT sentences; the mean over k of the k-chunk means,
    # from the rebuilt MT the alignment dump gives
    rec = [r for r in a.extras["alignment"] if r["line"] == 5][0]
    src = [row["source"] for row in rec["alignment"]]
    rebuilt = [row["rebuilt"] for row in rec["alignment"]]
    means = []
    for k in (1, 2):
        vals = [toy_score(" ".join(x for x in rebuilt[i:i + k] if x), " ".join(src[i:i + k]))
                for i in range(len(src) - k + 1)]
        means.append(sum(vals) / len(vals))
    assert by_line(a)[4] == pytest.approx(sum(means) / 2, abs=1e-12)
    assert a.extras["per_k"].keys() == {"1", "2"}


def test_reference_based_scorer_rebuilds_each_segments_reference():
    refs = [s.replace("cold", "chilly").replace("Rivers", "Streams") for s in flat(SRC)]
    spec = "asd:backbone=toy,model=toy-ref,aligner=toy,chunks=1+2"
    seg = docmetrics.load(spec + ",unit=segment").compute(make_testset(references=refs))
    plain = docmetrics.load(spec).compute(make_testset(per_segment_docs=True, references=refs))
    for s, p in zip(seg, plain):
        assert by_line(s) == pytest.approx({i: d.score for i, d in enumerate(p.docs)}, abs=1e-12)
        assert s.coverage.counters["ref_sentences"] == p.coverage.counters["ref_sentences"]
        assert "ref_align_band_edge_segments" in s.coverage.counters


def test_truncation_counters_with_the_toy_maximum():
    # the toy backbone cuts an MT of more than 80 characters: the long paragraphs whole, not their chunks
    res = docmetrics.load(f"{TOY},unit=segment,chunks=1").compute(make_testset())
    slide = docmetrics.load("slide:w=1,s=1,backbone=toy").compute(make_testset())
    for r, sl in zip(res, slide):
        c = r.coverage.counters
        long_lines = sum(len(mt) > 80 for mt in flat(MT[r.system]))
        assert long_lines > 0 and sl.coverage.units_truncated == long_lines
        assert c["segments_over_model_maximum"] == long_lines
        # a 1-chunk is cut only where the alignment merged MT sentences into more than 80 characters
        cut = [[len(row["rebuilt"]) > 80 for row in rec["alignment"]] for rec in r.extras["alignment"]]
        assert c["chunks_truncated"] == sum(map(sum, cut)) < long_lines
        assert r.coverage.units_truncated == sum(map(any, cut))
        assert [u.truncated for u in r.units] == [any(x) for x in cut]
        assert c["chunks"] == c["source_sentences"]  # chunks=1: one chunk per source sentence


def test_segments_without_source_sentences_have_no_unit():
    two = "The cat is small. The dog is old."
    ts = TestSet({"x": [two, "Hello.", "Rivers carry water."]}, [two, "  ", "Rivers carry water."], None,
                 ["d", "d", "e"])
    res = docmetrics.load(f"{TOY},unit=segment").compute(ts)[0]
    assert [u.start for u in res.units] == [0, 2]
    assert res.coverage.counters["segments_without_source_sentences"] == 1
    assert res.coverage.segments_scored == 2 and res.coverage.segments_total == 3
    assert res.coverage.counters["segments_shorter_than_k2"] == 1  # the last one; the empty one has no sentence


def test_default_unit_keeps_the_signature_and_params_and_segment_is_recorded():
    ts = make_testset()
    default = docmetrics.load(TOY).compute(ts)[0]
    explicit = docmetrics.load(f"{TOY},unit=document").compute(ts)[0]
    seg = docmetrics.load(f"{TOY},unit=segment").compute(ts)[0]
    assert "unit" not in str(default.signature) and "unit" not in default.params
    assert str(explicit.signature) == str(default.signature) and explicit.score == default.score
    assert default.aggregation == "mean-of-group-means"
    assert "|anchor:yes|unit:segment|backbone:toy|" in str(seg.signature) and seg.params["unit"] == "segment"
    for short in (False, True):  # the signature parses back to unit=segment and the same number
        again = docmetrics.load(seg.signature.format(short=short))
        assert again.p["unit"] == "segment" and again.compute(ts)[0].score == seg.score
    assert docmetrics.load(str(default.signature)).p["unit"] == "document"
    # a segment's units read nothing but the segment: a VAT selection of single segments is fine
    assert not docmetrics.load(f"{TOY},unit=segment").reads_neighbours()
    assert docmetrics.load(TOY).reads_neighbours()


def test_segment_level_meta_evaluation_uses_the_segment_scores():
    ts = make_testset()
    seg = docmetrics.load(f"{TOY},unit=segment").compute(ts)
    slide = docmetrics.load("slide:w=2,s=1,backbone=toy").compute(ts)
    human = {"A": [80.0, 60.0, 40.0, 90.0, 70.0], "B": [75.0, None, 10.0, 30.0, 95.0]}
    ev = evaluate_wmt({"asd-seg": seg, "slide": slide}, human_seg=human, significance=(), spa=False)
    mine = ev.metrics["asd-seg"]
    assert mine.seg_acc_eq is not None and ev.metrics["slide"].seg_acc_eq is None
    # Pearson over the (system, segment) pairs with a human score, computed here
    xs = [by_line(r)[i] for r in seg for i, h in enumerate(human[r.system]) if h is not None]
    ys = [h for r in seg for h in human[r.system] if h is not None]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    r = cov / math.sqrt(sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys))
    assert mine.seg_n == 9 and mine.seg_pearson == pytest.approx(r, abs=1e-9)


def test_cli_level_seg_lists_one_row_per_segment(tmp_path, capsys):
    rows = [json.dumps({"doc_id": d, "src": s, "mt": m})
            for d, s, m in zip(doc_ids(), flat(SRC), flat(MT["A"]))]
    (tmp_path / "A.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    code = main(["-m", f"{TOY},unit=segment", "-i", str(tmp_path / "A.jsonl"), "--level", "seg", "-w", "10",
                 "-o", str(tmp_path / "seg.tsv")])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = (tmp_path / "seg.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == ["system", "metric", "spec", "doc_id", "seg", "line", "score"]
    table = [x.split("\t") for x in lines[1:]]
    expected = docmetrics.load(f"{TOY},unit=segment").compute(
        TestSet({"A.jsonl": flat(MT["A"])}, flat(SRC), None, doc_ids()))[0]
    assert [(t[3], t[4], t[5]) for t in table] == [("news", "1", "1"), ("news", "2", "2"), ("news", "3", "3"),
                                                  ("talk", "1", "4"), ("talk", "2", "5")]
    assert [float(t[6]) for t in table] == pytest.approx([u.score for u in expected.units], abs=1e-9)
    assert "segments over model maximum" in err and "chunks" in err


# -- a CometKiwi-shaped model with a short maximum length ------------------------------------------
# Sentences of the tiny tokenizer's vocabulary; four of them (source + MT) fit the model's 78 tokens,
# a paragraph of eight does not.
EN = ["The cat is small.", "The dog runs quickly.", "A bird sees the river.", "The train was late.",
      "He reads a book.", "She writes a letter.", "The city is old.", "We walk to the market."]
DE = ["Die katze ist klein.", "Der hund läuft schnell.", "Ein vogel sieht den fluss.", "Der zug war spät.",
      "Er liest ein buch.", "Sie schreibt einen brief.", "Die stadt ist alt.", "Wir gehen zum markt."]


@pytest.fixture(scope="module")
def short_kiwi(tmp_path_factory):
    from docmetrics_backbones.comet.testing import build_tiny_comet

    return build_tiny_comet(tmp_path_factory.mktemp("short-kiwi"), kind="unified", seed=3,
                            max_position_embeddings=82)


def test_short_model_slide_cuts_paragraphs_asd_segment_cuts_nothing(short_kiwi):
    src = [" ".join(EN), EN[0], " ".join(EN[2:6]), " ".join(EN[::-1])]
    mt = [" ".join(DE), DE[0], " ".join(DE[2:4] + DE[5:6]), " ".join(DE[::-1][:7])]  # sentences left out
    ids = ["d1", "d1", "d2", "d2"]
    ts = TestSet({"mt": mt}, src, None, ids)
    model = f"model={short_kiwi}"
    slide = docmetrics.load(f"slide:w=1,s=1,{model}", device="cpu").compute(ts)[0]
    asd = docmetrics.load(f"asd:unit=segment,lang=en-de,{model},aligner_model={short_kiwi}",
                          device="cpu").compute(ts)[0]
    assert slide.coverage.units_truncated == 2  # the two eight-sentence paragraphs (source + MT)
    c = asd.coverage.counters
    assert asd.coverage.units_truncated == 0 and c["chunks_truncated"] == 0 and c["align_inputs_truncated"] == 0
    assert c["segments_over_model_maximum"] == slide.coverage.units_truncated
    assert [(u.start, u.end) for u in asd.units] == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert asd.coverage.segments_scored == 4 and c["segments_shorter_than_k2"] == 1  # the one-sentence one
    assert c["chunks"] == sum(8 - k + 1 for k in (1, 2, 3, 4)) * 2 + 1 + sum(4 - k + 1 for k in (1, 2, 3, 4))
    # and each segment's score is plain ASD's on that segment as its own document
    plain = docmetrics.load(f"asd:lang=en-de,{model},aligner_model={short_kiwi}", device="cpu").compute(
        TestSet({"mt": mt}, src, None, ["s1", "s2", "s3", "s4"]))[0]
    assert [u.score for u in asd.units] == pytest.approx([d.score for d in plain.docs], abs=1e-6)
    assert plain.coverage.units_truncated == 0
