"""The score rows every WMT statistic starts from: system -> per-item scores as a systems x items matrix
(NaN where missing), the systems compared, the pairs of entries, and groups as rows (one row per item, or
one row of everything)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from ...values.units import as_score

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Score", "to_matrix", "pair_indices", "systems_of", "as_rows", "score_rows"]

Score = Optional[float]


def to_matrix(scores: Mapping[str, Sequence[Score]], systems: Sequence[str], what: str) -> np.ndarray:
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


def pair_indices(n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    """(first, second): the pairs i < j of ``n_systems`` entries, in row-major order."""
    import numpy as np

    return np.triu_indices(n_systems, 1)


def systems_of(given: Sequence[str] | None, *maps: Mapping[str, Any]) -> list[str]:
    """The systems compared: ``given``, else those in every map, sorted; at least 2, none twice."""
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


def as_rows(rows: Sequence[Sequence[Score]] | np.ndarray, what: str) -> np.ndarray:
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


def score_rows(
    scores: Mapping[str, Sequence[Score]], systems: Sequence[str], group_by_item: bool, what: str = "scores"
) -> np.ndarray:
    """system -> per-segment scores as groups: one row per item (the systems' scores of one segment)
    when grouped by item, else one row of all (system, segment) scores (MTME's 'none')."""
    mat = to_matrix(scores, systems, what)
    return mat.T.copy() if group_by_item else mat.reshape(1, -1)
