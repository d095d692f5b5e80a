"""The format registry (issue 46): docmetrics' own formats are the modules of docmetrics.formats that define
FORMAT, tried in the order of their precedence; EvalSet and HumanFormat live in the formats layer and are still
the judging API's; a format's gold error spans are its HumanFormat's ``spans`` reader."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import docmetrics
from docmetrics import formats as package
from docmetrics.formats.base import EvalSet, HumanFormat
from docmetrics.judging import formats
from docmetrics.values.errors import InputError

TED = Path(docmetrics.__file__).resolve().parent / "data" / "ted"


def test_the_builtin_formats_are_the_modules_that_define_format_in_precedence_order():
    declared = [getattr(importlib.import_module(f"docmetrics.formats.{m.name}"), "FORMAT", None)
                for m in pkgutil.iter_modules(package.__path__)]
    from_modules = {f.name for f in declared if isinstance(f, HumanFormat)}
    assert from_modules == {"mtme", "genmt", "wmt26", "wmt25-tsv", "mqm", "human-tsv", "cesa", "stored"}
    names = [f.name for f in formats.builtin()]
    assert names == ["mtme", "wmt26", "genmt", "cesa", "stored", "wmt25-tsv", "mqm", "human-tsv"]
    assert sorted(f.precedence for f in formats.builtin()) == [f.precedence for f in formats.builtin()]


def test_evalset_and_humanformat_are_the_judging_apis():
    assert docmetrics.judging.EvalSet is EvalSet and docmetrics.judging.HumanFormat is HumanFormat
    assert docmetrics.EvalSet is EvalSet and formats.HumanFormat is HumanFormat


def test_genmt_and_mqm_give_gold_spans_and_the_others_say_they_have_none():
    spans = {f.name: f.spans is not None for f in formats.builtin()}
    assert spans == {"mtme": False, "wmt26": False, "genmt": True, "cesa": True, "stored": False,
                     "wmt25-tsv": False, "mqm": True, "human-tsv": False}
    mqm = docmetrics.read_human(TED / "mqm.tsv")
    assert mqm.spans.fields == ("doc", "seg_id") and mqm.spans.items
    human = docmetrics.read_human(TED / "human_seg.tsv")
    with pytest.raises(InputError, match="holds no human error spans"):
        _ = human.spans


def test_a_formats_spans_reader_builds_the_gold_when_first_asked(tmp_path, monkeypatch):
    asked = []

    def read(path, lp, options):
        return EvalSet(path, "toyspans", lp, raw={"gold": 7})

    def gold(found):
        asked.append(found.source)
        return found.raw["gold"]

    toy = HumanFormat("toyspans", "a toy with spans", lambda p: p.endswith(".toys"), read, spans=gold)
    monkeypatch.setattr(formats, "_modules", lambda: (toy,))
    path = tmp_path / "x.toys"
    path.write_text("x\n", encoding="utf-8")
    data = docmetrics.read_human(path)
    assert data.format == "toyspans" and asked == []
    assert data.spans == 7 and data.spans == 7 and asked == [str(path)]
