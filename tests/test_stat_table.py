"""One table of statistics for ``--human``, ``--genmt`` and ``--mtme`` (docmetrics.judging.stat_table, issue 28): the
same human scores and the same metric results given as plain files with a --human TSV, as a GenMT JSONL and as an
MTME directory print the same columns, the same values and the same significance clusters between metrics
(PERM-BOTH in all three), and JSON gives the same values and clusters."""

from __future__ import annotations

import json
import re

import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401

pytestmark = pytest.mark.usefixtures("toy_dist")

QE = "slide:w=1,s=1,backbone=toy"
REF = "slide:w=1,s=1,backbone=toy,model=toy-ref"
NEG = "slide:w=1,s=1,backbone=toy,scale=-1"  # QE's scores negated: it orders everything the other way
METRICS = [QE, REF, NEG]
SRC = ["Eins zwei drei.", "Vier fünf.", "Sechs sieben acht neun.", "Zehn.", "Elf zwölf dreizehn.",
       "Vierzehn fünfzehn.", "Sechzehn.", "Siebzehn achtzehn neunzehn zwanzig."]
REFS = ["One two three.", "Four five.", "Six seven eight nine.", "Ten.", "Eleven twelve thirteen.",
        "Fourteen fifteen.", "Sixteen.", "Seventeen eighteen nineteen twenty."]
OUTPUTS = {
    "sysA": ["One two three.", "Four five here.", "Six seven eight.", "Ten now.", "Eleven twelve thirteen.",
             "Fourteen and fifteen.", "Sixteen.", "Seventeen eighteen nineteen twenty."],
    "sysB": ["One two.", "Four.", "Six seven eight nine ten.", "Ten.", "Eleven twelve.", "Fourteen.",
             "Sixteen here.", "Seventeen eighteen."],
    "sysC": ["Uno.", "Four five.", "Six.", "Ten ten ten.", "Eleven.", "Fourteen fifteen.", "Six ten.",
             "Seventeen."],
    "sysD": ["One two three four.", "Five.", "Seven eight nine.", "Ten!", "Twelve thirteen.", "Fifteen.",
             "Sixteen sixteen.", "Eighteen nineteen twenty."],
}
DOCS = [("news", "n1"), ("news", "n1"), ("news", "n2"), ("news", "n2"), ("talk", "t1"), ("talk", "t1"),
        ("talk", "t2"), ("talk", "t2")]
NOISE = [3.5, -2.0, 1.0, -4.5, 2.5, 0.0, -1.5, 4.0]


def esa() -> dict[str, list[float]]:
    """Human scores that follow the toy QE metric's (so QE and its negation differ significantly)."""
    from docmetrics_toy import toy_score

    return {s: [round(min(100.0, max(0.0, 40 + 60 * toy_score(mt, SRC[i]) + NOISE[(i + k) % 8])), 1)
                for i, mt in enumerate(lines)] for k, (s, lines) in enumerate(OUTPUTS.items())}


