"""The ``docmetrics`` command: a thin layer over the library API.

``--help``, ``--list`` and ``--version`` import no plugin and no torch.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from typing import Any, Sequence, TextIO

from ..values.errors import UserError
from ..values.versions import __version__

EPILOG = """\
examples:
  docmetrics -m slide:w=6,s=6 -i hyp.txt -s src.txt --doc-ids docids.txt
  docmetrics -m slide-wmt23:model=/models/wmt22-cometkiwi-da -i sysA.txt sysB.txt -s src.txt --doc-ids ids.txt
  docmetrics -m "slide|w:6|s:6|p:drop|bb:comet|m:Unbabel/wmt22-cometkiwi-da|..." -i hyp.txt -s src.txt --doc-ids ids.txt
  docmetrics --list
  docmetrics --describe slide
  docmetrics -m slide:w=6,s=6 -i base.txt sysB.txt sysC.txt -s src.txt --doc-ids ids.txt --paired-bs
  docmetrics -m slide:w=6,s=6 -i sys/*.txt -s src.txt --doc-ids ids.txt --human mqm.tsv --seg-level

subcommands (each has --help):
  docmetrics sweep ...   one metric over a parameter grid (e.g. --grid w=1..10 s=1..w), meta-evaluated
  docmetrics vat ...     variance-aware test sets (a tool plugin, entry-point group docmetrics.tools)

A new document starts wherever the doc id changes (as `sacrebleu --echo docid` writes them).
Errors exit with status 2 and one message; --debug shows the traceback.
"""


def add_input_arguments(
    p: argparse.ArgumentParser, *, required: bool = False, doc_per_line: bool = False
) -> argparse._ArgumentGroup:
    """The input options every docmetrics command shares (-i, -s, -r, --doc-ids, -l, --jsonl)."""
    g = p.add_argument_group("input")
    g.add_argument("-i", "--input", nargs="+", metavar="HYP", required=required,
                   help="system output, one file per system (text, or .jsonl with doc_id/src/mt/ref)")
    g.add_argument("-s", "--source", metavar="FILE", help="source sentences, line-parallel")
    g.add_argument("-r", "--reference", metavar="FILE", help="reference translations, line-parallel")
    g.add_argument("--doc-ids", metavar="FILE",
                   help="document id of each line; a new document starts where the id changes")
    g.add_argument("-l", "--lang", metavar="SRC-TGT",
                   help="language pair, e.g. en-de: for backbones with a lang parameter (model choice, "
                        "language codes) where the spec does not set lang=")
    g.add_argument("--jsonl", action="store_true",
                   help="read -i files as JSONL (one object per segment: doc_id, src, mt, ref) "
                        "whatever their extension")
    if doc_per_line:
        g.add_argument("--doc-per-line", action="store_true",
                       help="every line of -i/-s/-r (every JSONL object) is one whole document (for "
                            "metrics that segment documents, e.g. asd); named by --doc-ids or line number")
    return g


def add_model_arguments(p: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """The model options every docmetrics command shares (--device, --batch-size, --precision)."""
    g = p.add_argument_group("model")
    g.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="where models run (default: auto = cuda if available)")
    g.add_argument("--batch-size", type=int, metavar="N", help="units per batch (default: the backbone's)")
    g.add_argument("--precision", choices=("fp32", "fp16", "bf16"),
                   help="default precision where a spec does not set precision= (fp32; fp16/bf16 need a GPU)")
    return g


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="docmetrics",
        description="Document-level MT metrics (SLIDE, Doc-COMET, ...) with citable signatures.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g = p.add_argument_group("what to compute")
    g.add_argument("-m", "--metrics", nargs="+", metavar="SPEC",
                   help="metric specs NAME[:key=value,...], preset names, or signatures")
    g.add_argument("--list", action="store_true", help="list metrics, backbones and presets, then exit")
    g.add_argument("--describe", metavar="NAME",
                   help="show a metric's (or backbone's, or preset's) parameters, needs and citation")
    add_input_arguments(p, doc_per_line=True)
    add_model_arguments(p)
    g = p.add_argument_group("output")
    g.add_argument("-f", "--format", choices=("text", "json"), default="text", help="output format")
    g.add_argument("-b", "--score-only", action="store_true", help="print only the score(s)")
    g.add_argument("-sh", "--short", action="store_true", help="print short signatures")
    g.add_argument("-w", "--width", type=int, default=4, metavar="N", help="decimals of printed scores (4)")
    g.add_argument("--level", choices=("system", "doc", "chunk"), default="system",
                   help="also print per-document or per-chunk (per-unit) scores")
    g.add_argument("--dump-alignment", metavar="FILE",
                   help="write the sentence alignments of metrics that align (asd) to FILE: one JSON "
                        "object per system, document and side")
    g.add_argument("-q", "--quiet", action="store_true", help="no progress bars and no coverage notes")
    g.add_argument("--debug", action="store_true", help="show tracebacks and library warnings")
    g.add_argument("-V", "--version", action="version", version=f"docmetrics {__version__}")
    from ..evaluation import significance  # light modules (no numpy/torch at import)
    from ..runtime import cache
    from . import metaeval

    significance.add_arguments(p)
    metaeval.add_arguments(p)
    cache.add_arguments(p)
    return p


#: Subcommands built in: ``docmetrics sweep ...``; tools (``docmetrics vat ...``) come from plugins
#: registered under the entry-point group ``docmetrics.tools`` (a callable ``main(argv) -> int``).
SUBCOMMANDS = {"sweep": "docmetrics.evaluation.sweep"}
TOOLS_GROUP = "docmetrics.tools"


def _subcommand(name: str) -> Any:
    """The ``main(argv)`` of a subcommand or tool plugin named ``name``, or None."""
    if name in SUBCOMMANDS:
        import importlib

        return importlib.import_module(SUBCOMMANDS[name]).main
    from ..plugin.registry import _entry_points

    for ep in _entry_points(TOOLS_GROUP):
        if ep.name == name:
            try:
                return ep.load()
            except Exception as exc:  # noqa: BLE001
                raise UserError(f"tool '{name}' ({ep.value}) could not be loaded: {exc}") from exc
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
        from ..plugin.registry import _entry_points

        known = sorted(set(SUBCOMMANDS) | {ep.name for ep in _entry_points(TOOLS_GROUP)})
        print(f"docmetrics: error: unknown subcommand {argv[0]!r}; available: {', '.join(known)} (tools register "
              f"under the entry-point group {TOOLS_GROUP}); options start with '-' (see docmetrics --help)",
              file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    _setup_warnings(args.debug)
    try:
        return run(args, parser)
    except UserError as exc:
        if args.debug:
            raise
        print(f"docmetrics: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("docmetrics: interrupted", file=sys.stderr)
        return 130
    finally:
        if getattr(args, "cache", None) is not None:  # --cache was on for this run only
            from ..runtime.cache import disable

            disable()


def _setup_warnings(debug: bool) -> None:
    def show(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
        print(f"docmetrics: warning: {message}", file=sys.stderr)

    if not debug:
        # library chatter (pkg_resources, Lightning, transformers) stays out of the way; docmetrics'
        # own warnings are printed explicitly by run()
        warnings.showwarning = show  # type: ignore[assignment]
        warnings.filterwarnings("ignore")


def warn(text: str) -> None:
    print(f"docmetrics: warning: {text}", file=sys.stderr)


def note(args: argparse.Namespace, text: str) -> None:
    if not args.quiet:
        print(f"docmetrics: {text}", file=sys.stderr)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.list:
        print_list(sys.stdout)
        return 0
    if args.describe:
        from .describe import describe

        print(describe(args.describe))
        return 0
    if not args.metrics:
        parser.print_usage(sys.stderr)
        print("docmetrics: error: give metrics with -m (see --list), e.g. -m slide:w=6,s=6", file=sys.stderr)
        return 2
    if not args.input:
        print("docmetrics: error: give system output with -i HYP [HYP ...]", file=sys.stderr)
        return 2
    if args.batch_size is not None and args.batch_size < 1:
        raise UserError(f"--batch-size must be >= 1, not {args.batch_size}")
    from ..evaluation import significance
    from ..runtime import cache
    from . import metaeval
    significance.check_args(args)
    metaeval.check_args(args)
    if significance.requested(args) and args.human:
        raise UserError("give either a paired test (--paired-bs/--paired-ar) or --human, not both")
    score_cache = cache.enable_from_args(args)

    from .. import api
    from ..values import io
    metrics = [
        api.load(spec, device=args.device, batch_size=args.batch_size, precision=args.precision,
                 quiet=args.quiet, defaults={"lang": args.lang})
        for spec in args.metrics
    ]
    if args.jsonl or all(io.is_jsonl(p) for p in args.input):
        if args.source or args.reference or args.doc_ids:
            raise UserError("with JSONL input, sources, references and doc ids come from the JSONL "
                            "objects (src, ref, doc_id); drop -s/-r/--doc-ids")
        testset = io.load_jsonl(args.input)
    else:
        if any(io.is_jsonl(p) for p in args.input):
            raise UserError("mix of JSONL and text files in -i; give all systems in the same form")
        testset = io.load_text(args.input, args.source, args.reference, args.doc_ids)
    if args.doc_per_line:
        testset = _doc_per_line(testset)
    for text in testset.warnings:
        warn(text)
    if testset.doc_ids is None:
        warn("no doc ids (--doc-ids): the whole input is scored as ONE document")

    all_results = []
    for spec, metric in zip(args.metrics, metrics):
        results = metric.compute(testset)
        if metric.requested_signature is not None and results:
            from ..values.signature import compare

            diffs = compare(metric.requested_signature, results[0].signature)
            if diffs:
                warn("this run differs from the signature it was given in: " + "; ".join(diffs))
        for r in results:
            if r.coverage is not None:
                note(args, f"{metric.name} [{r.system}]: {r.coverage.summary()}")
        all_results.append((spec, results))
    if args.dump_alignment:
        _dump_alignment(all_results, args.dump_alignment)
    if score_cache is not None:
        note(args, f"score cache {score_cache.path}: {score_cache.stats.summary()}")
    if significance.requested(args):
        significance.write_paired(all_results, args, sys.stdout)
    elif args.human:
        metaeval.write_metaeval(metaeval.run_metaeval(all_results, args, testset), args, sys.stdout)
    else:
        write_results(all_results, args, sys.stdout)
    return 0


def _doc_per_line(testset: Any) -> Any:
    """--doc-per-line: every line (JSONL object) is its own document, named by its doc id or its
    1-based line number."""
    from ..values.testset import TestSet

    ids = testset.doc_ids
    if ids is None:
        ids = [str(i + 1) for i in range(testset.n_segments)]
    for i in range(1, len(ids)):
        if ids[i] == ids[i - 1]:
            raise UserError(
                f"--doc-per-line: lines {i} and {i + 1} of {testset.describe('doc ids')} have the same "
                f"doc id {ids[i]!r}; with --doc-per-line every line is its own document: give distinct "
                "ids, or drop --doc-per-line to join lines that share an id into one document"
            )
    return TestSet(testset.systems, testset.sources, testset.references, list(ids), names=testset.names)


def _dump_alignment(all_results: list[tuple[str, list[Any]]], path: str) -> None:
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


def fmt(x: float | None, width: int) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return f"{x:.{width}f}"


def write_results(all_results: list[tuple[str, list[Any]]], args: argparse.Namespace, out: TextIO) -> None:
    flat = [r for _, results in all_results for r in results]
    if args.format == "json":
        level = "unit" if args.level == "chunk" else args.level
        json.dump([r.to_dict(level=level, short=args.short) for r in flat], out, indent=1, ensure_ascii=False)
        out.write("\n")
        return
    if args.score_only:
        for r in flat:
            out.write(fmt(r.score, args.width) + "\n")
        return
    n_systems = len(all_results[0][1]) if all_results else 0
    if n_systems == 1:
        for r in flat:
            extra = f" ({r.coverage.summary()})" if r.coverage is not None else ""
            out.write(f"{r.signature.format(short=args.short)} = {fmt(r.score, args.width)}{extra}\n")
    else:
        headers = ["System"] + [f"{res[0].metric} [{k + 1}]" for k, (_, res) in enumerate(all_results)]
        rows = []
        for i in range(n_systems):
            rows.append([all_results[0][1][i].system] + [fmt(res[i].score, args.width) for _, res in all_results])
        widths = [max(len(h), *(len(row[c]) for row in rows)) for c, h in enumerate(headers)]
        out.write("  ".join(h.ljust(widths[c]) for c, h in enumerate(headers)).rstrip() + "\n")
        out.write("  ".join("-" * widths[c] for c in range(len(headers))) + "\n")
        for row in rows:
            out.write("  ".join(v.ljust(widths[c]) if c == 0 else v.rjust(widths[c])
                                for c, v in enumerate(row)).rstrip() + "\n")
        out.write("\n")
        for k, (_, res) in enumerate(all_results):
            out.write(f"[{k + 1}] {res[0].signature.format(short=args.short)}\n")
    if args.level == "doc":
        out.write("\nsystem\tmetric\tdoc_id\tunits\tscore\n")
        for r in flat:
            for d in r.docs:
                out.write(f"{r.system}\t{r.metric}\t{d.doc_id}\t{d.units}\t{fmt(d.score, args.width)}\n")
    elif args.level == "chunk":
        out.write("\nsystem\tmetric\tdoc_id\tfirst_line\tlast_line\tweight\ttruncated\tscore\n")
        for r in flat:
            for u in r.units:
                out.write(f"{r.system}\t{r.metric}\t{u.doc_id}\t{u.start + 1}\t{u.end}\t{u.weight:g}\t"
                          f"{'yes' if u.truncated else 'no'}\t{fmt(u.score, args.width)}\n")


def print_list(out: TextIO) -> None:
    from ..plugin import presets, registry
    kinds = (("metric", "Metrics"), ("backbone", "Backbones"), ("segmenter", "Segmenters"),
             ("tool", "Tools (docmetrics TOOL --help)"))
    for kind, title in kinds:
        infos = registry.plugins(kind)
        if not infos and kind in ("segmenter", "tool"):
            continue
        out.write(f"{title}:\n")
        if not infos:
            out.write("  (none installed)\n")
        for info in infos:
            if info.available:
                status = f"{info.distribution or '?'} {info.dist_version or ''}".strip()
            else:
                status = f"unavailable: needs {', '.join(info.missing)}; {info.install_hint}"
            out.write(f"  {info.name:<26} {status}\n")
    out.write("Presets:\n")
    for name, preset in sorted(presets.presets().items()):
        out.write(f"  {name:<26} = {preset.spec}\n")
    out.write("\nMore: docmetrics --describe NAME\n")
