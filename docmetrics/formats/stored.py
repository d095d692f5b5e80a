"""Stored scores: a metric whose units are already scored, read from the files people publish.

Two readers live here (the MTME reader, which reuses the MTME score-file parser of
:mod:`docmetrics.formats.mtme_scores`, is :mod:`docmetrics.judging.stored_scoring`):

* **WMT25's automatic scores** (wmt-conference/wmt25-general-mt ``data/automatic_scores/SYSTEM.jsonl``):
  one file per system, named after it; one JSON object per document with ``language_pair``
  (``en-ko_KR``), ``domain``, ``document_id`` and ``metric_scores`` ({metric: [one score per segment,
  ``null`` where missing]}).  A file may hold any number of language pairs.
* **A TSV** of one segment per line: a header ``system<TAB>doc_id<TAB>METRIC[<TAB>METRIC...]`` naming
  each score column, then ``SYSTEM<TAB>DOC_ID<TAB>SCORE...``; a system's lines in test-set order (a
  document's segments consecutive); an empty cell or ``None`` is a missing score.

Each gives :class:`StoredMetric` values: per metric and language pair, every system's segment scores in
test-set order with None where missing (counted, never read as 0), the documents, the metric's own name,
a fingerprint of the files and the direction of its scores.  :func:`to_results` turns one into
docmetrics :class:`~docmetrics.values.result.Result` objects, so a stored metric is judged like a
computed one.

Everything a user can get wrong (systems, documents or segment counts that do not match, a metric with
scores for some systems only, NaN or text where a number belongs, a language pair that is not one or not
in the files) is an :class:`~docmetrics.values.errors.InputError` naming the file, the line and the
field; nothing here prints.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..values.errors import InputError, SpecError, shown
from ..values.io import read_lines
from ..values.jsonl import field_error, json_lines, string_field
from ..values.langpair import parse_langpair
from ..values.result import Coverage, DocScore, Result, UnitScore
from ..values.signature import SigField, Signature
from ..values.testset import TestSet
from ..values.versions import __version__
from .judgements import exact_mean

__all__ = [
    "StoredMetric", "LOWER_IS_BETTER_NAMES", "FINGERPRINT_LENGTH", "file_fingerprint", "choose_direction",
    "parse_direction", "read_wmt25_scores", "read_score_tsv", "to_results", "check_order", "find_pair", "WMT25_FIELDS",
    "MAX_SCORE", "check_magnitude",
]

#: Hex digits of a stored file's fingerprint (as long as a model's, docmetrics.plugin.models).
FINGERPRINT_LENGTH = 10
#: Metrics whose own scores are lower-is-better, by name (case-insensitive search): MetricX's 0..25
#: errors, TER's edit rate.  Stored with every score <= 0, such a metric was stored negated (as WMT25's
#: and MTME's MetricX files are) and is read as higher-is-better.
LOWER_IS_BETTER_NAMES = (re.compile(r"metricx", re.I), re.compile(r"^(?:d-)?ter(?:\b|$)", re.I))
#: The fields of a line of WMT25's automatic-scores JSONL.
WMT25_FIELDS = ("language_pair", "domain", "document_id", "metric_scores")
#: What a line of WMT25's automatic scores holds (the messages of :func:`~docmetrics.values.jsonl.json_lines`).
WMT25_LINE = f"one JSON object with {', '.join(WMT25_FIELDS)} (a document's automatic scores)"
#: How a missing score is written in a TSV cell (besides an empty cell).
_MISSING_TEXT = ("", "None")


@dataclass
class StoredMetric:
    """One stored metric of one language pair.

    ``scores[system]``: one score per item (segment, document or, at ``level`` ``sys``, the one system
    score) in test-set order, None where the file gives none; ``lines[system]``: the line of its file
    each item was read from; ``doc_ids``: the document of each segment (seg level) or each document's
    id (doc level), None where the file does not say; ``files``: where it was read (one per system for
    WMT25's JSONL); ``fingerprint``: a short hash of those files; ``higher_is_better`` and
    ``direction``: the direction of its scores and how it was decided (``declared``, ``name``,
    ``name, stored negated``, ``default``); ``coarser``: the same metric's document- and system-level
    scores where its files give them (MTME's NAME-REF.{doc,sys}.score beside the seg file), level ->
    StoredMetric: judging reads its system and document scores from them, AutoRank does not.
    """

    name: str
    lp: str | None
    scores: dict[str, list[float | None]]
    lines: dict[str, list[int]]
    files: dict[str, str]
    fingerprint: str
    fmt: str
    higher_is_better: bool = True
    direction: str = "default"
    level: str = "seg"
    doc_ids: list[str] | None = None
    coarser: dict[str, StoredMetric] = field(default_factory=dict)

    @property
    def systems(self) -> list[str]:
        return list(self.scores)

    @property
    def n_items(self) -> int:
        return len(next(iter(self.scores.values()), []))

    def file_of(self, system: str) -> str:
        return self.files.get(system) or next(iter(self.files.values()))

    def missing(self) -> dict[str, int]:
        """system -> how many of its items have no score (systems without any gap left out)."""
        out = {s: sum(v is None for v in vals) for s, vals in self.scores.items()}
        return {s: k for s, k in out.items() if k}

    def system_scores(self) -> dict[str, float | None]:
        """system -> the mean over its available items (None where it has none): WMT25's system score."""
        out: dict[str, float | None] = {}
        for s, vals in self.scores.items():
            have = [v for v in vals if v is not None]
            out[s] = exact_mean(have) if have else None
        return out

    def signature(self) -> Signature:
        """``stored|name:NAME|format:FMT|level:LEVEL|file:FINGERPRINT[|better:lower]|v:VERSION``."""
        fields = [SigField("name", "n", self.name), SigField("format", "fmt", self.fmt),
                  SigField("level", "lvl", self.levels), SigField("file", "f", self.fingerprint, is_param=False)]
        if not self.higher_is_better:
            fields.append(SigField("better", "better", "lower", is_param=False))
        return Signature("stored", fields, __version__)

    @property
    def levels(self) -> str:
        """The levels its scores come from, finest first (``seg``, or ``seg+doc+sys`` with coarser files)."""
        return "+".join([self.level, *(lv for lv in ("doc", "sys") if lv in self.coarser)])

    def documents(self) -> list[tuple[str, int, int]]:
        """(doc id, start, end) of each document (segment level); one document ``all`` without doc ids."""
        return _runs(self.doc_ids) if self.doc_ids is not None else [("all", 0, self.n_items)]


def _segments(n: int) -> str:
    return f"{n} segment{'' if n == 1 else 's'}"


def _majority(shapes: Mapping[str, Any]) -> str:
    """The system whose shape (its documents, their sizes) most systems share, the first such on a tie: the
    one a mismatch is measured against, so that the message names the odd system's line, not a good one's."""
    counts: dict[Any, int] = {}
    for shape in shapes.values():
        counts[shape] = counts.get(shape, 0) + 1
    return max(shapes, key=lambda system: counts[shapes[system]])


def _runs(doc_ids: Sequence[str]) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    start = 0
    for i in range(1, len(doc_ids) + 1):
        if i == len(doc_ids) or doc_ids[i] != doc_ids[start]:
            out.append((doc_ids[start], start, i))
            start = i
    return out


# -- direction, fingerprint, numbers ------------------------------------------------------------------------
def parse_direction(text: str) -> tuple[str, bool]:
    """``NAME=higher`` / ``NAME=lower`` -> (NAME, higher_is_better); a SpecError otherwise."""
    name, eq, value = text.rpartition("=")
    if not eq or not name or value not in ("higher", "lower"):
        raise SpecError(f"direction {shown(text)}: write METRIC=higher or METRIC=lower (e.g. MetricX-24=lower)")
    return name, value == "higher"


def choose_direction(name: str, scores: Mapping[str, Sequence[float | None]], lines: Mapping[str, Sequence[int]],
                     files: Mapping[str, str], declared: Mapping[str, bool] | None = None) -> tuple[bool, str]:
    """(higher_is_better, how it was decided) for a stored metric: as ``declared`` (name -> bool); else
    lower-is-better for a name in :data:`LOWER_IS_BETTER_NAMES` unless every score is <= 0 (stored
    negated: higher is better); else higher-is-better.  A lower-is-better name with scores of both signs
    is an InputError naming a line of each sign: declare its direction."""
    if declared and name in declared:
        return bool(declared[name]), "declared"
    if not any(p.search(name) for p in LOWER_IS_BETTER_NAMES):
        return True, "default"
    first: dict[bool, tuple[str, int]] = {}
    for system, vals in scores.items():
        for v, line in zip(vals, lines[system]):
            if v is not None and v != 0:
                first.setdefault(v > 0, (system, line))
    if True in first and False in first:
        (ps, pl), (ns, nl) = first[True], first[False]
        raise InputError(f"{files.get(ps, next(iter(files.values())))}, line {pl}, field {name}: a score above 0, "
                         f"and {files.get(ns, next(iter(files.values())))}, line {nl}: one below 0; {name} is "
                         "lower-is-better unless stored negated (every score <= 0): declare its direction with "
                         f"--direction {name}=lower or {name}=higher")
    if False in first:
        return True, "name, stored negated"
    return False, "name"


def file_fingerprint(paths: Sequence[str]) -> str:
    """A short hash (:data:`FINGERPRINT_LENGTH` hex digits of SHA-256) of the files' bytes, in order."""
    outer = hashlib.sha256()
    for path in paths:
        inner = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 22), b""):
                    inner.update(chunk)
        except OSError as exc:
            raise InputError(f"{path}: cannot be read ({exc.strerror})") from None
        outer.update(inner.digest())
    return outer.hexdigest()[:FINGERPRINT_LENGTH]


