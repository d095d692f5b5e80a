"""The scorer a :class:`~docmetrics.runtime.session.Session` hands to every metric: a backbone's scores,
answered from the session's score cache where it has one, the rest scored by its engine chunk by chunk.

The metric template (:class:`docmetrics.plugin.metric.Metric`) deduplicates units and calls
``scorer.score(backbone, distinct_units)``; this module decides how they are scored:

1. the score cache (passed in, or none) answers what it knows;
2. the engine (passed in; in-process when none) scores the rest in chunks (:mod:`docmetrics.runtime.engines`);
3. each chunk is stored in the cache as soon as it is scored, and then dropped: what is kept per unit
   is its record (score, truncation flag, counters, error spans, answer), never a model's state.

A run the cache answers completely never calls the backbone, so its model is never loaded.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

from ..plugin.backbone import Backbone
from ..plugin.metric import DirectScorer
from ..values.units import BackboneOutput, Unit, UnitRecord
from . import cache as cache_module
from . import engines

__all__ = ["CachingScorer"]


class CachingScorer:
    """Scores through a :class:`~docmetrics.runtime.cache.ScoreCache` (or none) and an engine; builds
    the backbones a metric asks for (ASD's aligner) through ``backbones`` (a session's)."""

    def __init__(self, cache: cache_module.ScoreCache | None = None, engine: engines.Engine | None = None,
                 *, label: str = "", quiet: bool = True,
                 backbones: Callable[..., Backbone] | None = None,
                 check_open: Callable[[], None] | None = None) -> None:
        self.cache = cache
        self.engine = engine if engine is not None else engines.InProcess()
        #: What the progress bar says (e.g. the metric spec), and whether to show one at all.
        self.label = label
        self.quiet = quiet
        self._backbones = backbones if backbones is not None else DirectScorer().backbone
        self._check_open = check_open

    def check_open(self) -> None:
        """Raise where what this scorer scores through is closed (its session's :meth:`close`): a closed
        engine would start its workers again, a closed cache cannot answer."""
        if self._check_open is not None:
            self._check_open()

    def backbone(self, cls: type[Backbone], model: str | None = None, *, like: Backbone | None = None,
                 **options: Any) -> Backbone:
        """The backbone ``cls(model, **options)`` with ``like``'s device, precision, batch size and token
        budget: the session's own (built once, shared) where this scorer belongs to one, else the plain
        scorer's (built once per scorer)."""
        self.check_open()
        return self._backbones(cls, model, like=like, **options)

    def score(self, backbone: Backbone, units: Sequence[Unit]) -> BackboneOutput:
        """One :class:`~docmetrics.values.units.UnitRecord` per unit: from the cache where it has it, else
        from the engine, stored chunk by chunk (a record whose counters are not known per unit is not
        stored)."""
        self.check_open()
        units = list(units)
        n = len(units)
        if not n:
            return BackboneOutput([], [], {}, [])
        store = self.cache
        if store is not None and not store.keyable(backbone):
            store = None  # the scores depend on the whole call: nothing to key them by
        records: list[UnitRecord | None] = [None] * n
        counters: dict[str, int] = {}
        found = store.lookup(backbone, units) if store is not None else {}
        for i, record in found.items():
            records[i] = record
            for k, v in (record.counters or {}).items():
                counters[k] = counters.get(k, 0) + int(v)
        misses = [i for i in range(n) if i not in found]
        if misses:
            label = self.label or f"{backbone.name}"
            bar = engines.Progress(len(misses), label, quiet=self.quiet)
            try:
                chunk_size = store.chunk_size if store is not None else None  # one chunk, one commit
                for chunk, out in self.engine.map(backbone, "score", [units[i] for i in misses], bar,
                                                  chunk=chunk_size):
                    where = [misses[j] for j in chunk]
                    for k, v in out.counters.items():
                        counters[k] = counters.get(k, 0) + int(v)
                    got = out.records()
                    if out.unit_counters is None:  # only the chunk's totals: per unit where they tell
                        shared = cache_module.attribute_counters(out.counters, len(where))
                        got = [dataclasses.replace(r, counters=shared) for r in got]
                    for j, i in enumerate(where):
                        records[i] = got[j]
                    if store is not None:
                        store.store(backbone, [units[i] for i in where], BackboneOutput.from_records(got))
            finally:
                bar.close()
        return BackboneOutput.from_records(records, counters)  # type: ignore[arg-type]

    def similarity(self, backbone: Backbone, pairs: Sequence[tuple[str, str]]) -> BackboneOutput:
        """``backbone.similarity(pairs)`` through the engine (not cached: alignments are cheap to
        redo next to the scoring they serve)."""
        self.check_open()
        pairs = list(pairs)
        if not pairs:
            return BackboneOutput([], [], {}, [])
        scores: list[Any] = [0.0] * len(pairs)
        truncated = [False] * len(pairs)
        counters: dict[str, int] = {}
        for chunk, out in self.engine.map(backbone, "similarity", pairs):
            for j, i in enumerate(chunk):
                scores[i], truncated[i] = out.scores[j], bool(out.truncated[j])
            for k, v in out.counters.items():
                counters[k] = counters.get(k, 0) + int(v)
        return BackboneOutput(scores, truncated, counters)

