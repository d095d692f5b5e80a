"""``docmetrics rank``: its parser and entry point; what it runs (AutoRank over stored or live metrics, human
clusters) is :mod:`docmetrics.commands.rank`."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Sequence

from ..judging import AUTORANK_PRESETS as PRESETS
from ..judging import cluster_rules
from ..plugin import registry
from . import data as data_cli
from .args import (
    Once,
    References,
    add_cache_arguments,
    add_model_arguments,
    add_output_arguments,
    add_resampling_arguments,
    typed,
)
from .errors import guarded
from .habits import Parser, parse_args
from .mtme import RefNames
from .wmt26 import RANK_HELP, add_release_arguments

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
    g = p.add_argument_group("human clusters (without -m: instead of AutoRank, --scores then gives the metrics to "
                             "compare; with -m on --genmt or --mtme: after AutoRank, from the test set's own human "
                             "scores, with the live metrics' agreement)")
    g.add_argument("--genmt", metavar="JSONL", help="the human ranking of a GenMT humeval file (ESA per segment); "
                                                    "with -m, the test set the metrics score for AutoRank (an alias "
                                                    "of --data JSONL --data-format genmt)")
    g.add_argument("--human", metavar="TSV", help="the human ranking of a --human file with segment scores "
                                                  "(system, doc_id, seg_id, score; an alias of --data TSV "
                                                  "--data-format human-tsv)")
    g.add_argument("--human-column", metavar="NAME", help="with --human: the score column")
    g.add_argument("--lower-is-better", action="store_true", help="with --human: lower scores are better (MQM "
                                                                  "penalties; read negated)")
    g.add_argument("--mtme", metavar="ROOT", help="the human ranking of an MTME directory's segment-level human "
                                                  "scores (with -t TESTSET and -l LP); with -m, the test set the "
                                                  "metrics score for AutoRank (an alias of --data ROOT --data-format "
                                                  "mtme)")
    g.add_argument("-t", "--testset", metavar="NAME", help="with --mtme: the test set (wmt24, ...)")
    g.add_argument("--gold", metavar="NAME", help="with --mtme: which human scores (default: the standard ones)")
    own = cluster_rules(plugins=False)  # a plugin's rule: its name from metadata, not imported for --help
    g.add_argument("--rule", choices=list(dict.fromkeys([r.name for r in own] + registry.names("cluster_rule"))),
                   default=None, help="how clusters are drawn (default wmt25): "
                                      + "; ".join(f"{r.name}: {r.definition}" for r in own))
    g = p.add_argument_group("live metrics (AutoRank over metrics scored here, beside any --scores; the test set "
                             "from -i/-s/-r/--doc-ids, --genmt FILE -l LP, --mtme ROOT -t TS -l LP or --wmt26 FILE "
                             "--wmt26-systems DIR)")
    g.add_argument("-m", "--metrics", nargs="+", action="extend", default=[], metavar="SPEC",
                   help="metric specs, as docmetrics -m takes them")
    g.add_argument("-i", "--input", nargs="+", action="extend", metavar="HYP",
                   help="system output, one file per system, as docmetrics -i reads them")
    g.add_argument("-s", "--source", metavar="FILE", action=Once, help="source sentences, line-parallel")
    g.add_argument("-r", "--reference", nargs="+", action=References, dest="references", metavar="FILE",
                   help="reference translations, line-parallel")
    p.set_defaults(reference=None)
    g.add_argument("--doc-ids", metavar="FILE", action=Once,
                   help="document id of each line; a new document starts where the id changes")
    g.add_argument("--jsonl", action="store_true", help="read -i files as JSONL (doc_id, src, mt, ref)")
    add_release_arguments(g, RANK_HELP)
    g.add_argument("--ref", metavar="REF[,REF...]", action=RefNames,
                   help="with --mtme: the reference(s) to score against, as docmetrics --mtme takes them")
    add_model_arguments(p)
    add_cache_arguments(p)
    s = p.add_argument_group("clusters of AutoRank (docmetrics' own test; WMT25 defines none)")
    s.add_argument("--paired-bs", "-pbs", action="store_true",
                   help="clusters by a paired bootstrap over documents: the same resamples for every system and "
                        "metric, each metric's system means and AutoRank recomputed per resample; a boundary "
                        "between adjacent systems where the upper one ranks strictly better in more than 95%% of "
                        "the resamples")
    add_resampling_arguments(s)
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
