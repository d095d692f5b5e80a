"""The core's one paths after issue 46's size cut (slice "core"): a signature's parameters are checked by
:meth:`Metric.check_params` like a spec's; a metric's scorer reads its Session (cache, engine, backbones,
whether it is open); every engine plans its chunks in :meth:`Engine.map`; a backbone's batches follow its
batch size and token budget alone."""

from __future__ import annotations

import re

import pytest
from engine_fixtures import Counting

import docmetrics
from docmetrics.plugin import registry
from docmetrics.plugin.backbone import Unit
from docmetrics.runtime import engines
from docmetrics.runtime.session import Session
from docmetrics.values.errors import SpecError, UserError


@pytest.mark.parametrize(("signature", "message"), [
    ("chrf|char_order:6|co:5|v:0.3.0", "chrf: parameter 'char_order' is given twice (as 'char_order' and 'co')"),
    ("chrf|word_order:0|wo:0|v:0.3.0", "chrf: parameter 'word_order' is given twice (as 'word_order' and 'wo')"),
])
def test_a_signature_giving_a_parameter_under_both_keys_is_refused_as_a_spec_is(signature, message):
    with pytest.raises(SpecError, match=re.escape(message)):
        docmetrics.load(signature)


def test_a_signature_naming_its_backbone_twice_is_refused():
    with pytest.raises(SpecError, match=re.escape("parameter 'backbone' is given twice (as 'backbone' and 'bb')")):
        docmetrics.load("slide|w:2|s:1|bb:comet|backbone:comet|v:0.3.0")


def test_a_signature_s_short_keys_load_the_metric_its_long_keys_load():
    metric = docmetrics.load("chrf|co:4|wo:2|b:3|v:0.3.0")
    assert metric.spec() == docmetrics.load("chrf|char_order:4|word_order:2|beta:3|v:0.3.0").spec()
    assert (metric.p["char_order"], metric.p["word_order"], metric.p["beta"]) == (4, 2, 3)


def test_a_session_s_scorer_reads_the_session():
    session = Session(cache=None)
    scorer = session.scorer("slide")
    assert scorer.session is session and scorer.label == "slide"
    built = scorer.backbone(Counting, "m", like=None)
    assert built is session.backbone(Counting, "m") and session.backbones == [built]
    out = scorer.score(built, [Unit(mt="abc", src="s"), Unit(mt="de", src="s")])
    assert out.scores == [3.0, 2.0]
    session.close()
    with pytest.raises(UserError, match="session is closed"):
        scorer.check_open()
    with pytest.raises(UserError, match="session is closed"):
        scorer.score(built, [Unit(mt="x", src="s")])


def test_an_engine_with_nothing_to_score_starts_no_worker():
    with engines.Workers(2, device="cpu") as engine:
        assert list(engine.map(Counting("m"), "score", [])) == []
        assert engine.started == 0


def test_every_engine_scores_the_chunks_map_plans():
    units = [Unit(mt="x" * i, src="s") for i in range(1, 8)]
    seen: list[int] = []
    out = list(engines.InProcess(3).map(Counting("m"), "score", units, seen.append))
    assert [chunk for chunk, _ in out] == engines.plan_chunks(Counting("m"), units, 3)
    assert seen == [len(chunk) for chunk, _ in out] and sum(seen) == len(units)
    assert list(engines.InProcess(3).map(Counting("m"), "score", units, chunk=5))[0][0] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(("batch_size", "max_tokens", "expected"), [
    (None, None, [[0, 1, 2, 3, 4]]),     # the backbone's default token budget (8192) holds them all
    (2, None, [[0, 1], [2, 3], [4]]),    # a batch size alone: no token budget
    (None, 30, [[0, 1, 2], [3, 4]]),     # a token budget alone: padded tokens per batch
    (2, 10, [[0], [1], [2], [3], [4]]),  # both: each holds
])
def test_batches_follow_the_batch_size_and_the_token_budget(batch_size, max_tokens, expected):
    backbone = Counting("m", batch_size=batch_size, max_tokens=max_tokens)
    assert sorted(sorted(b) for b in backbone.batches([10] * 5)) == expected


def test_a_statistic_plugin_of_the_wrong_kind_is_named_as_other_value_plugins_are():
    assert registry.kind_problem("statistic", object()) == \
        "is a object, not a docmetrics.judging.statistics.Statistic"
    assert registry.kind_problem("human_format", object()) == "is a object, not a docmetrics.judging.HumanFormat"


@pytest.mark.parametrize("engine, shown", [("workers", "engine=workers(2)"), ("ray", "engine=ray(3)"),
                                           ("ray-auto", "engine=ray,")])
def test_session_repr_names_the_worker_count(engine, shown):
    """A session's repr says how many workers its engine runs, a Ray engine's too (it has no ``n``)."""
    from docmetrics.runtime.engines.ray import RayEngine
    from docmetrics.runtime.engines.workers import Workers

    made = {"workers": lambda: Workers(2), "ray": lambda: RayEngine(workers=3), "ray-auto": lambda: RayEngine()}[engine]
    assert shown in repr(docmetrics.Session(engine=made()))
