"""Sentence segmenters for docmetrics (entry-point group ``docmetrics.segmenters``).

``rules`` (:class:`RuleSegmenter`): punctuation rules, no model, no dependency; the default of
metrics that segment whole documents (ASD).
"""

from .rules import RuleSegmenter

__all__ = ["RuleSegmenter"]
