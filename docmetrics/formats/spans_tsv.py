"""An MQM span TSV (as ../shared/data's ``spans.tsv``): human error spans placed on a test set's lines, for the
report's document view.  Columns system, doc_id, doc_pos, start, end, severity; category, rater and span_text
where present; offsets into the system's line."""

from __future__ import annotations

import csv
import os
from typing import Any

from ..values.errors import InputError
from ..values.testset import TestSet

__all__ = ["read_spans_tsv", "merge_spans"]

#: The columns a span TSV must have.
COLUMNS = ("system", "doc_id", "doc_pos", "start", "end", "severity")


def read_spans_tsv(path: str, testset: TestSet) -> tuple[dict[str, dict[str, list[list[Any]]]], list[str]]:
    """``path``'s spans as ``system -> {line: [[start, end, severity, category], ...]}`` on the test set's systems
    (a name, or its file's stem; an error without a place has start and end None; the rater follows the
    category), and notes on the rows left out (no-error rows are not spans)."""
    first = {d.doc_id: (d.start, d.end) for d in testset.documents}
    names: dict[str, str] = {}
    for name in testset.systems:
        names.setdefault(name, name)
        names.setdefault(os.path.splitext(os.path.basename(name))[0], name)
    out: dict[str, dict[str, list[list[Any]]]] = {}
    unknown: dict[str, int] = {}
    outside = differ = 0
    try:
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
            if missing:
                raise InputError(f"{path}: no column {', '.join(missing)} (it needs system, doc_id, doc_pos, start, "
                                 "end, severity; category, rater and span_text where present)")
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
                    raise InputError(f"{path}, line {n}: doc_pos, start and end must be integers (start and end "
                                     "may be empty: an error without a place)") from None
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
        raise InputError(f"{path}: cannot read the file ({exc.strerror})") from None
    notes = []
    if unknown:
        notes.append(f"{path}: left out {sum(unknown.values())} spans of what the test set does not have ("
                     + ", ".join(f"{k}: {v}" for k, v in sorted(unknown.items())[:6]) + ")")
    if outside:
        notes.append(f"{path}: left out {outside} spans outside their line")
    if differ:
        notes.append(f"{path}: {differ} spans whose span_text differs from the line's text there")
    return out, notes


def merge_spans(*found: dict[str, dict[str, list[list[Any]]]] | None) -> dict[str, Any] | None:
    """Several ``system -> {line: [span, ...]}`` as one (a line's spans in the order given); None where none."""
    out: dict[str, dict[str, list[list[Any]]]] = {}
    for spans in found:
        for system, lines in (spans or {}).items():
            for line, xs in lines.items():
                out.setdefault(system, {}).setdefault(line, []).extend(xs)
    return out or None
