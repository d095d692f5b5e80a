"""One meta-evaluation result (issue 46): ``docmetrics.judging.MetaEvaluation`` is what every meta-evaluation
returns (``meta_evaluate`` on any data, and the computations under it), with one ``to_dict`` and one ``to_text``
that the commands print; ``--human``/``--genmt`` call ``meta_evaluate``; the WMT averages of ``docmetrics metaeval``
are the public ``docmetrics.judging.wmt_average``, their text ``WmtAverage.to_text``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from test_judging_api import ESA, REFS, SYSTEMS
from test_mtme import build_tiny

import docmetrics
import docmetrics.judging as judging
from docmetrics.judging import averages
from docmetrics.judging.evaluate import evaluate_mtme, evaluate_wmt
from docmetrics.values.errors import InputError, SpecError

HYPS = [f"{s}.txt" for s in SYSTEMS]
TEXTS = ["-i", *HYPS, "-r", "ref.txt", "-s", "src.txt", "--doc-ids", "ids.txt"]


def write(path: Path, lines: list[str]) -> None:
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    """Texts of SYSTEMS, a segment-level human TSV with two score columns (``other`` first: ``auto`` takes
    ``score``), and a tiny MTME root with two language pairs."""
    for name, lines in SYSTEMS.items():
        write(tmp_path / f"{name}.txt", lines)
    write(tmp_path / "ref.txt", REFS)
    write(tmp_path / "src.txt", [f"Quelle Satz {i}." for i in range(8)])
    write(tmp_path / "ids.txt", ["d1"] * 4 + ["d2"] * 4)
    write(tmp_path / "human.tsv", ["system\tdoc_id\tseg_id\tother\tscore"] + [
        f"{s}.txt\t{'d1' if i < 4 else 'd2'}\t{i % 4 + 1}\t{-v}\t{v}" for s in ESA for i, v in enumerate(ESA[s])])
    build_tiny(tmp_path / "mtme")
    build_tiny(tmp_path / "mtme", lp="zh-en")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def scored(specs=("chrf", "bleu")):
    testset = docmetrics.read_testset(HYPS, "src.txt", "ref.txt", "ids.txt")
    return testset, {spec: docmetrics.load(spec).compute(testset) for spec in specs}


def test_every_meta_evaluation_is_the_one_result_type(folder):
    testset, results = scored()
    human = docmetrics.read_human("human.tsv")
    ev = docmetrics.meta_evaluate(results, human, testset=testset, significance=0)
    assert type(ev) is judging.MetaEvaluation
    assert list(ev.metrics) == ["chrf [1]", "bleu [2]"] and ev.metric("bleu") is ev.metrics["bleu [2]"]
    # the computations under meta_evaluate give the same type, each JSON layout by its own default
    wmt = evaluate_wmt(results, human.human.system, significance=())
    assert type(wmt) is judging.MetaEvaluation and isinstance(wmt.to_dict(), dict)
    assert isinstance(wmt.to_dict(layout="human"), list)
    plain = docmetrics.meta_evaluate(list(results.items()), human.human, significance=0)
    assert type(plain) is judging.MetaEvaluation and plain.to_dict() == plain.to_dict(layout="human")
    mtme = docmetrics.read_human("mtme/toy", lp="en-de", ref="refA")
    data, mtme_set = mtme.raw, mtme.testset
    on_mtme = evaluate_mtme({"chrf": docmetrics.load("chrf").compute(mtme_set)}, data, significance=())
    assert type(on_mtme) is judging.MetaEvaluation and on_mtme.to_dict()["lp"] == "en-de"
    with pytest.raises(SpecError, match="layout='wmt': human or mtme"):
        ev.to_dict(layout="wmt")
    with pytest.raises(SpecError, match="layout='wmt'"):
        ev.metric(0).to_dict(layout="wmt")


def test_the_human_command_prints_meta_evaluate_and_names_its_column(folder, capsys):
    """--human-column is said under the table as the library says it (describe_human), and the command's JSON and
    text are meta_evaluate's to_dict() and to_text() with that description."""
    testset, results = scored()
    argv = ["-m", "chrf", "bleu", *TEXTS, "--human", "human.tsv", "--seg-level", "--resamples", "50"]
    code, text, err = run_cli(capsys, *argv, "--human-column", "score")
    assert code == 0, err
    assert "Human scores: human.tsv (column score; higher is better)." in text
    human = docmetrics.read_human("human.tsv", column="score")
    said = judging.describe_human(human, column="score")
    assert said == "human.tsv (column score; higher is better)"
    ev = docmetrics.meta_evaluate(results, human, testset=testset, levels=("system", "segment"), significance=50,
                                  human_text=said)
    assert ev.to_text() == text
    code, out, err = run_cli(capsys, *argv, "--human-column", "score", "-f", "json")
    assert code == 0, err
    assert json.loads(out) == json.loads(json.dumps(ev.to_dict()))
    # without --human-column: "auto", the first known column (score), the same numbers
    code, auto, err = run_cli(capsys, *argv)
    assert code == 0 and "(column auto; higher is better)" in auto
    assert auto.replace("column auto", "column score") == text
    assert judging.describe_human(docmetrics.read_human("human.tsv")) == "human.tsv (column auto; higher is better)"
    code, other, err = run_cli(capsys, *argv, "--human-column", "other")
    assert code == 0 and "(column other; higher is better)" in other and other != text


