"""The command line's options of :mod:`docmetrics.commands.human`."""

from __future__ import annotations

import argparse

from ..judging import DOC_RULES, SCORE_COLUMNS


def add_level_arguments(g: argparse._ActionsContainer) -> None:
    """--doc-level and --pdp (shared by the docmetrics command, sweeps and docmetrics metaeval)."""
    g.add_argument(
        "--doc-level", nargs="?", const="mean", choices=DOC_RULES, metavar="RULE",
        help="also meta-evaluate at the document level: gold per (system, document) from document-level human "
        "scores where the test set has them (MTME), else the mean (default) or sum of each document's judged "
        "segments; adds system-level PDP.  Adds a 'document' object (and 'pdp') to JSON output",
    )
    g.add_argument(
        "--pdp", action="store_true",
        help="also system-level Pairwise Difference Pearson (PDP, MTME 2025); adds 'pdp' to JSON output",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``docmetrics`` (and ``docmetrics sweep``) for meta-evaluation."""
    g = parser.add_argument_group("meta-evaluation against human judgements")
    g.add_argument(
        "--human",
        metavar="TSV",
        help="human scores: TSV with system + score (system level) or system, doc_id, seg_id "
        "(+ doc_pos) + score (segment level; e.g. an MQM seg_scores.tsv), or a raw MQM file as "
        "google/wmt-mqm-human-evaluation publishes it (one line per error; penalties computed as "
        "mt-metrics-eval's score_mqm.py does, lower is better)",
    )
    g.add_argument(
        "--human-column",
        metavar="NAME",
        help=f"the score column (default: the first of {', '.join(SCORE_COLUMNS)})",
    )
    g.add_argument(
        "--human-lower-better",
        action="store_true",
        help="lower human scores are better (e.g. MQM penalties): they are negated",
    )
    g.add_argument(
        "--no-human-systems",
        action="store_true",
        help="leave out the systems the human file marks is_human=1 (references rated as systems)",
    )
    g.add_argument(
        "--exclude-systems",
        nargs="+",
        default=[],
        metavar="NAME",
        help="leave these systems out of the meta-evaluation",
    )
    g.add_argument(
        "--seg-level",
        action="store_true",
        help="also segment-level Kendall tau, acc_eq with tie calibration and soft pairwise accuracy (SPA), "
        "as --mtme computes them (needs segment-level human scores and --doc-ids)",
    )
    add_level_arguments(g)