def write(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")


@pytest.fixture()
def same(tmp_path):
    """The one test set and its human scores as the three data sources (their arguments)."""
    human = esa()
    for s, lines in OUTPUTS.items():
        write(tmp_path / f"{s}.txt", lines)
    write(tmp_path / "src.txt", SRC)
    write(tmp_path / "ref.txt", REFS)
    write(tmp_path / "ids.txt", [f"{d}_{n}" for d, n in DOCS])
    write(tmp_path / "human.tsv", ["system\tdoc_id\tseg_id\tscore"] + [
        f"{s}\t{d}_{n}\t{i + 1}\t{human[s][i]}" for s in OUTPUTS for i, (d, n) in enumerate(DOCS)])
    write(tmp_path / "g.jsonl", [json.dumps({
        "doc_id": f"en-de_DE_#_{domain}_#_{doc}", "src_text": SRC[i],
        "tgt_text": {**{s: OUTPUTS[s][i] for s in OUTPUTS}, "refA": REFS[i]},
        "scores": {s: [{"score": human[s][i], "errors": [], "protocol": "ESA"}] for s in OUTPUTS},
    }, ensure_ascii=False) for i, (domain, doc) in enumerate(DOCS)])
    d = tmp_path / "mtme" / "toy"
    write(d / "sources" / "en-de.txt", SRC)
    write(d / "documents" / "en-de.docs", [f"{domain} {doc}" for domain, doc in DOCS])
    write(d / "references" / "en-de.refA.txt", REFS)
    for s, lines in OUTPUTS.items():
        write(d / "system-outputs" / "en-de" / f"{s}.txt", lines)
    write(d / "human-scores" / "en-de.esa.seg.score", [f"{s}\t{v}" for s in OUTPUTS for v in human[s]])
    return {
        "human": ["-i", *(tmp_path / f"{s}.txt" for s in OUTPUTS), "-s", tmp_path / "src.txt", "-r",
                  tmp_path / "ref.txt", "--doc-ids", tmp_path / "ids.txt", "--human", tmp_path / "human.tsv",
                  "--seg-level"],
        "genmt": ["--genmt", tmp_path / "g.jsonl", "-l", "en-de_DE"],
        "mtme": ["--mtme", tmp_path / "mtme", "-t", "toy", "-l", "en-de", "--ref", "refA"],
    }


def tables(out: str) -> list[dict[str, dict[str, str]]]:
    """Every table of statistics in ``out``: label -> header -> cell."""
    lines = out.splitlines()
    found = []
    for k, line in enumerate(lines):
        if line.startswith("Metric ") and re.fullmatch(r"[- ]+", lines[k + 1]):
            header = re.split(r"\s{2,}", line.strip())
            rows = {}
            for row in lines[k + 2:]:
                if not row.strip():
                    break
                cells = re.split(r"\s{2,}", row.strip())
                assert len(cells) == len(header), row
                rows[cells[0]] = dict(zip(header[1:], cells[1:]))
            found.append(rows)
    return found


FLAGS = [[], ["--pdp"], ["--doc-level"]]
OPTIONS = ["--resamples", "200", "--seed", "7"]


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f) or "plain")
def test_the_three_sources_print_the_same_tables(same, capsys, flags):
    printed = {}
    for source, argv in same.items():
        code, out, err = run(capsys, "-m", *METRICS, *argv, *OPTIONS, *flags)
        assert code == 0, err
        printed[source] = out
    found = {source: tables(out) for source, out in printed.items()}
    assert [len(t) for t in found.values()] == [2 if flags == ["--doc-level"] else 1] * 3
    human, genmt, mtme = found["human"], found["genmt"], found["mtme"]
    assert human == genmt == mtme  # columns, values and clusters (the rows in their own order: --mtme sorts them)
    main = human[0]
    headers = list(next(iter(main.values())))
    assert headers[:10] == ["systems", "pearson", "spearman", "kendall", "accuracy", "pairs", "spa", "acc_eq",
                            "epsilon", "seg-pearson"]
    assert ("sys-pdp" in headers) == bool(flags)
    # clusters between the metrics: QE above its negation on the main statistics
    qe, neg = main[f"{QE} [1]"], main[f"{NEG} [3]"]
    for stat in ("acc_eq", "seg-pearson"):
        assert qe[stat].endswith(" (1)") and int(neg[stat][-2]) > 1, main
    assert "(" not in qe["spearman"] and "(" not in qe["seg-kendall"]  # not compared: no cluster
    for out in printed.values():
        assert ("(n): significance cluster of that statistic (PERM-BOTH between metrics, 200 resamples, seed 7, "
                "alpha 0.05)") in out


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f) or "plain")
def test_the_three_sources_give_the_same_json(same, capsys, flags):
    got = {}
    for source, argv in same.items():
        code, out, err = run(capsys, "-m", *METRICS, *argv, *OPTIONS, *flags, "-f", "json")
        assert code == 0, err
        got[source] = json.loads(out)
    mtme = {m["metric"]: m for m in got["mtme"]["metrics"]}
    ranks = {stat: {r["metric"]: r["rank"] for r in c["ranking"]} for stat, c in got["mtme"]["comparisons"].items()}
    assert got["mtme"]["perm_both"] == {"n_resamples": 200, "seed": 7, "alpha": 0.05}
    for source in ("human", "genmt"):
        assert [e["spec"] for e in got[source]] == METRICS
        for e in got[source]:
            m = mtme[e["spec"]]
            assert e["metric_scores"] == pytest.approx(m["system"]["metric_scores"], abs=1e-12)
            for mine, theirs in (("pearson", m["system"]["pearson"]), ("spearman", m["system"]["spearman"]),
                                 ("kendall", m["system"]["kendall"]), ("accuracy", m["system"]["accuracy"]),
                                 ("spa", m["system"]["spa"]), ("acc_eq", m["segment"]["acc_eq"]),
                                 ("epsilon", m["segment"]["epsilon"]), ("seg_pearson", m["segment"]["pearson"]),
                                 ("seg_kendall", m["segment"]["kendall"])):
                assert e[mine] == pytest.approx(theirs, abs=1e-12), (source, mine)
            if flags:
                assert e["pdp"] == pytest.approx(m["system"]["pdp"], abs=1e-12)
            if flags == ["--doc-level"]:  # the same document level (its gold named by each source's file)
                numbers = [k for k, v in m["document"].items() if k != "rule" and not isinstance(v, str)]
                assert len(numbers) >= 10 and e["document"]["rule"] == "mean" and m["document"]["rule"] == "mean"
                for k in numbers:
                    assert e["document"][k] == pytest.approx(m["document"][k], abs=1e-12), (source, k)
            assert e["clusters"] == {stat: ranks[stat][e["spec"]] for stat in ranks if e["spec"] in ranks[stat]}
            theirs = {stat: {p["worse"]: p["p_value"] for p in c["pvalues"] if p["better"] == e["spec"]}
                      for stat, c in got["mtme"]["comparisons"].items()}
            assert e["pvalues"] == {stat: ps for stat, ps in theirs.items() if ps}, source
            assert e["perm_both"] == {"n_resamples": 200, "seed": 7, "alpha": 0.05}
    assert got["human"][0]["clusters"]["seg_pearson"] == 1 and got["human"][2]["clusters"]["seg_pearson"] > 1


