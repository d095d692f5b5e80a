"""``docmetrics rank``: its parser and entry point; what it runs is :mod:`docmetrics.commands.rank`."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Sequence

from ..judging import AUTORANK_PRESETS as PRESETS
from . import data as data_cli
from . import human_clusters, rank_live
from .args import add_output_arguments, typed
from .errors import guarded
from .habits import Parser, parse_args

EPILOG = """\
examples:
  docmetrics rank --scores wmt25-general-mt/data/automatic_scores/*.jsonl -l en-ar_EG --preset wmt25
  docmetrics rank --scores scores.tsv -l en-de -f json
  docmetrics rank --scores mtme/wmt24/metric-scores/en-de/*.seg.score --stored all
  docmetrics rank -m chrf slide:w=1,s=1 -i sys/*.txt -s src.txt -r ref.txt --doc-ids ids.txt -l en-de --paired-bs
  docmetrics rank -m chrf --genmt wmt25-genmt.jsonl -l en-cs_CZ --scores automatic_scores/*.jsonl --paired-bs
  docmetrics rank --genmt wmt24-esa.jsonl -l en-cs --rule wmt25
  docmetrics rank --genmt wmt25-genmt-humeval.jsonl -l en-cs_CZ --scores automatic_scores/*.jsonl

Scores files: WMT25's automatic-scores JSONL (one file per system, SYSTEM.jsonl), MTME's
NAME-REF.{seg,doc,sys}.score, or a TSV with a header system<TAB>doc_id<TAB>METRIC... (one segment per line;
an empty cell or None is a missing score).  Each metric's system score is the mean over its available
segments; AutoRank scales each metric by (x - median) / max(eps, Q100 - Q25), averages them with equal
weights and maps the mean linearly to 1 (best) .. N (worst).  A lower-is-better metric (MetricX unless
stored negated, TER, or --direction NAME=lower) is scaled negated; the table shows its own values.

Live metrics (-m, scored here as docmetrics -m scores them): a metric whose units are segments gets the mean
of its segment scores (chrf: of sentence chrF, not its corpus chrF); one whose units span several segments
(SLIDE windows) its own system score, and a note says so.  --paired-bs (docmetrics' own test; WMT25 defines
none): the documents resampled with replacement (--paired-bs-n, --seed), the same resamples for every system
and metric, AutoRank recomputed in each; a cluster ends between adjacent systems where the upper one ranks
strictly better in more than 1 - 0.05 of the resamples.

Human clusters (--genmt, --human or --mtme): systems sorted by their mean human score and split where the
organisers' tests on segment scores give p < 0.05 (--rule wmt25: the WMT25 findings tables' one-sided
Wilcoxon; wmt25-adjacent: adjacent systems only; wmt24: WMT24's per-domain two-sided Wilcoxon; wmt26: WMT26's
paired or independent t-test, with local marks).  With --scores, each
stored metric's share of the system pairs in different clusters that it orders as the humans do.  With -m on
--genmt or --mtme data, both in one run: AutoRank of the live metrics, then the human clusters of the same
file (--rule) and each live metric's agreement with them (-f json: each AutoRank's "human_clusters").
Errors exit with status 2 and one message; --debug shows the traceback.
"""


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="docmetrics rank", description="AutoRank systems over several stored metrics, as WMT25 does.",
               epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("scores")
    g.add_argument("--scores", nargs="+", action="extend", metavar="FILE",
                   help="stored scores: WMT25 automatic-scores *.jsonl, MTME *.score files or a TSV")
    g.add_argument("-l", "--lp", nargs="+", action="extend", metavar="LP",
                   help="language pairs to rank (en-ar_EG, or en-ar where that names one; commas or spaces "
                        "between several); default: every pair in the files")
    g.add_argument("--stored", nargs="+", action="extend", metavar="NAME",
                   help="the metrics to rank with, by their names in the files, or 'all' (default: all, or the "
                        "preset's)")
    g.add_argument("--preset", choices=sorted(PRESETS),
                   help="a campaign's metric set per language pair: " +
                        "; ".join(f"{k}: {v.description}" for k, v in PRESETS.items()))
    g.add_argument("--direction", nargs="+", action="extend", default=[], metavar="NAME=higher|lower",
                   help="declare a metric's direction where its name does not say it (MetricX: lower unless every "
                        "score is <= 0, as stored negated)")
    human_clusters.add_arguments(p)
    rank_live.add_arguments(p)
    data_cli.add_arguments(p)
    add_output_arguments(p.add_argument_group("output"))
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse_args(parser, list(sys.argv[1:] if argv is None else argv))
    return guarded("docmetrics rank", args.debug, lambda: _run(typed(parser, args)))


def _run(opts: Any) -> int:
    from ..commands.rank import run_rank  # numpy (AutoRank): not for --help

    return run_rank(opts, sys.stdout)
