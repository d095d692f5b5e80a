"""``docmetrics report RESULTS.json [...] -o FILE.html`` and ``--report FILE.html``: the report page.

``--report`` writes the JSON the command prints with ``-f json`` into the page, with what the page needs
beside it (per-document and per-unit scores, the test set's texts, human segment scores, error spans);
``docmetrics report`` rebuilds a page from saved output without any model.  The page itself is written
by :mod:`docmetrics.report`, which imports nothing that scores.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any, Sequence

from .. import report
from ..values.errors import InputError, UserError
from ..values.result import Result
from ..values.testset import TestSet
from .args import add_input_arguments, check_output_file
from .errors import guarded, note
from .habits import Parser, parse_args
from .inputs import load_testset

#: What the page says was typed: (option, attribute of the parsed arguments).
TYPED = (("-m", "metrics"), ("-i", "input"), ("-s", "source"), ("-r", "references"), ("--doc-ids", "doc_ids"),
         ("-l", "lang"), ("--human", "human"), ("--human-column", "human_column"), ("--genmt", "genmt"),
         ("--mtme", "mtme"), ("-t", "testset"))


def add_argument(g: argparse._ArgumentGroup) -> None:
    g.add_argument("--report", metavar="FILE.html",
                   help="also write a report page: one self-contained HTML file (system tables, documents, "
                        "segments side by side, judging), whatever -f says")


def inputs_typed(args: argparse.Namespace) -> list[tuple[str, str]]:
    out = []
    for flag, attr in TYPED:
        value = getattr(args, attr, None)
        if value:
            out.append((flag, shlex.join(value) if isinstance(value, (list, tuple)) else str(value)))
    return out


def command_line(args: argparse.Namespace) -> str | None:
    argv = getattr(args, "argv", None)
    return None if argv is None else shlex.join(["docmetrics", *argv])


def human_segments(human: Any, testset: TestSet) -> dict[str, Any] | None:
    """Each system's human segment scores on the test set's lines, where the file has segment scores."""
    if human is None or not getattr(human, "segment_level", False):
        return None
    from ..evaluation.human import segment_rows

    try:
        rows = segment_rows(human, testset)
    except UserError:
        return None
    return {"name": human.path, "column": human.column, "lower_is_better": human.lower_is_better, "segments": rows}


def error_spans(args: argparse.Namespace, human: Any, testset: TestSet) -> dict[str, Any] | None:
    """``system -> {line: [[start, end, severity, category], ...]}``: GenMT's ESA spans, or a raw MQM
    file's (an omission without a place has start and end null)."""
    out: dict[str, dict[str, list[list[Any]]]] = {}
    pair = getattr(args, "genmt_pair", None)
    if pair is not None:
        for system, judgements in pair.human.items():
            for line, j in enumerate(judgements):
                if j is not None and j.errors:
                    out.setdefault(system, {})[str(line)] = [[e.start, e.end, e.severity or "", ""] for e in j.errors]
    elif human is not None and getattr(human, "spans", None):
        first: dict[str, int] = {}
        for d in testset.documents:
            first.setdefault(d.doc_id, d.start)
        for system, by_segment in human.spans.items():
            for key, spans in by_segment.items():
                pos = human.positions.get(key)
                if pos is None or key[0] not in first:
                    continue
                line = first[key[0]] + pos - 1
                out.setdefault(system, {})[str(line)] = [
                    [sp.start if sp.side != "source" else None, sp.end if sp.side != "source" else None,
                     sp.severity, sp.category] for sp in spans]
    return out or None


def write_for_command(args: argparse.Namespace, output: str, all_results: Sequence[tuple[str, list[Result]]],
                      testset: TestSet | None, human: Any = None, cis: Sequence[Sequence[Any]] | None = None) -> None:
    """``--report FILE``: the page of a scoring or judging command, from the JSON it prints with ``-f json``
    (``output``) and its results (their documents and units, where ``output`` does not carry them)."""
    data = report.parse(output)
    layout = report.detect(data)
    carries_units = layout == "scores" and any("units" in d for d in data)
    results = [] if carries_units else [
        report.compact_result(r, spec, cis[k][i].to_dict() if cis else None)
        for k, (spec, rs) in enumerate(all_results) for i, r in enumerate(rs)]
    payload = report.payload(
        [(f"docmetrics -f json ({layout})", data)], results=results,
        texts=report.texts(testset) if testset is not None else None,
        human=human_segments(human, testset) if testset is not None else None,
        spans=error_spans(args, human, testset) if testset is not None else None,
        command=command_line(args), inputs=inputs_typed(args))
    write_page(args, args.report, payload)


