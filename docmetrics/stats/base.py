"""What the modules of :mod:`docmetrics.stats` share: the error, the ``compat`` switch, packed vectors
reshaped into rows, gold ``None`` filtering, and where random draws come from (numpy imported inside)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..values.errors import InputError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["StatsError", "COMPATS", "check_compat", "reshape", "filter_gold_nones", "is_constant_array",
           "generator", "pairwise_diff_arrays", "zscore"]

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
    :func:`docmetrics.algorithms.wmt_stats.pdp` take theirs from here."""
    hd = (human[:, None, :] - human[:, :, None]).reshape(human.shape[0], -1)
    md = (metric[:, None, :] - metric[:, :, None]).reshape(metric.shape[0], -1)
    return hd, md


def zscore(x: Any) -> np.ndarray:
    """(x - mean) / std (population std): scipy.stats.zscore's numbers bit for bit (constant x gives NaN), without
    importing scipy.  What PERM-BOTH standardises each metric's scores with (:func:`.significance.PermutationSigDiff`
    and :func:`docmetrics.algorithms.wmt_stats.perm_both`)."""
    import numpy as np

    a = np.asarray(x, dtype=float)
    sd = a.std()
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a - a.mean()) / sd
