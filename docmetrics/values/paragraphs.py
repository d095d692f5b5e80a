"""Paragraphs of a text marked up as WMT26 releases its documents: ``<p>...</p>`` around each paragraph,
HTML entities (``&amp;``, ``&gt;``) inside.

The rule (one for sources, references and hypotheses, so that their paragraphs line up):

* A text with no paragraph mark at all (speech transcripts, the software domain's JSON) is one paragraph,
  kept exactly as written: no entity is decoded, because such a text is not HTML (``&amp;`` in a JSON
  string is four characters of it).
* A text with marks is a run of paragraphs.  A mark is ``<p>`` or ``</p>`` in any case, with spaces inside
  the angle brackets or attributes allowed (``<P>``, ``< p>``, ``<p class="x">``, ``</p >``).  Each
  paragraph's content is stripped of surrounding whitespace and its HTML entities decoded
  (``html.unescape``).  Any other markup (``<br>``, ``<strong>``, ``<i>``) is kept as text, verbatim:
  docmetrics does not render HTML, and the source and a translation that keep the same tags compare as
  they are.
* :func:`paragraphs` with ``strict=True`` (a test file's source and references) refuses anything but
  whitespace-separated ``<p>...</p>`` blocks: a ``<p>`` not closed before the next one or the end, a
  ``</p>`` with no open paragraph, text outside every paragraph.  With ``strict=False`` (a system's
  hypothesis: a translation is read as the system wrote it) the same faults are read and counted in
  :attr:`Paragraphs.faults`: an unclosed paragraph ends at the next ``<p>`` or the end, a stray ``</p>``
  is dropped, and text outside the paragraphs becomes a paragraph of its own.

Nothing here reads a file or prints.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["Paragraphs", "MarkupError", "paragraphs", "FAULTS"]

_MARK = re.compile(r"<\s*(/?)\s*p(?:\s[^<>]*)?>", re.IGNORECASE)
#: What :attr:`Paragraphs.faults` counts, and how a message says it.
FAULTS = {
    "unclosed": "a <p> not closed by </p> before the next <p> or the end",
    "stray": "a </p> with no open <p>",
    "outside": "text outside every <p>...</p>",
}


class MarkupError(ValueError):
    """A strict text's marks are not whitespace-separated ``<p>...</p>`` blocks: ``fault`` (a key of
    :data:`FAULTS`) at character ``offset``, in paragraph ``paragraph`` (1-based: the one being read)."""

    def __init__(self, fault: str, offset: int, paragraph: int) -> None:
        super().__init__(f"{FAULTS[fault]} (paragraph {paragraph}, character {offset + 1})")
        self.fault = fault
        self.offset = offset
        self.paragraph = paragraph


@dataclass(frozen=True)
class Paragraphs:
    """A text's paragraphs; ``marked``: whether it had ``<p>`` marks; ``faults``: what a lenient read
    found and repaired (empty for a well-formed text)."""

    texts: tuple[str, ...]
    marked: bool
    faults: Counter[str] = field(default_factory=Counter)

    def __len__(self) -> int:
        return len(self.texts)


def paragraphs(text: str, *, strict: bool) -> Paragraphs:
    """The paragraphs of ``text`` by the module's rule; :class:`MarkupError` where ``strict`` and the
    marks are malformed."""
    marks = list(_MARK.finditer(text))
    if not marks:
        return Paragraphs((text,), False)
    out: list[str] = []
    faults: Counter[str] = Counter()
    current: list[str] | None = None  # the open paragraph's pieces
    pos = 0

    def fault(kind: str, offset: int) -> None:
        if strict:
            raise MarkupError(kind, offset, len(out) + 1)
        faults[kind] += 1

    def close() -> None:
        nonlocal current
        assert current is not None
        out.append(html.unescape("".join(current).strip()))
        current = None

    for m in marks:
        piece = text[pos:m.start()]
        if current is not None:
            current.append(piece)
        elif piece.strip():
            fault("outside", pos + len(piece) - len(piece.lstrip()))
            out.append(html.unescape(piece.strip()))
        if m.group(1):  # </p>
            if current is None:
                fault("stray", m.start())
            else:
                close()
        else:  # <p>
            if current is not None:
                fault("unclosed", m.start())
                close()
            current = []
        pos = m.end()
    tail = text[pos:]
    if current is not None:
        current.append(tail)
        fault("unclosed", len(text))
        close()
    elif tail.strip():
        fault("outside", pos + len(tail) - len(tail.lstrip()))
        out.append(html.unescape(tail.strip()))
    if not out:  # only stray marks
        out.append("")
    return Paragraphs(tuple(out), True, faults)
