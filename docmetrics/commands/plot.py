"""The one way the command line draws: matplotlib on the Agg backend (no display), a clear error when
matplotlib is missing or the file cannot be written; and the panels of ``docmetrics metaeval --plot``,
read from the averages and the registry of statistics (the heatmap of ``docmetrics sweep --plot`` is
drawn in :mod:`docmetrics.cli.sweep`)."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..judging import SCHEMES
from ..judging import statistics as stats
from ..values.errors import InputError, UserError

if TYPE_CHECKING:
    from ..judging import MetaEvaluation, WmtAverage

__all__ = ["pyplot", "save", "plot_main_statistics", "panels", "wrap_label", "color_range"]


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UserError('--plot needs matplotlib: pip install "docmetrics[plot]"') from None
    return plt


def save(fig: Any, path: str, dpi: int = 120) -> None:
    """Write the figure to ``path`` and close it."""
    plt = pyplot()
    try:
        fig.savefig(path, dpi=dpi)
    except OSError as exc:
        raise InputError(f"--plot {path}: cannot be written ({exc.strerror})") from None
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
