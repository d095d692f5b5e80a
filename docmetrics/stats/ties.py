"""The one tie tolerance of docmetrics' resampling tests.

A resampled statistic that equals the observed one is counted as "at least as large" (a p-value counts
it), but float rounding may put an exact tie a hair below (sums in another order, a correlation of
swapped z-scores): so a draw counts when it is at least ``observed - TIE_TOLERANCE * max(1, scale)``,
``scale`` being the size of the summed quantities (``sum |differences|`` of a permutation test of two
systems; 1 for a correlation or an accuracy).  mt-metrics-eval compares exactly (float32 sums in
``pce``, float64 elsewhere), so there a tie counts or not by rounding; this is a deliberate difference.

stdlib and numpy (imported inside) only.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TIE_TOLERANCE", "tie_slack", "at_least", "exceeds"]

#: relative tolerance under which a resampled statistic ties the observed one
TIE_TOLERANCE = 1e-12


def tie_slack(scale: Any = 1.0) -> Any:
    """How far below the observed value a draw still ties it: ``TIE_TOLERANCE * max(1, |scale|)``
    (``scale`` a number or a numpy array, one per test)."""
    import numpy as np

    return TIE_TOLERANCE * np.maximum(1.0, np.abs(scale))


def at_least(null: Any, observed: Any, scale: Any = 1.0) -> Any:
    """Boolean array: each draw of ``null`` at least ``observed``, ties within :func:`tie_slack`
    included."""
    import numpy as np

    return np.asarray(null) >= np.asarray(observed) - tie_slack(scale)


def exceeds(null: Any, observed: Any, scale: Any = 1.0) -> Any:
    """Boolean array: each draw of ``null`` larger than ``observed`` by more than :func:`tie_slack` (the
    complement of :func:`at_least` with the sides swapped: a draw that ties is not larger)."""
    import numpy as np

    return np.asarray(null) > np.asarray(observed) + tie_slack(scale)
