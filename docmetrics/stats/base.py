"""What the modules of :mod:`docmetrics.stats` share: the error, the ``compat`` switch, the defaults of the
resampling tests, packed vectors reshaped into rows, system -> scores mappings as matrices, gold ``None``
filtering, and where random draws come from (numpy imported inside: light to import)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from ..values.errors import InputError
from ..values.units import as_score

if TYPE_CHECKING:
    import numpy as np

__all__ = ["StatsError", "COMPATS", "check_compat", "reshape", "filter_gold_nones", "is_constant_array",
           "generator", "pairwise_diff_arrays", "zscore", "DEFAULT_RESAMPLES", "DEFAULT_SEED", "EPSILON_RULE",
           "ITEM_RULE", "Score", "to_matrix", "systems_of", "as_rows", "score_rows"]

Score = Optional[float]
#: PERM-BOTH: resamples (MTME's Task default k)
DEFAULT_RESAMPLES = 1000
#: the default seed of every resampling docmetrics does: PERM-BOTH (:mod:`.permutation`), the paired tests and
#: confidence intervals of :mod:`docmetrics.judging.paired` (``--seed``)
DEFAULT_SEED = 12345
#: Which epsilon acc_eq reports among those of equal accuracy (every JSON with an ``epsilon`` says it beside):
#: the smallest, equal meaning within the tie tolerance of :mod:`.ties` (``compat="mtme"``: the float maximum of
#: MTME's running sums, which rounding may put at a later epsilon).
EPSILON_RULE = "smallest of equal accuracy"
#: How an average over items treats an item without a defined correlation (constant scores, fewer than 2
#: entries): left out; with no item left the average is undefined (null in JSON).  MTME averages the same
#: items but reports 0 when none is left.
ITEM_RULE = "undefined items left out; none left: null"

#: ``compat="docmetrics"`` (the default): docmetrics' conventions (NaN for an undefined average, the tie
#: tolerance of :mod:`docmetrics.stats.ties`, float64 and the smallest epsilon among equal accuracies);
#: ``compat="mtme"``: mt-metrics-eval's numbers bit for bit (0, exact comparisons, float32 in PCE, the float
#: maximum).
COMPATS = ("docmetrics", "mtme")


class StatsError(InputError, ValueError):
    """A bad argument to a statistic (also a ValueError, the class mt-metrics-eval raises, so code that
    catches MTME's errors catches docmetrics')."""


def check_compat(compat: str) -> bool:
    """True for ``"mtme"``, False for ``"docmetrics"``; a StatsError naming both otherwise."""
    if compat not in COMPATS:
        raise StatsError(f"compat={compat!r}: use 'docmetrics' (the default) or 'mtme'")
    return compat == "mtme"


def reshape(vector: Any, num_sys: int, average_by: str) -> np.ndarray:
    """A vector packed by system (system 0's items, then system 1's, ...) as rows: ``'none'`` one row,
    ``'sys'`` one row per system, ``'item'`` one row per item (the systems' scores of it)."""
    import numpy as np

    arr = np.asarray(vector)
    if average_by == "none":
        return arr.reshape(1, -1)
    if average_by == "sys":
        return arr.reshape(num_sys, -1)
    if average_by == "item":
        return arr.reshape(num_sys, -1).transpose()
    raise StatsError(f"average_by={average_by!r}: use 'none', 'sys' or 'item'")


def filter_gold_nones(gold: Sequence[Any], model: Sequence[Any]) -> tuple[Sequence[Any], Sequence[Any]]:
    """``gold`` and ``model`` without the entries where the gold score is None (two empty lists if none is
    left)."""
    kept = [(g, m) for g, m in zip(gold, model) if g is not None]
    if not kept:
        return [], []
    g_out, m_out = zip(*kept)
    return g_out, m_out


def is_constant_array(arr: Any) -> bool:
    """Whether every element equals the first (a correlation with such an input is undefined)."""
    import numpy as np

    a = np.asarray(arr)
    return bool(np.all(a == a[0]))


def generator(rng: Any) -> Any:
    """Where random draws come from: ``None`` -> numpy's global generator (``np.random``, as
    mt-metrics-eval draws, so ``np.random.seed`` makes a run repeatable), an int -> a new
    ``numpy.random.default_rng(int)``, a ``numpy.random.Generator`` -> itself.  Each answers ``random``,
    ``binomial`` and ``permutation``."""
    import numpy as np

    if rng is None:
        return np.random
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise StatsError(f"rng={rng!r}: give None (numpy's global generator), a seed (int) or a numpy Generator")


def pairwise_diff_arrays(human: np.ndarray, metric: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row of the 2-D float arrays, the R x R differences ``row[j] - row[i]`` (i the slower index, the
    diagonal included), one row per row: what Pairwise Difference Pearson correlates (NaN where an entry is
    missing).  The one enumeration of them: :func:`.correlation.enumerate_pairwise_diffs` and
    :func:`.vector.pdp` take theirs from here."""
    hd = (human[:, None, :] - human[:, :, None]).reshape(human.shape[0], -1)
    md = (metric[:, None, :] - metric[:, :, None]).reshape(metric.shape[0], -1)
    return hd, md


def zscore(x: Any) -> np.ndarray:
    """(x - mean) / std (population std): scipy.stats.zscore's numbers bit for bit (constant x gives NaN), without
    importing scipy.  What PERM-BOTH standardises each metric's scores with (:func:`.significance.PermutationSigDiff`
    and :func:`.permutation.perm_both`)."""
    import numpy as np

    a = np.asarray(x, dtype=float)
    sd = a.std()
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a - a.mean()) / sd


# -- system -> per-item scores (None missing) as matrices: what docmetrics' WMT helpers start from ---------------
def to_matrix(scores: Mapping[str, Sequence[Score]], systems: Sequence[str], what: str) -> np.ndarray:
    """systems x items float matrix, NaN for missing entries."""
    import numpy as np

    rows = []
    for s in systems:
        if s not in scores:
            raise StatsError(f"{what}: no scores for system {s!r}")
        rows.append([math.nan if (x := as_score(v)) is None else x for v in scores[s]])
        if len(rows[-1]) != len(rows[0]):
            raise StatsError(f"{what}: system {s!r} has {len(rows[-1])} scores, {systems[0]!r} has {len(rows[0])}")
    return np.asarray(rows, dtype=float).reshape(len(systems), len(rows[0]) if rows else 0)


def systems_of(given: Sequence[str] | None, *maps: Mapping[str, Any]) -> list[str]:
    """The systems compared: ``given``, else those in every map, sorted; at least 2, none twice."""
    names = list(given) if given is not None else sorted(set(maps[0]).intersection(*maps[1:]))
    if len(names) < 2:
        raise StatsError(f"need scores of at least 2 systems, got {len(names)}")
    if len(set(names)) != len(names):
        raise StatsError("a system is listed twice")
    return names


def as_rows(rows: Any, what: str) -> np.ndarray:
    """Groups x entries float matrix (NaN where missing: None, NaN, no number) of a matrix, a list of rows or one
    vector (one group)."""
    import numpy as np

    if isinstance(rows, np.ndarray) and rows.dtype != object:
        arr = np.array(rows, dtype=float)
    else:
        if len(rows) and not isinstance(rows[0], (list, tuple)) and not hasattr(rows[0], "__len__"):
            rows = [rows]  # one vector: one group
        lists = [[math.nan if (x := as_score(v)) is None else x for v in r] for r in rows]
        if len({len(r) for r in lists}) > 1:
            raise StatsError(f"{what}: groups of different sizes; pad with None")
        arr = np.asarray(lists, dtype=float)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise StatsError(f"{what}: expected a matrix of groups x entries")
    return arr


def score_rows(scores: Mapping[str, Sequence[Score]], systems: Sequence[str], group_by_item: bool,
               what: str = "scores") -> np.ndarray:
    """system -> per-segment scores as groups: one row per item (the systems' scores of one segment) when
    grouped by item (MTME's ``average_by='item'``), else one row of all (system, segment) scores ('none')."""
    mat = to_matrix(scores, systems, what)
    return mat.T.copy() if group_by_item else mat.reshape(1, -1)
