"""WMT25's automatic scores as stored metrics (wmt-conference/wmt25-general-mt
``data/automatic_scores/SYSTEM.jsonl``): one file per system, named after it; one JSON object per document with
``language_pair`` (``en-ko_KR``), ``domain``, ``document_id`` and ``metric_scores`` ({metric: [one score per
segment, ``null`` where missing]}).  A file may hold any number of language pairs.  One of the file kinds of the
``stored`` format (:mod:`docmetrics.formats.stored`)."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..values.errors import InputError, SpecError, shown
from ..values.io import read_lines
from ..values.jsonl import field_error, json_lines, string_field
from ..values.langpair import parse_langpair
from .stored_metric import StoredMetric, check_magnitude, choose_direction, file_fingerprint, majority

__all__ = ["WMT25_FIELDS", "read_wmt25_scores"]

#: The fields of a line of WMT25's automatic-scores JSONL.
WMT25_FIELDS = ("language_pair", "domain", "document_id", "metric_scores")
#: What a line of WMT25's automatic scores holds (the messages of :func:`~docmetrics.values.jsonl.json_lines`).
WMT25_LINE = f"one JSON object with {', '.join(WMT25_FIELDS)} (a document's automatic scores)"


def _number(value: Any, where: str) -> float | None:
    """A JSON score: a finite number, or None for ``null``; an InputError for anything else."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: {json.dumps(value)} is not a number; a score is a number, or null where "
                         "it is missing")
    value = float(value)
    if not math.isfinite(value):
        raise InputError(f"{where}: {value} is not a finite number; write null where a score is missing")
    return check_magnitude(value, f"{value:g}", where, "write null")


@dataclass
class _Doc:
    doc_id: str
    domain: str
    line: int
    scores: dict[str, list[float | None]]

    @property
    def size(self) -> int:
        return len(next(iter(self.scores.values())))


def _read_wmt25_file(path: str) -> dict[str, list[_Doc]]:
    """lp -> the documents of one system's file, in file order."""
    out: dict[str, list[_Doc]] = {}
    seen: dict[tuple[str, str], int] = {}
    for lineno, where, obj in json_lines(path, read_lines(path), WMT25_LINE):
        need = f"a line of WMT25's automatic scores has {', '.join(WMT25_FIELDS)}"
        missing = [k for k in WMT25_FIELDS if k not in obj]
        if missing:
            raise field_error(where, missing[0], obj, need)
        for key in ("language_pair", "domain", "document_id"):
            string_field(obj, key, where, need, empty=False)
        lp = obj["language_pair"]
        try:
            parse_langpair(lp)
        except SpecError as exc:
            raise InputError(f"{where}, field language_pair: {exc}") from None
        doc = obj["document_id"]
        if (lp, doc) in seen:
            raise InputError(f"{where}, field document_id: document {shown(doc)} of {lp} appears again (first at line "
                             f"{seen[lp, doc]}); a file has one line per document")
        seen[lp, doc] = lineno
        ms = obj["metric_scores"]
        if not isinstance(ms, dict) or not ms:
            raise InputError(f"{where}, field metric_scores: expected an object {{metric: [scores]}} with at least "
                             "one metric")
        scores: dict[str, list[float | None]] = {}
        for name, vals in ms.items():
            f = f"{where}, field metric_scores.{name}"
            if not isinstance(vals, list) or not vals:
                raise InputError(f"{f}: expected a non-empty list of segment scores (null where missing)")
            scores[name] = [_number(v, f"{f}[{i}]") for i, v in enumerate(vals)]
        sizes = {n: len(v) for n, v in scores.items()}
        if len(set(sizes.values())) > 1:
            first = next(iter(sizes))
            other = next(n for n in sizes if sizes[n] != sizes[first])
            raise InputError(f"{where}, field metric_scores.{other}: {sizes[other]} segment scores, but "
                             f"{first} has {sizes[first]}; every metric scores each segment of the document")
        out.setdefault(lp, []).append(_Doc(doc, obj["domain"], lineno, scores))
    return out


