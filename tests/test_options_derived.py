"""Each command's options are declared once, in its parser: the typed, frozen value the commands get is a dataclass
derived from the parser (:func:`docmetrics.cli.args.options_type`): exactly the parser's options and the fields no
option sets, with the parser's defaults, and the flag of each field as the parser declares it."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from docmetrics.cli import mbr, metaeval, rank, report, sample, sweep
from docmetrics.cli.args import DERIVED, options_type, typed
from docmetrics.cli.main import main
from docmetrics.cli.parser import build_parser
from docmetrics.commands.options import flag_of

COMMANDS = {"docmetrics": build_parser, "sweep": sweep.build_parser, "metaeval": metaeval.build_parser,
            "rank": rank.build_parser, "report": report.build_parser, "sample": sample.build_parser,
            "mbr": mbr.build_parser, "rerank": mbr.build_rerank_parser}
#: a parse of each command that its parser accepts (required options and positionals given)
ARGV = {"docmetrics": ["-m", "chrf"], "sweep": ["-m", "chrf", "--grid", "w=1..2", "-i", "h.txt"],
        "metaeval": ["--mtme", "root", "-l", "en-de"], "rank": ["--scores", "s.tsv"],
        "report": ["page.json", "-o", "page.html"], "sample": ["out"], "mbr": ["-m", "chrf", "-c", "a", "b"],
        "rerank": ["-m", "chrf", "-c", "a", "b"]}


def options(parser: argparse.ArgumentParser) -> dict:
    """What the parser declares: each option's dest and default, and its own defaults (set_defaults)."""
    found = {a.dest: a.default for a in parser._actions if a.default is not argparse.SUPPRESS}
    return {**found, **parser._defaults}


@pytest.mark.parametrize("command", COMMANDS)
def test_the_fields_are_the_parsers_options_and_the_derived_ones(command):
    parser = COMMANDS[command]()
    declared = options(parser)
    derived = {name for name, (option, _) in DERIVED.items() if option is None or option in declared}
    assert {f.name for f in dataclasses.fields(options_type(parser))} == set(declared) | derived


@pytest.mark.parametrize("command", COMMANDS)
def test_the_defaults_are_the_parsers(command):
    parser = COMMANDS[command]()
    value = options_type(parser)()
    for name, default in options(parser).items():
        assert getattr(value, name) == default, name
        if isinstance(default, list):  # a list default is the value's own, never the parser's
            assert getattr(value, name) is not default
    for name, (_, default) in DERIVED.items():
        assert getattr(value, name, default) == default


@pytest.mark.parametrize("command", COMMANDS)
def test_a_parse_is_kept_frozen_and_a_step_derives_a_new_value(command):
    parser = COMMANDS[command]()
    args = parser.parse_args(ARGV[command])
    opts = typed(parser, args)
    assert all(getattr(opts, name) == value for name, value in vars(args).items())
    name = dataclasses.fields(opts)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(opts, name, "x")
    assert getattr(dataclasses.replace(opts, **{name: "x"}), name) == "x" and getattr(opts, name) != "x"


@pytest.mark.parametrize("command", COMMANDS)
def test_each_field_is_told_by_the_flag_its_parser_declares(command):
    parser = COMMANDS[command]()
    opts = typed(parser, parser.parse_args(ARGV[command]))
    for action in parser._actions:
        if action.default is argparse.SUPPRESS:
            continue
        flag = flag_of(opts, action.dest)
        if not action.option_strings:  # a positional: its metavar
            assert flag == (action.metavar or action.dest)
            continue
        short = [s for s in action.option_strings if len(s) == 2]
        assert flag == (short[0] if short else next(s for s in action.option_strings if s.startswith("--")))


def test_the_flags_of_the_main_command():
    parser = build_parser()
    opts = typed(parser, parser.parse_args([]))
    assert [flag_of(opts, name) for name in ("input", "references", "lang", "doc_ids", "statistics", "paired_bs",
                                             "ci", "score_only")] == [
        "-i", "-r", "-l", "--doc-ids", "--stat", "--paired-bs", "--ci", "-b"]


def test_a_list_option_not_given_is_empty_and_not_shared():
    parser = build_parser()
    one, two = (typed(parser, parser.parse_args([])) for _ in range(2))
    assert one.metrics == [] and one.exclude_systems == [] and one.direction == [] and one.input is None
    assert one.metrics is not two.metrics and one.sacrebleu_signatures is not two.sacrebleu_signatures


def test_a_field_a_parser_lacks_is_absent_and_read_with_its_default():
    """rank has -l as --lp, not --lang; mbr reads no -i: their values lack those fields, which the shared steps
    read with getattr(opts, NAME, default)."""
    r = typed(rank.build_parser(), rank.build_parser().parse_args(["--scores", "s.tsv"]))
    assert not hasattr(r, "lang") and getattr(r, "lang", None) is None and r.lp is None
    m = typed(mbr.build_parser(), mbr.build_parser().parse_args(ARGV["mbr"]))
    assert not hasattr(m, "input") and not hasattr(m, "stdin_implicit") and m.width_given is False


def test_data_lists_only_options_as_typed(capsys):
    """--data refuses an option it does not take and names those it takes: options, never a derived field."""
    assert main(["--data", "judged.jsonl", "-i", "hyp.txt", "-m", "chrf"]) == 2
    err = capsys.readouterr().err
    assert "--data does not take -i here; it takes " in err
    assert "--stdin-implicit" not in err and "--sacrebleu-signatures" not in err and "-b, " in err


def test_the_command_as_typed_is_kept():
    from docmetrics.cli.habits import parse_args

    parser = rank.build_parser()
    opts = typed(parser, parse_args(parser, ["--scores", "s.tsv"], command="rank"))
    assert opts.argv == ["rank", "--scores", "s.tsv"] and opts.direction == []
