"""ASD's Align stage as pure functions: the DP against brute force (property tests), banded against
full, the growing band, and the rebuilt target of the paper's Figure 2 / 3."""

from __future__ import annotations

import itertools
import random

import pytest
from docmetrics_metrics.asd.align import (
    align_many,
    diagonal_band,
    dp_align,
    full_band,
    matched_targets,
    rebuild,
    touches_edge,
)
from hypothesis import given, settings
from hypothesis import strategies as st


def brute_force(S, m, n, anchor, intervals=None):
    """The best monotone assignment by enumeration (independent of the DP): every non-decreasing
    sequence of n source indices, with the paper's end points when anchored."""
    best = None
    for seq in itertools.combinations_with_replacement(range(m), n):
        if anchor and (n > 1 or m == 1) and (seq[0] != 0 or seq[-1] != m - 1):
            continue
        if intervals is not None and any(not lo <= i <= hi for i, (lo, hi) in zip(seq, intervals)):
            continue
        value = sum(S[i][j] for j, i in enumerate(seq))
        if best is None or value > best[0]:
            best = (value, list(seq))
    return best


def rows_of(S, intervals):
    return [[S[i][j] for i in range(lo, hi + 1)] for j, (lo, hi) in enumerate(intervals)]


def random_matrix(m, n, seed):
    rng = random.Random(seed)
    return [[rng.random() for _ in range(n)] for _ in range(m)]


shapes = st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(0, 10**9), st.booleans())


@settings(max_examples=300, deadline=None, database=None)
@given(shapes)
def test_dp_is_optimal_against_brute_force(case):
    m, n, seed, anchor = case
    S = random_matrix(m, n, seed)
    iv = full_band(m, n)
    path, total = dp_align(rows_of(S, iv), iv, m, anchor)
    value, best = brute_force(S, m, n, anchor)
    assert total == pytest.approx(value, abs=1e-12)
    assert path == best  # continuous random values: the optimum is unique
    assert all(a <= b for a, b in zip(path, path[1:])) and len(path) == n
    assert total == pytest.approx(sum(S[i][j] for j, i in enumerate(path)), abs=1e-12)
    if anchor and n > 1:
        assert path[0] == 0 and path[-1] == m - 1


@settings(max_examples=200, deadline=None, database=None)
@given(shapes, st.integers(0, 3))
def test_banded_dp_is_optimal_inside_its_band(case, band):
    m, n, seed, anchor = case
    S = random_matrix(m, n, seed)
    iv = diagonal_band(m, n, band)
    path, total = dp_align(rows_of(S, iv), iv, m, anchor)
    value, best = brute_force(S, m, n, anchor, iv)
    assert total == pytest.approx(value, abs=1e-12) and path == best


@settings(max_examples=200, deadline=None, database=None)
@given(st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(0, 10**9), st.booleans()),
       st.integers(0, 3))
def test_banded_equals_full_when_the_band_contains_the_optimal_path(case, extra):
    m, n, seed, anchor = case
    S = random_matrix(m, n, seed)
    full_path, full_total = dp_align(rows_of(S, full_band(m, n)), full_band(m, n), m, anchor)
    # the narrowest diagonal band that holds the full optimum, plus some slack
    centre = diagonal_band(m, n, 0)
    need = max(abs(i - lo) for i, (lo, _) in zip(full_path, centre))
    for b in (need, need + extra):
        asked = []

        def cells(c, asked=asked):
            asked.extend(c)
            return [S[i][j] for _, i, j in c]

        al = align_many([(m, n)], cells, mode="banded", band=b, grow=0, anchor=anchor)[0]
        assert al.path == full_path and al.total == pytest.approx(full_total, abs=1e-12)
        assert len(asked) == len(set(asked)) == al.cells <= (n * (2 * b + 1) if n > 1 else m)
        # growing the band (when the path runs along its edge) never loses the optimum
        grown = align_many([(m, n)], lambda c: [S[i][j] for _, i, j in c], band=b, grow=3, anchor=anchor)[0]
        assert grown.path == full_path


def test_figure_2_omission_one_to_many_many_to_one():
    """The paper's Figure 2: 6 source, 5 target sentences; tgt_2 covers src_2 + src_3 (many-to-one),
    src_4 -> tgt_3 + tgt_4 (one-to-many), src_5 is omitted.  Optimal path [(1,1), (2,2), (4,3),
    (4,4), (6,5)] (1-based); rebuilt target {tgt_1, tgt_2, "", tgt_3 + tgt_4, "", tgt_5}."""
    S = [[0.1] * 5 for _ in range(6)]
    S[0][0] = 0.9
    S[1][1], S[2][1] = 0.7, 0.5  # tgt_2 is the translation of src_2 + src_3: src_2 wins
    S[3][2], S[3][3] = 0.8, 0.8
    S[4][3] = 0.3  # src_5 is omitted: nothing matches it well
    S[5][4] = 0.9
    targets = ["t1", "t2", "t3", "t4", "t5"]
    for mode in ("full", "banded"):
        al = align_many([(6, 5)], lambda c: [S[i][j] for _, i, j in c], mode=mode, band=1)[0]
        assert [(i + 1, j + 1) for j, i in enumerate(al.path)] == [(1, 1), (2, 2), (4, 3), (4, 4), (6, 5)]
        assert rebuild(targets, al.path, 6) == ["t1", "t2", "", "t3 t4", "", "t5"]
        assert matched_targets(al.path, 6) == [[0], [1], [], [2, 3], [], [4]]
        assert al.path_scores == [0.9, 0.7, 0.8, 0.8, 0.9]


