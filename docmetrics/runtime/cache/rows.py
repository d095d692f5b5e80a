"""A unit's record as a row of the ``scores`` table and back: the score as exact text, the flag, the
counters and the detail as JSON, and the checksum of it all; and which counters can be stored per unit."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from ...values.units import UnitRecord
from .keys import unit_key

if TYPE_CHECKING:
    from ...plugin.backbone import Unit


def row_of(bkey: str, unit: Unit, record: UnitRecord) -> tuple[Any, ...] | None:
    """The row (backbone, unit, score, truncated, counters, detail) that stores ``record``, or None when it
    cannot be stored: its per-unit counters are None (unknown) or its score is no number."""
    value = record.score
    if record.counters is not None and not isinstance(value, (str, bytes)) and _is_float(value):
        detail = record.detail
        return (bkey, unit_key(unit), _store_float(float(value)), int(bool(record.truncated)),
                json.dumps({k: int(v) for k, v in record.counters.items()}),
                None if detail is None else json.dumps(detail, ensure_ascii=False))
    return None


def checksum(backbone: Any, unit: Any, score: Any, truncated: Any, counters: Any, detail: Any = None) -> str:
    """The checksum of a row: its keys and its value as stored (128 bits of SHA-256); a row without a
    detail sums what format 2 summed, so upgrading to format 3 rewrites no checksum."""
    values = [backbone, unit, score, truncated, counters] + ([] if detail is None else [detail])
    text = json.dumps(values, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def record_of(bkey: str, unit: Any, score: Any, trunc: Any, counters: Any, check: Any,
              detail: Any = None) -> UnitRecord | None:
    """A row's record, or None when its checksum or content is wrong."""
    try:
        if check != checksum(bkey, unit, score, trunc, counters, detail):
            return None
        per_unit = json.loads(counters) if counters else {}
        if not isinstance(per_unit, dict):
            return None
        more = json.loads(detail) if detail is not None else None
        if more is not None and not isinstance(more, dict):
            return None
        spans, answer = UnitRecord.detail_fields(more)
        return UnitRecord(float.fromhex(score), bool(trunc), per_unit, spans, answer)
    except (TypeError, ValueError, KeyError):
        return None


def _is_float(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _store_float(x: float) -> str:
    """Exact text of a float (SQLite's REAL turns -0.0 into 0.0 and NaN into NULL)."""
    return float(x).hex()


def attribute_counters(counters: dict[str, int], n: int) -> dict[str, int] | None:
    """Per-unit counters for a chunk of ``n`` units, or None where they cannot be known."""
    if not counters:
        return {}
    if n == 1:
        return {k: int(v) for k, v in counters.items()}
    if all(int(v) == 0 for v in counters.values()):
        return {k: 0 for k in counters}
    return None

