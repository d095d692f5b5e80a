"""Human scores, the one container of judged data's human judgements (:class:`HumanScores`): system scores and,
where the data has them, segment scores with each annotation's (GenMT's waves), the segments' order and domains;
what the meta-evaluation (:mod:`docmetrics.judging.human_match`) and human clusters
(:mod:`docmetrics.judging.clusters`) read.  A value of the judged data, so a format
(:mod:`docmetrics.formats`) builds it: a TSV of human scores or a raw MQM file (:mod:`.human_tsv`), a GenMT pair
(:func:`from_genmt`), an MTME test set (:func:`from_mtme`) or rows given in Python (:func:`from_rows`)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..values.errors import InputError

__all__ = ["HumanScores", "JudgedItems", "judged_items", "judged", "from_rows", "from_genmt", "from_mtme",
           "annotation_count", "exact_mean"]


def exact_mean(values: Sequence[float]) -> float:
    """The mean of finite numbers, exact (``math.fsum``) and without overflow near the float limit."""
    try:
        return math.fsum(values) / len(values)
    except OverflowError:
        scale = max(abs(v) for v in values)
        return math.fsum(v / scale for v in values) / len(values) * scale


def annotation_count(annotations: Sequence[float]) -> int:
    """How many of an item's wave scores are there (NaN: a wave that did not judge it)."""
    return sum(1 for x in annotations if not math.isnan(x))


def _mean(annotations: Sequence[float]) -> float:
    present = [x for x in annotations if not math.isnan(x)]
    return exact_mean(present) if present else math.nan


@dataclass
class HumanScores:
    """Human judgements of one language pair, as read from a file: system scores, and where the data has them
    segment scores (each annotation's too, where a segment was judged several times): what the meta-evaluation
    and human clusters read, whatever form the data came in."""

    path: str
    column: str
    #: system -> system-level score (given, or the mean of the system's segment scores)
    system: dict[str, float]
    #: system -> {(doc_id, seg_id): score}; empty for a system-level file
    segments: dict[str, dict[tuple[str, str], float]] = field(default_factory=dict)
    #: (doc_id, seg_id) -> 1-based position in its document (from doc_pos, or the rank of seg_id)
    positions: dict[tuple[str, str], int] = field(default_factory=dict)
    #: systems the file marks as human (is_human = 1)
    humans: set[str] = field(default_factory=set)
    #: the file's scores are lower-is-better and were negated (MQM penalties)
    lower_is_better: bool = False
    #: read from a raw MQM file (one line per error), the scores computed from its errors
    raw_mqm: bool = False
    #: system -> {(doc_id, seg_id): the errors' spans}, where the data marks them (a raw MQM file's
    #: :class:`~docmetrics.formats.mqm.MqmSpan`, GenMT's ESA :class:`~docmetrics.formats.base.Span`)
    spans: dict[str, dict[tuple[str, str], list[Any]]] = field(default_factory=dict)
    #: what the reader has to say of the file (a raw MQM file's unclosed <v>), for the caller to warn
    warnings: list[str] = field(default_factory=list)
    #: the language pair, where the data names one (human clusters say it)
    lp: str | None = None
    #: system -> {(doc_id, seg_id): each annotation's score in wave order, NaN for a wave that did not judge it},
    #: where a segment may have several (GenMT's waves; what human clusters read); empty: each segment's one score
    annotations: dict[str, dict[tuple[str, str], tuple[float, ...]]] = field(default_factory=dict)
    #: the segments in the data's order (empty: by document, position and seg_id)
    items: list[tuple[str, str]] = field(default_factory=list)
    #: (doc_id, seg_id) -> its domain, where the data names them (WMT24's rule tests per domain)
    domains: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def segment_level(self) -> bool:
        return bool(self.segments)

    @property
    def source(self) -> str:
        return self.path

    @property
    def systems(self) -> list[str]:
        """The systems with a judgement: of a segment where there are segment scores, else a system score."""
        if not self.segment_level:
            return list(self.system)
        judged = self.annotations or self.segments
        return [s for s, row in judged.items() if any(_judged(v) for v in row.values())]


def _judged(value: float | tuple[float, ...]) -> bool:
    """A segment's score, or any of its annotations' scores, is there (not NaN)."""
    return any(not math.isnan(x) for x in value) if isinstance(value, tuple) else not math.isnan(value)


@dataclass
class JudgedItems:
    """What the rules read of a :class:`~docmetrics.formats.human_tsv.HumanScores`: per judged system, per item
    (a segment, in one order for every system), the scores of its annotations in wave order (``()`` where the
    item was not judged, NaN for a wave that did not judge it), each item's domain, and the systems left out
    (no judgement at all)."""

    source: str
    lp: str | None
    domains: list[str]
    scores: dict[str, list[tuple[float, ...]]]
    unjudged: list[str]

    @property
    def annotations(self) -> int:
        return sum(annotation_count(a) for row in self.scores.values() for a in row)


