"""The command line is a shell over typed calls (issue 38): each command's parsed options become a frozen,
typed value derived from its parser in one place (:func:`docmetrics.cli.args.typed`; tests/test_options_derived.py),
nothing below the parsers sees argparse, and no option is lost on the way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from docmetrics.cli.args import typed
from docmetrics.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[1] / "docmetrics"


@pytest.mark.parametrize("argv, expected", [
    (["-m", "chrf", "bleu", "-i", "a.txt", "-r", "r1.txt", "r2.txt", "-w", "2", "--paired-bs", "--seed", "7"],
     {"metrics": ["chrf", "bleu"], "input": ["a.txt"], "references": ["r1.txt", "r2.txt"], "reference": "r1.txt",
      "width": 2, "width_given": True, "paired_bs": True, "seed": 7, "human": None}),
    (["-m", "chrf", "--genmt", "g.jsonl", "--error-free"], {"genmt": "g.jsonl", "error_free": "auto", "input": None}),
    ([], {"metrics": [], "exclude_systems": [], "direction": [], "width": 4, "width_given": False}),
])
def test_typed_keeps_what_was_parsed(argv, expected):
    parser = build_parser()
    opts = typed(parser, parser.parse_args(argv))
    assert {k: getattr(opts, k) for k in expected} == expected


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
