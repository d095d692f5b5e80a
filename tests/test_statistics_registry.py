"""Statistics as values (issue 28, item 1): one registry (docmetrics.judging.statistics) behind every table,
JSON layout, sweep choice, heatmap scale, average and plot panel; a statistic a third party registers through the
entry point group ``docmetrics.statistics`` appears in ``--human``, ``--genmt`` and ``--mtme`` tables and JSON, in
``docmetrics sweep --stat``, in ``docmetrics metaeval`` (each language pair, ``--average``, ``--plot``), computed
on the oriented scores, and is compared between metrics by PERM-BOTH on the cells of its level."""

from __future__ import annotations

import contextlib
import json
import statistics as pystats
import sys

import numpy as np
import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist, write_distribution  # noqa: F401
from test_genmt_release import sources  # noqa: F401 (the three data sources of one test set)
from test_mtme import build_tiny

from docmetrics.judging import averages
from docmetrics.judging import evaluate as metaeval
from docmetrics.judging import statistics as stats
from docmetrics.judging.aligned import Aligned
from docmetrics.judging.comparisons import compare
from docmetrics.judging.sweeps import SEG_STATS, STAT_CHOICES
from docmetrics.plugin import registry
from docmetrics.values.errors import InputError

pytestmark = pytest.mark.usefixtures("toy_dist")

QE = "slide:w=1,s=1,backbone=toy"
TOP = '''
from docmetrics.judging.statistics import Statistic


def top_system(data):
    """1 where the metric and the humans rank the same system first, else 0."""
    best = lambda xs: max(range(len(xs)), key=xs.__getitem__)
    return float(best(data.metric_sys) == best(data.human_sys))


TOP = Statistic("top_agree", "system", "the metric's best system is the humans'", "top-agree", 0.0, 1.0, 0.5,
                compute=top_system)
'''


#: Pearson's r by the standard library, as a third party would write it: at system level, and over every
#: (system, segment) the metric and the humans score
TWINS = '''
import statistics

from docmetrics.judging.statistics import Statistic


def pearson_twin(data):
    return statistics.correlation(list(data.metric_sys), list(data.human_sys))


def seg_pearson_twin(data):
    pairs = [(m, h) for s in data.systems for m, h in zip(data.metric_seg[s], data.human_seg[s])
             if m is not None and h is not None]
    return statistics.correlation([m for m, _ in pairs], [h for _, h in pairs])


PEARSON = Statistic("pearson_twin", "system", "Pearson by the standard library", "pearson-twin",
                    compute=pearson_twin)
SEG_PEARSON = Statistic("seg_pearson_twin", "segment", "segment-level Pearson by the standard library",
                        "seg-pearson-twin", compute=seg_pearson_twin)
'''


def top_system(metric, human):
    best = lambda xs: max(range(len(xs)), key=xs.__getitem__)  # noqa: E731
    return float(best(metric) == best(human))


@contextlib.contextmanager
def installed(site, dist, module, text, entry_points):
    """A distribution ``dist`` whose ``module`` registers ``entry_points`` (group docmetrics.statistics)."""
    root = write_distribution(site, dist, "1.0", {f"{module}/__init__.py": text},
                              "[docmetrics.statistics]\n" + entry_points)
    sys.path.insert(0, str(root))
    registry.refresh()
    try:
        yield
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(module, None)
        registry.refresh()


@pytest.fixture()
def top(tmp_path):
    with installed(tmp_path / "site", "top-agree", "top_agree", TOP, "top_agree = top_agree:TOP\n"):
        yield


@pytest.fixture()
def twins(tmp_path):
    with installed(tmp_path / "twins", "pearson-twins", "pearson_twins", TWINS,
                   "pearson_twin = pearson_twins:PEARSON\nseg_pearson_twin = pearson_twins:SEG_PEARSON\n"):
        yield


