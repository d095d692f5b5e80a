"""``docmetrics sweep``: one metric over a parameter grid, meta-evaluated at every point (options,
progress, the table, the JSON report and the heatmap; the work is :mod:`docmetrics.judging.sweeps`)."""

from __future__ import annotations

import json
import math
import os
import shlex
import textwrap
from typing import Any, Sequence, TextIO

from ..judging import Axis, Point, Sweep
from ..values.errors import InputError, UserError
from . import human as human_cli
from . import report as report_cli
from .common import check_output_file, session_scope
from .format import num, units_cut
from .inputs import load_testset
from .messages import note, warn
from .options import Options
from .output import Output, json_text, write
from .plot import color_range, pyplot, save
from .specs import check_specs


def run(opts: Options, out: TextIO) -> int:
    """Check every option, read the test set and the human scores, run :func:`docmetrics.judging.sweep` (the
    progress a note per point), then write -o, --report and --plot and print the table."""
    from ..judging import read_human, sweep

    check_specs([opts.metric])  # the base spec, before any grid point is built or a model loads
    human_cli.check_args(opts)
    if opts.plot and not opts.human:
        raise UserError("--plot draws a meta-evaluation statistic: give --human FILE")
    try:
        planned = Sweep.plan(opts.metric, opts.grid, stat=opts.stat, seg_level=opts.seg_level,
                             doc_level=opts.doc_level, pdp=opts.pdp)
    except InputError as exc:  # the library's parameters as the options that carry them
        if "stat" not in exc.params:
            raise
        raise UserError(str(exc).replace("stat=", "--stat ").replace("seg_level=True", "--seg-level")) from None
    if opts.no_cache and opts.cache is not None:
        raise UserError("give --cache or --no-cache, not both")
    if opts.cache_chunk is not None and opts.cache_chunk < 1:
        raise UserError(f"--cache-chunk must be >= 1, not {opts.cache_chunk}")
    inputs = (*(opts.input or ()), opts.source, opts.reference, opts.doc_ids, opts.human)
    if opts.output:
        check_output_file(opts.output, "-o", inputs)
    if opts.report:
        check_output_file(opts.report, "--report", (*inputs, opts.output))
    if opts.plot:  # all before any scoring: a sweep can run for hours
        check_output_file(opts.plot, "--plot", (*inputs, opts.output))
        pyplot()
        try:
            planned.heatmap()
        except InputError as exc:  # the library's words as the options'
            raise UserError("--plot: " + str(exc).replace("the metric's spec", "-m")) from None
    human = read_human(opts.human, format="human-tsv", column=opts.human_column,
                       lower_is_better=opts.human_lower_better).human if opts.human else None
    testset = load_testset(opts, who="docmetrics sweep")
    human_cli.warn_unmatched(opts, testset, human, who="docmetrics sweep")
    n = len(planned.points)

    def progress(k: int, pt: Point) -> None:
        msg = f"[{k}/{n}] {pt.spec}"
        if pt.skipped:
            msg += f": skipped ({pt.skipped})"
        if pt.cache:
            msg += f": {pt.cache['looked_up']} distinct units, {pt.cache['hits']} from cache"
        if pt.metaeval is not None:
            msg += f"; {opts.stat} {num(pt.metaeval.get(opts.stat), 4)}"
        if pt.truncated.get("units_truncated"):
            msg += f"; {pt.truncated['units_truncated']} of {pt.truncated['units']} units cut"
        note(opts, msg, who="docmetrics sweep")

    # without --cache, a temporary file (not the user's home): points share their units, nothing is kept;
    # one session for every point: one engine, whose workers keep each model they load
    done = sweep(opts.metric, opts.grid, testset, human=human, stat=opts.stat, seg_level=opts.seg_level,
                 doc_level=opts.doc_level, pdp=opts.pdp, exclude=opts.exclude_systems,
                 exclude_humans=opts.no_human_systems, lang=opts.lang,
                 cache=False if opts.no_cache else None if opts.cache is None else opts.cache or True,
                 cache_chunk=opts.cache_chunk, short=opts.short, on_point=progress,
                 session=lambda store: session_scope(opts, cache=store if store is not None else False))
    report = done.to_dict()
    warn_truncation(done.points)
    if opts.output:
        write_report(opts.output, report, kept=opts.cache is not None)
    if opts.report:  # the page holds what -o writes
        report_cli.write(opts, opts.report, json.loads(json.dumps(report)), "docmetrics sweep -o (sweep)",
                         testset=testset, human=human)
    if opts.plot:
        title = heatmap_title(opts.stat, done.points, testset, typed_inputs(opts))
        plot_heatmap(done, opts.plot, title=title)
    heatmap = f"heatmap: {opts.plot}\n" if opts.plot else ""
    decimals = opts.width if opts.width_given else None  # else each metric's own
    write(Output(data=lambda: report, text=lambda: done.to_text(decimals, temporary="(temporary: --cache keeps it)")
                 + heatmap), opts, out)
    return 0


