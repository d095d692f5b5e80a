"""The judging API (issue 38, item 1): ``docmetrics.read_human`` reads every supported form into an EvalSet
(format recognised, or named; a registry with the entry-point group ``docmetrics.human_formats``),
``meta_evaluate`` gives the numbers and the JSON ``docmetrics --genmt FILE -m chrf -f json`` prints, read by the
statistics registry's names, and ``human_clusters`` the clusters ``docmetrics rank --genmt FILE --rule RULE``
prints (rules: a registry with the group ``docmetrics.cluster_rules``).  The issue's check runs as written on a
fixture and, where ../shared has it, on WMT24 ESA en-cs; ``import docmetrics`` and ``read_human`` import no
torch; a toy distribution's format and rule are found by read_human, human_clusters and ``rank --rule``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from plugin_fixtures import write_distribution

import docmetrics
from docmetrics.plugin import registry
from docmetrics.values.errors import InputError, SpecError

HERE = Path(__file__).resolve().parent
WMT24_ESA = HERE.parents[1] / "shared" / "data" / "wmt24_esa" / "wmt24-esa-encs-enhi.jsonl"

#: five systems of eight segments in two documents; each system's ESA score per segment
SYSTEMS = {
    "sysA": ["The cat sat on the mat.", "It was warm.", "The dog barked loudly.", "Then it slept.",
             "News of the day.", "Prices rose again.", "The market fell.", "People were worried."],
    "sysB": ["A cat sat on a mat.", "It was hot.", "A dog barked.", "It slept then.",
             "Daily news.", "Prices went up.", "Markets dropped.", "Worried people."],
    "sysC": ["Cat mat sat.", "Warm it was.", "Dog loud.", "Sleep.", "News.", "Price up.", "Fell.", "Worry."],
    "sysD": ["The cat is on the mat.", "It was very warm.", "The dog barked.", "Then it slept well.",
             "The news of today.", "Prices rose.", "The market fell down.", "People worried."],
    "sysE": ["xx", "yy", "zz", "ww", "vv", "uu", "tt", "ss"],
}
REFS = ["The cat sat on the mat.", "It was warm.", "The dog barked loudly.", "Then it slept.",
        "The news of the day.", "Prices rose again.", "The market fell.", "People were worried."]
ESA = {"sysA": [98, 95, 97, 99, 96, 94, 99, 97], "sysB": [80, 78, 85, 70, 75, 82, 79, 81],
       "sysC": [30, 35, 25, 40, 20, 33, 28, 31], "sysD": [90, 93, 88, 96, 91, 89, 95, 92],
       "sysE": [2, 0, 5, 1, 3, 0, 4, 2]}
SPAN = {"start_i": 0, "end_i": 2, "severity": "minor"}


def genmt_rows(pair: str = "en-de_DE") -> list[dict]:
    rows = []
    for i, src in enumerate(f"Quelle Satz {i}." for i in range(8)):
        doc = "news_#_d1" if i < 4 else "talk_#_d2"
        rows.append({"doc_id": f"{pair}_#_{doc}", "src_text": src,
                     "tgt_text": {**{s: SYSTEMS[s][i] for s in SYSTEMS}, "refA": REFS[i]},
                     "scores": {s: {"human": ESA[s][i], "errors": [SPAN] if ESA[s][i] < 50 else []} for s in SYSTEMS}})
    return rows


@pytest.fixture()
def genmt(tmp_path: Path) -> Path:
    path = tmp_path / "wmt-esa.jsonl"
    rows = genmt_rows() + genmt_rows("en-cs_CZ")
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def cli_json(*argv: object) -> object:
    """``docmetrics ARGV -f json`` in a subprocess (this checkout's code, PYTHONPATH inherited)."""
    done = subprocess.run([sys.executable, "-m", "docmetrics", *map(str, argv), "-f", "json"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def the_issues_check(path: Path, lp: str) -> tuple[object, ...]:
    """The issue's done-when check, as written (the file and pair given)."""
    data = docmetrics.read_human(str(path), lp=lp)
    results = docmetrics.load("chrf").compute(data.testset)
    ev = docmetrics.meta_evaluate({"chrf": results}, data)
    values = ev.value("chrf", "pearson"), ev.value("chrf", "seg-kendall", level="segment")
    ranking = docmetrics.human_clusters(data, rule="wmt25")
    return data, ev, values, ranking


def check_against_the_command(path: Path, lp: str) -> None:
    data, ev, (pearson, seg_kendall), ranking = the_issues_check(path, lp)
    (printed,) = cli_json("--genmt", path, "-l", lp, "-m", "chrf")
    assert pearson == printed["pearson"] and seg_kendall == printed["seg_kendall"]
    assert json.loads(json.dumps(ev.to_dict())) == [printed]  # the whole JSON the command prints
    ranked = cli_json("rank", "--genmt", path, "-l", lp, "--rule", "wmt25")
    assert ranking.clusters() == ranked["ranking"]["clusters"]
    assert json.loads(json.dumps(ranking.to_dict())) == ranked["ranking"]
    assert all(isinstance(c, list) and all(isinstance(s, str) for s in c) for c in ranking.clusters())


def test_the_issues_check_on_a_genmt_fixture_equals_the_command(genmt):
    check_against_the_command(genmt, "en-de")
    data, ev, _, ranking = the_issues_check(genmt, "en-de")
    assert data.format == "genmt" and data.lp == "en-de_DE" and list(data.testset.systems) == list(SYSTEMS)
    assert ranking.clusters()[0][0] == "sysA" and ranking.clusters()[-1] == ["sysE"]
    # one statistic, any of its names, at its level
    assert ev.value("chrf [1]", "seg_kendall", level="segment") == ev.value(0, "kendall", level="segment")
    assert ev.value("chrf", "acc_eq", level="segment") == ev.metric("chrf").seg_acc_eq
    with pytest.raises(SpecError, match="segment-level statistic.*level='segment'"):
        ev.value("chrf", "seg-kendall")
    with pytest.raises(InputError, match="no metric 'bleu'.*chrf \\[1\\]"):
        ev.value("bleu", "pearson")


@pytest.mark.skipif(not WMT24_ESA.exists(), reason="../shared/data/wmt24_esa not here")
def test_the_issues_check_on_wmt24_esa_en_cs_equals_the_command():
    check_against_the_command(WMT24_ESA, "en-cs")


def test_import_and_read_human_import_no_torch(genmt):
    code = ("import sys, docmetrics; data = docmetrics.read_human(sys.argv[1], lp='en-de'); "
            "data.judgements; print(len(data.testset.systems), 'torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(genmt)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["5", "False"]


def test_two_metrics_compared_clusters_and_pvalues(genmt):
    data = docmetrics.read_human(genmt, lp="en-de")
    chrf = docmetrics.load("chrf").compute(data.testset)
    bleu = docmetrics.load("bleu").compute(data.testset)
    ev = docmetrics.meta_evaluate([("chrf", chrf), ("bleu", bleu)], data, significance=50)
    assert list(ev.metrics) == ["chrf [1]", "bleu [2]"]
    flat = [m for c in ev.clusters("pearson") for m in c]
    assert sorted(flat) == ["bleu [2]", "chrf [1]"]
    assert set(ev.pvalues) == {"chrf [1]", "bleu [2]"}
    assert ev.to_dict()[0]["perm_both"]["n_resamples"] == 50
    assert ev.to_dict(layout="mtme")["metrics"][1]["metric"] == "bleu"


def test_mtme_data_through_the_api_equals_the_mtme_command(tmp_path, capsys):
    """read_human(MTME root) + meta_evaluate give the numbers ``docmetrics --mtme -f json`` prints (system,
    segment and SPA/acc_eq statistics), and to_text() is the text the command prints."""
    from test_mtme import build_tiny

    from docmetrics.cli.main import main

    build_tiny(tmp_path / "mtme")
    data = docmetrics.read_human(tmp_path / "mtme", lp="en-de", testset="toy", ref="refA")
    ev = docmetrics.meta_evaluate({s: docmetrics.load(s).compute(data.testset) for s in ("chrf", "bleu")}, data)
    assert main(["-m", "chrf", "bleu", "--mtme", str(tmp_path / "mtme"), "-t", "toy", "-l", "en-de", "--ref", "refA",
                 "-f", "json", "-q"]) == 0
    printed = json.loads(capsys.readouterr().out)
    mine = ev.to_dict(layout="mtme")
    assert [m["metric"] for m in mine["metrics"]] == [m["metric"] for m in printed["metrics"]] == ["chrf", "bleu"]
    for k, row in enumerate(printed["metrics"]):
        for level, stats in (("system", ("pearson", "spearman", "kendall", "accuracy", "spa")),
                             ("segment", ("pearson", "kendall", "acc_eq"))):
            for stat in stats:
                assert isinstance(row[level][stat], float), (row["metric"], level, stat)
                assert mine["metrics"][k][level][stat] == pytest.approx(row[level][stat], abs=1e-12), (level, stat)
    # the text is the command's (one renderer): MTME's human scores named, not a TSV column
    assert main(["-m", "chrf", "bleu", "--mtme", str(tmp_path / "mtme"), "-t", "toy", "-l", "en-de", "--ref", "refA",
                 "-q"]) == 0
    assert ev.to_text() == capsys.readouterr().out
    assert "; human scores mqm\n" in ev.to_text() and "column auto" not in ev.to_text()


# -- formats ---------------------------------------------------------------------------------------------------
def _human_tsv(tmp_path: Path) -> Path:
    path = tmp_path / "human.tsv"
    path.write_text("system\tdoc_id\tseg_id\tscore\n" + "".join(
        f"{s}\td{i // 4}\t{i}\t{ESA[s][i]}\n" for s in SYSTEMS for i in range(8)), encoding="utf-8")
    return path


def test_each_builtin_format_is_recognised_and_read(genmt, tmp_path):
    from test_mtme import build_tiny
    from test_wmt25_tsv import lines as wmt25_lines
    from test_wmt25_tsv import write_tsv
    from test_wmt26_release import write as write_wmt26

    human = docmetrics.read_human(_human_tsv(tmp_path))
    assert human.format == "human-tsv" and human.testset is None and human.human.system["sysA"] == 96.875
    assert docmetrics.human_clusters(human).clusters()[0] == ["sysA"]
    mqm = docmetrics.read_human(HERE / "data" / "mqm_ted_ende.excerpt.tsv", lp="en-de")
    assert mqm.format == "mqm" and mqm.human.raw_mqm and mqm.testset is not None and mqm.spans.items
    assert docmetrics.read_human(genmt, lp="en-cs").spans.items
    tsv = docmetrics.read_human(write_tsv(tmp_path / "test.tsv", wmt25_lines()))
    assert tsv.format == "wmt25-tsv" and tsv.testset.n_segments > 0
    build_tiny(tmp_path / "mtme")
    mtme = docmetrics.read_human(tmp_path / "mtme", lp="en-de", testset="toy", ref="refA")
    assert mtme.format == "mtme" and mtme.testset.n_segments > 0
    assert docmetrics.read_human(tmp_path / "mtme" / "toy", lp="en-de", ref="refA").format == "mtme"
    testfile, folder = write_wmt26(tmp_path)
    wmt26 = docmetrics.read_human(testfile, lp="eng_Latn-deu_Latn", systems=str(folder))
    assert wmt26.format == "wmt26" and wmt26.testset.systems
    scores = tmp_path / "scores.tsv"
    scores.write_text("system\tdoc_id\tM\n" + "".join(f"{s}\td\t0.{k}\n" for k, s in enumerate(SYSTEMS)),
                      encoding="utf-8")
    stored = docmetrics.read_human(scores, format="stored", lp="en-de")
    assert stored.format == "stored" and list(stored.stored) == ["M"] and len(stored.results()["M"]) == 5
    # found without format=: a stored-scores TSV (system, doc_id, a column per metric) is not a human TSV,
    # whose segment lines carry seg_id too (a human TSV with system, doc_id, seg_id, score stays one)
    assert docmetrics.read_human(scores, lp="en-de").format == "stored"
    human = tmp_path / "human.tsv"
    human.write_text("system\tdoc_id\tseg_id\tscore\n" + "".join(f"{s}\td\t1\t{k}\n" for k, s in enumerate(SYSTEMS)),
                     encoding="utf-8")
    assert docmetrics.read_human(human).format == "human-tsv"


@pytest.mark.parametrize("call, error, needles", [
    (lambda p, t: docmetrics.read_human(t / "nothing.txt"), InputError, ["nothing.txt", "format="]),
    (lambda p, t: docmetrics.read_human(p), InputError, ["2 language pairs", "lp="]),
    (lambda p, t: docmetrics.read_human(p, lp="en-de", column="x"), SpecError, ["'genmt'", "'column'", "domains"]),
    (lambda p, t: docmetrics.read_human(p, format="nope"), SpecError, ["unknown human-data format 'nope'", "genmt"]),
    (lambda p, t: docmetrics.human_clusters(docmetrics.read_human(p, lp="en-de"), rule="wmt99"), SpecError,
     ["unknown cluster rule 'wmt99'", "wmt25-adjacent"]),
    (lambda p, t: docmetrics.human_clusters(docmetrics.read_human(_human_tsv(t), format="stored", lp="en-de")),
     InputError, ["holds no segment-level human scores"]),
])
def test_bad_calls_name_the_file_and_the_fix(genmt, tmp_path, call, error, needles):
    (tmp_path / "nothing.txt").write_text("just words\n", encoding="utf-8")
    with pytest.raises(error) as caught:
        call(genmt, tmp_path)
    for needle in needles:
        assert needle in str(caught.value), (needle, str(caught.value))


# -- plugins ---------------------------------------------------------------------------------------------------
TOY = '''
from docmetrics.judging.clusters import ClusteredSystem, HumanRanking
from docmetrics.judging import EvalSet, HumanFormat
from docmetrics.judging.rules import ClusterRule
from docmetrics.formats.human_tsv import HumanScores


def recognise(path):
    return path.endswith(".toyh")


def read(path, lp, options):
    segments = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            system, item, score = line.split()
            segments.setdefault(system, {})[("d", item)] = float(score) * options.get("scale", 1)
    system = {s: sum(v.values()) / len(v) for s, v in segments.items()}
    positions = {k: int(k[1]) for v in segments.values() for k in v}
    return EvalSet(path, "toyh", lp, human=HumanScores(path, "toy", system, segments, positions))


def alphabetical(data):
    """Every system its own cluster, in alphabetical order."""
    order = sorted(data.systems)
    return HumanRanking("alpha", data.lp, data.source,
                        [ClusteredSystem(s, 0.0, k + 1, None, 0) for k, s in enumerate(order)], [], "none")


FORMAT = HumanFormat("toyh", "a toy human-score file", recognise, read, ("scale",))
RULE = ClusterRule("alpha", "alphabetical, one system a cluster", alphabetical)
'''


@pytest.fixture()
def toy_judging(tmp_path):
    root = write_distribution(tmp_path / "site", "docmetrics-toy-judging", "1.0", {"toy_judging/__init__.py": TOY},
                              "[docmetrics.human_formats]\ntoyh = toy_judging:FORMAT\n"
                              "[docmetrics.cluster_rules]\nalpha = toy_judging:RULE\n")
    sys.path.insert(0, str(root))
    registry.refresh()
    yield root
    sys.path.remove(str(root))
    sys.modules.pop("toy_judging", None)
    registry.refresh()


def test_a_toy_distributions_format_and_rule_are_found(toy_judging, tmp_path, genmt, capsys):
    path = tmp_path / "scores.toyh"
    esa = {"zed": [1, 2, 3], "sysB": ESA["sysB"], "sysA": ESA["sysA"]}
    path.write_text("".join(f"{s} {i + 1} {esa[s][i]}\n" for s in esa for i in range(3)), encoding="utf-8")
    data = docmetrics.read_human(path, scale=2)
    assert data.format == "toyh" and data.human.system["sysA"] == pytest.approx(2 * (98 + 95 + 97) / 3)
    assert docmetrics.human_clusters(data, rule="alpha").clusters() == [["sysA"], ["sysB"], ["zed"]]
    assert docmetrics.human_clusters(data).clusters()  # the default rule on the plugin's data
    code, out, err = run_cli(capsys, "rank", "--genmt", genmt, "-l", "en-de", "--rule", "alpha")
    assert code == 0, err
    # the header is the rule's own definition: the toy rule runs no test, so no "p < 0.05" and no scipy
    assert "rule alpha (alphabetical, one system a cluster)\n" in out and "p < 0.05" not in out
    assert "scipy" not in out
    code, out, err = run_cli(capsys, "rank", "--genmt", genmt, "-l", "en-de", "--rule", "alpha", "-f", "json")
    assert json.loads(out)["ranking"]["clusters"] == [[s] for s in sorted(SYSTEMS)]
    assert json.loads(out)["ranking"]["definition"] == "alphabetical, one system a cluster"


def test_a_plugin_that_registers_something_else_is_refused_naming_it(tmp_path):
    root = write_distribution(tmp_path / "site", "docmetrics-bad-format", "1.0",
                              {"bad_format/__init__.py": "FORMAT = 'not a format'\n"},
                              "[docmetrics.human_formats]\nbad = bad_format:FORMAT\n")
    sys.path.insert(0, str(root))
    registry.refresh()
    try:
        (tmp_path / "x.toyh").write_text("a 1 2\n", encoding="utf-8")
        with pytest.raises(docmetrics.PluginError, match="bad.*docmetrics-bad-format.*not a docmetrics.judging"):
            docmetrics.read_human(tmp_path / "x.toyh", format="bad")
        with pytest.raises(InputError, match="x.toyh: not a form.*broken: human_format 'bad'"):
            docmetrics.read_human(tmp_path / "x.toyh")  # not recognised; the broken plugin named, not raised
        assert docmetrics.read_human(_human_tsv(tmp_path)).format == "human-tsv"  # the others still work
    finally:
        sys.path.remove(str(root))
        sys.modules.pop("bad_format", None)
        registry.refresh()
    assert os.path.isdir(root)


# -- autorank, span_f1, compare_systems, write_report ------------------------------------------------------------
@pytest.fixture()
def one_pair(tmp_path: Path) -> Path:
    path = tmp_path / "one.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in genmt_rows()), encoding="utf-8")
    return path


def test_autorank_and_compare_systems_equal_the_command(one_pair):
    data = docmetrics.read_human(one_pair)
    chrf = docmetrics.load("chrf").compute(data.testset)
    bleu = docmetrics.load("bleu").compute(data.testset)
    ranked = docmetrics.autorank({"chrf": chrf, "bleu": bleu}, lp=data.lp).to_dict()
    printed = cli_json("rank", "-m", "chrf", "bleu", "--genmt", one_pair, "-l", "en-de")
    assert {k: v for k, v in json.loads(json.dumps(ranked)).items() if k != "notes"} == \
        {k: v for k, v in printed.items() if k not in ("notes", "human_clusters")}  # + notes on segment means
    # the human clusters the command draws beside AutoRank are the judging API's
    assert printed["human_clusters"]["ranking"] == json.loads(json.dumps(docmetrics.human_clusters(data).to_dict()))
    by_dict = docmetrics.autorank({"chrf": {r.system: r.score for r in chrf}})
    assert [s.system for s in by_dict.systems][0] == "sysA"
    paired = docmetrics.compare_systems(chrf)
    rows = cli_json("--genmt", one_pair, "-l", "en-de", "-m", "chrf", "--paired-bs")
    assert [(r.system, r.score, r.mean, r.ci, r.p_value) for r in paired.rows] == \
        [(r["system"], r["score"], r["mean"], r["ci"], r["p_value"]) for r in rows]
    other = docmetrics.compare_systems(chrf, test="ar", baseline="sysD")
    assert other.rows[0].system == "sysD" and other.rows[0].baseline and other.exact


def test_span_f1_equals_the_command_and_write_report_writes_a_page(one_pair, tmp_path):
    pred = tmp_path / "pred.jsonl"
    with pred.open("w", encoding="utf-8") as f:
        for i, row in enumerate(genmt_rows()):
            for system, judged in row["scores"].items():
                errors = judged["errors"] if system != "sysC" else []
                f.write(json.dumps({"system": system, "doc_id": row["doc_id"], "segment": i % 4 + 1,
                                    "errors": errors}) + "\n")
    data = docmetrics.read_human(one_pair)
    judged = docmetrics.span_f1(pred, data)
    printed = cli_json("--genmt", one_pair, "-l", "en-de", "--spans", pred)
    assert json.loads(json.dumps(judged.to_dict())) == printed["predictors"][0]
    assert judged.systems["sysA"].scores().f1 == 1.0 and judged.systems["sysC"].scores().recall == 0.0
    chrf = docmetrics.load("chrf").compute(data.testset)
    ev = docmetrics.meta_evaluate({"chrf": chrf}, data)
    page = tmp_path / "report.html"
    size = docmetrics.write_report(page, ev, results={"chrf": chrf}, testset=data.testset, title="judging")
    text = page.read_text(encoding="utf-8")
    assert size == len(text.encode("utf-8")) and "<title>judging</title>" in text and "metric_scores" in text
    with pytest.raises(InputError, match="source 1 is not an output"):
        docmetrics.write_report(page, {"what": 1})
