"""Plots of meta-evaluations, drawn with matplotlib on the Agg backend (no display; the ``plot`` extra): the
heatmap of a :class:`~docmetrics.judging.Sweep`'s statistic over two grid parameters (:func:`plot_heatmap`, what
``docmetrics sweep --plot`` draws, like Figure 2 of the SLIDE paper) and the bars of the averages and statistics of
several language pairs' meta-evaluations (:func:`plot_main_statistics`, ``docmetrics metaeval --plot``).  Each
returns the (closed) figure; a missing matplotlib is a UserError naming the extra (:func:`pyplot`)."""

from __future__ import annotations

import math
import os
import re
import textwrap
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..values.errors import InputError, UserError
from . import statistics as stats
from .averages import SCHEMES

if TYPE_CHECKING:
    from ..algorithms.grids import Axis
    from .averages import WmtAverage
    from .metaevaluation import MetaEvaluation
    from .sweeps import Point, Sweep

__all__ = ["pyplot", "save", "color_range", "wrap_label", "panels", "plot_main_statistics", "GREY_CELLS",
           "grey_cells", "metric_label", "heatmap_title", "plot_heatmap"]


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (no display); a UserError naming the ``plot`` extra where matplotlib
    is missing (the command line calls it before scoring, so that ``--plot`` fails early)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UserError('drawing a plot (--plot) needs matplotlib: pip install "docmetrics[plot]"') from None
    return plt


def save(fig: Any, path: str, dpi: int = 120) -> None:
    """Write the figure to ``path`` and close it."""
    plt = pyplot()
    try:
        fig.savefig(path, dpi=dpi)
    except OSError as exc:
        raise InputError(f"{path}: the plot cannot be written ({exc.strerror})", params=("path",)) from None
    finally:
        plt.close(fig)


def color_range(values: Sequence[Sequence[float]], scale: tuple[float, float, float]) -> tuple[float, float]:
    """The ends of a heatmap's colour map: the lowest and highest value drawn (so that 0.109 and 0.149 get
    different colours), widened to ``scale``'s (lowest, chance, highest) range where the values all
    equal; the statistic's own range where there is no value."""
    low, chance, high = scale
    drawn = [v for row in values for v in row if not math.isnan(v)]
    if not drawn:
        return low, high
    lo, hi = min(drawn), max(drawn)
    if hi - lo < 1e-12:
        pad = 0.05 * (high - low)
        return lo - pad, hi + pad
    return lo, hi


#: characters per line of a metric's name beside its bars (longer names are wrapped)
LABEL_WIDTH = 24
_BREAK_AFTER = re.compile(r"(?<=[\s,:|/=_-])")


def wrap_label(text: str, width: int = LABEL_WIDTH) -> str:
    """``text`` in lines of at most ``width`` characters, broken after a space or a spec's ``,``, ``:``,
    ``|``, ``/``, ``=``, ``_`` or ``-`` (a piece longer than a line is cut)."""
    lines, line = [], ""
    for piece in _BREAK_AFTER.split(text):
        if line and len(line + piece.rstrip()) > width:
            lines.append(line)
            line = ""
        line += piece
        while len(line.rstrip()) > width:
            lines.append(line[:width])
            line = line[width:]
    lines.append(line)
    return "\n".join(x.rstrip() for x in lines if x.strip())


def value_label(ax: Any, value: float, y: float, text: str) -> Any:
    """``text`` beside the end of a horizontal bar of ``value``, on the side the bar points to."""
    right = value >= 0
    return ax.annotate(text, xy=(value, y), xytext=(3 if right else -3, 0), textcoords="offset points",
                       ha="left" if right else "right", va="center", fontsize=7)


