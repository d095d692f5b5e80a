"""A metric's own error spans judged against a raw MQM file's (``docmetrics --human RAW_MQM.tsv -m METRIC
--spans``): the file's rated translations become the test set (its systems, documents from ``doc``, segments
in document order, ``--ref NAME`` one of its human references), a tiny XCOMET scores it, and its spans per
item are judged against the first rater's spans.  The judgement equals (exactly) the one of a PRED.jsonl
written from unbabel-comet's own ``predict()`` on each rated item and judged through ``--human RAW --spans
PRED.jsonl``, and the scorer's functions applied by hand to the fixture's gold; then the bad inputs, each
one line naming the option and the fix."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from cli_fixtures import run_cli as run

from docmetrics.algorithms.spans import Span, item_counts, micro
from docmetrics.formats.mqm import read_mqm
from docmetrics.values.errors import InputError

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
#: (doc, position in it, seg_id) of the four segments, in test-set order
SEGMENTS = [("d1", 1, "1"), ("d1", 2, "2"), ("d2", 1, "3"), ("d2", 2, "4")]
#: system -> segment index -> [(rater, (start, end) in the target | "source" (an omission) | None, severity)]
RATINGS = {
    "sysA": {1: [("r1", None, "No-error")],  # listed first: d1's second segment before its first
             0: [("r1", (0, 7), "Major"), ("r2", (9, 15), "Minor")],  # two raters: the first's spans are gold
             2: [("r1", (4, 12), "Minor"), ("r1", (0, 3), "Neutral")],
             3: [("r1", "source", "Major"), ("r1", (10, 25), "Minor")]},
    "sysB": {0: [("r1", (2, 30), "Minor")], 1: [("r1", (5, 9), "Major")], 2: [("r1", None, "No-error")]},  # no d2/4
    "refA": {i: [("r2", None, "No-error")] for i in range(4)},
    "Human-B": {1: [("r2", (0, 4), "Minor")], 2: [("r2", None, "No-error")], 3: [("r2", None, "No-error")]},
}
SYSTEMS = list(RATINGS)


def texts():
    """(the sources, system -> the targets), sentences a tiny XCOMET finds errors in."""
    from docmetrics_backbones.comet.testing import sample_sentences

    sents = sample_sentences()
    sources = sents[:4]
    targets = {s: sents[4 + 4 * k:8 + 4 * k] for k, s in enumerate(SYSTEMS)}
    return sources, targets


def marked(text, where):
    if where is None or where == "source":
        return text
    a, b = where
    return f"{text[:a]}<v>{text[a:b]}</v>{text[b:]}"


def write_mqm(path):
    sources, targets = texts()
    lines = []
    for system, by_segment in RATINGS.items():
        for i, errors in by_segment.items():
            doc, pos, seg_id = SEGMENTS[i]
            for rater, where, severity in errors:
                source = f"<v>{sources[i]}</v>" if where == "source" else sources[i]
                category = "No-error" if severity == "No-error" else "Accuracy/Mistranslation"
                lines.append(f"{system}\t{doc}\t{pos}\t{seg_id}\t{rater}\t{source}\t{marked(targets[system][i], where)}"
                             f"\t{category}\t{severity}\n")
    path.write_text(HEADER + "".join(lines), encoding="utf-8")
    return path


def gold_spans(system, i):
    """The fixture's gold of an item as the scorer takes it: its first rater's errors, Neutral dropped."""
    errors = RATINGS[system][i]
    first = errors[0][0]
    return [Span(None, None, sev.lower()) if where == "source" else Span(*where, sev.lower())
            for rater, where, sev in errors if rater == first and sev not in ("No-error", "Neutral")]


@pytest.fixture()
def mqm(tmp_path):
    return write_mqm(tmp_path / "mqm.tsv")


# -- the test set ------------------------------------------------------------------------------------------------
def test_testset_of_the_rated_translations(mqm):
    ratings = read_mqm(str(mqm))
    sources, targets = texts()
    assert ratings.systems() == SYSTEMS
    assert ratings.segment_keys() == [(doc, seg_id) for doc, _, seg_id in SEGMENTS]
    assert ratings.unrated("sysB") == [("d2", "4")] and ratings.unrated("refA") == []
    testset = ratings.testset()
    assert list(testset.systems) == SYSTEMS and testset.references is None
    assert testset.sources == sources and testset.doc_ids == ["d1", "d1", "d2", "d2"]
    assert [(d.doc_id, d.start, d.end) for d in testset.documents] == [("d1", 0, 2), ("d2", 2, 4)]
    assert testset.systems["sysA"] == targets["sysA"]  # the marks stripped
    assert testset.systems["sysB"] == [*targets["sysB"][:3], ""]  # not rated on d2/4: an empty line
    with_ref = ratings.testset("refA")
    assert list(with_ref.systems) == ["sysA", "sysB", "Human-B"] and with_ref.references == targets["refA"]
    with pytest.raises(InputError, match="Human-B is not rated on 1 of 4 segments"):
        ratings.testset("Human-B")


# -- the metric's spans against the file's ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def xcomet(tmp_path_factory):
    pytest.importorskip("comet")
    from docmetrics_backbones.comet.testing import build_tiny_comet

    return build_tiny_comet(tmp_path_factory.mktemp("xcomet") / "model", "xcomet", seed=0)


def predicted_file(xcomet, path, reference=None):
    """PRED.jsonl from unbabel-comet's own predict() on every rated item (of the systems but ``reference``),
    and the scorer's counts of the same spans against the fixture's gold, per system."""
    import comet

    model = comet.load_from_checkpoint(str(xcomet / "checkpoints" / "model.ckpt"))
    sources, targets = texts()
    lines, counts = [], {}
    for system in SYSTEMS:
        if system == reference:
            continue
        rated = sorted(RATINGS[system])
        data = [{"src": sources[i], "mt": targets[system][i],
                 **({"ref": targets[reference][i]} if reference else {})} for i in rated]
        spans = model.predict(data, batch_size=3, gpus=0, progress_bar=False).metadata.error_spans
        items = []
        for i, found in zip(rated, spans):
            doc, _, seg_id = SEGMENTS[i]
            lines.append(json.dumps({"system": system, "doc": doc, "seg_id": seg_id, "errors": [
                {"start_i": d["start"], "end_i": d["end"], "severity": d["severity"]} for d in found]}) + "\n")
            items.append(item_counts(gold_spans(system, i), [Span(d["start"], d["end"], d["severity"]) for d in found],
                                     len(targets[system][i])))
        counts[system] = micro(items)
    path.write_text("".join(lines), encoding="utf-8")
    assert sum(c.pred for c in counts.values()) > 0 and sum(c.full + c.partial for c in counts.values()) > 0
    return path, counts


@pytest.mark.parametrize("spec, reference", [("xcomet-qe:model={}", None), ("xcomet:model={}", "refA")],
                         ids=["qe", "ref"])
def test_metric_spans_equal_the_file_of_its_spans(xcomet, mqm, tmp_path, capsys, spec, reference):
    spec = spec.format(xcomet)
    ref = ["--ref", reference] if reference else []
    code, out, err = run(capsys, "--human", mqm, "-m", spec, *ref, "--spans", "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    [metric] = data["predictors"]
    assert metric["predictor"] == spec and f"|qe:{'no' if reference else 'yes'}|" in metric["signature"]
    pred, counts = predicted_file(xcomet, tmp_path / "pred.jsonl", reference)
    code, out, err = run(capsys, "--human", mqm, "--spans", pred, "-f", "json")
    assert code == 0, err
    [from_file] = json.loads(out)["predictors"]
    assert metric["overall"] == from_file["overall"] and metric["systems"] == from_file["systems"]
    assert metric["spans"] == from_file["spans"]
    assert metric["overall"] == micro(counts.values()).to_dict()  # the scorer by hand, on the fixture's gold
    assert metric["systems"] == {s: c.to_dict() for s, c in counts.items()}
    assert metric["overall"]["items"] == (10 if reference else 14)  # sysB and Human-B: 3 rated segments each
    shared = {"gold omissions (no offsets)": 1, "gold spans of severity neutral (not an error)": 1}
    assert metric["left_out"] == shared
    assert from_file["left_out"] == ({**shared, "systems without predictions (refA)": 1} if reference else shared)
    assert "1 of 14 items have several raters" in data["notes"][0]
    unrated = f"2 of {12 if reference else 16} items (a system's segment) are not rated"  # sysB's d2/4, Human-B's d1/1
    assert any(n.startswith(unrated) for n in data["notes"]), data["notes"]
    assert any("refA (--ref) is the reference" in n for n in data["notes"]) == bool(reference)
    code, out, err = run(capsys, "--human", mqm, "-m", spec, *ref, "--spans", pred)  # beside a file: the table
    assert code == 0, err
    assert spec in out and str(pred) in out and "Error spans (WMT25 subtask 2)" in out


# -- bad input: exit 2, one line naming the option and the fix -----------------------------------------------------
BAD = [  # (name, arguments after --human mqm.tsv (MODEL: the tiny XCOMET), what the one line must hold)
    ("reference-based metric without --ref", ["-m", "xcomet:model=MODEL", "--spans"],
     ["-m xcomet:model=", "scores against a reference", "give --ref NAME", "(refA, Human-B)", "-m xcomet-qe"]),
    ("--ref naming no system", ["-m", "xcomet:model=MODEL", "--ref", "refZ", "--spans"],
     ["--ref refZ:", "rates no system refZ", "give one of", "(refA, Human-B)"]),
    ("--ref not rated on every segment", ["-m", "xcomet:model=MODEL", "--ref", "Human-B", "--spans"],
     ["--ref Human-B:", "on 1 of 4 segments", "doc 'd1', seg_id '1'", "(refA)", "-m xcomet-qe"]),
    ("--ref naming two", ["-m", "xcomet:model=MODEL", "--ref", "refA,Human-B", "--spans"],
     ["--ref refA,Human-B:", "one reference", "(refA, Human-B)"]),
    ("--ref without -m", ["--ref", "refA", "--spans", "PRED"], ["--ref refA", "drop --ref"]),
    ("metric without spans", ["-m", "chrf", "--ref", "refA", "--spans"],
     ["-m chrf gives no error spans", "xcomet-qe", "gemba-mqm"]),
]


@pytest.mark.parametrize("name, argv, message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_exits_2_with_one_line(xcomet, mqm, tmp_path, capsys, name, argv, message):
    pred = tmp_path / "pred.jsonl"
    pred.write_text(json.dumps({"system": "sysA", "doc": "d1", "seg_id": "1", "errors": []}) + "\n", encoding="utf-8")
    argv = [str(pred) if a == "PRED" else a.replace("MODEL", str(xcomet)) for a in argv]
    code, out, err = run(capsys, "--human", mqm, *argv)
    assert code == 2 and out == "", err
    assert len(err.strip().splitlines()) == 1, err
    for part in message:
        assert part in err, err


@pytest.mark.parametrize("spec", ["chrf", "bleu"])
def test_a_metric_without_spans_is_refused_before_it_scores(mqm, capsys, monkeypatch, spec):
    """issue 37: -m chrf --spans was refused only after scoring (19-26 s on real data): now before."""
    import docmetrics.judging.score_systems as scoring

    monkeypatch.setattr(scoring, "score_metrics", lambda *a, **k: pytest.fail("scored before it was refused"))
    code, out, err = run(capsys, "--human", mqm, "-m", spec, "--ref", "refA", "--spans")
    assert code == 2 and out == "" and f"-m {spec} gives no error spans per segment" in err, err


def test_a_tsv_that_is_not_raw_mqm_exits_2(tmp_path, capsys):
    derived = tmp_path / "seg_scores.tsv"
    derived.write_text("system\tdoc_id\tseg_id\tdoc_pos\tmqm_penalty\nsysA\td1\t1\t1\t5\n", encoding="utf-8")
    code, out, err = run(capsys, "--human", derived, "-m", "xcomet-qe", "--spans")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert f"--human {derived}: the file has no error spans; give a raw MQM file" in err


# -- the real TED file (not in the repository: skipped without it) -------------------------------------------------
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21_ted_ende"
#: the whole raw file, e.g. from `git show HEAD:ted/ende/mqm_ted_ende.tsv` in google/wmt-mqm-human-evaluation
FULL = os.environ.get("DOCMETRICS_MQM_TED_ENDE")


@pytest.mark.skipif(not (FULL and (SHARED / "segments.tsv").exists()),
                    reason="set DOCMETRICS_MQM_TED_ENDE to the whole raw mqm_ted_ende.tsv (and have ../shared)")
def test_ted_testset_is_the_shared_segments():
    """The test set of the raw file is ../shared's segments.tsv (laid out from the same release): the same
    segments in the same order, documents, sources and translations (its ref is ref-A there)."""
    csv.field_size_limit(10**9)
    with open(SHARED / "segments.tsv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    testset = read_mqm(FULL).testset()
    by_system = {}
    for r in rows:
        by_system.setdefault("ref" if r["system"] == "ref-A" else r["system"], []).append(r)
    assert sorted(testset.systems) == sorted(by_system) and testset.n_segments == 529
    for system, segments in by_system.items():
        assert testset.doc_ids == [r["doc_id"] for r in segments]
        assert testset.sources == [r["source"] for r in segments]
        assert testset.systems[system] == [r["hypothesis"] for r in segments], system