def read_wmt25_scores(paths: Sequence[str], declared: Mapping[str, bool] | None = None,
                      systems: Mapping[str, str] | None = None) -> dict[str, dict[str, StoredMetric]]:
    """WMT25's automatic-scores files (one per system, named ``SYSTEM.jsonl``; ``systems``: path -> name
    to name them otherwise): lp -> metric -> :class:`StoredMetric`, language pairs and metrics in the order
    of first appearance, documents in the first system's order.  ``declared``: metric -> higher_is_better,
    where the name alone would not say (see :func:`choose_direction`).

    Per language pair every system must have the same documents, each with the same number of segments,
    and the same metrics; a system may lack a language pair altogether (it did not take part)."""
    if not paths:
        raise InputError("no scores file given")
    names: dict[str, str] = {}
    for path in paths:
        name = (systems or {}).get(path) or os.path.basename(path).rsplit(".", 1)[0]
        if name in names:
            raise InputError(f"{path}: system {shown(name)} again (also {names[name]}); WMT25's automatic scores "
                             f"are one "
                             "file per system, named after it")
        names[name] = path
    read = {name: _read_wmt25_file(path) for name, path in names.items()}
    lps = list(dict.fromkeys(lp for per in read.values() for lp in per))
    out: dict[str, dict[str, StoredMetric]] = {}
    for lp in lps:
        out[lp] = _wmt25_pair(lp, {s: per[lp] for s, per in read.items() if lp in per}, names, declared)
    return out


def _wmt25_pair(lp: str, docs: dict[str, list[_Doc]], files: dict[str, str],
                declared: Mapping[str, bool] | None) -> dict[str, StoredMetric]:
    first = majority({s: frozenset((d.doc_id, d.size) for d in ds) for s, ds in docs.items()})
    ref_docs = docs[first]
    order = [d.doc_id for d in ref_docs]
    ref_by_id = {d.doc_id: d for d in ref_docs}
    metrics = list(ref_docs[0].scores)
    ref_file = files[first]
    scores: dict[str, dict[str, list[float | None]]] = {m: {} for m in metrics}
    lines: dict[str, list[int]] = {}
    for system, sys_docs in docs.items():
        path = files[system]
        by_id = {d.doc_id: d for d in sys_docs}
        for d in sys_docs:
            where = f"{path}, line {d.line}"
            ref = ref_by_id.get(d.doc_id)
            if ref is None:
                raise InputError(f"{where}, field document_id: document {shown(d.doc_id)} of {lp} is not in {ref_file} "
                                 f"({first}); every system has the same documents")
            if d.size != ref.size:
                raise InputError(f"{where}, field metric_scores: {d.size} segment scores for document "
                                 f"{shown(d.doc_id)} of {lp}, but {ref_file}, line {ref.line} has {ref.size}; every "
                                 "system has the same segments")
            if d.domain != ref.domain:
                raise InputError(f"{where}, field domain: {shown(d.domain)} for document {shown(d.doc_id)} of "
                                 f"{lp}, but "
                                 f"{ref_file}, line {ref.line} has {shown(ref.domain)}")
            extra = [m for m in d.scores if m not in scores]
            lacking = [m for m in metrics if m not in d.scores]
            if extra or lacking:
                what = (f"scores of {extra[0]}, which {ref_file}, line {ref_docs[0].line} lacks" if extra
                        else f"no scores of {lacking[0]}, which {ref_file}, line {ref_docs[0].line} has")
                raise InputError(f"{where}, field metric_scores: {what} for {lp}; every system and document of a "
                                 "language pair has the same metrics")
        absent = [doc for doc in order if doc not in by_id]
        if absent:
            raise InputError(f"{path}: no line for document {shown(absent[0])} of {lp} (field document_id), which "
                             f"{ref_file}, line {ref_by_id[absent[0]].line} has; every system has the same "
                             "documents")
        for m in metrics:
            scores[m][system] = [v for doc in order for v in by_id[doc].scores[m]]
        lines[system] = [by_id[doc].line for doc in order for _ in range(by_id[doc].size)]
    doc_ids = [doc for doc in order for _ in range(ref_by_id[doc].size)]
    used = {s: files[s] for s in docs}
    fp = file_fingerprint([used[s] for s in sorted(used)])
    out: dict[str, StoredMetric] = {}
    for m in metrics:
        higher, how = choose_direction(m, scores[m], lines, used, declared)
        out[m] = StoredMetric(m, lp, scores[m], lines, used, fp, "wmt25-jsonl", higher, how, "seg", doc_ids)
    return out