#: The largest magnitude a stored score may have: sums of scores and of their squares (means, resamples,
#: correlations) must stay finite; no metric's score comes near it.
MAX_SCORE = 1e100


def check_magnitude(value: float, text: str, where: str, missing: str) -> float:
    """``value``, or an InputError naming ``where`` when it is beyond :data:`MAX_SCORE` (1e308 and -1e308
    would sum to inf - inf, a mean of nan)."""
    if abs(value) > MAX_SCORE:
        raise InputError(f"{where}: {text} is beyond ±{MAX_SCORE:g}, too large to average or resample (sums "
                         f"of such scores overflow); rescale the scores, or {missing} where a score is missing")
    return value


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


def _cell(text: str, where: str) -> float | None:
    """A TSV score: a finite number, or None for an empty cell or ``None``."""
    text = text.strip()
    if text in _MISSING_TEXT:
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: {shown(text)} is not a number; leave the cell empty (or write None) where a "
                         "score is missing") from None
    if not math.isfinite(value):
        raise InputError(f"{where}: {shown(text)} is not a finite number; leave the cell empty (or write None) "
                         "where a score is missing")
    return check_magnitude(value, repr(text), where, "leave the cell empty")


def find_pair(wanted: str, have: Sequence[str], where: str) -> str:
    """The language pair among ``have`` that ``wanted`` names: as written (``en-ko_KR``) or without its
    locales (``en-ko``) where that names one; an InputError listing the pairs otherwise."""
    if wanted in have:
        return wanted
    try:
        lp = parse_langpair(wanted)
    except SpecError as exc:
        raise InputError(f"-l {wanted}: {exc}", params=("lp",)) from None
    bare = f"{lp.src}-{lp.tgt}"
    matches = [p for p in have if p == lp.code or p.lower() == wanted.lower()]
    if not matches:
        # a pair written without locales names the pair with them and the other way round (-l en-de_DE and a
        # TSV's en-de; -l en-de and a release's en-de_DE), where that names one
        matches = [p for p in have if _bare(p) == bare and (lp.code == bare or p == bare)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise InputError(f"{where}: language pair {shown(wanted)} is ambiguous here: {', '.join(matches)}; give one",
                         params=("lp",))
    raise InputError(f"{where}: no language pair {shown(wanted)} (field language_pair); the files have "
                     f"{', '.join(have) or 'none'}", params=("lp",))


def _bare(pair: str) -> str:
    src, _, tgt = pair.partition("-")
    return f"{src.split('_')[0].lower()}-{tgt.split('_')[0].lower()}"


# -- WMT25 automatic-scores JSONL ----------------------------------------------------------------------------
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
    first = _majority({s: frozenset((d.doc_id, d.size) for d in ds) for s, ds in docs.items()})
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


# -- TSV ---------------------------------------------------------------------------------------------------
def read_score_tsv(path: str, lp: str | None = None,
                   declared: Mapping[str, bool] | None = None) -> dict[str, StoredMetric]:
    """A TSV of segment scores (see the module docstring): metric -> :class:`StoredMetric` (language pair
    ``lp``: the file does not say).  Every system must have the same documents with the same number of
    segments, in the same order."""
    rows = read_lines(path)
    if not rows:
        raise InputError(f"{path}: empty file; the first line is a header system<TAB>doc_id<TAB>METRIC")
    header = rows[0].split("\t")
    if len(header) < 3 or header[0] != "system" or header[1] != "doc_id" or not all(h.strip() for h in header[2:]):
        raise InputError(f"{path}, line 1: the header must be system<TAB>doc_id<TAB>METRIC[<TAB>METRIC...] (each "
                         f"score column named), found {shown(rows[0])}")
    metrics = header[2:]
    twice = sorted({m for m in metrics if metrics.count(m) > 1})
    if twice:
        raise InputError(f"{path}, line 1: column {shown(twice[0])} appears twice in the header")
    scores: dict[str, dict[str, list[float | None]]] = {m: {} for m in metrics}
    lines: dict[str, list[int]] = {}
    docs: dict[str, list[str]] = {}
    for lineno, row in enumerate(rows[1:], 2):
        if not row.strip():
            continue
        parts = row.split("\t")
        where = f"{path}, line {lineno}"
        if len(parts) != len(header):
            raise InputError(f"{where}: {len(parts)} fields, the header has {len(header)} "
                             f"({', '.join(header)})")
        system, doc = parts[0].strip(), parts[1].strip()
        if not system:
            raise InputError(f"{where}, field system: empty; every line names its system")
        if not doc:
            raise InputError(f"{where}, field doc_id: empty; every line names its document")
        ids = docs.setdefault(system, [])
        if ids and ids[-1] != doc and doc in ids:
            raise InputError(f"{where}, field doc_id: document {shown(doc)} of system {shown(system)} reappears after "
                             "another document; a document's segments are consecutive")
        ids.append(doc)
        lines.setdefault(system, []).append(lineno)
        for m, text in zip(metrics, parts[2:]):
            scores[m].setdefault(system, []).append(_cell(text, f"{where}, field {m}"))
    if not docs:
        raise InputError(f"{path}: no scores after the header")
    first = _majority({system: tuple(_runs(ids)) for system, ids in docs.items()})
    ref = _runs(docs[first])
    agree = sum(_runs(ids) == ref for ids in docs.values()) - 1
    others = f" (and {agree} other system{'s' if agree != 1 else ''})" if agree else ""
    for system, ids in docs.items():
        runs = _runs(ids)
        if runs == ref:
            continue
        for k, ((d, s, e), (rd, rs, re_)) in enumerate(zip(runs, ref)):
            if d != rd or e - s != re_ - rs:
                raise InputError(f"{path}, line {lines[system][s]}, field doc_id: system {shown(system)} has document "
                                 f"{shown(d)} ({_segments(e - s)}) as its document {k + 1}, where system {shown(first)}"
                                 f"{others} has {shown(rd)} ({_segments(re_ - rs)}, line {lines[first][rs]}); every "
                                 "system has the same documents and segments in the same order")
        line = lines[system][-1]
        raise InputError(f"{path}, line {line}, field doc_id: system {shown(system)} has {len(runs)} documents, "
                         f"system {shown(first)}{others} has {len(ref)}; every system has the same documents")
    fp = file_fingerprint([path])
    files = {s: path for s in docs}
    out: dict[str, StoredMetric] = {}
    for m in metrics:
        higher, how = choose_direction(m, scores[m], lines, files, declared)
        out[m] = StoredMetric(m, lp, scores[m], lines, files, fp, "tsv", higher, how, "seg", list(docs[first]))
    return out


# -- Results ----------------------------------------------------------------------------------------------
def check_order(metric: StoredMetric, order: TestSet | Sequence[str]) -> list[str]:
    """The doc id of each segment of ``order`` (a test set, or its doc ids), checked against a stored
    metric: every system of the test set has scores, one per segment (per document or one at the doc and
    sys level), and the stored documents are the test set's; an InputError naming the file, the line and
    the field otherwise."""
    ids = ([d.doc_id for d in order.documents for _ in range(len(d))] if isinstance(order, TestSet)
           else list(order))
    for m in (metric, *metric.coarser.values()):
        if isinstance(order, TestSet):
            missing = [s for s in order.systems if s not in m.scores]
            if missing:
                first = m.systems[0]
                raise InputError(f"{m.file_of(first)}, field system: no {m.name} scores of system {shown(missing[0])}, "
                                 f"which the test set has (the file has {', '.join(m.systems)})")
        if m.scores and all(v is None for vals in m.scores.values() for v in vals):
            first = m.systems[0]
            others = " (or pick the other metrics with --stored NAME...)" if m.fmt == "tsv" else ""
            raise InputError(f"{m.file_of(first)}, field {m.name}: every {m.level}-level score is empty (all "
                             f"{sum(map(len, m.scores.values()))} of {len(m.scores)} systems): there is nothing to "
                             f"judge; fill in {m.name}'s scores, or leave it out of the file{others}")
        want = {"seg": len(ids), "doc": len(_runs(ids)) if ids else 0, "sys": 1}[m.level]
        if m.n_items != want:
            first = m.systems[0]
            what = {"seg": "segments", "doc": "documents", "sys": "system score"}[m.level]
            raise InputError(f"{m.file_of(first)}, line {m.lines[first][-1] if m.lines.get(first) else 1}, field "
                             f"{m.name}: {m.n_items} {m.level}-level scores of system {shown(first)}, the test set has "
                             f"{want} {what}; the stored scores belong to another test set (or a subset of it)")
    doc_ids = metric.doc_ids
    if doc_ids is not None and metric.level == "seg" and _runs(doc_ids) != _runs(ids):
        theirs, ours = _runs(ids), _runs(doc_ids)
        k = next((k for k, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        system = metric.systems[0]
        line = metric.lines[system][ours[k][1]] if k < len(ours) else metric.lines[system][-1]
        raise InputError(f"{metric.file_of(system)}, line {line}, field doc_id: the stored documents differ from "
                         f"the test set's at document {k + 1} ({shown(ours[k][0] if k < len(ours) else 'none')}, "
                         f"{ours[k][2] - ours[k][1] if k < len(ours) else 0} segments, vs "
                         f"{shown(theirs[k][0] if k < len(theirs) else 'none')}, "
                         f"{theirs[k][2] - theirs[k][1] if k < len(theirs) else 0} segments)")
    return ids


def to_results(metric: StoredMetric, order: TestSet | Sequence[str] | None = None) -> list[Result]:
    """One :class:`~docmetrics.values.result.Result` per system of a stored metric: one UnitScore per
    scored segment, a DocScore per document (the mean over its scored segments, None where none is),
    the system score the mean over the scored segments (NaN where none is), coverage counting the
    missing ones, the stored signature and the metric's direction.  Where the metric has coarser files
    (:attr:`StoredMetric.coarser`), its system and document scores are theirs, as the files give them.

    ``order``: the test set the scores belong to (or its doc id per segment): its systems, documents and
    segment counts must be the stored ones (:func:`check_order`, an InputError otherwise); it also names
    the documents where the stored file does not.  Document- and system-level stored metrics give
    DocScores or the score alone."""
    doc_ids = metric.doc_ids
    if order is not None:
        ids = check_order(metric, order)
        if metric.level == "seg":
            doc_ids = ids
        elif metric.level == "doc" and doc_ids is None:
            doc_ids = [d for d, _, _ in _runs(ids)]
    signature = metric.signature()
    params = {"name": metric.name, "format": metric.fmt, "level": metric.levels, "file": metric.fingerprint}
    systems = list(order.systems) if isinstance(order, TestSet) else metric.systems
    sys_file, doc_file = metric.coarser.get("sys"), metric.coarser.get("doc")
    out = []
    for system in systems:
        vals = metric.scores[system]
        have = [v for v in vals if v is not None]
        score = exact_mean(have) if have else math.nan
        units: list[UnitScore] = []
        docs: list[DocScore] = []
        if metric.level == "seg":
            runs = _runs(doc_ids) if doc_ids is not None else [("all", 0, len(vals))]
            for doc, start, end in runs:
                scored = [v for v in vals[start:end] if v is not None]
                units += [UnitScore(doc, i, i + 1, v) for i, v in enumerate(vals[start:end], start) if v is not None]
                docs.append(DocScore(doc, exact_mean(scored) if scored else None, len(scored)))
            n_docs = len(runs)
        elif metric.level == "doc":
            names = doc_ids or [f"doc{k + 1}" for k in range(len(vals))]
            docs = [DocScore(d, v, 1 if v is not None else 0) for d, v in zip(names, vals)]
            n_docs = len(vals)
        else:
            n_docs = 0
        if doc_file is not None and docs:
            docs = [DocScore(d.doc_id, v, d.units) for d, v in zip(docs, doc_file.scores[system])]
        if sys_file is not None:
            stored = sys_file.scores[system][0]
            score = math.nan if stored is None else stored
        lost = len(vals) - len(have)
        coverage = Coverage(
            segments_total=len(vals) if metric.level == "seg" else 0,
            segments_scored=len(have) if metric.level == "seg" else 0,
            units=len(units), documents_total=n_docs,
            documents_scored=sum(d.score is not None for d in docs),
            counters={"missing scores": lost} if lost else {}, can_truncate=False)
        out.append(Result(system, metric.name, score, signature, dict(params), units, docs, coverage,
                          higher_is_better=metric.higher_is_better))
    return out
