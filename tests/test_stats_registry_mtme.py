"""mt-metrics-eval's statistics in the statistics registry (issue 47, item 2): Kendall tau-c (system and
segment level), tau_23, WMT20's Kendall-like statistic and the micro (size-weighted) average of item-grouped
Pearson, computed through docmetrics.stats.  They are opt-in: the default tables and JSON do not name them
(tests/golden stays as it is); asked for with ``--stat NAME`` or ``meta_evaluate(statistics=[...])`` they are
in the table, the JSON and the PERM-BOTH clusters.  Each is checked against an independent computation
(scipy's kendalltau(variant='c'), pair counts by hand, a hand-weighted mean), through the command line and
Python, with equal JSON."""

from __future__ import annotations

import itertools
import json
import math
import warnings

import pytest
import scipy.stats
from cli_fixtures import run_cli
from test_golden_cli import ESA, HYPS, MTME, TEXTS, folder  # noqa: F401 - the golden commands' inputs, a fixture

import docmetrics
from docmetrics.judging import statistics as registry
from docmetrics.values.errors import InputError

OPT_IN = ("kendall_c", "seg_kendall_c", "seg_kendall_23", "seg_kendall_like", "seg_pearson_micro")
HUMAN = ["-m", "chrf", "bleu", *TEXTS, "--human", "human.tsv", "--seg-level"]


def tau_23_by_hand(gold, metric):
    """(concordant + tied in both - discordant - tied in one) / pairs, looking at each pair."""
    score = 0
    pairs = list(itertools.combinations(range(len(gold)), 2))
    for i, j in pairs:
        dg, dm = gold[i] - gold[j], metric[i] - metric[j]
        if dg == 0 and dm == 0:
            score += 1
        elif dg == 0 or dm == 0:
            score -= 1
        else:
            score += 1 if (dg > 0) == (dm > 0) else -1
    return score / len(pairs)


def kendall_like_by_hand(rows_gold, rows_metric, thresh=25):
    """WMT20: within each segment, the pairs of systems whose human scores differ by >= thresh; concordant
    when the metric orders them as the humans (a metric tie is discordant); (con - dis) / pairs, pooled."""
    con = dis = 0
    for gold, metric in zip(rows_gold, rows_metric):
        for i, j in itertools.combinations(range(len(gold)), 2):
            if abs(gold[i] - gold[j]) >= thresh:
                if (gold[i] - gold[j]) * (metric[i] - metric[j]) > 0:
                    con += 1
                else:
                    dis += 1
    return (con - dis) / (con + dis)


def micro_pearson_by_hand(rows_gold, rows_metric):
    """Pearson's r within each segment (scipy), averaged weighted by the segment's number of systems; a
    segment where either side is constant has no r and no weight."""
    total = weight = 0.0
    for gold, metric in zip(rows_gold, rows_metric):
        if len(set(gold)) < 2 or len(set(metric)) < 2:
            continue
        total += len(gold) * scipy.stats.pearsonr(gold, metric)[0]
        weight += len(gold)
    return total / weight


def expected(ev_json, chrf_results):
    """Each opt-in statistic of chrF, computed independently of docmetrics from the systems' scores (the
    JSON's), its sentence scores (the Results') and the ESA segment scores of human.tsv."""
    systems = ev_json["systems"]
    metric = {r.system: [u.score for u in r.units] for r in chrf_results}
    gold = {f"{s}.txt": [float(v) for v in ESA[s]] for s in ESA}
    pooled_g = [g for s in systems for g in gold[s]]
    pooled_m = [m for s in systems for m in metric[s]]
    rows_g = [[gold[s][i] for s in systems] for i in range(len(gold[systems[0]]))]
    rows_m = [[metric[s][i] for s in systems] for i in range(len(gold[systems[0]]))]
    return {
        "kendall_c": scipy.stats.kendalltau(ev_json["human_scores"], ev_json["metric_scores"], variant="c")[0],
        "seg_kendall_c": scipy.stats.kendalltau(pooled_g, pooled_m, variant="c")[0],
        "seg_kendall_23": tau_23_by_hand(pooled_g, pooled_m),
        "seg_kendall_like": kendall_like_by_hand(rows_g, rows_m),
        "seg_pearson_micro": micro_pearson_by_hand(rows_g, rows_m),
    }


