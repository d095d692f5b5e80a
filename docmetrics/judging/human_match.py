"""Human judgements (:mod:`docmetrics.formats.human_tsv` reads them) matched to the systems scored and placed
on the test set's lines."""

from __future__ import annotations

import difflib
import os
from typing import Sequence

from ..formats.human_tsv import HumanScores
from ..values.errors import InputError, UserError
from ..values.testset import TestSet

__all__ = ["match_systems", "closest_system", "segment_rows"]


def match_systems(names: Sequence[str], human: Sequence[str]) -> dict[str, str]:
    """Result system name -> human system name: the same name, or the file name without its
    extension(s) (``Online-W.txt`` and ``Online-W.en-de.jsonl`` match ``Online-W``)."""
    known = set(human)
    out = {}
    for name in names:
        base = os.path.basename(name)
        candidates = [name, base]
        stem = base
        while True:
            stem, ext = os.path.splitext(stem)
            if not ext:
                break
            candidates.append(stem)
        hit = next((c for c in candidates if c in known), None)
        if hit is not None:
            out[name] = hit
    return out


def closest_system(name: str, human: Sequence[str]) -> str | None:
    """The human file's name most like system ``name`` (which :func:`match_systems` did not match), for a
    "did you mean": the same name but for case (``nemo.txt`` and ``Nemo``), else the closest by
    :func:`difflib.get_close_matches` of the file name without its extension(s); None when none is close."""
    stem = os.path.basename(name).split(".")[0].lower() or name.lower()
    lower = {h.lower(): h for h in human}
    if stem in lower or name.lower() in lower:
        return lower.get(stem) or lower[name.lower()]
    close = difflib.get_close_matches(stem, list(lower), n=1, cutoff=0.6)
    return lower[close[0]] if close else None


def segment_rows(human: HumanScores, testset: TestSet | None) -> dict[str, list[float | None]]:
    """Every system's segment scores on the test set's lines (system -> one score per line, None
    where the file has none): a segment goes to line ``start + position - 1`` of the first document of
    the test set with its doc id."""
    if not human.segment_level:
        raise InputError(
            f"{human.path}: segment-level correlation needs segment scores "
            "(columns system, doc_id, seg_id, score)"
        )
    if testset is None:
        raise UserError("segment-level correlation needs the test set (to place segments)")
    line_of: dict[tuple[str, str], int] = {}
    docs = {}
    for d in testset.documents:
        docs.setdefault(d.doc_id, d)
    for key, pos in human.positions.items():
        doc = docs.get(key[0])
        if doc is None:
            continue
        if pos > len(doc):
            raise InputError(
                f"{human.path}: segment {key[1]} of document {key[0]!r} is at position {pos}, "
                f"but the document has {len(doc)} lines in the input"
            )
        line_of[key] = doc.start + pos - 1
    if not line_of:
        raise InputError(f"{human.path}: none of its doc ids occurs in the input's doc ids (--doc-ids)")
    rows: dict[str, list[float | None]] = {}
    for name, scores in human.segments.items():
        row: list[float | None] = [None] * testset.n_segments
        for key, value in scores.items():
            if key in line_of:
                row[line_of[key]] = value
        rows[name] = row
    return rows
