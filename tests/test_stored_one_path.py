"""Stored scores have one reader and one type (issue 46): ``read_stored`` reads files of any kind, every language
pair, and ``StoredScores.evalset`` gives one pair as the EvalSet that ``read_human(..., format="stored")`` gives; the
command line (``rank --scores``, ``--scores ... --stored``) goes through those public calls and prints what they
give; the format is a module of ``docmetrics.formats`` like every other."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from cli_fixtures import run_cli

import docmetrics
from docmetrics import judging
from docmetrics.formats import stored as stored_format
from docmetrics.judging import formats as registry
from docmetrics.values.errors import InputError, SpecError
from docmetrics.values.testset import TestSet

ROOT = Path(__file__).resolve().parents[1]
TSV = ROOT / "docmetrics" / "data" / "stored" / "scores.tsv"


def _line(lp, doc, **scores):
    return json.dumps({"language_pair": lp, "domain": "news", "document_id": doc, "metric_scores": scores})


@pytest.fixture
def jsonl(tmp_path):
    """Three systems' WMT25 automatic scores: en-ko_KR (GEMBA, MetricX stored negated), en-bho_IN (chrF++ too)."""
    rows = {"sysA": ([80, None, 70], [-1.5, 0.0, -3.0]), "sysB": ([60, 65, 90], [-4.0, -2.5, -1.0]),
            "sysC": ([61, 62, 91], [-3.0, -2.0, -1.5])}
    paths = []
    for k, (system, (gemba, metricx)) in enumerate(rows.items()):
        path = tmp_path / f"{system}.jsonl"
        path.write_text("\n".join([
            _line("en-ko_KR", "n1", **{"GEMBA": gemba, "MetricX-24-Hybrid-XL": metricx}),
            _line("en-ko_KR", "n2", **{"GEMBA": [70 + 5 * k, 60], "MetricX-24-Hybrid-XL": [-2.0 + k, -1.0]}),
            _line("en-bho_IN", "s1", **{"GEMBA": [50 + k], "MetricX-24-Hybrid-XL": [-9.0 + k], "chrF++": [31.5 - k]}),
        ]) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def test_the_stored_format_is_a_module_of_the_formats_package():
    assert registry.human_format("stored") == stored_format.FORMAT
    assert set(stored_format.FORMAT.options) == {"directions", "metrics"}
    assert not (ROOT / "docmetrics" / "judging" / "stored_scoring.py").exists()


def test_read_stored_reads_every_pair_once_and_evalset_is_read_humans(jsonl):
    every = judging.read_stored(jsonl)
    assert isinstance(every, judging.StoredScores) and every.language_pairs() == ["en-ko_KR", "en-bho_IN"]
    assert every.source == f"{jsonl[0]} (and 2 more)"
    for lp in ("en-ko", "en-bho_IN"):
        one = every.evalset(lp)
        same = docmetrics.read_human(jsonl, format="stored", lp=lp)
        assert (one.lp, one.source, one.format, one.notes) == (same.lp, same.source, same.format, same.notes)
        assert {n: m.scores for n, m in one.stored.items()} == {n: m.scores for n, m in same.stored.items()}
    with pytest.raises(InputError, match="holds 2 language pairs"):
        every.evalset()


def test_metrics_are_chosen_by_name_or_by_a_function_of_the_pair(jsonl):
    every = judging.read_stored(jsonl)
    assert list(every.evalset("en-ko", metrics=["GEMBA"]).stored) == ["GEMBA"]
    assert list(every.evalset("en-ko", metrics="all").stored) == ["GEMBA", "MetricX-24-Hybrid-XL"]
    preset = judging.AUTORANK_PRESETS["wmt25"]
    assert list(every.evalset("en-bho", metrics=preset.metrics_for).stored) == ["chrF++"]
    assert list(docmetrics.read_human(jsonl, format="stored", lp="en-ko", metrics="GEMBA").stored) == ["GEMBA"]
    with pytest.raises(InputError, match="no metric 'COMET' for en-ko_KR; the files have GEMBA"):
        every.evalset("en-ko", metrics=["COMET"])


def test_directions_are_declared_as_a_mapping_or_as_the_command_lines_text():
    as_text = judging.read_stored([TSV], directions=["chrF=lower"]).evalset().stored["chrF"]
    as_map = judging.read_stored([TSV], directions={"chrF": False}).evalset().stored["chrF"]
    assert (as_text.higher_is_better, as_text.direction) == (as_map.higher_is_better, as_map.direction) == (
        False, "declared")
    with pytest.raises(SpecError, match="direction 'chrF=up': write METRIC=higher") as bad:
        judging.read_stored([TSV], directions=["chrF=up"])
    assert bad.value.params == ("directions",)
    with pytest.raises(InputError, match="has no stored metric 'Nope' \\(its metrics: BLEU, chrF\\)"):
        docmetrics.read_human(TSV, format="stored", directions={"Nope": True})


def test_rank_scores_prints_the_autorank_of_each_pairs_evalset(capsys, jsonl):
    every = judging.read_stored(jsonl)
    python = [judging.autorank(every.evalset(lp)).to_dict() for lp in every.language_pairs()]
    code, out, err = run_cli(capsys, "rank", "--scores", *jsonl, "-f", "json")
    assert code == 0, err
    assert json.loads(out) == python
    preset = judging.autorank(every.evalset("en-bho", metrics=judging.AUTORANK_PRESETS["wmt25"].metrics_for),
                              preset="wmt25")
    code, out, err = run_cli(capsys, "rank", "--scores", *jsonl, "-l", "en-bho", "--preset", "wmt25", "-f", "json")
    assert code == 0, err
    assert json.loads(out) == preset.to_dict()
    chosen = judging.autorank(docmetrics.read_human(jsonl, format="stored", lp="en-ko", metrics=["GEMBA"]))
    code, out, err = run_cli(capsys, "rank", "--scores", *jsonl, "-l", "en-ko", "--stored", "GEMBA", "-f", "json")
    assert code == 0, err
    assert json.loads(out) == chosen.to_dict()


def test_rank_prints_each_autoranks_to_text(capsys, jsonl):
    every = judging.read_stored(jsonl)
    python = "\n".join(judging.autorank(every.evalset(lp)).to_text() for lp in every.language_pairs())
    code, out, err = run_cli(capsys, "rank", "--scores", *jsonl)
    assert code == 0, err
    assert out == python
    clustered = judging.autorank_clusters(every.evalset("en-ko"), n=20, seed=3)
    clustered.notes += every.evalset("en-ko").notes
    code, out, err = run_cli(capsys, "rank", "--scores", *jsonl, "-l", "en-ko", "--paired-bs", "--paired-bs-n", "20",
                             "--seed", "3", "--width", "2")
    assert code == 0, err
    assert out == clustered.to_text(2) and "clusters: paired bootstrap over 2 documents (20 resamples, seed 3" in out


@pytest.mark.parametrize("argv,message", [
    (["--direction", "chrF=up"], "--direction: direction 'chrF=up': write METRIC=higher or METRIC=lower"),
    (["--direction", "Nope=lower"], "--direction: direction Nope=lower: "),
])
def test_rank_words_a_bad_direction_as_its_option(capsys, argv, message):
    code, _, err = run_cli(capsys, "rank", "--scores", TSV, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.filterwarnings("ignore:.*every line is empty")
def test_a_stored_scorer_scores_like_a_metric_in_score_metrics():
    data = docmetrics.read_human(TSV, format="stored")
    metric = data.stored["chrF"]
    doc_ids = [d for d, start, end in metric.documents() for _ in range(end - start)]
    testset = TestSet({s: [""] * metric.n_items for s in metric.systems}, doc_ids=doc_ids)
    (scored,) = judging.score_metrics(testset, [("stored:chrF", judging.StoredScorer(metric))])
    assert [r.score for r in scored.results] == [r.score for r in data.results(["chrF"])["chrF"]]


def test_the_command_line_imports_no_stored_internals():
    found = []
    for path in sorted((ROOT / "docmetrics").glob("c*/*.py")):
        if path.parent.name not in ("cli", "commands"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and ("stored" in node.module and node.level >= 2):
                found.append(f"{path.name}: {node.module}")
    assert found == []
