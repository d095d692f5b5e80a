"""ASD's Align stage as pure functions: candidate bands, the paper's DP, and the rebuilt target.

Notation: a document has ``m`` source sentences (index ``i``) and ``n`` target sentences (index
``j``).  An alignment gives every target sentence exactly one source sentence, ``path[j] = i``,
monotonically (``path[j] <= path[j + 1]``); a source sentence may receive none (an omission: a
placeholder ``""`` in the rebuilt target) or several (concatenated with the target language's
joiner).  The DP maximises the sum of the similarities ``S[i][j]`` of the ``n`` chosen cells
(Align-then-Slide, Section 2.1: "the y-position must increase by 1 each move, and the x-position
must increase by a non-negative number each move, resulting in n points").  With ``anchor`` the
path starts at ``(0, 0)`` and ends at ``(m - 1, n - 1)`` as in the paper; a one-sentence target
(``n == 1``) cannot do both when ``m > 1`` and then goes to its most similar source sentence.

Candidate cells are given per target row as an inclusive interval ``(lo_j, hi_j)`` of source
indices, with ``lo`` and ``hi`` non-decreasing in ``j`` (both bands below are of that form): the full
matrix (``(0, m - 1)`` for every row) or a band around the length-scaled diagonal.  Ties are broken
towards the smaller source index.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

Interval = tuple[int, int]

__all__ = [
    "Alignment", "full_band", "diagonal_band", "touches_edge", "dp_align",
    "align_many", "rebuild", "matched_targets",
]


def full_band(m: int, n: int) -> list[Interval]:
    """Every cell of the m x n matrix."""
    return [(0, m - 1)] * n


def diagonal_band(m: int, n: int, band: int) -> list[Interval]:
    """Source sentences within ``band`` of the length-scaled diagonal, for each target row:
    ``c_j = round(j * (m - 1) / (n - 1))`` (``c_0 = 0``, ``c_{n-1} = m - 1``) and the interval
    ``[c_j - band, c_j + band]`` clipped to the matrix.  A one-sentence target gets every source
    sentence.  At most ``n * (2 * band + 1)`` cells."""
    if m < 1 or n < 1:
        return []
    if n == 1:
        return [(0, m - 1)]
    out = []
    for j in range(n):
        c = _round_half_up(j * (m - 1) / (n - 1))
        out.append((max(0, c - band), min(m - 1, c + band)))
    return out


def touches_edge(path: Sequence[int], intervals: Sequence[Interval], m: int) -> bool:
    """True when the path runs along the edge of its band (where the band cut the matrix off), i.e.
    the best path might lie partly outside the band."""
    for i, (lo, hi) in zip(path, intervals):
        if (i == lo and lo > 0) or (i == hi and hi < m - 1):
            return True
    return False


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def _check(intervals: Sequence[Interval], m: int, n: int) -> None:
    if len(intervals) != n:
        raise ValueError(f"{len(intervals)} intervals for {n} target sentences")
    plo = phi = 0
    for j, (lo, hi) in enumerate(intervals):
        if not (0 <= lo <= hi < m):
            raise ValueError(f"interval {j} ({lo}, {hi}) is not inside 0..{m - 1}")
        if j and (lo < plo or hi < phi):
            raise ValueError(f"interval {j} ({lo}, {hi}) moves back from ({plo}, {phi})")
        plo, phi = lo, hi


def dp_align(
    rows: Sequence[Sequence[float]], intervals: Sequence[Interval], m: int, anchor: bool = True
) -> tuple[list[int], float]:
    """The best monotone path through the candidate cells.

    ``rows[j][k]`` is the similarity of source sentence ``intervals[j][0] + k`` and target sentence
    ``j``.  Returns ``(path, total)``: ``path[j]`` is the source sentence of target ``j`` and
    ``total`` the sum of the chosen similarities.  Time and memory O(number of candidate cells).
    """
    n = len(intervals)
    if n == 0:
        return [], 0.0
    _check(intervals, m, n)
    for j, ((lo, hi), row) in enumerate(zip(intervals, rows)):
        if len(row) != hi - lo + 1:
            raise ValueError(f"row {j} has {len(row)} values for interval ({lo}, {hi})")
    neg = -math.inf
    anchored = anchor and (n > 1 or m == 1)
    lo0, hi0 = intervals[0]
    if anchored:
        if lo0 != 0:
            raise ValueError("anchor: the first row's interval must contain source sentence 0")
        prev = [float(rows[0][0])] + [neg] * (hi0 - lo0)
    else:
        prev = [float(v) for v in rows[0]]
    back: list[list[int]] = [[]]
    for j in range(1, n):
        plo, phi = intervals[j - 1]
        lo, hi = intervals[j]
        # prefix maxima of the previous row: best[k] = max(prev[0..k]), at[k] its (first) argmax
        best: list[float] = []
        at: list[int] = []
        run, arg = neg, plo
        for k, v in enumerate(prev):
            if v > run:
                run, arg = v, plo + k
            best.append(run)
            at.append(arg)
        row = rows[j]
        cur: list[float] = []
        ptr: list[int] = []
        for i in range(lo, hi + 1):
            k = min(i, phi) - plo  # lo >= plo, so k >= 0
            cur.append(best[k] + float(row[i - lo]))
            ptr.append(at[k])
        prev = cur
        back.append(ptr)
    lo_last, hi_last = intervals[-1]
    if anchored:
        if hi_last != m - 1:
            raise ValueError("anchor: the last row's interval must contain source sentence m-1")
        end = m - 1
    else:
        end, run = lo_last, neg
        for k, v in enumerate(prev):
            if v > run:
                run, end = v, lo_last + k
    total = prev[end - lo_last]
    path = [0] * n
    path[-1] = end
    for j in range(n - 1, 0, -1):
        lo, _ = intervals[j]
        path[j - 1] = back[j][path[j] - lo]
    return path, float(total)


@dataclass
class Alignment:
    """The alignment of one document pair."""

    m: int
    n: int
    path: list[int]
    #: Similarity of each chosen cell: ``path_scores[j] = S[path[j]][j]``.
    path_scores: list[float]
    total: float
    #: Candidate cells whose similarity was computed.
    cells: int
    #: DP passes (1 + band doublings).
    passes: int = 1
    #: The final path runs along its band's edge (a wider band might find a better path).
    band_edge: bool = False
    #: Half-width of the final band (None: the full matrix).
    band: int | None = None


ScoreCells = Callable[[list[tuple[int, int, int]]], Sequence[float]]


def align_many(
    shapes: Sequence[tuple[int, int]],
    score_cells: ScoreCells,
    *,
    mode: str = "banded",
    band: int = 4,
    grow: int = 1,
    anchor: bool = True,
) -> list[Alignment]:
    """Align many documents, asking ``score_cells`` for all the similarities one pass needs at once.

    ``shapes[d] = (m, n)``.  ``score_cells`` gets ``(d, i, j)`` triples (each cell once over the
    whole run) and returns their similarities in order.  ``mode='full'`` scores the m x n matrix;
    ``'banded'`` scores :func:`diagonal_band` of half-width ``band`` and, while a document's best
    path runs along its band's edge, doubles the band (at most ``grow`` times; only the new cells
    are scored).  Each band contains the previous one, so the path can only get better.
    """
    if mode not in ("banded", "full"):
        raise ValueError("mode must be 'banded' or 'full'")
    if band < 0 or grow < 0:
        raise ValueError("band and grow must be >= 0")
    known: list[dict[tuple[int, int], float]] = [{} for _ in shapes]
    results: list[Alignment | None] = [None] * len(shapes)
    current: dict[int, tuple[list[Interval], int | None]] = {}
    for d, (m, n) in enumerate(shapes):
        if m < 1:
            raise ValueError(f"document {d} has no source sentence")
        if n == 0:
            results[d] = Alignment(m, 0, [], [], 0.0, 0, 1, False, None if mode == "full" else band)
            continue
        current[d] = (full_band(m, n), None) if mode == "full" else (diagonal_band(m, n, band), band)
    passes = 0
    while current:
        passes += 1
        need: list[tuple[int, int, int]] = []
        for d, (intervals, _) in current.items():
            cache = known[d]
            for j, (lo, hi) in enumerate(intervals):
                for i in range(lo, hi + 1):
                    if (i, j) not in cache:
                        need.append((d, i, j))
        values = list(score_cells(need)) if need else []
        if len(values) != len(need):
            raise RuntimeError(f"score_cells returned {len(values)} values for {len(need)} cells")
        for (d, i, j), v in zip(need, values):
            known[d][(i, j)] = float(v)
        nxt: dict[int, tuple[list[Interval], int | None]] = {}
        for d, (intervals, width) in current.items():
            m, n = shapes[d]
            cache = known[d]
            rows = [[cache[(i, j)] for i in range(lo, hi + 1)] for j, (lo, hi) in enumerate(intervals)]
            path, total = dp_align(rows, intervals, m, anchor)
            edge = width is not None and touches_edge(path, intervals, m)
            results[d] = Alignment(m, n, path, [cache[(i, j)] for j, i in enumerate(path)], total,
                                   len(cache), passes, edge, width)
            if edge and passes <= grow:
                wider = max(1, 2 * int(width or 0))
                nxt[d] = (diagonal_band(m, n, wider), wider)
        current = nxt
    out = [r for r in results if r is not None]
    assert len(out) == len(shapes)
    return out


def matched_targets(path: Sequence[int], m: int) -> list[list[int]]:
    """For each source sentence, the target sentences the path gives it (in order)."""
    out: list[list[int]] = [[] for _ in range(m)]
    for j, i in enumerate(path):
        out[i].append(j)
    return out


def rebuild(targets: Sequence[str], path: Sequence[int], m: int, joiner: str = " ") -> list[str]:
    """The target rebuilt to the source's sentence count (Algorithm 1, step 4): source sentence ``i``
    gets its matched target sentences joined with ``joiner``, or ``""`` when it has none."""
    if len(path) != len(targets):
        raise ValueError(f"path of {len(path)} for {len(targets)} target sentences")
    return [joiner.join(targets[j] for j in js) for js in matched_targets(path, m)]