@pytest.fixture()
def chrf_bleu(folder, monkeypatch):
    monkeypatch.chdir(folder)
    data = docmetrics.read_human("human.tsv")
    testset = docmetrics.read_testset(HYPS, "src.txt", "ref.txt", "ids.txt")
    return data, testset, {spec: docmetrics.load(spec).compute(testset) for spec in ("chrf", "bleu")}


def test_the_opt_in_statistics_are_registered_but_not_in_the_default_views():
    assert registry.names() == tuple(s.name for s in registry.BUILTIN)
    assert registry.names(opt_in=True) == registry.names() + OPT_IN
    assert [s.name for s in registry.MTME] == list(OPT_IN)
    assert all(s.opt_in and s.compute is not None and s.level in ("system", "segment") for s in registry.MTME)
    assert registry.get("tau_23").name == "seg_kendall_23" and registry.get("tau_c").name == "kendall_c"
    assert registry.get("wmt20_kendall").name == "seg_kendall_like"


def test_each_statistic_equals_its_independent_computation_through_the_command_and_python(chrf_bleu, capsys):
    data, testset, results = chrf_bleu
    code, out, err = run_cli(capsys, *HUMAN, "--stat", "kendall_c,seg_kendall_c,tau_23", "--stat",
                             "seg_kendall_like,pearson_micro", "-f", "json")
    assert code == 0, err
    cli = json.loads(out)
    want = expected(cli[0], results["chrf"])
    assert all(not math.isnan(v) and -1 <= v <= 1 for v in want.values()), want
    for name, value in want.items():
        assert cli[0][name] == pytest.approx(value, rel=1e-12, abs=1e-12), name
    # PERM-BOTH compared each, as any registered statistic: a cluster and p-values where one ranks above
    assert set(OPT_IN) <= set(cli[0]["clusters"]) and all(cli[0]["clusters"][n] for n in OPT_IN)
    # the command compares the main statistics and those asked for: the same list here gives the same JSON
    main = registry.names(main=True)
    ev = docmetrics.meta_evaluate(results, data, testset=testset, levels=("system", "segment"),
                                  statistics=[*main, *OPT_IN])
    assert ev.to_dict() == cli
    for name, value in want.items():
        assert ev.value("chrf", name, level=registry.get(name).level) == pytest.approx(value, rel=1e-12)
    # the table: a column per statistic, the value as JSON has it
    code, out, err = run_cli(capsys, *HUMAN, "--stat", ",".join(OPT_IN))
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("Metric")).split()
    assert header[-5:] == ["tau-c", "seg-tau-c", "seg-tau23", "kendall-like", "pearson-micro"]
    chrf_row = next(line for line in out.splitlines() if line.startswith("chrf"))
    assert f"{cli[0]['seg_kendall_23']:.4f}" in chrf_row
    assert "tau-c: system-level Kendall tau-c (MTME KendallVariants 'c') (mt-metrics-eval's" in out


def test_nothing_changes_unless_asked(chrf_bleu, capsys):
    code, out, err = run_cli(capsys, *HUMAN, "-f", "json")
    assert code == 0, err
    plain = json.loads(out)
    assert not any(name in row or name in row.get("clusters", {}) for row in plain for name in OPT_IN)
    code, out, err = run_cli(capsys, *HUMAN, "--stat", "tau_23", "-f", "json")
    asked = json.loads(out)
    # the one asked for is added (value and cluster); every other key and value is as it was
    for before, after in zip(plain, asked):
        assert set(after) - set(before) == {"seg_kendall_23"}
        assert set(after["clusters"]) - set(before["clusters"]) == {"seg_kendall_23"}
        assert {k: v for k, v in after.items() if k not in ("seg_kendall_23", "clusters", "pvalues")} == \
            {k: v for k, v in before.items() if k not in ("clusters", "pvalues")}
        assert {k: v for k, v in after["clusters"].items() if k != "seg_kendall_23"} == before["clusters"]


