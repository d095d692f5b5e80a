"""A session and its metrics as a Python user meets them: ``session=`` takes a Session, nothing scores
in a closed one (its workers are not started again, its cache is not read), whatever the metric, and a
metric, its backbone and a session print what they are.

Each misuse row builds a session, loads a metric in it, closes it where the row says, then makes one
call, which must raise the error named with the message pieces given.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
from engine_fixtures import children, deadline
from plugin_fixtures import toy_dist  # noqa: F401 - a fixture

import docmetrics
from docmetrics.runtime import engines
from docmetrics.runtime.session import Session

HYP = ["This is good.", "It rains today.", "We go home."]
SRC = ["Das ist gut.", "Es regnet heute.", "Wir gehen nach Hause."]
IDS = ["d1", "d1", "d2"]
SLIDE = "slide:w=2,s=1,backbone=toy"
CLOSED = ["session is closed", "docmetrics.Session"]


def _closed(spec: str, call: Callable[[Any], Any], **session: Any) -> Callable[[], Any]:
    """Load ``spec`` in a new session, score once, close the session, then ``call(metric)``."""
    def run() -> Any:
        s = Session(cache=None, **session)
        metric = docmetrics.load(spec, session=s)
        metric.score(HYP, sources=SRC, references=SRC, doc_ids=IDS)  # it scores while open
        s.close()
        return call(metric)
    return run


def _after_with() -> Any:
    with Session(cache=None) as s:
        metric = docmetrics.load(SLIDE, session=s)
    return metric.score(HYP, sources=SRC, doc_ids=IDS)


def _load_in_closed() -> Any:
    s = Session(cache=None)
    s.close()
    return docmetrics.load("bleu", session=s)


ROWS = [
    ("load-session-a-string", lambda: docmetrics.load("bleu", session="nope"), TypeError,
     ["docmetrics.load: session= takes a docmetrics.Session", "not str 'nope'"]),
    ("load-session-a-number", lambda: docmetrics.load("bleu", session=3), TypeError,
     ["docmetrics.load: session= takes a docmetrics.Session", "not int 3"]),
    ("bleu-score-after-close", _closed("bleu", lambda m: m.score(HYP, references=SRC)), docmetrics.UserError, CLOSED),
    ("bleu-score-systems-after-close", _closed("bleu", lambda m: m.score_systems({"a": HYP}, references=SRC)),
     docmetrics.UserError, CLOSED),
    ("slide-score-after-close", _closed(SLIDE, lambda m: m.score(HYP, sources=SRC, doc_ids=IDS)),
     docmetrics.UserError, CLOSED),
    ("slide-compute-after-close", _closed(SLIDE, lambda m: m.compute(
        docmetrics.TestSet.from_lists(HYP, SRC, None, IDS))), docmetrics.UserError, CLOSED),
    ("slide-after-with-block", _after_with, docmetrics.UserError, CLOSED),
    ("load-in-a-closed-session", _load_in_closed, docmetrics.UserError, CLOSED),
]


@pytest.mark.parametrize("call,error,pieces", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_session_misuse(toy_dist, call, error, pieces):  # noqa: F811
    with pytest.raises(error) as info:
        call()
    for piece in pieces:
        assert piece in str(info.value)


def test_a_closed_session_does_not_start_its_workers_again(toy_dist):  # noqa: F811
    """Workers(2): the workers of the first call stop at close(); scoring again raises instead of
    starting new ones."""
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()  # multiprocessing's own helper, one per process for its whole life
    engine = engines.Workers(2, device="cpu", chunk=1)
    before = children()
    with deadline():
        s = Session(cache=None, engine=engine)
        metric = docmetrics.load(SLIDE, session=s)
        first = metric.score(HYP, sources=SRC, doc_ids=IDS).score
        started = engine.started
        assert started >= 1 and engine.pids
        s.close()
        assert engine.pids == [] and s.closed
        with pytest.raises(docmetrics.UserError, match="session is closed"):
            metric.score(HYP, sources=SRC, doc_ids=IDS)
    assert engine.started == started and engine.pids == []
    assert children() <= before
    with Session(cache=None) as fresh:  # the advice works: a new session scores the same
        assert docmetrics.load(SLIDE, session=fresh).score(HYP, sources=SRC, doc_ids=IDS).score == first


# -- what they print ------------------------------------------------------------------------------------
REPR_ROWS = [
    ("slide-on-toy", SLIDE,
     "<SlideMetric slide:w=2,s=1,partial=drop,backbone=toy,model=toy-v1,scale=1,precision=fp32>",
     "<ToyBackbone toy model=toy-v1 scale=1 precision=fp32 device=auto>"),
    ("model-path-with-a-comma", "doc-comet:k=1,model=/no/such/dir%2Cv2",
     "<DocCometMetric doc-comet:k=1,hyp_context=ref,backbone=comet,model=/no/such/dir%2Cv2,precision=fp32>",
     "<CometBackbone comet model=/no/such/dir,v2 precision=fp32 device=auto>"),
    ("bleu-has-no-backbone", "bleu:tokenize=char", "tokenize=char", None),
]


@pytest.mark.parametrize("spec,metric,backbone", [r[1:] for r in REPR_ROWS], ids=[r[0] for r in REPR_ROWS])
def test_a_metric_prints_the_spec_that_loads_it_again(toy_dist, spec, metric, backbone):  # noqa: F811
    """Without reading a model (the comet directory does not exist); load(metric.spec()) is the same metric."""
    with Session(cache=None) as s:
        loaded = docmetrics.load(spec, session=s)
        shown = repr(loaded)
        assert (shown == metric) if metric.startswith("<") else (metric in shown and shown.startswith(
            f"<{type(loaded).__name__} {loaded.name}:"))
        assert " at 0x" not in shown and repr(loaded.backbone) == str(backbone)
        assert docmetrics.load(loaded.spec(), session=s).spec() == loaded.spec()


def test_a_session_prints_its_state():
    engine = engines.Workers(2, device="cpu")
    s = Session(cache=None, engine=engine, max_tokens=512)
    assert repr(s) == "<Session open, cache=no cache, engine=workers(2), device=auto, max_tokens=512, backbones=0>"
    docmetrics.load("slide:w=2,s=1,model=/no/such/dir", session=s)
    assert repr(s).endswith("backbones=1>")
    s.close()
    assert repr(s).startswith("<Session closed, ") and repr(s).endswith("backbones=0>")
