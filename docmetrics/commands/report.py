"""``docmetrics report RESULTS.json [...] -o FILE.html`` and ``--report FILE.html``: the report page.

``--report`` writes the JSON the command prints with ``-f json`` into the page, with what the page needs
beside it (per-document and per-unit scores, the test set's texts, human segment scores, error spans);
``docmetrics report`` rebuilds a page from saved output without any model.  The page itself is written
by :mod:`docmetrics.report`, which imports nothing that scores.
"""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING, Any, Sequence

from .. import report
from ..values.errors import InputError, UserError
from ..values.result import Result
from ..values.testset import TestSet
from .common import check_output_file
from .inputs import load_testset
from .messages import note
from .options import Options

if TYPE_CHECKING:
    from ..formats.genmt import GenmtPair

#: What the page says was typed: (option, field of the options).
TYPED = (("-m", "metrics"), ("-m", "metric"), ("--grid", "grid"), ("-i", "input"), ("-s", "source"),
         ("-r", "references"), ("--doc-ids", "doc_ids"), ("-l", "lang"), ("-l", "lps"), ("--human", "human"),
         ("--human-column", "human_column"), ("--genmt", "genmt"), ("--mtme", "mtme"), ("-t", "testset"),
         ("--stat", "stat"), ("--spans", "spans"), ("--spans-tsv", "spans_tsv"))


def inputs_typed(opts: Options) -> list[tuple[str, str]]:
    """The inputs as the command line named them (--genmt FILE sets --human to the same file itself: not
    listed as --human, which was not typed)."""
    out = []
    for flag, attr in TYPED:
        value = getattr(opts, attr, None)
        if attr == "human" and value and value == getattr(opts, "genmt", None):
            continue
        if value:
            out.append((flag, shlex.join(value) if isinstance(value, (list, tuple)) else str(value)))
    return out


def human_segments(human: Any, testset: TestSet) -> dict[str, Any] | None:
    from ..judging.tools import human_segments  # judging reads numpy: not at --help

    return human_segments(human, testset)


def error_spans(pair: Any, human: Any, testset: TestSet) -> dict[str, Any] | None:
    from ..judging.tools import error_spans

    return error_spans(pair, human, testset)


def command_line(opts: Options) -> str | None:
    argv = getattr(opts, "argv", None)
    return None if argv is None else shlex.join(["docmetrics", *argv])


