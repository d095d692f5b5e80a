"""What the command line's text adds to the library's: truncation and coverage notes (numbers, tables and
metric labels are the library's own, :func:`docmetrics.judging.num`, ...)."""

from __future__ import annotations

from typing import Sequence

from ..judging import column, metric_labels, num, table

__all__ = ["num", "table", "metric_labels", "column", "columns", "units_cut", "coverage_lines"]


def columns(specs: Sequence[str]) -> dict[str, str]:
    """spec -> ``LABEL [k]`` for the ``-m`` specs in order (``k`` from 1)."""
    return {spec: column(label, k + 1) for k, (spec, label) in enumerate(zip(specs, metric_labels(specs)))}


def units_cut(truncated: int, units: int, tokens: int | None = None) -> str:
    """How many units were cut at a model's maximum length, as every truncation warning says it:
    ``287 of 514 units (55.8%)``, with ``, N tokens cut`` where the backbone counts them."""
    share = truncated / units if units else 0.0
    return f"{truncated} of {units} units ({100 * share:.1f}%)" + (f", {tokens} tokens cut" if tokens else "")


def coverage_lines(label: str, results: Sequence[object], verbose: bool = False) -> list[str]:
    """The coverage notes of one metric's results: one line per system with ``verbose`` (or one
    system), else one line for all: the coverage most systems share, and each system that differs."""
    given = [(r.system, r.coverage.summary()) for r in results if r.coverage is not None]  # type: ignore[attr-defined]
    if verbose or len(given) < 2:
        return [f"{label} [{system}]: {text}" for system, text in given]
    counts: dict[str, int] = {}
    for _, text in given:
        counts[text] = counts.get(text, 0) + 1
    common = max(counts, key=counts.__getitem__)
    others = [(system, text) for system, text in given if text != common]
    line = f"{label} [{'each' if not others else counts[common]} of {len(given)} systems]: {common}"
    shown = "; ".join(f"{system}: {text}" for system, text in others[:3])
    more = f"; {len(others) - 3} more" if len(others) > 3 else ""
    return [line + (f"; {shown}{more}" if others else "") + " (-v: one line per system)"]