def test_rebuild_joiner_and_placeholders():
    assert rebuild(["你好。", "再见。"], [0, 0], 2, joiner="") == ["你好。再见。", ""]
    assert rebuild([], [], 3) == ["", "", ""]
    with pytest.raises(ValueError):
        rebuild(["a"], [0, 0], 2)


def test_degenerate_shapes():
    S = [[0.2], [0.9], [0.4]]  # m=3, n=1: anchors cannot both hold -> the best source sentence
    for anchor in (True, False):
        al = align_many([(3, 1)], lambda c: [S[i][j] for _, i, j in c], anchor=anchor)[0]
        assert al.path == [1]
    al = align_many([(1, 4)], lambda c: [1.0] * len(c))[0]  # one source sentence takes everything
    assert al.path == [0, 0, 0, 0]
    al = align_many([(3, 0)], lambda c: pytest.fail("nothing to score"))[0]  # empty MT
    assert al.path == [] and al.cells == 0 and rebuild([], al.path, 3) == ["", "", ""]
    with pytest.raises(ValueError, match="no source sentence"):
        align_many([(0, 2)], lambda c: [])
    # ties go to the smaller source index
    assert dp_align([[1.0, 1.0, 1.0]], [(0, 2)], 3, anchor=False)[0] == [0]


def test_anchor_no_frees_the_end_points():
    # the MT omits the last source sentence: anchored, the last MT sentence is forced onto it
    S = [[0.9, 0.1, 0.1], [0.1, 0.9, 0.1], [0.1, 0.1, 0.9], [0.1, 0.1, 0.2]]
    anchored = align_many([(4, 3)], lambda c: [S[i][j] for _, i, j in c], mode="full", anchor=True)[0]
    free = align_many([(4, 3)], lambda c: [S[i][j] for _, i, j in c], mode="full", anchor=False)[0]
    assert anchored.path == [0, 1, 3] and free.path == [0, 1, 2]


def test_diagonal_band_shape():
    for m, n, b in [(10, 10, 2), (1000, 960, 4), (50, 200, 3), (200, 50, 0), (7, 1, 2), (1, 5, 3)]:
        iv = diagonal_band(m, n, b)
        assert len(iv) == n and iv[0][0] == 0 and iv[-1][1] == m - 1
        assert all(a[0] <= c[0] and a[1] <= c[1] for a, c in zip(iv, iv[1:]))  # monotone
        assert sum(hi - lo + 1 for lo, hi in iv) <= (n * (2 * b + 1) if n > 1 else m)
    assert diagonal_band(10, 10, 0) == [(j, j) for j in range(10)]
    assert touches_edge([0, 2], [(0, 2), (1, 2)], 10) and not touches_edge([0, 1], [(0, 2), (0, 2)], 3)


def test_growing_band_follows_a_path_outside_the_diagonal_band():
    """A translation that drops a block of 12 sentences early on: the true path leaves the diagonal
    band of half-width 3; doubling the band while the path runs along its edge recovers the
    full-matrix optimum with far fewer cells than the full matrix."""
    m, drop = 60, 12
    kept = [i for i in range(m) if not 3 <= i < 3 + drop]
    n = len(kept)
    rng = random.Random(3)
    S = [[rng.random() * 0.3 for _ in range(n)] for _ in range(m)]
    for j, i in enumerate(kept):
        S[i][j] = 1.0
    full = align_many([(m, n)], lambda c: [S[i][j] for _, i, j in c], mode="full")[0]
    assert full.path == kept and full.cells == m * n and full.band is None
    plain = align_many([(m, n)], lambda c: [S[i][j] for _, i, j in c], band=3, grow=0)[0]
    assert plain.path != kept and plain.band_edge and plain.band == 3
    calls = []

    def cells(c):
        calls.append(len(c))
        return [S[i][j] for _, i, j in c]

    grown = align_many([(m, n)], cells, band=3, grow=5)[0]
    assert grown.path == kept and grown.total == pytest.approx(full.total)
    assert grown.band == 12 and grown.passes == len(calls) == 3 and not grown.band_edge
    assert sum(calls) == grown.cells == sum(hi - lo + 1 for lo, hi in diagonal_band(m, n, 12)) < m * n / 2


def test_align_many_batches_documents_per_pass():
    mats = {d: random_matrix(m, n, d) for d, (m, n) in enumerate([(5, 4), (3, 6), (8, 8)])}
    calls = []

    def cells(c):
        calls.append(list(c))
        return [mats[d][i][j] for d, i, j in c]

    out = align_many([(5, 4), (3, 6), (8, 8)], cells, mode="full")
    assert len(calls) == 1 and len(calls[0]) == 5 * 4 + 3 * 6 + 8 * 8
    for d, al in enumerate(out):
        value, best = brute_force(mats[d], *[(5, 4), (3, 6), (8, 8)][d], True)
        assert al.path == best