def read_spans_tsv(path: str, testset: TestSet) -> tuple[dict[str, dict[str, list[list[Any]]]], list[str]]:
    """An MQM span TSV (columns system, doc_id, doc_pos, start, end, severity; category, rater and span_text
    where present; offsets into the system's line, as ../shared/data's spans.tsv has them) as
    ``system -> {line: [[start, end, severity, category], ...]}`` on the test set's systems (a name, or its
    file's stem), and notes on the rows left out (no-error rows are not spans)."""
    import csv

    first = {d.doc_id: (d.start, d.end) for d in testset.documents}
    names = {}
    for name in testset.systems:
        names.setdefault(name, name)
        names.setdefault(os.path.splitext(os.path.basename(name))[0], name)
    out: dict[str, dict[str, list[list[Any]]]] = {}
    unknown: dict[str, int] = {}
    outside = differ = 0
    try:
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
            missing = [c for c in ("system", "doc_id", "doc_pos", "start", "end", "severity")
                       if c not in (reader.fieldnames or ())]
            if missing:
                raise InputError(f"--spans-tsv {path}: no column {', '.join(missing)} (it needs system, doc_id, "
                                 "doc_pos, start, end, severity; category, rater and span_text where present)")
            for n, row in enumerate(reader, start=2):
                severity = (row["severity"] or "").strip()
                if severity.lower() in ("no-error", "no_error", ""):
                    continue
                system = names.get(row["system"])
                if system is None or row["doc_id"] not in first:
                    what = row["system"] if system is None else f"document {row['doc_id']}"
                    unknown[what] = unknown.get(what, 0) + 1
                    continue
                try:
                    pos = int(row["doc_pos"])
                    start = int(row["start"]) if row["start"] else None
                    end = int(row["end"]) if row["end"] else None
                except ValueError:
                    raise InputError(f"--spans-tsv {path}, line {n}: doc_pos, start and end must be integers "
                                     "(start and end may be empty: an error without a place)") from None
                a, b = first[row["doc_id"]]
                line = a + pos - 1
                text = testset.systems[system][line] if a <= line < b else None
                if text is None or (start is not None and not 0 <= start <= (end or 0) <= len(text)):
                    outside += 1
                    continue
                if start is not None and row.get("span_text") is not None and text[start:end] != row["span_text"]:
                    differ += 1  # kept: the offsets are what places it; span_text has tabs turned to spaces
                category = row.get("category") or ""
                if row.get("rater"):
                    category = f"{category}, {row['rater']}" if category else row["rater"]
                out.setdefault(system, {}).setdefault(str(line), []).append([start, end, severity, category])
    except OSError as exc:
        raise UserError(f"--spans-tsv {path}: cannot read the file ({exc.strerror})") from None
    notes = []
    if unknown:
        notes.append(f"--spans-tsv {path}: left out {sum(unknown.values())} spans of what the test set does not "
                     "have (" + ", ".join(f"{k}: {v}" for k, v in sorted(unknown.items())[:6]) + ")")
    if outside:
        notes.append(f"--spans-tsv {path}: left out {outside} spans outside their line")
    if differ:
        notes.append(f"--spans-tsv {path}: {differ} spans whose span_text differs from the line's text there")
    return out, notes


def merge_spans(*found: dict[str, dict[str, list[list[Any]]]] | None) -> dict[str, Any] | None:
    out: dict[str, dict[str, list[list[Any]]]] = {}
    for spans in found:
        for system, lines in (spans or {}).items():
            for line, xs in lines.items():
                out.setdefault(system, {}).setdefault(line, []).extend(xs)
    return out or None


def write_for_sweep(opts: Options, output: dict[str, Any], testset: TestSet, human: Any = None) -> None:
    """``docmetrics sweep ... --report FILE``: the sweep's JSON (as ``-o`` writes it: the heatmap and its
    grid as a table), the test set's texts and human segment scores."""
    payload = report.payload([("docmetrics sweep -o (sweep)", output)], texts=report.texts(testset),
                             human=human_segments(human, testset), command=command_line(opts),
                             inputs=inputs_typed(opts))
    write_page(opts, opts.report, payload)


def write_for_metaeval(opts: Options, output: dict[str, Any]) -> None:
    """``docmetrics metaeval ... --report FILE``: its JSON (as ``-f json`` prints it): each language pair's
    tables and the WMT averages."""
    payload = report.payload([(f"docmetrics metaeval -f json ({output.get('testset')})", output)],
                             command=command_line(opts), inputs=inputs_typed(opts))
    write_page(opts, opts.report, payload)


def write_for_spans(opts: Options, output: dict[str, Any]) -> None:
    """``--spans ... --report FILE``: the span judgement (as ``-f json`` prints it): each predictor's span F1,
    overall and per system."""
    payload = report.payload([("this command's output (spans)", output)], title=_title(opts),
                             command=command_line(opts), inputs=inputs_typed(opts))
    write_page(opts, opts.report, payload)


def _title(opts: Options) -> str | None:
    typed = command_line(opts)
    return None if typed is None else "docmetrics report: " + (typed if len(typed) <= 160 else typed[:159] + "…")


