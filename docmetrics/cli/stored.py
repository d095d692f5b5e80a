"""The command line's options of :mod:`docmetrics.commands.stored`."""

from __future__ import annotations

import argparse


def add_arguments(g: argparse._ActionsContainer) -> None:
    g.add_argument("--scores", nargs="+", action="extend", metavar="FILE",
                   help="stored scores judged beside (or instead of) -m: WMT25 automatic-scores *.jsonl, MTME "
                        "NAME-REF.{seg,doc,sys}.score files or a TSV (system, doc_id, a score column per metric)")
    g.add_argument("--stored", nargs="+", action="extend", metavar="NAME",
                   help="the stored metrics to judge, by their names in the files, or 'all' (default with --scores: "
                        "all); with --mtme and no --scores: metrics of ROOT/TESTSET/metric-scores/LP (NAME-REF, or "
                        "NAME where one reference has it)")
    g.add_argument("--direction", nargs="+", action="extend", default=[], metavar="NAME=higher|lower",
                   help="a stored metric's direction where its name does not say it (MetricX: lower unless every "
                        "score is <= 0, as stored negated)")

