"""Candidates for MBR and reranking in ONE JSONL file (``docmetrics mbr -c cands.jsonl``): one JSON object per
line, every line of one of two layouts (not mixed):

* **per segment**: ``{"candidates": ["cand 0", "cand 1", ...], "src": "...", "ref": "...", "doc_id": "...",
  "paragraph_id": "..."}``: the N candidate translations of one segment;
* **per document**: ``{"doc_id": "...", "candidates": [["cand 0, line 1", ...], ["cand 1, line 1", ...], ...],
  "src": [...], "ref": [...], "paragraph_id": [...]}``: each candidate a list of the document's lines (every
  candidate, and src/ref/paragraph_id where given, as many lines); ``doc_id`` is required.

``candidates`` is required on every line, with the same N >= 2 on every line (candidate k of every line is
candidate k: "candidate 0", "candidate 1", ...); ``src``, ``ref``, ``doc_id`` and ``paragraph_id`` are optional,
but on every line or on none.  Every fault is an :class:`~docmetrics.values.errors.InputError` naming the file,
the line and the field.  Nothing here prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .io import read_lines
from .jsonl import field_error, json_lines, string_field
from .testset import TestSet

__all__ = ["CandidateFile", "read_candidates", "LINE", "OPTIONAL"]

#: What a line of the candidates JSONL holds (the messages of json_lines).
LINE = 'one JSON object with "candidates" (a list of N strings, or of N lists of lines per document)'
#: The optional fields, each on every line or on none.
OPTIONAL = ("src", "ref", "doc_id", "paragraph_id")
_NEED = ('every line needs "candidates": a list of N >= 2 strings (per segment) or of N lists of strings '
         "(per document), N the same on every line")


@dataclass(frozen=True)
class CandidateFile:
    """The candidates of a JSONL file as a test set (system k: candidate k of every line), and each line's
    paragraph id where the file gives them (for ``unit="paragraph"``)."""

    testset: TestSet
    paragraph_ids: list[str] | None
    layout: str  # "segment" or "document"


def read_candidates(path: str) -> CandidateFile:
    """The candidates JSONL at ``path`` (see the module docstring), validated."""
    columns: dict[str, list[str]] = {key: [] for key in OPTIONAL}
    texts: list[list[str]] = []
    line_numbers: list[int] = []
    layout = n = None
    has: dict[str, bool] = {}
    first_line = 0
    for i, where, obj in json_lines(path, read_lines(path), LINE):
        cands = obj.get("candidates")
        if not isinstance(cands, list) or len(cands) < 2:
            if "candidates" not in obj:
                raise field_error(where, "candidates", obj, _NEED)
            raise InputError(f"{where}, field candidates: {_count(cands)}; {_NEED}")
        this = "document" if all(isinstance(c, list) for c in cands) else "segment"
        if layout is None:
            layout, n, first_line = this, len(cands), i
            has = {key: key in obj and obj[key] is not None for key in OPTIONAL}
            texts = [[] for _ in range(n)]
        elif this != layout:
            raise InputError(f"{where}, field candidates: a {this}'s candidates, and line {first_line} has a "
                             f"{layout}'s; give every line in one layout (strings per segment, or lists of lines "
                             "per document)")
        if len(cands) != n:
            raise InputError(f"{where}, field candidates: {len(cands)} candidates, and line {first_line} has {n}; "
                             "every line needs the same N candidates, candidate k of every line being candidate k")
        for key in OPTIONAL:
            if (key in obj and obj[key] is not None) != has[key]:
                state = "missing here" if has[key] else "given here"
                other = "given" if has[key] else "missing"
                raise InputError(f"{where}, field {key}: {state} but {other} on line {first_line}; give {key} on "
                                 "every line or on none")
        if layout == "segment":  # a document of one line
            for k, c in enumerate(cands):
                if not isinstance(c, str):
                    raise InputError(f"{where}, field candidates[{k}]: {_shown(c)} is not a string; {_NEED}")
            lines = [[c] for c in cands]
            given = {key: [string_field(obj, key, where, f"{key} is a string where given",
                                        number=key in ("doc_id", "paragraph_id"))] for key in OPTIONAL if has[key]}
        else:
            doc_id = string_field(obj, "doc_id", where, "every line of the per-document layout needs its doc_id",
                                  empty=False, number=True)
            lines = []
            for k, c in enumerate(cands):
                lines.append(_lines(c, f"{where}, field candidates[{k}]"))
                if len(c) != len(lines[0]):
                    raise InputError(f"{where}, field candidates[{k}]: {len(c)} lines, and candidates[0] has "
                                     f"{len(lines[0])}; every candidate of a document needs as many lines")
            if not lines[0]:
                raise InputError(f"{where}, field candidates: the document has no lines; give each candidate's lines")
            given = {"doc_id": [doc_id] * len(lines[0])}
            for key in ("src", "ref", "paragraph_id"):
                if has[key]:
                    given[key] = _lines(obj[key], f"{where}, field {key}", number=key == "paragraph_id")
                    if len(given[key]) != len(lines[0]):
                        raise InputError(f"{where}, field {key}: {len(given[key])} lines, and the candidates have "
                                         f"{len(lines[0])}; give {key} line-parallel with the candidates")
        for k, c in enumerate(lines):
            texts[k] += c
        for key, values in given.items():
            columns[key] += values
        line_numbers += [i] * len(lines[0])
    if layout is None:
        raise InputError(f"{path}: no candidates (the file has no JSON line); {_NEED}")
    labels = {f"candidate {k}": f"{path} candidate {k}" for k in range(len(texts))}
    labels.update({"source": f"{path} (src)", "reference": f"{path} (ref)", "doc ids": f"{path} (doc_id)",
                   "paragraph ids": f"{path} (paragraph_id)"})

    def col(key: str) -> list[str] | None:
        return columns[key] if has[key] else None

    testset = TestSet({f"candidate {k}": t for k, t in enumerate(texts)}, col("src"), col("ref"), col("doc_id"),
                      names=labels, line_numbers=line_numbers)
    return CandidateFile(testset, col("paragraph_id"), layout)


def _count(value: Any) -> str:
    if isinstance(value, list):
        return f"{len(value)} candidate{'s' if len(value) != 1 else ''}"
    return f"{_shown(value)} is not a list"


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:60]


def _lines(value: Any, where: str, *, number: bool = False) -> list[str]:
    """A per-document field: a list of strings (``number``: integers read as their text)."""
    if not isinstance(value, list):
        raise InputError(f"{where}: {_shown(value)} is not a list of lines; in the per-document layout it is one "
                         "string per line of the document")
    out = []
    for k, line in enumerate(value):
        if number and isinstance(line, int) and not isinstance(line, bool):
            line = str(line)
        if not isinstance(line, str):
            raise InputError(f"{where}[{k}]: {_shown(line)} is not a string; every line is a string")
        out.append(line)
    return out
