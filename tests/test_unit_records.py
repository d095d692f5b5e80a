"""One record per unit (issue 28, item 2): what a backbone says of a unit (score, truncation flag, counters,
error spans, an answer) travels as one :class:`~docmetrics.values.units.UnitRecord` through the metric's
deduplication, the engines, the score cache (format 3) and into the Results and their JSON; a cached run
gives back the same records without calling the backbone."""

from __future__ import annotations

import json
import sys

import pytest
from cli_fixtures import run_cli
from plugin_fixtures import write_distribution

import docmetrics
from docmetrics.plugin import registry
from docmetrics.runtime import cache as cache_module
from docmetrics.runtime.engines import Workers
from docmetrics.values.units import BackboneOutput, UnitRecord, UnitSpan

SPANS_BACKBONE = '''
from docmetrics.plugin.backbone import QE, Backbone
from docmetrics.values.units import BackboneOutput, UnitRecord, UnitSpan


class SpansBackbone(Backbone):
    """A judge of words: each word of three letters or fewer is a minor error, the score their count."""
    description = "test: error spans and an answer per unit"
    default_model = "spans-v1"
    calls = []

    def load(self):
        pass

    @property
    def capabilities(self):
        return frozenset({QE})

    def score(self, units):
        type(self).calls.append(len(units))
        records = []
        for u in units:
            spans, at = [], 0
            for word in u.mt.split(" "):
                if 0 < len(word) <= 3:
                    spans.append(UnitSpan(at, at + len(word), "minor", 0.5))
                at += len(word) + 1
            records.append(UnitRecord(float(len(spans)), False, {"words": len(u.mt.split())}, tuple(spans),
                                      f"{len(spans)} error(s)"))
        return BackboneOutput.from_records(records)

    def fingerprint(self):
        return "spans0"
'''

HYP = ["The cat sat on a mat.", "Large words everywhere here.", "The cat sat on a mat."]
SRC = ["Die Katze.", "Große Wörter.", "Die Katze."]


@pytest.fixture(scope="module")
def spans_dist(tmp_path_factory):
    root = write_distribution(tmp_path_factory.mktemp("site"), "spans-backbone", "1.0",
                              {"spans_backbone/__init__.py": SPANS_BACKBONE},
                              "[docmetrics.backbones]\nspans = spans_backbone:SpansBackbone\n")
    sys.path.insert(0, str(root))
    registry.refresh()
    yield root
    sys.path.remove(str(root))
    sys.modules.pop("spans_backbone", None)
    registry.refresh()


def by_hand(mt):
    spans, at = [], 0
    for word in mt.split(" "):
        if 0 < len(word) <= 3:
            spans.append({"start": at, "end": at + len(word), "severity": "minor", "confidence": 0.5})
        at += len(word) + 1
    return spans


def test_records_and_lists_are_two_views_of_one_output():
    records = [UnitRecord(1.0, True, {"a": 1}, (UnitSpan(0, 2, "major"),), "x"), UnitRecord(2.0)]
    out = BackboneOutput.from_records(records)
    assert out.scores == [1.0, 2.0] and out.truncated == [True, False] and out.unit_counters is None
    # per-unit counters are known for every unit or for none (the second has none: so neither has)
    assert out.records()[0] == UnitRecord(1.0, True, None, (UnitSpan(0, 2, "major"),), "x")
    assert out.records()[1] == UnitRecord(2.0) and out.counters == {"a": 1}
    plain = BackboneOutput([0.5], [False], {}, [{}])
    assert plain.records() == [UnitRecord(0.5, False, {}, (), None)] and plain.unit_details is None
    assert UnitRecord.detail_fields(records[0].detail) == (records[0].spans, "x") and UnitRecord(1.0).detail is None


def test_spans_and_answers_reach_the_results_and_come_back_from_the_cache(spans_dist, tmp_path):
    from spans_backbone import SpansBackbone

    path = tmp_path / "scores.sqlite"
    for run in ("scored", "cached"):
        SpansBackbone.calls.clear()
        with cache_module.ScoreCache(path) as store:
            session = docmetrics.Session(cache=store)
            (result,) = docmetrics.load("slide:w=1,s=1,backbone=spans", session=session).compute(
                docmetrics.TestSet.from_lists({"sys": HYP}, SRC, None, ["d", "d", "d"]))
            session.close()
        assert SpansBackbone.calls == ([2] if run == "scored" else []), run  # two distinct units, once
        for unit, mt in zip(result.units, HYP):
            assert [s.to_dict() for s in unit.spans] == by_hand(mt)
            assert unit.answer == f"{len(by_hand(mt))} error(s)" and unit.score == len(by_hand(mt))
        assert result.coverage.counters["words"] == sum(len(h.split()) for h in HYP)


def test_worker_processes_carry_the_records(spans_dist):
    with docmetrics.Session(engine=Workers(2)) as session:
        (result,) = docmetrics.load("slide:w=1,s=1,backbone=spans", session=session).compute(
            docmetrics.TestSet.from_lists({"sys": HYP}, SRC, None, ["d", "d", "d"]))
    assert [[s.to_dict() for s in u.spans] for u in result.units] == [by_hand(mt) for mt in HYP]


def test_unit_json_carries_spans_and_answers_only_where_given(spans_dist, tmp_path, capsys):
    for name, lines in (("hyp.txt", HYP), ("src.txt", SRC)):
        (tmp_path / name).write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    code, out, err = run_cli(capsys, "-q", "-m", "slide:w=1,s=1,backbone=spans", "-i", tmp_path / "hyp.txt", "-s",
                             tmp_path / "src.txt", "--level", "chunk", "-f", "json")
    assert code == 0, err
    (unit0, unit1, _), = [r["units"] for r in json.loads(out)]
    assert unit0["spans"] == by_hand(HYP[0]) and unit0["answer"] == "5 error(s)"
    assert "spans" not in unit1 and unit1["answer"] == "0 error(s)"