def write_page(args: argparse.Namespace, path: str, payload: dict[str, Any]) -> None:
    try:
        size = report.write(path, payload)
    except OSError as exc:
        raise UserError(f"--report {path}: cannot write the file ({exc.strerror})") from None
    note(args, f"wrote {path} ({size / 1e6:.1f} MB)" if size > 1e6 else f"wrote {path} ({size // 1024 + 1} KB)")


# -- docmetrics report ---------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="docmetrics report",
               description="Rebuild a report page from saved output, without any model: -f json of a scoring "
                           "command (--level doc or chunk for the documents), of --paired-bs/--paired-ar, --human, "
                           "--genmt or --mtme; docmetrics sweep -o FILE; --dump-alignment FILE; or a report's own "
                           "JSON export.  -i/-s/-r/--doc-ids add the texts for the document view.",
               formatter_class=argparse.RawDescriptionHelpFormatter,
               epilog="example:\n  docmetrics -m chrf -i sysA.txt sysB.txt -r ref.txt --doc-ids ids.txt --level chunk "
                      "-f json -o scores.json\n  docmetrics report scores.json -o report.html -i sysA.txt sysB.txt "
                      "-r ref.txt --doc-ids ids.txt")
    p.add_argument("files", nargs="+", metavar="RESULTS.json", help="saved outputs (JSON, or JSON lines)")
    p.add_argument("-o", "--output", required=True, metavar="FILE.html", help="the page to write")
    p.add_argument("--title", help="the page's title (default: the files' names)")
    g = add_input_arguments(p, doc_per_line=True)
    g.add_argument("--human", metavar="FILE", help="human scores (as --human reads them) to show per document")
    g.add_argument("--human-column", metavar="NAME", help="the score column of --human")
    g.add_argument("--human-lower-better", action="store_true", help="--human's scores are lower-is-better")
    p.add_argument("-q", "--quiet", action="store_true", help="no notes")
    p.add_argument("--debug", action="store_true", help="tracebacks")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(build_parser(), argv)
    args.argv = ["report", *argv]
    return guarded("docmetrics report", args.debug, lambda: run(args))


def run(args: argparse.Namespace) -> int:
    check_output_file(args.output, "-o", tuple(args.files))
    sources = []
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as exc:
            raise UserError(f"{path}: cannot read the file ({exc.strerror})") from None
        try:
            data = report.parse(text)
            report.detect(data)
        except (ValueError, report.LayoutError) as exc:
            layouts = "; ".join(f"{k}: {v}" for k, v in report.LAYOUTS.items())
            raise InputError(f"{path}: not an output docmetrics report reads ({exc}); it reads {layouts}") from None
        sources.append((path, data))
    testset = human_scores = None
    if args.input:
        testset = load_testset(args, "docmetrics report", documents=False)
    if args.human:
        from ..values.human_tsv import load_human

        human_scores = load_human(args.human, args.human_column, args.human_lower_better)
    payload = report.payload(
        sources, texts=report.texts(testset) if testset is not None else None,
        human=human_segments(human_scores, testset) if testset is not None else None,
        spans=error_spans(args, human_scores, testset) if testset is not None else None,
        command=command_line(args), inputs=inputs_typed(args), title=args.title)
    args.report = args.output
    write_page(args, args.output, payload)
    return 0


def write_for_mtme(args: argparse.Namespace, output: dict[str, Any], run: Any) -> None:
    """``--mtme ... --report FILE``: the language pair's JSON (as ``-f json`` prints it), its results
    and its test set's texts."""
    results = [report.compact_result(r, spec) for spec, rs in run.results.items() for r in rs]
    payload = report.payload([(f"docmetrics --mtme -f json ({run.lp})", output)], results=results,
                             texts=report.texts(run.testset), command=command_line(args), inputs=inputs_typed(args))
    write_page(args, args.report, payload)
