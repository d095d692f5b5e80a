"""``docmetrics sweep``: score one metric over a grid of parameters and meta-evaluate every point.

::

    docmetrics sweep -m slide:model=/models/cometkiwi --grid w=1..10 s=1..w \\
        -i sys/*.txt -s src.txt --doc-ids ids.txt --human seg_scores.tsv --human-column mqm_score \\
        --plot heatmap.png -o sweep.json

The grid: one ``KEY=VALUES`` per parameter, outermost first.  ``VALUES`` is a range ``A..B``
(integers, both ends included; an end may name a parameter given before it, as in ``s=1..w``) or a
comma-separated list (``partial=drop,keep,weighted``).  A point the metric rejects (e.g. s > w) is
skipped and reported.

Every point is a separate metric built from the base spec plus the point's parameters; they share
one loaded backbone, and the persistent score cache (:mod:`docmetrics.runtime.cache`, on by default here)
means a unit scored for one point (a SLIDE chunk appears at many (w, s)) is not scored again for
another, and that an interrupted sweep, run again, takes what was already scored from the cache.

With ``--human``, each point is meta-evaluated (:mod:`docmetrics.evaluation.metaeval`): a table, JSON, and with
``--plot`` a heatmap of one statistic over two grid parameters (rows: the first, columns: the
second), like Figure 2 of the SLIDE paper (window x stride, pairwise accuracy).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence, TextIO

from ..values.errors import InputError, SpecError, UserError
from ..values.versions import __version__

_RANGE = re.compile(r"^\s*([A-Za-z_][\w\-]*|-?\d+)\s*\.\.\s*([A-Za-z_][\w\-]*|-?\d+)\s*$")
STAT_CHOICES = ("accuracy", "pearson", "spearman", "kendall", "seg-kendall")


@dataclass
class Axis:
    """One grid parameter: a name and either a list of values or a range whose ends may refer to
    earlier parameters."""

    name: str
    values: list[str] | None = None
    lo: str | None = None
    hi: str | None = None

    def expand(self, point: dict[str, str]) -> list[str]:
        if self.values is not None:
            return list(self.values)
        lo, hi = self._end(self.lo, point), self._end(self.hi, point)
        return [str(v) for v in range(lo, hi + 1)]

    def _end(self, text: str | None, point: dict[str, str]) -> int:
        assert text is not None
        if re.fullmatch(r"-?\d+", text):
            return int(text)
        if text not in point:
            raise SpecError(
                f"--grid {self.name}={self.lo}..{self.hi}: '{text}' is not a parameter given "
                "before it in --grid (write e.g. --grid w=1..10 s=1..w)"
            )
        value = point[text]
        if not re.fullmatch(r"-?\d+", value):
            raise SpecError(f"--grid {self.name}: '{text}' has the value {value!r}, not an integer")
        return int(value)


def parse_grid(items: Sequence[str]) -> list[Axis]:
    """``["w=1..10", "s=1..w", "partial=drop,keep"]`` -> axes."""
    axes: list[Axis] = []
    for item in items:
        if "=" not in item:
            raise SpecError(f"--grid {item!r}: write KEY=A..B or KEY=v1,v2,... (e.g. w=1..10 s=1..w)")
        name, _, text = item.partition("=")
        name = name.strip()
        if not name or any(a.name == name for a in axes):
            raise SpecError(
                f"--grid {item!r}: " + ("no parameter name" if not name else f"'{name}' is given twice")
            )
        m = _RANGE.match(text)
        if m:
            axes.append(Axis(name, lo=m.group(1), hi=m.group(2)))
        else:
            values = [v.strip() for v in text.split(",")]
            if not all(values):
                raise SpecError(f"--grid {item!r}: an empty value")
            axes.append(Axis(name, values=values))
    if not axes:
        raise SpecError("--grid: give at least one KEY=VALUES")
    return axes


def expand_grid(axes: Sequence[Axis]) -> list[dict[str, str]]:
    """Every point of the grid, the first axis outermost."""
    points: list[dict[str, str]] = [{}]
    for axis in axes:
        points = [dict(p, **{axis.name: v}) for p in points for v in axis.expand(p)]
    return points


def point_spec(base: str, point: dict[str, str]) -> str:
    """The base spec with the point's parameters (they override the base's)."""
    from ..values.signature import escape
    from ..values.spec import parse_spec

    if "|" in base:
        raise SpecError("sweep -m: give a spec (NAME:key=value,...) or a preset, not a signature")
    spec = parse_spec(base)
    params = dict(spec.params)
    params.update(point)
    if not params:
        return spec.name
    return spec.name + ":" + ",".join(f"{k}={escape(str(v))}" for k, v in params.items())


@dataclass
class Point:
    params: dict[str, str]
    spec: str
    signature: str = ""
    scores: dict[str, float] = field(default_factory=dict)
    coverage: dict[str, Any] = field(default_factory=dict)
    cache: dict[str, int] = field(default_factory=dict)
    metaeval: Any = None
    skipped: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"params": self.params, "spec": self.spec}
        if self.skipped:
            d["skipped"] = self.skipped
            return d
        d.update(
            {
                "signature": self.signature,
                "scores": self.scores,
                "coverage": self.coverage,
                "cache": self.cache,
            }
        )
        if self.metaeval is not None:
            d["metaeval"] = self.metaeval.to_dict()
        return d


def build_parser() -> argparse.ArgumentParser:
    from ..cli import metaeval as metaeval_cli
    from ..cli.main import add_input_arguments, add_model_arguments

    p = argparse.ArgumentParser(
        prog="docmetrics sweep",
        description="Score one metric over a parameter grid and meta-evaluate every point.",
        epilog="example:\n  docmetrics sweep -m slide:model=/models/kiwi --grid w=1..10 s=1..w -i sys/*.txt "
        "-s src.txt --doc-ids ids.txt --human seg_scores.tsv --human-column mqm_score --plot fig2.png",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "-m",
        "--metric",
        required=True,
        metavar="SPEC",
        help="the base spec (NAME[:key=value,...] or a preset); grid parameters override it",
    )
    p.add_argument(
        "--grid",
        nargs="+",
        required=True,
        metavar="KEY=VALUES",
        help="KEY=A..B (integers; an end may name an earlier key) or KEY=v1,v2,...",
    )
    add_input_arguments(p, required=True)
    g = add_model_arguments(p)
    g = p.add_argument_group("cache (on by default in a sweep)")
    g.add_argument(
        "--cache", metavar="PATH", help="score cache file (default: $DOCMETRICS_CACHE/scores.sqlite)"
    )
    g.add_argument("--no-cache", action="store_true", help="score every point from scratch")
    g.add_argument(
        "--cache-chunk",
        type=int,
        default=None,
        metavar="N",
        help="units scored and committed to the cache at a time (default: 256); an interrupted "
        "run loses at most one chunk",
    )
    metaeval_cli.add_arguments(p)
    g = p.add_argument_group("output")
    g.add_argument(
        "--stat",
        choices=STAT_CHOICES,
        default="accuracy",
        help="the statistic of the heatmap (default: accuracy = pairwise system accuracy)",
    )
    g.add_argument("--plot", metavar="PNG", help="heatmap of --stat over the first two grid parameters")
    g.add_argument(
        "-o", "--output", metavar="JSON", help="also write every point (scores, meta-evaluation) as JSON"
    )
    g.add_argument("-f", "--format", choices=("text", "json"), default="text")
    g.add_argument("-sh", "--short", action="store_true", help="short signatures")
    g.add_argument("-w", "--width", type=int, default=4, metavar="N")
    g.add_argument("-q", "--quiet", action="store_true")
    g.add_argument("--debug", action="store_true")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from ..cli.main import _setup_warnings

    _setup_warnings(args.debug)
    try:
        return run(args, sys.stdout)
    except UserError as exc:
        if args.debug:
            raise
        print(f"docmetrics sweep: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(
            "docmetrics sweep: interrupted (what was scored is in the cache: run again to resume)",
            file=sys.stderr,
        )
        return 130


def _note(args: argparse.Namespace, text: str) -> None:
    if not args.quiet:
        print(f"docmetrics sweep: {text}", file=sys.stderr)


def load_testset(args: argparse.Namespace) -> Any:
    from ..values import io
    if args.jsonl or all(io.is_jsonl(p) for p in args.input):
        if args.source or args.reference or args.doc_ids:
            raise UserError("with JSONL input, sources, references and doc ids come from the JSONL objects")
        return io.load_jsonl(args.input)
    if any(io.is_jsonl(p) for p in args.input):
        raise UserError("mix of JSONL and text files in -i; give all systems in the same form")
    return io.load_text(args.input, args.source, args.reference, args.doc_ids)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from .. import api
    from ..cli import metaeval as metaeval_cli
    from ..runtime import cache
    from . import metaeval
    metaeval_cli.check_args(args)
    if args.plot and not args.human:
        raise UserError("--plot draws a meta-evaluation statistic: give --human FILE")
    if args.stat == "seg-kendall" and not args.seg_level:
        raise UserError("--stat seg-kendall needs --seg-level")
    if args.batch_size is not None and args.batch_size < 1:
        raise UserError(f"--batch-size must be >= 1, not {args.batch_size}")
    axes = parse_grid(args.grid)
    points = [Point(pt, point_spec(args.metric, pt)) for pt in expand_grid(axes)]
    human = (
        metaeval.load_human(args.human, args.human_column, args.human_lower_better) if args.human else None
    )
    testset = load_testset(args)
    if testset.doc_ids is None:
        print(
            "docmetrics sweep: warning: no doc ids (--doc-ids): the whole input is ONE document",
            file=sys.stderr,
        )
    if args.cache_chunk is not None and args.cache_chunk < 1:
        raise UserError(f"--cache-chunk must be >= 1, not {args.cache_chunk}")
    score_cache = (
        None
        if args.no_cache
        else cache.enable(args.cache, chunk_size=args.cache_chunk or cache.DEFAULT_CHUNK)
    )
    try:
        for k, pt in enumerate(points, 1):
            try:
                metric = api.load(
                    pt.spec,
                    device=args.device,
                    batch_size=args.batch_size,
                    precision=args.precision,
                    quiet=args.quiet,
                    defaults={"lang": args.lang},
                )
            except SpecError as exc:
                pt.skipped = str(exc)
                _note(args, f"[{k}/{len(points)}] {pt.spec}: skipped ({exc})")
                continue
            before = score_cache.stats.copy() if score_cache is not None else None
            try:
                results = metric.compute(testset)
            except InputError as exc:  # e.g. every document shorter than this point's window
                pt.skipped = str(exc)
                _note(args, f"[{k}/{len(points)}] {pt.spec}: skipped ({exc})")
                continue
            pt.signature = results[0].signature.format(short=args.short)
            pt.scores = {r.system: r.score for r in results}
            if results[0].coverage is not None:
                pt.coverage = results[0].coverage.to_dict()
            if score_cache is not None and before is not None:
                pt.cache = score_cache.stats.since(before).to_dict()
            if human is not None:
                pt.metaeval = metaeval.evaluate(
                    results,
                    human,
                    spec=pt.spec,
                    exclude=args.exclude_systems,
                    exclude_humans=args.no_human_systems,
                    seg_level=args.seg_level,
                    testset=testset,
                    short=args.short,
                )
            msg = f"[{k}/{len(points)}] {pt.spec}"
            if pt.cache:
                msg += f": {pt.cache['looked_up']} distinct units, {pt.cache['hits']} from cache"
            if pt.metaeval is not None:
                msg += f"; {args.stat} {pt.metaeval.get(args.stat):.4f}"
            _note(args, msg)
        done = [p for p in points if not p.skipped]
        if not done:
            raise SpecError("no grid point could be built: " + "; ".join(p.skipped or "" for p in points[:3]))
        total = score_cache.stats if score_cache is not None else None
        report = {
            "metric": args.metric,
            "grid": args.grid,
            "version": __version__,
            "human": args.human,
            "stat": args.stat,
            "cache": None if score_cache is None else {"path": str(score_cache.path), **total.to_dict()},  # type: ignore[union-attr]
            "points": [p.to_dict() for p in points],
        }
        if args.output:
            with open(args.output, "w", encoding="utf-8") as f:
                json.dump(report, f, indent=1, ensure_ascii=False)
                f.write("\n")
        if args.plot:
            plot_heatmap(points, axes, args.stat, args.plot, title=f"{args.metric}: {args.stat}")
        if args.format == "json":
            json.dump(report, out, indent=1, ensure_ascii=False)
            out.write("\n")
        else:
            write_table(points, args, out)
            if total is not None:
                out.write(f"\nscore cache {score_cache.path}: {total.summary()}\n")  # type: ignore[union-attr]
            skipped = [p for p in points if p.skipped]
            if skipped:
                out.write(f"skipped {len(skipped)} point(s): " + ", ".join(p.spec for p in skipped) + "\n")
            if args.plot:
                out.write(f"heatmap: {args.plot}\n")
    finally:
        if score_cache is not None:
            cache.disable()
    return 0


def write_table(points: Sequence[Point], args: argparse.Namespace, out: TextIO) -> None:
    done = [p for p in points if not p.skipped]
    keys = list(done[0].params)
    w = args.width
    if done[0].metaeval is not None:
        seg = any(p.metaeval.seg_kendall is not None for p in done)
        headers = (
            keys + ["pearson", "spearman", "kendall", "accuracy", "pairs"] + (["seg-kendall"] if seg else [])
        )
        rows = []
        for p in done:
            e = p.metaeval
            row = [p.params[k] for k in keys] + [
                _num(v, w) for v in (e.pearson, e.spearman, e.kendall, e.accuracy)
            ]
            row.append(f"{e.agree}/{e.pairs}")
            if seg:
                row.append(_num(e.seg_kendall, w))
            rows.append(row)
    else:
        systems = list(done[0].scores)
        headers = keys + systems
        rows = [[p.params[k] for k in keys] + [_num(p.scores[s], w) for s in systems] for p in done]
    widths = [max(len(h), *(len(r[c]) for r in rows)) for c, h in enumerate(headers)]
    out.write("  ".join(h.rjust(widths[c]) for c, h in enumerate(headers)) + "\n")
    out.write("  ".join("-" * x for x in widths) + "\n")
    for r in rows:
        out.write("  ".join(v.rjust(widths[c]) for c, v in enumerate(r)) + "\n")
    sig = done[0].signature
    out.write(f"\nmetric: {args.metric}; first point's signature: {sig}\n")


def _num(x: float | None, width: int) -> str:
    if x is None or math.isnan(x):
        return "nan"
    text = f"{x:.{width}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.0000"


def heatmap_matrix(
    points: Sequence[Point], axes: Sequence[Axis], stat: str
) -> tuple[list[str], list[str], list[list[float]]]:
    """(row labels, column labels, values) of ``stat`` over the first two axes (NaN where no point)."""
    if len(axes) < 1:
        raise UserError("--plot needs at least one grid parameter")
    rk = axes[0].name
    ck = axes[1].name if len(axes) > 1 else None
    if len(axes) > 2:
        others = {a.name for a in axes[2:]}
        varying = {k for k in others if len({p.params[k] for p in points}) > 1}
        if varying:
            raise UserError(
                f"--plot: the heatmap has two axes ({rk}, {ck}); {', '.join(sorted(varying))} "
                "also varies: fix it in -m and sweep it in separate runs"
            )
    rows: list[str] = []
    cols: list[str] = []
    for p in points:
        if p.params[rk] not in rows:
            rows.append(p.params[rk])
        c = p.params[ck] if ck else stat
        if c not in cols:
            cols.append(c)
    cols = sorted(cols, key=_sort_key)
    rows = sorted(rows, key=_sort_key)
    values = [[math.nan] * len(cols) for _ in rows]
    for p in points:
        if p.skipped or p.metaeval is None:
            continue
        c = p.params[ck] if ck else stat
        values[rows.index(p.params[rk])][cols.index(c)] = p.metaeval.get(stat)
    return rows, cols, values


def _sort_key(v: str) -> tuple[int, float, str]:
    try:
        return (0, float(v), "")
    except ValueError:
        return (1, 0.0, v)


def plot_heatmap(
    points: Sequence[Point], axes: Sequence[Axis], stat: str, path: str, title: str = ""
) -> None:
    """A heatmap PNG like the SLIDE paper's Figure 2 (rows: first grid parameter, columns: second)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
    except ImportError:
        raise UserError('--plot needs matplotlib: pip install "docmetrics[plot]"') from None
    rows, cols, values = heatmap_matrix(points, axes, stat)
    data = np.ma.masked_invalid(np.array(values, dtype=float))
    fig, ax = plt.subplots(figsize=(1.0 + 0.7 * len(cols), 1.0 + 0.55 * len(rows)))
    im = ax.imshow(data, cmap="viridis", origin="upper", aspect="auto")
    ax.set_xticks(range(len(cols)), labels=cols)
    ax.set_yticks(range(len(rows)), labels=rows)
    ax.set_xlabel(axes[1].name if len(axes) > 1 else "")
    ax.set_ylabel(axes[0].name)
    finite = [v for row in values for v in row if not math.isnan(v)]
    mid = (min(finite) + max(finite)) / 2 if finite else 0.0
    for i in range(len(rows)):
        for j in range(len(cols)):
            v = values[i][j]
            if not math.isnan(v):
                ax.text(
                    j,
                    i,
                    f"{v:.3f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="black" if v > mid else "white",
                )
    fig.colorbar(im, ax=ax, label=stat)
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as exc:
        raise InputError(f"--plot {path}: cannot be written ({exc.strerror})") from None
    finally:
        plt.close(fig)
