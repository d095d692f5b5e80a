"""The results of sweeps and paired tests print themselves (issue 46, the "tools" slice): ``docmetrics sweep`` and
``--paired-bs``/``--paired-ar``/``--ci`` print what :meth:`Sweep.to_text`, :meth:`PairedTest.table`,
:meth:`PairedTest.to_dicts` and :meth:`ConfidenceInterval.describe` give from Python, byte for byte; the number
format, table and metric labels every ``to_text`` uses are public; a plugin's one-line description is the
registry's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_fixtures import run_cli

import docmetrics
from docmetrics import judging
from docmetrics.api import read_testset
from docmetrics.values.errors import InputError

TED = Path(__file__).resolve().parents[1] / "docmetrics" / "data" / "ted"
SYSTEMS = [str(TED / "sys" / f"{name}.txt") for name in ("UEdin", "Nemo", "HuaweiTSC")]
TEXTS = ["-i", *SYSTEMS, "-r", str(TED / "ref.txt"), "--doc-ids", str(TED / "docids.txt")]


@pytest.fixture(scope="module")
def testset():
    return read_testset(SYSTEMS, None, str(TED / "ref.txt"), str(TED / "docids.txt"))


def test_sweep_prints_its_to_text(testset, capsys):
    human = judging.read_human(str(TED / "human_seg.tsv"))
    done = judging.sweep("chrf", ["char_order=4..5"], testset, human=human, seg_level=True, cache=False)
    code, out, err = run_cli(capsys, "sweep", "-m", "chrf", "--grid", "char_order=4..5", *TEXTS, "--human",
                             str(TED / "human_seg.tsv"), "--seg-level", "--no-cache", "-q")
    assert code == 0, err
    assert out == done.to_text()
    assert out.splitlines()[0].split()[:2] == ["char_order", "pearson"]
    assert "metric: chrf; first point's signature: chrf|char_order:4|" in out


def test_a_sweep_without_human_scores_prints_each_metrics_decimals(testset, capsys):
    done = judging.sweep("bleu", ["smooth_method=exp,floor"], testset, cache=False)
    assert done.decimals == 1
    rows = done.to_text().splitlines()
    assert rows[0].split() == ["smooth_method", "UEdin.txt", "Nemo.txt", "HuaweiTSC.txt"]
    assert all(len(cell.rpartition(".")[2]) == 1 for cell in rows[2].split()[1:])  # BLEU's one decimal
    assert all(len(cell.rpartition(".")[2]) == 3 for cell in done.to_text(3).splitlines()[2].split()[1:])
    code, out, err = run_cli(capsys, "sweep", "-m", "bleu", "--grid", "smooth_method=exp,floor", *TEXTS, "--no-cache",
                             "-q")
    assert code == 0, err
    assert out == done.to_text()


def test_sweep_plan_checks_the_statistic_before_anything_is_read():
    planned = judging.Sweep.plan("chrf", ["char_order=4..6"], stat="pearson")
    assert [p.spec for p in planned.points] == ["chrf:char_order=4", "chrf:char_order=5", "chrf:char_order=6"]
    assert planned.scale[1] == 0  # a correlation's chance
    with pytest.raises(InputError, match="stat=nonsense: no such statistic"):
        judging.Sweep.plan("chrf", ["char_order=4..6"], stat="nonsense")
    with pytest.raises(InputError, match="needs seg_level=True"):
        judging.Sweep.plan("chrf", ["char_order=4..6"], stat="spa")


@pytest.mark.parametrize("test", ["bs", "ar"])
def test_paired_tests_print_the_librarys_table_and_json(testset, capsys, test):
    specs = ["chrf", "bleu"]
    tests = [judging.compare_systems(docmetrics.load(spec).compute(testset), test=test, n=200) for spec in specs]
    argv = ["-m", *specs, *TEXTS, f"--paired-{test}", f"--paired-{test}-n", "200"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert out == judging.PairedTest.table(tests, specs=specs)
    assert out.split()[0] == "System" and "Baseline: UEdin.txt" in out
    code, out, err = run_cli(capsys, *argv, "-f", "json")
    assert code == 0, err
    assert json.loads(out) == [d for spec, t in zip(specs, tests) for d in t.to_dicts(spec)]
    one = tests[1].to_text()
    assert one.splitlines()[0].split() == ["System", "bleu", "[1]"]


def test_a_paired_cell_and_an_interval_as_text():
    cell = judging.PairedResult("b", 31.25, mean=31.0, ci=1.5, p_value=0.01)
    assert cell.to_text(1) == "31.2 (31.0 ± 1.5) (p = 0.0100)*"
    assert judging.PairedResult("b", 0.5, p_value=0.5).to_text(2) == "0.50 (p = 0.5000)"
    ci = judging.ConfidenceInterval("a", "chrf", 50.0, 48.123, 51.5, 49.9, 0.95, 1000, 12345, 5, 6)
    assert ci.to_text(2) == "[48.12, 51.50]"
    assert judging.ConfidenceInterval.describe([[ci]]) == (
        "95% confidence intervals [low, high]: bootstrap over whole documents (1000 resamples, seed 12345): 5 of 6 "
        "documents (the others have no scored unit)\n")
    two = judging.ConfidenceInterval.describe([[ci], [ci]])
    assert "[1] 5 of 6 documents" in two and "[2] 5 of 6 documents" in two


def test_ci_prints_the_librarys_interval_text(testset, capsys):
    results = docmetrics.load("chrf").compute(testset)
    cis = judging.confidence_intervals(results, n=200)
    code, out, err = run_cli(capsys, "-m", "chrf", *TEXTS, "--ci", "--ci-n", "200")
    assert code == 0, err
    assert judging.ConfidenceInterval.describe([cis]) in out
    assert all(ci.to_text(results[0].decimals or 4) in out for ci in cis)


def test_the_text_helpers_are_public():
    assert judging.num(-0.00001, 3) == "0.000" and judging.num(None, 2) == "nan"
    assert judging.table(["a", "b"], [["x", "1.0"]]) == "a    b\n-  ---\nx  1.0\n"
    assert judging.metric_labels(["chrf", "bleu", "chrf:char_order=4"]) == ["chrf", "bleu", "chrf:char_order=4"]
    assert judging.column("chrf", 2) == "chrf [2]"


def test_a_plugins_description_is_the_registrys(capsys):
    from docmetrics.plugin import registry

    chrf = next(p for p in registry.plugins("metric") if p.name == "chrf")
    assert chrf.description and chrf.description in run_cli(capsys, "--list")[1]


def test_compare_systems_words_its_errors_as_its_parameters(testset):
    from docmetrics.values.errors import UserError

    results = docmetrics.load("chrf").compute(testset)
    with pytest.raises(UserError, match=r"^n=0: a paired test takes from 1 to") as bad:
        judging.compare_systems(results, n=0)
    assert bad.value.params == ("n",)
    with pytest.raises(UserError, match=r"^test='xx': no such paired test"):
        judging.compare_systems(results, test="xx")
    with pytest.raises(InputError, match="give the Results of at least two systems, not 1"):
        judging.compare_systems(results[:1])


def test_a_heatmap_of_three_varying_parameters_is_refused_in_each_sides_words(capsys, tmp_path):
    planned = judging.Sweep.plan("chrf", ["char_order=4..5", "word_order=0..1", "beta=1..2"])
    with pytest.raises(InputError, match=r"beta also varies: fix it in the metric's spec") as refused:
        planned.heatmap()
    assert refused.value.params == ("grid",)
    code, _, err = run_cli(capsys, "sweep", "-m", "chrf", "--grid", "char_order=4..5", "word_order=0..1", "beta=1..2",
                           *TEXTS, "--human", str(TED / "human_seg.tsv"), "--plot", str(tmp_path / "h.png"))
    assert code == 2 and "--plot: the heatmap has two axes (char_order, word_order); beta also varies: fix it in -m " \
                         "and sweep it in separate runs" in err
