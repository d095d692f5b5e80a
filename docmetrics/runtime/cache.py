"""A persistent, content-addressed cache of backbone scores (SQLite).

Every unit a backbone scores is stored under two keys:

* the **backbone key**: a hash of the backbone's identity: its entry-point name and class, the
  fingerprint of the model's weights (:meth:`Backbone.fingerprint`), the precision, its options
  (every backbone parameter, e.g. ``scale`` or ``lang``), the versions of the libraries it
  records in signatures and the docmetrics version;
* the **unit key**: a hash of the exact :class:`~docmetrics.plugin.backbone.Unit` (``mt``, ``src``,
  ``ref`` and the three context tuples).

So a SLIDE chunk scored for one grid point of a sweep is not scored again for another, and an
interrupted run resumes where it stopped: misses are scored in chunks of ``chunk_size`` units and
each chunk is committed before the next is scored.

The cache is **off** unless enabled: ``docmetrics --cache [PATH]``, ``docmetrics sweep`` (on by
default, ``--no-cache`` turns it off), :func:`enable` / :func:`using` in Python, or the
environment variable ``DOCMETRICS_SCORE_CACHE`` (``1`` for the default file, or a path; ``0`` off).
The default file is ``scores.sqlite`` in ``$DOCMETRICS_CACHE`` (or ``~/.cache/docmetrics``).

What the key leaves out, on purpose: the model's path or hub id (the fingerprint identifies the
weights wherever they are), the device and the batch size (they change a score only by float noise;
a cache filled on a GPU serves CPU runs).  Per-unit counters (e.g. context sentences dropped) are
stored when they can be attributed to a unit (all zero, or a chunk of one unit); units whose
counters cannot be attributed are scored but not stored (counted as ``unstored``), so a rerun
reports the same counters as an uncached run.

The hook is :class:`docmetrics.runtime.scoring.CachingScorer`, which the API hands to every
metric.  Importing this module imports only the standard library.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from ..values.errors import UserError

if TYPE_CHECKING:
    from ..plugin.backbone import Backbone, BackboneOutput, Unit

ENV = "DOCMETRICS_SCORE_CACHE"
DEFAULT_CHUNK = 256
_SCHEMA = 1


def default_path() -> Path:
    from .fingerprint import cache_dir

    return cache_dir() / "scores.sqlite"


def unit_key(unit: Unit) -> str:
    """The content address of a unit (SHA-256 of its exact fields)."""
    data = [
        unit.mt,
        unit.src,
        unit.ref,
        list(unit.mt_context),
        list(unit.src_context),
        list(unit.ref_context),
    ]
    return hashlib.sha256(json.dumps(data, ensure_ascii=False).encode("utf-8")).hexdigest()


def backbone_identity(backbone: Backbone) -> dict[str, Any]:
    """What identifies a backbone's scores (see the module docstring)."""
    from ..values.versions import __version__, dist_version

    cls = type(backbone)
    return {
        "backbone": backbone.name,
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "fingerprint": backbone.fingerprint(),
        "precision": backbone.precision,
        "options": {k: repr(v) for k, v in sorted(backbone.options.items())},
        "libraries": {dist: dist_version(dist) for dist, _ in backbone.libraries},
        "docmetrics": __version__,
        "state": dict(backbone.cache_state()),
    }


def _identity_text(ident: dict[str, Any]) -> str:
    return json.dumps(ident, sort_keys=True, ensure_ascii=False)


def backbone_key(backbone: Backbone) -> str:
    """The hash of :func:`backbone_identity` (the first half of every cache key)."""
    return hashlib.sha256(_identity_text(backbone_identity(backbone)).encode("utf-8")).hexdigest()


@dataclass
class CacheStats:
    """Counts since the cache was opened (or since :meth:`ScoreCache.reset_stats`)."""

    looked_up: int = 0  # distinct units asked for
    hits: int = 0  # of those, found in the cache
    scored: int = 0  # scored by the backbone (the misses)
    stored: int = 0  # of those, written to the cache
    unstored: int = 0  # scored but not stored (counters not attributable to single units)

    def copy(self) -> CacheStats:
        return CacheStats(self.looked_up, self.hits, self.scored, self.stored, self.unstored)

    def since(self, before: CacheStats) -> CacheStats:
        return CacheStats(*(a - b for a, b in zip(self.astuple(), before.astuple())))

    def astuple(self) -> tuple[int, int, int, int, int]:
        return (self.looked_up, self.hits, self.scored, self.stored, self.unstored)

    def to_dict(self) -> dict[str, int]:
        return {
            "looked_up": self.looked_up,
            "hits": self.hits,
            "scored": self.scored,
            "stored": self.stored,
            "unstored": self.unstored,
        }

    def summary(self) -> str:
        pct = 100.0 * self.hits / self.looked_up if self.looked_up else 0.0
        text = f"{self.looked_up} distinct units, {self.hits} from cache ({pct:.1f}%), {self.scored} scored"
        if self.unstored:
            text += f" ({self.unstored} not cacheable: per-unit counters unknown)"
        return text


