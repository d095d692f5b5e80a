"""What travels between a metric and a backbone: plain, hashable data.

A :class:`Unit` (source, MT and reference text, and for context metrics the sentences before the
current one) goes in; a :class:`BackboneOutput` (one score and one truncation flag per unit, and
per-unit counters) comes out.  A metric declares its units as :class:`ScoringUnit` (a Unit and where
it sits: document, segment span, weight, aggregation group) gathered per system in a
:class:`UnitPlan`; the metric template scores the plan and assembles the results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .errors import PluginError

__all__ = ["Unit", "UnitSpan", "UnitRecord", "BackboneOutput", "ScoringUnit", "UnitPlan"]


@dataclass(frozen=True)
class Unit:
    """One scoring unit: plain data, hashable so identical units are scored once.

    ``src``/``ref`` are ``None`` when not used.  For context metrics, ``*_context`` hold the
    sentences before the current one (oldest first); a backbone with :data:`CURRENT_SENTENCE`
    joins them with its own separator and scores only the current sentence.
    """

    mt: str
    src: str | None = None
    ref: str | None = None
    mt_context: tuple[str, ...] = ()
    src_context: tuple[str, ...] = ()
    ref_context: tuple[str, ...] = ()


@dataclass(frozen=True)
class UnitSpan:
    """An error a backbone found in a unit: character offsets ``start``..``end`` (end excluded) in the
    unit's MT text (:attr:`Unit.mt`), its severity (``minor``, ``major``, ``critical``, ...) and the
    model's confidence where it gives one."""

    start: int
    end: int
    severity: str
    confidence: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"start": self.start, "end": self.end, "severity": self.severity}
        if self.confidence is not None:
            d["confidence"] = self.confidence
        return d


@dataclass(frozen=True)
class UnitRecord:
    """Everything a backbone says of one unit, in one record: its score, whether its input was cut at
    the model's maximum length, its counters (None: not known per unit), the error spans it found
    (offsets in the unit's MT text) and the text it answered (an LLM judge's).  What the score cache
    stores per unit and what a metric assembles its :class:`~docmetrics.values.result.UnitScore` from."""

    score: float
    truncated: bool = False
    counters: Mapping[str, int] | None = None
    spans: tuple[UnitSpan, ...] = ()
    answer: str | None = None

    @property
    def detail(self) -> dict[str, Any] | None:
        """What the record says beyond score, flag and counters (JSON-ready), or None: nothing."""
        if not self.spans and self.answer is None:
            return None
        d: dict[str, Any] = {}
        if self.spans:
            d["spans"] = [[s.start, s.end, s.severity, s.confidence] for s in self.spans]
        if self.answer is not None:
            d["answer"] = self.answer
        return d

    @staticmethod
    def detail_fields(detail: Mapping[str, Any] | None) -> tuple[tuple[UnitSpan, ...], str | None]:
        """(spans, answer) from :attr:`detail` as stored (ValueError where it is malformed)."""
        if not detail:
            return (), None
        spans = tuple(UnitSpan(int(a), int(b), str(c), None if d is None else float(d))
                      for a, b, c, d in detail.get("spans", ()))
        answer = detail.get("answer")
        if answer is not None and not isinstance(answer, str):
            raise ValueError("answer is not text")
        return spans, answer


