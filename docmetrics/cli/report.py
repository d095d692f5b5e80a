"""``docmetrics report``: its parser and entry point; what it runs is :mod:`docmetrics.commands.report`."""

from __future__ import annotations

import argparse
from typing import Sequence

from ..commands.report import run
from . import data as data_cli
from .args import add_input_arguments, typed
from .errors import guarded
from .habits import Parser, parse_args


def add_argument(g: argparse._ArgumentGroup) -> None:
    g.add_argument("--report", metavar="FILE.html",
                   help="also write a report page: one self-contained HTML file (system tables, documents, "
                        "segments side by side, judging), whatever -f says")


# -- docmetrics report ---------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="docmetrics report",
               description="Rebuild a report page from saved output, without any model: -f json of a scoring "
                           "command (--level doc or chunk for the documents), of --paired-bs/--paired-ar, --human, "
                           "--genmt or --mtme; docmetrics sweep -o FILE; --dump-alignment FILE; or a report's own "
                           "JSON export.  -i/-s/-r/--doc-ids add the texts for the document view.",
               formatter_class=argparse.RawDescriptionHelpFormatter,
               epilog="example:\n  docmetrics -m chrf -i sysA.txt sysB.txt -r ref.txt --doc-ids ids.txt --level chunk "
                      "-f json -o scores.json\n  docmetrics report scores.json -o report.html -i sysA.txt sysB.txt "
                      "-r ref.txt --doc-ids ids.txt")
    p.add_argument("files", nargs="+", metavar="RESULTS.json", help="saved outputs (JSON, or JSON lines)")
    p.add_argument("-o", "--output", required=True, metavar="FILE.html", help="the page to write")
    p.add_argument("--title", help="the page's title (default: the files' names)")
    g = add_input_arguments(p, doc_per_line=True)
    g.add_argument("--human", metavar="FILE", help="human scores (as --human reads them) to show per document")
    g.add_argument("--human-column", metavar="NAME", help="the score column of --human")
    g.add_argument("--human-lower-better", action="store_true", help="--human's scores are lower-is-better")
    g.add_argument("--spans-tsv", metavar="FILE",
                   help="human error spans to show in the document view: a TSV with the columns system, doc_id, "
                        "doc_pos, start, end (character offsets in the system's line), severity (and category, "
                        "rater, span_text), as ../shared/data's spans.tsv")
    data_cli.add_arguments(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no notes")
    p.add_argument("--debug", action="store_true", help="tracebacks")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse_args(parser, argv, command="report")
    return guarded("docmetrics report", args.debug, lambda: run(typed(parser, args)))
