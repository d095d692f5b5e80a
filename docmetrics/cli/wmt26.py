"""The command line's options of :mod:`docmetrics.commands.wmt26`."""

from __future__ import annotations

import argparse

from ..values.wmt26 import SOURCES


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("WMT26 General MT release (wmt-conference/wmt26-general-mt)")
    g.add_argument("--wmt26", metavar="JSONL", help="the test file (data/wmt26-genmt.jsonl): score the systems of "
                                                    "the language pair -l document by document")
    g.add_argument("--wmt26-systems", nargs="+", metavar="PATH",
                   help="the system files: their folder (data/systems) or NAME.jsonl files; the systems that "
                        "translated every document of the pair are scored, the others counted")
    g.add_argument("--wmt26-ref", nargs="+", metavar="NAME",
                   help="the references of the test file's refs to score against (the first the primary); "
                        "default none (reference-free metrics)")
    g.add_argument("--wmt26-source", choices=SOURCES, default="src_text",
                   help="the source text: src_text (default) or gold_transcript (speech documents' curated "
                        "transcript; src_text where a document has none)")

