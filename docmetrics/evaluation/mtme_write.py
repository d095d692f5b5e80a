"""Writing one metric's results as MTME score files (``metric-scores/LP/NAME-REF.{sys,doc,seg}.score``), higher
better as MTME reads every score."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..values.errors import InputError, shown
from ..values.result import Result

__all__ = ["mtme_metric_name", "WrittenScores", "write_mtme_scores"]


def mtme_metric_name(name: str) -> str:
    """A metric name usable as NAME in NAME-REF.LEVEL.score: letters, digits and ``._+-`` kept,
    anything else (spaces, ``/``, ``:``, ``=``, ``,``) replaced by ``_``."""
    safe = re.sub(r"[^A-Za-z0-9._+-]+", "_", name).strip("._")
    return safe or "metric"


def _check_ref_name(ref: str) -> None:
    parts = ref.split(".")
    if not ref or any(not p or "-" in p or not re.fullmatch(r"[A-Za-z0-9_+]+", p) for p in parts):
        raise InputError(
            f"bad reference name {ref!r} for an MTME score file: a reference name (or several joined "
            "with '.') without '-', or 'src' for a metric that uses no reference"
        )


@dataclass
class WrittenScores:
    """What :func:`write_mtme_scores` wrote, and why a level was not written."""

    metric: str
    ref: str
    paths: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    #: True where the metric's lower scores are better: written negated, as MTME stores every score
    #: with higher better (its own MetricX files hold negated scores)
    negated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "ref": self.ref, "paths": self.paths, "skipped": self.skipped,
                **({"negated": True} if self.negated else {})}


def _fmt(x: float) -> str:
    return repr(float(x))


def _seg_lines(results: Sequence[Result], n_segments: int) -> tuple[list[str], str | None]:
    lines: list[str] = []
    for r in results:
        per_line: dict[int, float] = {}
        for u in r.units:
            if u.end - u.start != 1:
                return [], f"{r.metric} scores units of several segments (e.g. windows): no segment-level scores"
            if u.start in per_line:
                return [], f"system {r.system!r} has two scores for segment {u.start + 1}"
            per_line[u.start] = u.score
        for i in range(n_segments):
            v = per_line.get(i)
            if v is None or math.isnan(v):
                return [], f"system {r.system!r} has no score for segment {i + 1}; MTME score files hold no gaps"
            lines.append(f"{r.system}\t{_fmt(v)}")
    return lines, None


def _doc_lines(results: Sequence[Result], doc_order: Sequence[str]) -> tuple[list[str], str | None]:
    lines: list[str] = []
    for r in results:
        scores: dict[str, float | None] = {}
        for ds in r.docs:
            if ds.doc_id in scores:
                return [], f"document {shown(ds.doc_id)} of system {r.system!r} is not one contiguous block"
            scores[ds.doc_id] = ds.score
        for doc in doc_order:
            v = scores.get(doc)
            if v is None or math.isnan(v):
                return [], f"system {r.system!r} has no score for document {shown(doc)}; MTME score files hold no gaps"
            lines.append(f"{r.system}\t{_fmt(v)}")
    return lines, None


def write_mtme_scores(
    out_root: str | os.PathLike[str],
    testset: str,
    lp: str,
    metric_name: str,
    ref_name: str,
    results: Sequence[Result],
    *,
    n_segments: int | None = None,
    doc_ids: Sequence[str] | None = None,
) -> WrittenScores:
    """Write one metric's results as ``OUT/TESTSET/metric-scores/LP/NAME-REF.{sys,doc,seg}.score``.

    One line ``SYSTEM<TAB>SCORE`` per system (sys), per system and document in document order (doc)
    and per system and segment in order (seg), systems in the order of ``results``.  The seg file is
    written when every unit is one segment and every segment has a score (``n_segments``: the test
    set's size, default: the results' coverage); the doc file when every document (``doc_ids``: the
    document order, default: the first result's) has a score.  A level not written is in
    :attr:`WrittenScores.skipped` with the reason.  MTME reads every score as higher-better: the scores of
    a metric whose lower scores are better are written negated (:attr:`WrittenScores.negated`).
    """
    if not results:
        raise InputError("no results to write")
    negated = not all(r.higher_is_better for r in results)
    results = [r.oriented() for r in results]
    _check_ref_name(ref_name)
    name = mtme_metric_name(metric_name)
    seen: set[str] = set()
    for r in results:
        if not r.system or any(ch.isspace() for ch in r.system):
            raise InputError(f"system name {r.system!r}: MTME score files need names without whitespace")
        if r.system in seen:
            raise InputError(f"system {r.system!r} appears twice in the results")
        seen.add(r.system)
        if math.isnan(r.score):
            raise InputError(f"system {r.system!r} has no {r.metric} score; MTME score files hold no gaps")
    out_dir = os.path.join(os.fspath(out_root), testset, "metric-scores", lp)
    os.makedirs(out_dir, exist_ok=True)
    written = WrittenScores(name, ref_name, negated=negated)
    by_level: dict[str, list[str]] = {"sys": [f"{r.system}\t{_fmt(r.score)}" for r in results]}

    if n_segments is None:
        cov = results[0].coverage
        last = max((u.end for r in results for u in r.units), default=0)
        n_segments = cov.segments_total if cov is not None else last
    if n_segments:
        lines, why = _seg_lines(results, n_segments)
        if why:
            written.skipped["seg"] = why
        else:
            by_level["seg"] = lines
    else:
        written.skipped["seg"] = "no segment count known: pass n_segments"

    order = list(doc_ids) if doc_ids is not None else [d.doc_id for d in results[0].docs]
    if order:
        lines, why = _doc_lines(results, order)
        if why:
            written.skipped["doc"] = why
        else:
            by_level["doc"] = lines
    else:
        written.skipped["doc"] = "no document scores"

    for level, lines in by_level.items():
        path = os.path.join(out_dir, f"{name}-{ref_name}.{level}.score")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        written.paths[level] = path
    return written

