"""``docmetrics metaeval``: metrics meta-evaluated on several language pairs of mt-metrics-eval (MTME)
data, with the WMT23 and WMT24 averages (and ``--average``: any statistics of the registry) and a plot
(options, the tables and the report; the data options and the table of a language pair are those of
``--mtme``, :mod:`docmetrics.cli.mtme`)."""

from __future__ import annotations

import argparse
import json
import os
from typing import Sequence, TextIO

from ..evaluation import statistics as stats
from ..evaluation.averages import SCHEMES, WmtAverage, task_set, wmt_average
from ..evaluation.mtme_run import MtmeRun
from ..values.errors import InputError, UserError
from . import report as report_cli
from . import stored as stored_cli
from .common import check_output_file
from .format import columns, namer, num, table
from .mtme import check_common, lp_dict, lp_text, score
from .output import Output, write
from .plot import plot_main_statistics, pyplot

__all__ = ["run_metaeval", "format_average"]

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


def _parse_average(args: argparse.Namespace) -> tuple[str, ...]:
    """The statistics of --average, by their registry names (an unknown name: the names there are)."""
    text = args.average
    given = [x.strip() for x in text.split(",")]
    if any(not x for x in given):
        raise UserError(f"--average {text}: statistics separated by commas, e.g. pearson,seg_acc_eq")
    try:
        chosen = task_set(given)
    except InputError as exc:
        raise UserError(f"--average {text}: {exc}") from None
    for name in chosen:
        s = stats.get(name)
        if s.needs == "pdp" and not (args.pdp or args.doc_level):
            raise UserError(f"--average {text}: {name} ({s.title}) needs --pdp or --doc-level")
        if s.needs == "document" and not args.doc_level:
            raise UserError(f"--average {text}: {name} ({s.title}) needs --doc-level")
    return chosen


def _check_plot(path: str) -> None:
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UserError(f"--plot {path}: no such directory {parent}")
    if not path.lower().endswith(".png"):
        raise UserError(f"--plot {path}: give a .png file")
    pyplot()


def run_metaeval(args: argparse.Namespace, out: TextIO) -> int:
    who = "docmetrics metaeval"
    if not args.metrics and not stored_cli.requested(args):
        raise UserError("give metrics with -m/--metrics SPEC..., or stored ones with --stored NAME...|all (the MTME "
                        "directory's metric-scores) or --scores FILE...")
    args.metrics = list(args.metrics or [])
    stored_cli.check_args(args)
    lps = _parse_lps(args.lps)
    custom = _parse_average(args) if args.average else None
    if args.plot:
        _check_plot(args.plot)
    if args.report:
        check_output_file(args.report, "--report", (args.plot,))
    check_common(args, lps)
    # compared between metrics in every language pair: the average's clusters
    runs = score(args, lps, None, who, compare_also=custom or ())
    evals = [r.evaluation for r in runs if r.evaluation is not None]
    schemes: list[str | tuple[str, ...]] = [*reversed(SCHEMES), *([custom] if custom else [])]
    averages = {avg.scheme: avg for avg in (wmt_average(evals, scheme) for scheme in schemes)} if evals else {}
    labels = {spec: k + 1 for k, spec in enumerate(args.metrics)}
    if args.plot:
        plot_main_statistics(evals, averages, labels, args.plot, title=f"{args.testset}: {', '.join(lps)}",
                             names=columns(args.metrics))
    report = {
        "testset": args.testset,
        "root": args.mtme,
        "lps": [lp_dict(r, args) for r in runs],
        "averages": {k: v.to_dict() for k, v in averages.items()},
        "plot": args.plot,
    }
    if args.report:  # the page holds what -f json prints
        report_cli.write_for_metaeval(args, json.loads(json.dumps(report)))
    write(Output(data=lambda: report, text=lambda: metaeval_text(runs, averages, labels, args)), args, out)
    return 0


def metaeval_text(runs: Sequence[MtmeRun], averages: dict[str, WmtAverage], labels: dict[str, int],
                  args: argparse.Namespace) -> str:
    """Each language pair's tables (how they are computed under the first), the averages, the plot."""
    text = "\n".join(lp_text(r, args, labels, explain=k == 0) for k, r in enumerate(runs))
    text += "".join("\n" + format_average(avg, args.width, labels) for avg in averages.values())
    return text + (f"\nplot: {args.plot}\n" if args.plot else "")


#: the titles of the WMT schemes' averages (another average is titled by its statistics' registry titles)
AVERAGE_TITLES = {
    "wmt24": "WMT24 average: SPA and acc_eq of every language pair, equal weights",
    "wmt23": "WMT23 average: pairwise accuracy pooled over the language pairs (weight: their number), then "
             "Pearson, seg-Pearson and acc_eq of every language pair (weight 1 each)",
}


def average_title(avg: WmtAverage) -> str:
    """What an average is of, in words: the WMT scheme's title, or the registry's titles of its statistics."""
    if avg.scheme in AVERAGE_TITLES:
        return AVERAGE_TITLES[avg.scheme]
    titles = [stats.get(n).title for n in avg.statistics]
    return f"Average of {'; '.join(titles)} of every language pair, equal weights"


def format_average(avg: WmtAverage, width: int = 4, labels: dict[str, int] | None = None) -> str:
    """The overall ranking: cluster, metric, the average and every task's value."""
    name = namer(labels or {})
    headers = ["Rank", "Metric", "average"] + [t.name for t in avg.tasks]
    rows = []
    for r in avg.ranking:
        values = [num(tv.get(r.metric), width) if tv.get(r.metric) is not None else "-" for tv in avg.task_values]
        rows.append([str(r.rank) if r.rank is not None else "-", name(r.metric),
                     num(r.value, width)] + values)
    text = f"{average_title(avg)}\n" + table(headers, rows, align="rl" + "r" * (len(headers) - 2))
    notes = [f"weights: {', '.join(f'{t.name} {t.weight:.3g}' for t in avg.tasks)}; statistics mapped to [0, 1] "
             "from their range (correlations from [-1, 1])."]
    if avg.note:
        notes.append(f"Rank: none ({avg.note}).")
    else:
        notes.append(f"Rank: significance cluster on the average (PERM-BOTH, {avg.n_resamples} resamples, "
                     f"seed {avg.seed}, alpha {avg.alpha}).")
    for m, why in avg.excluded.items():
        notes.append(f"{name(m)} not averaged: {why}")
    return text + "\n".join(notes) + "\n"


def _parse_lps(text: str) -> list[str]:
    lps = [x.strip() for x in text.split(",")]
    if any(not x for x in lps):
        raise UserError(f"-l {text}: language pairs separated by commas, e.g. en-de,zh-en")
    dup = sorted({x for x in lps if lps.count(x) > 1})
    if dup:
        raise UserError(f"-l {text}: {', '.join(dup)} given twice")
    return lps
