"""The core's one paths (issue 46, slice "core"): a spec's parameters are checked and split once
(:meth:`Metric.check_params`, which :func:`docmetrics.build` uses), and a backbone is built once per class,
model, settings and options by one function (:func:`~docmetrics.plugin.backbone.build_once`) for a Session and
for the plain scorer alike."""

from __future__ import annotations

import pytest
from engine_fixtures import Counting

import docmetrics
from docmetrics.plugin import registry
from docmetrics.plugin.backbone import SETTINGS, build_once
from docmetrics.plugin.metric import DirectScorer
from docmetrics.values.errors import SpecError
from docmetrics.values.params import Param
from docmetrics.values.testset import runs


class Counted(Counting):
    """The engine tests' backbone, with a parameter, counting how often it is built."""

    name = "counted"
    default_model = "counted-v1"
    params = (Param("scale", float, 1.0, "multiplier"),)
    built = 0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        type(self).built += 1


# -- one parameter-splitting path --------------------------------------------------------------------------
def test_check_params_splits_the_metric_s_and_the_backbone_s():
    slide = registry.load("metric", "slide")
    mine, backbone_cls, theirs = slide.check_params({"w": "8", "m": "/some/model", "pr": "fp32"})
    assert mine == {"w": "8"}  # the metric's, as given (its constructor converts them)
    assert backbone_cls is registry.load("backbone", slide.default_backbone)
    assert theirs == {"model": "/some/model", "precision": "fp32"}  # the backbone's, by name, converted
    assert registry.load("metric", "chrf").check_params({"char_order": "4"})[1:] == (None, {})


@pytest.mark.parametrize(("raw", "message"), [
    ({"backbone": 5}, "slide: parameter 'backbone' must be a backbone's name, not int"),
    ({"model": "a", "m": "b"}, "slide: parameter 'model' is given twice (as 'model' and 'm'); give it once"),
    ({"w": "2", "window": "3"}, "slide: unknown parameter 'window'"),
    ({"w": "x"}, "slide: parameter 'w' has value 'x'; it must be an integer >= 1"),
])
def test_build_refuses_a_bad_spec_before_any_backbone_is_built(raw, message):
    with pytest.raises(SpecError) as caught:
        docmetrics.build(registry.load("metric", "slide"), raw, cache=None)
    assert str(caught.value).startswith(message)


def test_a_spec_value_wins_over_the_defaults_and_the_defaults_fill_the_rest():
    chrf = registry.load("metric", "chrf")
    metric = docmetrics.build(chrf, {"char-order": "3"}, defaults={"char_order": 5, "word_order": 1}, cache=None)
    assert metric.p["char_order"] == 3 and metric.p["word_order"] == 1


@pytest.mark.parametrize(("param", "raw", "allowed"), [
    (Param("k", int, 1, minimum=0, maximum=3), "9", "an integer from 0 to 3"),
    (Param("k", int, 1, minimum=0, maximum=3), "-1", "an integer from 0 to 3"),
    (Param("k", int, 1), "1.5", "an integer"),
    (Param("mode", str, "a", choices=("a", "b")), "c", "one of a, b"),
    (Param("on", bool, True), "maybe", "true or false"),
])
def test_param_convert_says_what_is_allowed_in_one_form(param, raw, allowed):
    with pytest.raises(SpecError) as caught:
        param.convert(raw, owner="m")
    assert str(caught.value) == f"m: parameter '{param.name}' has value {raw!r}; it must be {allowed}"


# -- one way to build a backbone once ------------------------------------------------------------------------
def test_build_once_keys_by_class_model_settings_and_options():
    built: dict = {}
    before = Counted.built
    a = build_once(built, Counted, None, {"precision": "fp32"}, {"scale": 2.0})
    assert build_once(built, Counted, None, {"precision": "fp32"}, {"scale": 2.0}) is a
    assert build_once(built, Counted, None, {"precision": "fp32"}, {"scale": 3.0}) is not a
    assert build_once(built, Counted, "other", {"precision": "fp32"}, {"scale": 2.0}) is not a
    assert Counted.built - before == 3 and len(built) == 3


def test_build_once_never_shares_a_backbone_whose_option_cannot_be_hashed():
    built: dict = {}

    class Listed(Counted):
        params = (Param("scale", float, 1.0, "multiplier"), Param("names", str, None, "any"))

    first = build_once(built, Listed, None, {}, {"names": ["a"]})  # a list: no key can hold it
    assert build_once(built, Listed, None, {}, {"names": ["a"]}) is not first
    assert built == {} and first.p["names"] == "['a']"


def test_a_session_and_the_plain_scorer_build_a_backbone_once_and_like_another():
    with docmetrics.Session(cache=None, precision="fp32", batch_size=4) as session:
        first = session.backbone(Counted, scale=2.0)
        assert session.backbone(Counted, scale=2.0) is first and session.backbones == [first]
        assert first.batch_size == 4 and first.model == "counted-v1"
        like = session.backbone(Counted, "aligner", like=first, batch_size=8)
        assert (like.batch_size, like.precision) == (8, "fp32")
    plain = DirectScorer()
    one = plain.backbone(Counted, None, like=first, scale=2.0)
    assert plain.backbone(Counted, None, like=first, scale=2.0) is one
    assert {k: getattr(one, k) for k in SETTINGS} == {k: getattr(first, k) for k in SETTINGS}


# -- one cut of doc ids into documents -----------------------------------------------------------------------
def test_runs_cut_ids_into_documents_as_the_test_set_and_mtme_read_them():
    assert runs([]) == []
    assert runs(["a", "a", "b", "a"]) == [("a", 0, 2), ("b", 2, 3), ("a", 3, 4)]
    with pytest.warns(UserWarning, match="doc id 'a' reappears at line 4"):
        testset = docmetrics.TestSet({"s": ["x"] * 4}, doc_ids=["a", "a", "b", "a"])
    assert [(d.doc_id, d.start, d.end) for d in testset.documents] == runs(["a", "a", "b", "a"])