def test_the_views_of_the_registry_are_what_the_tables_had():
    assert metaeval.MAIN_STATISTICS == ("pearson", "accuracy", "spa", "seg_acc_eq", "seg_pearson")
    assert stats.names("system", plugins=False) == ("pearson", "spearman", "kendall", "accuracy", "spa", "pdp")
    assert stats.names("segment", plugins=False) == ("seg_acc_eq", "seg_pearson", "seg_kendall")
    assert stats.get("acc_eq").name == "seg_acc_eq" and stats.get("seg-kendall").name == "seg_kendall"
    assert stats.stat_range("pearson") == (-1.0, 1.0) and stats.stat_range("acc_eq") == (0.0, 1.0)
    assert stats.stat_range("accuracy_mtme") == (0.0, 1.0)  # global_accuracy's (0, 1): the metaeval golden
    assert {"accuracy", "pdp", "seg-kendall", "seg-pearson", "acc_eq", "doc_spa"} <= set(STAT_CHOICES)
    assert set(SEG_STATS) == {"spa", "acc_eq", "seg-pearson", "seg-kendall"} and stats.get("doc_pdp").needs == "document"
    assert stats.get("acc_eq").scale == (0.0, 0.5, 1.0) and stats.get("kendall").scale == (-1.0, 0.0, 1.0)
    with pytest.raises(InputError, match="unknown statistic 'nope'; one of pearson, spearman"):
        stats.get("nope")


def test_a_registered_statistic_is_computed_on_oriented_scores(top):
    from test_direction import DOC_IDS, HUMAN, SOURCES, negated
    from test_direction import SYSTEMS as FOUR

    import docmetrics
    from docmetrics.judging.evaluate import evaluate_wmt
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


# -- PERM-BOTH between metrics on a plugin statistic's cells ------------------------------------------------------
ORDER = [f"s{k}" for k in range(7)]


def two_metrics():
    """Two metrics' scores of 7 systems x 9 segments and the humans', with unscored segments in each."""
    rng = np.random.default_rng(5)
    human = {s: [None if (i + k) % 5 == 0 else float(v) for i, v in enumerate(rng.normal(size=9))]
             for k, s in enumerate(ORDER)}

    def metric(noise, hole):
        seg = {s: [None if (i * hole + k) % 7 == 0 else (h or 0.0) + float(rng.normal(scale=noise))
                   for i, h in enumerate(human[s])] for k, s in enumerate(ORDER)}
        sys_ = [pystats.fmean(v for v in seg[s] if v is not None) for s in ORDER]
        return Aligned(sys_, seg, seg, "segment", [(i, i + 1) for i in range(9)])

    human_sys = [pystats.fmean(v for v in human[s] if v is not None) for s in ORDER]
    return {"a": metric(0.5, 3), "b": metric(1.5, 2)}, human_sys, human


def compared(stat, aligned, human_sys, human_seg, n_resamples=300, seed=11):
    return compare(stat, {"a": 0.9, "b": 0.1}, {}, aligned, {"a": None, "b": None}, ORDER, human_sys, human_seg,
                   n_resamples=n_resamples, seed=seed, n_permutations=50, spa_seed=1, alpha=0.05)


