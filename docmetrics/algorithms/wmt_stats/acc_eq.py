""":func:`acc_eq` / :func:`acc_eq_rows`: pairwise accuracy with tie calibration (Deutsch, Foster and
Freitag, 2023, "Ties Matter"; MTME's ``KendallWithTiesOpt`` with variant ``acc23``): within each
group of scores (an item: the systems' translations of one source segment), every pair of entries
is correct when the metric and the humans order it the same way, or when both tie it; the metric
ties a pair when ``|difference| <= epsilon``.  The accuracy is the mean over groups of each group's
share of correct pairs (a macro average; groups without a pair are left out), and epsilon is
chosen among 0 and every observed ``|metric difference|`` to maximise it (the smallest such
epsilon on a tie).  Pairs with a missing score on either side are skipped."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ...stats.ties import at_least
from .rows import Score, as_rows, pair_indices, score_rows, systems_of

if TYPE_CHECKING:
    import numpy as np

__all__ = ["EPSILON_RULE", "ITEM_RULE", "MAX_PAIRS", "TieCalibration", "AccEqResult", "Pairs", "pairs_of",
           "calibrate", "tie_calibration", "acc_eq_rows", "acc_eq"]

#: Which epsilon acc_eq reports among those of equal accuracy (every JSON with an ``epsilon`` says it beside):
#: the smallest, equal meaning within the tie tolerance of :mod:`docmetrics.stats.ties`.  MTME's
#: ``tau_optimization`` takes the float maximum of running sums, which rounding may put at a later epsilon.
EPSILON_RULE = "smallest of equal accuracy"
#: How an average over items treats an item without a defined correlation (constant scores, fewer than 2
#: entries): left out; with no item left the average is undefined (null in JSON).  MTME averages the same
#: items but reports 0 when none is left.
ITEM_RULE = "undefined items left out; none left: null"

#: at most this many pairs are formed in one acc_eq call (memory: a few arrays of this length)
MAX_PAIRS = 30_000_000


@dataclass
class TieCalibration:
    """Accuracy at every candidate epsilon (0 and each observed |metric difference|), ascending."""

    thresholds: list[float]
    accuracies: list[float]
    epsilon: float
    accuracy: float
    n_groups: int
    n_pairs: int


@dataclass
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
        """Whether ``epsilon`` ties every pair: acc_eq is then the (macro-averaged) share of pairs the
        humans tie, and says nothing of how the metric orders the systems."""
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
        return {
            "accuracy": None if math.isnan(self.accuracy) else self.accuracy,
            "epsilon": self.epsilon,
            "epsilon_rule": EPSILON_RULE,
            "groups": self.n_groups,
            "pairs": self.n_pairs,
            "calibrated": self.calibrated,
        }


@dataclass
class Pairs:
    """Every valid pair of every group: its metric and human differences and its weight in the
    macro average (1 / (groups with a pair * pairs in its group))."""

    group: np.ndarray
    metric_diff: np.ndarray
    human_diff: np.ndarray
    weight: np.ndarray
    n_groups: int

    @property
    def n(self) -> int:
        return len(self.metric_diff)

    def outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        """(correct if the metric ties the pair, correct if it does not), as 0.0 / 1.0."""
        import numpy as np

        tie_h = self.human_diff == 0
        agree = (np.sign(self.metric_diff) == np.sign(self.human_diff)) & ~tie_h
        return tie_h.astype(float), agree.astype(float)

    def correct(self, epsilon: float) -> np.ndarray:
        """1.0 where the pair is correct when the metric ties pairs with |difference| <= epsilon."""
        import numpy as np

        tied, untied = self.outcomes()
        return np.where(np.abs(self.metric_diff) <= epsilon, tied, untied)


def pairs_of(metric_rows: np.ndarray, human_rows: np.ndarray, *others: np.ndarray) -> tuple[Pairs, list[np.ndarray]]:
    """Every pair of entries of every row (a group) scored on every side, with its differences in
    ``metric_rows`` and ``human_rows`` (and those in each of ``others``, returned beside)."""
    import numpy as np

    if metric_rows.shape != human_rows.shape or any(o.shape != metric_rows.shape for o in others):
        raise ValueError(
            f"metric and human scores have different shapes ({metric_rows.shape} and {human_rows.shape})"
        )
    n_rows, n_cols = metric_rows.shape
    if n_rows * n_cols * (n_cols - 1) // 2 > MAX_PAIRS:
        raise ValueError(
            f"{n_rows * n_cols * (n_cols - 1) // 2} pairs are too many for one call; group the scores by item"
        )
    first, second = pair_indices(n_cols)
    md = metric_rows[:, first] - metric_rows[:, second]
    hd = human_rows[:, first] - human_rows[:, second]
    other_d = [o[:, first] - o[:, second] for o in others]
    valid = ~np.isnan(md) & ~np.isnan(hd)
    for od in other_d:
        valid &= ~np.isnan(od)
    group = np.broadcast_to(np.arange(n_rows)[:, None], md.shape)[valid]
    counts = np.bincount(group, minlength=n_rows)
    n_groups = int((counts > 0).sum())
    weight = 1.0 / (n_groups * counts[group]) if n_groups else np.zeros(0)
    return Pairs(group, md[valid], hd[valid], weight, n_groups), [od[valid] for od in other_d]


def calibrate(p: Pairs) -> TieCalibration:
    """The accuracy of ``p`` at every candidate epsilon, and the best epsilon (the first within 1e-12 of
    the maximum)."""
    import numpy as np

    if p.n == 0:
        return TieCalibration([0.0], [math.nan], 0.0, math.nan, 0, 0)
    absd = np.abs(p.metric_diff)
    tied, untied = p.outcomes()
    # accuracy(eps) = sum of the untied outcomes + the change of every pair with |diff| <= eps
    # one group: integer counts, divided once (exact fractions such as 4/6)
    weight = np.ones(p.n) if p.n_groups == 1 else p.weight
    scale = 1.0 / p.n if p.n_groups == 1 else 1.0
    base = (weight * untied).sum()
    order = np.argsort(absd, kind="stable")
    gain = np.cumsum((weight * (tied - untied))[order])
    sorted_abs = absd[order]
    thresholds = np.unique(np.concatenate([[0.0], sorted_abs]))
    upto = np.searchsorted(sorted_abs, thresholds, side="right")
    acc = (base + np.where(upto > 0, gain[np.maximum(upto - 1, 0)], 0.0)) * scale
    best = int(np.flatnonzero(at_least(acc, acc.max()))[0])
    eps = float(thresholds[best])
    return TieCalibration(
        [float(t) for t in thresholds], [float(a) for a in acc], eps, _accuracy(p, eps), p.n_groups, p.n
    )


def tie_calibration(
    metric_rows: Sequence[Sequence[Score]] | np.ndarray, human_rows: Sequence[Sequence[Score]] | np.ndarray
) -> TieCalibration:
    """The accuracy at every candidate epsilon (MTME's ``tau_optimization``): rows are groups."""
    p, _ = pairs_of(as_rows(metric_rows, "metric scores"), as_rows(human_rows, "human scores"))
    return calibrate(p)


def _accuracy(p: Pairs, epsilon: float) -> float:
    """Mean over groups of each group's share of correct pairs."""
    import numpy as np

    if p.n == 0:
        return math.nan
    counts = np.bincount(p.group)
    correct = np.bincount(p.group, weights=p.correct(epsilon), minlength=len(counts))
    used = counts > 0
    return float(np.mean(correct[used] / counts[used]))


def acc_eq_rows(
    metric_rows: Sequence[Sequence[Score]] | np.ndarray,
    human_rows: Sequence[Sequence[Score]] | np.ndarray,
    epsilon: float | None = None,
) -> AccEqResult:
    """acc_eq over groups given as rows (entries compared within a row only); ``epsilon=None``
    calibrates it, a number fixes it."""
    import numpy as np

    p, _ = pairs_of(as_rows(metric_rows, "metric scores"), as_rows(human_rows, "human scores"))
    calibrated = epsilon is None
    if epsilon is None:
        cal = calibrate(p)
        accuracy, epsilon = cal.accuracy, cal.epsilon
    elif epsilon < 0 or math.isnan(epsilon):
        raise ValueError(f"epsilon must be >= 0, got {epsilon}")
    else:
        accuracy = _accuracy(p, epsilon)
    absd = np.abs(p.metric_diff)
    return AccEqResult(accuracy, float(epsilon), p.n_groups, p.n, calibrated, int((absd <= epsilon).sum()),
                       float(absd.max()) if p.n else math.nan)


def acc_eq(
    metric: Mapping[str, Sequence[Score]],
    human: Mapping[str, Sequence[Score]],
    group_by_item: bool = True,
    *,
    epsilon: float | None = None,
    systems: Sequence[str] | None = None,
) -> AccEqResult:
    """acc_eq of segment-level scores (system -> per-segment scores, ``None`` missing): grouped by
    item (WMT23/24: each segment compares the systems; mean over items) or pooled over all
    (system, segment) entries."""
    names = systems_of(systems, human, metric)
    return acc_eq_rows(
        score_rows(metric, names, group_by_item, "metric scores"),
        score_rows(human, names, group_by_item, "human scores"),
        epsilon,
    )

