"""Pairwise confidence error (PCE) and soft pairwise accuracy (Thompson et al., 2024), with
mt-metrics-eval's names: for every pair of systems, the one-sided p-value of a paired permutation test of
"system i is better than system j" on per-segment scores; ``1 - PCE`` compares the humans' p-values with a
metric's.

The sign vectors are drawn as MTME draws them (``numpy.random.default_rng(seed).random((R, n),
dtype=float32)`` rounded to 0/1), so a seed gives MTME's permutations.  ``compat="docmetrics"`` (the default)
sums in float64 and counts a permutation that ties the observed difference up to float rounding
(:mod:`docmetrics.algorithms.ties`); ``compat="mtme"`` sums in float32 and compares exactly, as MTME does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..algorithms.wmt_stats.pairwise import sign_vectors, upper_pvalues
from .base import StatsError, check_compat

__all__ = ["compute_pairwise_p_values", "compute_one_minus_pce"]


def compute_pairwise_p_values(seg_scores: Any, num_permutations: int = 1000, seed: int = 4, *,
                              compat: str = "docmetrics") -> np.ndarray:
    """A systems x systems matrix whose upper triangle holds the p-value of "system i > system j" (the rest
    NaN), from ``seg_scores`` (systems x segments, no missing entry)."""
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
    h = np.asarray(human_pairwise_p_vals, dtype=float)
    m = np.asarray(metric_pairwise_p_vals, dtype=float)
    if h.shape != m.shape or h.ndim != 2 or h.shape[0] != h.shape[1]:
        raise StatsError(f"the p-value matrices must be square and of one shape, got {h.shape} and {m.shape}")
    upper = np.triu_indices(h.shape[0], 1)
    return float(1.0 - np.mean(np.abs(h - m)[upper]))
