"""A stored metric, the value every file of stored scores gives (:mod:`docmetrics.formats.stored`): per metric and
language pair, every system's scores in test-set order with None where missing, the documents, the metric's own
name, a fingerprint of the files and the direction of its scores; what its readers share (the direction a name
implies or the user declares, the fingerprint, the largest score); its Results on a test set (:func:`to_results`)
and the metric a judging run scores it as (:class:`StoredScorer`)."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, Union

from ..values.errors import InputError, SpecError, shown
from ..values.result import Coverage, DocScore, Result, UnitScore
from ..values.signature import SigField, Signature
from ..values.testset import TestSet, runs
from ..values.versions import __version__
from .judgements import exact_mean

__all__ = ["StoredMetric", "STORED_LEVELS", "Directions", "parse_direction", "declared_directions", "choose_direction",
           "LOWER_IS_BETTER_NAMES", "FINGERPRINT_LENGTH", "file_fingerprint", "MAX_SCORE", "check_magnitude",
           "parse_score", "majority", "check_order", "to_results", "StoredScorer"]

#: Hex digits of a stored file's fingerprint (as long as a model's, docmetrics.plugin.models).
FINGERPRINT_LENGTH = 10
#: Metrics whose own scores are lower-is-better, by name (case-insensitive search): MetricX's 0..25
#: errors, TER's edit rate.  Stored with every score <= 0, such a metric was stored negated (as WMT25's
#: and MTME's MetricX files are) and is read as higher-is-better.
LOWER_IS_BETTER_NAMES = (re.compile(r"metricx", re.I), re.compile(r"^(?:d-)?ter(?:\b|$)", re.I))


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
        return runs(self.doc_ids) if self.doc_ids is not None else [("all", 0, self.n_items)]


def majority(shapes: Mapping[str, Any]) -> str:
    """The system whose shape (its documents, their sizes) most systems share, the first such on a tie: the
    one a mismatch is measured against, so that the message names the odd system's line, not a good one's."""
    counts: dict[Any, int] = {}
    for shape in shapes.values():
        counts[shape] = counts.get(shape, 0) + 1
    return max(shapes, key=lambda system: counts[shapes[system]])


# -- direction, fingerprint, numbers ------------------------------------------------------------------------
def parse_direction(text: str) -> tuple[str, bool]:
    """``NAME=higher`` / ``NAME=lower`` -> (NAME, higher_is_better); a SpecError otherwise."""
    name, eq, value = text.rpartition("=")
    if not eq or not name or value not in ("higher", "lower"):
        raise SpecError(f"direction {shown(text)}: write METRIC=higher or METRIC=lower (e.g. MetricX-24=lower)",
                        params=("directions",))
    return name, value == "higher"


#: How the direction of stored metrics is declared: ``{name: higher_is_better}`` or ``["NAME=higher", ...]``.
Directions = Union[Mapping[str, bool], Sequence[str], None]


def declared_directions(given: Directions) -> dict[str, bool]:
    """``given`` as ``{name: higher_is_better}``: a mapping as it is, each text by :func:`parse_direction`."""
    if given is None or isinstance(given, Mapping):
        return dict(given or {})
    return dict(parse_direction(text) for text in ([given] if isinstance(given, str) else given))


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


def parse_score(text: str, where: str, missing: str, *, nan_is_missing: bool = False, bounded: bool = True
                ) -> float | None:
    """A score written as text: a finite number (within :func:`check_magnitude`'s bound where ``bounded``), or None
    for NaN where ``nan_is_missing``; an InputError naming ``where`` otherwise, saying how a missing score is
    written (``missing``)."""
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: {shown(text)} is not a number; {missing} where a score is missing") from None
    if math.isnan(value) and nan_is_missing:
        return None
    if not math.isfinite(value):
        raise InputError(f"{where}: {shown(text)} is not a finite number; {missing} where a score is missing")
    return check_magnitude(value, repr(text), where, missing) if bounded else value


#: the levels a metric score file is read at as a stored metric, finest first: where one metric is given at
#: several, the finest is the one kept
STORED_LEVELS = ("seg", "doc", "sys")


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
        want = {"seg": len(ids), "doc": len(runs(ids)) if ids else 0, "sys": 1}[m.level]
        if m.n_items != want:
            first = m.systems[0]
            what = {"seg": "segments", "doc": "documents", "sys": "system score"}[m.level]
            raise InputError(f"{m.file_of(first)}, line {m.lines[first][-1] if m.lines.get(first) else 1}, field "
                             f"{m.name}: {m.n_items} {m.level}-level scores of system {shown(first)}, the test set has "
                             f"{want} {what}; the stored scores belong to another test set (or a subset of it)")
    doc_ids = metric.doc_ids
    if doc_ids is not None and metric.level == "seg" and runs(doc_ids) != runs(ids):
        theirs, ours = runs(ids), runs(doc_ids)
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
            doc_ids = [d for d, _, _ in runs(ids)]
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
            cut = runs(doc_ids) if doc_ids is not None else [("all", 0, len(vals))]
            for doc, start, end in cut:
                scored = [v for v in vals[start:end] if v is not None]
                units += [UnitScore(doc, i, i + 1, v) for i, v in enumerate(vals[start:end], start) if v is not None]
                docs.append(DocScore(doc, exact_mean(scored) if scored else None, len(scored)))
            n_docs = len(cut)
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


class StoredScorer:
    """A stored metric as the judging runs take a metric (:func:`~docmetrics.judging.score_metrics`,
    :func:`~docmetrics.judging.run_mtme`): a metric whose units are already scored.  :meth:`compute` gives its
    Results on a test set (:func:`to_results`); :meth:`check` does so ahead, so that a stored metric that does not
    fit the test set stops a run before any model loads.  It reads no reference, truncates nothing and names no
    model."""

    needs: tuple = ()
    requested_signature = None

    def __init__(self, metric: StoredMetric) -> None:
        self.metric = metric
        self._done: tuple[TestSet, list[Result]] | None = None

    @property
    def name(self) -> str:
        return self.metric.name

    def signature(self) -> Signature:
        return self.metric.signature()

    def check(self, testset: TestSet) -> list[Result]:
        """Its Results on ``testset``, kept for :meth:`compute`; an InputError where they do not fit."""
        self._done = (testset, to_results(self.metric, testset))
        return self._done[1]

    def compute(self, testset: TestSet) -> list[Result]:
        if self._done is not None and self._done[0] is testset:
            return self._done[1]
        return self.check(testset)

    def check_references(self, testset: TestSet) -> None:
        """Stored scores were computed already: any references of the run are not theirs to refuse."""

    def reads_neighbours(self) -> bool:
        return False

    def truncation_fix(self) -> str:
        return ""