@dataclass
class BackboneOutput:
    """What a backbone gives back for a list of units (same order, same length): one
    :class:`UnitRecord` per unit (:meth:`records`, :meth:`from_records`), which the lists below also
    give, field by field, for backbones that need only a score and a flag."""

    scores: list[float]
    #: True where the unit's input was cut at the model's maximum length.
    truncated: list[bool]
    #: Further counters a metric may report (e.g. ``context_sentences_dropped``).
    counters: dict[str, int] = field(default_factory=dict)
    #: Per-unit counters (same order and length as ``scores``), so that counters can be attributed
    #: to the systems whose units they belong to (and stored in a score cache).  ``None``: only the
    #: totals in :attr:`counters` are known.
    unit_counters: list[dict[str, int]] | None = None
    #: Error spans and answers per unit (same order), where the backbone gives any (None: none).
    unit_details: list[tuple[tuple[UnitSpan, ...], str | None]] | None = None

    @classmethod
    def from_records(cls, records: Sequence[UnitRecord], counters: Mapping[str, int] | None = None) -> BackboneOutput:
        """An output of one record per unit; ``counters``: the totals (default: the records' sums)."""
        records = list(records)
        known = None if any(r.counters is None for r in records) else [dict(r.counters or {}) for r in records]
        if counters is None:
            counters = {}
            for r in records:
                for k, v in (r.counters or {}).items():
                    counters[k] = counters.get(k, 0) + int(v)  # type: ignore[index]
        details = [(r.spans, r.answer) for r in records]
        return cls([r.score for r in records], [bool(r.truncated) for r in records], dict(counters), known,
                   details if any(s or a is not None for s, a in details) else None)

    def records(self) -> list[UnitRecord]:
        """One record per unit: score, flag, counters (None where not known per unit), spans, answer."""
        known = self.unit_counters if self.unit_counters is not None else [None] * len(self.scores)
        details = self.unit_details if self.unit_details is not None else [((), None)] * len(self.scores)
        return [UnitRecord(s, bool(t), None if c is None else dict(c), tuple(d[0]), d[1])
                for s, t, c, d in zip(self.scores, self.truncated, known, details)]

    def check(self, n: int, who: str, source: object = None) -> None:
        """Raise PluginError unless this output has exactly ``n`` scores, flags and per-unit counters.
        ``who`` names the plugin ("backbone 'comet'"), ``source`` is the plugin object (its module
        is named)."""
        sizes = [len(self.scores), len(self.truncated)]
        if self.unit_counters is not None:
            sizes.append(len(self.unit_counters))
        if self.unit_details is not None:
            sizes.append(len(self.unit_details))
        if any(s != n for s in sizes):
            raise PluginError(f"{who} returned {len(self.scores)} scores for {n} units{_origin(source)}; the "
                              f"{who.split()[0]} is broken")

    def check_numbers(self, who: str, source: object = None, units: Sequence[Any] = ()) -> None:
        """Raise PluginError if a score is no number (NaN, None, text): never a silent NaN result.
        ``units`` are what the plugin was given (the first bad one is quoted)."""
        bad = [k for k, s in enumerate(self.scores) if as_score(s) is None]
        if bad:
            first = units[bad[0]] if len(units) > bad[0] else None
            example = f", e.g. mt={first.mt[:60]!r}" if isinstance(getattr(first, "mt", None), str) else ""
            raise PluginError(
                f"{who}{_origin(source)} gave no number (NaN or {type(self.scores[bad[0]]).__name__}) for "
                f"{len(bad)} of {len(self.scores)} units{example}; the {who.split()[0]} is broken for these inputs"
            )


def _origin(source: object) -> str:
    return f" ({type(source).__module__})" if source is not None else ""


def as_score(value: Any) -> float | None:
    """``value`` as a float, or None when it is no number (NaN, None, text, ...)."""
    if isinstance(value, (str, bytes)):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


@dataclass(frozen=True)
class ScoringUnit:
    """A unit a metric declares: what the backbone scores (``input``) and where it sits.

    ``doc``: index of its document in :attr:`UnitPlan.documents`; ``start``/``end``: the segments it
    covers (0-based, end exclusive; test-set lines, or the metric's own sentence indices inside the
    document, as the metric documents); ``weight``: its weight in its group's weighted mean;
    ``group``: the aggregation group (e.g. ASD's chunk size), ``""`` for metrics with one group;
    ``partial``: a window shorter than the metric's nominal size (SLIDE's partial chunks);
    ``stats``: sufficient statistics the unit adds to the aggregation in place of its score, as
    ``(group, value)`` pairs (corpus BLEU's n-gram counts: see
    :func:`docmetrics.algorithms.aggregation.unit_values`); empty for most metrics.
    """

    input: Unit
    doc: int
    start: int
    end: int
    weight: float = 1.0
    group: str = ""
    partial: bool = False
    stats: tuple[tuple[str, float], ...] = ()


@dataclass
class UnitPlan:
    """Every system's units, as a metric declares them (no model has scored anything yet).

    ``systems`` maps each system name to its units, in the test set's system order.  ``documents``
    names the documents the units point into (``ScoringUnit.doc``), ``segments_total`` counts what
    coverage is measured against.  ``counters`` and ``extras`` carry what the metric itself counted
    or wants to show per system (e.g. ASD's alignment counters and alignments).
    """

    systems: dict[str, list[ScoringUnit]]
    documents: list[str]
    segments_total: int
    counters: dict[str, dict[str, int]] = field(default_factory=dict)
    extras: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Counters shared by every system (e.g. the reference side's alignment in ASD).
    shared_counters: dict[str, int] = field(default_factory=dict)