def test_a_plugin_statistic_is_compared_on_the_cells_of_its_level(twins):
    aligned, human_sys, human_seg = two_metrics()
    # system level: the twin of Pearson draws the builtin's null and p-value, and both equal PERM-BOTH by hand
    twin = compared("pearson_twin", aligned, human_sys, human_seg).tests[("a", "b")]
    own = compared("pearson", aligned, human_sys, human_seg).tests[("a", "b")]
    np.testing.assert_allclose(twin.null, own.null, rtol=0, atol=1e-12)
    assert twin.p_value == own.p_value and twin.delta == pytest.approx(own.delta, abs=1e-12)

    def z(x):
        return [(v - pystats.fmean(x)) / pystats.pstdev(x) for v in x]

    za, zb = z(aligned["a"].sys), z(aligned["b"].sys)
    rng = np.random.default_rng(11)
    draws = []
    for _ in range(300):
        swap = rng.integers(0, 2, size=len(ORDER)).astype(bool)
        side_a = [y if w else x for x, y, w in zip(za, zb, swap)]
        side_b = [x if w else y for x, y, w in zip(za, zb, swap)]
        draws.append(pystats.correlation(side_a, human_sys) - pystats.correlation(side_b, human_sys))
    delta = pystats.correlation(za, human_sys) - pystats.correlation(zb, human_sys)
    np.testing.assert_allclose(twin.null, draws, rtol=0, atol=1e-12)
    assert twin.p_value == np.mean(np.asarray(draws) >= delta) and 0 < twin.p_value < 1
    # segment level: the cells both metrics and the humans score, rebuilt into metric_seg for the twin
    seg_twin = compared("seg_pearson_twin", aligned, human_sys, human_seg)
    seg_own = compared("seg_pearson", aligned, human_sys, human_seg)
    np.testing.assert_allclose(seg_twin.tests[("a", "b")].null, seg_own.tests[("a", "b")].null, rtol=0, atol=1e-12)
    assert seg_twin.tests[("a", "b")].p_value == seg_own.tests[("a", "b")].p_value
    assert [(r.metric, r.rank) for r in seg_twin.ranking] == [(r.metric, r.rank) for r in seg_own.ranking]
    assert all(r.rank is not None for r in seg_twin.ranking) and seg_twin.skipped == {}


def test_a_segment_statistic_without_segment_scores_is_not_tested(twins):
    aligned, human_sys, human_seg = two_metrics()
    windows = {**aligned, "b": Aligned(aligned["b"].sys, None, None, "unit", [])}
    comp = compared("seg_pearson_twin", windows, human_sys, human_seg)
    assert comp.tests == {} and all(r.rank is None for r in comp.ranking)
    assert comp.skipped == {"a vs b": "no significance test: a metric's units span several segments: no "
                                      "segment-level scores to swap"}


def test_evaluate_wmt_compares_a_registered_statistic_with_clusters(top, twins):
    from test_direction import DOC_IDS, HUMAN, SOURCES
    from test_direction import SYSTEMS as FOUR

    import docmetrics
    from docmetrics.judging.evaluate import evaluate_wmt
    from docmetrics.values.testset import TestSet

    testset = TestSet.from_lists(FOUR, SOURCES, None, DOC_IDS)
    results = {spec: docmetrics.load(spec).compute(testset) for spec in (QE, "slide:w=2,s=1,backbone=toy")}
    ev = evaluate_wmt(results, None, HUMAN, n_resamples=200,
                      significance=("pearson", "pearson_twin", "seg_pearson", "seg_pearson_twin", "top_agree"))
    for own, twin in (("pearson", "pearson_twin"), ("seg_pearson", "seg_pearson_twin")):
        assert ({k: t.p_value for k, t in ev.comparisons[twin].tests.items()}
                == {k: t.p_value for k, t in ev.comparisons[own].tests.items()})
    top_agree = ev.comparisons["top_agree"]
    assert len(top_agree.tests) == 1 and all(r.rank is not None for r in top_agree.ranking)
    assert {r.metric: r.value for r in top_agree.ranking} == {m: e.get("top_agree") for m, e in ev.metrics.items()}


BAD_PLUGINS = [
    # (what the entry point's object is, what the error says)
    ('Statistic("x_stat", "system", "x", "x")', "has no compute: a plugin statistic brings its own"),
    ('Statistic("pearson", "system", "x", "x", compute=len)', "its name is taken"),
    ('Statistic("x_stat", "document", "x", "x", compute=len)', "its level 'document' is not system or segment"),
    ('Statistic("x_stat", "system", "x", "x", compute=len, cells="item")',
     "permutation cells 'item', but a plugin statistic is compared on the cells of its level ('system')"),
]


