"""The score cache seen from a run: :class:`ScoreCache` looks units up and stores chunks of scored units
under their keys, counting both (:class:`CacheStats`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ...values.units import UnitRecord
from ..engines import DEFAULT_CHUNK
from .file import CacheError, CacheFile, cache_warning, default_path
from .keys import backbone_identity, identity_text, unit_key
from .rows import checksum, record_of, row_of

if TYPE_CHECKING:
    from ...plugin.backbone import Backbone, BackboneOutput, Unit


@dataclasses.dataclass
class CacheStats:
    """Counts since the cache was opened."""

    looked_up: int = 0  # distinct units asked for
    hits: int = 0  # of those, found in the cache
    scored: int = 0  # scored by the backbone (the misses)
    stored: int = 0  # of those, written to the cache
    unstored: int = 0  # scored but not stored (counters not attributable to single units)

    def copy(self) -> CacheStats:
        return dataclasses.replace(self)

    def since(self, before: CacheStats) -> CacheStats:
        return CacheStats(*(a - b for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(before))))

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)

    def summary(self) -> str:
        pct = 100.0 * self.hits / self.looked_up if self.looked_up else 0.0
        text = f"{self.looked_up} distinct units, {self.hits} from cache ({pct:.1f}%), {self.scored} scored"
        if self.unstored:
            text += f" ({self.unstored} not cacheable: per-unit counters unknown)"
        return text


class ScoreCache(CacheFile):
    """Backbone scores in an SQLite file, keyed by backbone identity and unit content.

    Opening checks the file (see the package docstring): a file that is not a cache, or one of another
    format version, is refused (:class:`UserError`); a damaged cache is set aside and a new one
    started; a read-only one is used read-only.
    """

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, chunk_size: int = DEFAULT_CHUNK
    ) -> None:
        where = Path(path) if path is not None else default_path()
        if chunk_size < 1:
            raise CacheError(f"score cache: chunk size must be >= 1, not {chunk_size}")
        self.chunk_size = chunk_size
        self.stats = CacheStats()
        self._tampered: set[tuple[str, str]] = set()
        # backbone -> its key (computing a fingerprint can mean hashing a large file once)
        self._keys: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()
        super().__init__(where)

    # -- API ----------------------------------------------------------------------------------------
    @property
    def tampered(self) -> int:
        """Rows ignored so far because their checksum does not match their content."""
        return len(self._tampered)

    def key_for(self, backbone: Backbone) -> str:
        """The first half of every key of ``backbone``'s scores: the hash of its identity
        (:func:`~.keys.backbone_identity`), recorded in the file with it."""
        state = json.dumps(backbone.cache_state(), sort_keys=True)
        per_state = self._keys.setdefault(backbone, {})
        key = per_state.get(state)
        if key is None:
            text = identity_text(backbone_identity(backbone))
            key = hashlib.sha256(text.encode("utf-8")).hexdigest()
            if not self.read_only:
                try:
                    self.write("INSERT OR IGNORE INTO backbones VALUES (?, ?)", [(key, text)])
                except (sqlite3.DatabaseError, OSError) as exc:
                    self.write_failed(exc, "recording a backbone")
            per_state[state] = key
        return key

    def keyable(self, backbone: Backbone) -> bool:
        """Whether ``backbone``'s scores can be stored (not when they depend on the whole call)."""
        return "units-of-the-call" not in backbone.cache_state().values()

    def lookup(self, backbone: Backbone, units: Sequence[Unit]) -> dict[int, UnitRecord]:
        """The stored record of the units found, by their index in ``units`` (counted in :attr:`stats`:
        looked_up, hits).  A tampered row is a miss."""
        units = list(units)
        ukeys = [unit_key(u) for u in units]
        found = self._lookup(self.key_for(backbone), ukeys)
        hits = {i: found[k] for i, k in enumerate(ukeys) if k in found}
        self.stats.looked_up += len(units)
        self.stats.hits += len(hits)
        return hits

    def store(self, backbone: Backbone, units: Sequence[Unit], output: BackboneOutput) -> int:
        """Store a chunk of scored units in one transaction (all of it or, on a failure, none): the
        output's record of each unit (:meth:`BackboneOutput.records`), in the order of ``units``.
        A unit whose per-unit counters are None (unknown) or whose score is no number is not stored.
        Counted in :attr:`stats` (scored, stored, unstored); the number stored (0 when read-only).
        A full disk or a damaged file raises :class:`UserError` saying how to resume."""
        units = list(units)
        bkey = self.key_for(backbone)
        rows = [row for row in (row_of(bkey, unit, record) for unit, record in zip(units, output.records()))
                if row is not None]
        self.stats.scored += len(units)
        self.stats.unstored += len(units) - len(rows)
        stored = self._store_rows(rows) if rows else 0
        self.stats.stored += stored
        return stored

    def count(self, backbone: Backbone | None = None) -> int:
        """Units stored (for one backbone, or in all)."""
        where, args = ("", ()) if backbone is None else (" WHERE backbone=?", (self.key_for(backbone),))
        try:
            return int(self.connection().execute("SELECT COUNT(*) FROM scores" + where, args).fetchone()[0])
        except (sqlite3.DatabaseError, OSError) as exc:
            raise self.failure(exc, "counting stored scores") from None

    def __enter__(self) -> ScoreCache:
        """Open for the duration of a ``with`` block (give it to a :class:`~docmetrics.runtime.session.Session`
        or :func:`docmetrics.load` to use it), closed at its end."""
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file; warn once if tampered rows were ignored."""
        if self._tampered and self.is_open:  # (closed once: a second close says nothing)
            again = "scored again" if self.read_only else "scored again and stored afresh"
            cache_warning(f"{len(self._tampered)} tampered row(s) in score cache {self.path} ignored: their "
                          f"checksums do not match their content (the units were {again})")
        self.close_file()

    def _store_rows(self, rows: list[tuple[Any, ...]]) -> int:
        """Store rows (backbone, unit, score, truncated, counters, detail) whole: the number stored."""
        if self.read_only:
            return 0
        try:
            self.write("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [(*row[:5], checksum(*row), row[5]) for row in rows])
        except (sqlite3.DatabaseError, OSError) as exc:
            self.write_failed(exc, f"storing {len(rows)} score(s)")
            return 0
        return len(rows)

    def _lookup(self, bkey: str, ukeys: list[str]) -> dict[str, UnitRecord]:
        found: dict[str, UnitRecord] = {}
        wanted = list(dict.fromkeys(ukeys))
        step = 500  # stay below SQLite's limit on bound parameters
        db = self.connection()
        try:
            for start in range(0, len(wanted), step):
                part = wanted[start : start + step]
                marks = ",".join("?" * len(part))
                for unit, score, trunc, counters, check, detail in db.execute(
                    "SELECT unit, score, truncated, counters, checksum, detail FROM scores "
                    f"WHERE backbone=? AND unit IN ({marks})",
                    [bkey, *part],
                ).fetchall():
                    value = record_of(bkey, unit, score, trunc, counters, check, detail)
                    if value is None:
                        self._tampered.add((bkey, str(unit)))  # a miss: scored again (and stored afresh)
                    else:
                        found[unit] = value
        except (sqlite3.DatabaseError, OSError) as exc:
            raise self.failure(exc, "reading stored scores") from None
        return found

