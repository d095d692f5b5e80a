"""The counters a bertscore ``score()`` call reports, in total and per unit.

``context_sentences_dropped``: context sentences dropped so that the current sentence fits (hypothesis
and reference summed; whenever a unit carries context); ``empty_sentences``: units whose hypothesis or
reference current sentence is empty (they score 0); ``tokens_cut``: tokens of the current sentences cut
at the model's maximum length (hypothesis and reference summed; such a unit is ``truncated``).
"""

from __future__ import annotations

from typing import Sequence

from docmetrics.plugin.backbone import Unit

from .inputs import Side

__all__ = ["DROPPED", "EMPTY", "CUT", "unit_counters"]

DROPPED = "context_sentences_dropped"
EMPTY = "empty_sentences"
#: Tokens of a unit's current sentences (hypothesis + reference) cut at the model's maximum length.
CUT = "tokens_cut"


def unit_counters(units: Sequence[Unit], hyps: Sequence[Side],
                  refs: Sequence[Side]) -> tuple[dict[str, int], list[dict[str, int]], list[int]]:
    """The counters of the call, those of each unit, and each unit's tokens cut."""
    empty = [i for i in range(len(units)) if hyps[i].empty or refs[i].empty]
    counters: dict[str, int] = {}
    if any(u.mt_context or u.ref_context for u in units):
        counters[DROPPED] = sum(s.dropped for s in hyps) + sum(s.dropped for s in refs)
    if empty:
        counters[EMPTY] = len(empty)
    per_unit: list[dict[str, int]] = [{} for _ in units]
    for i, u in enumerate(units):
        if u.mt_context or u.ref_context:
            per_unit[i][DROPPED] = hyps[i].dropped + refs[i].dropped
    for i in empty:
        per_unit[i][EMPTY] = 1
    cut = [h.cut + r.cut for h, r in zip(hyps, refs)]
    if any(cut):
        counters[CUT] = sum(cut)
        for c, n in zip(per_unit, cut):
            if n:
                c[CUT] = n
    return counters, per_unit, cut