def warn_truncation(points: Sequence[Point]) -> None:
    """One warning naming every grid point whose units were cut at the model's maximum length, and how
    many (over all systems), as the plain command warns for each metric."""
    cut = [p for p in points if not p.skipped and p.truncated.get("units_truncated")]
    if not cut:
        return
    worst = max(cut, key=lambda p: p.truncated["units_truncated"] / max(1, p.truncated["units"]))
    listed = "; ".join(",".join(f"{k}={v}" for k, v in p.params.items()) + ": " + units_cut(
        p.truncated["units_truncated"], p.truncated["units"], p.truncated.get("tokens_cut")) for p in cut)
    done = sum(1 for p in points if not p.skipped)
    warn(f"units were cut at the model's maximum input length at {len(cut)} of {done} grid points ({listed}), "
         f"so their scores miss the end of the input; at {worst.spec}: {worst.truncation_fix}",
         who="docmetrics sweep")


def write_report(path: str, report: dict[str, object], kept: bool = True) -> None:
    """-o JSON; a failure (a full disk) is one message, not a traceback."""
    opened = False
    try:
        with open(path, "w", encoding="utf-8") as f:
            opened = True
            f.write(json_text(report))
    except OSError as exc:
        left = "; what it holds is incomplete" if opened else ""
        again = ("The scores are in the score cache: fix that, then run the same command again" if kept else
                 "Fix that, then run the same command again (with --cache, a rerun takes the scores from the cache)")
        raise UserError(f"-o {path}: cannot write the file ({exc.strerror}){left}. {again}") from None


def metric_label(signature: str) -> str:
    """The metric and its model for a title, without local paths: a model directory is named by its
    last component and the fingerprint of its weights; a hub id as it is."""
    from ..api import parse_signature

    parsed = parse_signature(signature)
    model = parsed.get("model", "m")
    if not model:
        return parsed.metric
    fingerprint = parsed.get("fingerprint", "fp")
    if os.path.isabs(model) or model.startswith((".", "~")) or os.path.exists(model):
        model = os.path.basename(os.path.normpath(model)) or model
    return f"{parsed.metric}, model {model}" + (f" (fp {fingerprint})" if fingerprint else "")


def typed_inputs(opts: Options, most: int = 4) -> str:
    """The input options as the user typed them (``-i hyp.txt hypB.txt -s src.txt -r ref.txt``), the
    test set's name in a title; past ``most`` system files, the first ones and their number."""
    q = shlex.quote
    hyps = [q(h) for h in opts.input or ()]
    words = ["-i", *(hyps if len(hyps) <= most else [*hyps[:most - 1], "...", f"({len(hyps)} files)"])]
    if opts.source:
        words += ["-s", q(opts.source)]
    references = getattr(opts, "references", None) or ([opts.reference] if opts.reference else [])
    if references:
        words += ["-r", *map(q, references)]
    if opts.doc_ids:
        words += ["--doc-ids", q(opts.doc_ids)]
    if opts.jsonl:
        words.append("--jsonl")
    if opts.lang:
        words += ["-l", q(opts.lang)]
    return " ".join(words)


def heatmap_title(stat: str, points: Sequence[Point], testset: Any, inputs: str) -> str:
    """Two lines: the metric (no local path) and the statistic; the systems, pairs and the test set,
    named by ``inputs`` (what the user passed: :func:`typed_inputs`, or an MTME test set and its
    language pairs) and counted."""
    done = [p for p in points if p.metaeval is not None]
    first = done[0].metaeval if done else None
    what = {"accuracy": "pairwise accuracy", "spa": "soft pairwise accuracy (SPA)"}.get(stat, stat)
    line1 = f"{metric_label(done[0].signature) if done else '?'}: {what}"
    line2 = (f"{len(first.systems) if first else 0} systems, {first.pairs if first else 0} pairs; test set "
             f"{inputs} ({len(testset.documents)} documents, {testset.n_segments} segments)")
    return f"{line1}\n{line2}"


#: how a cell with no value is drawn, by why it has none: (hatch, what the legend says)
GREY_CELLS = {"absent": ("", "not a grid point"), "skipped": ("xx", "skipped: the metric refused the point"),
              "undefined": ("//", "undefined at the point (see the table)")}