def fit_value_labels(ax: Any, labels: Sequence[Any], lo: float, hi: float) -> None:
    """Widen the x range of ``ax`` from [lo, hi] until every value label (:func:`value_label`) lies
    inside the axes; call it once the layout is final (the labels' widths are in pixels)."""
    renderer = ax.figure.canvas.get_renderer()
    width = ax.get_window_extent(renderer).width
    if not labels or width <= 0:
        ax.set_xlim(lo, hi)
        return
    # (anchor, label width as a share of the axes' width, side): a label's width in data units grows
    # with the range, so the range is found by a few rounds of fixed-point iteration
    spans = []
    for t in labels:
        extent, anchor = t.get_window_extent(renderer), ax.transData.transform(t.xy)[0]
        right = t.get_ha() == "left"
        spans.append((t.xy[0], ((extent.x1 - anchor) if right else (anchor - extent.x0)) / width + 0.01, right))
    a, b = lo, hi
    for _ in range(20):
        r = b - a
        a = min([lo] + [x - f * r for x, f, right in spans if not right])
        b = max([hi] + [x + f * r for x, f, right in spans if right])
    ax.set_xlim(a, b)


def panels(evals: Sequence[MetaEvaluation], averages: Mapping[str, WmtAverage]) -> list[tuple[str, str]]:
    """The panels of :func:`plot_main_statistics`, as ("average", scheme) and ("statistic", name): the
    averages computed, then the main statistics of the registry, then the plugin statistics that have a
    value for a metric on a language pair."""
    shown = stats.names(main=True)
    plugins = [s.name for s in stats.statistics(opt_in=True) if s.compute is not None and s.name not in shown]
    valued = [n for n in plugins if any(mw.get(n) is not None for e in evals for mw in e.metrics.values())]
    return [("average", k) for k in averages] + [("statistic", n) for n in (*shown, *valued)]


def panel_title(kind: str, key: str, averages: Mapping[str, WmtAverage], titles: Mapping[str, str]) -> str:
    """A panel's title: ``WMT24 average``, an average of other statistics by their registry titles, or a
    statistic's registry title (``titles``: overrides by statistic)."""
    if kind == "average" and key in SCHEMES:
        return f"{key.upper()} average"
    if kind == "average":
        return "average of " + ",\n".join(stats.get(n).title for n in averages[key].statistics)
    return titles.get(key) or stats.get(key).title


def plot_main_statistics(
    evals: Sequence[MetaEvaluation],
    averages: dict[str, WmtAverage],
    labels: dict[str, int],
    path: str,
    titles: Mapping[str, str] | None = None,
    title: str = "",
    names: Mapping[str, str] | None = None,
) -> Any:
    """A PNG with one panel per average and per statistic (:func:`panels`; titled by :func:`panel_title`,
    ``titles``: overrides of the registry's titles by statistic): a horizontal bar per metric (one per
    language pair), named beside its bars by ``names[spec]`` (default: the spec as given), its value and
    significance cluster beyond the bar's end; returns the (closed) figure."""
    plt = pyplot()
    metrics = list(labels)
    ticks = [wrap_label((names or {}).get(m, m)) for m in metrics]
    lines = max(t.count("\n") + 1 for t in ticks) if ticks else 1
    shown = panels(evals, averages)
    cols = 4
    rows_n = math.ceil((len(shown) + 1) / cols)
    row_h = max(0.45 * max(1, len(evals)), 0.16 * lines + 0.1)
    height = max(2.2, row_h * len(metrics) + 1.0)
    label_w = 0.07 * max((len(line) for t in ticks for line in t.split("\n")), default=4)
    fig, axes = plt.subplots(rows_n, cols, figsize=((3.4 + label_w) * cols, height * rows_n), squeeze=False)
    colors = plt.get_cmap("tab10").colors
    ranges = []
    for ax, (kind, panel) in zip(axes.flat, shown):
        if kind == "average":
            avg = averages[panel]
            series = [("average", {r.metric: (r.value, r.rank) for r in avg.ranking})]
        else:
            series = []
            for e in evals:
                series.append((e.lp, {m: (e.metrics[m].get(panel), e.cluster_of(m).get(panel)) for m in e.metrics}))
        text, wmt = panel_title(kind, panel, averages, titles or {}), kind == "average" and panel in SCHEMES
        ax.set_title(text if wmt else text.replace(" (", "\n("), fontsize=10 if wmt else 9)
        bar_h = 0.8 / len(series)
        texts = []
        for s_i, (_, vals) in enumerate(series):
            for m_i, m in enumerate(metrics):
                value, rank = vals.get(m, (None, None))
                y = m_i + (s_i - (len(series) - 1) / 2) * bar_h
                if value is None or (isinstance(value, float) and math.isnan(value)):
                    ax.text(0.01, y, "n/a", va="center", fontsize=7, color="grey")
                    continue
                color = "dimgray" if kind == "average" else colors[s_i % len(colors)]
                ax.barh(y, value, height=bar_h * 0.9, color=color)
                texts.append(value_label(ax, value, y, f"{value:.3f}" + (f" ({rank})" if rank is not None else "")))
        ax.set_yticks(range(len(metrics)), labels=ticks)
        ax.set_ylim(len(metrics) - 0.5, -0.5)  # the first metric on top, room for every row
        values = [t.xy[0] for t in texts]
        lo, hi = min([0.0, *values]), max([1.0, *values])
        ax.set_xlim(lo, hi)
        if lo < 0:
            ax.axvline(0, color="black", linewidth=0.6)
        ax.tick_params(labelsize=8)
        ranges.append((ax, texts, lo, hi))
    legend_ax = axes.flat[len(shown)]
    legend_ax.axis("off")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[i % len(colors)]) for i in range(len(evals))]
    legend_ax.text(0, 1, "value (n): n = significance cluster (PERM-BOTH)", va="top", fontsize=8, wrap=True)
    if handles:
        legend_ax.legend(handles, [e.lp for e in evals], loc="lower left", fontsize=8, title="language pair")
    for ax in list(axes.flat)[len(shown) + 1:]:
        ax.axis("off")
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    for ax, texts, lo, hi in ranges:  # after the layout: the labels' room depends on the panels' widths
        fit_value_labels(ax, texts, lo, hi)
    save(fig, path, dpi=110)
    return fig


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


