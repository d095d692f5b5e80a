"""The metric template's contracts, for every first-party metric:

* a copy of a system, scored in the same run, gets the very same scores (system, document, unit),
  and both paired tests call it not different from the original (p = 1);
* a system's unit scores do not depend on what else is in the run (one system alone vs with 12
  others: the same to 1e-6; the backbones pad batches, so bit-equality is not promised);
* the declared aggregation rebuilds the system and document scores from the unit scores.
"""

from __future__ import annotations

import math

import pytest

import docmetrics
from docmetrics.algorithms import aggregation
from docmetrics.judging.paired import paired_test

SRC = [
    "The weather was cold in the morning.", "John put on his winter jacket.",
    "He walked slowly to the station near the river.", "The train was late again.",
    "He read a book while waiting.", "A small bird sat on the roof.",
    "Finally the train arrived.", "It was full of people going to work.",
    "He found a seat next to a window.", "The city looked grey and quiet.",
    "At nine he reached his office.", "His colleagues were already there.",
]
REF = [s.replace("The ", "This ").replace(" was ", " had been ") for s in SRC]
A = [s.replace("cold", "very cold").replace("train", "the train") for s in SRC]
B = [s.lower().rstrip(".") + " ." for s in SRC]
DOCS = ["d1"] * 5 + ["d2"] * 4 + ["d3"] * 3


def variants(n: int) -> dict[str, list[str]]:
    """``n`` different systems (word order and casing changes of the source), for batch company."""
    out = {}
    for k in range(n):
        out[f"other{k}"] = [" ".join(s.split()[k % 3:] + s.split()[:k % 3]) if k % 2 else s.upper()
                            for s in SRC]
    return out


@pytest.fixture(scope="module")
def tiny_mbart(tmp_path_factory: pytest.TempPathFactory):
    from docmetrics_backbones.prism.testing import build_tiny_mbart

    return build_tiny_mbart(tmp_path_factory.mktemp("tiny-mbart-template"), seed=0)


@pytest.fixture(scope="module")
def specs(tiny_kiwi_dir, tiny_comet_da_dir, tiny_comet_qe_dir, tiny_mbart) -> dict[str, str]:
    return {
        "slide": f"slide:w=2,s=1,partial=keep,model={tiny_kiwi_dir}",
        "doc-comet": f"doc-comet:k=2,model={tiny_comet_da_dir}",
        "doc-comet-qe": f"doc-comet-qe:k=2,model={tiny_comet_qe_dir}",
        "doc-bertscore": "doc-bertscore:k=2,model=minilm",  # real all-MiniLM-L6-v2
        "doc-prism": f"doc-prism:k=2,model={tiny_mbart},lang=de-en",
        "asd": f"asd:model={tiny_kiwi_dir},aligner=sentence-embedding,aligner_model=minilm",
    }


def score(spec: str, systems: dict[str, list[str]], batch_size: int | None = None) -> dict:
    metric = docmetrics.load(spec, device="cpu", batch_size=batch_size, cache=None)
    return metric.score_systems(systems, sources=SRC, references=REF, doc_ids=DOCS)


METRICS = ["slide", "doc-comet", "doc-comet-qe", "doc-bertscore", "doc-prism", "asd"]


@pytest.mark.parametrize("name", METRICS)
def test_a_copy_scores_the_same_and_is_not_significantly_different(specs, name):
    res = score(specs[name], {"A": A, "B": B, "A-copy": list(A)})
    a, b, copy = res["A"], res["B"], res["A-copy"]
    assert copy.score == a.score and not math.isnan(a.score)
    assert [u.score for u in copy.units] == [u.score for u in a.units]
    assert [d.score for d in copy.docs] == [d.score for d in a.docs]
    assert copy.coverage.to_dict() == a.coverage.to_dict()
    assert b.score != a.score  # the test can tell systems apart
    for test in ("bs", "ar"):
        t = paired_test([a, b, copy], test, n=200)
        assert t.rows[2].p_value == 1.0, (name, test)
        assert t.rows[1].p_value is not None and t.rows[1].p_value <= 1.0