class ScoreCache:
    """Backbone scores in an SQLite file, keyed by backbone identity and unit content."""

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, chunk_size: int = DEFAULT_CHUNK
    ) -> None:
        self.path = Path(path) if path is not None else default_path()
        if chunk_size < 1:
            raise UserError(f"score cache: chunk size must be >= 1, not {chunk_size}")
        self.chunk_size = chunk_size
        self.stats = CacheStats()
        # backbone -> its key (computing a fingerprint can mean hashing a large file once)
        self._keys: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
            with contextlib.suppress(sqlite3.DatabaseError):
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(
                """
                CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
                CREATE TABLE IF NOT EXISTS backbones (key TEXT PRIMARY KEY, identity TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS scores (
                    backbone TEXT NOT NULL, unit TEXT NOT NULL, score TEXT NOT NULL,
                    truncated INTEGER NOT NULL,
                    counters TEXT, PRIMARY KEY (backbone, unit)) WITHOUT ROWID;
                """
            )
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(_SCHEMA),))
                self._db.commit()
            elif row[0] != str(_SCHEMA):
                raise UserError(
                    f"score cache {self.path}: written by another docmetrics (schema {row[0]}, this one "
                    f"reads {_SCHEMA}); delete the file or give another one with --cache PATH"
                )
        except sqlite3.DatabaseError as exc:
            raise UserError(
                f"score cache {self.path}: cannot be opened ({exc}); delete it or give another path "
                "with --cache PATH"
            ) from None
        except OSError as exc:
            raise UserError(f"score cache {self.path}: cannot be created ({exc.strerror})") from None

    # -- API ----------------------------------------------------------------------------------------
    def key_for(self, backbone: Backbone) -> str:
        state = json.dumps(backbone.cache_state(), sort_keys=True)
        per_state = self._keys.setdefault(backbone, {})
        key = per_state.get(state)
        if key is None:
            text = _identity_text(backbone_identity(backbone))
            key = hashlib.sha256(text.encode("utf-8")).hexdigest()
            with self._lock:
                self._db.execute("INSERT OR IGNORE INTO backbones VALUES (?, ?)", (key, text))
                self._db.commit()
            per_state[state] = key
        return key

    def score(self, backbone: Backbone, units: Sequence[Unit]) -> BackboneOutput:
        """Like ``backbone.score(units)``, answering from the cache where it can (``units`` should be
        distinct; the metric template deduplicates them)."""
        from ..values.units import BackboneOutput

        units = list(units)
        if "units-of-the-call" in backbone.cache_state().values():
            return backbone.score(units)  # the scores depend on the whole call: nothing to key them by
        bkey = self.key_for(backbone)
        ukeys = [unit_key(u) for u in units]
        found = self._lookup(bkey, ukeys)
        self.stats.looked_up += len(units)
        self.stats.hits += len(found)
        scores: list[float] = [0.0] * len(units)
        truncated: list[bool] = [False] * len(units)
        per_unit: list[dict[str, int] | None] = [None] * len(units)
        counters: dict[str, int] = {}
        for i, k in enumerate(ukeys):
            if k in found:
                scores[i], truncated[i], per_unit[i] = found[k]
                for name, v in found[k][2].items():
                    counters[name] = counters.get(name, 0) + v
        misses = [i for i, k in enumerate(ukeys) if k not in found]
        for start in range(0, len(misses), self.chunk_size):
            chunk = misses[start : start + self.chunk_size]
            out = backbone.score([units[i] for i in chunk])
            out.check(len(chunk), f"backbone '{backbone.name}'", backbone)
            for name, v in out.counters.items():
                counters[name] = counters.get(name, 0) + int(v)
            shared = _attribute(out.counters, len(chunk)) if out.unit_counters is None else None
            rows = []
            for j, i in enumerate(chunk):
                value, truncated[i] = out.scores[j], bool(out.truncated[j])
                number = not isinstance(value, (str, bytes)) and _is_float(value)
                scores[i] = float(value) if number else value  # no number: passed on, not stored
                per_unit[i] = ({k: int(v) for k, v in out.unit_counters[j].items()}
                               if out.unit_counters is not None else shared)
                if per_unit[i] is not None and number:
                    rows.append((bkey, ukeys[i], _store_float(scores[i]), int(truncated[i]),
                                 json.dumps(per_unit[i])))
            self.stats.scored += len(chunk)
            self.stats.unstored += len(chunk) - len(rows)
            if rows:
                with self._lock:
                    self._db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?, ?)", rows)
                    self._db.commit()
            self.stats.stored += len(rows)
        known = None if any(c is None for c in per_unit) else [dict(c or {}) for c in per_unit]
        return BackboneOutput(scores, truncated, counters, known)

    def count(self, backbone: Backbone | None = None) -> int:
        """Units stored (for one backbone, or in all)."""
        if backbone is None:
            return int(self._db.execute("SELECT COUNT(*) FROM scores").fetchone()[0])
        return int(
            self._db.execute(
                "SELECT COUNT(*) FROM scores WHERE backbone=?", (self.key_for(backbone),)
            ).fetchone()[0]
        )

    def reset_stats(self) -> None:
        self.stats = CacheStats()

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.close()

    # -- internals ----------------------------------------------------------------------------------
    def _lookup(self, bkey: str, ukeys: list[str]) -> dict[str, tuple[float, bool, dict[str, int]]]:
        found: dict[str, tuple[float, bool, dict[str, int]]] = {}
        wanted = list(dict.fromkeys(ukeys))
        step = 500  # stay below SQLite's limit on bound parameters
        for start in range(0, len(wanted), step):
            part = wanted[start : start + step]
            marks = ",".join("?" * len(part))
            for unit, score, trunc, counters in self._db.execute(
                f"SELECT unit, score, truncated, counters FROM scores WHERE backbone=? AND unit IN ({marks})",
                [bkey, *part],
            ):
                found[unit] = (float.fromhex(score), bool(trunc), json.loads(counters) if counters else {})
        return found


