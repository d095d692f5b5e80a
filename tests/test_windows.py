"""SLIDE windows: the paper's Figure 1 as a golden test, and properties over many (w, s, length)."""

import pytest

from docmetrics.algorithms.windows import Window, slide_windows


def spans(length, w, s, partial):
    return [(x.start, x.end, x.partial) for x in slide_windows(length, w, s, partial)]


# Raunak et al. (2024), Figure 1: w=4, s=2; document 7759 has 3 sentences (lines 1-3), document doc0
# has 7 (lines 4-10).  Full chunks of doc0: lines 4-7 and 6-9; partials: all of 7759, and line 10.
FIGURE1 = {
    "drop": {3: [], 7: [(0, 4, False), (2, 6, False)]},
    "keep": {3: [(0, 3, True)], 7: [(0, 4, False), (2, 6, False), (6, 7, True)]},
    "weighted": {3: [(0, 3, True)], 7: [(0, 4, False), (2, 6, False), (6, 7, True)]},
}


@pytest.mark.parametrize("policy", ["drop", "keep", "weighted"])
@pytest.mark.parametrize("length", [3, 7])
def test_figure1(policy, length):
    assert spans(length, 4, 2, policy) == FIGURE1[policy][length]


@pytest.mark.parametrize(
    "length,w,s,expected",
    [
        (12, 6, 6, [(0, 6), (6, 12)]),
        (13, 6, 6, [(0, 6), (6, 12)]),
        (9, 7, 1, [(0, 7), (1, 8), (2, 9)]),
        (5, 2, 1, [(0, 2), (1, 3), (2, 4), (3, 5)]),
        (1, 1, 1, [(0, 1)]),
        (5, 6, 6, []),
    ],
)
def test_full_windows(length, w, s, expected):
    assert [(x.start, x.end) for x in slide_windows(length, w, s)] == expected


@pytest.mark.parametrize("w", range(1, 9))
def test_properties(w):
    for s in range(1, w + 1):
        for length in range(0, 25):
            full = slide_windows(length, w, s, "drop")
            kept = slide_windows(length, w, s, "keep")
            assert all(len(x) == w and not x.partial for x in full)
            assert all(0 <= x.start < x.end <= length for x in kept)
            assert kept[: len(full)] == full
            assert len(kept) - len(full) <= 1
            covered = set().union(*(range(x.start, x.end) for x in kept)) if kept else set()
            assert covered == set(range(length))  # keep covers every sentence exactly
            if len(kept) > len(full):  # the partial chunk holds only uncovered sentences
                tail = kept[-1]
                assert tail.partial and not any(tail.start < x.end for x in full)
            # dropped sentences: the paper's Figure 3 quantity
            dropped = length - len(set().union(*(range(x.start, x.end) for x in full))) if full else length
            if s == 1 and length >= w:
                assert dropped == 0


def test_bad_arguments():
    with pytest.raises(ValueError):
        slide_windows(5, 2, 3)
    with pytest.raises(ValueError):
        slide_windows(5, 0, 1)
    with pytest.raises(ValueError):
        slide_windows(5, 2, 1, "sometimes")
    assert Window(2, 5) == Window(2, 5, False)
