"""Meta-evaluation statistics of the WMT metrics shared tasks, as mt-metrics-eval (MTME) computes them.

Written from the definitions (and checked against MTME's own test vectors in the tests):

* :func:`pooled_pairwise_accuracy`: system-level pairwise accuracy (Kocmi et al., 2021, as MTME's
  ``stats.Agreement`` counts it: :func:`~docmetrics.algorithms.correlation.pairwise_accuracy`) pooled
  over several language pairs (WMT23's "global" accuracy: pairs are formed within a language pair only).
* :func:`soft_pairwise_accuracy` (SPA; Thompson et al., 2024, used at WMT24): for every pair of
  systems (i, j), the one-sided p-value of a paired permutation test of "i is better than j" on
  per-item scores, once for the human scores and once for the metric's; SPA = 1 - mean over pairs of
  ``|p_human - p_metric|``.  The test statistic is the sum of the per-item differences (the mean
  times the number of items); each of R random sign vectors (one per resample, shared by every pair
  of systems) flips the sign of each item's difference; ``p = #{null >= observed} / R`` (no +1
  correction).  The sign vectors are drawn exactly as MTME's ``pce.compute_pairwise_p_values``
  draws them (``numpy.random.default_rng(seed).random((R, n), dtype=float32)`` rounded to 0/1; R =
  1000, seed 4), so the same inputs give MTME's p-values; :func:`perm_test_pvalues` with
  ``exact=True`` enumerates all 2^n sign vectors instead.
* :func:`acc_eq` / :func:`acc_eq_rows`: pairwise accuracy with tie calibration (Deutsch, Foster and
  Freitag, 2023, "Ties Matter"; MTME's ``KendallWithTiesOpt`` with variant ``acc23``): within each
  group of scores (an item: the systems' translations of one source segment), every pair of entries
  is correct when the metric and the humans order it the same way, or when both tie it; the metric
  ties a pair when ``|difference| <= epsilon``.  The accuracy is the mean over groups of each group's
  share of correct pairs (a macro average; groups without a pair are left out), and epsilon is
  chosen among 0 and every observed ``|metric difference|`` to maximise it (the smallest such
  epsilon on a tie).  Pairs with a missing score on either side are skipped.
* :func:`perm_both` / :func:`perm_both_acc_eq`: whether one metric's statistic is significantly
  higher than another's (MTME's ``stats.PermutationSigDiff``, the PERM-BOTH test of Deutsch, Dror
  and Roth, 2021): each metric's scores are z-scored, then each resample swaps, independently for
  every cell (every system at system level, every (system, segment) at segment level), which
  metric's score goes to which side; ``p = #{stat(side a) - stat(side b) >= observed delta} / k``.
  For ``acc_eq`` the swap unit is each pair's outcome, with each metric's own epsilon (MTME's
  ``PairwisePermutationSigDiff``, used for the WMT23/24 segment-level task).
* :func:`assign_ranks` / :func:`significance_clusters`: MTME's ``data.AssignRanks``: metrics in
  decreasing order of the statistic; a metric starts a new cluster (rank + 1) when any metric of the
  current cluster is significantly better than it (``p <= alpha``).
* :func:`weighted_average`, :func:`average_ranks`, :func:`combined_pvalue`: MTME's
  ``TaskSetResults.AverageCorrs`` (statistics mapped to [0, 1] from their range, then a weighted
  sum), ``AverageRanks`` and ``AverageCorrMatrix`` (the per-task null draws, mapped and weighted the
  same way, summed draw by draw).

Differences from MTME, on purpose: comparisons of permutation statistics use float64 and a tolerance
of ``1e-12 * sum |differences|`` (MTME compares float32 sums exactly, so an exact tie may or may not
count); the best epsilon is the first within 1e-12 of the maximum; PERM-BOTH has no early stopping
and takes a seed (MTME draws from numpy's global generator); a NaN statistic counts as 0 in a
resample, as in MTME.

stdlib and numpy (imported inside the functions) only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional, Sequence

from ..values.units import as_score
from .correlation import check_pair, pairwise_accuracy

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DEFAULT_PERMUTATIONS", "SPA_SEED", "DEFAULT_RESAMPLES", "DEFAULT_SEED", "MAX_EXACT_ITEMS",
    "pooled_pairwise_accuracy",
    "sign_vectors", "all_sign_vectors", "upper_pvalues", "PairPValues", "perm_test_pvalues", "SpaResult",
    "soft_pairwise_accuracy", "spa_from_pvalues",
    "TieCalibration", "AccEqResult", "tie_calibration", "acc_eq_rows", "acc_eq", "score_rows",
    "PermResult", "perm_both", "perm_both_acc_eq", "zscore",
    "assign_ranks", "RankedMetric", "rank_order", "significance_clusters",
    "to_unit_range", "weighted_average", "average_ranks", "combined_pvalue",
]

Score = Optional[float]
#: SPA: resamples of the permutation test and the seed of its sign vectors (MTME's pce.py defaults)
DEFAULT_PERMUTATIONS = 1000
SPA_SEED = 4
#: PERM-BOTH: resamples (MTME's Task default k)
DEFAULT_RESAMPLES = 1000
#: the default seed of every resampling docmetrics does: PERM-BOTH here, the paired tests and
#: confidence intervals of :mod:`docmetrics.evaluation.significance` (``--seed``)
DEFAULT_SEED = 12345
#: the exact permutation test enumerates 2^n sign vectors: up to this many items
MAX_EXACT_ITEMS = 20
#: at most this many pairs are formed in one acc_eq call (memory: a few arrays of this length)
MAX_PAIRS = 30_000_000


# -- pairwise accuracy ------------------------------------------------------------------------------------
def pooled_pairwise_accuracy(groups: Iterable[tuple[Sequence[Score], Sequence[Score]]]) -> tuple[float, int, int]:
    """Pairwise accuracy pooled over groups (language pairs): sum of agreeing pairs / sum of pairs,
    pairs formed within each group only (WMT23's system-level accuracy over all language pairs)."""
    agree = total = 0
    for metric, human in groups:
        _, a, t = pairwise_accuracy(metric, human)
        agree += a
        total += t
    return (agree / total if total else math.nan), agree, total


# -- permutation tests of system pairs (SPA) ---------------------------------------------------------------
def sign_vectors(n_items: int, n_permutations: int = DEFAULT_PERMUTATIONS, seed: int = SPA_SEED) -> np.ndarray:
    """R x n matrix of +1/-1, drawn as MTME draws them: uniform float32 in [0, 1) rounded to 0 or 1."""
    import numpy as np

    if n_items < 1 or n_permutations < 1:
        raise ValueError(f"need at least one item and one permutation (got {n_items} and {n_permutations})")
    u = np.random.default_rng(seed).random(size=(n_permutations, n_items), dtype=np.float32)
    return np.where(np.rint(u) > 0, 1.0, -1.0)


def all_sign_vectors(n_items: int) -> np.ndarray:
    """All 2^n sign vectors (row k: bit b of k set -> +1 for item b)."""
    import numpy as np

    if not 1 <= n_items <= MAX_EXACT_ITEMS:
        raise ValueError(
            f"the exact permutation test enumerates 2^n sign vectors: n must be 1..{MAX_EXACT_ITEMS}, got {n_items}"
        )
    codes = np.arange(2**n_items, dtype=np.int64)[:, None]
    bits = (codes >> np.arange(n_items, dtype=np.int64)) & 1
    return np.where(bits == 1, 1.0, -1.0)


def _to_matrix(scores: Mapping[str, Sequence[Score]], systems: Sequence[str], what: str) -> np.ndarray:
    """systems x items float matrix, NaN for missing entries."""
    import numpy as np

    rows = []
    length = None
    for s in systems:
        if s not in scores:
            raise ValueError(f"{what}: no scores for system {s!r}")
        row = [math.nan if (x := as_score(v)) is None else x for v in scores[s]]
        if length is None:
            length = len(row)
        elif len(row) != length:
            raise ValueError(f"{what}: system {s!r} has {len(row)} scores, {systems[0]!r} has {length}")
        rows.append(row)
    return np.asarray(rows, dtype=float).reshape(len(systems), length or 0)


def _pair_indices(n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    return np.triu_indices(n_systems, 1)


def upper_pvalues(mat: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """p-values of "row i > row j" for the pairs i < j (row-major order) of a systems x items matrix
    (no missing entry), given R x n sign vectors."""
    import numpy as np

    first, second = _pair_indices(mat.shape[0])
    partial = signs @ mat.T  # R x systems: signed sums
    null = partial[:, first] - partial[:, second]
    observed = mat.sum(axis=1)
    test = observed[first] - observed[second]
    tol = 1e-12 * np.maximum(1.0, np.abs(mat[first] - mat[second]).sum(axis=1))
    return (null >= test - tol).mean(axis=0)


@dataclass
class PairPValues:
    """One-sided p-values of "system a is better than system b" for every pair (a before b)."""

    systems: list[str]
    pvalues: dict[tuple[str, str], float]
    n_items: int
    n_permutations: int
    exact: bool
    seed: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "systems": self.systems,
            "pvalues": {f"{a} > {b}": p for (a, b), p in self.pvalues.items()},
            "n_items": self.n_items,
            "n_permutations": self.n_permutations,
            "exact": self.exact,
            "seed": self.seed,
        }


def _systems(given: Sequence[str] | None, *maps: Mapping[str, Any]) -> list[str]:
    if given is not None:
        names = list(given)
    else:
        common = set(maps[0])
        for m in maps[1:]:
            common &= set(m)
        names = sorted(common)
    if len(names) < 2:
        raise ValueError(f"need scores of at least 2 systems, got {len(names)}")
    if len(set(names)) != len(names):
        raise ValueError("a system is listed twice")
    return names


def _signs(n_items: int, n_permutations: int, seed: int, exact: bool) -> np.ndarray:
    return all_sign_vectors(n_items) if exact else sign_vectors(n_items, n_permutations, seed)


def perm_test_pvalues(
    scores: Mapping[str, Sequence[Score]],
    *,
    systems: Sequence[str] | None = None,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = SPA_SEED,
    exact: bool = False,
) -> PairPValues:
    """Paired permutation test for every pair of systems (see the module docstring).

    ``scores``: system -> per-item scores (``None``: missing); only the items scored for every system
    are used.  Pairs are (systems[i], systems[j]) for i < j; ``systems`` defaults to the sorted names.
    """
    import numpy as np

    names = _systems(systems, scores)
    mat = _to_matrix(scores, names, "scores")
    mat = mat[:, ~np.isnan(mat).any(axis=0)]
    if mat.shape[1] == 0:
        raise ValueError("no item is scored for every system")
    signs = _signs(mat.shape[1], n_permutations, seed, exact)
    pv = upper_pvalues(mat, signs)
    first, second = _pair_indices(len(names))
    pairs = {(names[i], names[j]): float(p) for i, j, p in zip(first, second, pv)}
    return PairPValues(names, pairs, mat.shape[1], signs.shape[0], exact, None if exact else seed)


@dataclass
class SpaResult:
    """Soft pairwise accuracy and the p-values it compares."""

    spa: float
    human: PairPValues
    metric: PairPValues

    @property
    def n_pairs(self) -> int:
        return len(self.human.pvalues)

    def to_dict(self) -> dict[str, Any]:
        return {"spa": self.spa, "pairs": self.n_pairs, "human": self.human.to_dict(), "metric": self.metric.to_dict()}


def spa_from_pvalues(human: Sequence[float], metric: Sequence[float]) -> float:
    """1 - mean |p_human - p_metric| over system pairs."""
    check_pair(human, metric)
    if not human:
        return math.nan
    return 1.0 - math.fsum(abs(h - m) for h, m in zip(human, metric)) / len(human)


def _item_masks(human: np.ndarray, metric: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Items kept on each side: scored for every system; the same items on both sides when both
    score the same items (segments), as MTME filters the metric where the gold score is missing."""
    import numpy as np

    keep_h = ~np.isnan(human).any(axis=0)
    keep_m = ~np.isnan(metric).any(axis=0)
    if human.shape[1] == metric.shape[1]:
        both = keep_h & keep_m
        return both, both
    return keep_h, keep_m


def soft_pairwise_accuracy(
    metric_seg: Mapping[str, Sequence[Score]],
    human_seg: Mapping[str, Sequence[Score]],
    *,
    systems: Sequence[str] | None = None,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = SPA_SEED,
    exact: bool = False,
) -> SpaResult:
    """SPA (Thompson et al., 2024) of a metric against human scores (see the module docstring).

    ``metric_seg`` / ``human_seg``: system -> per-item scores.  When both have the same number of
    items (segment-level metric and human scores) the items scored by both for every system are used
    on both sides; otherwise (a metric scoring windows) each side uses its own fully-scored items.
    """
    import numpy as np

    names = _systems(systems, human_seg, metric_seg)
    h = _to_matrix(human_seg, names, "human scores")
    m = _to_matrix(metric_seg, names, "metric scores")
    keep_h, keep_m = _item_masks(h, m)
    h, m = h[:, keep_h], m[:, keep_m]
    if h.shape[1] == 0 or m.shape[1] == 0:
        raise ValueError("no item is scored for every system (by the humans and by the metric)")
    ph = upper_pvalues(h, _signs(h.shape[1], n_permutations, seed, exact))
    pm = upper_pvalues(m, _signs(m.shape[1], n_permutations, seed, exact))
    first, second = _pair_indices(len(names))
    keys = [(names[i], names[j]) for i, j in zip(first, second)]
    n_perm_h = 2 ** h.shape[1] if exact else n_permutations
    n_perm_m = 2 ** m.shape[1] if exact else n_permutations
    hp = PairPValues(names, dict(zip(keys, map(float, ph))), h.shape[1], n_perm_h, exact, None if exact else seed)
    mp = PairPValues(names, dict(zip(keys, map(float, pm))), m.shape[1], n_perm_m, exact, None if exact else seed)
    return SpaResult(float(1.0 - np.abs(ph - pm).mean()), hp, mp)


# -- pairwise accuracy with tie calibration (acc_eq) -------------------------------------------------------
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
            "groups": self.n_groups,
            "pairs": self.n_pairs,
            "calibrated": self.calibrated,
        }


@dataclass
class _Pairs:
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


def _as_rows(rows: Sequence[Sequence[Score]] | np.ndarray, what: str) -> np.ndarray:
    import numpy as np

    if isinstance(rows, np.ndarray):
        arr = np.array(rows, dtype=float)
    else:
        if len(rows) and not isinstance(rows[0], (list, tuple)) and not hasattr(rows[0], "__len__"):
            rows = [rows]  # type: ignore[list-item]  # one vector: one group
        lists = [[math.nan if (x := as_score(v)) is None else x for v in r] for r in rows]  # type: ignore[union-attr]
        if len({len(r) for r in lists}) > 1:
            raise ValueError(f"{what}: groups of different sizes; pad with None")
        arr = np.asarray(lists, dtype=float)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{what}: expected a matrix of groups x entries")
    return arr


def _pairs(metric_rows: np.ndarray, human_rows: np.ndarray, *others: np.ndarray) -> tuple[_Pairs, list[np.ndarray]]:
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
    first, second = _pair_indices(n_cols)
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
    return _Pairs(group, md[valid], hd[valid], weight, n_groups), [od[valid] for od in other_d]


def _calibrate(p: _Pairs) -> TieCalibration:
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
    best = int(np.flatnonzero(acc >= acc.max() - 1e-12)[0])
    eps = float(thresholds[best])
    return TieCalibration(
        [float(t) for t in thresholds], [float(a) for a in acc], eps, _accuracy(p, eps), p.n_groups, p.n
    )


def tie_calibration(
    metric_rows: Sequence[Sequence[Score]] | np.ndarray, human_rows: Sequence[Sequence[Score]] | np.ndarray
) -> TieCalibration:
    """The accuracy at every candidate epsilon (MTME's ``tau_optimization``): rows are groups."""
    p, _ = _pairs(_as_rows(metric_rows, "metric scores"), _as_rows(human_rows, "human scores"))
    return _calibrate(p)


def _accuracy(p: _Pairs, epsilon: float) -> float:
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

    p, _ = _pairs(_as_rows(metric_rows, "metric scores"), _as_rows(human_rows, "human scores"))
    calibrated = epsilon is None
    if epsilon is None:
        cal = _calibrate(p)
        accuracy, epsilon = cal.accuracy, cal.epsilon
    elif epsilon < 0 or math.isnan(epsilon):
        raise ValueError(f"epsilon must be >= 0, got {epsilon}")
    else:
        accuracy = _accuracy(p, epsilon)
    absd = np.abs(p.metric_diff)
    return AccEqResult(accuracy, float(epsilon), p.n_groups, p.n, calibrated, int((absd <= epsilon).sum()),
                       float(absd.max()) if p.n else math.nan)


def score_rows(
    scores: Mapping[str, Sequence[Score]], systems: Sequence[str], group_by_item: bool, what: str = "scores"
) -> np.ndarray:
    """system -> per-segment scores as groups: one row per item (the systems' scores of one segment)
    when grouped by item, else one row of all (system, segment) scores (MTME's 'none')."""
    mat = _to_matrix(scores, systems, what)
    return mat.T.copy() if group_by_item else mat.reshape(1, -1)


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
    names = _systems(systems, human, metric)
    return acc_eq_rows(
        score_rows(metric, names, group_by_item, "metric scores"),
        score_rows(human, names, group_by_item, "human scores"),
        epsilon,
    )


# -- PERM-BOTH significance between two metrics ----------------------------------------------------------
@dataclass
class PermResult:
    """Whether statistic(a) > statistic(b) is significant: the one-sided p-value, the observed
    difference, and the resampling that gave it."""

    p_value: float
    delta: float
    n_resamples: int
    seed: int | None
    #: stat(a side) - stat(b side) for every resample (for averaging over tasks)
    null: Any = field(default=None, repr=False)
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = {"p_value": self.p_value, "delta": self.delta, "n_resamples": self.n_resamples, "seed": self.seed}
        d.update(self.details)
        return d


def zscore(x: Sequence[float] | np.ndarray) -> np.ndarray:
    """(x - mean) / std (population std, as scipy.stats.zscore); constant x gives NaN (as scipy)."""
    import numpy as np

    a = np.asarray(x, dtype=float)
    sd = a.std()
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a - a.mean()) / sd


def _stat0(value: float) -> float:
    return 0.0 if math.isnan(value) else float(value)


def perm_both(
    scores_a: Sequence[float] | np.ndarray,
    scores_b: Sequence[float] | np.ndarray,
    statistic: Callable[[np.ndarray], float],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    standardize: bool = True,
) -> PermResult:
    """PERM-BOTH test of "statistic(a) > statistic(b)" (see the module docstring).

    ``scores_a`` / ``scores_b``: the two metrics' scores of the same cells (flattened, no missing
    entry); ``statistic`` maps a cell vector to the statistic (it knows the human scores and the
    cells' layout).
    """
    import numpy as np

    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"the two metrics score different cells ({a.shape} and {b.shape})")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("PERM-BOTH needs a score in every cell for both metrics")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    if standardize:
        a, b = zscore(a), zscore(b)
    delta = _stat0(statistic(a)) - _stat0(statistic(b))
    rng = np.random.default_rng(seed)
    null = np.empty(n_resamples)
    for r in range(n_resamples):
        swap = rng.integers(0, 2, size=a.shape[0]).astype(bool)
        side_a = np.where(swap, b, a)
        side_b = np.where(swap, a, b)
        null[r] = _stat0(statistic(side_a)) - _stat0(statistic(side_b))
    p = float((null >= delta).mean())
    return PermResult(p, float(delta), n_resamples, seed, null)


def perm_both_acc_eq(
    metric_a: Mapping[str, Sequence[Score]],
    metric_b: Mapping[str, Sequence[Score]],
    human: Mapping[str, Sequence[Score]],
    *,
    group_by_item: bool = True,
    epsilon_a: float | None = None,
    epsilon_b: float | None = None,
    systems: Sequence[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> PermResult:
    """PERM-BOTH for acc_eq, swapping pair outcomes (MTME's ``PairwisePermutationSigDiff``).

    The pairs are those scored by the humans and by both metrics; an epsilon left as None is
    calibrated for its metric on those pairs, then kept fixed over the resamples.
    """
    import numpy as np

    names = _systems(systems, human, metric_a, metric_b)
    h = score_rows(human, names, group_by_item, "human scores")
    ma = score_rows(metric_a, names, group_by_item, "scores of metric a")
    mb = score_rows(metric_b, names, group_by_item, "scores of metric b")
    p, (diff_b,) = _pairs(ma, h, mb)
    if p.n == 0:
        raise ValueError("no pair of entries is scored by the humans and by both metrics")
    pb = _Pairs(p.group, diff_b, p.human_diff, p.weight, p.n_groups)
    eps_a = _calibrate(p).epsilon if epsilon_a is None else float(epsilon_a)
    eps_b = _calibrate(pb).epsilon if epsilon_b is None else float(epsilon_b)
    if eps_a < 0 or eps_b < 0:
        raise ValueError("epsilon must be >= 0")
    contrib = p.weight * (p.correct(eps_a) - pb.correct(eps_b))
    delta = float(contrib.sum())
    moving = contrib[contrib != 0]
    rng = np.random.default_rng(seed)
    null = np.empty(n_resamples)
    chunk = max(1, min(n_resamples, 2_000_000 // max(1, len(moving))))
    for start in range(0, n_resamples, chunk):
        k = min(chunk, n_resamples - start)
        signs = rng.integers(0, 2, size=(k, len(moving))) * 2.0 - 1.0
        null[start : start + k] = signs @ moving
    pval = float((null >= delta - 1e-12).mean())
    return PermResult(pval, delta, n_resamples, seed, null, {"epsilon_a": eps_a, "epsilon_b": eps_b})


# -- significance clusters ----------------------------------------------------------------------------------
def assign_ranks(pvalues: Sequence[Sequence[float]] | np.ndarray, alpha: float = 0.05) -> list[int]:
    """MTME's ``AssignRanks``: metrics in decreasing order of the statistic; ``pvalues[i][j]``
    (j > i) is the p-value of "metric i is better than metric j".  Metric j starts a new cluster when
    any metric of the current cluster is significantly better than it (p <= alpha)."""
    n = len(pvalues)
    ranks = [0] * n
    rank, start = 1, 0
    for j in range(n):
        if len(pvalues[j]) != n:
            raise ValueError("the p-value matrix must be square")
        if any(pvalues[i][j] <= alpha for i in range(start, j)):
            rank += 1
            start = j
        ranks[j] = rank
    return ranks


@dataclass
class RankedMetric:
    metric: str
    value: float
    rank: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "value": None if math.isnan(self.value) else self.value, "rank": self.rank}


def rank_order(values: Mapping[str, float]) -> list[str]:
    """Metrics by decreasing value, the name breaking ties (as MTME sorts); NaN last."""
    return sorted(values, key=lambda m: (math.isnan(values[m]), -values[m] if not math.isnan(values[m]) else 0, m))


def significance_clusters(
    values: Mapping[str, float],
    pvalue: Mapping[tuple[str, str], float] | Callable[[str, str], float] | None,
    alpha: float = 0.05,
) -> list[RankedMetric]:
    """Metrics in decreasing order with their cluster rank (:func:`assign_ranks`).

    ``pvalue[(a, b)]`` is the p-value of "a is better than b" for a ranked above b; without p-values
    every rank is None (the order alone).
    """
    order = rank_order(values)
    if pvalue is None:
        return [RankedMetric(m, values[m], None) for m in order]
    get = pvalue if callable(pvalue) else (lambda a, b: pvalue[(a, b)])  # type: ignore[index]
    n = len(order)
    matrix = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            matrix[i][j] = get(order[i], order[j])
    ranks = assign_ranks(matrix, alpha)
    return [RankedMetric(m, values[m], r) for m, r in zip(order, ranks)]


# -- averages over tasks -------------------------------------------------------------------------------------
def to_unit_range(value: float, low: float, high: float) -> float:
    """Map a statistic from [low, high] to [0, 1] (MTME: correlations from [-1, 1], accuracies as is)."""
    if not high > low:
        raise ValueError(f"bad range [{low}, {high}]")
    return (value - low) / (high - low)


def _check_weights(n: int, weights: Sequence[float] | None) -> list[float]:
    if weights is None:
        return [1.0 / n] * n
    if len(weights) != n:
        raise ValueError(f"{len(weights)} weights for {n} tasks")
    return [float(w) for w in weights]


def weighted_average(
    task_values: Sequence[Mapping[str, float | None]],
    weights: Sequence[float] | None = None,
    ranges: Sequence[tuple[float, float]] | None = None,
) -> dict[str, float]:
    """MTME's ``AverageCorrs``: sum over tasks of weight * statistic mapped to [0, 1]; only metrics
    with a value in every task; by decreasing average."""
    n = len(task_values)
    if n == 0:
        raise ValueError("no task to average")
    w = _check_weights(n, weights)
    rng = list(ranges) if ranges is not None else [(0.0, 1.0)] * n
    if len(rng) != n:
        raise ValueError(f"{len(rng)} ranges for {n} tasks")
    out: dict[str, float] = {}
    present = [{m for m, v in tv.items() if v is not None and not math.isnan(v)} for tv in task_values]
    common = set.intersection(*present)
    for m in common:
        out[m] = math.fsum(wk * to_unit_range(float(tv[m]), *r) for tv, wk, r in zip(task_values, w, rng))  # type: ignore[arg-type]
    return {m: out[m] for m in rank_order(out)}


def average_ranks(task_ranks: Sequence[Mapping[str, int]], weights: Sequence[float] | None = None) -> dict[str, float]:
    """MTME's ``AverageRanks`` (WMT22's overall ranking): weighted sum of cluster ranks over tasks,
    for metrics ranked in every task; by increasing average rank."""
    n = len(task_ranks)
    if n == 0:
        raise ValueError("no task to average")
    w = _check_weights(n, weights)
    common = set.intersection(*[set(t) for t in task_ranks])
    out = {m: math.fsum(wk * t[m] for t, wk in zip(task_ranks, w)) for m in common}
    return dict(sorted(out.items(), key=lambda x: (x[1], x[0])))


def combined_pvalue(
    observed: float,
    task_nulls: Sequence[Sequence[float] | np.ndarray],
    weights: Sequence[float] | None = None,
    ranges: Sequence[tuple[float, float]] | None = None,
) -> float:
    """MTME's ``AverageCorrMatrix``: the p-value of an average difference, from each task's null
    draws (stat(a) - stat(b) per resample) mapped to [0, 1] and weighted, summed draw by draw (a
    task with fewer draws is repeated to the longest)."""
    import numpy as np

    n = len(task_nulls)
    if n == 0:
        raise ValueError("no task")
    w = _check_weights(n, weights)
    rng = list(ranges) if ranges is not None else [(0.0, 1.0)] * n
    length = max(len(t) for t in task_nulls)
    if length == 0:
        raise ValueError("no resampling draws")
    total = np.zeros(length)
    for null, wk, (lo, hi) in zip(task_nulls, w, rng):
        arr = np.asarray(null, dtype=float)
        if len(arr) == 0:
            raise ValueError("a task has no resampling draws")
        arr = np.tile(arr, int(np.ceil(length / len(arr))))[:length]
        total += wk * arr / (hi - lo)
    return float((total >= observed).mean())


# -- correlations grouped by item, and Pairwise Difference Pearson (PDP) -----------------------------------
def _row_pairs(gold_rows: Sequence[Sequence[Score]] | np.ndarray, metric_rows: Sequence[Sequence[Score]] | np.ndarray):
    """Each row as (gold, metric) float vectors without the entries missing on either side."""
    import numpy as np

    g = _as_rows(gold_rows, "gold scores")
    m = _as_rows(metric_rows, "metric scores")
    if g.shape != m.shape:
        raise ValueError(f"gold and metric rows have different shapes ({g.shape} and {m.shape})")
    for gr, mr in zip(g, m):
        keep = ~np.isnan(gr) & ~np.isnan(mr)
        yield gr[keep], mr[keep]


def grouped_correlation(
    gold_rows: Sequence[Sequence[Score]] | np.ndarray,
    metric_rows: Sequence[Sequence[Score]] | np.ndarray,
    corr: Callable[[Any, Any], float],
) -> tuple[float, int]:
    """MTME's ``average_by='item'`` (``Correlation.Pearson/Kendall``, macro): ``corr`` within each row
    (an item: the systems' scores of one segment or document), averaged with equal weight over the rows
    with at least two scored entries and a defined (non-NaN) correlation; entries missing on either side
    are left out.  Returns (average, rows averaged); NaN and 0 when no row counts."""
    vals = []
    for g, m in _row_pairs(gold_rows, metric_rows):
        if len(g) < 2:
            continue
        v = corr(m, g)
        if not math.isnan(v):
            vals.append(v)
    return (math.fsum(vals) / len(vals), len(vals)) if vals else (math.nan, 0)


def pdp(
    gold_rows: Sequence[Sequence[Score]] | np.ndarray,
    metric_rows: Sequence[Sequence[Score]] | np.ndarray,
) -> float:
    """Pairwise Difference Pearson (MTME 2025, ``Correlation.Pearson(pdp=True)``): within each row (a
    group of scores: one row of all systems' scores at system level, the systems' scores of one item when
    grouped by item), every ordered pair (i, j) of entries, the diagonal included, gives the differences
    ``gold[j] - gold[i]`` and ``metric[j] - metric[i]``; PDP is Pearson's r of all those differences,
    pooled over the rows.  Pairs with a missing score on either side are left out (MTME leaves out the
    missing gold scores).  NaN when the differences are constant.  With one row and nothing missing it
    equals Pearson's r of the row (the sums of products of all pairwise differences are 2n times the
    centred ones)."""
    import numpy as np

    g = _as_rows(gold_rows, "gold scores")
    m = _as_rows(metric_rows, "metric scores")
    if g.shape != m.shape:
        raise ValueError(f"gold and metric rows have different shapes ({g.shape} and {m.shape})")
    if g.shape[1] < 2:
        raise ValueError("pairwise differences need at least 2 systems")
    dg = (g[:, None, :] - g[:, :, None]).ravel()
    dm = (m[:, None, :] - m[:, :, None]).ravel()
    keep = ~np.isnan(dg) & ~np.isnan(dm)
    dg, dm = dg[keep], dm[keep]
    if len(dg) < 2:
        return math.nan
    dg, dm = dg - dg.mean(), dm - dm.mean()
    den = math.sqrt(float(dg @ dg) * float(dm @ dm))
    if den == 0:
        return math.nan
    return max(-1.0, min(1.0, float(dg @ dm) / den))
