"""The command line's options of :mod:`docmetrics.commands.spans`."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("error spans (WMT25 metrics subtask 2, WMT26 subtask 1)")
    g.add_argument("--spans", nargs="*", metavar="JSONL",
                   help="judge span predictions (one JSON line per system and segment: system, the segment's key "
                        "as the human file names it, errors [{start_i, end_i, severity}]) against the human "
                        "spans of --genmt FILE (with -l) or of a raw MQM --human file: character-level "
                        "precision, recall and F1, half credit for a wrong severity, as WMT25 scores them; "
                        "one predictor per file, and with --genmt one per -m metric that gives error spans "
                        "(--genmt FILE -m xcomet --spans: XCOMET's own spans), and with a raw MQM --human file "
                        "one per -m metric too (--human RAW_MQM.tsv -m xcomet-qe --spans; a metric that scores "
                        "against a reference takes one of the file's human references: --ref NAME)")

