"""The command line's options of :mod:`docmetrics.commands.genmt`."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("GenMT data (WMT25/26 JSONL with ESA human scores)")
    g.add_argument("--genmt", metavar="JSONL",
                   help="score the systems of a GenMT file (wmt25-genmt-humeval.jsonl or the plain GenMT JSONL) "
                        "for the language pair -l and meta-evaluate them against its human scores")
    g.add_argument("--domains", nargs="+", metavar="DOMAIN", help="with --genmt: only these domains")
    g.add_argument("--error-free", nargs="?", const="auto", metavar="THRESHOLD",
                   help="with --genmt: also judge each metric as a detector of error-free segments (WMT26 "
                        "subtask 3: gold = no error span and ESA >= 85): error-free where its score >= THRESHOLD "
                        "(default: the threshold with the best MCC on these segments, reported as such)")