def test_statistics_are_compared_besides_the_main_ones(folder):
    """meta_evaluate(statistics=[...]) compares those and the main ones, as --stat does and as on MTME data."""
    testset, results = scored()
    human = docmetrics.read_human("human.tsv")
    ev = docmetrics.meta_evaluate(results, human, testset=testset, statistics=["kendall_c"], significance=20)
    main = docmetrics.meta_evaluate(results, human, testset=testset, significance=20)
    assert list(ev.comparisons) == [*main.comparisons, "kendall_c"]
    assert ev.value("chrf", "kendall_c") is not None and ev.clusters("kendall_c")


def test_wmt_average_is_a_library_call_printed_as_the_command_prints_it(folder, capsys):
    evals = []
    for lp in ("en-de", "zh-en"):
        mtme = docmetrics.read_human("mtme/toy", lp=lp, ref="refA")
        results = {spec: docmetrics.load(spec, defaults={"lang": lp}).compute(mtme.testset) for spec in ("chrf", "bleu")}
        evals.append(docmetrics.meta_evaluate(results, mtme, significance=40))
    for scheme in ("wmt24", "wmt23", ["pearson", "seg_acc_eq"]):
        avg = judging.wmt_average(evals, scheme)
        assert isinstance(avg, judging.WmtAverage)
        same = averages.wmt_average(evals, scheme)
        assert json.dumps(avg.to_dict()) == json.dumps(same.to_dict())
        assert [r.rank for r in avg.ranking] and all(not math.isnan(r.value) for r in avg.ranking)
    wmt24 = judging.wmt_average(evals, "wmt24")
    text = wmt24.to_text(width=4, labels={"chrf": 1, "bleu": 2})
    assert text.startswith("WMT24 average: SPA and acc_eq of every language pair, equal weights\n")
    assert "chrf [1]" in text and "Rank: significance cluster on the average (PERM-BOTH, 40 resamples" in text
    custom = judging.wmt_average(evals, ["pearson", "seg_acc_eq"])
    assert custom.title.startswith("Average of ") and custom.scheme == "pearson,seg_acc_eq"
    # what docmetrics metaeval prints of each average is its to_text, and its JSON its to_dict
    code, out, err = run_cli(capsys, "metaeval", "--mtme", "mtme", "-t", "toy", "-l", "en-de,zh-en", "-m", "chrf",
                             "bleu", "--ref", "refA", "--resamples", "40", "--average", "pearson,seg_acc_eq")
    assert code == 0, err
    for avg in (wmt24, judging.wmt_average(evals, "wmt23"), custom):
        assert avg.to_text(4, {"chrf": 1, "bleu": 2}) in out
    with pytest.raises(TypeError, match="give what meta_evaluate returns"):
        judging.wmt_average([evals[0], {"lp": "x"}])  # type: ignore[list-item]
    with pytest.raises(InputError, match="appear twice"):
        judging.wmt_average([evals[0], evals[0]])


def test_check_human_says_before_scoring_what_meta_evaluate_will_meet(folder, capsys):
    testset = docmetrics.read_testset(HYPS, "src.txt", "ref.txt", "ids.txt")
    assert judging.check_human(docmetrics.read_human("human.tsv"), testset) == {}
    first, *rest = SYSTEMS
    rows = [f"{s}.txt\t{'d1' if i < 4 else 'd2'}\t{i % 4 + 1}\t{v}" for s in ESA for i, v in enumerate(ESA[s])]
    write(folder / "fewer.tsv", ["system\tdoc_id\tseg_id\tscore"] + [r for r in rows if not r.startswith(first)])
    fewer = docmetrics.read_human("fewer.tsv")
    assert list(judging.check_human(fewer, testset)) == [f"{first}.txt"]
    assert judging.check_human(fewer, testset, exclude=[f"{first}.txt"]) == {}
    code, out, err = run_cli(capsys, "-m", "chrf", *TEXTS, "--human", "fewer.tsv")
    assert code == 0 and f"--human fewer.tsv has no scores for {first}.txt" in err
    # the document gold, with doc_rule: a document judged for some systems only is an error before scoring
    write(folder / "partial.tsv", ["system\tdoc_id\tseg_id\tscore"]
          + [r for r in rows if not (r.startswith(rest[0]) and "\td2\t" in r)])
    partial = docmetrics.read_human("partial.tsv")
    assert judging.check_human(partial, testset) == {}
    with pytest.raises(InputError) as caught:
        judging.check_human(partial, testset, doc_rule="mean")
    code, out, err = run_cli(capsys, "-m", "chrf", *TEXTS, "--human", "partial.tsv", "--seg-level", "--doc-level")
    assert code == 2 and str(caught.value).split(":")[0] in err
