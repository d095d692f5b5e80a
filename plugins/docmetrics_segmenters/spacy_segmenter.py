"""The ``spacy`` segmenter: spaCy's rule-based sentencizer (optional: ``pip install spacy``).

``spacy.blank(lang)`` (the language's tokenizer, no trained model) plus the ``sentencizer`` pipe,
which ends a sentence after the punctuation tokens in its ``punct_chars`` list.  The pipeline of
each language is built once.  A language spaCy does not know uses its multi-language pipeline
(``xx``).  The version recorded in signatures is spaCy's.  spaCy is imported only when text is split.
"""

from __future__ import annotations

from typing import Any, ClassVar

from docmetrics.plugin.segmenter import Segmenter
from docmetrics.values.errors import PluginError

__all__ = ["SpacySegmenter"]


class SpacySegmenter(Segmenter):
    """spaCy's rule-based sentencizer on a blank pipeline of the language."""

    name: ClassVar[str] = "spacy"
    description: ClassVar[str] = "spaCy's rule-based sentencizer (spacy.blank(lang) + sentencizer)"

    def __init__(self) -> None:
        self._nlp: dict[str, Any] = {}

    @staticmethod
    def _spacy() -> Any:
        try:
            import spacy
        except ImportError:
            raise PluginError(
                "segmenter 'spacy' needs spaCy, which is not installed; run: pip install spacy "
                "(or use segmenter=rules, the built-in one)"
            ) from None
        return spacy

    def signature_version(self) -> str:
        import importlib.metadata

        try:
            return importlib.metadata.version("spacy")
        except importlib.metadata.PackageNotFoundError:
            return str(getattr(self._spacy(), "__version__", "unknown"))

    def pipeline(self, lang: str | None) -> Any:
        """The blank pipeline with a sentencizer for ``lang`` (``xx`` when unknown or None)."""
        code = (lang or "xx").split("-")[0].split("_")[0].lower()
        nlp = self._nlp.get(code)
        if nlp is None:
            spacy = self._spacy()
            try:
                nlp = spacy.blank(code)
            except (ImportError, KeyError, ValueError, OSError):
                nlp = self._nlp.get("xx") or spacy.blank("xx")
            if "sentencizer" not in nlp.pipe_names:
                nlp.add_pipe("sentencizer")
            self._nlp[code] = nlp
        return nlp

    def split(self, text: str, lang: str | None = None) -> list[str]:
        doc = self.pipeline(lang)(text)
        return [s.text.strip() for s in doc.sents if s.text.strip()]
