"""The score cache's SQLite file: its format (tables, version, upgrades in place), opening and checking it,
a damaged file set aside, transactions, and the one message for each failure of the file (see the package
docstring for what each failure does)."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import threading
import warnings
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote

from ...values.errors import DocMetricsWarning, UserError
from .rows import checksum

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
    """``scores.sqlite`` in docmetrics' cache directory (``$DOCMETRICS_CACHE``, else ``~/.cache/docmetrics``)."""
    from ...plugin.models import cache_dir

    return cache_dir() / "scores.sqlite"


class CacheError(UserError):
    """A score cache that cannot be used, or a failure while using it; its message names the cache
    parameter as ``cache=PATH`` (the command line writes ``--cache PATH``)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args, params=("cache",))


class _Damaged(Exception):
    """SQLite reports the file malformed (the message says where)."""


class CacheFile:
    """An open score-cache file.  Opening checks it (see the package docstring): a file that is not a
    cache, or one of another format version, is refused (:class:`CacheError`); a damaged cache is set
    aside and a new one started; a read-only one is used read-only."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: The file or its directory is not writable: stored scores are used, new ones are not stored.
        self.read_only = False
        #: Where a damaged cache was moved to (``FILE.damaged-N``), or None.
        self.set_aside: Path | None = None
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._why_closed = ""
        self._open()

    @property
    def is_open(self) -> bool:
        return self._db is not None

    def close_file(self) -> None:
        """Close the file (idempotent); using it afterwards is a CacheError saying so."""
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
            failure = self.failure(exc, "opening it" if exists else "creating it")
            self._close_db()
            raise failure from None
        except BaseException:
            self._close_db()  # (a refused file: nothing kept open)
            raise
        if self.read_only:
            cache_warning(f"score cache {self.path} is read-only: stored scores are used, new ones are not stored")

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE ... COMMIT in write)
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
        db = self.connection()
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
            rows = self.connection().execute("PRAGMA quick_check(1)").fetchall()
        except sqlite3.DatabaseError as exc:
            if _kind(exc) == "corrupt":
                raise _Damaged(str(exc)) from None
            raise
        if rows != [("ok",)]:
            lines = str(rows[0][0]).splitlines() if rows else ["quick_check gave no answer"]
            raise _Damaged("; ".join(x for x in lines if not x.startswith("*** in database")))

    def _create(self) -> bool:
        """The tables of a new cache (False: another process created them first)."""
        from ...values.versions import __version__

        db = self.connection()
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
        db = self.connection()
        db.create_function("docmetricschecksum", 5, checksum, deterministic=True)
        with self._transaction():
            columns = {r[0] for r in db.execute("SELECT name FROM pragma_table_info('scores')")}
            if "detail" in columns:
                return  # another process upgraded it meanwhile
            if "checksum" not in columns:
                db.execute("ALTER TABLE scores ADD COLUMN checksum TEXT")
                db.execute("UPDATE scores SET checksum = docmetricschecksum(backbone, unit, score, truncated, "
                           "counters)")
            db.execute("ALTER TABLE scores ADD COLUMN detail TEXT")
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                           [("schema", str(_SCHEMA)), ("format", _FORMAT)])
        n = db.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
        what = "each now with a checksum and room for error spans" if old == "1" else "now with room for error spans"
        cache_warning(f"score cache {self.path}: upgraded from the format of {_UPGRADES[old]} (format {old}) to "
                      f"format {_SCHEMA}: {n} stored score(s), {what}")

    def _recover(self, reason: str) -> None:
        """A damaged cache found on opening: set it aside and start a new one (or refuse)."""
        if self.read_only:
            raise CacheError(f"score cache {self.path}: damaged ({reason}); it is read-only here, so it was "
                            "left in place: delete it, or give another path with cache=PATH")
        moved = self._set_aside(reason)
        cache_warning(f"score cache {self.path}: damaged ({reason}): moved aside to {moved} and a new, empty cache "
                      f"started in its place (its scores are computed again; delete {moved.name} when you no "
                      "longer need it)")
        self._db = self._connect()
        try:
            if not self._create():
                self._inspect()
        except (sqlite3.DatabaseError, OSError) as exc:
            raise self.failure(exc, "creating a new cache") from None

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
    def connection(self) -> sqlite3.Connection:
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
        db = self.connection()
        with self._lock:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise

    def write(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        with self._transaction() as db:
            db.executemany(sql, rows)

    def write_failed(self, exc: BaseException, doing: str) -> None:
        """A write that failed: go on read-only where the file turned out so; else raise."""
        if _kind(exc) != "readonly":
            raise self.failure(exc, doing) from None
        self.read_only = True
        cache_warning(f"score cache {self.path} is read-only ({_detail(exc)}): stored scores are used, new ones "
                      "are not stored")

    def failure(self, exc: BaseException, doing: str) -> UserError:
        """The one message for a failure of the file (the caller raises it); a ProgrammingError (misuse of
        the connection, not a failure of the file) is raised here as it is."""
        if isinstance(exc, sqlite3.ProgrammingError):
            raise exc
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


def cache_warning(text: str) -> None:
    """A DocMetricsWarning about the cache, attributed to the code that opened or used it (two frames up)."""
    warnings.warn(text, DocMetricsWarning, stacklevel=3)

