"""Sentence segmenters: split a text into sentences (plugins, entry-point group ``docmetrics.segmenters``).

A segmenter is a small object with a :attr:`~Segmenter.name`, a :attr:`~Segmenter.version` (both go
into the signatures of metrics that segment, e.g. ASD) and :meth:`~Segmenter.split`.  The built-in
one is ``rules`` (package ``docmetrics_segmenters``: punctuation rules, no model); others (spaCy's
sentencizer, ...) are plugins registered the same way::

    [options.entry_points]
    docmetrics.segmenters =
        my-splitter = my_package:MySegmenter

:func:`load_segmenter` finds one by name through the registry; :func:`split_document` applies one
to a whole document, treating line breaks as hard sentence boundaries.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

from ..values.errors import PluginError

__all__ = ["Segmenter", "load_segmenter", "split_document"]


class Segmenter(abc.ABC):
    """Base class of sentence segmenters.

    Subclasses set :attr:`name` (the entry-point name), :attr:`version` (bump it whenever the
    output can change: it is recorded in signatures) and :attr:`description`, and implement
    :meth:`split`.  Construction must be cheap; load models lazily in :meth:`split`.
    """

    #: Entry-point name (set by the registry when the class does not set it).
    name: ClassVar[str] = ""
    #: Version of the segmentation rules or of the library that does the work.
    version: ClassVar[str] = ""
    #: One line for ``--list`` / ``--describe``.
    description: ClassVar[str] = ""

    @abc.abstractmethod
    def split(self, text: str, lang: str | None = None) -> list[str]:
        """The sentences of ``text`` in order, stripped, none empty.

        ``lang`` is an ISO 639-1 code (``en``, ``de``, ``zh``) or None when unknown; a segmenter
        uses it for language-specific rules (abbreviations) and must work without it.
        """

    def signature_version(self) -> str:
        """The version recorded in signatures (default: :attr:`version`)."""
        return str(self.version or "0")


def load_segmenter(name: str) -> Segmenter:
    """A new instance of the segmenter registered as ``name`` (keep it where it is used again: a
    metric holds its own).

    Unknown names raise :class:`~docmetrics.values.errors.PluginError` listing the available ones.
    """
    from . import registry
    obj: Any = registry.load("segmenter", name)  # checked there: it has a split(text, lang) method
    seg = obj() if isinstance(obj, type) else obj
    if not getattr(seg, "name", ""):
        try:
            seg.name = name  # type: ignore[misc]
        except AttributeError:
            pass
    return seg


def split_document(segmenter: Segmenter, text: str, lang: str | None = None) -> list[str]:
    """The sentences of a whole document: every line break ends a sentence (a paragraph or line
    of the document is never joined with the next), and each non-empty line is split by
    ``segmenter``.  Sentences are stripped; empty ones are dropped."""
    out: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        pieces = segmenter.split(line, lang)
        if not isinstance(pieces, list):
            raise PluginError(
                f"segmenter '{getattr(segmenter, 'name', '?')}' returned {type(pieces).__name__}, "
                "not a list of sentences"
            )
        out.extend(p.strip() for p in pieces if isinstance(p, str) and p.strip())
    return out
