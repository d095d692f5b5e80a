"""The ``docmetrics`` command's options: the parser (and its epilog), built from the shared argument groups."""

from __future__ import annotations

import argparse

from ..commands.levels import LEVELS
from ..values.versions import __version__
from . import data as data_cli
from . import genmt, mtme, significance
from . import human as human_cli
from . import report as report_cli
from . import spans as spans_cli
from . import stored as stored_cli
from . import wmt25 as wmt25_cli
from . import wmt26 as wmt26_cli
from .args import add_cache_arguments, add_input_arguments, add_model_arguments, add_output_arguments, number
from .habits import Parser

EPILOG = """\
examples:
  docmetrics -m slide:w=6,s=6 -i hyp.txt -s src.txt --doc-ids docids.txt
  cat hyp.txt | docmetrics -m slide:w=6,s=6 -s src.txt --doc-ids docids.txt --ci
  docmetrics -m slide:w=2,s=1 slide:w=6,s=6 -i sysA.txt sysB.txt -s src.txt --doc-ids ids.txt --level doc -o docs.tsv
  docmetrics -m slide-wmt23:model=/models/wmt22-cometkiwi-da -i sysA.txt sysB.txt -s src.txt --doc-ids ids.txt
  docmetrics -m "slide|w:6|s:6|p:drop|bb:comet|m:Unbabel/wmt22-cometkiwi-da|..." -i hyp.txt -s src.txt --doc-ids ids.txt
  docmetrics --list
  docmetrics --describe slide
  docmetrics -m slide:w=6,s=6 -i base.txt sysB.txt sysC.txt -s src.txt --doc-ids ids.txt --paired-bs
  docmetrics -m slide:w=6,s=6 -i sys/*.txt -s src.txt --doc-ids ids.txt --human mqm.tsv --seg-level
  docmetrics -m doc-comet:k=0 doc-comet:k=2 --mtme ~/mt-metrics-eval-v2 -t wmt23 -l en-de --write-mtme out/

subcommands (each has --help):
  docmetrics sweep ...   one metric over a parameter grid (e.g. --grid w=1..10 s=1..w), meta-evaluated
  docmetrics metaeval ... metrics on several language pairs of MTME data, WMT23/WMT24 averages, a plot
  docmetrics rank ...    AutoRank over live (-m) and stored (--scores) metrics, with clusters; human clusters
  docmetrics report ...  a report page (one HTML file) from saved -f json output, without any model
  docmetrics mbr ...     MBR decoding: choose among N candidates per document or segment with any metric
  docmetrics rerank ...  choose among N candidates by a QE metric, or against -r (an oracle)
  docmetrics vat ...     variance-aware test sets (a tool plugin, entry-point group docmetrics.tools)

A new document starts wherever the doc id changes (as `sacrebleu --echo docid` writes them).
Errors exit with status 2 and one message; --debug shows the traceback.
"""


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="docmetrics",
        description="Document-level MT metrics (SLIDE, Doc-COMET, ...) with citable signatures.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g = p.add_argument_group("what to compute")
    g.add_argument("-m", "--metrics", nargs="+", action="extend", default=[], metavar="SPEC",
                   help="metric specs NAME[:key=value,...], preset names, or signatures (-m given again adds "
                        "metrics); NAME@DIST picks "
                        "the plugin of distribution DIST where several register NAME (e.g. slide@my-dist)")
    g.add_argument("--list", action="store_true",
                   help="list metrics, backbones and presets with the distribution of each, then exit")
    g.add_argument("--check-plugins", action="store_true",
                   help="like --list, but import every plugin and report those that fail (exit 1 if any)")
    g.add_argument("--describe", metavar="NAME",
                   help="show a metric's (or backbone's, or preset's) parameters, needs and citation")
    add_input_arguments(p, doc_per_line=True)
    add_model_arguments(p)
    g = p.add_argument_group("output")
    add_output_arguments(g)
    g.add_argument("-b", "--score-only", action="store_true",
                   help="print only the score(s); several systems: SYSTEM<TAB>SCORE per line (a score per -m spec)")
    g.add_argument("--max-truncated", metavar="P", type=number("--max-truncated", float, 0, 1,
                                                               "a share from 0 to 1 (e.g. 0.05)",
                                                               "a share from 0 to 1 (e.g. 0.05 for 5%)"),
                   help="fail (exit 2) where more than this share (0 to 1) of a system's units were cut at the "
                        "model's maximum input length (default: warn whenever any is)")
    g.add_argument("--level", choices=LEVELS, default="system",
                   help="a table (TSV with a header; -f json: nested in each result) of per-document, per-unit "
                        "(chunk) or per-segment (seg: metrics scoring one segment per unit) scores, to -o FILE or "
                        "stdout; the system scores then go to stdout with -o, else to stderr")
    g.add_argument("-o", "--output", metavar="FILE",
                   help="write the output (with --level: the table) to FILE instead of stdout")
    g.add_argument("--dump-alignment", metavar="FILE",
                   help="write the sentence alignments of metrics that align (asd) to FILE: one JSON "
                        "object per system, document and side")
    report_cli.add_argument(g)
    g.add_argument("-V", "--version", action="version", version=f"docmetrics {__version__}")
    significance.add_arguments(p)
    human_cli.add_arguments(p)
    genmt.add_arguments(p)
    spans_cli.add_arguments(p)
    stored_cli.add_arguments(p.add_argument_group(
        "stored scores, judged like metrics (with --human, --genmt, --paired-bs/--paired-ar, --mtme; -m optional)"))
    mtme.add_arguments(p)
    wmt25_cli.add_arguments(p)
    wmt26_cli.add_arguments(p)
    data_cli.add_arguments(p)
    add_cache_arguments(p)
    return p
