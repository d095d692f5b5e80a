"""The runtime of one run: everything scoring needs, in one object passed to whatever scores.

A :class:`Session` holds

* the **score cache** (a :class:`~docmetrics.runtime.cache.ScoreCache`, or none); ``$DOCMETRICS_SCORE_CACHE``
  is read once, when the session is made;
* the **engine** that scores what the cache cannot answer (in-process, worker processes, Ray actors); its
  workers live as long as the session, so a model loads once per worker per command;
* the **backbones** it has built, keyed by everything that changes how they run (class, model, precision,
  device, options, batch size, token budget): two metrics asking for the same model with the same settings
  share one loaded model, and a backbone is never changed after it is built;
* the **defaults** for device, precision, batch size and token budget.

The command line makes one per command; :func:`docmetrics.load` makes one per metric or takes one::

    with docmetrics.Session(cache="scores.sqlite", max_tokens=8192) as session:
        slide = docmetrics.load("slide:w=6,s=6", session=session)
        asd = docmetrics.load("asd", session=session)   # the same CometKiwi object as slide's, loaded once
        results = slide.compute(testset)

Nothing here is process-wide: two sessions in one process share nothing.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping, Sequence

from ..plugin.backbone import SETTINGS, Backbone, build_once
from ..values.errors import UserError
from ..values.params import check_batch_size, check_max_tokens
from ..values.units import BackboneOutput, Unit, UnitRecord
from . import cache as cache_module
from . import engines

__all__ = ["Session", "FROM_ENVIRONMENT", "CachingScorer"]

#: ``Session(cache=FROM_ENVIRONMENT)`` (the default): the cache ``$DOCMETRICS_SCORE_CACHE`` names, if any.
FROM_ENVIRONMENT = "from-environment"


class Session:
    """The score cache, the engine, the backbones built and the defaults of one run (see the module)."""

    def __init__(
        self,
        *,
        cache: cache_module.ScoreCache | str | os.PathLike[str] | None = FROM_ENVIRONMENT,
        engine: engines.Engine | None = None,
        device: str = "auto",
        precision: str | None = None,
        batch_size: int | None = None,
        max_tokens: int | None = None,
        quiet: bool = True,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        check_batch_size(batch_size)
        check_max_tokens(max_tokens)
        self.device = device
        self.precision = precision
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.quiet = quiet
        if isinstance(cache, str) and cache == FROM_ENVIRONMENT:
            cache = cache_module.environment_path(os.environ if environ is None else environ)
        self._owns_cache = not isinstance(cache, cache_module.ScoreCache)
        if cache is not None and self._owns_cache:
            cache = cache_module.ScoreCache(cache)
        self.cache = cache
        self.engine: engines.Engine = engine if engine is not None else engines.InProcess()
        self._backbones: dict[tuple[Any, ...], Backbone] = {}
        self._closed = False

    # -- backbones ------------------------------------------------------------------------------------
    def backbone(
        self,
        cls: type[Backbone],
        model: str | None = None,
        *,
        like: Backbone | None = None,
        precision: str | None = None,
        device: str | None = None,
        batch_size: int | None = None,
        max_tokens: int | None = None,
        quiet: bool | None = None,
        **options: Any,
    ) -> Backbone:
        """The backbone ``cls(model, ...)`` this session has built with these settings, built now if it
        has none.  Settings not given come from ``like`` (a backbone whose device, precision, batch size
        and token budget to share, e.g. ASD's aligner takes its scorer's), else from the session."""
        self.check_open()

        given = (precision, device, batch_size, max_tokens, quiet)
        own = (self.precision or "fp32", self.device, self.batch_size, self.max_tokens, self.quiet)
        settings = {key: value if value is not None else getattr(like, key) if like is not None else default
                    for key, value, default in zip(SETTINGS, given, own)}
        return build_once(self._backbones, cls, model or cls.default_model, settings, options)

    @property
    def backbones(self) -> list[Backbone]:
        """The backbones built so far, in the order they were built."""
        return list(self._backbones.values())

    # -- metrics and scoring ------------------------------------------------------------------------------
    def scorer(self, label: str = "") -> CachingScorer:
        """The scorer metrics of this session score through (its cache and engine; its backbones); it
        refuses to score once the session is closed."""
        self.check_open()
        return CachingScorer(self, label)

    # -- lifetime ---------------------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    def check_open(self) -> None:
        """Raise a UserError once the session is closed: nothing scores in it then (its engine's workers
        would start again, its cache is closed)."""
        if self._closed:
            raise UserError("session is closed: nothing scores in it after close() (or the end of its with "
                            "block); load the metric in a new docmetrics.Session, or without session= for a "
                            "session of its own", params=("session",))

    def close(self) -> None:
        """Stop the engine's workers and close the cache this session opened (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            self.engine.close()
        finally:
            if self._owns_cache and self.cache is not None:
                self.cache.close()
            self._backbones.clear()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        where = self.cache.path if self.cache is not None else "no cache"
        workers = getattr(self.engine, "n", None) or getattr(self.engine, "workers", None)  # Workers(n), Ray(workers)
        engine = f"{self.engine.name}({workers})" if workers else self.engine.name
        settings = "".join(f", {k}={v}" for k, v in (("precision", self.precision), ("batch_size", self.batch_size),
                                                      ("max_tokens", self.max_tokens)) if v is not None)
        return (f"<Session {'closed' if self._closed else 'open'}, cache={where}, engine={engine}, "
                f"device={self.device}{settings}, backbones={len(self._backbones)}>")


