"""MTME through the public library (issue 46): MTME lives in three library modules (reading the data directory,
its score files, and the judging side: scoring a test set, writing and reading back score files, the task sets);
``docmetrics.judging`` exports what the command line calls (``run_mtme``, ``write_mtme_scores``,
``read_mtme_dir``), and the command line imports none of the MTME modules itself."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

import docmetrics
from docmetrics import judging
from docmetrics.values.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
MTME = ROOT / "docmetrics" / "data" / "mtme"
TESTSET, LP = "wmt21.tedtalks", "en-de"


def load(spec, lp):
    return docmetrics.load(spec)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("mtme-out")
    (run,) = judging.run_mtme(str(MTME), TESTSET, [LP], ["chrf", "ter"], load, out_root=str(out),
                              metric_names=["chrf", "ter"])
    return out, run


def test_the_mtme_library_modules_are_three():
    found = sorted(str(p.relative_to(ROOT / "docmetrics")) for p in (ROOT / "docmetrics").rglob("*mtme*.py")
                   if p.parts[-2] not in ("cli", "commands"))
    assert found == ["formats/mtme.py", "formats/mtme_scores.py", "judging/mtme.py"]


@pytest.mark.parametrize("module", ["commands/mtme.py", "cli/mtme.py", "commands/metaeval.py", "commands/stored.py"])
def test_the_command_line_imports_no_mtme_module_itself(module):
    tree = ast.parse((ROOT / "docmetrics" / module).read_text(encoding="utf-8"))
    found = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
             and node.level == 2 and ("mtme" in node.module or node.module == "judging.formats")]
    assert found == []


def test_run_mtme_writes_what_read_mtme_dir_reads_back(written):
    out, run = written
    assert [w.metric for w in run.written] == ["chrf", "ter"] and run.written[0].ref == "refA"
    assert set(run.written[0].paths) == {"sys", "doc", "seg"}
    back = {m.name: m for m in judging.read_mtme_dir(str(out), TESTSET, LP, None)}
    assert sorted(back) == ["chrf-refA", "ter-refA"]
    chrf = back["chrf-refA"]
    assert chrf.level == "seg" and sorted(chrf.coarser) == ["doc", "sys"]
    for r in run.results["chrf"]:
        assert chrf.scores[r.system] == pytest.approx([u.score for u in r.units], abs=1e-12)
        assert chrf.coarser["sys"].scores[r.system] == pytest.approx([r.score], abs=1e-12)
    # TER is lower-is-better: written negated (MTME reads every score as higher-better), and said so
    assert run.written[1].negated and not run.written[0].negated
    for r in run.results["ter"]:
        assert back["ter-refA"].coarser["sys"].scores[r.system] == pytest.approx([-r.score], abs=1e-12)
    # --stored NAME picks one by its name without -REF
    assert [m.name for m in judging.read_mtme_dir(str(out), TESTSET, LP, ["chrf"])] == ["chrf-refA"]


def test_a_run_is_judged_against_what_read_human_reads(written):
    _, run = written
    data = docmetrics.read_human(MTME / TESTSET, lp=LP)
    assert run.evalset().format == "mtme" and run.evalset().testset.systems == data.testset.systems
    mine = judging.meta_evaluate({"chrf": run.results["chrf"]}, run.evalset(), significance=0)
    theirs = judging.meta_evaluate({"chrf": docmetrics.load("chrf").compute(data.testset)}, data, significance=0)
    assert mine.to_text() == theirs.to_text()
    assert not math.isnan(mine.value("chrf", "spa"))


def test_write_mtme_scores_alone(tmp_path):
    data = docmetrics.read_human(MTME / TESTSET, lp=LP)
    results = docmetrics.load("chrf").compute(data.testset)
    w = judging.write_mtme_scores(tmp_path, TESTSET, LP, "chrF 2/x", "refA", results,
                                  n_segments=data.testset.n_segments)
    assert w.metric == "chrF_2_x" and w.metric == judging.mtme_metric_name("chrF 2/x")
    lines = Path(w.paths["sys"]).read_text(encoding="utf-8").splitlines()
    assert lines == [f"{r.system}\t{r.score!r}" for r in results]


BAD = [
    ("a reference name with '-'", {"ref_name": "ref-A"}, "bad reference name 'ref-A'"),
    ("no results", {"results": []}, "no results to write"),
]


@pytest.mark.parametrize("what, change, message", BAD, ids=[row[0] for row in BAD])
def test_write_mtme_scores_refuses_bad_input(tmp_path, what, change, message):
    data = docmetrics.read_human(MTME / TESTSET, lp=LP)
    given = {"ref_name": "refA", "results": docmetrics.load("chrf").compute(data.testset), **change}
    with pytest.raises(InputError, match=message):
        judging.write_mtme_scores(tmp_path, TESTSET, LP, "chrf", given["ref_name"], given["results"])


def test_read_mtme_dir_names_the_folder_it_misses(tmp_path):
    with pytest.raises(InputError, match=r"metric-scores.en-de: no such directory; --stored reads"):
        judging.read_mtme_dir(str(tmp_path), TESTSET, LP, None)


def test_stored_metrics_join_a_run_without_loading(written):
    out, run = written
    (chrf,) = judging.read_mtme_dir(str(out), TESTSET, LP, ["chrf"])

    def no_model(spec, lp):
        raise AssertionError(f"{spec} was loaded")

    (again,) = judging.run_mtme(str(MTME), TESTSET, [LP], ["stored:chrf"], no_model,
                                stored={LP: {"stored:chrf": chrf}})
    assert [r.system for r in again.results["stored:chrf"]] == [r.system for r in run.results["chrf"]]
    for mine, theirs in zip(again.results["stored:chrf"], run.results["chrf"]):
        assert mine.score == pytest.approx(theirs.score, abs=1e-12)


def test_a_stored_metric_that_does_not_fit_stops_the_run_before_anything_loads(written, tmp_path):
    _, run = written
    judging.write_mtme_scores(tmp_path, TESTSET, LP, "chrf", "refA", run.results["chrf"][:2], n_segments=24)
    (chrf,) = judging.read_mtme_dir(str(tmp_path), TESTSET, LP, ["chrf"])
    heard = []

    class Ear(judging.MtmeObserver):
        def opened(self, run):
            heard.append(run.lp)

    with pytest.raises(InputError, match="chrf-refA.seg.score"):  # two systems of the six the run scores
        judging.run_mtme(str(MTME), TESTSET, [LP], ["stored:chrf"], load, observer=Ear(),
                         stored={LP: {"stored:chrf": chrf}})
    assert heard == []
