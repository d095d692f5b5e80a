"""What a command says on stderr besides its output: warnings, and notes that -q silences."""

from __future__ import annotations

import re
import sys
from typing import Any

__all__ = ["warn", "note", "printable", "bounded"]

#: A word of a message longer than this is cut (:func:`bounded`).
LONGEST_WORD = 300


def printable(text: str) -> str:
    """``text`` on one line with nothing a terminal would act on: control characters (escape codes,
    line breaks, a model path's own) written as ``\\x1b``, ``\\n``, ..."""
    return "".join(ch if ch.isprintable() or ch == " " else ascii(ch)[1:-1] for ch in text)


def bounded(text: str) -> str:
    """``text`` with each run of more than :data:`LONGEST_WORD` non-blank characters cut to its start and
    its length: the last guard against a message that echoes a huge value from the input (the readers
    quote values with :func:`docmetrics.values.errors.shown`)."""
    if len(text) <= LONGEST_WORD:
        return text
    return re.sub(rf"\S{{{LONGEST_WORD + 1},}}",
                  lambda m: f"{m.group()[:120]}… ({len(m.group()):,} characters)", text)


def warn(text: str, who: str = "docmetrics") -> None:
    print(f"{who}: warning: {printable(bounded(text))}", file=sys.stderr)


def note(options: Any, text: str, who: str = "docmetrics") -> None:
    if not getattr(options, "quiet", False):
        print(f"{who}: {bounded(text)}", file=sys.stderr)
