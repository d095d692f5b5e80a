"""The score cache survives damage: each fault (a damaged page, another program's file, another format
version, a full disk during a run, a read-only cache, a tampered row, a cache of docmetrics 0.2.0)
ends in exit status 2 with one message naming the file, or in the documented recovery; never a
traceback.  Some faults are driven through the command line (the toy backbone), some through the API."""

import errno
import hashlib
import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_fixtures import toy_dist  # noqa: F401

from docmetrics.cli import main
from docmetrics.plugin.backbone import QE, Backbone, BackboneOutput, Unit
from docmetrics.runtime import cache
from docmetrics.runtime.cache import file as cache_file
from docmetrics.runtime.session import Session
from docmetrics.values.errors import DocMetricsWarning, UserError

SRC = [f"Source sentence {i} with words" for i in range(9)]
HYP = [f"Satz {i} mit Wörtern {'x' * i}" for i in range(9)]
HYP2 = [f"Ein anderer Satz {i} {'y' * (i % 4)}" for i in range(9)]
IDS = ["d1"] * 4 + ["d2"] * 5
SPEC = "slide:w=3,s=1,backbone=toy"  # 2 + 3 = 5 chunks (units) per system

#: The tables of a cache written by docmetrics 0.2.0 (cache format 1: rows without a checksum).
V020_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS backbones (key TEXT PRIMARY KEY, identity TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scores (
    backbone TEXT NOT NULL, unit TEXT NOT NULL, score TEXT NOT NULL,
    truncated INTEGER NOT NULL,
    counters TEXT, PRIMARY KEY (backbone, unit)) WITHOUT ROWID;
"""
#: docmetrics 0.3.0's tables (format 2): rows with a checksum, without a detail
V030_DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE backbones (key TEXT PRIMARY KEY, identity TEXT NOT NULL);
CREATE TABLE scores (
    backbone TEXT NOT NULL, unit TEXT NOT NULL, score TEXT NOT NULL, truncated INTEGER NOT NULL,
    counters TEXT, checksum TEXT NOT NULL, PRIMARY KEY (backbone, unit)) WITHOUT ROWID;
"""


def scored(store, backbone, units):
    """``backbone``'s scores of ``units`` answered from ``store`` where it can: the one scorer
    (:class:`~docmetrics.runtime.session.CachingScorer`, in-process) every metric scores through."""
    return Session(cache=store).scorer().score(backbone, units)


class Recorder(Backbone):
    """Scores a unit by its length; records every call."""

    name = "recorder"
    default_model = "rec-v1"

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.calls = []

    def load(self):
        pass

    @property
    def capabilities(self):
        return frozenset({QE})

    def score(self, units):
        self.calls.append(list(units))
        return BackboneOutput([len(u.mt) / 7 + 0.5 for u in units], [len(u.mt) > 30 for u in units])

    def fingerprint(self):
        return "fp-" + str(self.model)


UNITS = [Unit(mt=f"mt {i} " + "x" * (i % 40), src=f"src {i}") for i in range(24)]


# -- helpers ---------------------------------------------------------------------------------------------
@pytest.fixture()
def files(tmp_path, monkeypatch):
    monkeypatch.delenv(cache.ENV, raising=False)

    def w(name, lines):
        p = tmp_path / name
        p.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return str(p)

    return {"src": w("src.txt", SRC), "hyp": w("hyp.txt", HYP), "hyp2": w("hyp2.txt", HYP2),
            "ids": w("ids.txt", IDS), "dir": tmp_path}


def run_cli(capsys, files, *extra, hyps=("hyp",)):
    code = main(["-m", SPEC, "-i", *(files[h] for h in hyps), "-s", files["src"], "--doc-ids", files["ids"],
                 "-f", "json", "--level", "chunk", *extra])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def filled(capsys, files, path):
    """A cache holding the 5 units of hyp.txt, written by a run of the command line."""
    code, _, err = run_cli(capsys, files, "--cache", str(path))
    assert code == 0, err
    assert not Path(f"{path}-wal").exists()  # closed: everything is in the file itself
    return path


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def peek(path, sql, args=()):
    """A query on the file without changing it (immutable: no lock, no -wal/-shm files)."""
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def edit(path, *statements):
    db = sqlite3.connect(path)
    for sql, *args in statements:
        db.execute(sql, *args)
    db.commit()
    db.close()


def damage_page(path, page=None, seed=3):
    """Random bytes over one page (the middle one unless ``page``, 1-based)."""
    data = bytearray(Path(path).read_bytes())
    size = int.from_bytes(data[16:18], "big")
    page = page or len(data) // size // 2 + 1
    rnd = random.Random(seed)
    data[(page - 1) * size : page * size] = bytes(rnd.randrange(256) for _ in range(size))
    Path(path).write_bytes(bytes(data))
    return page


def deny_writing(monkeypatch, *paths):
    """What a file (or directory) of mode 0444 (0555) is to a user who is not root.  The tests run as
    root, for whom chmod does not stop writing; the cache asks os.access, as it must for a user."""
    denied = {str(Path(p).resolve()) for p in paths}
    real = os.access

    def access(path, mode, *args, **kw):
        if mode & os.W_OK and str(Path(path).resolve()) in denied:
            return False
        return real(path, mode, *args, **kw)

    monkeypatch.setattr(os, "access", access)


def assert_one_error(err, path, *parts):
    assert "Traceback" not in err
    lines = [x for x in err.splitlines() if "error:" in x]
    assert len(lines) == 1, err
    assert str(path) in lines[0], err
    for part in parts:
        assert part in lines[0], err


# -- refused: exit 2, the file named and left exactly as it was -------------------------------------------
def not_sqlite(path, capsys, files, monkeypatch):
    path.write_text("doc\tsystem\tscore\nd1\tA\t0.5\n", encoding="utf-8")  # e.g. --cache on a data file


def foreign_scores_table(path, capsys, files, monkeypatch):
    edit(path, ("CREATE TABLE scores (id INTEGER PRIMARY KEY, system TEXT, value REAL)",),
         ("INSERT INTO scores VALUES (1, 'A', 0.5)",))


def foreign_extra_table(path, capsys, files, monkeypatch):
    filled(capsys, files, path)
    edit(path, ("CREATE TABLE notes (text TEXT)",))


def newer_format(path, capsys, files, monkeypatch):
    filled(capsys, files, path)
    edit(path, ("UPDATE meta SET value='4' WHERE key='schema'",))


def unknown_format(path, capsys, files, monkeypatch):
    filled(capsys, files, path)
    edit(path, ("UPDATE meta SET value='0' WHERE key='schema'",))


def schema_page_damaged(path, capsys, files, monkeypatch):
    filled(capsys, files, path)
    data = bytearray(path.read_bytes())
    data[100:4096] = bytes(random.Random(5).randrange(256) for _ in range(4096 - 100))  # page 1 past the header
    path.write_bytes(bytes(data))


def damaged_and_read_only(path, capsys, files, monkeypatch):
    filled(capsys, files, path)
    damage_page(path, peek(path, "SELECT rootpage FROM sqlite_master WHERE name='scores'")[0][0])
    deny_writing(monkeypatch, path)


def old_format_read_only(path, capsys, files, monkeypatch):
    write_v020(path, capsys, files, monkeypatch)
    deny_writing(monkeypatch, path)


@pytest.mark.parametrize(
    "make, parts",
    [
        (not_sqlite, ["not a docmetrics score cache", "not an SQLite file", "left untouched"]),
        (foreign_scores_table, ["not a docmetrics score cache", "'scores' has the columns (id, system, value)",
                                "left untouched"]),
        (foreign_extra_table, ["not a docmetrics score cache", "left untouched"]),
        (newer_format, ["written by a newer docmetrics", "format 4", "left as it is"]),
        (unknown_format, ["written by another docmetrics", "format 0", "left as it is"]),
        (schema_page_damaged, ["damaged beyond recognition", "left as it is", "delete it or move it aside"]),
        (damaged_and_read_only, ["damaged", "read-only here", "left in place"]),
        (old_format_read_only, ["docmetrics 0.2.0", "read-only here", "cannot be upgraded"]),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_a_file_that_cannot_be_used_is_refused_and_left_untouched(toy_dist, files, capsys, monkeypatch,
                                                                   make, parts):
    path = files["dir"] / "scores.sqlite"
    make(path, capsys, files, monkeypatch)
    before = digest(path)
    code, _, err = run_cli(capsys, files, "--cache", str(path))
    assert code == 2
    assert_one_error(err, path, *parts)
    assert digest(path) == before  # never renamed, never modified
    assert not list(files["dir"].glob("scores.sqlite.damaged*"))
    with pytest.raises(UserError, match="scores.sqlite"):  # the same through the API
        cache.ScoreCache(path)
    assert digest(path) == before


# -- recovered: the run goes on (exit 0, the right numbers) and says what happened ---------------------------
def damaged_middle_page(path, capsys, files, monkeypatch):
    filled(capsys, files, path)
    with cache.ScoreCache(path) as c:  # other rows, so that the file has pages enough to have a middle
        scored(c, Recorder(), [Unit(mt=f"filler {i}", src="s") for i in range(400)])
    assert damage_page(path) > 10


def write_v020(path, capsys, files, monkeypatch):
    """What docmetrics 0.2.0 left: its tables, schema 1, rows without a checksum."""
    new = filled(capsys, files, path.with_name("v2.sqlite"))
    db = sqlite3.connect(path)
    db.executescript(V020_DDL)
    db.execute("INSERT INTO meta VALUES ('schema', '1')")
    db.executemany("INSERT INTO backbones VALUES (?, ?)", peek(new, "SELECT key, identity FROM backbones"))
    db.executemany("INSERT INTO scores VALUES (?, ?, ?, ?, ?)",
                   peek(new, "SELECT backbone, unit, score, truncated, counters FROM scores"))
    db.commit()
    db.execute("PRAGMA journal_mode=WAL")
    db.close()


def write_v030(path, capsys, files, monkeypatch):
    """What docmetrics 0.3.0 left: schema 2, rows with a checksum and no detail column."""
    new = filled(capsys, files, path.with_name("v3.sqlite"))
    db = sqlite3.connect(path)
    db.executescript(V030_DDL)
    db.executemany("INSERT INTO meta VALUES (?, ?)", [("schema", "2"), ("format", "docmetrics score cache")])
    db.executemany("INSERT INTO backbones VALUES (?, ?)", peek(new, "SELECT key, identity FROM backbones"))
    db.executemany("INSERT INTO scores VALUES (?, ?, ?, ?, ?, ?)",
                   peek(new, "SELECT backbone, unit, score, truncated, counters, checksum FROM scores"))
    db.commit()
    db.execute("PRAGMA journal_mode=WAL")
    db.close()


def tampered_score(path, capsys, files, monkeypatch):
    filled(capsys, files, path)
    edit(path, ("UPDATE scores SET score=? WHERE unit=(SELECT MIN(unit) FROM scores)", ((0.25).hex(),)))


def read_only_file(path, capsys, files, monkeypatch):
    filled(capsys, files, path)
    deny_writing(monkeypatch, path)


def read_only_directory(path, capsys, files, monkeypatch):
    filled(capsys, files, path)
    deny_writing(monkeypatch, path, path.parent)


@pytest.mark.parametrize(
    "make, warning, hits, stored_after",
    [
        # set aside as FILE.damaged-1; a new cache scores and stores everything
        (damaged_middle_page, "damaged (", 0, 10),
        # upgraded in place: its 5 scores are reused, the 5 new ones stored
        (write_v020, "upgraded from the format of docmetrics 0.2.0 (format 1) to format 3: 5 stored", 5, 10),
        # upgraded in place without rewriting a checksum: the detail column added, 5 scores reused
        (write_v030, "upgraded from the format of docmetrics 0.3.0 (format 2) to format 3: 5 stored", 5, 10),
        # the tampered row is a miss: scored again (the right number) and stored afresh
        (tampered_score, "1 tampered row(s) in score cache", 4, 10),
        # stored scores used, new ones not stored; the file is not changed
        (read_only_file, "is read-only: stored scores are used, new ones are not stored", 5, 5),
        (read_only_directory, "is read-only: stored scores are used, new ones are not stored", 5, 5),
    ],
    ids=lambda x: getattr(x, "__name__", None) or "",
)
def test_a_fault_found_on_opening_is_recovered_from_with_a_warning(toy_dist, files, capsys, monkeypatch,
                                                                   make, warning, hits, stored_after):
    code, plain, err = run_cli(capsys, files, hyps=("hyp", "hyp2"))
    assert code == 0, err
    path = files["dir"] / "scores.sqlite"
    make(path, capsys, files, monkeypatch)
    before, listing = digest(path), sorted(os.listdir(files["dir"]))
    code, out, err = run_cli(capsys, files, "--cache", str(path), hyps=("hyp", "hyp2"))
    assert code == 0 and "Traceback" not in err and "docmetrics: error" not in err, err
    assert out == plain  # the numbers of a run without the cache, the tampered one included
    warned = [x for x in err.splitlines() if x.startswith("docmetrics: warning:") and warning in x]
    assert len(warned) == 1 and str(path) in warned[0], err
    assert f"10 distinct units, {hits} from cache" in err
    assert peek(path, "SELECT COUNT(*) FROM scores") == [(stored_after,)]
    if make is damaged_middle_page:
        aside = Path(f"{path}.damaged-1")
        assert f"moved aside to {aside}" in warned[0] and aside.exists()
        assert peek(aside, "PRAGMA quick_check(1)") != [("ok",)]  # that file, as it was
    if make in (read_only_file, read_only_directory):
        assert digest(path) == before
    if make is read_only_directory:  # opened immutable: not even -wal/-shm files appear
        assert sorted(os.listdir(files["dir"])) == listing
    # a second run: nothing left to warn about (read-only aside), everything from the cache
    code, again, err = run_cli(capsys, files, "--cache", str(path), hyps=("hyp", "hyp2"))
    assert code == 0 and again == plain
    if make not in (read_only_file, read_only_directory):
        assert "warning" not in err and "10 distinct units, 10 from cache" in err, err


# -- tampered rows (API): each kind of edit is a miss, counted and reported once ----------------------------
@pytest.mark.parametrize(
    "statements, rescored",
    [
        (["UPDATE scores SET score='0x1.8p+1' WHERE unit=:victim"], [7]),  # another number
        (["UPDATE scores SET truncated=1-truncated WHERE unit=:victim"], [7]),  # the flag flipped
        (["UPDATE scores SET counters='{\"context\": 3}' WHERE unit=:victim"], [7]),  # counters added
        (["UPDATE scores SET checksum='' WHERE unit=:victim"], [7]),  # the checksum removed
        (["UPDATE scores SET score=1.5 WHERE unit=:victim"], [7]),  # a number stored as REAL, not as text
        # the row moved to another unit (its checksum was made for the first): both are scored again
        (["DELETE FROM scores WHERE unit=:other", "UPDATE scores SET unit=:other WHERE unit=:victim"], [3, 7]),
    ],
)
def test_a_tampered_row_is_ignored_counted_and_reported_once(tmp_path, statements, rescored):
    path = tmp_path / "c.sqlite"
    bb = Recorder()
    direct = bb.score(UNITS)
    with cache.ScoreCache(path) as c:
        scored(c, bb, UNITS)
    keys = {"victim": cache.unit_key(UNITS[7]), "other": cache.unit_key(UNITS[3])}
    edit(path, *[(sql, keys) for sql in statements])
    bb = Recorder()
    with pytest.warns(DocMetricsWarning) as caught:
        with cache.ScoreCache(path) as c:
            out = scored(c, bb, UNITS)
            assert c.tampered == 1 and c.stats.hits == len(UNITS) - len(rescored)
            assert bb.calls == [[UNITS[i] for i in rescored]]
            assert (out.scores, out.truncated, out.counters) == (direct.scores, direct.truncated, direct.counters)
            scored(c, bb, UNITS)  # stored afresh: hits now
            assert c.tampered == 1 and len(bb.calls) == 1
    assert [str(w.message) for w in caught] == [
        f"1 tampered row(s) in score cache {path} ignored: their checksums do not match their content (the "
        "units were scored again and stored afresh)"
    ]


# -- a full disk (or any write failure) during a run -----------------------------------------------------
class FailingWrites:
    """A real connection whose writes of score rows fail once ``room`` rows have been written: the
    rows of the failing call that still fit are written first (a transaction cut in the middle)."""

    def __init__(self, real, room, error):
        self._real, self.room, self.error, self.committed = real, room, error, 0

    def __getattr__(self, name):
        return getattr(self._real, name)

    def executemany(self, sql, rows):
        rows = list(rows)
        if "into scores" not in sql.lower():
            return self._real.executemany(sql, rows)
        if self.committed + len(rows) > self.room:
            self._real.executemany(sql, rows[: self.room - self.committed])
            raise self.error
        self.committed += len(rows)
        return self._real.executemany(sql, rows)


def fail_writes(monkeypatch, room, error):
    """Every connection the cache opens fails after ``room`` score rows (the list records them)."""
    opened = []
    real_connect = sqlite3.connect

    def connect(*args, **kw):
        db = FailingWrites(real_connect(*args, **kw), room, error)
        opened.append(db)
        return db

    monkeypatch.setattr(sqlite3, "connect", connect)
    return opened


def full_sqlite(monkeypatch):
    return fail_writes(monkeypatch, 12, sqlite3.OperationalError("database or disk is full"))


def full_oserror(monkeypatch):
    return fail_writes(monkeypatch, 12, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))


def full_for_real(monkeypatch):
    """SQLite's own SQLITE_FULL: the file may not grow past 7 pages (the empty cache has 6)."""
    real_connect = sqlite3.connect

    def connect(*args, **kw):
        db = real_connect(*args, **kw)
        db.execute("PRAGMA max_page_count=7")
        return db

    monkeypatch.setattr(sqlite3, "connect", connect)
    return []


@pytest.mark.parametrize("fault, detail", [
    (full_sqlite, "database or disk is full"),
    (full_oserror, "No space left on device"),
    (full_for_real, "database or disk is full"),
], ids=lambda x: getattr(x, "__name__", ""))
def test_a_full_disk_stops_the_run_keeping_whole_chunks_and_a_rerun_resumes(tmp_path, monkeypatch, fault,
                                                                            detail):
    path = tmp_path / "c.sqlite"
    units = [Unit(mt=f"unit {i}", src=f"s {i}") for i in range(60)] if fault is full_for_real else UNITS
    fault(monkeypatch)
    c = cache.ScoreCache(path, chunk_size=5)
    with pytest.raises(UserError) as exc:
        scored(c, Recorder(), units)
    c.close()
    message = str(exc.value)
    assert str(path) in message and "the disk is full" in message and detail in message
    assert "run the same command again with the same cache" in message
    monkeypatch.undo()  # the disk has room again
    again = cache.ScoreCache(path, chunk_size=5)  # opens fine (and passes quick_check)
    kept = again.count()
    assert 0 < kept < len(units) and kept % 5 == 0  # whole chunks, the cut one rolled back
    if fault is not full_for_real:
        assert kept == 10  # 5 + 5 fit in the room of 12; the third chunk's 2 rows were rolled back
    bb = Recorder()
    out = scored(again, bb, units)
    assert again.stats.hits == kept and sum(len(call) for call in bb.calls) == len(units) - kept
    assert out.scores == Recorder().score(units).scores
    assert again.count() == len(units)


def test_a_full_disk_during_a_sweep_is_exit_2_and_the_rerun_reuses_what_was_stored(toy_dist, files, capsys,
                                                                                    monkeypatch):
    from docmetrics_toy import ToyBackbone

    args = ["sweep", "-m", "slide:backbone=toy", "--grid", "w=1..3", "s=1..w", "-i", files["hyp"],
            files["hyp2"], "-s", files["src"], "--doc-ids", files["ids"], "-f", "json"]
    assert main(args + ["--no-cache"]) == 0
    clean = json.loads(capsys.readouterr().out)
    path = files["dir"] / "sweep.sqlite"
    opened = fail_writes(monkeypatch, 20, sqlite3.OperationalError("database or disk is full"))
    code = main(args + ["--cache", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert_one_error(err, path, "the disk is full", "run the same command again with the same cache")
    committed = opened[0].committed
    assert 0 < committed <= 20
    monkeypatch.undo()
    assert peek(path, "SELECT COUNT(*) FROM scores") == [(committed,)]  # whole transactions only
    ToyBackbone.calls.clear()
    assert main(args + ["--cache", str(path)]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert [p["scores"] for p in resumed["points"]] == [p["scores"] for p in clean["points"]]
    assert resumed["cache"]["hits"] >= committed
    assert sum(len(call) for call in ToyBackbone.calls) == resumed["cache"]["scored"]


def test_a_write_refused_as_read_only_goes_on_without_storing(tmp_path, monkeypatch):
    """The file turned out read-only although os.access said otherwise (e.g. a read-only mount)."""
    path = tmp_path / "c.sqlite"
    with cache.ScoreCache(path, chunk_size=5) as c:
        scored(c, Recorder(), UNITS[:10])
    fail_writes(monkeypatch, 0, sqlite3.OperationalError("attempt to write a readonly database"))
    bb = Recorder()
    with pytest.warns(DocMetricsWarning, match="is read-only .*new ones are not stored"):
        with cache.ScoreCache(path, chunk_size=5) as c:
            out = scored(c, bb, UNITS)
            assert c.read_only and c.stats.hits == 10 and c.stats.stored == 0 and c.stats.scored == 14
    assert out.scores == Recorder().score(UNITS).scores
    monkeypatch.undo()
    assert peek(path, "SELECT COUNT(*) FROM scores") == [(10,)]


# -- damage found during a run (a file too large for the check on opening) -----------------------------------
def test_damage_found_during_a_run_is_exit_2_and_the_file_set_aside(toy_dist, files, capsys, monkeypatch):
    path = filled(capsys, files, files["dir"] / "scores.sqlite")
    code, plain, _ = run_cli(capsys, files)
    damage_page(path, peek(path, "SELECT rootpage FROM sqlite_master WHERE name='scores'")[0][0])
    damaged = digest(path)
    monkeypatch.setattr(cache_file, "QUICK_CHECK_MAX_BYTES", 0)  # as for a file of more than 256 MiB
    code, _, err = run_cli(capsys, files, "--cache", str(path))
    assert code == 2
    aside = Path(f"{path}.damaged-1")
    assert_one_error(err, path, "damaged (database disk image is malformed)", "while reading stored scores",
                     f"moved aside to {aside}", "run the same command again")
    assert digest(aside) == damaged and not path.exists()
    code, out, err = run_cli(capsys, files, "--cache", str(path))  # as the message says: a new cache
    assert code == 0 and out == plain and "5 distinct units, 0 from cache" in err


def test_the_check_on_opening_is_for_files_up_to_the_limit(tmp_path, monkeypatch):
    path = tmp_path / "c.sqlite"
    with cache.ScoreCache(path) as c:
        scored(c, Recorder(), UNITS)
    damage_page(path, peek(path, "SELECT rootpage FROM sqlite_master WHERE name='scores'")[0][0])
    monkeypatch.setattr(cache_file, "QUICK_CHECK_MAX_BYTES", path.stat().st_size - 1)
    c = cache.ScoreCache(path)  # too large to check: opened as it is
    assert c.set_aside is None
    with pytest.raises(UserError, match="damaged"):
        scored(c, Recorder(), UNITS)
    assert c.set_aside == Path(f"{path}.damaged-1")
    with pytest.raises(UserError, match="moved aside to .*damaged-1; open it again"):
        c.count()
    c.close()
    fresh = cache.ScoreCache(path)
    assert Path(f"{path}.damaged-1").exists() and fresh.count() == 0  # a new cache
    fresh.close()
    monkeypatch.setattr(cache_file, "QUICK_CHECK_MAX_BYTES", path.stat().st_size)
    damage_page(path, peek(path, "SELECT rootpage FROM sqlite_master WHERE name='scores'")[0][0])
    with pytest.warns(DocMetricsWarning, match="moved aside to .*damaged-2"):
        assert cache.ScoreCache(path).set_aside == Path(f"{path}.damaged-2")


# -- writing the output on a full disk ----------------------------------------------------------------------
full_device = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")


@full_device
def test_sweep_o_on_a_full_disk_is_exit_2(toy_dist, files, capsys):
    code = main(["sweep", "-m", "slide:backbone=toy", "--grid", "w=1..2", "s=1", "-i", files["hyp"], files["hyp2"],
                 "-s", files["src"], "--doc-ids", files["ids"], "--no-cache", "-o", "/dev/full"])
    err = capsys.readouterr().err
    assert code == 2
    assert_one_error(err, "/dev/full", "-o /dev/full: cannot write the file (No space left on device)",
                     "run the same command again")


@full_device
def test_stdout_on_a_full_disk_is_exit_2():
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "docmetrics", "--list"], stdout=full, stderr=subprocess.PIPE,
                              text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "docmetrics: error: cannot write the output (No space left on device): free some space and run the "
        "same command again"
    ]
