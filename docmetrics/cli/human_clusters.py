"""The command line's options of :mod:`docmetrics.commands.human_clusters`."""

from __future__ import annotations

import argparse

from ..judging import cluster_rules
from ..plugin import registry


def add_arguments(p: argparse.ArgumentParser) -> None:
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

