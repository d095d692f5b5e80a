"""``docmetrics sweep``: its parser and entry point; what it runs is :mod:`docmetrics.commands.sweep`."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..commands.sweep import run
from ..judging import SEG_STATS, STAT_CHOICES
from . import human as human_cli
from . import report as report_cli
from .args import (
    add_input_arguments,
    add_model_arguments,
    add_output_arguments,
    typed,
)
from .errors import guarded
from .habits import Parser, parse_args


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="docmetrics sweep",
        description="Score one metric over a parameter grid and meta-evaluate every point.",
        epilog="example:\n  docmetrics sweep -m slide:model=/models/kiwi --grid w=1..10 s=1..w -i sys/*.txt "
        "-s src.txt --doc-ids ids.txt --human seg_scores.tsv --human-column mqm_score --plot fig2.png",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "-m",
        "--metric",
        required=True,
        metavar="SPEC",
        help="the base spec (NAME[:key=value,...] or a preset); grid parameters override it",
    )
    p.add_argument(
        "--grid",
        nargs="+",
        required=True,
        metavar="KEY=VALUES",
        help="KEY=A..B (integers; an end may name an earlier key) or KEY=v1,v2,...",
    )
    add_input_arguments(p, required=True)
    g = add_model_arguments(p)
    g = p.add_argument_group("score cache")
    g.add_argument(
        "--cache", nargs="?", const="", default=None, metavar="PATH",
        help="keep the scores in a persistent cache (SQLite; default file: $DOCMETRICS_CACHE/scores.sqlite, "
        "else ~/.cache/docmetrics/scores.sqlite), so that the same sweep, run again or interrupted, takes "
        "what was scored from it. Without --cache the points share their scores through a temporary "
        "file, deleted at the end: nothing is kept",
    )
    g.add_argument("--no-cache", action="store_true",
                   help="no cache at all: every point scores its units from scratch")
    g.add_argument(
        "--cache-chunk",
        type=int,
        default=None,
        metavar="N",
        help="units scored and committed to the cache at a time (default: 256); an interrupted "
        "run loses at most one chunk",
    )
    human_cli.add_arguments(p)
    g = p.add_argument_group("output")
    g.add_argument(
        "--stat",
        default="accuracy",
        metavar="STAT",
        help=f"the statistic of the heatmap: {', '.join(STAT_CHOICES)}, an opt-in one of mt-metrics-eval's "
        "(kendall_c; seg_kendall_c, seg_kendall_23, seg_kendall_like, seg_pearson_micro with --seg-level) or a "
        "plugin statistic's name (default: "
        f"accuracy = pairwise system accuracy; {', '.join(SEG_STATS)} need --seg-level; pdp: system-level Pairwise "
        "Difference Pearson; doc_*: the document level, --doc-level mean unless given)",
    )
    g.add_argument("--plot", metavar="PNG", help="heatmap of --stat over the first two grid parameters")
    g.add_argument(
        "-o", "--output", metavar="JSON", help="also write every point (scores, meta-evaluation) as JSON"
    )
    report_cli.add_argument(g)
    add_output_arguments(g)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse_args(parser, argv, command="sweep")
    return guarded("docmetrics sweep", args.debug, lambda: run(typed(parser, args), sys.stdout),
                   interrupted=lambda: kept(args))


def kept(args: argparse.Namespace) -> str:
    """After Ctrl-C: where what was scored is, or that --cache would have kept it."""
    if args.cache is None:
        return ("no --cache, so the scores computed so far are lost; with --cache, the same command run again "
                "resumes where it stopped")
    from ..api import default_path

    return f"what was scored is in the score cache {args.cache or default_path()}: run again to resume"

