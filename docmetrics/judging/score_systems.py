"""The one scoring loop: every metric of a run scores a test set in turn, and each run is compared with
the signature it was asked for.  Plain files, a GenMT file, the WMT25 TSV, stored scores, every language
pair of MTME data, the live metrics of ``docmetrics rank`` and the metrics whose own error spans
``--spans -m`` judges are scored here; the caller hears of each
metric before and after it scores through a :class:`ScoringObserver` (and stops the run by raising
there).  Nothing here parses arguments or prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from ..plugin.metric import Metric
from ..values.result import Result
from ..values.signature import ParsedSignature, compare
from ..values.testset import TestSet

__all__ = ["Scored", "ScoringObserver", "score_metrics"]


@dataclass
class Scored:
    """One metric's run on a test set: its spec (the ``index``-th of the run), the metric, its results
    (one per system) and the signature it was asked for, if any."""

    index: int
    spec: str
    metric: Metric
    results: list[Result]
    requested: ParsedSignature | None = None
    #: the fields (named) where this run differs from ``requested``; empty when it matches or none was given
    differences: list[str] = field(default_factory=list)


class ScoringObserver:
    """What the caller of :func:`score_metrics` hears while it runs; each method does nothing here."""

    def scoring(self, index: int, spec: str, metric: Metric) -> None:
        """The ``index``-th metric is about to score every system."""

    def scored(self, scored: Scored) -> None:
        """A metric scored every system (raise here to stop before the next one scores)."""


def score_metrics(testset: TestSet, metrics: Sequence[tuple[str, Metric]], *,
                  requested: Mapping[int, ParsedSignature] | None = None,
                  observer: ScoringObserver | None = None) -> list[Scored]:
    """Score every (spec, metric) of ``metrics`` on ``testset``, in order; one :class:`Scored` each.

    A metric is compared with the signature it was given in: its own
    (:attr:`~docmetrics.plugin.metric.Metric.requested_signature`, a docmetrics signature given as a
    spec), else ``requested[k]`` for the ``k``-th spec (sacrebleu's signature, read by the caller).
    """
    observer = observer or ScoringObserver()
    requested = requested or {}
    out = []
    for k, (spec, metric) in enumerate(metrics):
        observer.scoring(k, spec, metric)
        results = metric.compute(testset)
        asked = metric.requested_signature or requested.get(k)
        differences = compare(asked, results[0].signature) if asked is not None and results else []
        unit = results[0].unit_signature if differences else None
        if unit is not None and not compare(asked, unit):  # the signature of the segment scores (eff:yes)
            system = {f.key: f.value for f in results[0].signature.fields}
            said = ", ".join(f"{f.key}:{f.value}" for f in unit.fields if system.get(f.key) != f.value)
            differences = [f"it is the signature of {metric.name}'s segment scores ({said}), which --level seg "
                           "prints; the system score is computed as its own signature says"]
        out.append(Scored(k, spec, metric, results, asked, differences))
        observer.scored(out[-1])
    return out
