"""How a metric turns unit scores into document and system scores: a declared aggregation.

Every aggregation here is a function of per-group sufficient statistics: for each aggregation group
``g`` (``ScoringUnit.group``), ``num[g] = sum(w * s)`` and ``den[g] = sum(w)`` over the group's units
(``w`` the unit's weight, ``s`` its score).  The template computes a system's score from the sums
over all its units, a document's score from the sums over the document's units, and a significance
test recomputes the score of a resample of documents by adding the resampled documents' sums.  So
the same rule gives the system score, the document scores and every resample, and a test tests the
very number that was reported.

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
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Aggregation", "WeightedMean", "MeanOfGroupMeans", "get", "names", "group_sums"]

_BY_NAME: dict[str, type[Aggregation]] = {}


class Aggregation(abc.ABC):
    """A rule from per-group weighted sums to one score."""

    #: The name results and JSON output record (``Result.aggregation``).
    name: ClassVar[str] = ""
    #: One line for ``--describe``.
    description: ClassVar[str] = ""
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
    description: ClassVar[str] = "sum(weight * score) / sum(weight) over all units"
    label: ClassVar[str] = "weighted mean of its unit scores"

    def combine(self, num: np.ndarray, den: np.ndarray) -> np.ndarray:
        import numpy as np

        total = den.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total != 0, num.sum(axis=-1) / np.where(total != 0, total, 1.0), np.nan)


class MeanOfGroupMeans(Aggregation):
    name: ClassVar[str] = "mean-of-group-means"
    description: ClassVar[str] = "mean over groups (with units) of each group's weighted mean"
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
