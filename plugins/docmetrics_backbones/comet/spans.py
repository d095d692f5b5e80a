"""XCOMET's error spans, as COMET's own ``predict_step`` gives them, per unit.

A UnifiedMetric with word-level tags (XCOMET, or any UnifiedMetric trained with
``word_level_training``) tags each MT subword ``O``/``minor``/``major``/``critical``; COMET's own
``predict_step`` turns the tag probabilities into its ``metadata.error_spans`` (argmax per subword,
consecutive tagged subwords merged into one span with the first subword's severity, the span's
character offsets from the fast tokenizer's offsets into the MT text, the confidence the mean of the
chosen tags' probabilities; with a reference, the probabilities of the three inputs weighted as
XCOMET weighs them).  The comet backbone reads them from the same ``predict_step`` it scores with and
returns them per unit as ``UnitRecord.spans`` (:class:`~docmetrics.values.units.UnitSpan`, offsets in
``Unit.mt``), so they equal ``model.predict(...).metadata.error_spans``.
"""

from __future__ import annotations

from typing import Any, Sequence

from docmetrics.values.errors import PluginError
from docmetrics.values.units import UnitSpan

__all__ = ["predicted_spans", "unit_spans"]


def predicted_spans(prediction: Any) -> list[list[dict[str, Any]]] | None:
    """COMET's ``error_spans`` per sample of a ``predict_step`` output; None from a model that gives none."""
    metadata = prediction.get("metadata") if hasattr(prediction, "get") else None
    return metadata.get("error_spans") if metadata is not None and hasattr(metadata, "get") else None


def unit_spans(found: Sequence[dict[str, Any]], mt: str, model: Any) -> tuple[UnitSpan, ...]:
    """COMET's ``error_spans`` of one sample (``start``, ``end``: character offsets into the MT text it
    was given, which is the unit's; ``severity``; ``confidence``) as :class:`UnitSpan`, in COMET's order.
    A span COMET places outside the text would be a broken model or tokenizer: PluginError."""
    out = []
    for span in found:
        start, end = int(span["start"]), int(span["end"])
        if not 0 <= start <= end <= len(mt):
            raise PluginError(f"COMET model '{model}' gave the error span {start}-{end} in an MT text of {len(mt)} "
                              f"characters ({mt[:60]!r}); its tokenizer's offsets do not match the text")
        out.append(UnitSpan(start, end, str(span["severity"]), float(span["confidence"])))
    return tuple(out)
