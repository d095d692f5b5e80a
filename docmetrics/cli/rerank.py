"""``docmetrics rerank``: its parser and entry point (shared with ``docmetrics mbr``: :mod:`.mbr`)."""

from __future__ import annotations

from .mbr import build_rerank_parser as build_parser
from .mbr import main_rerank as main

__all__ = ["build_parser", "main"]