@pytest.mark.parametrize("obj,message", BAD_PLUGINS, ids=[b[1][:30] for b in BAD_PLUGINS])
def test_a_bad_plugin_statistic_is_refused_naming_it(tmp_path, obj, message):
    text = f"from docmetrics.judging.statistics import Statistic\nX = {obj}\n"
    with installed(tmp_path / "bad", "bad-stat", "bad_stat", text, "x_stat = bad_stat:X\n"):
        with pytest.raises(InputError, match="statistic 'x_stat' \\(a plugin\\)") as caught:
            stats.statistics()
    assert message in str(caught.value)


# -- docmetrics metaeval: each language pair, --average, --plot ---------------------------------------------------
REF = "slide:w=1,s=1,backbone=toy,model=toy-ref"
META = ["metaeval", "-m", QE, REF, "--mtme", "{root}", "-t", "toy", "-l", "en-de,zh-en", "--ref", "refA",
        "--resamples", "20"]


@pytest.fixture()
def tiny(tmp_path):
    build_tiny(tmp_path / "data")
    build_tiny(tmp_path / "data", lp="zh-en")
    return tmp_path / "data"


def metaeval_argv(root, *more):
    return [str(root) if a == "{root}" else a for a in META] + list(more)


def test_metaeval_shows_averages_and_plots_a_registered_statistic(top, tiny, capsys, monkeypatch):
    from docmetrics.judging import plots

    code, out, err = run(capsys, *metaeval_argv(tiny, "--average", "top_agree,pearson", "-f", "json"))
    assert code == 0, err
    report = json.loads(out)
    by_metric = {}
    for lp in report["lps"]:
        for ev in lp["metrics"]:
            system = ev["system"]
            assert ev["top_agree"] == top_system(system["metric_scores"], system["human_scores"])
            by_metric.setdefault(ev["metric"], []).extend([ev["top_agree"], (system["pearson"] + 1) / 2])
    assert list(report["averages"]) == ["wmt24", "wmt23", "top_agree,pearson"]
    avg = report["averages"]["top_agree,pearson"]
    assert [t["name"] for t in avg["tasks"]] == ["en-de:top_agree", "en-de:pearson", "zh-en:top_agree",
                                                 "zh-en:pearson"]
    assert [t["range"] for t in avg["tasks"]] == [[0.0, 1.0], [-1.0, 1.0]] * 2
    assert {r["metric"]: r["value"] for r in avg["ranking"]} == pytest.approx(
        {m: pystats.fmean(v) for m, v in by_metric.items()})
    # the average's statistics are compared in every language pair, so the average has clusters
    assert avg["note"] is None and all(r["rank"] is not None for r in avg["ranking"]) and avg["pvalues"]
    for lp in report["lps"]:
        assert {"top_agree", "pearson"} <= set(lp["comparisons"])

    figures = []
    monkeypatch.setattr(plots, "save", lambda fig, path, **kw: figures.append(fig))
    code, out, err = run(capsys, *metaeval_argv(tiny, "--average", "top_agree,pearson", "--plot", tiny / "p.png"))
    assert code == 0, err
    assert [line.split()[-1] for line in out.splitlines() if line.startswith("Metric")] == ["top-agree"] * 2
    top_title = stats.get("top_agree").title
    assert (f"Average of {top_title}; system-level Pearson of every language pair, equal weights\n"
            "Rank  Metric") in out
    (fig,) = figures
    titles = [ax.get_title() for ax in fig.axes if ax.patches]
    assert titles == (["WMT24 average", "WMT23 average", f"average of {top_title},\nsystem-level Pearson"]
                      + [stats.get(n).title.replace(" (", "\n(") for n in stats.names(main=True)] + [top_title])
    (panel,) = [ax for ax in fig.axes if ax.get_title() == top_title]
    assert sorted(round(p.get_width(), 9) for p in panel.patches) == sorted(
        v for lp in report["lps"] for v in (ev["top_agree"] for ev in lp["metrics"]))


