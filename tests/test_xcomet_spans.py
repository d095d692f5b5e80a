"""XCOMET's error spans (issue 29, part 3): a tiny XCOMET-architecture model (XCOMETMetric, word-level tags
O/minor/major/critical) built offline; the comet backbone's spans equal unbabel-comet's own ``predict()``
``metadata.error_spans`` on the same model and inputs (with and without the reference, batch sizes 1 and 7),
the score cache gives them back without loading the model, SLIDE windows' spans land on the segments they
fall in (hand-computed, and against predict() on each window, character by character), the presets, and
the span F1 of the metric's own spans through ``--genmt FILE -m ... --spans`` equals the scorer's functions
applied by hand to predict()'s spans."""

from __future__ import annotations

import importlib.util
import json

import pytest
from cli_fixtures import run_cli as run

if importlib.util.find_spec("comet") is None:  # not importorskip: importing COMET takes seconds, and the
    pytest.skip("unbabel-comet is not installed", allow_module_level=True)  # quick tier needs none of it

from docmetrics_backbones.comet.backbone import CometBackbone  # noqa: E402
from docmetrics_backbones.comet.testing import build_tiny_comet, sample_sentences  # noqa: E402
from docmetrics_metrics.slide.spans import first_window_spans, split_window_spans  # noqa: E402

import docmetrics  # noqa: E402
from docmetrics.algorithms.spans import Span, item_counts, micro  # noqa: E402
from docmetrics.plugin.backbone import Unit  # noqa: E402
from docmetrics.runtime import cache as cache_module  # noqa: E402
from docmetrics.values.units import UnitSpan  # noqa: E402

SENTS = sample_sentences()
DATA = [{"src": SENTS[i], "mt": SENTS[i + 1], "ref": SENTS[i + 2]} for i in range(0, 150, 3)]


@pytest.fixture(scope="module")
def xcomet(tmp_path_factory):
    return build_tiny_comet(tmp_path_factory.mktemp("xcomet") / "model", "xcomet", seed=0)


@pytest.fixture(scope="module")
def comet_model(xcomet):
    import comet

    return comet.load_from_checkpoint(str(xcomet / "checkpoints" / "model.ckpt"))


def predicted(model, data, batch_size=4):
    """unbabel-comet's own predict(): scores and error spans."""
    out = model.predict(data, batch_size=batch_size, gpus=0, progress_bar=False)
    return list(out.scores), list(out.metadata.error_spans)


def assert_same_spans(ours, theirs):
    assert [(s.start, s.end, s.severity) for s in ours] == [(d["start"], d["end"], d["severity"]) for d in theirs]
    assert [s.confidence for s in ours] == pytest.approx([d["confidence"] for d in theirs], abs=1e-5)


# -- the backbone against predict() ---------------------------------------------------------------------------
@pytest.mark.parametrize("with_ref", [True, False], ids=["src+mt+ref", "qe"])
def test_spans_equal_comets_predict(xcomet, comet_model, with_ref):
    data = DATA if with_ref else [{"src": d["src"], "mt": d["mt"]} for d in DATA]
    data = data[:20]
    scores, spans = predicted(comet_model, data)
    assert sum(map(len, spans)) > 20 and {d["severity"] for x in spans for d in x} == {"minor", "major", "critical"}
    for batch_size in (1, 7):
        backbone = CometBackbone(str(xcomet), batch_size=batch_size)
        assert backbone.gives_spans
        records = backbone.score([Unit(**d) for d in data]).records()
        assert [r.score for r in records] == pytest.approx(scores, abs=1e-6)
        for record, theirs in zip(records, spans):
            assert_same_spans(record.spans, theirs)


def test_duplicate_units_share_their_spans(xcomet, comet_model):
    units = [Unit(**DATA[0]), Unit(**DATA[1]), Unit(**DATA[0])]
    records = CometBackbone(str(xcomet)).score(units).records()
    assert records[0] == records[2]
    _, spans = predicted(comet_model, DATA[:2])
    assert_same_spans(records[1].spans, spans[1])


