"""``docmetrics mbr`` and ``docmetrics rerank``: their parsers and entry points; what they run is
:mod:`docmetrics.commands.mbr` (over :func:`docmetrics.mbr` / :func:`docmetrics.rerank`)."""

from __future__ import annotations

import argparse
from typing import Sequence

from ..commands.mbr import run_mbr, run_rerank
from ..judging import TIES, UNITS
from .args import Once, add_cache_arguments, add_model_arguments, add_output_arguments, number, typed
from .errors import guarded
from .habits import Parser, parse_args

__all__ = ["build_parser", "build_rerank_parser", "main", "main_rerank"]

TED = "docmetrics/data/ted"
MBR_EPILOG = f"""\
examples:
  docmetrics mbr -m chrf -c {TED}/sys/*.txt --doc-ids {TED}/docids.txt -o chosen.txt
  docmetrics mbr -m chrf -c {TED}/sys/*.txt --doc-ids {TED}/docids.txt --unit segment -f json --matrix
  docmetrics mbr -m doc-comet:k=2,model=DA -c a.txt b.txt c.txt -s src.txt --doc-ids ids.txt \\
      --prune-top-k 2 --prune-metric slide:w=6,s=6

Each candidate's utility in a unit is its mean score with every other candidate as the reference; the best
(in the metric's direction: lowest for MetricX) wins, ties to the {TIES}."""

RERANK_EPILOG = f"""\
examples:
  docmetrics rerank -m chrf -c {TED}/sys/*.txt -r {TED}/ref.txt --doc-ids {TED}/docids.txt -o oracle.txt
  docmetrics rerank -m slide:w=6,s=6 -c a.txt b.txt -s src.txt --doc-ids ids.txt

The best score per unit wins (in the metric's direction), ties to the {TIES}."""


def _parser(command: str, description: str, epilog: str) -> Parser:
    p = Parser(prog=f"docmetrics {command}", description=description, epilog=epilog,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("what to compute")
    g.add_argument("-m", "--metric", required=True, metavar="SPEC", action=Once,
                   help="the metric: a spec NAME[:key=value,...], a preset or a signature")
    g.add_argument("--unit", choices=UNITS, default="document",
                   help="choose per document (default: a document's candidate is one candidate file's translation "
                        "of it), per paragraph (--paragraph-ids) or per segment")
    g = p.add_argument_group("input")
    g.add_argument("-c", "--candidates", nargs="+", action="extend", required=True, metavar="CAND",
                   help="N >= 2 candidate files, line-parallel with the source (-c given again adds candidates), "
                        "or ONE JSONL file with all N candidates on each line (see docs/mbr.md)")
    g.add_argument("-s", "--source", metavar="FILE", action=Once, help="source sentences, line-parallel")
    g.add_argument("-r", "--reference", metavar="FILE", action=Once,
                   help="a true reference: " + ("scored beside each candidate, never used to choose" if command == "mbr"
                                                else "an oracle rerank by a reference-based metric"))
    g.add_argument("--doc-ids", metavar="FILE", action=Once,
                   help="document id of each line; a new document starts where the id changes")
    g.add_argument("--paragraph-ids", metavar="FILE", action=Once,
                   help="with --unit paragraph: paragraph id of each line; a new paragraph starts where the id "
                        "changes within a document")
    add_model_arguments(p)
    g = p.add_argument_group("output")
    add_output_arguments(g)
    g.add_argument("-o", "--output", metavar="FILE", help="write the chosen lines, in order, to FILE")
    return p


def build_parser() -> argparse.ArgumentParser:
    p = _parser("mbr", "Minimum-Bayes-risk decoding per document or segment with any reference-based metric: "
                       "every candidate scored against every other (one scoring pass).", MBR_EPILOG)
    g = p.add_argument_group("MBR")
    g.add_argument("--matrix", action="store_true", help="-f json: the pairwise scores of each unit too")
    g.add_argument("--prune-top-k", type=number("--prune-top-k"), metavar="K",
                   help="only the K best candidates of each unit by --prune-metric enter MBR")
    g.add_argument("--prune-metric", metavar="QE_SPEC", help="the QE metric that prunes (with --prune-top-k)")
    add_cache_arguments(p)
    return p


def build_rerank_parser() -> argparse.ArgumentParser:
    p = _parser("rerank", "Choose the best of N candidates per document or segment by a QE metric, or by a "
                          "reference-based metric against -r (an oracle).", RERANK_EPILOG)
    add_cache_arguments(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse_args(parser, argv, command="mbr")
    return guarded("docmetrics mbr", args.debug, lambda: run_mbr(typed(parser, args)))


def main_rerank(argv: Sequence[str] | None = None) -> int:
    parser = build_rerank_parser()
    args = parse_args(parser, argv, command="rerank")
    return guarded("docmetrics rerank", args.debug, lambda: run_rerank(typed(parser, args)))
