"""``docmetrics metaeval``: metrics meta-evaluated on several language pairs of mt-metrics-eval (MTME)
data, with the WMT23 and WMT24 averages (and ``--average``: any statistics of the registry) and a plot
(options, the tables and the report; the data options and the table of a language pair are those of
``--mtme``, :mod:`docmetrics.cli.mtme`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Sequence, TextIO

from ..judging import SCHEMES, column, metric_labels, plot_main_statistics, pyplot
from ..values.errors import InputError, UserError
from . import report as report_cli
from . import stored as stored_cli
from .common import check_output_file
from .mtme import check_common, score
from .options import Options
from .output import Output, decimals, write
from .specs import language_pairs

if TYPE_CHECKING:
    from ..judging import MtmeRun, WmtAverage

__all__ = ["run_metaeval"]


def _parse_average(opts: Options) -> tuple[str, ...]:
    """The statistics of --average, by their registry names (an unknown name: the names there are)."""
    from .. import judging

    given = [x.strip() for x in opts.average.split(",")]
    if any(not x for x in given):
        raise UserError(f"--average {opts.average}: statistics separated by commas, e.g. pearson,seg_acc_eq")
    try:
        return judging.average_statistics(given, pdp=bool(opts.pdp), document=bool(opts.doc_level))
    except InputError as exc:
        raise UserError(f"--average {opts.average}: {exc}") from None


def run_metaeval(opts: Options, out: TextIO) -> int:
    from .. import judging  # numpy and the statistics: not for --help

    who = "docmetrics metaeval"
    if not opts.metrics and not stored_cli.requested(opts):
        raise UserError("give metrics with -m/--metrics SPEC..., or stored ones with --stored NAME...|all (the MTME "
                        "directory's metric-scores) or --scores FILE...")
    stored_cli.check_args(opts)
    lps = language_pairs([opts.lps], spaces=False)
    custom = _parse_average(opts) if opts.average else None
    if opts.plot:
        check_output_file(opts.plot, "--plot")
        if not opts.plot.lower().endswith(".png"):
            raise UserError(f"--plot {opts.plot}: give a .png file")
        pyplot()
    if opts.report:
        check_output_file(opts.report, "--report", (opts.plot,))
    opts = check_common(opts)
    # compared between metrics in every language pair: the average's clusters
    opts, runs = score(opts, lps, None, who, compare_also=custom or ())
    evals = [r.evaluation for r in runs if r.evaluation is not None]
    schemes: list[str | tuple[str, ...]] = [*reversed(SCHEMES), *([custom] if custom else [])]
    averages = ({avg.scheme: avg for avg in (judging.wmt_average(evals, scheme) for scheme in schemes)} if evals
                else {})
    labels = {spec: k + 1 for k, spec in enumerate(opts.metrics)}
    if opts.plot:
        plot_main_statistics(evals, averages, labels, opts.plot, title=f"{opts.testset}: {', '.join(lps)}",
                             names={spec: column(label, labels[spec])
                                    for spec, label in zip(opts.metrics, metric_labels(opts.metrics))})
    report = {
        "testset": opts.testset,
        "root": opts.mtme,
        "lps": [judging.mtme_run_dict(r, short=opts.short) for r in runs],
        "averages": {k: v.to_dict() for k, v in averages.items()},
        "plot": opts.plot,
    }
    if opts.report:  # the page holds what -f json prints
        report_cli.write(opts, opts.report, json.loads(json.dumps(report)),
                         f"docmetrics metaeval -f json ({opts.testset})")
    write(Output(data=lambda: report, text=lambda: _text(runs, averages, labels, opts)), opts, out)
    return 0


def _text(runs: Sequence[MtmeRun], averages: dict[str, WmtAverage], labels: dict[str, int],
          opts: Options) -> str:
    """Each language pair's tables (how they are computed under the first), the averages, the plot."""
    from .. import judging

    text = "\n".join(judging.mtme_run_text(r, decimals(opts), rank_by=opts.rank_by or "spa",
                                           explain=k == 0, short=opts.short) for k, r in enumerate(runs))
    text += "".join("\n" + avg.to_text(opts.width, labels) for avg in averages.values())
    return text + (f"\nplot: {opts.plot}\n" if opts.plot else "")