def grey_cells(
    points: Sequence[Point], axes: Sequence[Axis], stat: str, rows: Sequence[str], cols: Sequence[str],
    values: Sequence[Sequence[float]],
) -> dict[str, tuple[str, list[tuple[int, int]]]]:
    """Why each cell of the heatmap without a value has none: ``{kind: (legend text, [(row, column),
    ...])}``, kinds as in :data:`GREY_CELLS`: no point there (a range that ends at an earlier
    parameter, as ``s=1..w``), a point the metric refused (its reason), or ``stat`` undefined there."""
    rk, ck = axes[0].name, axes[1].name if len(axes) > 1 else None
    by_cell = {(p.params[rk], p.params[ck] if ck else stat): p for p in points}
    found: dict[str, tuple[str, list[tuple[int, int]]]] = {}
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            if not math.isnan(values[i][j]):
                continue
            p = by_cell.get((r, c))
            kind = "absent" if p is None else "skipped" if p.skipped else "undefined"
            if kind not in found:
                found[kind] = (_grey_text(kind, p, axes, stat), [])
            found[kind][1].append((i, j))
    return {k: found[k] for k in GREY_CELLS if k in found}


def _grey_text(kind: str, point: Point | None, axes: Sequence[Axis], stat: str) -> str:
    text = GREY_CELLS[kind][1]
    if kind == "absent" and len(axes) > 1 and axes[1].values is None:
        # only a range of the column parameter that ends at the row parameter leaves a hole
        col, row = axes[1], axes[0].name
        holes = [f"{col.name} {op} {row}" for end, op in ((col.lo, "<"), (col.hi, ">")) if end == row]
        return f"{text}: {' or '.join(holes) or 'outside'} (--grid {col.name}={col.lo}..{col.hi})"
    if kind == "skipped" and point is not None:
        where = ", ".join(f"{k}={v}" for k, v in point.params.items())
        reason = " ".join(str(point.skipped).split())
        return f"{text}, e.g. {where}: {reason[:150] + '...' if len(reason) > 150 else reason}"
    return f"{stat} {text}" if kind == "undefined" else text


def plot_heatmap(done: Sweep, path: str, title: str = "") -> Any:
    """A heatmap PNG like the SLIDE paper's Figure 2 (rows: first grid parameter, columns: second),
    its colours scaled to the values drawn (:func:`~docmetrics.cli.plot.color_range`; the colour bar says
    so, with the range and chance);
    a cell without a value is grey, hatched by why (:func:`grey_cells`), explained in a legend below;
    returns the (closed) figure."""
    import numpy as np
    from matplotlib.patches import Patch, Rectangle

    plt = pyplot()
    points, axes, stat = done.points, done.axes, done.stat
    rows, cols, values = done.heatmap()
    low, chance, high = done.scale
    data = np.ma.masked_invalid(np.array(values, dtype=float))
    grey = grey_cells(points, axes, stat, rows, cols, values)
    width = max(5.5, 1.5 + 0.7 * len(cols))
    chars = int(width * 72 / 4.6) - 6  # characters of a 7-8 pt line across the figure
    notes = [textwrap.fill(text, chars, break_on_hyphens=False) for text, _ in grey.values()]
    legend_h = sum(0.14 * (n.count("\n") + 1) + 0.08 for n in notes) + (0.15 if notes else 0.0)
    fig, ax = plt.subplots(figsize=(width, 1.8 + 0.55 * len(rows) + legend_h))
    cmap = plt.get_cmap("RdBu").with_extremes(bad="0.85")  # no value there: grey, not the white of chance
    vmin, vmax = color_range(values, (low, chance, high))
    im = ax.imshow(data, cmap=cmap, vmin=vmin, vmax=vmax, origin="upper", aspect="auto")
    for kind, (_, cells) in grey.items():
        hatch = GREY_CELLS[kind][0]
        for i, j in cells if hatch else ():
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="none", edgecolor="0.6", hatch=hatch,
                                   linewidth=0))
    ax.set_xticks(range(len(cols)), labels=cols)
    ax.set_yticks(range(len(rows)), labels=rows)
    ax.set_xlabel(axes[1].name if len(axes) > 1 else "")
    ax.set_ylabel(axes[0].name)
    for i in range(len(rows)):
        for j in range(len(cols)):
            v = values[i][j]
            if not math.isnan(v):  # white on the dark ends of the scale
                dark = abs(v - (vmin + vmax) / 2) > 0.3 * (vmax - vmin)
                ax.text(j, i, f"{v:.3f}", ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")
    fig.colorbar(im, ax=ax, label=f"{stat} (chance: {chance:g})\ncolours scaled to the data: {vmin:.3f} to {vmax:.3f}")
    if title:
        lines = (textwrap.fill(line, chars - 8, break_on_hyphens=False) for line in title.split("\n"))
        ax.set_title("\n".join(lines), fontsize=8)
    if notes:
        handles = [Patch(facecolor="0.85", edgecolor="0.6", hatch=GREY_CELLS[k][0]) for k in grey]
        fig.legend(handles, notes, loc="lower left", fontsize=7, frameon=False, title="grey cells",
                   title_fontsize=7)
    fig.tight_layout(rect=(0, legend_h / fig.get_figheight(), 1, 1))
    save(fig, path)
    return fig
