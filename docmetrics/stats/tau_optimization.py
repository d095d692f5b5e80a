"""Tie calibration of Kendall's tau variants (Deutsch, Foster and Freitag, 2023, "Ties Matter",
https://arxiv.org/abs/2305.14324), with mt-metrics-eval's names: :func:`tau_optimization` tries every
threshold epsilon under which the metric ties a pair (0 and each observed ``|metric difference|``) and
returns the tau of every one and the best.

The average over rows is kept as a running sum, pair by pair in order of increasing difference (the
numbers are those of MTME's ``tau_optimization`` to the last bit).  The best threshold: with
``compat="docmetrics"`` the smallest epsilon whose tau is within the tie tolerance of the maximum
(:mod:`docmetrics.stats.ties`); with ``compat="mtme"`` the first exact float maximum (rounding of the
running sum may then pick a later epsilon of the same accuracy).  A missing score is ``None`` (or NaN,
which MTME would compare as a number: here it is missing too).  The pairs are formed, categorised and
counted with numpy; only the running sum is a loop.

:func:`acc_eq` / :func:`acc_eq_rows`: docmetrics' acc_eq (WMT23/24's segment-level statistic: acc_23 within
each item, averaged over the items, at the calibrated epsilon or a given one) as an :class:`AccEqResult`.
"""

from __future__ import annotations

import dataclasses
import math
from bisect import bisect_right
from itertools import accumulate
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .base import EPSILON_RULE, Score, StatsError, as_rows, check_compat, generator, score_rows, systems_of
from .ties import at_least

__all__ = ["TauSufficientStats", "TauOptimizationResult", "tau_optimization", "pair_differences", "AccEqResult",
           "acc_eq_rows", "acc_eq"]

_FIELDS = ("con", "dis", "ties_human", "ties_metric", "ties_both")
#: at most this many pairs are formed in one call (memory: a few arrays of this length)
MAX_PAIRS = 30_000_000


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


