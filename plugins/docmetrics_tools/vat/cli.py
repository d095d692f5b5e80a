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

from docmetrics import read_testset
from docmetrics.values.errors import InputError, UserError
from docmetrics.values.io import SELECTION_RECORD, check_output_dir, is_jsonl

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


def run(args: argparse.Namespace) -> int:
    import warnings

    from docmetrics.judging.evaluate import match_systems

    from . import core

    if not 0 < args.percentile < 100:
        raise UserError(f"-p/--percentile must be between 0 and 100 (exclusive), not {args.percentile:g}")
    if args.batch_size is not None and args.batch_size < 1:
        raise UserError(f"--batch-size must be >= 1, not {args.batch_size}")
    out_dir = Path(args.output_dir)
    check_output_dir(args.output_dir, f"-o {args.output_dir}")
    jsonl = args.jsonl or all(is_jsonl(p) for p in args.input)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        testset = read_testset(args.input, args.source, getattr(args, "references", None) or args.reference,
                               args.doc_ids, jsonl=args.jsonl)
    for text in testset.warnings + (["no doc ids (--doc-ids): the whole input is ONE document"]
                                    if testset.doc_ids is None else []):
        print(f"docmetrics vat: warning: {text}", file=sys.stderr)
    targets = output_paths(args, out_dir, jsonl)
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
    files = write_filtered(testset, vat.kept_lines, out_dir, targets, jsonl)
    report = vat.to_dict()
    if testset.selection is not None:  # a filtered set filtered again: lines of the original
        report["kept_lines"] = [testset.selection.lines[n - 1] + 1 for n in report["kept_lines"]]
    report["files"] = files
    record = out_dir / SELECTION_RECORD
    try:
        record.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"-o {out_dir}: cannot write {record} ({exc.strerror})") from None
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
        if vat.joins_strangers():
            print(f"note: {vat.selection()}: in the filtered files some segments follow a segment they "
                  "were not next to; metrics that read neighbouring segments (slide with w > 1, doc-comet, "
                  "doc-bertscore and doc-prism with k > 0, asd) refuse them: for those, filter whole "
                  "documents with --item document")
        print(f"signature: {vat.signature()}")
        print(f"filter metric: {vat.filter_signature}")
        print(f"kept ids and deviations: {record}")
        print("filtered files: " + ", ".join(files.values()))
    return 0


def reference_role(k: int) -> str:
    """The role of the k-th reference (1-based) among the filtered files: reference, reference 2, ..."""
    return "reference" if k == 1 else f"reference {k}"


def output_paths(args: argparse.Namespace, out_dir: Path, jsonl: bool) -> dict[str, Path]:
    """{role: path} of the filtered files (a system's role is its index in -i), checked before any
    scoring: two inputs of the same name, or an output that would overwrite an input, are errors."""
    roles = [(str(k), p) for k, p in enumerate(args.input)]
    if not jsonl:
        references = getattr(args, "references", None) or ([args.reference] if args.reference else [])
        roles += [(role, p) for role, p in (("source", args.source),
                                           *((reference_role(k), r) for k, r in enumerate(references, 1)),
                                           ("doc_ids", args.doc_ids)) if p]
    out: dict[str, Path] = {}
    for role, src_path in roles:
        path = out_dir / os.path.basename(src_path)
        if path in out.values():
            raise InputError(
                f"two inputs are named {path.name}; the filtered files would collide in {out_dir}"
            )
        if path.resolve() == Path(src_path).resolve():
            raise InputError(f"-o {out_dir}: would overwrite the input {src_path}; choose another directory")
        if path.is_dir():
            raise InputError(f"-o {out_dir}: {path} is a directory; the filtered {path.name} cannot be "
                             "written there; choose another directory")
        out[role] = path
    return out


def write_filtered(
    testset: Any, lines: Sequence[int], out_dir: Path, targets: dict[str, Path], jsonl: bool
) -> dict[str, str]:
    """Write the kept lines of every input to ``targets`` (see :func:`output_paths`); returns
    {system or role: path}."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"-o {out_dir}: cannot be created ({exc.strerror})") from None
    written: dict[str, str] = {}

    def write(path: Path, rows: list[str]) -> None:
        try:
            path.write_text("".join(r + "\n" for r in rows), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"-o {out_dir}: cannot write {path} ({exc.strerror})") from None

    for n, (system, hyp) in enumerate(testset.systems.items()):
        path = targets[str(n)]
        if jsonl:
            rows = []
            for i in lines:
                obj = {
                    "doc_id": testset.doc_ids[i] if testset.doc_ids else None,
                    "src": testset.sources[i] if testset.sources else None,
                    "mt": hyp[i],
                    "ref": testset.references[i] if testset.references else None,
                }
                rows.append(json.dumps({k: v for k, v in obj.items() if v is not None}, ensure_ascii=False))
        else:
            rows = [hyp[i] for i in lines]
        write(path, rows)
        written[system] = str(path)
    if jsonl:
        return written
    for role, data in (("source", testset.sources),
                       *((reference_role(k), r) for k, r in enumerate(testset.all_references, 1)),
                       ("doc_ids", testset.doc_ids)):
        if role in targets and data is not None:
            write(targets[role], [data[i] for i in lines])
            written[role] = str(targets[role])
    return written
