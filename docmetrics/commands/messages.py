"""What a command says on stderr besides its output: warnings, and notes that -q silences."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["warn", "note", "printable"]


def printable(text: str) -> str:
    """``text`` on one line with nothing a terminal would act on: control characters (escape codes,
    line breaks, a model path's own) written as ``\\x1b``, ``\\n``, ..."""
    return "".join(ch if ch.isprintable() or ch == " " else ascii(ch)[1:-1] for ch in text)


def warn(text: str, who: str = "docmetrics") -> None:
    print(f"{who}: warning: {printable(text)}", file=sys.stderr)


def note(options: Any, text: str, who: str = "docmetrics") -> None:
    if not getattr(options, "quiet", False):
        print(f"{who}: {text}", file=sys.stderr)
