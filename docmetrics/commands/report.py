"""``docmetrics report RESULTS.json [...] -o FILE.html`` and ``--report FILE.html``: the report page.

``--report`` writes the JSON the command prints with ``-f json`` into the page, with what the page needs
beside it (per-document and per-unit scores, the test set's texts, human segment scores, error spans);
``docmetrics report`` rebuilds a page from saved output without any model.  The page itself is written
by :mod:`docmetrics.report`, which imports nothing that scores.
"""

from __future__ import annotations

import shlex
from typing import Any

from ..values.errors import InputError, UserError
from .common import check_output_file
from .inputs import load_testset
from .messages import note
from .options import Options, flag_of

#: What the page says was typed: the fields of the options that name inputs, each told as its option.
TYPED = ("metrics", "metric", "grid", "input", "source", "references", "doc_ids", "lang", "lps", "human",
         "human_column", "genmt", "data", "data_format", "data_option", "mtme", "testset", "stat", "spans", "spans_tsv")


def inputs_typed(opts: Options) -> list[tuple[str, str]]:
    """The inputs as the command line named them (--genmt FILE and --data FILE set --human to the same file
    themselves: not listed as --human, which was not typed)."""
    out = []
    for attr in TYPED:
        value = getattr(opts, attr, None)
        if attr == "human" and value and value in (getattr(opts, "genmt", None), getattr(opts, "data", None)):
            continue
        if value:
            out.append((flag_of(opts, attr), shlex.join(value) if isinstance(value, (list, tuple)) else str(value)))
    return out


def command_line(opts: Options) -> str | None:
    argv = getattr(opts, "argv", None)
    return None if argv is None else shlex.join(["docmetrics", *argv])


def page_title(opts: Options) -> str | None:
    typed = command_line(opts)
    return None if typed is None else "docmetrics report: " + (typed if len(typed) <= 160 else typed[:159] + "…")


def write(opts: Options, path: str, output: Any, name: str, title: str | None = None, **given: Any) -> None:
    """The page of ``output`` (a command's JSON as ``-f json`` prints it, or a MetaEvaluation) named ``name``:
    :func:`write_page` (``given``: write_report's results, intervals, testset, data, human)."""
    write_page(opts, path, output, names=[name], title=title, **given)


def write_page(opts: Options, path: str, *outputs: Any, **given: Any) -> None:
    """``docmetrics.judging.write_report(path, *outputs, **given)`` with what the command typed, then a note of its
    size."""
    from ..judging import write_report  # numpy: not at --help

    try:
        size = write_report(path, *outputs, command=command_line(opts), inputs=inputs_typed(opts), **given)
    except OSError as exc:
        raise UserError(f"--report {path}: cannot write the file ({exc.strerror})") from None
    note(opts, f"wrote {path} ({size / 1e6:.1f} MB)" if size > 1e6 else f"wrote {path} ({size // 1024 + 1} KB)")


def run(opts: Options) -> int:
    """``docmetrics report``: the saved outputs, with the texts of -i, the human scores of --human and the spans
    of --spans-tsv (:func:`docmetrics.judging.read_spans_tsv`), or the judged data of ``--data PATH`` (its texts,
    human segment scores and gold error spans, as ``read_human`` reads it), through
    :func:`docmetrics.judging.write_report`."""
    from ..judging import read_human, read_spans_tsv
    from . import data as data_cli

    data_cli.check(opts, "report")
    check_output_file(opts.output, "-o", (*opts.files, *([opts.data] if opts.data else [])))
    data = data_cli.read(opts, opts.lang, "docmetrics report") if opts.data else None
    testset = human_scores = None
    if opts.spans_tsv and not opts.input:
        raise UserError("--spans-tsv places spans on the systems' lines: give the texts with -i (and --doc-ids)")
    if opts.input:
        testset = load_testset(opts, "docmetrics report", documents=False)
    if opts.human:  # a TSV of human scores or a raw MQM file, as --human reads it
        human_scores = read_human(opts.human, format="human-tsv", column=opts.human_column,
                                  lower_is_better=opts.human_lower_better).human
    tsv_spans = None
    if opts.spans_tsv:
        try:
            tsv_spans, notes = read_spans_tsv(opts.spans_tsv, testset)
        except InputError as exc:
            raise InputError(f"--spans-tsv {exc}") from None
        for text in notes:
            note(opts, f"--spans-tsv {text}", "docmetrics report")
    write_page(opts, opts.output, *opts.files, testset=testset, human=human_scores, spans=tsv_spans, data=data,
               title=opts.title)
    return 0
