"""``docmetrics mbr`` and ``docmetrics rerank``: read the candidates, call :func:`docmetrics.mbr` or
:func:`docmetrics.rerank`, print what they return (-f text: its summary, -f json: its ``to_dict()``) and write
the chosen lines to -o FILE."""

from __future__ import annotations

import sys

from ..api import TestSet, is_jsonl, read_lines, read_testset
from ..judging import CandidateSelection, mbr, read_candidates, rerank
from ..values.errors import UserError
from .common import check_outputs, session_scope
from .inputs import once_each
from .messages import note, warn
from .options import Options
from .output import json_text

__all__ = ["run_mbr", "run_rerank"]


def _testset(opts: Options, who: str) -> tuple[TestSet, list[str] | None]:
    """The candidates as a test set, and the paragraph ids (--paragraph-ids) where given."""
    check_outputs(opts)
    candidates = once_each(opts.candidates or [], "-c", who)
    paragraph_ids = None
    if any(is_jsonl(c) for c in candidates):
        if len(candidates) > 1:
            raise UserError(f"-c {' '.join(candidates)}: give the candidates as ONE JSONL file (-c cands.jsonl, "
                            "all N candidates on each line) or as N text files, not both")
        given = [flag for flag, value in (("-s", opts.source), ("-r", opts.reference), ("--doc-ids", opts.doc_ids),
                                          ("--paragraph-ids", opts.paragraph_ids)) if value]
        if given:
            raise UserError(f"-c {candidates[0]} is JSONL: its sources, reference, doc ids and paragraph ids come "
                            f"from its fields (src, ref, doc_id, paragraph_id); drop {' '.join(given)}")
        read = read_candidates(candidates[0])
        testset = read.testset
        if opts.unit == "paragraph":  # the JSONL's paragraph_id fields serve --unit paragraph only
            paragraph_ids = read.paragraph_ids
    else:
        testset = read_testset(candidates, opts.source, opts.reference, opts.doc_ids)
    if opts.paragraph_ids:
        paragraph_ids = read_lines(opts.paragraph_ids)
        testset.names["paragraph ids"] = opts.paragraph_ids  # the library's messages name the file
    for text in testset.warnings:
        warn(text, who)
    if testset.doc_ids is None and opts.unit == "document":
        warn("no doc ids (--doc-ids): the whole input is ONE document, so one candidate is chosen for all of it", who)
    return testset, paragraph_ids


def _print(selection: CandidateSelection, opts: Options, who: str) -> int:
    sys.stdout.write(json_text(selection.to_dict()) if opts.format == "json" else selection.to_text())
    if opts.output:
        try:
            with open(opts.output, "w", encoding="utf-8") as f:
                f.writelines(line + "\n" for line in selection.lines)
        except OSError as exc:
            raise UserError(f"-o {opts.output}: cannot write the file ({exc.strerror})") from None
        note(opts, f"wrote the {len(selection.lines)} chosen lines to {opts.output}", who)
    return 0


def run_mbr(opts: Options) -> int:
    who = "docmetrics mbr"
    testset, paragraph_ids = _testset(opts, who)
    with session_scope(opts, cache=opts.cache) as session:
        selection = mbr(opts.metric or "", testset, unit=opts.unit, paragraph_ids=paragraph_ids, matrix=opts.matrix,
                        prune_top_k=opts.prune_top_k, prune_metric=opts.prune_metric, session=session)
    return _print(selection, opts, who)


def run_rerank(opts: Options) -> int:
    who = "docmetrics rerank"
    testset, paragraph_ids = _testset(opts, who)
    with session_scope(opts, cache=opts.cache) as session:
        selection = rerank(opts.metric or "", testset, unit=opts.unit, paragraph_ids=paragraph_ids,
                           session=session)
    return _print(selection, opts, who)
