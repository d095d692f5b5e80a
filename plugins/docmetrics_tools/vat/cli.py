"""``docmetrics vat``: build a variance-aware test set (Zhan et al., 2021) from system outputs.

::

    docmetrics vat -m slide:w=2,s=1 -i sys/*.txt -s src.txt -r ref.txt --doc-ids ids.txt \\
        --human-systems ref-A -o vat/

writes ``vat/vat.json`` (the kept item ids, each item's standard deviation, the threshold and the
signatures) and the filtered input files (the same names as the inputs: every system, the source,
the reference and the doc ids, keeping only the lines of the kept items), ready to be scored with
``docmetrics -m ... -i vat/<system> -s vat/<src> --doc-ids vat/<ids>``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from docmetrics.values.errors import InputError, UserError

from .core import CITATION, DEFAULT_P, ITEM_LEVELS, SACREBLEU_METRICS


def build_parser() -> argparse.ArgumentParser:
    from docmetrics.cli.args import add_input_arguments, add_model_arguments

    p = argparse.ArgumentParser(
        prog="docmetrics vat",
        description="Variance-aware test sets: keep the items whose filter-metric scores vary most "
        "across systems (Zhan et al., 2021).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="filter metrics: any registered metric spec (docmetrics --list), or sentence-bleu / "
        "sentence-chrf (sacrebleu; need -r).\nexample:\n  docmetrics vat -m sentence-bleu -i sys/*.txt "
        "-r ref.txt -s src.txt --doc-ids ids.txt --human-systems ref-A -o vat/\n\n"
        "rule (the paper's section 3.2): sample standard deviation of each item's scores across the "
        "non-human systems;\ndrop the items at or below the P-th percentile (linear interpolation).\n"
        f"citation: {CITATION}",
    )
    p.add_argument(
        "-m",
        "--metric",
        required=True,
        metavar="SPEC",
        help="the filter metric: a spec/preset/signature, or sentence-bleu / sentence-chrf",
    )
    p.add_argument(
        "-p",
        "--percentile",
        type=float,
        default=DEFAULT_P,
        metavar="P",
        help="drop the items at or below the P-th percentile of the deviations (default: %(default)g)",
    )
    p.add_argument(
        "--item",
        choices=ITEM_LEVELS,
        default="auto",
        help="segment or document items (auto: segment when the metric scores single segments)",
    )
    p.add_argument(
        "--human-systems",
        nargs="+",
        default=[],
        metavar="NAME",
        help="human translations given with -i: left out of the deviation (still filtered)",
    )
    p.add_argument(
        "-o",
        "--output-dir",
        required=True,
        metavar="DIR",
        help="where vat.json and the filtered files are written",
    )
    add_input_arguments(p, required=True)
    g = add_model_arguments(p)
    g.add_argument(
        "--cache",
        nargs="?",
        const="",
        default=None,
        metavar="PATH",
        help="reuse/store backbone scores in the persistent score cache",
    )
    g = p.add_argument_group("output")
    g.add_argument(
        "-f",
        "--format",
        choices=("text", "json"),
        default="text",
        help="what to print (vat.json is always written)",
    )
    g.add_argument("-q", "--quiet", action="store_true")
    g.add_argument("--debug", action="store_true")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except UserError as exc:
        if args.debug:
            raise
        print(f"docmetrics vat: error: {exc}", file=sys.stderr)
        return exc.exit_code


def _load(args: argparse.Namespace) -> Any:
    from docmetrics.values import io

    if args.jsonl or all(io.is_jsonl(p) for p in args.input):
        if args.source or args.reference or args.doc_ids:
            raise UserError("with JSONL input, sources, references and doc ids come from the JSONL objects")
        return io.load_jsonl(args.input), True
    if any(io.is_jsonl(p) for p in args.input):
        raise UserError("mix of JSONL and text files in -i; give all systems in the same form")
    return io.load_text(args.input, args.source, args.reference, args.doc_ids), False


def run(args: argparse.Namespace) -> int:
    import warnings

    from docmetrics.evaluation.metaeval import match_systems

    from . import core

    if not 0 < args.percentile < 100:
        raise UserError(f"-p/--percentile must be between 0 and 100 (exclusive), not {args.percentile:g}")
    if args.batch_size is not None and args.batch_size < 1:
        raise UserError(f"--batch-size must be >= 1, not {args.batch_size}")
    out_dir = Path(args.output_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        testset, jsonl = _load(args)
    human = match_systems(list(testset.systems), args.human_systems)
    unknown = set(args.human_systems) - set(human.values())
    if unknown:
        raise UserError(
            f"--human-systems: {', '.join(sorted(unknown))} is not among the systems given with -i "
            f"({', '.join(testset.systems)})"
        )
    exclude = list(human)

    name = args.metric.strip()
    if name in SACREBLEU_METRICS:
        level = "segment" if args.item == "auto" else args.item
        items = core.segment_items(testset) if level == "segment" else core.document_items(testset)
        scores, signature = core.sacrebleu_item_scores(name, testset, items, level)
    else:
        from docmetrics import api
        from docmetrics.runtime.cache import ScoreCache

        store = ScoreCache(args.cache or None) if args.cache is not None else None
        metric = api.load(
            name,
            device=args.device,
            batch_size=args.batch_size,
            precision=args.precision,
            quiet=args.quiet,
            defaults={"lang": args.lang},
            **({"cache": store} if store is not None else {}),
        )
        try:
            results = metric.compute(testset)
        finally:
            if store is not None:
                store.close()
        level = core.auto_level(results) if args.item == "auto" else args.item
        items = core.segment_items(testset) if level == "segment" else core.document_items(testset)
        scores = {r.system: core.result_item_scores(r, items, level, testset) for r in results}
        signature = results[0].signature.format()
    vat = core.vat_filter(
        scores,
        items,
        level=level,
        p=args.percentile,
        exclude=exclude,
        filter_metric=name,
        filter_signature=signature,
    )
    files = write_filtered(testset, vat.kept_lines, out_dir, args, jsonl)
    report = vat.to_dict()
    report["files"] = files
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "vat.json", "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, ensure_ascii=False)
        f.write("\n")
    if args.format == "json":
        json.dump(report, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        scored = sum(s is not None for s in vat.stds)
        print(
            f"VAT kept {sum(vat.kept)} of {scored} scored {level}s ({len(vat.items)} in all): deviation > "
            f"{vat.threshold:.6g} (the {vat.p:g}th percentile) across {len(vat.systems)} systems"
            + (f" (left out: {', '.join(vat.excluded)})" if vat.excluded else "")
        )
        for note in vat.notes:
            print(f"note: {note}")
        print(f"signature: {vat.signature()}")
        print(f"filter metric: {vat.filter_signature}")
        print(f"kept ids and deviations: {out_dir / 'vat.json'}")
        print("filtered files: " + ", ".join(files.values()))
    return 0


def write_filtered(
    testset: Any, lines: Sequence[int], out_dir: Path, args: argparse.Namespace, jsonl: bool
) -> dict[str, str]:
    """Write the kept lines of every input; returns {role: path}."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}

    def target(src_path: str) -> Path:
        path = out_dir / os.path.basename(src_path)
        if str(path) in written.values():
            raise InputError(
                f"two inputs are named {path.name}; the filtered files would collide in {out_dir}"
            )
        if path.resolve() == Path(src_path).resolve():
            raise InputError(f"-o {out_dir}: would overwrite the input {src_path}; choose another directory")
        return path

    def write(path: Path, rows: list[str]) -> None:
        path.write_text("".join(r + "\n" for r in rows), encoding="utf-8")

    if jsonl:
        for (system, hyp), src_path in zip(testset.systems.items(), args.input):
            path = target(src_path)
            rows = []
            for i in lines:
                obj = {
                    "doc_id": testset.doc_ids[i] if testset.doc_ids else None,
                    "src": testset.sources[i] if testset.sources else None,
                    "mt": hyp[i],
                    "ref": testset.references[i] if testset.references else None,
                }
                rows.append(json.dumps({k: v for k, v in obj.items() if v is not None}, ensure_ascii=False))
            write(path, rows)
            written[system] = str(path)
        return written
    for (system, hyp), src_path in zip(testset.systems.items(), args.input):
        path = target(src_path)
        write(path, [hyp[i] for i in lines])
        written[system] = str(path)
    for role, path_arg, data in (
        ("source", args.source, testset.sources),
        ("reference", args.reference, testset.references),
        ("doc_ids", args.doc_ids, testset.doc_ids),
    ):
        if path_arg and data is not None:
            path = target(path_arg)
            write(path, [data[i] for i in lines])
            written[role] = str(path)
    return written
