"""Subsampling items and weighting tasks, with mt-metrics-eval's names: :class:`Sample` (uniform or
stratified draws of item indexes) and :func:`AssignWeights` (weights of tasks spread evenly over the values
of attributes, then within each value over the next attribute, ...)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from .base import StatsError

__all__ = ["Sample", "AssignWeights", "stratum_sizes"]


def stratum_sizes(bin_sizes: Sequence[int], size: int, rng: Any) -> np.ndarray:
    """How many of ``size`` draws each stratum gets: proportional to its size (largest remainders get the
    rounding, ties broken at random by ``rng``), never more than it holds (the excess goes to the others,
    in proportion)."""
    bins = np.asarray(bin_sizes, dtype=int)
    if (bins < 0).any() or size > bins.sum():
        raise StatsError(f"cannot draw {size} items from strata of sizes {list(bins)}")
    out = np.zeros(len(bins), dtype=int)
    left = size
    while left > 0:
        room = bins - out
        open_ = np.flatnonzero(room > 0)
        ideal = bins[open_] / bins[open_].sum() * left
        add = np.floor(ideal).astype(int)
        short = left - int(add.sum())
        if short:
            jitter = rng.permutation(len(open_))  # random tie-break among equal remainders
            order = np.lexsort((jitter, -(ideal - add)))
            add[order[:short]] += 1
        out[open_] += np.minimum(add, room[open_])
        left = size - int(out.sum())
    return out


class Sample:
    """``size`` distinct indexes drawn from ``range(total_size)`` (all of them when ``size`` is 0 or too
    large): ``method='uniform'``, or ``'stratify'`` (``bin_sizes``: consecutive strata covering the range;
    each gets its proportional share).  ``seed``: an int for a repeatable draw (None or 0: unseeded, as
    MTME)."""

    def __init__(self, total_size: int, size: int, method: str, bin_sizes: Sequence[int] | None = None,
                 seed: int | None = None):
        self.total_size = total_size
        self.size = size
        self.method = method
        self.bin_sizes = bin_sizes
        self.seed = seed
        rng = np.random.default_rng(seed) if seed else np.random.default_rng()
        if size == 0 or size > total_size:
            size = total_size
        if method == "uniform":
            self.sample = rng.choice(total_size, size, replace=False)
        elif method == "stratify":
            if bin_sizes is None or sum(bin_sizes) != total_size:
                raise StatsError(f"stratify: bin_sizes must add up to total_size ({total_size}), got {bin_sizes}")
            counts = stratum_sizes(bin_sizes, size, rng)
            starts = np.r_[0, np.cumsum(bin_sizes)[:-1]]
            self.sample = np.concatenate([rng.choice(n, c, replace=False) + b
                                          for n, c, b in zip(bin_sizes, counts, starts)]).astype(int)
        else:
            raise StatsError(f"Unknown method: {method} (use 'uniform' or 'stratify')")

    def Select(self, v: Sequence[Any]) -> np.ndarray:
        """The sampled entries of ``v`` (a vector of ``total_size`` values)."""
        if len(v) != self.total_size:
            raise StatsError(f"a vector of {len(v)} values, but the sample is of {self.total_size}")
        return np.asarray(v)[self.sample]


def AssignWeights(tasks: Sequence[Mapping[str, Any]], attrs: Sequence[str], total_wt: float = 1.0) -> list[float]:
    """Weights of ``tasks`` (each a mapping attribute -> value, e.g. ``{'lang': 'en-de', 'level': 'sys'}``)
    summing to ``total_wt``: spread evenly over the values of ``attrs[0]``, then within each value over the
    values of ``attrs[1]``, ...; with no attribute left, evenly over the tasks (MTME's
    ``TaskSetResults.AssignWeights``, over a list of tasks' attributes)."""
    if not tasks:
        return []
    if not attrs:
        return [total_wt / len(tasks)] * len(tasks)
    groups: dict[Any, list[int]] = {}
    for i, t in enumerate(tasks):
        if attrs[0] not in t:
            raise StatsError(f"task {i} has no attribute {attrs[0]!r}")
        groups.setdefault(t[attrs[0]], []).append(i)
    weights = [0.0] * len(tasks)
    for idx in groups.values():
        for i, w in zip(idx, AssignWeights([tasks[i] for i in idx], attrs[1:], total_wt / len(groups))):
            weights[i] = w
    return weights
