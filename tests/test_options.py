"""The command line is a shell over typed calls (issue 38): each command's parsed options become a frozen,
typed value of :mod:`docmetrics.commands.options` in one place (:func:`docmetrics.cli.args.typed`), nothing
below the parsers sees argparse, and no option is lost on the way."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from docmetrics.cli import mbr, metaeval, rank, report, rerank, sample, sweep
from docmetrics.cli.args import typed
from docmetrics.cli.parser import build_parser
from docmetrics.commands import options as o

ROOT = Path(__file__).resolve().parents[1] / "docmetrics"
COMMANDS = {
    "docmetrics": (build_parser, o.RunOptions),
    "sweep": (sweep.build_parser, o.SweepOptions),
    "metaeval": (metaeval.build_parser, o.MetaevalOptions),
    "rank": (rank.build_parser, o.RankOptions),
    "report": (report.build_parser, o.ReportOptions),
    "sample": (sample.build_parser, o.SampleOptions),
    "mbr": (mbr.build_parser, o.MbrOptions),
    "rerank": (rerank.build_parser, o.RerankOptions),
}


def parsed_names(parser) -> set[str]:
    """Every attribute a parse sets: each action's dest and the parser's own defaults."""
    return {a.dest for a in parser._actions if a.dest not in ("help", "version")} | set(parser._defaults)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_parsed_option_is_a_field_of_the_commands_options(command):
    build, cls = COMMANDS[command]
    fields = {f.name for f in dataclasses.fields(cls)}
    assert parsed_names(build()) - fields == set()


@pytest.mark.parametrize("argv, expected", [
    (["-m", "chrf", "bleu", "-i", "a.txt", "-r", "r1.txt", "r2.txt", "-w", "2", "--paired-bs", "--seed", "7"],
     {"metrics": ["chrf", "bleu"], "input": ["a.txt"], "references": ["r1.txt", "r2.txt"], "reference": "r1.txt",
      "width": 2, "width_given": True, "paired_bs": True, "seed": 7, "human": None}),
    (["-m", "chrf", "--genmt", "g.jsonl", "--error-free"], {"genmt": "g.jsonl", "error_free": "auto", "input": None}),
    ([], {"metrics": [], "exclude_systems": [], "direction": [], "width": 4, "width_given": False}),
])
def test_typed_keeps_what_was_parsed(argv, expected):
    opts = typed(o.RunOptions, build_parser().parse_args(argv))
    assert {k: getattr(opts, k) for k in expected} == expected


def test_options_are_frozen_and_a_step_derives_new_ones():
    opts = typed(o.RunOptions, build_parser().parse_args(["-m", "chrf"]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.metrics = ["bleu"]  # type: ignore[misc]
    assert dataclasses.replace(opts, lang="en-de").lang == "en-de" and opts.lang is None


def test_a_subcommand_lacking_an_option_gets_its_default():
    """rank has no --human-lower-better, report no -f: the field keeps its default, as getattr(args, NAME,
    default) read it."""
    r = typed(o.RankOptions, rank.build_parser().parse_args(["--scores", "s.tsv"]))
    assert (r.scores, r.lang, r.jsonl, r.cache) == (["s.tsv"], None, False, None)
    p = typed(o.ReportOptions, report.build_parser().parse_args(["page.json", "-o", "page.html"]))
    assert (p.files, p.output, p.human) == (["page.json"], "page.html", None)


def test_nothing_below_the_parsers_sees_argparse():
    """docmetrics/commands and the library take typed values: argparse is imported by docmetrics/cli alone
    (and the tool plugins' own parsers)."""
    users = []
    for path in ROOT.rglob("*.py"):
        if "cli" in path.relative_to(ROOT).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import) and any(a.name == "argparse" for a in node.names):
                users.append(str(path.relative_to(ROOT)))
            elif isinstance(node, ast.ImportFrom) and node.module == "argparse":
                users.append(str(path.relative_to(ROOT)))
    assert users == []


def test_the_command_line_is_a_shell():
    """The issue's budget: docmetrics/cli at most 3,000 lines, at most 15 functions taking the Namespace (the
    argparse actions, the converter, the Ctrl-C messages), and no assignment to it after parsing."""
    lines, takes, assigns = 0, [], []
    for path in sorted((ROOT / "cli").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines += len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                params = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                if any(p.annotation is not None and "Namespace" in ast.unparse(p.annotation) for p in params):
                    takes.append(f"{path.name}:{node.name}")
            elif isinstance(node, ast.Assign):
                assigns += [f"{path.name}:{node.lineno}" for t in node.targets
                            if isinstance(t, ast.Attribute) and ast.unparse(t.value) == "args"]
    assert lines <= 3000 and len(takes) <= 15 and assigns == [], (lines, takes, assigns)