def pair_differences(human: Any, *metrics: Any) -> tuple[Any, Any, list[Any]]:
    """Every pair i < j of entries of each row (a group; row-major order) scored on every side: (its row, the
    human difference ``h[i] - h[j]``, each metric's difference).  Rows are float matrices, NaN missing."""
    n_rows, n_cols = human.shape
    if n_rows * (n_cols * (n_cols - 1) // 2) > MAX_PAIRS:
        raise StatsError(f"{n_rows * (n_cols * (n_cols - 1) // 2)} pairs are too many for one call; group the scores "
                         "by item")
    first, second = np.triu_indices(human.shape[1], 1)
    hd = human[:, first] - human[:, second]
    mds = [m[:, first] - m[:, second] for m in metrics]
    valid = ~np.isnan(hd)
    for md in mds:
        valid &= ~np.isnan(md)
    row = np.broadcast_to(np.arange(human.shape[0])[:, None], hd.shape)[valid]
    return row, hd[valid], [md[valid] for md in mds]


def _row_cumsums(values: list[Any], row: Any) -> list[Any]:
    """For each array of ``values``: each entry's inclusive running sum over the entries of its row, in order."""
    by_row = np.argsort(row, kind="stable")
    starts = np.r_[0, np.flatnonzero(np.diff(row[by_row])) + 1]
    lengths = np.diff(np.r_[starts, len(row)])
    out = []
    for v in values:
        cs = np.cumsum(v[by_row])
        ours = np.empty_like(cs)
        ours[by_row] = cs - np.repeat(np.r_[0, cs][starts], lengths)
        out.append(ours)
    return out


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
    metric, human = as_rows(metric_scores, "metric scores"), as_rows(human_scores, "human scores")
    if metric.shape != human.shape:
        raise StatsError("Human and metric scores must have the same shape.")
    row, hd, (md,) = pair_differences(human, metric)
    if sample_rate < 1.0:
        keep = generator(rng).random(len(row)) <= sample_rate  # one draw per pair, in MTME's order
        row, hd, md = row[keep], hd[keep], md[keep]
    if not len(row):
        return TauOptimizationResult([0.0], [math.nan], 0.0, math.nan)
    # each pair's category (index into _FIELDS) with no metric tie, and once the metric ties it
    normal = np.where(hd == 0, np.where(md == 0, 4, 2), np.where(md == 0, 3, np.where((hd > 0) == (md > 0), 0, 1)))
    tied = np.where(hd == 0, 4, 3)
    rows, row = np.unique(row, return_inverse=True)
    start = [np.bincount(row[normal == c], minlength=len(rows)) for c in range(5)]
    total = sum(tau_fn(TauSufficientStats(*(int(start[c][r]) for c in range(5)))) for r in range(len(rows)))
    # thresholds in increasing order (stable: equal differences in pair order); each one ties its pair in the metric
    diffs = np.abs(md)
    order = np.argsort(diffs, kind="stable")
    row, normal, tied, diffs = row[order], normal[order], tied[order], diffs[order]
    moved = _row_cumsums([(tied == c).astype(int) - (normal == c) for c in range(5)], row)
    after = [start[c][row] + moved[c] for c in range(5)]
    before = [after[c] - (tied == c) + (normal == c) for c in range(5)]
    steps = np.empty(2 * len(row))
    steps[0::2] = -np.broadcast_to(tau_fn(TauSufficientStats(*before)), row.shape)
    steps[1::2] = np.broadcast_to(tau_fn(TauSufficientStats(*after)), row.shape)
    # MTME's running sum, term by term (total -= old; total += new), as one C loop: -x is exact
    running = np.asarray(list(accumulate(steps.tolist(), initial=total))[2::2]) / len(rows)
    last = np.r_[diffs[1:] != diffs[:-1], True]  # a threshold's tau: after every pair of its difference is tied
    thresholds, taus = diffs[last].tolist(), running[last].tolist()
    if thresholds[0] != 0:
        thresholds, taus = [0.0] + thresholds, [total / len(rows)] + taus
    arr = np.asarray(taus, dtype=float)
    if mtme:
        best = int(np.nanargmax(arr))
    else:
        best = int(np.flatnonzero(at_least(np.nan_to_num(arr, nan=-np.inf), np.nanmax(arr)))[0])
    return TauOptimizationResult(thresholds, taus, thresholds[best], taus[best])


@dataclasses.dataclass
class AccEqResult:
    """Pairwise accuracy with ties (acc_eq) and the epsilon under which the metric ties a pair."""

    accuracy: float
    epsilon: float
    n_groups: int
    n_pairs: int
    calibrated: bool
    #: pairs the metric ties at ``epsilon`` (|difference| <= epsilon), and the largest |difference|
    metric_ties: int = 0
    max_difference: float = math.nan

    @property
    def ties_every_pair(self) -> bool:
        """Whether ``epsilon`` ties every pair: acc_eq is then the (macro-averaged) share of pairs the humans
        tie, and says nothing of how the metric orders the systems."""
        return self.n_pairs > 0 and self.metric_ties == self.n_pairs

    def ties_note(self) -> str | None:
        """One sentence for the notes when :attr:`ties_every_pair`, else None."""
        if not self.ties_every_pair:
            return None
        how = "the calibrated epsilon" if self.calibrated else "epsilon"
        return (f"{how} {self.epsilon:g} ties every pair ({self.n_pairs} pairs; the largest difference of the "
                f"metric's scores is {self.max_difference:g}): acc_eq {self.accuracy:.4f} is then the share of pairs "
                "the humans tie, and says nothing of how the metric orders the systems")

    def to_dict(self) -> dict[str, Any]:
        return {"accuracy": None if math.isnan(self.accuracy) else self.accuracy, "epsilon": self.epsilon,
                "epsilon_rule": EPSILON_RULE, "groups": self.n_groups, "pairs": self.n_pairs,
                "calibrated": self.calibrated}


def acc_eq_rows(metric_rows: Any, human_rows: Any, epsilon: float | None = None) -> AccEqResult:
    """acc_eq over groups given as rows (entries compared within a row only): :func:`tau_optimization` of
    acc_23; ``epsilon=None`` calibrates it (the smallest of equal accuracy), a number fixes it."""
    metric, human = as_rows(metric_rows, "metric scores"), as_rows(human_rows, "human scores")
    if metric.shape != human.shape:
        raise StatsError(f"metric and human scores have different shapes ({metric.shape} and {human.shape})")
    if epsilon is not None and not epsilon >= 0:
        raise StatsError(f"epsilon must be >= 0, got {epsilon}")
    res = tau_optimization(metric, human, TauSufficientStats.acc_23)
    row, _, (md,) = pair_differences(human, metric)
    absd = np.abs(md)
    calibrated = epsilon is None
    if epsilon is None:
        accuracy, epsilon = res.best_tau, res.best_threshold
    else:  # the accuracy changes only at an observed difference
        accuracy = res.taus[bisect_right(res.thresholds, epsilon) - 1]
    return AccEqResult(float(accuracy), float(epsilon), len(np.unique(row)), len(row), calibrated,
                       int((absd <= epsilon).sum()), float(absd.max()) if len(row) else math.nan)


def acc_eq(metric: Mapping[str, Sequence[Score]], human: Mapping[str, Sequence[Score]], group_by_item: bool = True,
           *, epsilon: float | None = None, systems: Sequence[str] | None = None) -> AccEqResult:
    """acc_eq of segment-level scores (system -> per-segment scores, ``None`` missing): grouped by item (WMT23/24:
    each segment compares the systems; mean over items) or pooled over all (system, segment) entries."""
    names = systems_of(systems, human, metric)
    return acc_eq_rows(score_rows(metric, names, group_by_item, "metric scores"),
                       score_rows(human, names, group_by_item, "human scores"), epsilon)
