"""``docmetrics sweep``: one metric over a parameter grid, meta-evaluated at every point (options,
progress, the table, the JSON report and the heatmap's title; the work is :mod:`docmetrics.judging.sweeps`, the
heatmap :func:`docmetrics.judging.plot_heatmap`)."""

from __future__ import annotations

import json
import shlex
from typing import Sequence, TextIO

from ..judging import Point, Sweep, num, plot_heatmap, pyplot
from ..values.errors import InputError, UserError
from . import human as human_cli
from . import report as report_cli
from .common import check_output_file, session_scope
from .inputs import load_testset
from .messages import note, warn
from .options import Options
from .output import Output, decimals, json_text, write
from .scoring import units_cut
from .specs import check_specs


def run(opts: Options, out: TextIO) -> int:
    """Check every option, read the test set and the human scores, run :func:`docmetrics.judging.sweep` (the
    progress a note per point), then write -o, --report and --plot and print the table."""
    from ..judging import sweep

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
    human = human_cli.read_human(opts)
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
        plot_heatmap(done, opts.plot, testset=testset, inputs=typed_inputs(opts))
    heatmap = f"heatmap: {opts.plot}\n" if opts.plot else ""
    width = decimals(opts)
    write(Output(data=lambda: report, text=lambda: done.to_text(width, temporary="(temporary: --cache keeps it)")
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