def test_other_checkpoints_give_no_spans_and_keep_their_signature(tmp_path):
    kiwi = build_tiny_comet(tmp_path / "kiwi", "unified", seed=0)
    backbone = CometBackbone(str(kiwi))
    assert not backbone.gives_spans and backbone.cache_state() == {} and backbone.p == {}
    out = backbone.score([Unit(mt=d["mt"], src=d["src"]) for d in DATA[:3]])
    assert out.unit_details is None and all(not r.spans for r in out.records())
    assert "qe" not in [f.key for f in backbone.signature_fields()]


def test_qe_parameter_chooses_the_inputs(xcomet):
    from docmetrics.plugin.backbone import QE, REFERENCE

    assert CometBackbone(str(xcomet)).capabilities == {QE, REFERENCE}
    assert CometBackbone(str(xcomet), qe=False).capabilities == {REFERENCE}
    assert CometBackbone(str(xcomet), qe=True).capabilities == {QE}
    fields = {f.key: f.value for f in CometBackbone(str(xcomet), qe=False).signature_fields()}
    assert fields["qe"] == "no"


# -- the score cache -------------------------------------------------------------------------------------------
def test_cache_gives_the_spans_without_loading_the_model(xcomet, comet_model, tmp_path, monkeypatch):
    testset = docmetrics.TestSet.from_lists({"sys": [d["mt"] for d in DATA[:6]]}, [d["src"] for d in DATA[:6]],
                                            [d["ref"] for d in DATA[:6]], ["a"] * 3 + ["b"] * 3)
    spec = f"xcomet:model={xcomet}"
    path = tmp_path / "scores.sqlite"
    got = []
    for run_kind in ("scored", "cached"):
        if run_kind == "cached":
            def refuse(self):
                raise AssertionError("the model was loaded")
            monkeypatch.setattr(CometBackbone, "load", refuse)
        with cache_module.ScoreCache(path) as store:
            session = docmetrics.Session(cache=store)
            (result,) = docmetrics.load(spec, session=session).compute(testset)
            session.close()
        got.append(result)
    _, spans = predicted(comet_model, DATA[:6])
    for result in got:
        for unit, theirs in zip(result.units, spans):
            assert_same_spans(unit.spans, theirs)
        assert result.extras["segment_spans"] == {u.start: u.spans for u in result.units}
    assert got[0].units == got[1].units


# -- SLIDE windows ----------------------------------------------------------------------------------------------
def test_window_spans_split_at_segment_boundaries_by_hand():
    # "aaaaa bbb cccc": segment 0 at 0-4, the joiner at 5, segment 1 at 6-8, the joiner at 9, segment 2 at 10-13
    spans = [UnitSpan(3, 8, "major", 0.9),  # across the first boundary: 3-5 | 0-2
             UnitSpan(5, 6, "minor", 0.5),  # the joiner alone: nowhere
             UnitSpan(8, 14, "critical", 0.7),  # the last character of segment 1 and all of segment 2
             UnitSpan(6, 6, "minor", 0.4)]  # no character: at the start of segment 1
    assert split_window_spans([5, 3, 4], spans) == [
        (UnitSpan(3, 5, "major", 0.9),),
        (UnitSpan(0, 2, "major", 0.9), UnitSpan(2, 3, "critical", 0.7), UnitSpan(0, 0, "minor", 0.4)),
        (UnitSpan(0, 4, "critical", 0.7),)]
    with pytest.raises(ValueError):
        split_window_spans([5, 3], [UnitSpan(0, 10, "minor")])
    # overlapping windows (w=2, s=1) over segments 0-2: each segment keeps its first window's spans
    first = first_window_spans([(0, 2, [UnitSpan(0, 1, "minor"), UnitSpan(6, 7, "major")]),
                                (1, 3, [UnitSpan(0, 3, "critical")])], [5, 3, 4])
    assert first == {0: (UnitSpan(0, 1, "minor"),), 1: (UnitSpan(0, 1, "major"),), 2: ()}


