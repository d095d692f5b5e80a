"""The ``docmetrics`` command's options: the parser (and its epilog), built from the shared argument groups and its
own (significance, GenMT, error spans, MTME, WMT25)."""

from __future__ import annotations

import argparse

from ..commands.levels import LEVELS
from ..judging import DEFAULT_CI_LEVEL, DEFAULT_N, MAX_N, Submission, human_format
from ..values.versions import __version__
from . import data as data_cli
from . import human as human_cli
from . import report as report_cli
from . import stored as stored_cli
from .args import (
    add_cache_arguments,
    add_input_arguments,
    add_model_arguments,
    add_output_arguments,
    add_resampling_arguments,
    number,
)
from .habits import Parser
from .mtme import add_data_arguments
from .wmt26 import add_release_arguments

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
    g = p.add_argument_group(
        "significance (paired tests: the baseline is --baseline NAME, else the first system) and confidence "
        "intervals")
    x = g.add_mutually_exclusive_group()
    x.add_argument(
        "--paired-bs",
        "-pbs",
        action="store_true",
        help="paired bootstrap resampling of whole documents (score, mean +- 95%% CI, p-value)",
    )
    x.add_argument(
        "--paired-ar",
        "-par",
        action="store_true",
        help="paired approximate randomization, swapping whole documents (score, p-value)",
    )
    g.add_argument(
        "--baseline",
        metavar="NAME",
        help="the system the paired test compares every other with (a -i file as given or shown, or a system "
        "of --genmt / the stored scores); default: the first system",
    )
    add_resampling_arguments(g, ar=True)
    g.add_argument(
        "--ci",
        "--confidence",
        "-ci",
        action="store_true",
        help="a bootstrap confidence interval of every system score, resampling whole documents "
        "(sacrebleu's --confidence); not with a paired test, whose bootstrap gives one",
    )
    g.add_argument(
        "--ci-n",
        "--confidence-n",
        "-cin",
        type=int,
        default=DEFAULT_N["bs"],
        metavar="N",
        help=f"resamples of --ci (default: %(default)s; at most {MAX_N})",
    )
    g.add_argument(
        "--ci-level",
        type=float,
        default=DEFAULT_CI_LEVEL,
        metavar="P",
        help="coverage of --ci, between 0 and 1 (default: %(default)s)",
    )
    human_cli.add_arguments(p)
    g = p.add_argument_group("GenMT data (WMT25/26 JSONL with ESA human scores)")
    g.add_argument("--genmt", metavar="JSONL",
                   help="score the systems of a GenMT file (wmt25-genmt-humeval.jsonl or the plain GenMT JSONL) "
                        "for the language pair -l and meta-evaluate them against its human scores")
    g.add_argument("--domains", nargs="+", metavar="DOMAIN", help="with --genmt: only these domains")
    g.add_argument("--error-free", nargs="?", const="auto", metavar="THRESHOLD",
                   help="with --genmt: also judge each metric as a detector of error-free segments (WMT26 "
                        "subtask 3: gold = no error span and ESA >= 85): error-free where its score >= THRESHOLD "
                        "(default: the threshold with the best MCC on these segments, reported as such)")
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
    stored_cli.add_arguments(p.add_argument_group(
        "stored scores, judged like metrics (with --human, --genmt, --paired-bs/--paired-ar, --mtme; -m optional)"))
    g = p.add_argument_group(
        "WMT meta-evaluation on mt-metrics-eval data (-l gives the language pair, --seed the seed)")
    g.add_argument("--mtme", metavar="ROOT",
                   help="an MTME data directory (ROOT/TESTSET/{sources,documents,references,system-outputs,"
                        "human-scores}): score every MT system of -t TESTSET and -l LP and meta-evaluate "
                        "the metrics at system and segment level (SPA, acc_eq, PERM-BOTH clusters)")
    add_data_arguments(g, single=True)
    g = p.add_argument_group("WMT25 metrics task files (wmt-conference/wmt25-mteval)")
    g.add_argument("--wmt25-tsv", metavar="TSV",
                   help="score the systems of the task's test TSV (doc_id, segment_id, source_lang, target_lang, "
                        "set_id, system_id, source_segment, hypothesis_segment, reference_segment, domain_name, "
                        "method) for the language pair -l (the only one where it holds one)")
    g.add_argument("--wmt25-set", metavar="SET_ID", default=human_format("wmt25-tsv").defaults["set_id"],
                   help="the set_id to score (default: %(default)s, the set the task's scorer keeps; a challenge "
                        "set's name otherwise)")
    g.add_argument("--write-submission", metavar="FILE",
                   help=f"write the metric's segment scores as a submission: the TSV's lines of the pair with a "
                        f"{Submission.SCORE_FIELD!r} column (one metric: one -m, or one stored metric), the signature "
                        f"in FILE{Submission.SIGNATURE_SUFFIX}")
    add_release_arguments(p.add_argument_group("WMT26 General MT release (wmt-conference/wmt26-general-mt)"))
    data_cli.add_arguments(p)
    add_cache_arguments(p)
    return p
