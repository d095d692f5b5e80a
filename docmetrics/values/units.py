"""What travels between a metric and a backbone: plain, hashable data.

A :class:`Unit` (source, MT and reference text, and for context metrics the sentences before the
current one) goes in; a :class:`BackboneOutput` (one score and one truncation flag per unit, and
per-unit counters) comes out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Unit", "BackboneOutput"]


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


@dataclass
class BackboneOutput:
    """What a backbone gives back for a list of units (same order, same length)."""

    scores: list[float]
    #: True where the unit's input was cut at the model's maximum length.
    truncated: list[bool]
    #: Further counters a metric may report (e.g. ``context_sentences_dropped``).
    counters: dict[str, int] = field(default_factory=dict)


