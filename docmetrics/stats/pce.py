"""Pairwise confidence error (PCE) and soft pairwise accuracy (Thompson et al., 2024), with
mt-metrics-eval's names: for every pair of systems, the one-sided p-value of a paired permutation test of
"system i is better than system j" on per-segment scores; ``1 - PCE`` compares the humans' p-values with a
metric's.  The test statistic is the sum of the per-item differences; each of R random sign vectors flips
the sign of each item's difference; ``p = #{null >= observed} / R`` (no +1 correction).

The sign vectors are drawn as MTME draws them (:func:`sign_vectors`: ``numpy.random.default_rng(seed)
.random((R, n), dtype=float32)`` rounded to 0/1), so a seed gives MTME's permutations; :func:`all_sign_vectors`
enumerates all 2^n for an exact test.  ``compat="docmetrics"`` (the default) sums in float64 and counts a
permutation that ties the observed difference up to float rounding (:mod:`docmetrics.stats.ties`);
``compat="mtme"`` sums in float32 and compares exactly, as MTME does.

docmetrics' SPA over system -> per-item scores: :func:`perm_test_pvalues` (the p-values of every pair of systems,
as :class:`PairPValues`; ``exact=True`` enumerates all 2^n sign vectors) and :func:`soft_pairwise_accuracy`
(:class:`SpaResult`, with the items both sides score).

numpy is imported inside the functions: importing this module stays light.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .base import Score, StatsError, check_compat, systems_of, to_matrix
from .ties import at_least

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DEFAULT_PERMUTATIONS", "SPA_SEED", "MAX_EXACT_ITEMS", "sign_vectors", "all_sign_vectors", "upper_pvalues",
           "compute_pairwise_p_values", "compute_one_minus_pce", "PairPValues", "perm_test_pvalues", "SpaResult",
           "soft_pairwise_accuracy", "common_items", "spa_statistic"]

#: resamples of the permutation test and the seed of its sign vectors (MTME's pce.py defaults)
DEFAULT_PERMUTATIONS = 1000
SPA_SEED = 4
#: the exact permutation test enumerates 2^n sign vectors: up to this many items
MAX_EXACT_ITEMS = 20


def sign_vectors(n_items: int, n_permutations: int = DEFAULT_PERMUTATIONS, seed: int = SPA_SEED) -> np.ndarray:
    """R x n matrix of +1/-1, drawn as MTME draws them: uniform float32 in [0, 1) rounded to 0 or 1."""
    import numpy as np

    if n_items < 1 or n_permutations < 1:
        raise StatsError(f"need at least one item and one permutation (got {n_items} and {n_permutations})")
    u = np.random.default_rng(seed).random(size=(n_permutations, n_items), dtype=np.float32)
    return np.where(np.rint(u) > 0, 1.0, -1.0)


def all_sign_vectors(n_items: int) -> np.ndarray:
    """All 2^n sign vectors (row k: bit b of k set -> +1 for item b)."""
    import numpy as np

    if not 1 <= n_items <= MAX_EXACT_ITEMS:
        raise StatsError(
            f"the exact permutation test enumerates 2^n sign vectors: n must be 1..{MAX_EXACT_ITEMS}, got {n_items}"
        )
    codes = np.arange(2**n_items, dtype=np.int64)[:, None]
    bits = (codes >> np.arange(n_items, dtype=np.int64)) & 1
    return np.where(bits == 1, 1.0, -1.0)


def upper_pvalues(mat: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """p-values of "row i > row j" for the pairs i < j (row-major order) of a systems x items matrix
    (no missing entry), given R x n sign vectors; float64, ties within the tolerance counted."""
    import numpy as np

    first, second = np.triu_indices(mat.shape[0], 1)
    partial = signs @ mat.T  # R x systems: signed sums
    null = partial[:, first] - partial[:, second]
    observed = mat.sum(axis=1)
    test = observed[first] - observed[second]
    return at_least(null, test, np.abs(mat[first] - mat[second]).sum(axis=1)).mean(axis=0)


def compute_pairwise_p_values(seg_scores: Any, num_permutations: int = 1000, seed: int = 4, *,
                              compat: str = "docmetrics") -> np.ndarray:
    """A systems x systems matrix whose upper triangle holds the p-value of "system i > system j" (the rest
    NaN), from ``seg_scores`` (systems x segments, no missing entry)."""
    import numpy as np

    mtme = check_compat(compat)
    scores = np.asarray(seg_scores, dtype=float)
    if scores.ndim != 2 or scores.shape[1] == 0:
        raise StatsError(f"seg_scores must be a systems x segments matrix, got shape {scores.shape}")
    if np.isnan(scores).any():
        raise StatsError("seg_scores has missing (NaN) entries: keep the segments every system has a score for")
    n_sys = scores.shape[0]
    signs = sign_vectors(scores.shape[1], num_permutations, seed)
    out = np.full((n_sys, n_sys), np.nan)
    first, second = np.triu_indices(n_sys, 1)
    if mtme:
        s32 = scores.astype(np.float32)
        partial = signs.astype(np.float32) @ s32.T
        totals = s32.sum(axis=1)
        for i, j in zip(first, second):
            out[i, j] = np.sum(partial[:, i] - partial[:, j] >= totals[i] - totals[j]) / num_permutations
    elif len(first):
        out[first, second] = upper_pvalues(scores, signs)
    return out


def compute_one_minus_pce(human_pairwise_p_vals: Any, metric_pairwise_p_vals: Any) -> float:
    """1 - the mean over system pairs (the upper triangles) of ``|p_human - p_metric|``: soft pairwise
    accuracy, in [0, 1], higher is better."""
    import numpy as np

    h = np.asarray(human_pairwise_p_vals, dtype=float)
    m = np.asarray(metric_pairwise_p_vals, dtype=float)
    if h.shape != m.shape or h.ndim != 2 or h.shape[0] != h.shape[1]:
        raise StatsError(f"the p-value matrices must be square and of one shape, got {h.shape} and {m.shape}")
    upper = np.triu_indices(h.shape[0], 1)
    return float(1.0 - np.mean(np.abs(h - m)[upper]))


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


def _pair_pvalues(names: list[str], mat: np.ndarray, n_permutations: int, seed: int, exact: bool) -> PairPValues:
    """The p-values of every pair of the rows of a systems x items matrix (no missing entry)."""
    import numpy as np

    signs = all_sign_vectors(mat.shape[1]) if exact else sign_vectors(mat.shape[1], n_permutations, seed)
    first, second = np.triu_indices(len(names), 1)
    pairs = {(names[i], names[j]): float(p) for i, j, p in zip(first, second, upper_pvalues(mat, signs))}
    return PairPValues(names, pairs, mat.shape[1], signs.shape[0], exact, None if exact else seed)


def perm_test_pvalues(scores: Mapping[str, Sequence[Score]], *, systems: Sequence[str] | None = None,
                      n_permutations: int = DEFAULT_PERMUTATIONS, seed: int = SPA_SEED, exact: bool = False
                      ) -> PairPValues:
    """Paired permutation test for every pair of systems (see the module docstring).  ``scores``: system ->
    per-item scores (``None``: missing); only the items scored for every system are used.  Pairs are
    (systems[i], systems[j]) for i < j; ``systems`` defaults to the sorted names."""
    import numpy as np

    names = systems_of(systems, scores)
    mat = to_matrix(scores, names, "scores")
    mat = mat[:, ~np.isnan(mat).any(axis=0)]
    if mat.shape[1] == 0:
        raise StatsError("no item is scored for every system")
    return _pair_pvalues(names, mat, n_permutations, seed, exact)


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


def soft_pairwise_accuracy(metric_seg: Mapping[str, Sequence[Score]], human_seg: Mapping[str, Sequence[Score]], *,
                           systems: Sequence[str] | None = None, n_permutations: int = DEFAULT_PERMUTATIONS,
                           seed: int = SPA_SEED, exact: bool = False) -> SpaResult:
    """SPA (Thompson et al., 2024) of a metric against human scores: ``1 - mean |p_human - p_metric|`` over the
    pairs of systems.  ``metric_seg`` / ``human_seg``: system -> per-item scores.  When both have the same number
    of items (segment-level scores) the items scored by both for every system are used on both sides, as MTME
    filters the metric where the gold score is missing; otherwise (a metric scoring windows) each side uses its
    own fully-scored items."""
    import numpy as np

    names = systems_of(systems, human_seg, metric_seg)
    h = to_matrix(human_seg, names, "human scores")
    m = to_matrix(metric_seg, names, "metric scores")
    h, m = common_items(h, m, same_items=h.shape[1] == m.shape[1])
    hp = _pair_pvalues(names, h, n_permutations, seed, exact)
    mp = _pair_pvalues(names, m, n_permutations, seed, exact)
    diffs = np.abs(np.asarray(list(hp.pvalues.values())) - np.asarray(list(mp.pvalues.values())))
    return SpaResult(float(1.0 - diffs.mean()), hp, mp)


def common_items(human: np.ndarray, *metrics: np.ndarray, same_items: bool) -> tuple[np.ndarray, ...]:
    """The items (columns of systems x items matrices, NaN missing) SPA compares: those every system has a score
    for, each side its own, or, where the humans and the metrics score the same items (``same_items``: segments),
    those every side scores, as MTME filters the metric where the gold score is missing."""
    import numpy as np

    keep_h = ~np.isnan(human).any(axis=0)
    keep_m = np.logical_and.reduce([~np.isnan(m).any(axis=0) for m in metrics])
    if same_items:
        keep_h = keep_m = keep_h & keep_m
    if not keep_h.any() or not keep_m.any():
        raise StatsError("no item is scored for every system (by the humans and by the metric)")
    return (human[:, keep_h], *(m[:, keep_m] for m in metrics))


def spa_statistic(human: np.ndarray, shape: tuple[int, int], n_permutations: int = DEFAULT_PERMUTATIONS,
                  seed: int = SPA_SEED) -> Callable[[np.ndarray], float]:
    """SPA as a function of a metric's item scores given flat (``shape``: systems x items), against the p-values
    of ``human`` (systems x items, no missing entry) computed once: what PERM-BOTH recomputes on every resample
    of SPA's items.  The same sign vectors as :func:`soft_pairwise_accuracy` (from ``seed``)."""
    import numpy as np

    if human.shape[0] < 2:
        raise StatsError(f"need scores of at least 2 systems, got {human.shape[0]}")
    signs = sign_vectors(human.shape[1], n_permutations, seed)
    hp = upper_pvalues(human, signs)
    if shape[1] != human.shape[1]:
        signs = sign_vectors(shape[1], n_permutations, seed)

    def spa_of(x: np.ndarray) -> float:
        return float(1.0 - np.abs(hp - upper_pvalues(x.reshape(shape), signs)).mean())

    return spa_of
