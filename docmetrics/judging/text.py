"""The one number format and plain-text table of every printed result (the command line's tables and the
library's ``to_text``): :func:`num` and :func:`table`."""

from __future__ import annotations

import math
from typing import Sequence

__all__ = ["num", "table"]


def num(x: float | None, width: int) -> str:
    """``x`` with ``width`` decimals; ``nan`` for a missing or undefined value; never ``-0.0000``."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    text = f"{x:.{width}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str = "", rules: Sequence[str] = ()) -> str:
    """A plain-text table: a header line, a rule and the rows; ``align`` gives each column's
    alignment ('l' or 'r'; default: the first column left, the others right); ``rules``: per row, the
    character of a rule line drawn above it ('-' between clusters, '.' a dotted one; '' none)."""
    cols = len(headers)
    align = align or ("l" + "r" * (cols - 1))
    widths = [max(len(h), *(len(r[c]) for r in rows)) if rows else len(h) for c, h in enumerate(headers)]
    rule = "  ".join("-" * w for w in widths)

    def line(cells: Sequence[str]) -> str:
        return "  ".join(v.ljust(widths[c]) if align[c] == "l" else v.rjust(widths[c])
                         for c, v in enumerate(cells)).rstrip()

    lines = [line(headers), rule]
    for k, r in enumerate(rows):
        if k < len(rules) and rules[k]:
            lines.append(rule.replace("-", rules[k]))
        lines.append(line(r))
    return "\n".join(lines) + "\n"
