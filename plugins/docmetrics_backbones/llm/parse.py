"""From a judge's answer text to a score and error spans.  Pure: the standard library only.

The rules are GEMBA's (MicrosoftTranslator/GEMBA at a7a7eff, ``gemba/prompt.py`` and
``gemba/gemba_mqm_utils.py``; WMT25's variant in prosho-97/wmt-automatic-eval at 2d64814,
``metrics/gemba/prompt.py``), rewritten:

* ``number`` (GEMBA-DA, GEMBA-ESA's second step): the answer's only integer (``re.findall(r'\\d+')`` finds
  exactly one), else an answer that is exactly ``['N']``, else exactly ``N/HIGH``; a number outside
  [low, high] is no score.  ``Score: 85`` is 85; ``85/100`` is 85; ``80 or 85`` is none.
* ``last-number`` (WMT25's GEMBA-ESA): Markdown ``*`` and ``_`` removed, every 1-3 digit integer standing
  alone (``\\b\\d{1,3}\\b``), the last one inside [low, high]; if none, the ``number`` rule.
* ``mqm`` (GEMBA-MQM): lines under ``critical:`` / ``major:`` / ``minor:`` headers are errors of that
  severity (a ``non-translation`` error is critical; ``no-error`` and empty lines are skipped); errors are
  weighted critical 25, major 5, minor 1, in the order critical, major, minor, at most 5 errors counted,
  the sum capped at 25, and the score is its negative (0 best, -25 worst: higher is better, as GEMBA).

GEMBA's MQM parse turns any text into a score (no header: 0).  Here an answer with neither a severity
header nor ``no-error`` is *unparsed* and counted, never a silent 0 (see the backbone's max_unparsed=).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

__all__ = ["Parsed", "QuotedError", "parse_number", "parse_last_number", "parse_mqm", "parse_answer",
           "error_lines", "map_spans", "MQM_WEIGHTS", "MQM_MAX_ERRORS", "MQM_CAP"]

MQM_WEIGHTS = {"critical": 25, "major": 5, "minor": 1}
MQM_MAX_ERRORS = 5
MQM_CAP = 25
_SEVERITIES = ("critical", "major", "minor")
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|„([^“”]+)[“”]')


@dataclass(frozen=True)
class QuotedError:
    """An error line of an answer: its severity, its category text and the quoted span (None: none)."""

    severity: str
    category: str
    span: str | None


@dataclass(frozen=True)
class Parsed:
    """A parsed answer: the score (None: no score) and the errors it lists (mqm, esa spans)."""

    score: float | None
    errors: tuple[QuotedError, ...] = ()


def parse_number(answer: str, low: float, high: float) -> float | None:
    """GEMBA's ``parse_and_check_numerical_answer`` (see the module docstring)."""
    numbers = re.findall(r"\d+", answer)
    value: int | None = None
    if len(numbers) == 1:
        value = int(numbers[0])
    elif re.match(r"^\[['\"][0-9]*['\"]\]$", answer):
        value = int(answer[2:-2])
    elif re.match(rf"^[0-9]*/{int(high)}$", answer):
        value = int(answer.split("/")[0])
    if value is None or value < low or value > high:
        return None
    return float(value)


def parse_last_number(answer: str, low: float, high: float) -> float | None:
    """WMT25's ``parse_final_score``, then the ``number`` rule (see the module docstring)."""
    cleaned = re.sub(r"[*_]+", "", answer)
    valid = [int(n) for n in re.findall(r"\b\d{1,3}\b", cleaned) if low <= int(n) <= high]
    if valid:
        return float(valid[-1])
    return parse_number(answer, low, high)


def error_lines(answer: str) -> tuple[list[QuotedError], bool]:
    """The error lines under severity headers, in order, and whether the answer has any structure
    (a severity header or ``no-error``) at all.  GEMBA's line rules: case-insensitive, a header is a
    line that is exactly ``critical:``/``major:``/``minor:``; a line before any header is ignored."""
    errors: list[QuotedError] = []
    level: str | None = None
    structured = False
    for raw in answer.split("\n"):
        line = raw.strip()
        low = line.lower()
        if "no-error" in low or "no error" in low:
            structured = True
            continue
        if not line:
            continue
        if low in ("critical:", "major:", "minor:"):
            level, structured = low[:-1], True
            continue
        if level is None:
            continue
        severity = "critical" if "non-translation" in low else level
        m = _QUOTED.search(line)
        span = next((g for g in m.groups() if g), None) if m else None
        category = line[:m.start()].rstrip(" -:") if m else line
        errors.append(QuotedError(severity, category, span))
    return errors, structured


def parse_mqm(answer: str) -> Parsed:
    """GEMBA-MQM's score (0 .. -25) and the errors; no score where the answer has no structure."""
    errors, structured = error_lines(answer)
    if not structured:
        return Parsed(None, tuple(errors))
    total, counted = 0, 0
    for severity in _SEVERITIES:
        for e in errors:
            if e.severity == severity and counted < MQM_MAX_ERRORS:
                total += MQM_WEIGHTS[severity]
                counted += 1
    return Parsed(-float(min(total, MQM_CAP)), tuple(errors))


def parse_answer(rule: str, answer: str, low: float, high: float) -> Parsed:
    """The score (and errors) of ``answer`` under ``rule`` (``number``, ``last-number``, ``mqm``)."""
    if rule == "mqm":
        return parse_mqm(answer)
    if rule == "last-number":
        return Parsed(parse_last_number(answer, low, high))
    return Parsed(parse_number(answer, low, high))


def map_spans(errors: Sequence[QuotedError], mt: str) -> tuple[list[tuple[int, int, str]], int]:
    """Character offsets of each quoted span in ``mt``: the first exact match at or after the end of
    the previous span found (an answer lists errors in reading order), else the first anywhere; an
    error whose quote is not in ``mt`` (an omission quotes the source) is counted as unmatched.
    Returns ``[(start, end, severity)]`` and the number unmatched."""
    found: list[tuple[int, int, str]] = []
    unmatched, after = 0, 0
    for e in errors:
        if not e.span:
            continue
        at = mt.find(e.span, after)
        if at < 0:
            at = mt.find(e.span)
        if at < 0:
            unmatched += 1
            continue
        found.append((at, at + len(e.span), e.severity))
        after = at + len(e.span)
    return found, unmatched
