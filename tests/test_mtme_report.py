"""``docmetrics --mtme ... --report PAGE`` is the page ``write_report(PAGE, meta_evaluate(results, data), results=,
data=)`` writes (issue 46): the meta-evaluation as ``--mtme -f json`` prints it, the human segment scores and the
human ranking of the MTME data, the significance matrices named by language pair."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from test_mtme import build_tiny

import docmetrics
from docmetrics import judging

SPECS = ("chrf", "bleu")


def embedded(page: Path) -> dict:
    found = re.search(r'<script type="application/json" id="docmetrics-data">(.*?)</script>',
                      page.read_text(encoding="utf-8"), re.S)
    assert found, f"{page}: no embedded data"
    return json.loads(found.group(1))


@pytest.fixture()
def root(tmp_path):
    build_tiny(tmp_path / "mtme")
    return tmp_path / "mtme"


def argv(root: Path) -> list:
    return ["-m", *SPECS, "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refA", "--resamples", "30"]


def test_the_pages_data_is_the_libraries(root, tmp_path, capsys):
    data = judging.read_human(root, lp="en-de", testset="toy", ref="refA")
    found = {s: docmetrics.load(s).compute(data.testset) for s in SPECS}
    judged = judging.meta_evaluate(found, data, significance=30)
    judging.write_report(tmp_path / "python.html", judged, results=found, data=data)
    code, out, err = run_cli(capsys, *argv(root), "-f", "json", "--report", tmp_path / "shell.html")
    assert code == 0, err
    printed, python, shell = json.loads(out), embedded(tmp_path / "python.html"), embedded(tmp_path / "shell.html")
    for page in (python, shell):
        (source,) = page["sources"]
        # the --mtme object, but what the command wrote: what -f json prints
        assert source["layout"] == "mtme"
        assert source["data"] == {k: v for k, v in printed.items() if k != "written"}
        # the human segment scores on the test set's lines, and the human ranking of the MTME data
        human = page["human"]
        assert human["column"] == "mqm" and human["name"].endswith("human-scores/en-de.mqm.seg.score")
        assert set(human["segments"]) >= set(printed["systems"])
        assert all(len(row) == len(data.testset.sources) for row in human["segments"].values())
        assert [s["system"] for s in human["ranking"]["systems"]][:1] == ["refB"]  # the best mean MQM of toy
        # the PERM-BOTH matrices of the language pair, each statistic the command compared
        (group,) = page["significance"]
        assert group["lp"] == "en-de" and group["note"] is None
        assert [m["statistic"] for m in group["matrices"]] == list(printed["comparisons"])
    # one page: but for what names the run (title, command, inputs, the source's name)
    for page in (python, shell):
        for key in ("title", "command", "inputs"):
            page.pop(key)
        page["sources"][0].pop("name")
    assert python == shell


def test_the_mtme_object_says_where_the_data_was_read(root):
    data = judging.read_human(root, lp="en-de", testset="toy", ref="refA")
    judged = judging.meta_evaluate({s: docmetrics.load(s).compute(data.testset) for s in SPECS}, data, significance=0)
    d = judged.to_dict(layout="mtme")
    assert list(d)[:5] == ["testset", "lp", "root", "reference", "references"]
    assert (d["testset"], d["lp"], d["reference"], d["references"]) == ("toy", "en-de", "refA", ["refA"])
    assert judged.mtme_data is data.raw
    # the default layout of meta_evaluate's result stays the list --human / --genmt print
    assert isinstance(judged.to_dict(), list)
    # the compatibility property is gone: to_dict(layout="mtme") is the object
    assert not hasattr(judged, "evaluation")


def test_a_meta_evaluation_of_other_data_is_embedded_as_human_prints_it(tmp_path):
    src = tmp_path / "src.txt"
    src.write_text("a b\nc d\n", encoding="utf-8")
    ref = tmp_path / "ref.txt"
    ref.write_text("a b\nc d\n", encoding="utf-8")
    outs = []
    for name, text in (("s1", "a b\nc x\n"), ("s2", "x y\nc d\n"), ("s3", "x y\nz w\n")):
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
        outs.append(str(tmp_path / f"{name}.txt"))
    testset = docmetrics.read_testset(outs, source=str(src), reference=str(ref))
    human = tmp_path / "human.tsv"  # human system scores of a TSV: no MTME data
    human.write_text("system\tscore\ns1\t0.9\ns2\t0.5\ns3\t0.1\n", encoding="utf-8")
    found = {"chrf": docmetrics.load("chrf").compute(testset)}
    judged = judging.meta_evaluate(found, judging.read_human(str(human)), testset=testset, significance=0)
    assert judged.mtme_data is None
    judging.write_report(tmp_path / "page.html", judged, results=found, testset=testset)
    (source,) = embedded(tmp_path / "page.html")["sources"]
    assert source["layout"] == "human" and source["data"] == json.loads(json.dumps(judged.to_dict()))