def test_an_average_of_compared_statistics_has_clusters(top, tmp_path):
    from test_mtme import OUTPUTS, length_ratio, sentence_results

    from docmetrics.formats.mtme import load_mtme
    from docmetrics.judging.evaluate import MAIN_STATISTICS, evaluate_mtme

    evals = []
    for lp, out in (("en-de", OUTPUTS), ("zh-en", {**OUTPUTS, "sysA": OUTPUTS["sysB"], "sysB": OUTPUTS["sysA"]})):
        build_tiny(tmp_path, "toy", lp, outputs=out)
        data, testset = load_mtme(tmp_path, "toy", lp, ref="refA")
        results = {"f1": sentence_results("f1", testset), "len": sentence_results("len", testset, length_ratio)}
        evals.append(evaluate_mtme(results, data, n_resamples=100, n_permutations=200,
                                   significance=(*MAIN_STATISTICS, "top_agree")))
    # the WMT24 scheme is exactly SPA and acc_eq of every language pair (an alias names acc_eq)
    wmt24, same = averages.wmt_average(evals, "wmt24"), averages.wmt_average(evals, ["spa", "acc_eq"])
    assert same.scheme == "spa,seg_acc_eq" and same.statistics == ("spa", "seg_acc_eq")
    assert [(r.metric, r.value, r.rank) for r in same.ranking] == [(r.metric, r.value, r.rank) for r in wmt24.ranking]
    assert same.pvalues == wmt24.pvalues and same.note is None
    mine = averages.wmt_average(evals, ["top_agree", "pearson"])
    assert mine.note is None and set(mine.pvalues) == {(mine.ranking[0].metric, mine.ranking[1].metric)}
    assert all(r.rank is not None for r in mine.ranking)
    assert {r.metric: r.value for r in mine.ranking} == pytest.approx(
        {m: pystats.fmean(v for e in evals for v in (e.metrics[m].get("top_agree"), (e.metrics[m].pearson + 1) / 2))
         for m in ("f1", "len")})


BAD_AVERAGES = [
    # (--average, more options, what the one message says after "--average VALUE: ")
    ("nope", [], "unknown statistic 'nope'; one of pearson, spearman, kendall, accuracy, spa, seg_acc_eq"),
    ("pearson,", [], "statistics separated by commas, e.g. pearson,seg_acc_eq"),
    ("acc_eq,seg_acc_eq", [], "seg_acc_eq named twice; name each statistic once"),
    ("pdp", [], "pdp (system-level Pairwise Difference Pearson (MTME 2025)) needs --pdp or --doc-level"),
    ("spa,doc_spa", ["--pdp"], "doc_spa (SPA with the documents as permutation items) needs --doc-level"),
]


@pytest.mark.parametrize("value,more,message", BAD_AVERAGES, ids=[b[0] for b in BAD_AVERAGES])
def test_a_bad_average_exits_2_naming_the_option_before_scoring(top, tiny, capsys, value, more, message):
    from docmetrics_toy import ToyBackbone

    ToyBackbone.calls.clear()
    code, out, err = run(capsys, *metaeval_argv(tiny, "--average", value, *more))
    assert ToyBackbone.calls == []  # refused before anything was scored
    assert code == 2 and out == ""
    assert err.startswith(f"docmetrics metaeval: error: --average {value}: {message}") and err.count("\n") == 1, err
    if value == "nope":
        assert err.strip().endswith(", top_agree")  # the plugin's name is one there is


BAD_TASK_SETS = [
    (["nope"], "unknown statistic 'nope'; one of pearson"),
    (["pearson", "pearson"], "pearson named twice"),
    ([], "no statistic to average"),
    ("wmt99", "unknown averaging scheme 'wmt99'; one of wmt23, wmt24, or a list of statistics"),
]


@pytest.mark.parametrize("scheme,message", BAD_TASK_SETS, ids=[str(b[0]) for b in BAD_TASK_SETS])
def test_a_bad_task_set_is_an_input_error(scheme, message):
    with pytest.raises(InputError, match=message.replace("(", "\\(")):
        averages.wmt_average([object()], scheme)  # type: ignore[list-item]
