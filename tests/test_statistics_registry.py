"""Statistics as values (issue 28, item 1): one registry (docmetrics.evaluation.statistics) behind every table,
JSON layout, sweep choice, heatmap scale and average; a statistic a third party registers through the entry
point group ``docmetrics.statistics`` appears in ``--human``, ``--genmt`` and ``--mtme`` tables and JSON and in
``docmetrics sweep --stat``, computed on the oriented scores."""

from __future__ import annotations

import json
import sys

import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist, write_distribution  # noqa: F401
from test_genmt_release import sources  # noqa: F401 (the three data sources of one test set)

from docmetrics.evaluation import averages, metaeval
from docmetrics.evaluation import statistics as stats
from docmetrics.evaluation.sweep import DOC_STATS, SEG_STATS, STAT_CHOICES
from docmetrics.plugin import registry
from docmetrics.values.errors import InputError

pytestmark = pytest.mark.usefixtures("toy_dist")

QE = "slide:w=1,s=1,backbone=toy"
TOP = '''
from docmetrics.evaluation.statistics import Statistic


def top_system(data):
    """1 where the metric and the humans rank the same system first, else 0."""
    best = lambda xs: max(range(len(xs)), key=xs.__getitem__)
    return float(best(data.metric_sys) == best(data.human_sys))


TOP = Statistic("top_agree", "system", "the metric's best system is the humans'", "top-agree", 0.0, 1.0, 0.5,
                compute=top_system)
'''


def top_system(metric, human):
    best = lambda xs: max(range(len(xs)), key=xs.__getitem__)  # noqa: E731
    return float(best(metric) == best(human))


@pytest.fixture()
def top(tmp_path):
    root = write_distribution(tmp_path / "site", "top-agree", "1.0", {"top_agree/__init__.py": TOP},
                              "[docmetrics.statistics]\ntop_agree = top_agree:TOP\n")
    sys.path.insert(0, str(root))
    registry.refresh()
    yield
    sys.path.remove(str(root))
    sys.modules.pop("top_agree", None)
    registry.refresh()


def test_the_views_of_the_registry_are_what_the_tables_had():
    assert metaeval.MAIN_STATISTICS == ("pearson", "accuracy", "spa", "seg_acc_eq", "seg_pearson")
    assert metaeval.SYS_STATISTICS == ("pearson", "spearman", "kendall", "accuracy", "accuracy_mtme", "spa")
    assert metaeval.SEG_STATISTICS == ("seg_acc_eq", "seg_pearson", "seg_kendall")
    assert metaeval.ALIASES["acc_eq"] == "seg_acc_eq" and metaeval.ALIASES["seg-kendall"] == "seg_kendall"
    assert averages.RANGES["pearson"] == (-1.0, 1.0) and averages.RANGES["seg_acc_eq"] == (0.0, 1.0)
    assert averages.RANGES["accuracy_mtme"] == (0.0, 1.0) and averages.RANGES["global_accuracy"] == (0.0, 1.0)
    assert {"accuracy", "pdp", "seg-kendall", "seg-pearson", "acc_eq", "doc_spa"} <= set(STAT_CHOICES)
    assert set(SEG_STATS) == {"spa", "acc_eq", "seg-pearson", "seg-kendall"} and "doc_pdp" in DOC_STATS
    assert stats.get("acc_eq").scale == (0.0, 0.5, 1.0) and stats.get("kendall").scale == (-1.0, 0.0, 1.0)
    with pytest.raises(InputError, match="unknown statistic 'nope'; one of pearson, spearman"):
        stats.get("nope")


def test_a_registered_statistic_is_computed_on_oriented_scores(top):
    from test_direction import DOC_IDS, HUMAN, SOURCES, negated
    from test_direction import SYSTEMS as FOUR

    import docmetrics
    from docmetrics.evaluation.metaeval import evaluate_wmt
    from docmetrics.values.testset import TestSet

    assert [s.name for s in stats.statistics() if s.compute] == ["top_agree"]
    assert "top_agree" in {p.name for p in registry.plugins("statistic")}
    results = docmetrics.load(QE).compute(TestSet.from_lists(FOUR, SOURCES, None, DOC_IDS))
    plain = evaluate_wmt({"m": results}, None, HUMAN, significance=()).metrics["m"]
    twin = evaluate_wmt({"m": [negated(r) for r in results]}, None, HUMAN, significance=()).metrics["m"]
    human_sys = [sum(HUMAN[s]) / 6 for s in plain.systems]
    assert plain.get("top_agree") == twin.get("top_agree") == top_system([r.score for r in results], human_sys)


@pytest.mark.parametrize("source", ["human", "genmt", "mtme"])
def test_a_registered_statistic_is_in_every_table_and_json(top, sources, capsys, source):
    code, out, err = run(capsys, "-m", QE, *sources[source])
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("Metric"))
    assert header.split()[-1] == "top-agree", header
    code, out, err = run(capsys, "-m", QE, *sources[source], "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    ev = report["metrics"][0] if source == "mtme" else report[0]
    assert ev["top_agree"] in (0.0, 1.0)
    # the value is the statistic's own computation on the systems' scores and the humans'
    system = ev["system"] if source == "mtme" else ev
    assert ev["top_agree"] == top_system(system["metric_scores"], system["human_scores"])


def test_sweep_draws_a_registered_statistic(top, sources, tmp_path, capsys):
    from docmetrics.cli.main import main

    argv = ["sweep", "-m", "slide:backbone=toy", "--grid", "w=1..2", "s=1", *map(str, sources["human"]),
            "--stat", "top_agree", "-o", str(tmp_path / "sweep.json")]
    assert main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[-1] == "top-agree"
    points = json.loads((tmp_path / "sweep.json").read_text())["points"]
    assert all(p["metaeval"]["top_agree"] in (0.0, 1.0) for p in points if p.get("metaeval"))
    assert main([*argv[:-2], "--stat", "nope"]) == 2
    assert "--stat nope: no such statistic; one of pearson" in capsys.readouterr().err