@pytest.mark.parametrize("name", METRICS)
def test_the_declared_aggregation_rebuilds_system_and_document_scores(specs, name):
    res = score(specs[name], {"A": A, "B": B})["A"]
    agg = aggregation.get(res.aggregation)
    groups = list(dict.fromkeys(u.group for u in res.units))

    def rebuilt(units):  # an independent computation: plain loops over the unit scores
        per_group = {g: [(u.weight * u.score, u.weight) for u in units if u.group == g] for g in groups}
        means = {g: sum(n for n, _ in v) / sum(w for _, w in v) for g, v in per_group.items() if v}
        if res.aggregation == "mean":
            return sum(n for v in per_group.values() for n, _ in v) / sum(w for v in per_group.values() for _, w in v)
        return sum(means.values()) / len(means)

    assert agg.name == res.aggregation
    assert res.score == pytest.approx(rebuilt(res.units), abs=1e-12)
    for d in res.docs:
        mine = [u for u in res.units if u.doc_id == d.doc_id]
        assert (d.score is None) == (not mine)
        if mine:
            assert d.score == pytest.approx(rebuilt(mine), abs=1e-12)


@pytest.mark.parametrize("name", ["slide", "doc-comet", "doc-bertscore", "doc-prism"])
def test_scores_do_not_depend_on_the_company_in_the_batch(specs, name):
    alone = score(specs[name], {"A": A})["A"]
    crowd = score(specs[name], {**variants(12), "A": A})["A"]
    small = score(specs[name], {"A": A, **variants(12)}, batch_size=3)["A"]
    for other in (crowd, small):
        assert [u.score for u in other.units] == pytest.approx([u.score for u in alone.units], abs=1e-6)
        assert other.score == pytest.approx(alone.score, abs=1e-6)
        assert other.coverage.to_dict() == alone.coverage.to_dict()


@pytest.mark.parametrize("bad", [float("nan"), None, "0.5"], ids=["nan", "none", "string"])
def test_a_backbone_that_gives_no_number_is_refused_naming_it(bad):
    from docmetrics_metrics.slide import SlideMetric

    from docmetrics import QE, Backbone, BackboneOutput, PluginError

    class Broken(Backbone):
        name = "broken"
        default_model = "broken-v1"

        def load(self):
            pass

        @property
        def capabilities(self):
            return frozenset({QE})

        def score(self, units):
            return BackboneOutput([0.5] * (len(units) - 1) + [bad], [False] * len(units))

        def fingerprint(self):
            return "0" * 10

    metric = SlideMetric(Broken(), w=2, s=1)
    with pytest.raises(PluginError, match=r"backbone 'broken' \(.*\) gave no number .* for 1 of"):
        metric.score(A, sources=SRC, doc_ids=DOCS)


def test_a_backbone_that_returns_too_few_scores_is_refused_naming_it():
    from docmetrics_metrics.slide import SlideMetric

    from docmetrics import QE, Backbone, BackboneOutput, PluginError

    class Short(Backbone):
        name = "short"
        default_model = "short-v1"

        def load(self):
            pass

        @property
        def capabilities(self):
            return frozenset({QE})

        def score(self, units):
            return BackboneOutput([0.5] * (len(units) - 1), [False] * (len(units) - 1))

        def fingerprint(self):
            return "0" * 10

    with pytest.raises(PluginError, match=r"backbone 'short' returned \d+ scores for \d+ units"):
        SlideMetric(Short(), w=2, s=1).score(A, sources=SRC, doc_ids=DOCS)


def test_numbers_of_any_numeric_type_are_scores_and_a_non_number_is_never_cached(tmp_path):
    import numpy as np
    from docmetrics_metrics.slide import SlideMetric

    from docmetrics import QE, Backbone, BackboneOutput, PluginError
    from docmetrics.runtime.cache import ScoreCache
    from docmetrics.runtime.session import Session

    class Typed(Backbone):
        name = "typed"
        default_model = "typed-v1"
        value = np.float32(0.25)

        def load(self):
            pass

        @property
        def capabilities(self):
            return frozenset({QE})

        def score(self, units):
            return BackboneOutput([self.value] * len(units), [False] * len(units))

        def fingerprint(self):
            return "0" * 10

    metric = SlideMetric(Typed(), w=2, s=1)
    assert metric.score(A, sources=SRC, doc_ids=DOCS).score == pytest.approx(0.25)  # numpy float32 is a number
    store = ScoreCache(tmp_path / "c.sqlite")
    broken = SlideMetric(Typed(), w=2, s=1)
    broken.backbone.value = None
    broken.scorer = Session(cache=store).scorer()
    with pytest.raises(PluginError, match=r"backbone 'typed' \(.*\) gave no number \(NaN or NoneType\)"):
        broken.score(A, sources=SRC, doc_ids=DOCS)
    assert store.count() == 0  # nothing broken was stored
