"""``docmetrics metaeval``: its parser and entry point; what it runs is :mod:`docmetrics.commands.metaeval`."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..commands.data import run_metaeval as run_judged
from ..commands.metaeval import run_metaeval
from ..judging import DEFAULT_SEED
from . import data as data_cli
from . import report as report_cli
from . import stored as stored_cli
from .args import add_cache_arguments, add_model_arguments, add_output_arguments, parse_seed, typed
from .errors import guarded
from .habits import Parser, parse_args
from .human import add_level_arguments
from .mtme import add_data_arguments

EPILOG = """\
example (WMT23 en-de and zh-en, the WMT23 and WMT24 averages, a plot):
  docmetrics metaeval --mtme ~/.mt-metrics-eval/mt-metrics-eval-v2 -t wmt23 -l en-de,zh-en \\
      -m doc-comet:k=0 doc-comet:k=2 --plot wmt23.png
  docmetrics metaeval --mtme ~/.mt-metrics-eval/mt-metrics-eval-v2 -t wmt23 -l en-de,zh-en \\
      -m doc-comet:k=2 --stored COMET-22 BLEU-refA    # beside MTME's own stored scores

Per language pair: the table of `docmetrics --mtme` (SPA, acc_eq, Pearson, ... with PERM-BOTH
clusters); then the averages as MTME's WMT23 and WMT24 task sets compute them, and with
--average STAT[,STAT...] the average of those statistics of every language pair (equal weights).
Errors exit with status 2 and one message; --debug shows the traceback.
"""


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="docmetrics metaeval",
        description="Meta-evaluate metrics on several language pairs of mt-metrics-eval data, at the WMT standard.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("-m", "--metrics", nargs="+", action="extend", default=[], metavar="SPEC",
                   help="metric specs NAME[:key=value,...], preset names, or signatures (-m given again adds "
                        "metrics); optional with stored metrics (--stored, --scores)")
    g = p.add_argument_group("MTME data")
    g.add_argument("--mtme", metavar="ROOT", help="an MTME data directory (required, unless --data)")
    g.add_argument("-l", "--lps", metavar="LP1,LP2",
                   help="language pairs, comma-separated (e.g. en-de,zh-en; required with --mtme)")
    add_data_arguments(g, single=False)
    g.add_argument("--seed", type=parse_seed, default=DEFAULT_SEED, metavar="INT",
                   help="seed of the PERM-BOTH resampling (default: %(default)s; 'none': not reproducible)")
    add_level_arguments(g)
    stored_cli.add_arguments(p.add_argument_group("stored scores, judged like metrics"))
    data_cli.add_arguments(p)
    add_model_arguments(p)
    g = p.add_argument_group("output")
    g.add_argument("--average", metavar="STAT[,STAT...]",
                   help="also average these statistics (names or aliases, e.g. pearson,seg_acc_eq; a plugin's "
                        "too) of every language pair, equal weights, each mapped to [0, 1] from its range, with "
                        "clusters where every one was compared by PERM-BOTH")
    g.add_argument("--plot", metavar="PNG", help="draw the averages, the main statistics and the plugin statistics "
                   "per metric and language pair")
    report_cli.add_argument(g)
    add_output_arguments(g)
    add_cache_arguments(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse_args(parser, argv, command="metaeval")
    judged = args.data or args.data_format or args.data_option  # --data: through the library (commands.data)
    if not judged:
        missing = [flag for flag, given in (("--mtme", args.mtme), ("-l/--lps", args.lps)) if given is None]
        if missing:  # what argparse said when they were required (--data needs neither)
            parser.error(f"the following arguments are required: {', '.join(missing)}")
    run = run_judged if judged else run_metaeval
    return guarded("docmetrics metaeval", args.debug, lambda: run(typed(parser, args), sys.stdout))