@pytest.mark.parametrize("source", [["--genmt", "genmt.jsonl", "-l", "en-de"], [*MTME, "-l", "en-de"]],
                         ids=["genmt", "mtme"])
def test_genmt_and_mtme_compute_them_too(folder, monkeypatch, capsys, source):
    monkeypatch.chdir(folder)
    code, out, err = run_cli(capsys, "-m", "chrf", "bleu", *source, "--stat", "kendall_c,tau_23", "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    rows = report["metrics"] if "metrics" in report else report
    for row in rows:
        system = row.get("system", row)
        assert row["kendall_c"] == pytest.approx(
            scipy.stats.kendalltau(system["human_scores"], system["metric_scores"], variant="c")[0], rel=1e-12)
        assert row["seg_kendall_23"] is None or -1 <= row["seg_kendall_23"] <= 1
    compared = report["comparisons"] if "comparisons" in report else rows[0]["clusters"]
    assert {"kendall_c", "seg_kendall_23"} <= set(compared)


def test_sweep_draws_an_opt_in_statistic(folder, tmp_path, capsys):
    from docmetrics.cli.main import main

    argv = ["sweep", "-m", "chrf", "--grid", "char_order=4..6", "-i", *(str(folder / h) for h in HYPS),
            "-r", str(folder / "ref.txt"), "--human", str(folder / "human_sys.tsv"), "--stat", "kendall_c",
            "-o", str(tmp_path / "sweep.json")]
    assert main(argv) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.splitlines()[0].split()[-1] == "tau-c"
    for point in json.loads((tmp_path / "sweep.json").read_text())["points"]:
        ev = point["metaeval"]
        assert ev["kendall_c"] == pytest.approx(
            scipy.stats.kendalltau(ev["human_scores"], ev["metric_scores"], variant="c")[0], rel=1e-12)


BAD = [
    # (the arguments, what the one message says)
    ([*HUMAN, "--stat", "nope"], "--stat nope: unknown statistic 'nope'; one of pearson"),
    (["-m", "chrf", *TEXTS, "--stat", "kendall_c"], "--stat"),  # no human scores to judge against
]


@pytest.mark.parametrize("argv,message", BAD, ids=["unknown", "no-human-scores"])
def test_a_bad_stat_exits_2_before_scoring(folder, monkeypatch, capsys, argv, message):
    from docmetrics.commands import scoring

    monkeypatch.chdir(folder)
    scored = []
    monkeypatch.setattr(scoring.ScoringReport, "scored", lambda self, s: scored.append(s))
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1, err
    assert "Traceback" not in err and scored == []


def test_an_unknown_statistic_is_an_input_error_from_python(chrf_bleu):
    data, testset, results = chrf_bleu
    with pytest.raises(InputError, match="unknown statistic 'nope'"):
        docmetrics.meta_evaluate(results, data, testset=testset, statistics=["nope"])


def test_micro_averaging_weights_each_segment_by_its_scored_systems():
    """Segments with unscored cells (None): the micro average weights each segment's r by how many systems
    both sides score there, which differs from the plain (macro) mean here; the pooled statistics skip them."""
    systems = ["a", "b", "c", "d"]
    human = {"a": [10.0, 80.0, 5.0, None], "b": [50.0, 20.0, 60.0, 1.0], "c": [90.0, 55.0, None, 3.0],
             "d": [30.0, None, 40.0, 2.0]}
    metric = {"a": [0.2, 0.9, 0.1, 0.5], "b": [0.4, 0.1, 0.3, 0.2], "c": [0.7, 0.6, 0.8, None],
              "d": [0.5, 0.3, 0.2, 0.1]}
    data = registry.StatInput(systems, [0.0] * 4, [0.0] * 4, metric, human)
    rows = []  # per segment: the (gold, metric) of the systems both score
    for i in range(4):
        kept = [(human[s][i], metric[s][i]) for s in systems if human[s][i] is not None and metric[s][i] is not None]
        rows.append(([g for g, _ in kept], [m for _, m in kept]))
    micro = micro_pearson_by_hand([g for g, _ in rows], [m for _, m in rows])
    macro = sum(scipy.stats.pearsonr(g, m)[0] for g, m in rows) / 4
    assert [len(g) for g, _ in rows] == [4, 3, 3, 2] and abs(micro - macro) > 0.01
    assert registry.get("seg_pearson_micro").compute(data) == pytest.approx(micro, rel=1e-12)
    assert registry.get("seg_kendall_like").compute(data) == pytest.approx(
        kendall_like_by_hand([g for g, _ in rows], [m for _, m in rows]), rel=1e-12)
    pooled = [(human[s][i], metric[s][i]) for s in systems for i in range(4)
              if human[s][i] is not None and metric[s][i] is not None]
    g, m = [x for x, _ in pooled], [y for _, y in pooled]
    assert registry.get("tau_23").compute(data) == pytest.approx(tau_23_by_hand(g, m), rel=1e-12)
    assert registry.get("seg_kendall_c").compute(data) == pytest.approx(
        scipy.stats.kendalltau(g, m, variant="c")[0], rel=1e-12)


def test_metaeval_averages_an_opt_in_statistic(folder, monkeypatch, capsys):
    monkeypatch.chdir(folder)
    code, out, err = run_cli(capsys, "metaeval", "-m", "chrf", "bleu", "--mtme", "mtme", "-t", "toy", "-l",
                             "en-de,zh-en", "--ref", "refA", "--resamples", "20", "--average", "kendall_c,pearson",
                             "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    by_metric: dict[str, list[float]] = {}
    for lp in report["lps"]:
        assert "kendall_c" in lp["comparisons"]
        for ev in lp["metrics"]:
            system = ev["system"]
            tau_c = scipy.stats.kendalltau(system["human_scores"], system["metric_scores"], variant="c")[0]
            assert ev["kendall_c"] == pytest.approx(tau_c, rel=1e-12)
            by_metric.setdefault(ev["metric"], []).extend([(tau_c + 1) / 2, (system["pearson"] + 1) / 2])
    avg = report["averages"]["kendall_c,pearson"]
    assert {r["metric"]: r["value"] for r in avg["ranking"]} == pytest.approx(
        {m: sum(v) / len(v) for m, v in by_metric.items()})


def test_the_shared_pieces_are_the_references_bit_for_bit():
    """The pieces the old places now take from docmetrics.stats: PERM-BOTH's z-scores are scipy's, bit for bit
    (constant input: NaN); pairwise accuracy's counts are Agreement's, missing entries skipped."""
    import numpy as np

    from docmetrics.stats.base import zscore
    from docmetrics.stats.vector import pairwise_accuracy

    rng = np.random.default_rng(3)
    for n in (2, 7, 50):
        x = rng.normal(size=n) * 37.5
        np.testing.assert_array_equal(zscore(x), scipy.stats.zscore(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns of the constant input it answers NaN to
        assert np.isnan(zscore([2.0, 2.0, 2.0])).all() and np.isnan(scipy.stats.zscore([2.0, 2.0, 2.0])).all()
    metric, human = [1.0, 1.0, 2.0, None, 2.0, float("nan")], [1.0, 2.0, 3.0, 3.0, 4.0, 5.0]
    kept = [(m, h) for m, h in zip(metric, human) if m is not None and m == m]
    by_hand = sum((m1 > m2) - (m1 < m2) == (h1 > h2) - (h1 < h2) for (m1, h1), (m2, h2) in itertools.combinations(kept, 2))
    assert pairwise_accuracy(metric, human) == (by_hand / 6, by_hand, 6)
