"""The helpers that replaced hand-written repeats: one language-pair matcher, one 'every unit one segment' test,
one reading of $DOCMETRICS_SCORE_CACHE."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmetrics.api import default_path, environment_path
from docmetrics.formats.base import match_pair
from docmetrics.runtime.session import Session
from docmetrics.values.errors import InputError
from docmetrics.values.result import Result, UnitScore
from docmetrics.values.signature import Signature


def test_match_pair_takes_the_name_then_the_first_test_that_accepts_any():
    have = ["en-de", "en-de_DE", "en-ko_KR"]
    assert match_pair("en-de", have, "f", "field lp") == "en-de"
    assert match_pair("EN-KO", have, "f", "field lp", lambda p: p.lower().startswith("en-ko")) == "en-ko_KR"
    # the first test accepts one pair: the second, which accepts two, is not tried
    assert match_pair("x", have, "f", "field lp", lambda p: p == "en-de_DE", lambda p: p.startswith("en-de")) \
        == "en-de_DE"


def test_match_pair_errors_name_the_file_the_field_and_the_pairs():
    have = ["en-sr_Cyrl_RS", "en-sr_Latn_RS"]
    with pytest.raises(InputError, match=r"f: language pair 'en-sr' is ambiguous here: en-sr_Cyrl_RS, en-sr_Latn_RS"):
        match_pair("en-sr", have, "f", "field lp", lambda p: p.startswith("en-sr"))
    with pytest.raises(InputError, match=r"f: no language pair 'fr-de' \(field lp\); the files have en-sr_Cyrl_RS"
                                         r", en-sr_Latn_RS") as caught:
        match_pair("fr-de", have, "f", "field lp", lambda p: False, has="the files have")
    assert caught.value.params == ("lp",)
    with pytest.raises(InputError, match=r"the file has none"):
        match_pair("fr-de", [], "f", "field lp")


def _result(*spans: tuple[int, int]) -> Result:
    units = [UnitScore(doc_id="d", start=a, end=b, score=1.0) for a, b in spans]
    return Result("A", "m", 1.0, Signature("m"), {}, units=units)


def test_wide_unit_is_the_first_unit_of_several_segments():
    assert _result((0, 1), (1, 2)).wide_unit() is None
    assert _result().wide_unit() is None
    wide = _result((0, 1), (1, 3), (3, 5)).wide_unit()
    assert (wide.start, wide.end) == (1, 3)


@pytest.mark.parametrize("value, path", [("", None), ("0", None), (" off ", None), ("FALSE", None),
                                         ("1", "default"), ("yes", "default"), ("x.sqlite", "x.sqlite")])
def test_environment_path_reads_the_variable_as_sessions_do(value, path):
    expected = default_path() if path == "default" else path
    assert environment_path({"DOCMETRICS_SCORE_CACHE": value}) == expected
    assert environment_path({}) is None
    if path is None:
        assert Session(environ={"DOCMETRICS_SCORE_CACHE": value}).cache is None


def test_a_session_opens_the_file_environment_path_names(tmp_path):
    file = tmp_path / "scores.sqlite"
    with Session(environ={"DOCMETRICS_SCORE_CACHE": str(file)}) as session:
        assert session.cache is not None and session.cache.path == file
        assert Path(environment_path({"DOCMETRICS_SCORE_CACHE": str(file)})) == file
    assert not session.cache.is_open  # the session opened it: it closes it
