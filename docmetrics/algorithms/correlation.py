"""Correlation statistics between metric and human scores, written from their definitions and checked
against scipy in the tests: Pearson's r, Spearman's rho (Pearson of average ranks), Kendall's tau-b
(``(C - D) / sqrt((P - Tx) * (P - Ty))``), and pairwise system accuracy (Kocmi et al., 2021: a pair
tied in both counts as agreeing, a pair tied in one only as disagreeing).

stdlib only, but for :func:`kendall_fast` (numpy, imported inside).
"""

from __future__ import annotations

import math
from typing import Sequence

__all__ = ["pearson", "ranks", "spearman", "kendall", "kendall_fast", "pairwise_accuracy", "sign"]

def check_pair(x: Sequence[float], y: Sequence[float]) -> None:
    if len(x) != len(y):
        raise ValueError(f"x and y have different lengths ({len(x)} and {len(y)})")


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r (NaN if fewer than 2 values or a constant input)."""
    check_pair(x, y)
    n = len(x)
    if n < 2:
        return math.nan
    mx = math.fsum(x) / n
    my = math.fsum(y) / n
    dx = [a - mx for a in x]
    dy = [b - my for b in y]
    sxx = math.fsum(a * a for a in dx)
    syy = math.fsum(b * b for b in dy)
    if sxx == 0 or syy == 0:
        return math.nan
    r = math.fsum(a * b for a, b in zip(dx, dy)) / math.sqrt(sxx * syy)
    return max(-1.0, min(1.0, r))


def ranks(x: Sequence[float]) -> list[float]:
    """1-based ranks, ties given the average of the ranks they span."""
    order = sorted(range(len(x)), key=lambda i: x[i])
    out = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        avg = (i + j) / 2 + 1
        for k in range(i, j + 1):
            out[order[k]] = avg
        i = j + 1
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson's r of the (average) ranks."""
    check_pair(x, y)
    return pearson(ranks(x), ranks(y))


def sign(v: float) -> int:
    return int(v > 0) - int(v < 0)


def kendall(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b (exact, O(n^2); for system-level sizes)."""
    check_pair(x, y)
    n = len(x)
    s = nx = ny = 0
    for i in range(n):
        for j in range(i + 1, n):
            a = sign(x[i] - x[j])
            b = sign(y[i] - y[j])
            s += a * b
            nx += a != 0
            ny += b != 0
    if nx == 0 or ny == 0:
        return math.nan
    return s / math.sqrt(nx * ny)


def kendall_fast(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b for many items (segment level): the same sums, vectorized row by row."""
    import numpy as np

    check_pair(x, y)
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    s = nx = ny = 0
    for i in range(len(xa) - 1):
        a = np.sign(xa[i] - xa[i + 1 :])
        b = np.sign(ya[i] - ya[i + 1 :])
        s += int(np.dot(a, b))
        nx += int(np.count_nonzero(a))
        ny += int(np.count_nonzero(b))
    if nx == 0 or ny == 0:
        return math.nan
    return s / math.sqrt(nx * ny)


def pairwise_accuracy(metric: Sequence[float], human: Sequence[float]) -> tuple[float, int, int]:
    """(accuracy, agreeing pairs, all pairs) over every pair of systems (Kocmi et al., 2021)."""
    check_pair(metric, human)
    agree = total = 0
    for i in range(len(metric)):
        for j in range(i + 1, len(metric)):
            total += 1
            agree += sign(metric[i] - metric[j]) == sign(human[i] - human[j])
    return (agree / total if total else math.nan), agree, total