def _is_float(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _store_float(x: float) -> str:
    """Exact text of a float (SQLite's REAL turns -0.0 into 0.0 and NaN into NULL)."""
    return float(x).hex()


def _attribute(counters: dict[str, int], n: int) -> dict[str, int] | None:
    """Per-unit counters for a chunk of ``n`` units, or None where they cannot be known."""
    if not counters:
        return {}
    if n == 1:
        return {k: int(v) for k, v in counters.items()}
    if all(int(v) == 0 for v in counters.values()):
        return {k: 0 for k in counters}
    return None


# -- the process-wide active cache ---------------------------------------------------------------------
_ACTIVE: ScoreCache | None = None
_FROM_ENV: tuple[str, ScoreCache] | None = None


def enable(path: str | os.PathLike[str] | None = None, *, chunk_size: int = DEFAULT_CHUNK) -> ScoreCache:
    """Make a cache at ``path`` (default: :func:`default_path`) the active one for this process."""
    global _ACTIVE
    disable()
    _ACTIVE = ScoreCache(path, chunk_size=chunk_size)
    return _ACTIVE


def disable() -> None:
    global _ACTIVE
    if _ACTIVE is not None:
        _ACTIVE.close()
    _ACTIVE = None


@contextlib.contextmanager
def using(
    path: str | os.PathLike[str] | None = None, *, chunk_size: int = DEFAULT_CHUNK
) -> Iterator[ScoreCache]:
    """Enable a cache for the duration of a ``with`` block (the previous state is restored)."""
    global _ACTIVE
    previous = _ACTIVE
    _ACTIVE = ScoreCache(path, chunk_size=chunk_size)
    try:
        yield _ACTIVE
    finally:
        _ACTIVE.close()
        _ACTIVE = previous


def active_cache() -> ScoreCache | None:
    """The cache a :class:`~docmetrics.runtime.scoring.CachingScorer` uses when none is passed to
    it: the enabled one, else the one named by ``$DOCMETRICS_SCORE_CACHE``, else None (no cache)."""
    global _FROM_ENV
    if _ACTIVE is not None:
        return _ACTIVE
    value = os.environ.get(ENV, "").strip()
    if not value or value.lower() in ("0", "no", "off", "false"):
        return None
    path = str(default_path()) if value.lower() in ("1", "yes", "on", "true") else value
    if _FROM_ENV is None or _FROM_ENV[0] != path:
        _FROM_ENV = (path, ScoreCache(path))
    return _FROM_ENV[1]
