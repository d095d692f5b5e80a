"""Sliding windows over documents: pure functions, no model (SLIDE, ASD and friends use them)."""

from __future__ import annotations

from dataclasses import dataclass

PARTIAL_POLICIES = ("drop", "keep", "weighted")


@dataclass(frozen=True)
class Window:
    """Sentences ``start .. end-1`` of a document (document-relative), and whether the window is a
    partial one (shorter than w)."""

    start: int
    end: int
    partial: bool = False

    def __len__(self) -> int:
        return self.end - self.start


def slide_windows(length: int, w: int, s: int, partial: str = "drop") -> list[Window]:
    """The windows SLIDE scores in a document of ``length`` sentences.

    Full windows start at 0, s, 2s, ... while they fit (start + w <= length), as in Raunak et al.
    (2024), Section 2.  The sentences no full window covers are:

    * the whole document, when it is shorter than w;
    * the remainder: the sentences after the end of the last full window.

    ``partial='drop'`` (the paper's default) skips them.  ``'keep'`` and ``'weighted'`` (§A.1) add
    them as one partial chunk: the whole short document, or exactly the uncovered remainder
    (sentences last_full_end .. length-1).  So every sentence is covered exactly by the full windows
    plus at most one partial window per document.
    """
    if w < 1 or s < 1:
        raise ValueError("w and s must be >= 1")
    if s > w:
        raise ValueError("s must be <= w")
    if partial not in PARTIAL_POLICIES:
        raise ValueError(f"partial must be one of {PARTIAL_POLICIES}")
    windows = [Window(i, i + w) for i in range(0, length - w + 1, s)] if length >= w else []
    if partial != "drop" and length > 0:
        covered_end = windows[-1].end if windows else 0
        if covered_end < length:
            windows.append(Window(covered_end, length, partial=True))
    return windows
