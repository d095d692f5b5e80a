"""What the report's new views read, outside the browser (issue 48): the human ranking the overview shows
(``judging.rules.report_ranking``: the systems best first with WMT25's clusters, as ``human_clusters`` draws them),
given by the command in the page's ``human.ranking``; and the generator of realistic data the browser tests use
(tests/report_data.py), deterministic."""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from report_data import page_data

from docmetrics.judging import human_clusters
from docmetrics.judging.rules import report_ranking

ROOT = Path(__file__).resolve().parents[1]


def scores(n_systems: int = 5, items: int = 60, seed: int = 3) -> dict[str, list[float | None]]:
    rng = random.Random(seed)
    return {f"sys{k}": [None if rng.random() < 0.1 else rng.gauss(80 - 6 * k, 8) for _ in range(items)]
            for k in range(n_systems)}


def test_the_ranking_is_human_clusters_own():
    segments = scores()
    got = report_ranking(segments)
    want = human_clusters(segments, "wmt25")
    assert got["rule"] == "wmt25" and got["note"] is None
    assert [s["system"] for s in got["systems"]] == [s.system for s in want.systems]
    assert [s["cluster"] for s in got["systems"]] == [s.cluster for s in want.systems]
    # the score is the rule's mean: each system's mean over its judged items
    for s in got["systems"]:
        assert s["score"] == pytest.approx(statistics.mean(v for v in segments[s["system"]] if v is not None))


@pytest.mark.parametrize("case, segments, lower, note", [
    ("lower is better (MQM penalties)", scores(), True, "lower human scores are better"),
    ("systems of different lengths", {"a": [1.0, 2.0], "b": [1.0]}, False, "no clusters: "),
])
def test_no_clusters_but_the_order_and_a_note_saying_why(case, segments, lower, note):
    got = report_ranking(segments, lower_is_better=lower)
    means = {n: statistics.mean(v for v in row if v is not None) for n, row in segments.items()}
    assert [s["system"] for s in got["systems"]] == sorted(means, key=means.__getitem__, reverse=not lower), case
    assert all(s["cluster"] is None for s in got["systems"]) and note in got["note"], case


def test_one_system_is_no_ranking():
    assert report_ranking({"a": [1.0, 2.0]}) is None


def test_the_command_gives_the_page_its_human_ranking(tmp_path, capsys):
    """The shipped slice's MQM segment scores (higher is better: 0 is no error): the page's ranking is
    report_ranking of the page's own human segment scores, clusters included."""
    from docmetrics.report.data import parse

    ted = ROOT / "docmetrics" / "data" / "ted"
    page = tmp_path / "page.html"
    code, _, err = run_cli(capsys, "-m", "chrf", "-i", *sorted((ted / "sys").glob("*.txt")), "-r", ted / "ref.txt",
                           "--doc-ids", ted / "docids.txt", "--human", ted / "human_seg.tsv", "--seg-level",
                           "--report", page, "-q")
    assert code == 0, err
    text = page.read_text(encoding="utf-8")
    data = parse(text[text.index('id="docmetrics-data">') + 21:text.index("</script>")])
    human = data["human"]
    assert human["ranking"] == report_ranking(human["segments"], lower_is_better=human["lower_is_better"])
    assert len(human["ranking"]["systems"]) == 6 and human["ranking"]["rule"] == "wmt25"
    assert all(isinstance(s["cluster"], int) for s in human["ranking"]["systems"])


def test_the_generated_data_is_deterministic_and_of_the_size_asked():
    a, b = page_data(6, 20), page_data(6, 20)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert len(a["texts"]["documents"]) == 20 and len(a["texts"]["systems"]) == 6
    assert {r["spec"] for r in a["results"]} == {"chrf", "bleu"} and len(a["results"]) == 12
    assert len(a["human"]["ranking"]["systems"]) == 6