def metric_label(signature: str) -> str:
    """The metric and its model for a title, without local paths: a model directory is named by its
    last component and the fingerprint of its weights; a hub id as it is."""
    from ..values.signature import parse_signature

    parsed = parse_signature(signature)
    model = parsed.get("model", "m")
    if not model:
        return parsed.metric
    fingerprint = parsed.get("fingerprint", "fp")
    if os.path.isabs(model) or model.startswith((".", "~")) or os.path.exists(model):
        model = os.path.basename(os.path.normpath(model)) or model
    return f"{parsed.metric}, model {model}" + (f" (fp {fingerprint})" if fingerprint else "")


def heatmap_title(sweep: Sweep, testset: Any, inputs: str | None = None) -> str:
    """Two lines: the metric (no local path) and the statistic; the systems, pairs and the test set, named by
    ``inputs`` (what the user passed: the command's input options, or an MTME test set and its language pairs;
    default: its files) and counted."""
    done = [p for p in sweep.points if p.metaeval is not None]
    first = done[0].metaeval if done else None
    named = " ".join(dict.fromkeys(testset.names.values())) if inputs is None else inputs
    line1 = f"{metric_label(done[0].signature) if done else '?'}: {stats.get(sweep.stat).title}"
    line2 = (f"{len(first.systems) if first else 0} systems, {first.pairs if first else 0} pairs; test set "
             f"{named} ({len(testset.documents)} documents, {testset.n_segments} segments)")
    return f"{line1}\n{line2}"


def plot_heatmap(done: Sweep, path: str, title: str = "", *, testset: Any = None, inputs: str | None = None) -> Any:
    """A heatmap PNG like the SLIDE paper's Figure 2 (rows: first grid parameter, columns: second),
    its colours scaled to the values drawn (:func:`color_range`; the colour bar says
    so, with the range and chance);
    a cell without a value is grey, hatched by why (:func:`grey_cells`), explained in a legend below;
    ``title``: default, with the ``testset`` scored, :func:`heatmap_title` (``inputs``: what names the test set);
    returns the (closed) figure."""
    import numpy as np
    from matplotlib.patches import Patch, Rectangle

    plt = pyplot()
    title = title or ("" if testset is None else heatmap_title(done, testset, inputs))
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
