"""Tie calibration of Kendall's tau variants (Deutsch, Foster and Freitag, 2023, "Ties Matter",
https://arxiv.org/abs/2305.14324), with mt-metrics-eval's names: :func:`tau_optimization` tries every
threshold epsilon under which the metric ties a pair (0 and each observed ``|metric difference|``) and
returns the tau of every one and the best.

The average over rows is kept as a running sum, pair by pair in order of increasing difference (the
numbers are those of MTME's ``tau_optimization`` to the last bit).  The best threshold: with
``compat="docmetrics"`` the smallest epsilon whose tau is within the tie tolerance of the maximum
(:mod:`docmetrics.stats.ties`); with ``compat="mtme"`` the first exact float maximum (rounding of the
running sum may then pick a later epsilon of the same accuracy).  A missing score is ``None`` (or NaN,
which MTME would compare as a number: here it is missing too).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np

from .base import StatsError, check_compat, generator
from .ties import at_least

__all__ = ["TauSufficientStats", "TauOptimizationResult", "tau_optimization"]

_FIELDS = ("con", "dis", "ties_human", "ties_metric", "ties_both")


class TauSufficientStats:
    """Counts of pairs from which every tau variant follows: concordant, discordant, tied in the human
    scores only, in the metric scores only, in both; and their total ``num_pairs``."""

    def __init__(self, con: int = 0, dis: int = 0, ties_human: int = 0, ties_metric: int = 0, ties_both: int = 0):
        self.con = con
        self.dis = dis
        self.ties_human = ties_human
        self.ties_metric = ties_metric
        self.ties_both = ties_both
        self.num_pairs = con + dis + ties_human + ties_metric + ties_both

    def tau_23(self) -> float:
        """tau_23: (pairs ordered alike or tied in both - the others) / all pairs."""
        return (self.con + self.ties_both - self.dis - self.ties_human - self.ties_metric) / self.num_pairs

    def acc_23(self) -> float:
        """acc_23 (pairwise accuracy with ties): (pairs ordered alike + pairs tied in both) / all pairs."""
        return (self.con + self.ties_both) / self.num_pairs

    def _counts(self) -> tuple[int, ...]:
        return tuple(getattr(self, f) for f in _FIELDS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TauSufficientStats) and self._counts() == other._counts()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __iadd__(self, other: TauSufficientStats) -> TauSufficientStats:
        for f in _FIELDS + ("num_pairs",):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        return self

    def __isub__(self, other: TauSufficientStats) -> TauSufficientStats:
        for f in _FIELDS + ("num_pairs",):
            setattr(self, f, getattr(self, f) - getattr(other, f))
        return self

    def __str__(self) -> str:
        return (f"(C={self.con},D={self.dis},T_h={self.ties_human},T_m={self.ties_metric},"
                f"T_hm={self.ties_both})")

    __repr__ = __str__


@dataclasses.dataclass
class TauOptimizationResult:
    """Every threshold tried (ascending), the tau at each, and the best threshold and its tau."""

    thresholds: list[float]
    taus: list[float]
    best_threshold: float
    best_tau: float


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, (float, np.floating)) and math.isnan(v))


def _rows(scores: Any) -> list[list[Any]]:
    arr = np.array(scores, dtype=object)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise StatsError(f"scores must be a vector or an N x M matrix, got {arr.ndim} dimensions")
    return [list(r) for r in arr]


def _category(h1: Any, h2: Any, m1: Any, m2: Any) -> str:
    if h1 == h2:
        return "ties_both" if m1 == m2 else "ties_human"
    if m1 == m2:
        return "ties_metric"
    return "con" if (h1 > h2) == (m1 > m2) else "dis"


def tau_optimization(
    metric_scores: Any,
    human_scores: Any,
    tau_fn: Callable[[TauSufficientStats], float],
    sample_rate: float = 1.0,
    *,
    rng: Any = None,
    compat: str = "docmetrics",
) -> TauOptimizationResult:
    """The average over rows of ``tau_fn`` (e.g. :meth:`TauSufficientStats.acc_23`) at every threshold under
    which the metric ties a pair, and the best (see the module docstring).

    ``metric_scores`` / ``human_scores``: vectors or N x M matrices (a row is a group: pairs are formed
    within it); ``None`` missing.  ``sample_rate`` in (0, 1]: each pair is kept with this probability
    (drawn from ``rng``: None is numpy's global generator, as in MTME; an int seeds a new one).
    """
    mtme = check_compat(compat)
    if not 0 < sample_rate <= 1:
        raise StatsError(f"`sample_rate` must be in the range (0, 1]. Found {sample_rate}")
    metric = _rows(metric_scores)
    human = _rows(human_scores)
    if len(metric) != len(human) or any(len(a) != len(b) for a, b in zip(metric, human)):
        raise StatsError("Human and metric scores must have the same shape.")
    draw = None if sample_rate == 1.0 else generator(rng)
    diffs: list[Any] = []
    rows: list[int] = []
    normal: list[str] = []
    tied: list[str] = []
    for r, (hr, mr) in enumerate(zip(human, metric)):
        kept = [(h, m) for h, m in zip(hr, mr) if not _missing(h) and not _missing(m)]
        for i in range(len(kept)):
            h1, m1 = kept[i]
            for j in range(i + 1, len(kept)):
                if draw is not None and draw.random() > sample_rate:
                    continue
                h2, m2 = kept[j]
                diffs.append(abs(m1 - m2))
                rows.append(r)
                normal.append(_category(h1, h2, m1, m2))
                tied.append("ties_both" if h1 == h2 else "ties_metric")
    if not diffs:
        return TauOptimizationResult([0.0], [math.nan], 0.0, math.nan)
    stats = {r: TauSufficientStats() for r in sorted(set(rows))}
    for r, c in zip(rows, normal):
        setattr(stats[r], c, getattr(stats[r], c) + 1)
        stats[r].num_pairs += 1
    n_rows = len(stats)
    total = sum(tau_fn(s) for s in stats.values())
    thresholds: list[Any] = [0.0]
    taus = [total / n_rows]
    for k in sorted(range(len(diffs)), key=diffs.__getitem__):  # stable: equal differences in pair order
        s = stats[rows[k]]
        total -= tau_fn(s)
        setattr(s, normal[k], getattr(s, normal[k]) - 1)
        setattr(s, tied[k], getattr(s, tied[k]) + 1)
        total += tau_fn(s)
        if thresholds[-1] == diffs[k]:  # every pair of this difference is tied under this threshold
            taus[-1] = total / n_rows
        else:
            thresholds.append(diffs[k])
            taus.append(total / n_rows)
    arr = np.asarray(taus, dtype=float)
    if mtme:
        best = int(np.nanargmax(arr))
    else:
        best = int(np.flatnonzero(at_least(np.nan_to_num(arr, nan=-np.inf), np.nanmax(arr)))[0])
    return TauOptimizationResult(thresholds, taus, thresholds[best], taus[best])
