"""The ``docmetrics`` command: a thin layer over the library API.

``--help``, ``--list`` and ``--version`` import no plugin and no torch.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import os
import shlex
import sys
from typing import Any, Sequence, TextIO

from ..values.errors import UserError
from ..values.sacrebleu_signature import read_sacrebleu_signature
from ..values.versions import __version__
from . import genmt, mtme, significance
from . import human as human_cli
from . import report as report_cli
from . import spans as spans_cli
from . import stored as stored_cli
from . import wmt25 as wmt25_cli
from .args import (
    add_cache_arguments,
    add_input_arguments,
    add_model_arguments,
    add_output_arguments,
    check_output_file,
    default_cache_path,
    session_scope,
    width,
)
from .errors import guarded, note, warn
from .format import column, coverage_lines, metric_labels, num, table, tsv, units_cut
from .habits import Parser, parse_args, reference_advice
from .inputs import check_stdin, load_testset
from .specs import check_specs, reference_files

EPILOG = """\
examples:
  docmetrics -m slide:w=6,s=6 -i hyp.txt -s src.txt --doc-ids docids.txt
  cat hyp.txt | docmetrics -m slide:w=6,s=6 -s src.txt --doc-ids docids.txt --ci
  docmetrics -m slide:w=2,s=1 slide:w=6,s=6 -i sysA.txt sysB.txt -s src.txt --doc-ids ids.txt --level doc -o docs.tsv
  docmetrics -m slide-wmt23:model=/models/wmt22-cometkiwi-da -i sysA.txt sysB.txt -s src.txt --doc-ids ids.txt
  docmetrics -m "slide|w:6|s:6|p:drop|bb:comet|m:Unbabel/wmt22-cometkiwi-da|..." -i hyp.txt -s src.txt --doc-ids ids.txt
  docmetrics --list
  docmetrics --describe slide
  docmetrics -m slide:w=6,s=6 -i base.txt sysB.txt sysC.txt -s src.txt --doc-ids ids.txt --paired-bs
  docmetrics -m slide:w=6,s=6 -i sys/*.txt -s src.txt --doc-ids ids.txt --human mqm.tsv --seg-level
  docmetrics -m doc-comet:k=0 doc-comet:k=2 --mtme ~/mt-metrics-eval-v2 -t wmt23 -l en-de --write-mtme out/

subcommands (each has --help):
  docmetrics sweep ...   one metric over a parameter grid (e.g. --grid w=1..10 s=1..w), meta-evaluated
  docmetrics metaeval ... metrics on several language pairs of MTME data, WMT23/WMT24 averages, a plot
  docmetrics rank ...    AutoRank (WMT25's ranking over several metrics) from stored scores (--scores FILE...)
  docmetrics report ...  a report page (one HTML file) from saved -f json output, without any model
  docmetrics vat ...     variance-aware test sets (a tool plugin, entry-point group docmetrics.tools)

A new document starts wherever the doc id changes (as `sacrebleu --echo docid` writes them).
Errors exit with status 2 and one message; --debug shows the traceback.
"""


def share(text: str) -> float:
    """``--max-truncated P``: a share from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--max-truncated takes a share from 0 to 1 (e.g. 0.05), not {text!r}") \
            from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"--max-truncated {text}: a share from 0 to 1 (e.g. 0.05 for 5%)")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="docmetrics",
        description="Document-level MT metrics (SLIDE, Doc-COMET, ...) with citable signatures.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g = p.add_argument_group("what to compute")
    g.add_argument("-m", "--metrics", nargs="+", action="extend", metavar="SPEC",
                   help="metric specs NAME[:key=value,...], preset names, or signatures (-m given again adds "
                        "metrics); NAME@DIST picks "
                        "the plugin of distribution DIST where several register NAME (e.g. slide@my-dist)")
    g.add_argument("--list", action="store_true",
                   help="list metrics, backbones and presets with the distribution of each, then exit")
    g.add_argument("--check-plugins", action="store_true",
                   help="like --list, but import every plugin and report those that fail (exit 1 if any)")
    g.add_argument("--describe", metavar="NAME",
                   help="show a metric's (or backbone's, or preset's) parameters, needs and citation")
    add_input_arguments(p, doc_per_line=True)
    add_model_arguments(p)
    g = p.add_argument_group("output")
    add_output_arguments(g)
    g.add_argument("-b", "--score-only", action="store_true",
                   help="print only the score(s); several systems: SYSTEM<TAB>SCORE per line (a score per -m spec)")
    g.add_argument("--max-truncated", type=share, metavar="P",
                   help="fail (exit 2) where more than this share (0 to 1) of a system's units were cut at the "
                        "model's maximum input length (default: warn whenever any is)")
    g.add_argument("--level", choices=LEVELS, default="system",
                   help="a table (TSV with a header; -f json: nested in each result) of per-document, per-unit "
                        "(chunk) or per-segment (seg: metrics scoring one segment per unit) scores, to -o FILE or "
                        "stdout; the system scores then go to stdout with -o, else to stderr")
    g.add_argument("-o", "--output", metavar="FILE",
                   help="write the output (with --level: the table) to FILE instead of stdout")
    g.add_argument("--dump-alignment", metavar="FILE",
                   help="write the sentence alignments of metrics that align (asd) to FILE: one JSON "
                        "object per system, document and side")
    report_cli.add_argument(g)
    g.add_argument("-V", "--version", action="version", version=f"docmetrics {__version__}")
    significance.add_arguments(p)
    human_cli.add_arguments(p)
    genmt.add_arguments(p)
    spans_cli.add_arguments(p)
    stored_cli.add_arguments(p.add_argument_group(
        "stored scores, judged like metrics (with --human, --genmt, --paired-bs/--paired-ar, --mtme; -m optional)"))
    mtme.add_arguments(p)
    wmt25_cli.add_arguments(p)
    add_cache_arguments(p)
    return p


#: --level: the system scores alone, or a table per document, per unit (chunk) or per segment
LEVELS = ("system", "doc", "chunk", "seg")
#: the columns of the --level tables
COLUMNS = {
    "doc": ("system", "metric", "spec", "doc_id", "units", "score"),
    "chunk": ("system", "metric", "spec", "doc_id", "unit", "first_line", "last_line", "weight", "group",
              "truncated", "partial", "score"),
    "seg": ("system", "metric", "spec", "doc_id", "seg", "line", "score"),
}


#: Subcommands built in: ``docmetrics sweep ...``; tools (``docmetrics vat ...``) come from plugins
#: registered under the entry-point group ``docmetrics.tools`` (a callable ``main(argv) -> int``).
SUBCOMMANDS = {"sweep": "docmetrics.cli.sweep", "metaeval": "docmetrics.cli.metaeval", "rank": "docmetrics.cli.rank",
               "report": "docmetrics.cli.report"}
TOOLS_GROUP = "docmetrics.tools"


def _subcommand(name: str) -> Any:
    """The ``main(argv)`` of a subcommand or tool plugin named ``name``, or None."""
    if name in SUBCOMMANDS:
        import importlib

        return importlib.import_module(SUBCOMMANDS[name]).main
    from ..plugin import registry

    if registry.split_name(name)[0] in registry.names("tool"):
        return registry.load("tool", name)  # a broken tool is a PluginError naming its distribution
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and not argv[0].startswith("-"):
        try:
            sub = _subcommand(argv[0])
        except UserError as exc:
            print(f"docmetrics: error: {exc}", file=sys.stderr)
            return exc.exit_code
        if sub is not None:
            return int(sub(argv[1:]) or 0)
        refs = list(itertools.takewhile(lambda a: not a.startswith("-") and os.path.isfile(a), argv))
        if refs:  # sacrebleu's positional references: docmetrics ref.txt -i hyp.txt -m bleu
            print(f"docmetrics: error: {reference_advice([*argv[len(refs):], '-r', *refs])}", file=sys.stderr)
            return 2
        from ..plugin import registry

        known = sorted(set(SUBCOMMANDS) | set(registry.names("tool")))
        print(f"docmetrics: error: unknown subcommand {argv[0]!r}; available: {', '.join(known)} (tools register "
              f"under the entry-point group {TOOLS_GROUP}); options start with '-' (see docmetrics --help)",
              file=sys.stderr)
        return 2
    parser = build_parser()
    args = parse_args(parser, argv)
    args.argv = argv
    return guarded("docmetrics", args.debug, lambda: run(args, parser), interrupted=lambda: kept(args, argv))


def kept(args: argparse.Namespace, argv: Sequence[str]) -> str:
    """After Ctrl-C: what the score cache kept and the command that resumes, or that --cache would have."""
    cache = args.cache
    if cache is None:  # $DOCMETRICS_SCORE_CACHE, as the session read it
        value = os.environ.get("DOCMETRICS_SCORE_CACHE", "").strip()
        cache = None if value.lower() in ("", "0", "no", "off", "false") else (
            "" if value.lower() in ("1", "yes", "on", "true") else value)
    if cache is None:
        return ("no score cache was on, so the scores computed so far are lost; with --cache, the same command "
                "run again resumes where it stopped")
    path = cache or str(default_cache_path())
    return (f"the score cache {path} keeps every chunk scored before the interruption; the same command resumes "
            f"from it: docmetrics {shlex.join(argv)}")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.list or args.check_plugins:
        from .describe import write_list

        broken = write_list(sys.stdout, check=args.check_plugins)
        return 1 if args.check_plugins and broken else 0
    if args.describe:
        from .describe import describe

        print(describe(args.describe))
        return 0
    if spans_cli.requested(args):  # span predictions from files: no metric is scored
        if args.output:
            check_output_file(args.output, "-o")
        write_output(args, spans_cli.run(args))
        return 0
    if not args.metrics and not stored_cli.requested(args):
        print("docmetrics: error: give metrics with -m (see --list), e.g. -m slide:w=6,s=6", file=sys.stderr)
        return 2
    args.metrics = list(args.metrics or [])
    stored_cli.check_args(args)
    args.sacrebleu_signatures = {}
    for k, text in enumerate(args.metrics):
        sacre = read_sacrebleu_signature(text)
        if sacre is not None:  # BLEU|nrefs:1|case:mixed|...: the metric sacrebleu computed, with its options
            args.metrics[k] = sacre.spec
            args.sacrebleu_signatures[k] = sacre.expected
            note(args, f"{text} is sacrebleu's signature: computed as -m {sacre.spec}")
    refs = reference_files(args.metrics)
    if refs:  # sacrebleu's positional references after -m: docmetrics -i hyp.txt -m bleu ref.txt
        command = ["-m", *[m for m in args.metrics if m not in refs], "-i", *(args.input or ["HYP"]),
                   *(["-s", args.source] if args.source else []), "-r", *(args.references or []), *refs]
        raise UserError(reference_advice(command))
    check_specs(args.metrics)
    if args.output:
        check_output_file(args.output, "-o")
    if args.report:
        check_output_file(args.report, "--report", (args.output,))
    genmt.check_args(args)  # before --mtme: --domains and --error-free are --genmt's alone
    if mtme.requested(args):
        out = io.StringIO() if args.output else sys.stdout
        code = mtme.run(args, out)  # in a session of its own (cli.mtme.score)
        if args.output:
            write_output(args, out.getvalue())
        return code
    wmt25_cli.check_args(args)
    if wmt25_cli.requested(args):
        return wmt25_run(args)
    if genmt.requested(args):
        return genmt_run(args)
    human = check_args(args)
    with session_scope(args, cache=args.cache) as session:
        return score_run(args, human, session)


def genmt_run(args: argparse.Namespace) -> int:
    """``--genmt FILE``: the language pair's test set and human scores, read before any model loads, then
    scored and meta-evaluated like ``--human FILE --seg-level`` (and judged as detectors: --error-free)."""
    from .. import api

    significance.check_args(args)
    genmt.REFUSED.check(args)
    pair, testset, human, notes = genmt.prepare(args)
    if significance.requested(args) and len(testset.systems) < 2:
        raise UserError(f"--paired-{significance.requested(args)}: {args.genmt} has {len(testset.systems)} system for "
                        f"{pair.name}; a paired test needs two or more")
    for text in notes:
        warn(text) if "reappears" in text else note(args, text)
    if human is None:
        judging = [flag for attr, flag in (("error_free", "--error-free"), ("doc_level", "--doc-level"),
                                           ("pdp", "--pdp"), ("seg_level", "--seg-level"),
                                           ("no_human_systems", "--no-human-systems")) if getattr(args, attr, None)]
        if judging:
            raise UserError(f"{judging[0]}: {args.genmt} has no human scores for {pair.name} (field scores); "
                            "give the humeval file (segment lines with scores), or score without it")
    else:
        args.human, args.seg_level = args.genmt, True  # the meta-evaluation of --human FILE --seg-level
        args.human_text = genmt.human_text(args, pair, human)
    human_cli.check_args(args)
    args.genmt_pair = pair
    live = list(args.metrics)
    stored = stored_cli.scorers(args, stored_cli.for_pair(args, pair.name), testset) if args.scores else []
    with session_scope(args, cache=args.cache) as session:
        metrics = [api.load(spec, defaults={"lang": pair.name}, session=session) for spec in live]
        if getattr(args, "include_human", False):
            genmt.check_reference_free(metrics, live)
        return score_and_write(args, metrics + stored, testset, session.cache, human)


def wmt25_run(args: argparse.Namespace) -> int:
    """``--wmt25-tsv FILE``: a language pair and set of the metrics task's test TSV, read before any model
    loads, scored (paired tests where asked) and written as a submission (--write-submission)."""
    from .. import api

    significance.check_args(args)
    human_cli.check_args(args)
    data, pair = wmt25_cli.prepare(args)
    testset = pair.testset
    if significance.requested(args) and len(testset.systems) < 2:
        raise UserError(f"--paired-{significance.requested(args)}: {args.wmt25_tsv} has one system for {pair.lp}; "
                        "a paired test needs two or more")
    args.wmt25_data = (data, pair)
    live = list(args.metrics)
    stored = stored_cli.scorers(args, stored_cli.for_pair(args, pair.lp), testset) if args.scores else []
    with session_scope(args, cache=args.cache) as session:
        metrics = [api.load(spec, defaults={"lang": pair.lp}, session=session) for spec in live]
        return score_and_write(args, metrics + stored, testset, session.cache, None)


def score_run(args: argparse.Namespace, human: Any, session: Any) -> int:
    """Load the metrics in the command's session, read the test set, score, write."""
    from .. import api

    if args.scores:  # the stored metrics fit the test set, or the run stops before any model loads
        found = stored_cli.for_pair(args, args.lang)
        testset = load_testset(args) if args.input else stored_cli.testset_of(found)
        if significance.requested(args) and len(testset.systems) < 2:
            raise UserError(f"--paired-{significance.requested(args)}: the stored scores have one system "
                            f"({', '.join(testset.systems)}); a paired test needs two or more")
        live = list(args.metrics)
        stored = stored_cli.scorers(args, found, testset)
        metrics = [api.load(spec, defaults={"lang": args.lang}, session=session) for spec in live]
        return score_and_write(args, metrics + stored, testset, session.cache, human)
    metrics = [api.load(spec, defaults={"lang": args.lang}, session=session) for spec in args.metrics]
    testset = load_testset(args, documents=any(m.reads_neighbours() for m in metrics))
    return score_and_write(args, metrics, testset, session.cache, human)


def check_args(args: argparse.Namespace) -> Any:
    """Every check that needs no model, before any is loaded: the inputs (stdin where no -i), the
    numbers, the files to write, the combinations of options; reads and returns the --human scores."""
    if args.scores and not args.input:  # the stored scores are the test set: no text to read
        stored_cli.WITHOUT_OUTPUTS.check(args, specs=" ".join(args.metrics))
        args.input = []
    else:
        check_stdin(args)
    significance.check_args(args)
    human_cli.check_args(args)
    test = significance.requested(args)
    if args.human:
        human_cli.PAIRED.check(args)
        human_cli.REFUSED.check(args)
    if args.level != "system" and args.format == "json" and (test or args.human) and not args.output:
        raise UserError(f"--level {args.level} -f json with {'--paired-' + test if test else '--human'}: stdout "
                        f"holds the {'paired test' if test else 'meta-evaluation'}; write the table with -o FILE")
    inputs = (*args.input, args.source, *(args.references or ()), args.doc_ids, args.human, *(args.scores or ()))
    if args.output:
        check_output_file(args.output, "-o", inputs)
    if args.dump_alignment:
        check_output_file(args.dump_alignment, "--dump-alignment", inputs + (args.output,))
    return human_cli.read_human(args)


def score_and_write(args: argparse.Namespace, metrics: list[Any], testset: Any, score_cache: Any,
                    human: Any = None) -> int:
    human_cli.check_document_gold(args, testset, human)
    human_cli.warn_unmatched(args, testset, human)
    all_results = []
    labels = metric_labels(args.metrics, [m.name for m in metrics])
    for k, (spec, metric) in enumerate(zip(args.metrics, metrics)):
        results = metric.compute(testset)
        if args.level == "seg":
            check_segment_units(spec, results)
        requested = metric.requested_signature or getattr(args, "sacrebleu_signatures", {}).get(k)
        if requested is not None and results:
            from ..values.signature import compare

            diffs = compare(requested, results[0].signature)
            if diffs:
                warn("this run differs from the signature it was given in: " + "; ".join(diffs))
        for line in coverage_lines(labels[k], results, getattr(args, "verbose", False)):
            note(args, line)
        check_truncation(args, labels[k], metric, results)
        all_results.append((spec, results))
    if args.dump_alignment:
        dump_alignment(all_results, args.dump_alignment)
    if getattr(args, "write_submission", None):
        wmt25_cli.write(args, *args.wmt25_data, all_results)
    if score_cache is not None:
        note(args, f"score cache {score_cache.path}: {score_cache.stats.summary()}")
    cis = significance.confidence_intervals(all_results, args) if args.ci else None
    evals = found = None
    if args.human and not significance.requested(args):
        evals = human_cli.run_metaeval(all_results, args, testset, human)
        if getattr(args, "error_free", None):
            found = genmt.detections(all_results, args.genmt_pair, args.error_free)
    report = io.StringIO()
    write_judged(all_results, args, report, cis, evals, found, human)
    if args.report:  # the page holds what -f json prints
        text = report.getvalue()
        if args.format != "json":
            buffer = io.StringIO()
            with contextlib.redirect_stderr(io.StringIO()):  # its warnings were printed once
                write_judged(all_results, argparse.Namespace(**{**vars(args), "format": "json"}), buffer, cis,
                             evals, found, human)
            text = buffer.getvalue()
        report_cli.write_for_command(args, text, all_results, testset, human, cis)
    plain_json = args.format == "json" and not significance.requested(args) and not args.human
    if args.level == "system" or plain_json:  # JSON results carry their documents and units
        write_output(args, report.getvalue())
        return 0
    write_output(args, level_table(all_results, args, testset))
    (sys.stdout if args.output else sys.stderr).write(report.getvalue())
    return 0


def write_judged(all_results: list[tuple[str, list[Any]]], args: argparse.Namespace, out: TextIO, cis: Any,
                 evals: Any, found: Any, human: Any) -> None:
    """What the command prints on stdout: the paired test, the meta-evaluation (and the error-free
    detections), or the system scores."""
    if significance.requested(args):
        significance.write_paired(all_results, args, out)
    elif evals is not None:
        if found is not None:
            if args.format == "json":
                json.dump({"metaeval": [e.to_dict() for e in evals], "error_free": genmt.detections_json(found)},
                          out, indent=1, ensure_ascii=False)
                out.write("\n")
            else:
                human_cli.write_metaeval(evals, args, out, human)
                genmt.write_detections(found, args.width, out)
        else:
            human_cli.write_metaeval(evals, args, out, human)
    else:
        write_results(all_results, args, out, cis)


def check_truncation(args: argparse.Namespace, label: str, metric: Any, results: list[Any]) -> None:
    """One warning per metric naming every system whose units were cut at the model's maximum length
    (their scores miss the end of the input): how many, the tokens cut where the backbone counts them,
    and the fix once; an error (exit 2) naming the systems above --max-truncated."""
    limit = getattr(args, "max_truncated", None)
    cut = {r.system: r.coverage for r in results if r.coverage is not None and r.coverage.units_truncated}
    if not cut:
        return
    over = [s for s, c in cut.items() if limit is not None and c.units_truncated / c.units > limit]
    shown = over or list(cut)
    counts = {s: units_cut(cut[s].units_truncated, cut[s].units) for s in shown}
    tokens = {s: f", {cut[s].counters['tokens_cut']} tokens cut" if cut[s].counters.get("tokens_cut") else ""
              for s in shown}
    tail = f"so their scores miss the end of the input; {metric.truncation_fix()}"
    if len(results) == 1:
        s = shown[0]
        text = f"{label} [{s}]: {counts[s]} were cut at the model's maximum input length{tokens[s]}, {tail}"
    else:
        listed = ", ".join(f"{s}: {counts[s]}{tokens[s]}" for s in shown)
        text = (f"{label}: units were cut at the model's maximum input length in {len(shown)} of {len(results)} "
                f"systems ({listed}), {tail}")
    if over:
        raise UserError(f"{text} (more than --max-truncated {limit:g})")
    warn(text)


def write_output(args: argparse.Namespace, text: str) -> None:
    """The output, to -o FILE (written whole, once everything is computed) or to stdout."""
    if not args.output or args.output == "-":
        sys.stdout.write(text)
        return
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise UserError(f"-o {args.output}: cannot write the file ({exc.strerror})") from None
    note(args, f"wrote {args.output}")


def check_segment_units(spec: str, results: list[Any]) -> None:
    """--level seg: every unit of the metric is one segment (else its scores are not per segment)."""
    for r in results:
        for u in r.units:
            if u.end - u.start != 1:
                raise UserError(
                    f"--level seg: {spec} scores units of several segments (e.g. lines {u.start + 1}-{u.end} of "
                    f"document {u.doc_id!r}), so it has no per-segment scores; --level chunk gives every unit "
                    "with its first and last line, --level doc every document")


def level_table(all_results: list[tuple[str, list[Any]]], args: argparse.Namespace, testset: Any) -> str:
    """--level doc|chunk|seg as TSV (a header, one row per document, unit or segment) or, with -f json,
    the results with their documents and units."""
    if args.format == "json":
        level = "doc" if args.level == "doc" else "unit"
        data = [dict(r.to_dict(level=level, short=args.short), spec=spec) for spec, rs in all_results for r in rs]
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    odd = sorted({d.doc_id for d in testset.documents if any(c in d.doc_id for c in "\t\r\n")})
    if odd:  # a TSV cell cannot hold them
        warn(f"--level {args.level}: {len(odd)} doc id(s) hold a tab or a line break (e.g. {odd[0]!r}), written as "
             "a space in the TSV; -f json keeps them as they are")
    doc_of: dict[int, tuple[int, int]] = {}  # line -> (document number, its first line): ids may reappear
    for k, d in enumerate(testset.documents):
        for line in range(d.start, d.end):
            doc_of[line] = (k, d.start)
    rows = []
    for spec, results in all_results:
        for r in results:
            key = [r.system, r.metric, spec]
            w = width(args, r)  # the metric's decimals, as in the score table (bleu: 1, as sacrebleu prints)
            if args.level == "doc":
                rows += [key + [d.doc_id, str(d.units), num(d.score, w)] for d in r.docs]
                continue
            seen: dict[int, int] = {}
            for u in r.units:
                k, first = doc_of.get(u.start, (-1, 0))
                seen[k] = seen.get(k, 0) + 1
                if args.level == "seg":
                    rows.append(key + [u.doc_id, str(u.start - first + 1), str(u.start + 1), num(u.score, w)])
                else:
                    rows.append(key + [u.doc_id, str(seen[k]), str(u.start + 1), str(u.end), f"{u.weight:g}", u.group,
                                       str(u.truncated).lower(), str(u.partial).lower(), num(u.score, w)])
    return tsv(COLUMNS[args.level], rows)


def dump_alignment(all_results: list[tuple[str, list[Any]]], path: str) -> None:
    """--dump-alignment: each record of ``Result.extras['alignment']``, one JSON object per line."""
    written = 0
    try:
        with open(path, "w", encoding="utf-8") as f:
            for _, results in all_results:
                for r in results:
                    for record in r.extras.get("alignment", ()):
                        f.write(json.dumps({"system": r.system, "metric": r.metric, **record},
                                           ensure_ascii=False) + "\n")
                        written += 1
    except OSError as exc:
        raise UserError(f"--dump-alignment {path}: cannot write the file ({exc.strerror})") from None
    if not written:
        warn(f"--dump-alignment {path}: no metric among -m aligns sentences (asd does); the file is empty")


def write_results(all_results: list[tuple[str, list[Any]]], args: argparse.Namespace, out: TextIO,
                  cis: list[list[Any]] | None = None) -> None:
    """The system scores: one line per metric (one system), a table (several), the scores alone
    (-b) or JSON (one object per system and metric, with its documents and units at --level)."""
    flat = [(spec, r) for spec, results in all_results for r in results]
    flat_cis = [ci for per_metric in cis for ci in per_metric] if cis else [None] * len(flat)
    if args.format == "json":
        level = {"chunk": "unit", "seg": "unit"}.get(args.level, args.level)
        data = []
        for (spec, r), ci in zip(flat, flat_cis):
            d = dict(r.to_dict(level=level, short=args.short), spec=spec)
            if ci is not None:
                d["ci"] = ci.to_dict()
            data.append(d)
        json.dump(data, out, indent=1, ensure_ascii=False)
        out.write("\n")
        return
    n_systems = len(all_results[0][1]) if all_results else 0
    if args.score_only:
        if n_systems == 1:  # one score per line, as sacrebleu -b prints them
            out.writelines(num(r.score, width(args, r)) + "\n" for _, r in flat)
            return
        for i in range(n_systems):  # SYSTEM<TAB>SCORE (a score per -m spec, in order), one line per system
            row = [res[i] for _, res in all_results]
            out.write("\t".join([row[0].system, *(num(r.score, width(args, r)) for r in row)]) + "\n")
        return

    def cell(r: Any, ci: Any) -> str:
        w = width(args, r)
        return num(r.score, w) + (" " + significance.format_ci(ci, w) if ci is not None else "")

    if n_systems == 1:
        for (_, r), ci in zip(flat, flat_cis):
            detail = f" {r.detail['text']}" if r.detail.get("text") else ""
            extra = f" ({r.coverage.summary()})" if r.coverage is not None else ""
            out.write(f"{r.signature.format(short=args.short)} = {cell(r, ci)}{detail}{extra}\n")
        if cis:
            out.write(significance.describe_ci(cis, labels=len(cis) > 1))
        return
    specs = [spec for spec, _ in all_results]
    labels = metric_labels(specs, [res[0].metric if res else spec for spec, res in all_results])
    headers = ["System"] + [column(label, k + 1) for k, label in enumerate(labels)]
    rows = []
    for i in range(n_systems):
        rows.append([all_results[0][1][i].system] + [cell(res[i], cis[k][i] if cis else None)
                                                     for k, (_, res) in enumerate(all_results)])
    out.write(table(headers, rows))
    out.write("\n")
    if cis:
        out.write(significance.describe_ci(cis, labels=len(cis) > 1))
    for k, (_, res) in enumerate(all_results):
        out.write(f"[{k + 1}] {res[0].signature.format(short=args.short)}\n")
