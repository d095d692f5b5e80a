"""Segment-level human judgements of one language pair, per system and item: the value human clusters
(:mod:`docmetrics.evaluation.human_clusters`) rank, read from a GenMT pair, a TSV of human scores or an MTME
test set.  A value of the judged data, so a format (:mod:`docmetrics.formats`) builds it."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..values.errors import InputError

__all__ = ["HumanJudgements", "annotation_count", "exact_mean"]


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


@dataclass
class HumanJudgements:
    """Segment-level human scores of one language pair: per system, per item (a segment), the scores of
    its annotations in wave order (``()`` where the item was not judged, NaN for a wave that did not
    judge it), and each item's domain."""

    source: str
    lp: str | None
    items: list[str]
    domains: list[str]
    scores: dict[str, list[tuple[float, ...]]]
    #: systems of the file left out (no judgement at all)
    unjudged: list[str] = field(default_factory=list)

    def check(self) -> HumanJudgements:
        """At least two judged systems, each with a score per item slot; an InputError naming the
        source otherwise."""
        for name, row in self.scores.items():
            if len(row) != len(self.items):
                raise ValueError(f"system {name!r}: {len(row)} items, expected {len(self.items)}")
        if len(self.scores) < 2:
            have = ", ".join(self.scores) or "none"
            raise InputError(f"{self.source}: human clusters need segment scores of at least two systems"
                             f"{' of ' + self.lp if self.lp else ''} (judged: {have})")
        return self

    @property
    def systems(self) -> list[str]:
        return list(self.scores)

    @property
    def annotations(self) -> int:
        return sum(annotation_count(a) for row in self.scores.values() for a in row)

    @classmethod
    def from_rows(cls, scores: Mapping[str, Sequence[Any]], domains: Sequence[str] | None = None, *,
                  source: str = "scores", lp: str | None = None) -> HumanJudgements:
        """From ``system -> per item: None, a score, or a sequence of wave scores (None: not in that wave)``."""
        n = len(next(iter(scores.values()), []))
        rows: dict[str, list[tuple[float, ...]]] = {}
        unjudged = []
        for name, row in scores.items():
            if len(row) != n:
                raise InputError(f"{source}: system {name!r} has {len(row)} items, the first system {n}")
            cells = [() if v is None else (float(v),) if isinstance(v, (int, float)) else
                     tuple(math.nan if x is None else float(x) for x in v) for v in row]
            cells = [c if annotation_count(c) else () for c in cells]
            if any(cells):
                rows[name] = cells
            else:
                unjudged.append(name)
        return cls(source, lp, [str(i) for i in range(n)], list(domains) if domains is not None else [""] * n, rows,
                   unjudged).check()

    @classmethod
    def from_genmt(cls, pair: Any) -> HumanJudgements:
        """A GenMT pair's ESA judgements (each annotation's score, waves in the file's order)."""
        domain = [d.domain for d in pair.documents for _ in range(d.start, d.end)]
        items = [f"{s.doc_id}#{s.position}" for s in pair.segments]
        rows: dict[str, list[tuple[float, ...]]] = {}
        unjudged = []
        for name, judged in pair.human.items():
            cells = [j.scores if j is not None else () for j in judged]
            if any(cells):
                rows[name] = cells
            else:
                unjudged.append(name)
        if not rows:
            raise InputError(f"{pair.path}: language pair {pair.name} has no human score (field scores); human "
                             "clusters need the humeval file (wmt25-genmt-humeval.jsonl)")
        return cls(pair.path, pair.name, items, domain, rows, unjudged).check()

    @classmethod
    def from_human(cls, human: Any) -> HumanJudgements:
        """A ``--human`` file's segment scores (one annotation per item, one domain)."""
        if not human.segment_level:
            raise InputError(f"{human.path}: human clusters need segment scores (columns system, doc_id, seg_id "
                             "and a score); this file has system scores only")
        keys = sorted({k for seg in human.segments.values() for k in seg},
                      key=lambda k: (k[0], human.positions.get(k, 0), k[1]))
        rows = {name: [(seg[k],) if k in seg else () for k in keys] for name, seg in human.segments.items()}
        judged = {n: r for n, r in rows.items() if any(r)}
        return cls(human.path, None, [f"{d}#{s}" for d, s in keys], [""] * len(keys), judged,
                   [n for n in rows if n not in judged]).check()

    @classmethod
    def from_mtme(cls, data: Any, name: str | None = None) -> HumanJudgements:
        """An MTME test set's segment-level human scores (``name``: the standard ones by default), with
        the domains of documents/LP.docs."""
        chosen = name or data.default_human_name("seg")
        where = os.path.join(data.directory, "human-scores", f"{data.lp}.{chosen}.seg.score")
        if chosen is None:
            raise InputError(f"{os.path.join(data.directory, 'human-scores')}: no segment-level human scores for "
                             f"{data.lp}; human clusters need them")
        scores = data.human(chosen, "seg")
        domains = list(data.domains) if len(data.domains) == data.n_segments else [""] * data.n_segments
        rows = {s: [() if v is None else (float(v),) for v in row] for s, row in scores.items()}
        judged = {n: r for n, r in rows.items() if any(r)}
        return cls(where, data.lp, [f"{d}#{i}" for i, d in enumerate(data.doc_ids)], domains, judged,
                   [n for n in rows if n not in judged]).check()