class CachingScorer:
    """The scorer a :class:`Session` hands to each metric it loads (``label``: the metric, on the progress bar).

    The metric template (:class:`docmetrics.plugin.metric.Metric`) deduplicates units and calls
    ``scorer.score(backbone, distinct_units)``; here they are scored:

    1. the session's score cache (or none) answers what it knows;
    2. the session's engine scores the rest in chunks (:mod:`docmetrics.runtime.engines`);
    3. each chunk is stored in the cache as soon as it is scored, and then dropped: what is kept per unit
       is its record (score, truncation flag, counters, error spans, answer), never a model's state.

    A run the cache answers completely never calls the backbone, so its model is never loaded.  The
    backbones a metric asks for (ASD's aligner) are the session's."""

    def __init__(self, session: Session, label: str = "") -> None:
        self.session = session
        #: What the progress bar says (e.g. the metric spec).
        self.label = label

    def check_open(self) -> None:
        """Raise once the session is closed (:meth:`Session.close`): a closed engine would start its workers
        again, a closed cache cannot answer."""
        self.session.check_open()

    def backbone(self, cls: type[Backbone], model: str | None = None, *, like: Backbone | None = None,
                 **options: Any) -> Backbone:
        """The session's backbone ``cls(model, **options)`` with ``like``'s device, precision, batch size and
        token budget (built once, shared)."""
        return self.session.backbone(cls, model, like=like, **options)

    def score(self, backbone: Backbone, units: Sequence[Unit]) -> BackboneOutput:
        """One :class:`~docmetrics.values.units.UnitRecord` per unit: from the cache where it has it, else
        from the engine, stored chunk by chunk (a record whose counters are not known per unit is not
        stored)."""
        self.check_open()
        units = list(units)
        n = len(units)
        if not n:
            return BackboneOutput([], [], {}, [])
        store = self.session.cache
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
            bar = engines.Progress(len(misses), label, quiet=self.session.quiet)
            try:
                chunk_size = store.chunk_size if store is not None else None  # one chunk, one commit
                for chunk, out in self.session.engine.map(backbone, "score", [units[i] for i in misses], bar,
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
        for chunk, out in self.session.engine.map(backbone, "similarity", pairs):
            for j, i in enumerate(chunk):
                scores[i], truncated[i] = out.scores[j], bool(out.truncated[j])
            for k, v in out.counters.items():
                counters[k] = counters.get(k, 0) + int(v)
        return BackboneOutput(scores, truncated, counters)

