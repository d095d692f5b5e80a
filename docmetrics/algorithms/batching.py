"""Batches by a token budget: the inputs of a model call sorted by length and cut so that every
batch's padded size (its longest input times the number of inputs) stays within a budget.

A fixed number of inputs per batch wastes memory on padding when the inputs are long (SLIDE windows,
context) and under-fills the device when they are short; a token budget does neither.  Sorting by
length keeps the padding inside each batch small.
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["token_batches"]


def token_batches(
    lengths: Sequence[int], *, max_tokens: int | None = None, max_size: int | None = None
) -> list[list[int]]:
    """Indices into ``lengths`` grouped into batches, longest inputs first.

    Every batch satisfies ``len(batch) * max(lengths[i] for i in batch) <= max_tokens`` (an input
    longer than the budget alone forms a batch of one) and ``len(batch) <= max_size``; ``None`` means
    no limit of that kind (both ``None``: one batch).  Ties keep their order, so the batches are a
    function of ``lengths`` alone.
    """
    if max_tokens is not None and max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, not {max_tokens}")
    if max_size is not None and max_size < 1:
        raise ValueError(f"max_size must be >= 1, not {max_size}")
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    width = 0  # the longest input of the current batch (the first one: lengths decrease)
    for i in order:
        n = max(int(lengths[i]), 1)
        full = (max_size is not None and len(current) >= max_size) or (
            max_tokens is not None and current and (len(current) + 1) * width > max_tokens)
        if full:
            batches.append(current)
            current = []
        if not current:
            width = n
        current.append(i)
    if current:
        batches.append(current)
    return batches
