"""Results: a system score with its per-document and per-unit scores, coverage and signature."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .signature import Signature
from .units import UnitSpan


@dataclass
class UnitScore:
    """The score of one scoring unit (a SLIDE chunk, a sentence in context, ...).

    ``start``/``end``: the segments (0-based, end exclusive, test-set line numbers) it covers.
    ``weight``: its weight in its group's weighted mean (1, or its sentence count for weighted SLIDE).
    ``group``: its aggregation group (``""`` for metrics with one group; ASD: ``"k2"`` ...).
    ``stats``: sufficient statistics it adds to the aggregation in place of its score (``(group,
    value)`` pairs, e.g. corpus BLEU's n-gram counts); empty for most metrics.
    """

    doc_id: str
    start: int
    end: int
    score: float
    weight: float = 1.0
    truncated: bool = False
    partial: bool = False
    group: str = ""
    stats: tuple[tuple[str, float], ...] = ()
    #: The error spans the backbone found in this unit (offsets in the unit's MT text), and its answer
    #: (an LLM judge's), where it gives them: the unit's :class:`~docmetrics.values.units.UnitRecord`.
    spans: tuple[UnitSpan, ...] = ()
    answer: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "doc_id": self.doc_id, "start": self.start, "end": self.end, "score": self.score,
            "weight": self.weight, "truncated": self.truncated, "partial": self.partial,
            "group": self.group,
        }
        if self.stats:
            d["stats"] = dict(self.stats)
        if self.spans:
            d["spans"] = [s.to_dict() for s in self.spans]
        if self.answer is not None:
            d["answer"] = self.answer
        return d


@dataclass
class DocScore:
    doc_id: str
    score: float | None
    units: int

    def to_dict(self) -> dict[str, Any]:
        return {"doc_id": self.doc_id, "score": self.score, "units": self.units}


@dataclass
class Coverage:
    """What was scored: nothing is dropped silently."""

    segments_total: int
    segments_scored: int
    units: int
    units_truncated: int = 0
    documents_total: int = 0
    documents_scored: int = 0
    counters: dict[str, int] = field(default_factory=dict)
    #: What a number alone would not say (e.g. ASD: "208 of 535 source sentences aligned to no MT
    #: sentence"), printed after the counters.
    notes: list[str] = field(default_factory=list)
    #: Whether a unit can be cut at a model's maximum length (False for metrics without a model, whose
    #: summary then says nothing of truncation).
    can_truncate: bool = True

    @property
    def ratio(self) -> float:
        return self.segments_scored / self.segments_total if self.segments_total else 0.0

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "segments_total": self.segments_total,
            "segments_scored": self.segments_scored,
            "ratio": round(self.ratio, 6),
            "units": self.units,
            "units_truncated": self.units_truncated,
            "documents_total": self.documents_total,
            "documents_scored": self.documents_scored,
        }
        d.update(self.counters)
        if self.notes:
            d["notes"] = list(self.notes)
        return d

    def summary(self) -> str:
        parts = [
            f"{self.units} units",
            f"coverage {self.segments_scored}/{self.segments_total} segments ({100 * self.ratio:.1f}%)",
        ] + ([f"{self.units_truncated} truncated"] if self.can_truncate else [])
        parts += [f"{v} {k.replace('_', ' ')}" for k, v in self.counters.items()]
        return ", ".join(parts + self.notes)


@dataclass
class Result:
    """One metric's result for one system."""

    system: str
    metric: str
    score: float
    signature: Signature
    params: dict[str, Any]
    units: list[UnitScore] = field(default_factory=list)
    docs: list[DocScore] = field(default_factory=list)
    coverage: Coverage | None = None
    #: Metric-specific data for inspection (e.g. ASD's alignments); not part of the score.
    extras: dict[str, Any] = field(default_factory=dict)
    #: How unit scores make the document and system scores (a name of
    #: :mod:`docmetrics.algorithms.aggregation`); significance tests resample with the same rule.
    aggregation: str = "mean"
    #: What the metric's own tool prints beside the score (sacrebleu's n-gram precisions, brevity penalty,
    #: length ratio and lengths), as numbers; ``detail["text"]`` follows the score on the text line.
    #: In JSON as ``detail`` when there is any.
    detail: dict[str, Any] = field(default_factory=dict)
    #: Decimals the command line prints the score with unless -w says otherwise (the metric's own tool's:
    #: sacrebleu prints 1).
    decimals: int | None = None
    #: Whether a higher score is better (False where the metric scores errors: MetricX's 0-25, TER).
    #: Output keeps the metric's own values; every judging tool reads them through :meth:`oriented`.
    higher_is_better: bool = True
    #: The signature of the unit (segment) scores where they are computed otherwise than :attr:`signature`
    #: says (sacrebleu's sentence BLEU: with effective order, ``eff:yes``); None where the same.  In JSON
    #: with the units, as ``unit_signature``.
    unit_signature: Signature | None = None

    def __float__(self) -> float:
        return float(self.score)

    def oriented(self) -> Result:
        """This result as judging reads it, higher better: itself, or a copy with its system, unit and
        document scores negated where lower is better.  Sufficient statistics (``UnitScore.stats``),
        which only the metric's own aggregation reads, stay as they are."""
        if self.higher_is_better:
            return self
        return dataclasses.replace(
            self, score=-self.score, units=[dataclasses.replace(u, score=-u.score) for u in self.units],
            docs=[dataclasses.replace(d, score=None if d.score is None else -d.score) for d in self.docs],
            higher_is_better=True)

    def wide_unit(self) -> UnitScore | None:
        """The first unit that covers several segments (a window, a document), None where every unit is one
        segment: only then has the metric a score per segment."""
        return next((u for u in self.units if u.end - u.start != 1), None)

    def to_dict(self, level: str = "system", short: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "system": self.system,
            "metric": self.metric,
            "score": self.score,
            "signature": self.signature.format(short=short),
            "params": self.params,
            "aggregation": self.aggregation,
        }
        if self.coverage is not None:
            d["coverage"] = self.coverage.to_dict()
        if self.detail:
            d["detail"] = dict(self.detail)
        if not self.higher_is_better:
            d["higher_is_better"] = False
        if level in ("doc", "unit", "chunk"):
            d["docs"] = [x.to_dict() for x in self.docs]
        if level in ("unit", "chunk"):
            if self.unit_signature is not None:
                d["unit_signature"] = self.unit_signature.format(short=short)
            d["units"] = [x.to_dict() for x in self.units]
        return d