def char_marks(spans, lo, hi):
    """{(character - lo, severity)} that ``spans`` cover between ``lo`` and ``hi``."""
    return {(c - lo, d["severity"]) for d in spans for c in range(max(d["start"], lo), min(d["end"], hi))}


@pytest.mark.parametrize("w,s", [(2, 1), (3, 3)])
def test_slide_window_spans_land_on_their_segments(xcomet, comet_model, w, s):
    hyp = [d["mt"] for d in DATA[28:44]]  # sentences where spans run over the joiner
    src = [d["src"] for d in DATA[28:44]]
    testset = docmetrics.TestSet.from_lists({"sys": hyp}, src, None, ["a"] * 9 + ["b"] * 7)
    (result,) = docmetrics.load(f"slide:w={w},s={s},model={xcomet}").compute(testset)
    # by hand: the windows, predict() on each joined window, each segment's characters from its first window
    docs = [(0, 9), (9, 16)]
    windows = [(a + k, a + k + w) for a, b in docs for k in range(0, b - a - w + 1, s)]
    assert [(u.start, u.end) for u in result.units] == windows
    _, spans = predicted(comet_model, [{"src": " ".join(src[a:b]), "mt": " ".join(hyp[a:b])} for a, b in windows])
    expected, split = {}, 0
    for (a, b), found in zip(windows, spans):
        offset = 0
        for line in range(a, b):
            marks = char_marks(found, offset, offset + len(hyp[line]))
            expected.setdefault(line, marks)
            joiner = offset + len(hyp[line])  # a span over it is cut there (COMET's offsets of "▁Word" hold the space)
            split += line < b - 1 and any(d["start"] <= joiner < d["end"] for d in found)
            offset += len(hyp[line]) + 1
    got = result.extras["segment_spans"]
    assert sorted(got) == sorted(expected)
    for line, marks in expected.items():
        assert char_marks([x.to_dict() for x in got[line]], 0, len(hyp[line])) == marks, line
    assert split, "no span covers a joiner: the cut is not exercised"
    listed = {d["line"] - 1: d for d in result.detail["segment_spans"]}
    assert set(listed) == {line for line, x in got.items() if x}
    assert listed[min(listed)]["doc_id"] in ("a", "b")
    n = sum(len(x) for x in got.values())
    assert any(note.startswith(f"{n} error spans (") for note in result.coverage.notes)


def test_level_seg_json_and_text_counts(xcomet, tmp_path, capsys):
    for name, lines in (("src", [d["src"] for d in DATA[:4]]), ("ref", [d["ref"] for d in DATA[:4]]),
                        ("a", [d["mt"] for d in DATA[:4]]), ("b", [d["mt"] for d in DATA[4:8]])):
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    files = ["-s", tmp_path / "src.txt", "-r", tmp_path / "ref.txt"]
    code, out, err = run(capsys, "-m", f"xcomet:model={xcomet}", "-i", tmp_path / "a.txt", tmp_path / "b.txt", *files,
                         "-f", "json", "--level", "seg")
    assert code == 0, err
    data = json.loads(out)
    assert "|qe:no|" in data[0]["signature"]
    for r in data:
        by_line = {d["line"]: d["spans"] for d in r["detail"]["segment_spans"]}
        assert {u["start"] + 1: u["spans"] for u in r["units"] if u.get("spans")} == by_line
    code, out, err = run(capsys, "-m", f"xcomet:model={xcomet}", "-i", tmp_path / "a.txt", tmp_path / "b.txt", *files)
    assert code == 0 and "error spans (" in err and " minor, " in err and " critical)" in err, err


def test_presets(capsys):
    from docmetrics import api

    for name, qe in (("xcomet", "no"), ("xcomet-qe", "yes")):
        metric, raw, _ = api.resolve(name)
        assert metric == "slide" and raw["model"] == "Unbabel/XCOMET-XL" and raw["qe"] == qe
        assert (raw["w"], raw["s"]) == ("1", "1")
    code, out, _ = run(capsys, "--describe", "xcomet")
    assert code == 0 and "Guerreiro" in out and "xCOMET" in out


