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
each chunk is committed (one transaction) before the next is scored, so a crash or a full disk
leaves whole chunks.

The cache is **off** unless asked for: ``docmetrics --cache [PATH]``, ``docmetrics sweep`` (on by
default, ``--no-cache`` turns it off), ``Session(cache=PATH)`` or ``docmetrics.load(..., cache=)`` in
Python, or the environment variable ``DOCMETRICS_SCORE_CACHE`` (``1`` for the default file, or a path;
``0`` off), read once when a :class:`~docmetrics.runtime.session.Session` is made.
The default file is ``scores.sqlite`` in ``$DOCMETRICS_CACHE`` (or ``~/.cache/docmetrics``).

What the key leaves out, on purpose: the model's path or hub id (the fingerprint identifies the
weights wherever they are), the device and the batch size (they change a score only by float noise;
a cache filled on a GPU serves CPU runs).  Per-unit counters (e.g. context sentences dropped) are
stored when they can be attributed to a unit (all zero, or a chunk of one unit); units whose
counters cannot be attributed are scored but not stored (counted as ``unstored``), so a rerun
reports the same counters as an uncached run.

**A cache that survives damage** (every failure below is a :class:`~docmetrics.values.errors.UserError`
naming the file: exit status 2 on the command line, never a traceback; notices are
:class:`~docmetrics.values.errors.DocMetricsWarning`):

* *Not a cache* (not an SQLite file, or an SQLite file whose tables are not exactly this cache's,
  e.g. another program's ``scores`` table): refused, and never renamed or modified.
* *Another format version* (a newer docmetrics, or an unknown one): refused, left as it is.  The format
  of docmetrics 0.2.0 (format 1, rows without a checksum) is upgraded in place, once, in one
  transaction: each row gets the checksum of its content as stored; then format 2 (docmetrics 0.3.0)
  gets the ``detail`` column (a unit's error spans and answer, JSON; NULL where there are none, so no
  checksum changes).
* *Damaged* (SQLite reports a malformed file): checked on opening with ``PRAGMA quick_check`` when
  the file is at most :data:`QUICK_CHECK_MAX_BYTES` (256 MiB, about a million units; a fraction of a
  second), and by SQLite's own page checks on every read.  A damaged cache found on opening is set
  aside (renamed ``FILE.damaged-N``, with its ``-wal``/``-shm`` files) and a new, empty one started in
  its place, with a warning; found during a run, it is set aside the same way and the run stops
  (run it again to start afresh).  A damaged file that cannot be recognised as a cache (its schema is
  unreadable), or that is read-only here, is refused and left in place.
* *A full disk* (or any write failure): the chunk being written is rolled back, the run stops, and
  the message says how to resume: run the same command with the same cache; what was stored is reused.
* *Read-only* (the file or its directory not writable): used read-only with a warning; stored scores
  are used, new ones are not stored.
* *Tampered rows*: every row carries a checksum of its keys and value; a row whose checksum does not
  match is ignored (a miss: scored again, and stored afresh), and :meth:`ScoreCache.close` warns
  once: "N tampered rows in score cache FILE ignored".  The checksum catches damage and hand edits,
  not a forger who recomputes it.

The hook is :class:`docmetrics.runtime.scoring.CachingScorer`, which the API hands to every
metric.  Importing this module imports only the standard library.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import sqlite3
import threading
import warnings
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence
from urllib.parse import quote

from ..values.errors import DocMetricsWarning, UserError
from ..values.units import UnitRecord
from .engines import DEFAULT_CHUNK  # one chunk scored by an engine, one transaction here

if TYPE_CHECKING:
    from ..plugin.backbone import Backbone, BackboneOutput, Unit

ENV = "DOCMETRICS_SCORE_CACHE"
#: The format this docmetrics writes (``meta`` row ``schema``): 3 = one record per unit (score, flag,
#: counters and the detail: error spans, an answer), with a checksum.
_SCHEMA = 3
#: Older formats upgraded in place on opening (format 1: docmetrics 0.2.0, rows without a checksum;
#: format 2: docmetrics 0.3.0, rows without a detail).
_UPGRADES = {"1": "docmetrics 0.2.0", "2": "docmetrics 0.3.0"}
_FORMAT = "docmetrics score cache"
#: Files up to this size are checked whole (``PRAGMA quick_check``) when opened; larger ones only
#: as they are read (SQLite's page checks and each row's checksum).
QUICK_CHECK_MAX_BYTES = 256 * 2**20
_MAGIC = b"SQLite format 3\x00"
#: The tables (and their columns, in order) of a cache; anything else is another program's file.
_TABLES = {
    "meta": ("key", "value"),
    "backbones": ("key", "identity"),
    "scores": ("backbone", "unit", "score", "truncated", "counters", "checksum", "detail"),
}
_TABLES_V2 = {**_TABLES, "scores": _TABLES["scores"][:-1]}
_TABLES_V1 = {**_TABLES, "scores": _TABLES["scores"][:-2]}
_DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE backbones (key TEXT PRIMARY KEY, identity TEXT NOT NULL);
CREATE TABLE scores (
    backbone TEXT NOT NULL, unit TEXT NOT NULL, score TEXT NOT NULL, truncated INTEGER NOT NULL,
    counters TEXT, checksum TEXT NOT NULL, detail TEXT, PRIMARY KEY (backbone, unit)) WITHOUT ROWID;
"""
_RESUME = "run the same command again with the same cache: the scores stored so far are reused"


def default_path() -> Path:
    from ..plugin.models import cache_dir

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
        "options": {k: repr(v) for k, v in sorted(backbone.p.items())},
        "libraries": {dist: dist_version(dist) for dist, _ in backbone.libraries},
        "docmetrics": __version__,
        "state": dict(backbone.cache_state()),
    }


def _identity_text(ident: dict[str, Any]) -> str:
    return json.dumps(ident, sort_keys=True, ensure_ascii=False)


def backbone_key(backbone: Backbone) -> str:
    """The hash of :func:`backbone_identity` (the first half of every cache key)."""
    return hashlib.sha256(_identity_text(backbone_identity(backbone)).encode("utf-8")).hexdigest()


class CacheError(UserError):
    """A score cache that cannot be used, or a failure while using it; its message names the cache
    parameter as ``cache=PATH`` (the command line writes ``--cache PATH``)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args, params=("cache",))


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


