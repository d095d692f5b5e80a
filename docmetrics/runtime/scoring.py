"""The scorer the runtime hands to every metric: a backbone's scores, answered from a score cache
where one is in use.

The metric template (:class:`docmetrics.plugin.metric.Metric`) deduplicates units and calls
``scorer.score(backbone, distinct_units)``; this module decides how they are scored.  The cache is
passed in (``CachingScorer(cache)``); ``CachingScorer()`` uses the process's active cache
(:func:`docmetrics.runtime.cache.active_cache`: ``--cache``, :func:`~docmetrics.runtime.cache.using`
or ``$DOCMETRICS_SCORE_CACHE``) at the time of each call.
"""

from __future__ import annotations

from typing import Sequence

from ..plugin.backbone import Backbone
from ..values.units import BackboneOutput, Unit
from . import cache as cache_module

__all__ = ["CachingScorer", "ACTIVE"]

#: ``CachingScorer(ACTIVE)``: use whatever cache is active when scoring (the default).
ACTIVE = object()


class CachingScorer:
    """Scores through a :class:`~docmetrics.runtime.cache.ScoreCache` (or directly, with none)."""

    def __init__(self, cache: cache_module.ScoreCache | None | object = ACTIVE) -> None:
        self._cache = cache

    @property
    def cache(self) -> cache_module.ScoreCache | None:
        if self._cache is ACTIVE:
            return cache_module.active_cache()
        return self._cache  # type: ignore[return-value]

    def score(self, backbone: Backbone, units: Sequence[Unit]) -> BackboneOutput:
        if not units:
            return BackboneOutput([], [], {}, [])
        store = self.cache
        if store is not None:
            return store.score(backbone, units)
        return backbone.score(list(units))
