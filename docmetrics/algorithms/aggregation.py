"""How a metric turns unit scores into document and system scores: a declared aggregation.

Every aggregation here is a function of per-group sufficient statistics: for each aggregation group
``g`` (``ScoringUnit.group``), ``num[g] = sum(w * s)`` and ``den[g] = sum(w)`` over the group's units
(``w`` the unit's weight, ``s`` its score).  The template computes a system's score from the sums
over all its units, a document's score from the sums over the document's units, and a significance
test recomputes the score of a resample of documents by adding the resampled documents' sums.  So
the same rule gives the system score, the document scores and every resample, and a test tests the
very number that was reported.

A unit may carry sufficient statistics of its own instead (``ScoringUnit.stats``: ``(group, value)``
pairs, e.g. a segment's n-gram counts for corpus BLEU): it then adds ``w * value`` and ``w`` to each
statistic's group, and its score is for display only (:func:`unit_values`, :func:`unit_sums`).

* :class:`WeightedMean` (``"mean"``): ``sum(num) / sum(den)``, one group or many.  With unit
  weights 1 it is the plain mean over units (SLIDE, Doc-COMET, Doc-BERTScore, Doc-Prism).
* :class:`MeanOfGroupMeans` (``"mean-of-group-means"``): the mean, over the groups that have units,
  of each group's weighted mean (ASD: the mean over chunk sizes k of the mean over k-chunks).

A third party declares another rule by subclassing :class:`Aggregation` (``combine`` over arrays
whose last axis is the groups); it is found by name with :func:`get`.

numpy is imported inside the functions: importing this module stays light.
"""

from __future__ import annotations

import abc
import math
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Sequence

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Aggregation", "WeightedMean", "MeanOfGroupMeans", "get", "names", "group_sums", "unit_values",
           "unit_groups", "unit_sums"]

_BY_NAME: dict[str, type[Aggregation]] = {}


class Aggregation(abc.ABC):
    """A rule from per-group weighted sums to one score."""

    #: The name results and JSON output record (``Result.aggregation``).
    name: ClassVar[str] = ""
    #: What the score is, in words ("the weighted mean of its unit scores").
    label: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.name:
            _BY_NAME[cls.name] = cls

    @abc.abstractmethod
    def combine(self, num: np.ndarray, den: np.ndarray) -> np.ndarray:
        """Scores from sums: ``num`` and ``den`` have shape ``(..., G)``; the result ``(...)``.
        NaN where nothing was scored."""

    def score(self, num: Sequence[float], den: Sequence[float]) -> float:
        """One score from one row of per-group sums (NaN when nothing was scored)."""
        import numpy as np

        if len(num) == 0:
            return math.nan
        return float(self.combine(np.asarray(num, dtype=float), np.asarray(den, dtype=float)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self))


class WeightedMean(Aggregation):
    name: ClassVar[str] = "mean"
    label: ClassVar[str] = "weighted mean of its unit scores"

    def combine(self, num: np.ndarray, den: np.ndarray) -> np.ndarray:
        import numpy as np

        total = den.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total != 0, num.sum(axis=-1) / np.where(total != 0, total, 1.0), np.nan)


class MeanOfGroupMeans(Aggregation):
    name: ClassVar[str] = "mean-of-group-means"
    label: ClassVar[str] = "mean over groups of the weighted means of its unit scores"

    def combine(self, num: np.ndarray, den: np.ndarray) -> np.ndarray:
        import numpy as np

        have = den != 0
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(have, num / np.where(have, den, 1.0), 0.0)
            count = have.sum(axis=-1)
            return np.where(count > 0, means.sum(axis=-1) / np.where(count > 0, count, 1), np.nan)


def get(name: str) -> Aggregation:
    """The aggregation registered under ``name`` (ValueError naming the known ones otherwise)."""
    cls = _BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"unknown aggregation {name!r}; known: {', '.join(sorted(_BY_NAME))}")
    return cls()


def names() -> list[str]:
    return sorted(_BY_NAME)


def group_sums(
    scores: Sequence[float], weights: Sequence[float], groups: Sequence[str], order: Sequence[str]
) -> tuple[list[float], list[float]]:
    """``(num, den)`` per group of ``order`` over the given units (exact sums, math.fsum)."""
    pos = {g: k for k, g in enumerate(order)}
    num: list[list[float]] = [[] for _ in order]
    den: list[list[float]] = [[] for _ in order]
    for s, w, g in zip(scores, weights, groups):
        k = pos[g]
        num[k].append(w * s)
        den[k].append(w)
    return [math.fsum(x) for x in num], [math.fsum(x) for x in den]


def unit_values(unit: Any) -> tuple[tuple[str, float], ...]:
    """What a unit (``ScoringUnit`` or ``UnitScore``) adds to the aggregation, each pair weighted by
    its weight: its statistics where it carries ``stats``, else ``(group, score)``."""
    return unit.stats or ((unit.group, unit.score),)


def unit_groups(units: Iterable[Any]) -> list[str]:
    """The aggregation groups of ``units`` in order of first appearance (statistics' groups included)."""
    return list(dict.fromkeys(g for u in units for g, _ in (u.stats or ((u.group, 0.0),))))


def unit_sums(units: Sequence[Any], order: Sequence[str]) -> tuple[list[float], list[float]]:
    """:func:`group_sums` over units (``UnitScore``: score, weight, group and stats)."""
    pairs = [(g, v, u.weight) for u in units for g, v in unit_values(u)]
    return group_sums([v for _, v, _ in pairs], [w for _, _, w in pairs], [g for g, _, _ in pairs], order)
