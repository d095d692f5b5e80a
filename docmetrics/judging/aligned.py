"""One metric's results aligned to the systems and segments of the human scores: what every statistic
of :mod:`docmetrics.judging.evaluate` and every comparison of :mod:`docmetrics.judging.comparisons`
reads (the system scores; the per-segment scores of a metric with one unit per segment; the items of
SPA: segments, or units paired across systems by the segments they cover)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

from ..values.errors import InputError, shown
from ..values.result import Result

__all__ = ["Score", "Aligned", "align"]

Score = Optional[float]


@dataclass
class Aligned:
    """One metric's scores for the chosen systems."""

    sys: list[float]
    #: system -> per-segment scores (None where unscored); None unless every unit is one segment
    seg: dict[str, list[Score]] | None
    #: SPA items: the segments, or the units paired across systems by (start, end)
    items: dict[str, list[Score]] | None
    item_kind: str
    item_keys: list[tuple[int, int]]


def align(chosen: Sequence[Result], order: Sequence[str], n_segments: int | None) -> Aligned:
    """The results of the systems ``order`` (parallel to it: each named by its human name there);
    ``n_segments``: how many segments the human scores cover (a unit beyond is an error), None without
    segment-level human scores."""
    sys_scores = [float(r.score) for r in chosen]
    if not any(r.units for r in chosen):
        return Aligned(sys_scores, None, None, "none", [])
    if n_segments is not None:
        beyond = next((u for r in chosen for u in r.units if u.end > n_segments), None)
        if beyond is not None:
            raise InputError(
                f"metric {chosen[0].metric!r} scores segment {beyond.end} of document {shown(beyond.doc_id)}, but the "
                f"human scores cover {n_segments} segments: score the test set the human scores belong to"
            )
    single = all(r.wide_unit() is None for r in chosen)
    if single and n_segments:
        seg: dict[str, list[Score]] = {}
        for s, r in zip(order, chosen):
            row: list[Score] = [None] * n_segments
            for u in r.units:
                if 0 <= u.start < n_segments and not math.isnan(u.score):
                    row[u.start] = float(u.score)
            seg[s] = row
        return Aligned(sys_scores, seg, seg, "segment", [(i, i + 1) for i in range(n_segments)])
    keys: set[tuple[int, int]] | None = None
    per: dict[str, dict[tuple[int, int], float]] = {}
    for s, r in zip(order, chosen):
        d = {(u.start, u.end): u.weight * u.score for u in r.units if not math.isnan(u.score)}
        per[s] = d
        keys = set(d) if keys is None else keys & set(d)
    common = sorted(keys or ())
    if not common:
        return Aligned(sys_scores, None, None, "unit", [])
    items = {s: [per[s][k] for k in common] for s in order}
    return Aligned(sys_scores, None, items, "unit", common)  # type: ignore[arg-type]
