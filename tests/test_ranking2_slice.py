"""``docmetrics rank -m ... --scores FILE...`` reads the score files once, by ``read_stored`` as ``rank --scores``
does, and picks each pair's stored metrics with ``StoredScores.evalset`` (slice ranking2 of issue 46); the
statistics registry gives the range an average maps each statistic from."""

from __future__ import annotations

import pytest
from cli_fixtures import run_cli
from plugin_fixtures import toy_dist  # noqa: F401
from test_autorank import write_tsv
from test_autorank_live import TOY, files, rank_json, write_live_tsv  # noqa: F401

from docmetrics.commands import rank as rank_command
from docmetrics.formats import stored as stored_format
from docmetrics.judging import statistics

pytestmark = pytest.mark.usefixtures("toy_dist")


@pytest.fixture()
def reads(monkeypatch):
    """The score files read by ``read_stored`` while the test runs."""
    found: list[object] = []
    real = stored_format.read_stored

    def counted(paths, **kw):
        found.append(paths)
        return real(paths, **kw)

    monkeypatch.setattr(stored_format, "read_stored", counted)
    monkeypatch.setattr(rank_command, "read_stored", counted)
    return found


def test_live_and_stored_metrics_read_the_files_once(capsys, files, reads):
    tsv = write_live_tsv(files, TOY, files["dir"] / "toy.tsv")
    reads.clear()
    both = rank_json(capsys, "-m", TOY, *files["args"], "--scores", tsv)
    assert len(reads) == 1
    assert [m["name"] for m in both["metrics"]] == [TOY, "toy"] and both["preset"] is None
    for s in both["systems"]:
        assert s["scores"][TOY] == s["scores"]["toy"]


def test_stored_with_live_metrics_names_the_metric_the_files_lack(capsys, files):
    tsv = write_live_tsv(files, TOY, files["dir"] / "toy.tsv")
    code, _, err = run_cli(capsys, "rank", "-m", TOY, *files["args"], "--scores", tsv, "--stored", "nope")
    assert code == 2 and "no metric 'nope'" in err and "the files have toy" in err and "Traceback" not in err


def test_a_stored_metric_named_like_a_spec_is_refused_before_scoring(capsys, files):
    segs = {"chrf": {f"sys{k}.txt": [0.5] * len(files["ids"]) for k in range(4)}}
    tsv = write_tsv(files["dir"] / "chrf.tsv", segs, files["ids"])
    code, _, err = run_cli(capsys, "rank", "-m", "chrf", *files["args"], "--scores", tsv)
    assert code == 2 and "a stored metric is named 'chrf' like a -m spec" in err


def test_an_average_maps_each_statistic_from_the_registry_range():
    from docmetrics.judging.averages import PER_LP

    for scheme in PER_LP.values():
        for name in scheme:
            s = statistics.get(name)
            assert statistics.stat_range(name) == (s.low, s.high)