class _Damaged(Exception):
    """SQLite reports the file malformed (the message says where)."""


class ScoreCache:
    """Backbone scores in an SQLite file, keyed by backbone identity and unit content.

    Opening checks the file (see the module docstring): a file that is not a cache, or one of another
    format version, is refused (:class:`UserError`); a damaged cache is set aside and a new one
    started; a read-only one is used read-only.
    """

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, chunk_size: int = DEFAULT_CHUNK
    ) -> None:
        self.path = Path(path) if path is not None else default_path()
        if chunk_size < 1:
            raise CacheError(f"score cache: chunk size must be >= 1, not {chunk_size}")
        self.chunk_size = chunk_size
        self.stats = CacheStats()
        #: The file or its directory is not writable: stored scores are used, new ones are not stored.
        self.read_only = False
        #: Where a damaged cache was moved to (``FILE.damaged-N``), or None.
        self.set_aside: Path | None = None
        self._tampered: set[tuple[str, str]] = set()
        self._reported = False
        # backbone -> its key (computing a fingerprint can mean hashing a large file once)
        self._keys: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._why_closed = ""
        self._open()

    # -- API ----------------------------------------------------------------------------------------
    @property
    def tampered(self) -> int:
        """Rows ignored so far because their checksum does not match their content."""
        return len(self._tampered)

    def key_for(self, backbone: Backbone) -> str:
        state = json.dumps(backbone.cache_state(), sort_keys=True)
        per_state = self._keys.setdefault(backbone, {})
        key = per_state.get(state)
        if key is None:
            text = _identity_text(backbone_identity(backbone))
            key = hashlib.sha256(text.encode("utf-8")).hexdigest()
            if not self.read_only:
                try:
                    self._write("INSERT OR IGNORE INTO backbones VALUES (?, ?)", [(key, text)])
                except (sqlite3.DatabaseError, OSError) as exc:
                    self._write_failed(exc, "recording a backbone")
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
        rows = []
        for unit, record in zip(units, output.records()):
            value = record.score
            if record.counters is not None and not isinstance(value, (str, bytes)) and _is_float(value):
                detail = record.detail
                rows.append((bkey, unit_key(unit), _store_float(float(value)), int(bool(record.truncated)),
                             json.dumps({k: int(v) for k, v in record.counters.items()}),
                             None if detail is None else json.dumps(detail, ensure_ascii=False)))
        self.stats.scored += len(units)
        self.stats.unstored += len(units) - len(rows)
        stored = self._store_rows(rows) if rows else 0
        self.stats.stored += stored
        return stored

    def count(self, backbone: Backbone | None = None) -> int:
        """Units stored (for one backbone, or in all)."""
        where, args = ("", ()) if backbone is None else (" WHERE backbone=?", (self.key_for(backbone),))
        try:
            return int(self._conn().execute("SELECT COUNT(*) FROM scores" + where, args).fetchone()[0])
        except sqlite3.ProgrammingError:
            raise
        except (sqlite3.DatabaseError, OSError) as exc:
            raise self._failure(exc, "counting stored scores") from None

    def reset_stats(self) -> None:
        self.stats = CacheStats()

    def close(self) -> None:
        """Close the file; warn once if tampered rows were ignored."""
        if self._tampered and not self._reported and self._db is not None:
            self._reported = True
            again = "scored again" if self.read_only else "scored again and stored afresh"
            _warn(f"{len(self._tampered)} tampered row(s) in score cache {self.path} ignored: their "
                  f"checksums do not match their content (the units were {again})")
        self._close_db()
        self._why_closed = self._why_closed or "closed"

    # -- opening ------------------------------------------------------------------------------------
    def _open(self) -> None:
        path, exists = self.path, False
        try:
            if path.is_dir():
                raise CacheError(f"score cache {path}: is a directory; give a file with cache=PATH")
            exists = path.exists()
            if exists:
                with open(path, "rb") as f:
                    head = f.read(len(_MAGIC))
                if head and head != _MAGIC:  # (an empty file is an empty database to SQLite)
                    raise CacheError(self._not_a_cache("it is not an SQLite file"))
                # Asked of os.access (what this user may do), not learnt from a failed write.  As
                # root, os.access allows writing a 0444 file, as the kernel does.
                self.read_only = not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                if not os.access(path.parent, os.W_OK):
                    raise CacheError(f"score cache {path}: cannot be created (directory {path.parent} is "
                                    "not writable); give another path with cache=PATH")
        except OSError as exc:
            raise CacheError(f"score cache {path}: cannot be {'read' if exists else 'created'} "
                            f"({exc.strerror or exc}); give another path with cache=PATH") from None
        try:
            try:
                self._db = self._connect()
                self._inspect()
            except _Damaged as exc:
                self._recover(str(exc))
        except (sqlite3.DatabaseError, OSError) as exc:
            if isinstance(exc, sqlite3.ProgrammingError):
                raise
            failure = self._failure(exc, "opening it" if exists else "creating it")
            self._close_db()
            raise failure from None
        except BaseException:
            self._close_db()  # (a refused file: nothing kept open)
            raise
        if self.read_only:
            _warn(f"score cache {self.path} is read-only: stored scores are used, new ones are not stored")

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE ... COMMIT in _write)
        if not self.read_only:
            return sqlite3.connect(str(self.path), timeout=60, check_same_thread=False, isolation_level=None)
        uri = "file:" + quote(str(self.path.resolve())) + "?mode=ro"
        if not os.access(self.path.parent, os.W_OK):
            # in a read-only directory SQLite cannot create the -wal/-shm files a WAL database is
            # read through: read the file as it is, without locks
            uri += "&immutable=1"
        return sqlite3.connect(uri, uri=True, timeout=60, check_same_thread=False, isolation_level=None)

    def _inspect(self) -> None:
        """Check what the file is; create the tables of a new cache; upgrade an old format."""
        db = self._conn()
        try:
            names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")
                     if not r[0].startswith("sqlite_")]  # (SQLite's own, e.g. sqlite_stat1)
        except sqlite3.DatabaseError as exc:
            if _kind(exc) != "corrupt":
                raise
            raise CacheError(
                f"score cache {self.path}: damaged beyond recognition ({exc}): it cannot be told from "
                "another program's database, so it was left as it is; if it is a score cache, delete it "
                "or move it aside, or give another path with cache=PATH"
            ) from None
        if not names:
            if self.read_only:
                raise CacheError(f"score cache {self.path}: an empty database, and read-only: nothing to "
                                "reuse and nothing can be stored; give another path with cache=PATH")
            if not self._create():
                self._inspect()  # another process created it meanwhile: check what it wrote
            return
        tables = {n: tuple(r[0] for r in db.execute("SELECT name FROM pragma_table_info(?)", (n,)))
                  for n in names}
        layouts = {"1": _TABLES_V1, "2": _TABLES_V2, str(_SCHEMA): _TABLES}
        if tables not in layouts.values():
            what = (f"its table 'scores' has the columns ({', '.join(tables['scores'])})" if "scores" in tables
                    else f"its tables are {', '.join(sorted(tables))}")
            raise CacheError(self._not_a_cache(what))
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            if _kind(exc) == "corrupt":
                raise _Damaged(str(exc)) from None
            raise
        layout = next(f for f, t in layouts.items() if t == tables)
        old = layout in _UPGRADES
        schema = meta.get("schema", "1" if layout == "1" else None)  # 0.2.0 wrote that row after the tables
        if schema != layout:
            newer = str(schema).isdigit() and int(str(schema)) > _SCHEMA
            raise CacheError(
                f"score cache {self.path}: written by {'a newer' if newer else 'another'} docmetrics (cache "
                f"format {schema or 'unknown'}; this one reads format {_SCHEMA} and upgrades format "
                f"{', '.join(_UPGRADES)}); it was left as it is: use that docmetrics, or give another path "
                "with cache=PATH"
            )
        self._check_pages(whole=old)
        if old:
            self._upgrade(layout)

    def _not_a_cache(self, why: str) -> str:
        return (f"score cache {self.path}: not a docmetrics score cache ({why}); it was left untouched: "
                "give another path with cache=PATH")

    def _check_pages(self, whole: bool = False) -> None:
        """``PRAGMA quick_check`` on files up to QUICK_CHECK_MAX_BYTES (or ``whole``)."""
        try:
            size = self.path.stat().st_size
        except OSError:
            size = 0
        if size > QUICK_CHECK_MAX_BYTES and not whole:
            return
        try:
            rows = self._conn().execute("PRAGMA quick_check(1)").fetchall()
        except sqlite3.DatabaseError as exc:
            if _kind(exc) == "corrupt":
                raise _Damaged(str(exc)) from None
            raise
        if rows != [("ok",)]:
            lines = str(rows[0][0]).splitlines() if rows else ["quick_check gave no answer"]
            raise _Damaged("; ".join(x for x in lines if not x.startswith("*** in database")))

    def _create(self) -> bool:
        """The tables of a new cache (False: another process created them first)."""
        from ..values.versions import __version__

        db = self._conn()
        with contextlib.suppress(sqlite3.DatabaseError):
            db.execute("PRAGMA journal_mode=WAL")  # readers are not blocked by a writer
        with self._transaction():
            if db.execute("SELECT 1 FROM sqlite_master WHERE type='table'").fetchone():
                return False
            for statement in _DDL.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("schema", str(_SCHEMA)), ("format", _FORMAT), ("created_by", f"docmetrics {__version__}")])
        return True

    def _upgrade(self, old: str) -> None:
        """An older format to this one, in one transaction: format 1 (docmetrics 0.2.0) gets a checksum for
        every row, then format 2 (0.3.0) the ``detail`` column (NULL: a row without spans or an answer,
        whose checksum stays what it was)."""
        if self.read_only:
            raise CacheError(
                f"score cache {self.path}: in the format of {_UPGRADES[old]} (format {old}) and read-only "
                f"here, so it cannot be upgraded to format {_SCHEMA}: make it writable for one run (it is "
                "upgraded in place), or give another path with cache=PATH"
            )
        db = self._conn()
        db.create_function("docmetrics_checksum", 5, _checksum, deterministic=True)
        with self._transaction():
            columns = {r[0] for r in db.execute("SELECT name FROM pragma_table_info('scores')")}
            if "detail" in columns:
                return  # another process upgraded it meanwhile
            if "checksum" not in columns:
                db.execute("ALTER TABLE scores ADD COLUMN checksum TEXT")
                db.execute("UPDATE scores SET checksum = docmetrics_checksum(backbone, unit, score, truncated, "
                           "counters)")
            db.execute("ALTER TABLE scores ADD COLUMN detail TEXT")
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                           [("schema", str(_SCHEMA)), ("format", _FORMAT)])
        n = db.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
        what = "each now with a checksum and room for error spans" if old == "1" else "now with room for error spans"
        _warn(f"score cache {self.path}: upgraded from the format of {_UPGRADES[old]} (format {old}) to "
              f"format {_SCHEMA}: {n} stored score(s), {what}")

    def _recover(self, reason: str) -> None:
        """A damaged cache found on opening: set it aside and start a new one (or refuse)."""
        if self.read_only:
            raise CacheError(f"score cache {self.path}: damaged ({reason}); it is read-only here, so it was "
                            "left in place: delete it, or give another path with cache=PATH")
        moved = self._set_aside(reason)
        _warn(f"score cache {self.path}: damaged ({reason}): moved aside to {moved} and a new, empty cache "
              f"started in its place (its scores are computed again; delete {moved.name} when you no "
              "longer need it)")
        self._db = self._connect()
        try:
            if not self._create():
                self._inspect()
        except sqlite3.ProgrammingError:
            raise
        except (sqlite3.DatabaseError, OSError) as exc:
            raise self._failure(exc, "creating a new cache") from None

    def _set_aside(self, reason: str) -> Path:
        """Rename the file (and its -wal, -shm, -journal files) to ``FILE.damaged-N``."""
        self._close_db()
        n = 1
        while any(Path(f"{self.path}.damaged-{n}{s}").exists() for s in ("", "-wal", "-shm", "-journal")):
            n += 1
        target = Path(f"{self.path}.damaged-{n}")
        try:
            # the log files first: a new cache at this path must not inherit them
            for suffix in ("-wal", "-shm", "-journal", ""):
                if Path(f"{self.path}{suffix}").exists():
                    os.replace(f"{self.path}{suffix}", f"{target}{suffix}")
        except OSError as exc:
            raise CacheError(
                f"score cache {self.path}: damaged ({reason}), and it cannot be moved aside "
                f"({exc.strerror or exc}): delete it (with its -wal and -shm files), or give another path "
                "with cache=PATH"
            ) from None
        self.set_aside = target
        return target

    # -- reading and writing --------------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise CacheError(f"score cache {self.path}: {self._why_closed or 'closed'}; open it again")
        return self._db

    def _close_db(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
        self._db = None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction: everything in the block is stored, or nothing (rolled back)."""
        db = self._conn()
        with self._lock:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise

    def _write(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        with self._transaction() as db:
            db.executemany(sql, rows)

    def _store_rows(self, rows: list[tuple[Any, ...]]) -> int:
        """Store rows (backbone, unit, score, truncated, counters, detail) whole: the number stored."""
        if self.read_only:
            return 0
        try:
            self._write("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [(*row[:5], _checksum(*row), row[5]) for row in rows])
        except (sqlite3.DatabaseError, OSError) as exc:
            self._write_failed(exc, f"storing {len(rows)} score(s)")
            return 0
        return len(rows)

    def _write_failed(self, exc: BaseException, doing: str) -> None:
        """A write that failed: go on read-only where the file turned out so; else raise."""
        if isinstance(exc, sqlite3.ProgrammingError):
            raise exc
        if _kind(exc) != "readonly":
            raise self._failure(exc, doing) from None
        self.read_only = True
        _warn(f"score cache {self.path} is read-only ({_detail(exc)}): stored scores are used, new ones "
              "are not stored")

    def _failure(self, exc: BaseException, doing: str) -> UserError:
        """The one message for a failure of the file (the caller raises it)."""
        kind, where = _kind(exc), f"score cache {self.path}"
        if kind == "full":
            return CacheError(
                f"{where}: the disk is full ({_detail(exc)}) while {doing}; the scores stored before are "
                f"kept (each chunk is stored whole or not at all). Free "
                f"some space, then {_RESUME}"
            )
        if kind == "corrupt":
            if self.read_only:
                return CacheError(f"{where}: damaged ({_detail(exc)}), found while {doing}; it is read-only "
                                 "here, so it was left in place: delete it, or give another path with cache=PATH")
            try:
                moved = self._set_aside(_detail(exc))
            except UserError as refused:
                return refused
            self._why_closed = f"damaged, and moved aside to {moved}"
            return CacheError(f"{where}: damaged ({_detail(exc)}), found while {doing}: moved aside to {moved}; "
                             "run the same command again to start a new cache (its scores are computed again)")
        if kind == "locked":
            return CacheError(f"{where}: locked by another process for over 60 s while {doing}; run again "
                             "when that process has finished, or give another path with cache=PATH")
        return CacheError(f"{where}: failed while {doing} ({_detail(exc)}); the scores stored before are kept. "
                         f"Check the disk, then {_RESUME}")

    def _lookup(self, bkey: str, ukeys: list[str]) -> dict[str, UnitRecord]:
        found: dict[str, UnitRecord] = {}
        wanted = list(dict.fromkeys(ukeys))
        step = 500  # stay below SQLite's limit on bound parameters
        db = self._conn()
        try:
            for start in range(0, len(wanted), step):
                part = wanted[start : start + step]
                marks = ",".join("?" * len(part))
                for unit, score, trunc, counters, check, detail in db.execute(
                    "SELECT unit, score, truncated, counters, checksum, detail FROM scores "
                    f"WHERE backbone=? AND unit IN ({marks})",
                    [bkey, *part],
                ).fetchall():
                    value = _row_value(bkey, unit, score, trunc, counters, check, detail)
                    if value is None:
                        self._tampered.add((bkey, str(unit)))  # a miss: scored again (and stored afresh)
                    else:
                        found[unit] = value
        except sqlite3.ProgrammingError:
            raise
        except (sqlite3.DatabaseError, OSError) as exc:
            raise self._failure(exc, "reading stored scores") from None
        return found


def _kind(exc: BaseException) -> str:
    """What a failure of the file is: full, corrupt, readonly, locked or io."""
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
            return "full"
        return "readonly" if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM) else "io"
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+; else the message
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc).lower()
    if primary == 13 or "disk is full" in text:  # SQLITE_FULL
        return "full"
    if primary in (11, 26) or "malformed" in text or "not a database" in text:  # SQLITE_CORRUPT, NOTADB
        return "corrupt"
    if primary == 8 or "readonly" in text:  # SQLITE_READONLY
        return "readonly"
    if primary in (5, 6) or "locked" in text:  # SQLITE_BUSY, SQLITE_LOCKED
        return "locked"
    return "io"


def _detail(exc: BaseException) -> str:
    return (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)


def _checksum(backbone: Any, unit: Any, score: Any, truncated: Any, counters: Any, detail: Any = None) -> str:
    """The checksum of a row: its keys and its value as stored (128 bits of SHA-256); a row without a
    detail sums what format 2 summed, so upgrading to format 3 rewrites no checksum."""
    values = [backbone, unit, score, truncated, counters] + ([] if detail is None else [detail])
    text = json.dumps(values, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _row_value(bkey: str, unit: Any, score: Any, trunc: Any, counters: Any, check: Any,
               detail: Any = None) -> UnitRecord | None:
    """A row's record, or None when its checksum or content is wrong."""
    try:
        if check != _checksum(bkey, unit, score, trunc, counters, detail):
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


def _warn(text: str) -> None:
    warnings.warn(text, DocMetricsWarning, stacklevel=3)


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


# -- opening a cache ---------------------------------------------------------------------------------
@contextlib.contextmanager
def using(
    path: str | os.PathLike[str] | None = None, *, chunk_size: int = DEFAULT_CHUNK
) -> Iterator[ScoreCache]:
    """A cache opened for the duration of a ``with`` block and closed at its end (give it to a
    :class:`~docmetrics.runtime.session.Session` or :func:`docmetrics.load` to use it)."""
    store = ScoreCache(path, chunk_size=chunk_size)
    try:
        yield store
    finally:
        store.close()


def from_environment(environ: Mapping[str, str]) -> ScoreCache | None:
    """The cache ``$DOCMETRICS_SCORE_CACHE`` names in ``environ`` (``1``/``yes``/``on``/``true``: the
    default file; a path: that file; unset, empty or ``0``: none), opened now.  A
    :class:`~docmetrics.runtime.session.Session` reads it once, when it is made."""
    value = environ.get(ENV, "").strip()
    if not value or value.lower() in ("0", "no", "off", "false"):
        return None
    return ScoreCache(default_path() if value.lower() in ("1", "yes", "on", "true") else value)
