"""The command line's data sources after the datacli cut (issue 46, size): one reader of judged data for every
command (commands/data.ALIASES, read_pairs), the stored-score checks written once where they are made, and
their messages word for word (each exits 2 in one line, before any file is read or model loaded)."""

from __future__ import annotations

import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401
from test_stored_judging import QE, mtme, tiny  # noqa: F401

from docmetrics.commands import data as data_cli
from docmetrics.commands.options import RankOptions, RunOptions


@pytest.mark.parametrize("argv,message", [
    (["--direction", "M=higher", "-m", "chrf", "-i", "nowhere.txt"],
     "--direction declares a stored metric's direction: it needs --scores FILE... or --stored"),
    (["--stored", "M", "N", "-m", "chrf", "-i", "nowhere.txt"],
     "--stored M N: give the files with --scores FILE... (or an MTME directory with --mtme ROOT, whose "
     "metric-scores it reads)"),
    (["-m", "chrf", "bleu", "--scores", "nowhere.tsv"],
     "-m chrf bleu with --scores and no -i: a live metric needs the system outputs (-i HYP... -s SRC --doc-ids IDS) "
     "that the stored scores were computed on"),
])
def test_stored_score_checks_say_what_they_said(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err == f"docmetrics: error: {message}\n"


@pytest.mark.usefixtures("toy_dist")
def test_metric_name_with_stored_metrics_in_an_mtme_run_is_refused(tiny, capsys):  # noqa: F811
    code, _, err = run(capsys, "-m", QE, *mtme(tiny, "--write-mtme", tiny / "data"))  # the directory's own scores
    assert code == 0, err
    code, out, err = run(capsys, "-m", QE, "--stored", "all", "--metric-name", "x",
                         *mtme(tiny, "--write-mtme", tiny / "out"))
    assert code == 2, err
    assert err.endswith("docmetrics: error: --metric-name names the score files of -m metrics one by one; with "
                        "stored metrics (--scores/--stored) drop it: each file is named after the metric's "
                        "signature\n")


def source(opts):
    """:func:`data_cli.source` with the options read_judged passes (None and [] are not)."""
    path, flag, fmt, given = data_cli.source(opts)
    return path, flag, fmt, {k: v for k, v in given.items() if v is not None and v != []}


def test_every_alias_is_read_with_its_format_and_options():
    """The main command's aliases and rank's are one table: the format each names and its options from the
    command's."""
    run_opts = RunOptions(genmt="g.jsonl", domains=["news"], include_human=True, ref=["refA"])
    assert source(run_opts) == ("g.jsonl", "--genmt", "genmt",
                                         {"domains": ["news"], "include_reference": True, "reference": "refA"})
    assert source(RunOptions(wmt25_tsv="t.tsv")) == ("t.tsv", "--wmt25-tsv", "wmt25-tsv",
                                                              {"set_id": "official"})
    rank = RankOptions(mtme="root", testset="wmt24", ref=["refA", "refB"], gold="mqm")
    assert source(rank) == ("root", "--mtme", "mtme",
                                     {"testset": "wmt24", "ref": ["refA", "refB"], "human_name": "mqm"})
    assert source(RankOptions(human="h.tsv", lower_is_better=True)) == (
        "h.tsv", "--human", "human-tsv", {"lower_is_better": True})
    assert source(RankOptions(wmt26="w.jsonl", wmt26_systems=["sys"])) == (
        "w.jsonl", "--wmt26", "wmt26", {"systems": ["sys"], "source": "src_text"})
    assert source(RankOptions(genmt="g.jsonl")) == ("g.jsonl", "--genmt", "genmt", {})
    assert source(RunOptions(data="d", data_format="toyh", data_option=["k=1"])) == (
        "d", "--data", "toyh", {"k": 1})


def test_the_readers_words_are_the_options():
    assert data_cli.worded("choose one with ref= to score", [("ref= ", "--ref ")]) == "choose one with --ref to score"
    assert data_cli.worded("give format='genmt' and lp=", ()) == "give --data-format genmt and -l"


@pytest.mark.parametrize("flag", [["-i", "h.txt"], ["--paired-bs"], ["--scores", "s.tsv"]])
def test_spans_refuses_the_options_of_a_metric_run(capsys, flag):
    code, out, err = run(capsys, "--spans", "p.jsonl", *flag)
    assert code == 2 and out == "" and err == (
        f"docmetrics: error: --spans judges error spans (from files, or a metric's own with --genmt or --human), "
        f"not metric scores: drop {flag[0]} (meta-evaluate metrics in a run of their own)\n")
