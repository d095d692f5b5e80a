"""Fuzzing the spec parser, the signature parser, parameter conversion and ``docmetrics.load``: every
input either parses or raises the documented error (SpecError; PluginError for a plugin name nobody
registers), never anything else, and what parses formats back to the same thing.

Thousands of cases, derandomized (the same cases on every run, as CI needs), no model loaded: load()
builds metrics and backbones, whose models load lazily on first score."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import docmetrics
from docmetrics.values.errors import PluginError, SpecError
from docmetrics.values.params import Param, path_problem
from docmetrics.values.signature import ParsedSignature, escape, parse_signature
from docmetrics.values.spec import MetricSpec, parse_spec

FUZZ = settings(max_examples=350, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

#: Any code point, lone surrogates (category Cs) and control characters included.
ANY_CHAR = st.characters(blacklist_categories=())
#: Values that crashed before (issue 15.5: a lone surrogate, an unknown ~user, a name too long for a
#: file system) and their neighbours, then any text.
NASTY = st.one_of(
    st.sampled_from(["\ud800", "kiwi\udcff", "~nosuchuser/kiwi", "~nosuchuser", "~", "a" * 300, "./m/" + "b" * 256,
                     "d/" * 2100, "a\x00b", "nan", "inf", "-1", "0", "6", "drop", "keep", "none", "comet", "toy",
                     "%ED%A0%80", "%ZZ", "x%2Cy", "Unbabel/wmt22-cometkiwi-da", "/tmp/m", "naïve/模型", ""]),
    st.text(ANY_CHAR, max_size=8))
KEYS = st.sampled_from(["w", "s", "partial", "p", "model", "m", "k", "precision", "pr", "backbone", "bb",
                        "aligner_model", "am", "chunks", "v", "fp", "nope", "", " "])
METRICS = st.sampled_from(["slide", "doc-comet", "doc-comet-qe", "asd", "slide-wmt23", "slide@docmetrics", "nope"])
PIECES = st.sampled_from(["slide", ":", "|", ",", "=", "%", "@", "@dist", "w", "m", " ", "\t", "\n"])
#: Free text, pieces of specs and signatures in any order, and specs and signatures built from
#: metric names, keys and nasty values.
SPEC_TEXT = st.one_of(
    st.text(ANY_CHAR, max_size=30),
    st.lists(st.one_of(PIECES, NASTY), max_size=10).map("".join),
    st.builds(lambda n, kv: n + ":" + ",".join(f"{k}={v}" for k, v in kv), METRICS,
              st.lists(st.tuples(KEYS, NASTY), max_size=4)),
    st.builds(lambda n, kv: n + "|" + "|".join(f"{k}:{v}" for k, v in kv), METRICS,
              st.lists(st.tuples(KEYS, NASTY), max_size=4)),
)
#: Text without lone surrogates (what a valid spec or signature may hold).
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
#: Metric names, some naming their distribution.
NAME = st.builds(lambda name, dist: name + dist, st.sampled_from(["slide", "doc-comet", "x", "A_b.c-1", "m2"]),
                 st.sampled_from(["", "@docmetrics", "@my-dist", "@My_Dist.2", "@a"]))
#: The inputs that crashed through the API before (kept as fixed examples).
CRASHED = ["slide:model=kiwi\udcff", "slide:w=\ud800", "slide|m:\ud800|v:1", "slide:model=~nosuchuser/kiwi",
           "doc-comet:model=" + "a" * 300, "asd:aligner_model=~nosuchuser", "slide|w:2|w:3", "slide|:3|"]


def crashed_before(test):
    """Runs ``test`` on each of :data:`CRASHED` too, whatever the fuzzer draws."""
    for text in reversed(CRASHED):
        test = example(text)(test)
    return test


@FUZZ
@given(SPEC_TEXT)
@crashed_before
def test_the_spec_parser_parses_or_raises_spec_error(text):
    try:
        spec = parse_spec(text)
    except SpecError:
        return
    assert parse_spec(spec.format()) == spec


@FUZZ
@given(SPEC_TEXT)
@crashed_before
def test_the_signature_parser_parses_or_raises_spec_error(text):
    try:
        parsed = parse_signature(text)
    except SpecError:
        return
    assert parse_signature(parsed.format()) == parsed


SPEC_KEY = TEXT.map(str.strip).filter(lambda k: k and not set(k) & set("=,"))


@FUZZ
@given(NAME, st.dictionaries(SPEC_KEY, TEXT, max_size=5))
def test_a_spec_formats_and_parses_back(name, params):
    spec = MetricSpec(name, params)
    assert parse_spec(spec.format()) == spec


SIG_KEY = TEXT.filter(lambda k: k.strip() and not set(k) & set(":|") and k not in ("v", "version"))


@FUZZ
@given(NAME, st.dictionaries(SIG_KEY, TEXT, max_size=6), st.one_of(st.none(), TEXT))
def test_a_signature_formats_and_parses_back(name, items, version):
    parsed = ParsedSignature(name, list(items.items()), version)
    assert parse_signature(parsed.format()) == parsed


PARAMS = [Param("w", int, 6, minimum=1), Param("k", int, 2, minimum=0, maximum=8), Param("x", float, 1.0),
          Param("b", bool, False), Param("p", str, "drop", choices=("drop", "keep")), Param("m", str, None),
          Param("model", str, None, check=path_problem)]


@FUZZ
@given(st.sampled_from(PARAMS), st.one_of(SPEC_TEXT, st.integers(), st.floats(), st.booleans(), st.none()))
def test_a_parameter_converts_or_raises_spec_error(param, raw):
    try:
        value = param.convert(raw)
    except SpecError as exc:
        assert f"parameter '{param.name}'" in str(exc)
        return
    if value is not None and param.type is not str:
        assert isinstance(value, param.type)
        assert param.convert(param.format(value)) == value  # what a signature shows converts back


@FUZZ
@given(SPEC_TEXT)
@crashed_before
def test_load_builds_a_metric_or_raises_spec_or_plugin_error(text):
    try:
        metric = docmetrics.load(text)
    except (SpecError, PluginError):
        return
    assert isinstance(metric, docmetrics.Metric)
    # every value it accepted can be written into a signature (formatting a whole one would load the
    # model), and every model name it accepted can be probed as a path, as backbones do before loading
    escape("|".join(p.format(metric.p[p.name]) for p in metric.params))
    models = [metric.p.get("aligner_model")]
    if metric.backbone is not None:
        escape(metric.backbone.model_name() + "|".join(str(v) for v in metric.backbone.p.values()))
        models.append(metric.backbone.model_name())
    for model in filter(None, models):
        Path(model).expanduser().exists()

