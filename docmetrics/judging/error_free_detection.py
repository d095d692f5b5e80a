"""Each metric as a detector of error-free translations (WMT26 automated MT evaluation, subtask 3), judged on the
GenMT data it scored: :func:`error_free`.  The statistics are :mod:`docmetrics.algorithms.detection`'s; this
module pairs a metric's segment scores with the gold flags of the data (:meth:`GenmtPair.error_free`: no error
span and ESA >= 85)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..algorithms.detection import Detection, detect, items
from ..values.errors import InputError
from .labels import row_labels
from .text import num, table

if TYPE_CHECKING:
    from ..formats.base import EvalSet
    from ..formats.genmt import GenmtPair
    from ..values.result import Result
    from .metaeval import ResultsByMetric

__all__ = ["ErrorFree", "error_free", "error_free_text"]

@dataclass(frozen=True)
class ErrorFree:
    """One metric's error-free detection: ``detection`` (None where none could be made, ``note`` says why) and
    ``note``, what is odd about it (e.g. no gold error-free item), "" where nothing is."""

    spec: str
    detection: Detection | None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """``{"spec", the detection's fields..., "note"}`` (no detection fields where none was made; no note
        where it is empty)."""
        return {"spec": self.spec, **(self.detection.to_dict() if self.detection is not None else {}),
                **({"note": self.note} if self.note else {})}


def error_free(results: ResultsByMetric, data: EvalSet | GenmtPair, threshold: float | None = None
               ) -> list[ErrorFree]:
    """Each metric (``{spec: [Result per system]}`` or (spec, results) pairs, scored on ``data.testset``) as a
    detector of error-free (segment, system) items of ``data`` (what :func:`read_human` returns for a GenMT
    file, or its GenmtPair).  The gold: :meth:`~docmetrics.formats.esa.Judgement.error_free` (no error span,
    ESA >= 85).  ``threshold``: an item is predicted error-free at or above it, in the metric's own units (at or
    below for a lower-is-better metric); None: the threshold that maximises MCC on these items (an oracle
    operating point).  A metric whose units span several segments, or with no usable score, gets no detection
    and a note saying why.

    >>> data = read_human("wmt25-genmt.jsonl", lp="en-de")                            # doctest: +SKIP
    >>> [d.detection.mcc for d in error_free({"chrf": load("chrf").compute(data.testset)}, data)]  # doctest: +SKIP
    """
    pair = getattr(data, "raw", data)
    if not hasattr(pair, "error_free"):
        raise InputError(f"{getattr(data, 'source', data)}: error-free detection needs GenMT data (ESA scores "
                         "and error spans); a "
                         f"{getattr(data, 'format', type(data).__name__)} file has no error-free gold",
                         params=("data",))
    gold = pair.error_free()
    out = []
    for spec, found in (results.items() if isinstance(results, Mapping) else results):
        out.append(_one(spec, list(found), pair, gold, threshold))
    return out


def _one(spec: str, results: list[Result], pair: GenmtPair, gold: Mapping[str, list[bool | None]],
         threshold: float | None) -> ErrorFree:
    if any(r.wide_unit() is not None for r in results):
        return ErrorFree(spec, None, "its units span several segments: no score per segment "
                                     "(asd:unit=segment or slide:w=1,s=1 give one)")
    lower = not all(r.higher_is_better for r in results)  # detected on negated scores: higher better
    scores: dict[str, list[float | None]] = {}
    for r in results:
        row: list[float | None] = [None] * len(pair.segments)
        for u in r.oriented().units:
            row[u.start] = u.score
        scores[r.system] = row
    g, s = items(gold, scores)
    if not any(x is not None for x in g):
        return ErrorFree(spec, None, "no segment of these systems has a human judgement")
    given = None if threshold is None else float(threshold) * (-1 if lower else 1)
    try:
        found = detect(g, s, given)
    except ValueError as exc:  # no segment with both a gold flag and a score (e.g. every score NaN)
        return ErrorFree(spec, None, f"nothing to detect: {exc}")
    if lower:  # the threshold in the metric's own units, predicting at or below it
        found = dataclasses.replace(found, threshold=-found.threshold, at_or_below=True)
    return ErrorFree(spec, found, _why_no_gold(pair, scores) if not found.positives else "")


def _why_no_gold(pair: GenmtPair, systems: Sequence[str]) -> str:
    """Why no item of ``systems`` is error-free in the gold, where the scores tell (all below 85)."""
    from ..formats.esa import WMT26_ERROR_FREE_THRESHOLD as AT

    judged = [j.score for name in systems for j in pair.human.get(name, ()) if j is not None and j.score is not None]
    if judged and max(judged) < AT:
        return (f"every human score is below {AT:g} (the highest: {max(judged):g}), so the gold rule ESA >= {AT:g} "
                "never holds: are these ESA scores?")
    return ""


def error_free_text(found: Sequence[ErrorFree], width: int = 4) -> str:
    """The detections of :func:`error_free` as a table (each metric named as the meta-evaluation's text names it,
    scores with ``width`` decimals) under a blank line, and how its items are judged: what ``docmetrics --genmt
    FILE --error-free`` prints after the meta-evaluation."""
    specs = [f.spec for f in found]
    named = dict(zip(specs, row_labels(specs)))
    rows = []
    for spec, d, why in ((f.spec, f.detection, f.note) for f in found):
        if d is None:
            rows.append([named[spec], "-", "-", "-", "-", "-", "-", "-", why])
            continue
        cells = [num(v, width) if not math.isnan(v) else "undefined"
                 for v in (d.mcc, d.precision, d.recall, d.f1, d.average_precision)]
        at = f"<= {d.threshold:g}" if d.at_or_below else f"{d.threshold:g}"
        rows.append([named[spec], *cells, f"{at} ({d.chosen_by})", f"{d.positives}/{d.n}",
                     "; ".join(x for x in (d.undefined, why) if x)])
    return ("\nError-free translations (WMT26 subtask 3): (segment, system) items\n"
            + table(["Metric", "MCC", "precision", "recall", "F1", "AP", "threshold", "error-free items", "note"], rows)
            + "\nAn item is one system's translation of one segment.  Gold error-free: no error span (an omission "
              "counts, though it has no place) and ESA >= 85.  An item is predicted error-free when the metric's "
              "score is at or above the threshold (at or below, '<=', for a metric whose lower scores are better); "
              "a threshold chosen on these items (mcc) is an oracle operating "
              "point.  AP: average precision (area under the precision-recall curve).\n")