def test_one_metric_or_no_resamples_gives_no_clusters(same, capsys):
    code, out, err = run(capsys, "-m", QE, *same["human"], "-f", "json")
    assert code == 0, err
    (e,) = json.loads(out)
    assert "clusters" not in e and "perm_both" not in e
    code, out, err = run(capsys, "-m", QE, REF, *same["genmt"], "--resamples", "0")
    assert code == 0, err
    assert "No significance clusters (--resamples 0)." in out and "(n):" not in out
    assert not any("(" in cell for row in tables(out)[0].values() for cell in row.values())
    code, out, err = run(capsys, "-m", QE, REF, *same["human"], "--resamples", "0", "-f", "json")
    assert all("clusters" not in e for e in json.loads(out))


BAD = [
    # (source, flags, what stderr must say)
    ("human", ["--resamples", "-1"], "--resamples must be >= 0, not -1"),
    ("genmt", ["--resamples", "-3"], "--resamples must be >= 0, not -3"),
    ("mtme", ["--resamples", "-1"], "--resamples must be >= 0, not -1"),
    ("plain", ["--resamples", "10"], "--resamples needs human scores to judge metrics against (--human FILE, a "
                                      "--genmt FILE with scores, or --mtme ROOT)"),
]


@pytest.mark.parametrize("source,flags,message", BAD, ids=[f"{b[0]}{b[1][-1]}" for b in BAD])
def test_bad_resamples_exit_2_before_any_model(same, capsys, source, flags, message):
    argv = same[source] if source != "plain" else same["human"][:-3]  # no --human
    code, out, err = run(capsys, "-m", QE, REF, *argv, *flags)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1, err


