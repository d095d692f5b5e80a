"""``docmetrics sample DIR``: write the sample data shipped in the package into DIR (for users who installed a
wheel and have no checkout), so every example of the documentation runs there too."""

from __future__ import annotations

import argparse
from typing import Sequence

from ..api import SAMPLES
from ..commands.sample import run
from .args import typed
from .errors import guarded
from .habits import Parser, parse_args

__all__ = ["build_parser", "main"]

EPILOG = """\
examples:
  docmetrics sample docmetrics-data
  cd docmetrics-data && docmetrics -m chrf -i ted/sys/*.txt -r ted/ref.txt --doc-ids ted/docids.txt
  docmetrics sample sample --models
  docmetrics -m slide:w=2,s=1,model=sample/models/tiny-cometkiwi -i sample/ted/sys/UEdin.txt -s sample/ted/src.txt \
      --doc-ids sample/ted/docids.txt

The documentation's examples name docmetrics/data/...: in DIR the same files are under DIR/.
--models also writes tiny randomly initialised models (COMET, XCOMET, mBART-50, MetricX, a chat LLM) under
DIR/models/, built offline in seconds: they run every model example of the documentation without a model
hub, but their scores mean nothing (they show the mechanics, not real scores)."""


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="docmetrics sample",
               description="Write the sample data shipped in the package (docmetrics/data) into DIR.",
               epilog=EPILOG + "\n\nfolders:\n" + "".join(f"  {k:<11} {v}\n" for k, v in SAMPLES.items()),
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", metavar="DIR", help="the folder to write (made if missing; refused if it holds anything "
                   "sample did not write, so that the same command runs again)")
    p.add_argument("--force", action="store_true", help="write into a folder that holds other files (same "
                                                        "names are overwritten)")
    p.add_argument("--models", action="store_true", help="also write tiny random models of every installed "
                   "backbone that offers some under DIR/models/ (for the examples; their scores mean nothing)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing")
    p.add_argument("--debug", action="store_true", help="tracebacks")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse_args(parser, argv)
    return guarded("docmetrics sample", args.debug, lambda: run(typed(parser, args)))
