"""The table of meta-evaluation statistics, kept here for callers of 0.3: it lives in
:mod:`docmetrics.evaluation.stat_table` (the library's ``MetaEvaluation.to_text`` prints it too)."""

from __future__ import annotations

from ..evaluation.stat_table import (  # noqa: F401
    BLOCKS,
    COMPANIONS,
    NO_TESTS,
    Block,
    Column,
    clusters_text,
    columns,
    needs_segments,
    ranks,
    shown,
    significance_lines,
    stat_table,
    tie_lines,
    untested_lines,
)

__all__ = ["Column", "Block", "BLOCKS", "COMPANIONS", "needs_segments", "shown", "columns", "ranks", "stat_table",
           "clusters_text", "significance_lines", "untested_lines", "NO_TESTS"]