def write_for_command(opts: Options, output: str, all_results: Sequence[tuple[str, list[Result]]],
                      testset: TestSet | None, human: Any = None, cis: Sequence[Sequence[Any]] | None = None,
                      pair: GenmtPair | None = None) -> None:
    """``--report FILE``: the page of a scoring or judging command, from the JSON it prints with ``-f json``
    (``output``) and its results (their documents and units, where ``output`` does not carry them)."""
    data = report.parse(output)
    layout = report.detect(data)
    carries_units = layout == "scores" and any("units" in d for d in data)
    results = [] if carries_units else [
        report.compact_result(r, spec, cis[k][i].to_dict() if cis else None)
        for k, (spec, rs) in enumerate(all_results) for i, r in enumerate(rs)]
    name = f"this command's output ({layout})"  # not '-f json', which was not typed
    payload = report.payload(
        [(name, data)], results=results, title=_title(opts),
        texts=report.texts(testset) if testset is not None else None,
        human=human_segments(human, testset) if testset is not None else None,
        spans=error_spans(pair, human, testset) if testset is not None else None,
        command=command_line(opts), inputs=inputs_typed(opts))
    write_page(opts, opts.report, payload)


def write_page(opts: Options, path: str, payload: dict[str, Any]) -> None:
    try:
        size = report.write(path, payload)
    except OSError as exc:
        raise UserError(f"--report {path}: cannot write the file ({exc.strerror})") from None
    note(opts, f"wrote {path} ({size / 1e6:.1f} MB)" if size > 1e6 else f"wrote {path} ({size // 1024 + 1} KB)")


def read_outputs(files: Sequence[str]) -> list[tuple[str, Any]]:
    """(path, parsed JSON) of each saved ``-f json`` output; an InputError naming a file no layout reads."""
    sources = []
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as exc:
            raise UserError(f"{path}: cannot read the file ({exc.strerror})") from None
        try:
            data = report.parse(text)
            report.detect(data)
        except report.TooDeep as exc:  # the layouts would not help
            raise InputError(f"{path}: not an output docmetrics report reads: {exc}") from None
        except (ValueError, report.LayoutError) as exc:
            layouts = "; ".join(f"{k}: {v}" for k, v in report.LAYOUTS.items())
            raise InputError(f"{path}: not an output docmetrics report reads ({exc}); it reads {layouts}") from None
        sources.append((path, data))
    return sources


def run(opts: Options) -> int:
    check_output_file(opts.output, "-o", tuple(opts.files))
    sources = read_outputs(opts.files)
    testset = human_scores = None
    if opts.spans_tsv and not opts.input:
        raise UserError("--spans-tsv places spans on the systems' lines: give the texts with -i (and --doc-ids)")
    if opts.input:
        testset = load_testset(opts, "docmetrics report", documents=False)
    if opts.human:
        from ..formats.human_tsv import load_human

        human_scores = load_human(opts.human, opts.human_column, opts.human_lower_better)
    tsv_spans = None
    if opts.spans_tsv:
        tsv_spans, notes = read_spans_tsv(opts.spans_tsv, testset)  # type: ignore[arg-type]
        for text in notes:
            note(opts, text, "docmetrics report")
    payload = report.payload(
        sources, texts=report.texts(testset) if testset is not None else None,
        human=human_segments(human_scores, testset) if testset is not None else None,
        spans=merge_spans(error_spans(None, human_scores, testset), tsv_spans) if testset is not None else None,
        command=command_line(opts), inputs=inputs_typed(opts), title=opts.title)
    write_page(opts, opts.output, payload)
    return 0


def write_for_mtme(opts: Options, output: dict[str, Any], run: Any) -> None:
    """``--mtme ... --report FILE``: the language pair's JSON (as ``-f json`` prints it), its results
    and its test set's texts."""
    results = [report.compact_result(r, spec) for spec, rs in run.results.items() for r in rs]
    payload = report.payload([(f"docmetrics --mtme -f json ({run.lp})", output)], results=results,
                             texts=report.texts(run.testset), command=command_line(opts), inputs=inputs_typed(opts))
    write_page(opts, opts.report, payload)
