"""The ``docmetrics`` command: a thin layer over the library API.

``--help``, ``--list`` and ``--version`` import no plugin and no torch.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence, TextIO

from ..values.errors import UserError
from ..values.versions import __version__
from . import metaeval, mtme, significance
from .args import add_cache_arguments, add_input_arguments, add_model_arguments, add_output_arguments
from .errors import guarded, note, warn
from .format import num, table
from .inputs import load_testset

EPILOG = """\
examples:
  docmetrics -m slide:w=6,s=6 -i hyp.txt -s src.txt --doc-ids docids.txt
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
  docmetrics vat ...     variance-aware test sets (a tool plugin, entry-point group docmetrics.tools)

A new document starts wherever the doc id changes (as `sacrebleu --echo docid` writes them).
Errors exit with status 2 and one message; --debug shows the traceback.
"""


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
    add_output_arguments(g)
    g.add_argument("-b", "--score-only", action="store_true", help="print only the score(s)")
    g.add_argument("--level", choices=("system", "doc", "chunk"), default="system",
                   help="also print per-document or per-chunk (per-unit) scores")
    g.add_argument("--dump-alignment", metavar="FILE",
                   help="write the sentence alignments of metrics that align (asd) to FILE: one JSON "
                        "object per system, document and side")
    g.add_argument("-V", "--version", action="version", version=f"docmetrics {__version__}")
    significance.add_arguments(p)
    metaeval.add_arguments(p)
    mtme.add_arguments(p)
    add_cache_arguments(p)
    return p


#: Subcommands built in: ``docmetrics sweep ...``; tools (``docmetrics vat ...``) come from plugins
#: registered under the entry-point group ``docmetrics.tools`` (a callable ``main(argv) -> int``).
SUBCOMMANDS = {"sweep": "docmetrics.cli.sweep", "metaeval": "docmetrics.cli.mtme"}
TOOLS_GROUP = "docmetrics.tools"


def _subcommand(name: str) -> Any:
    """The ``main(argv)`` of a subcommand or tool plugin named ``name``, or None."""
    if name in SUBCOMMANDS:
        import importlib

        return importlib.import_module(SUBCOMMANDS[name]).main
    from ..plugin.registry import entry_points

    for ep in entry_points(TOOLS_GROUP):
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
        from ..plugin.registry import entry_points

        known = sorted(set(SUBCOMMANDS) | {ep.name for ep in entry_points(TOOLS_GROUP)})
        print(f"docmetrics: error: unknown subcommand {argv[0]!r}; available: {', '.join(known)} (tools register "
              f"under the entry-point group {TOOLS_GROUP}); options start with '-' (see docmetrics --help)",
              file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    return guarded("docmetrics", args.debug, lambda: run(args, parser))


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
    if mtme.requested(args):
        return mtme.run(args)
    if not args.input:
        print("docmetrics: error: give system output with -i HYP [HYP ...]", file=sys.stderr)
        return 2
    if args.batch_size is not None and args.batch_size < 1:
        raise UserError(f"--batch-size must be >= 1, not {args.batch_size}")
    significance.check_args(args)
    metaeval.check_args(args)
    if significance.requested(args) and args.human:
        raise UserError("give either a paired test (--paired-bs/--paired-ar) or --human, not both")
    from .. import api
    from ..runtime.cache import ScoreCache

    score_cache = ScoreCache(args.cache or None) if args.cache is not None else None
    try:
        metrics = [
            api.load(spec, device=args.device, batch_size=args.batch_size, precision=args.precision,
                     quiet=args.quiet, defaults={"lang": args.lang},
                     **({"cache": score_cache} if score_cache is not None else {}))
            for spec in args.metrics
        ]
        testset = load_testset(args)
        return score_and_write(args, metrics, testset, score_cache)
    finally:
        if score_cache is not None:
            score_cache.close()


def score_and_write(args: argparse.Namespace, metrics: list[Any], testset: Any, score_cache: Any) -> int:
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
        dump_alignment(all_results, args.dump_alignment)
    if score_cache is not None:
        note(args, f"score cache {score_cache.path}: {score_cache.stats.summary()}")
    if significance.requested(args):
        significance.write_paired(all_results, args, sys.stdout)
    elif args.human:
        metaeval.write_metaeval(metaeval.run_metaeval(all_results, args, testset), args, sys.stdout)
    else:
        write_results(all_results, args, sys.stdout)
    return 0


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


def write_results(all_results: list[tuple[str, list[Any]]], args: argparse.Namespace, out: TextIO) -> None:
    flat = [r for _, results in all_results for r in results]
    if args.format == "json":
        level = "unit" if args.level == "chunk" else args.level
        json.dump([r.to_dict(level=level, short=args.short) for r in flat], out, indent=1, ensure_ascii=False)
        out.write("\n")
        return
    if args.score_only:
        for r in flat:
            out.write(num(r.score, args.width) + "\n")
        return
    n_systems = len(all_results[0][1]) if all_results else 0
    if n_systems == 1:
        for r in flat:
            extra = f" ({r.coverage.summary()})" if r.coverage is not None else ""
            out.write(f"{r.signature.format(short=args.short)} = {num(r.score, args.width)}{extra}\n")
    else:
        headers = ["System"] + [f"{res[0].metric} [{k + 1}]" for k, (_, res) in enumerate(all_results)]
        rows = []
        for i in range(n_systems):
            rows.append([all_results[0][1][i].system] + [num(res[i].score, args.width) for _, res in all_results])
        out.write(table(headers, rows))
        out.write("\n")
        for k, (_, res) in enumerate(all_results):
            out.write(f"[{k + 1}] {res[0].signature.format(short=args.short)}\n")
    if args.level == "doc":
        out.write("\nsystem\tmetric\tdoc_id\tunits\tscore\n")
        for r in flat:
            for d in r.docs:
                out.write(f"{r.system}\t{r.metric}\t{d.doc_id}\t{d.units}\t{num(d.score, args.width)}\n")
    elif args.level == "chunk":
        out.write("\nsystem\tmetric\tdoc_id\tfirst_line\tlast_line\tweight\ttruncated\tscore\n")
        for r in flat:
            for u in r.units:
                out.write(f"{r.system}\t{r.metric}\t{u.doc_id}\t{u.start + 1}\t{u.end}\t{u.weight:g}\t"
                          f"{'yes' if u.truncated else 'no'}\t{num(u.score, args.width)}\n")


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