def judged_items(human: HumanScores) -> JudgedItems:
    """The judged items of ``human`` (segment scores, or each segment's annotations where it has them); an
    InputError naming the source where fewer than two systems have one."""
    if not human.segment_level:
        raise InputError(f"{human.path}: human clusters need segment scores (columns system, doc_id, seg_id "
                         "and a score); this file has system scores only")
    keys = human.items or sorted({k for seg in human.segments.values() for k in seg},
                                 key=lambda k: (k[0], human.positions.get(k, 0), k[1]))
    rows: dict[str, list[tuple[float, ...]]] = {}
    if human.annotations:
        for name, by_key in human.annotations.items():
            rows[name] = [c if annotation_count(c := by_key.get(k, ())) else () for k in keys]
    else:
        for name, seg in human.segments.items():
            rows[name] = [(seg[k],) if k in seg else () for k in keys]
    judged = {n: r for n, r in rows.items() if any(r)}
    found = JudgedItems(human.path, human.lp, [human.domains.get(k, "") for k in keys], judged,
                        [n for n in rows if n not in judged])
    if len(judged) < 2:
        raise InputError(f"{human.path}: human clusters need segment scores of at least two systems"
                         f"{' of ' + human.lp if human.lp else ''} (judged: {', '.join(judged) or 'none'})")
    return found


def judged(human: HumanScores) -> HumanScores:
    """``human``, checked to hold segment scores of at least two systems (an InputError naming it otherwise)."""
    judged_items(human)
    return human


def _judged_scores(source: str, lp: str | None, keys: Sequence[tuple[str, str]], domains: Sequence[str],
                   cells: Mapping[str, Sequence[tuple[float, ...]]], column: str,
                   positions: Mapping[tuple[str, str], int] | None = None) -> HumanScores:
    """The HumanScores of annotation scores per item (``cells``: system -> per key of ``keys``, in wave
    order): each segment's score the mean of its annotations, a system's the mean of its segments'."""
    annotations = {name: {k: c for k, c in zip(keys, row) if annotation_count(c)} for name, row in cells.items()}
    segments = {name: {k: _mean(c) for k, c in by_key.items()} for name, by_key in annotations.items()}
    system = {name: exact_mean(list(v.values())) for name, v in segments.items() if v}
    return judged(HumanScores(source, column, system, segments, dict(positions or {}), lp=lp,
                              annotations=annotations, items=list(keys), domains=dict(zip(keys, domains))))


def from_rows(scores: Mapping[str, Sequence[Any]], domains: Sequence[str] | None = None, *,
              source: str = "scores", lp: str | None = None) -> HumanScores:
    """Human scores from ``system -> per item: None, a score, or a sequence of wave scores (None: not in that
    wave)``, each item a segment of its own."""
    n = len(next(iter(scores.values()), []))
    cells = {}
    for name, row in scores.items():
        if len(row) != n:
            raise InputError(f"{source}: system {name!r} has {len(row)} items, the first system {n}")
        cells[name] = [() if v is None else (float(v),) if isinstance(v, (int, float)) else
                       tuple(math.nan if x is None else float(x) for x in v) for v in row]
    keys = [("", str(i)) for i in range(n)]
    return _judged_scores(source, lp, keys, list(domains) if domains is not None else [""] * n, cells, "score",
                          {k: i + 1 for i, k in enumerate(keys)})


def from_genmt(pair: Any) -> HumanScores:
    """A GenMT pair's (:class:`~docmetrics.formats.genmt.GenmtPair`) ESA judgements, every judged system's (the
    reference's too): each annotation's score, waves in the file's order, each segment's domain."""
    if not any(j is not None and j.scores for judged in pair.human.values() for j in judged):
        raise InputError(f"{pair.path}: language pair {pair.name} has no human score (field scores); human "
                         "clusters need the humeval file (wmt25-genmt-humeval.jsonl)")
    keys = [(s.doc_id, str(s.position)) for s in pair.segments]
    domain = [d.domain for d in pair.documents for _ in range(d.start, d.end)]
    cells = {name: [j.scores if j is not None else () for j in judged] for name, judged in pair.human.items()}
    return _judged_scores(pair.path, pair.name, keys, domain, cells, "ESA", {k: int(k[1]) for k in keys})


def from_mtme(data: Any, name: str | None = None) -> HumanScores:
    """An MTME test set's (:class:`~docmetrics.formats.mtme.MtmeTestSet`) segment-level human scores
    (``name``: the standard ones by default), with the domains of documents/LP.docs."""
    chosen = name or data.default_human_name("seg")
    if chosen is None:
        raise InputError(f"{os.path.join(data.directory, 'human-scores')}: no segment-level human scores for "
                         f"{data.lp}; human clusters need them")
    where = os.path.join(data.directory, "human-scores", f"{data.lp}.{chosen}.seg.score")
    scores = data.human(chosen, "seg")
    domains = list(data.domains) if len(data.domains) == data.n_segments else [""] * data.n_segments
    keys = [(d, str(i)) for i, d in enumerate(data.doc_ids)]
    cells = {s: [() if v is None else (float(v),) for v in row] for s, row in scores.items()}
    return _judged_scores(where, data.lp, keys, domains, cells, chosen)
