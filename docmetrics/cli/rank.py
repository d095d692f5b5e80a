"""The command line's options of :mod:`docmetrics.commands.rank`."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..commands.rank import EPILOG, run_rank
from ..evaluation.autorank import PRESETS
from . import human_clusters, rank_live
from .args import add_output_arguments
from .errors import guarded
from .habits import Parser, parse_args


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="docmetrics rank", description="AutoRank systems over several stored metrics, as WMT25 does.",
               epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("scores")
    g.add_argument("--scores", nargs="+", action="extend", metavar="FILE",
                   help="stored scores: WMT25 automatic-scores *.jsonl, MTME *.score files or a TSV")
    g.add_argument("-l", "--lp", nargs="+", action="extend", metavar="LP",
                   help="language pairs to rank (en-ar_EG, or en-ar where that names one; commas or spaces "
                        "between several); default: every pair in the files")
    g.add_argument("--stored", nargs="+", action="extend", metavar="NAME",
                   help="the metrics to rank with, by their names in the files, or 'all' (default: all, or the "
                        "preset's)")
    g.add_argument("--preset", choices=sorted(PRESETS),
                   help="a campaign's metric set per language pair: " +
                        "; ".join(f"{k}: {v.description}" for k, v in PRESETS.items()))
    g.add_argument("--direction", nargs="+", action="extend", default=[], metavar="NAME=higher|lower",
                   help="declare a metric's direction where its name does not say it (MetricX: lower unless every "
                        "score is <= 0, as stored negated)")
    human_clusters.add_arguments(p)
    rank_live.add_arguments(p)
    add_output_arguments(p.add_argument_group("output"))
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse_args(parser, list(sys.argv[1:] if argv is None else argv))
    return guarded("docmetrics rank", args.debug, lambda: run_rank(args, sys.stdout))

