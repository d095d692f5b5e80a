"""The command line's data sources after the datacli cut (issue 46, size): one reader of judged data for every
command (commands/data.ALIASES, read_pairs), the stored-score checks written once where they are made, and
their messages word for word (each exits 2 in one line, before any file is read or model loaded)."""

from __future__ import annotations

import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401
from test_stored_judging import QE, mtme, tiny  # noqa: F401

from docmetrics.cli import parser as main_parser
from docmetrics.cli import rank as rank_parser
from docmetrics.cli.args import typed
from docmetrics.commands import data as data_cli


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


def source(command, *argv):
    """:func:`data_cli.source` of ``command``'s options parsed from ``argv``, with the format's options read_judged
    passes (None and [] are not)."""
    parser = command.build_parser()
    path, flag, fmt, given = data_cli.source(typed(parser, parser.parse_args(argv)))
    return path, flag, fmt, {k: v for k, v in given.items() if v is not None and v != []}


def test_every_alias_is_read_with_its_format_and_options():
    """The main command's aliases and rank's are one table: the format each names and its options from the
    command's."""
    assert source(main_parser, "--genmt", "g.jsonl", "--domains", "news", "--include-human", "--ref", "refA") == (
        "g.jsonl", "--genmt", "genmt", {"domains": ["news"], "include_reference": True, "reference": "refA"})
    assert source(main_parser, "--wmt25-tsv", "t.tsv") == ("t.tsv", "--wmt25-tsv", "wmt25-tsv", {"set_id": "official"})
    assert source(rank_parser, "--mtme", "root", "-t", "wmt24", "--ref", "refA,refB", "--gold", "mqm") == (
        "root", "--mtme", "mtme", {"testset": "wmt24", "ref": ["refA", "refB"], "human_name": "mqm"})
    assert source(rank_parser, "--human", "h.tsv", "--lower-is-better") == (
        "h.tsv", "--human", "human-tsv", {"lower_is_better": True})
    assert source(rank_parser, "--wmt26", "w.jsonl", "--wmt26-systems", "sys") == (
        "w.jsonl", "--wmt26", "wmt26", {"systems": ["sys"], "source": "src_text"})
    assert source(rank_parser, "--genmt", "g.jsonl") == ("g.jsonl", "--genmt", "genmt", {})
    assert source(main_parser, "--data", "d", "--data-format", "toyh", "--data-option", "k=1") == (
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