def test_metrics_that_scored_different_systems_are_compared_on_those_all_scored(same, capsys):
    """Each metric is judged on its own systems, as alone; the comparisons are on the systems every metric
    scored, and the others are named."""
    import math

    import scipy.stats

    import docmetrics
    from docmetrics.formats.human_tsv import load_human
    from docmetrics.values.testset import TestSet

    testset = TestSet.from_lists(OUTPUTS, SRC, REFS, [f"{d}_{n}" for d, n in DOCS])
    human = load_human(str(same["human"][same["human"].index("--human") + 1]))
    qe = docmetrics.load(QE).compute(testset)
    neg = [r for r in docmetrics.load(NEG).compute(testset) if r.system != "sysD"]
    levels = ("system", "segment")
    ev = docmetrics.meta_evaluate([(QE, qe), (NEG, neg)], human, levels=levels, testset=testset, significance=100)
    q, n = list(ev.metrics)  # each metric's LABEL [k]
    assert ev.systems == ["sysA", "sysB", "sysC"] and ev.left_out == [f"sysD (no score from {n})"]
    alone = docmetrics.meta_evaluate({QE: qe}, human, levels=levels, testset=testset, significance=0).metric(0)
    assert json.dumps(ev.metrics[q].to_dict()) == json.dumps(alone.to_dict())  # as judged alone, 4 systems
    assert ev.metrics[n].systems == ["sysA", "sysB", "sysC"]
    # the comparison's pearson is over the three systems both scored: scipy on them
    means = {s: math.fsum(v) / len(v) for s, v in esa().items()}
    pearson = next(r.value for r in ev.comparisons["pearson"].ranking if r.metric == q)
    assert pearson == pytest.approx(scipy.stats.pearsonr([r.score for r in qe[:3]],
                                                         [means[s] for s in ("sysA", "sysB", "sysC")])[0])
    assert ev.metrics[q].pearson == pytest.approx(scipy.stats.pearsonr([r.score for r in qe],
                                                                         [means[s] for s in OUTPUTS])[0])
    dicts = ev.to_dict()
    assert set(dicts[0]["clusters"]) == set(ev.comparisons) and dicts[0]["perm_both"]["n_resamples"] == 100


def test_equal_values_in_different_clusters_are_explained():
    """Issue 37: chrF's accuracy 0.7143 (2) beside BLEU's 0.7143 (1) came with no word why."""
    from docmetrics.judging.comparisons import Comparison
    from docmetrics.judging.stat_table import significance_lines
    from docmetrics.stats.permutation import PermResult
    from docmetrics.stats.tasks import significance_clusters

    values = {"doc-bertscore": 0.8571, "bleu": 0.7143, "chrf": 0.7143}
    p = {("doc-bertscore", "bleu"): 0.2, ("doc-bertscore", "chrf"): 0.01, ("bleu", "chrf"): 0.5}
    ranking = significance_clusters(values, p, 0.05)
    assert [(r.metric, r.rank) for r in ranking] == [("doc-bertscore", 1), ("bleu", 1), ("chrf", 2)]
    comp = Comparison("accuracy", ranking, {k: PermResult(v, 0.0, 1000, 1) for k, v in p.items()}, 0.05, 1000, 1)
    lines = significance_lines({"accuracy": comp}, 3, 1000, 1, 0.05)
    assert lines[1] == ("accuracy: bleu and chrf have the same value (0.7143) but sit in clusters 1 and 2: chrf is "
                        "significantly worse than doc-bertscore (p = 0.0100 < 0.05), bleu is not (p = 0.2000); a "
                        "cluster starts at the first metric significantly worse than one above it, and the test "
                        "compares the metrics on the same resamples, where equal values can differ")
    p[("doc-bertscore", "chrf")] = 0.3  # the same cluster: nothing to explain
    ranking = significance_clusters(values, p, 0.05)
    comp = Comparison("accuracy", ranking, {k: PermResult(v, 0.0, 1000, 1) for k, v in p.items()}, 0.05, 1000, 1)
    assert len(significance_lines({"accuracy": comp}, 3, 1000, 1, 0.05)) == 1
