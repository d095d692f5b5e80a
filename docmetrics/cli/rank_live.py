"""The command line's options of :mod:`docmetrics.commands.rank_live`."""

from __future__ import annotations

import argparse

from .args import Once, References, add_cache_arguments, add_model_arguments
from .mtme import RefNames
from .significance import DEFAULT_N, DEFAULT_SEED, parse_seed
from .wmt26 import RANK_HELP, add_release_arguments


def add_arguments(p: argparse.ArgumentParser) -> None:
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
    s.add_argument("--paired-bs-n", "-pbsn", type=int, default=DEFAULT_N["bs"], metavar="N",
                   help="bootstrap resamples (default: %(default)s)")
    s.add_argument("--seed", type=parse_seed, default=DEFAULT_SEED, metavar="INT",
                   help="seed of the resampling (default: %(default)s; 'none': not reproducible)")

