"""The command line's options of :mod:`docmetrics.commands.mtme`."""

from __future__ import annotations

import argparse
from typing import Any

from ..judging import DEFAULT_RESAMPLES, MAIN_STATISTICS


# -- options ----------------------------------------------------------------------------------------------
class RefNames(argparse.Action):
    """``--ref refA,refB`` (names separated by commas), repeatable: every name is kept, in order (a
    repeated --ref adds, as a repeated -r does)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), *str(values).split(",")])


def add_data_arguments(g: argparse._ArgumentGroup, *, single: bool) -> None:
    g.add_argument("-t", "--testset", metavar="TESTSET",
                   help="the test set: a folder of ROOT (e.g. wmt23, wmt21.tedtalks)")
    g.add_argument("--ref", metavar="REF[,REF...]", action=RefNames,
                   help="the reference to score against (default: MTME's standard one for the test set, else "
                        "the only one), or several (--ref refA,refB; bleu, chrf, ter score against all of them as "
                        "sacrebleu does, a metric that takes one refuses); a reference in use is never scored "
                        "as a system")
    g.add_argument("--human-name", metavar="NAME",
                   help="the human scores human-scores/LP.NAME.LEVEL.score (default: the standard ones, e.g. mqm)")
    if single:
        g.add_argument("--systems", nargs="+", metavar="SYS",
                       help="score only these systems (default: every MT system)")
    g.add_argument("--include-human", action="store_true",
                   help="also score the human translations (systems named like a reference), as MTME's "
                        "include_human; the reference in use is always left out (with --genmt: the reference "
                        "refA, judged as a system there, scored by reference-free metrics)")
    g.add_argument("--include-outliers", action="store_true",
                   help="also score the systems MTME marks as outliers (e.g. wmt24 MSLC)")
    g.add_argument("--write-mtme", metavar="OUT",
                   help="write the metric scores as OUT/TESTSET/metric-scores/LP/NAME-REF.{sys,doc,seg}.score")
    g.add_argument("--metric-name", nargs="+", metavar="NAME",
                   help="NAME of the score files, one per -m (default: the short signature made file-safe)")
    g.add_argument("--resamples", type=int, metavar="N",
                   help=f"PERM-BOTH resamples between metrics, the significance clusters of --mtme, --human and "
                        f"--genmt (default: {DEFAULT_RESAMPLES}; 0: no tests)")
    g.add_argument("--metric-test", choices=("perm-both", "williams"),
                   help="the test between metrics: perm-both (default: PERM-BOTH on every statistic) or williams "
                        "(Williams' test of two dependent correlations for system- and segment-level Pearson, as "
                        "WMT17-20; PERM-BOTH for the others)")
    g.add_argument("--stat", metavar="NAME[,NAME...]", action=RefNames, dest="statistics",
                   help="also compute these statistics of the registry and compare them between metrics (the opt-in "
                        "ones of mt-metrics-eval: kendall_c, seg_kendall_c, seg_kendall_23, seg_kendall_like, "
                        "seg_pearson_micro; docs/stats.md); repeatable")
    g.add_argument("--rank-by", choices=MAIN_STATISTICS,
                   help="the statistic the table is sorted by (default: spa)")