# -- span judging of the metric's own spans --------------------------------------------------------------------
GOLD = [[{"start_i": 0, "end_i": 6, "severity": "major"}], [],
        [{"start_i": 3, "end_i": 20, "severity": "minor"}, {"start_i": "missing", "end_i": "missing",
                                                            "severity": "major"}], [{"start_i": 5, "end_i": 9,
                                                                                     "severity": "critical"}]]


def genmt_file(tmp_path):
    path = tmp_path / "humeval.jsonl"
    systems = {"sysA": DATA[:4], "sysB": DATA[4:8]}
    with open(path, "w", encoding="utf-8") as f:
        for i in range(4):
            f.write(json.dumps({
                "doc_id": f"en-de_DE_#_news_#_d{i // 2}_#_{i % 2}", "src_text": DATA[i]["src"],
                "tgt_text": {**{s: rows[i]["mt"] for s, rows in systems.items()}, "refA": DATA[i]["ref"]},
                "scores": {s: [{"score": 70, "errors": GOLD[(i + k) % 4], "protocol": "ESA"}]
                           for k, s in enumerate(systems)}}) + "\n")
    return path, systems


def test_genmt_spans_of_the_metric_equal_the_scorer_by_hand(xcomet, comet_model, tmp_path, capsys):
    path, systems = genmt_file(tmp_path)
    code, out, err = run(capsys, "--genmt", path, "-m", f"xcomet:model={xcomet}", "--spans", "-f", "json")
    assert code == 0, err
    [found] = json.loads(out)["predictors"]
    assert found["predictor"] == f"xcomet:model={xcomet}" and "|qe:no|" in found["signature"]
    counts = {}
    for k, (system, rows) in enumerate(systems.items()):
        _, spans = predicted(comet_model, [{"src": DATA[i]["src"], "mt": d["mt"], "ref": DATA[i]["ref"]}
                                           for i, d in enumerate(rows)])
        items = []
        for i, (row, pred) in enumerate(zip(rows, spans)):
            gold = [Span(None, None, e["severity"]) if e["start_i"] == "missing" else
                    Span(e["start_i"], e["end_i"], e["severity"]) for e in GOLD[(i + k) % 4]]
            items.append(item_counts(gold, [Span(d["start"], d["end"], d["severity"]) for d in pred], len(row["mt"])))
        counts[system] = micro(items)
    overall = micro(counts.values())
    assert found["overall"] == pytest.approx(overall.to_dict())
    for system, c in counts.items():
        assert found["systems"][system] == pytest.approx(c.to_dict())
    assert found["left_out"] == {"gold omissions (no offsets)": 2}
    # beside a file's predictions: one more predictor, the same numbers for the metric
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps({"doc_id": f"en-de_DE_#_news_#_d{i // 2}_#_{i % 2}", "system": "sysA",
                                        "errors": []}) + "\n" for i in range(4)), encoding="utf-8")
    code, out, err = run(capsys, "--genmt", path, "-m", f"xcomet:model={xcomet}", "--spans", pred, "-f", "json")
    assert code == 0, err
    files, metric = json.loads(out)["predictors"]
    assert files["predictor"] == str(pred) and metric["overall"] == pytest.approx(overall.to_dict())
    code, out, err = run(capsys, "--genmt", path, "-m", f"xcomet:model={xcomet}", "--spans")
    assert code == 0 and f"xcomet:model={xcomet}" in out and "Error spans (WMT25 subtask 2)" in out, err


def test_genmt_spans_bad_combinations(xcomet, tmp_path, capsys):
    path, _ = genmt_file(tmp_path)
    code, _, err = run(capsys, "--genmt", path, "--spans")
    assert code == 2 and "give the span predictions" in err
    code, _, err = run(capsys, "--genmt", path, "-m", "chrf", "--spans")
    assert code == 2 and "gives no error spans" in err, err
    code, _, err = run(capsys, "-m", f"xcomet:model={xcomet}", "--spans", "-i", path)
    assert code == 2 and "drop -i" in err, err
