"""Worker processes (``Workers``) live as long as the engine and fail cleanly (issue: one explicit runtime).

* a worker that kills itself (SIGKILL: a segfault, the out-of-memory killer) ends the run within
  seconds with a PluginError naming the backbone, keeping the chunks already scored in the score cache;
  through the command line that is exit status 2 with the same message;
* a user's mistake raised in a worker passes unchanged (a backbone's bug is a PluginError naming it,
  tests/test_engines.py), and the engine starts new workers for the next call;
* Ctrl-C in the parent stops every worker and is raised again;
* no worker process outlives the error or ``close()`` (the test process's children are read from /proc);
* no more workers start than a call has chunks, and a later call with more chunks starts more;
* several calls on one engine build the backbone once per worker; a call abandoned half-way never takes
  the next call's results, and reading it again is an error, not a quiet end.

Each test spawns at most two workers (a spawn costs a second or more); a guard (SIGALRM) turns a hang
into a failure.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest
from engine_fixtures import Counting, Killing, Recording, Refusing, Sleeping, Unbuildable, builds, children, deadline
from plugin_fixtures import write_distribution

from docmetrics.cli import main
from docmetrics.plugin.backbone import Unit
from docmetrics.runtime import cache, engines
from docmetrics.runtime.session import Session
from docmetrics.values.errors import InputError, PluginError


def workers_alive() -> list[multiprocessing.Process]:
    return [p for p in multiprocessing.active_children() if p.name.startswith("docmetrics-worker")]


@pytest.fixture()
def no_process_left() -> Iterator[None]:
    """Fails the test if a process it started is still there at its end."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc to list this process's children")
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()  # multiprocessing's own helper, one per process for its whole life
    before = children()
    yield
    assert workers_alive() == []
    assert children() <= before, "a worker outlived the engine"


def units(*texts: str) -> list[Unit]:
    return [Unit(mt=t, src="s") for t in texts]


# -- a worker that dies ---------------------------------------------------------------------------------
def test_a_worker_that_dies_ends_the_run_naming_the_backbone(no_process_left):
    engine = engines.Workers(2, device="cpu", chunk=1)
    with engine, deadline(), pytest.raises(PluginError) as info:
        list(engine.map(Killing(str(os.getpid())), "score", units("a", "die")))
    message = str(info.value)
    assert "backbone 'killing'" in message and "died (killed by SIGKILL" in message
    assert "chunks already scored were kept" in message and info.value.params == ("cache",)
    assert engine.started == 2 and engine.pids == []


def test_the_chunks_scored_before_a_worker_died_are_kept_and_a_rerun_resumes(tmp_path, no_process_left):
    # 'die' is the longest unit: its chunk is handed out last, after the others came back and were stored
    texts = ["a", "bb", "cc", "d", "die"]
    store = cache.ScoreCache(tmp_path / "c.sqlite", chunk_size=1)
    with engines.Workers(2, device="cpu") as engine, deadline(), pytest.raises(PluginError, match="died"):
        Session(cache=store, engine=engine).scorer().score(Killing(str(os.getpid())), units(*texts))
    kept = store.count()
    assert kept > 0
    out = Session(cache=store).scorer().score(Killing(str(os.getpid())), units(*texts[:-1]))
    assert out.scores == [1.0, 2.0, 2.0, 1.0] and store.stats.hits == kept
    store.close()


@pytest.fixture(scope="module")
def killing_dist(tmp_path_factory):
    """``killing`` registered as a backbone plugin (entry point engine_fixtures:Killing), as pip would."""
    from docmetrics.plugin import registry

    root = write_distribution(tmp_path_factory.mktemp("site"), "docmetrics-enginetest", "1.0", {},
                              "[docmetrics.backbones]\nkilling = engine_fixtures:Killing\n")
    sys.path.insert(0, str(root))
    registry.refresh()
    yield root
    sys.path.remove(str(root))
    registry.refresh()


def test_a_worker_that_dies_on_the_command_line_is_exit_2_naming_the_backbone(killing_dist, tmp_path, capsys,
                                                                               no_process_left):
    hyp, src = tmp_path / "hyp.txt", tmp_path / "src.txt"
    hyp.write_text("ok\ndie\n", encoding="utf-8")
    src.write_text("gut\nstirb\n", encoding="utf-8")
    with deadline():
        code = main(["-m", f"slide:w=1,s=1,backbone=killing,model={os.getpid()}", "-i", str(hyp), "-s", str(src),
                     "--workers", "2", "-q"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "backbone 'killing' from" in err and "died (killed by SIGKILL" in err and "--cache PATH" in err
    assert "Traceback" not in err


# -- errors raised in a worker -----------------------------------------------------------------------------
def test_a_users_mistake_in_a_worker_passes_unchanged_and_the_engine_starts_again(no_process_left):
    with engines.Workers(1, device="cpu") as engine, deadline():
        with pytest.raises(InputError, match=r"^line 7 of hyp.txt: 'bad' is not a sentence$"):
            list(engine.map(Refusing("m"), "score", units("a", "bad")))
        assert engine.pids == []  # the run stopped
        assert [out.scores for _, out in engine.map(Refusing("m"), "score", units("a", "bb"))] == [[1.0, 2.0]]
        assert engine.started == 2


def test_a_backbone_that_cannot_be_built_in_a_worker_is_a_plugin_error_naming_it(no_process_left):
    with engines.Workers(1, device="cpu") as engine, deadline(), pytest.raises(PluginError) as info:
        list(engine.map(Unbuildable(str(os.getpid())), "score", units("a")))
    assert str(info.value) == ("backbone 'unbuildable' (module engine_fixtures) failed in a worker: OSError: "
                               "no such file: weights.ckpt")


# -- Ctrl-C -------------------------------------------------------------------------------------------
@pytest.fixture
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt here, as in a terminal: a runner started in the background (bash '&', or
    an xdist worker under one) ignores SIGINT."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_in_the_parent_stops_every_worker_and_is_raised_again(tmp_path, no_process_left, ctrl_c_raises):
    log = tmp_path / "started.log"

    def press_ctrl_c_once_a_chunk_runs() -> None:
        while not log.exists():
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press_ctrl_c_once_a_chunk_runs, daemon=True)
    engine = engines.Workers(1, device="cpu")
    with deadline(), pytest.raises(KeyboardInterrupt):
        presser.start()
        list(engine.map(Sleeping(str(log)), "score", units("a", "b")))
    presser.join()
    assert engine.pids == []  # stopped before the exception left map(), not only at close()
    engine.close()


# -- lifetime ----------------------------------------------------------------------------------------------
def test_no_more_workers_start_than_a_call_has_chunks_and_a_later_call_starts_more(tmp_path, no_process_left):
    log = tmp_path / "builds.log"
    with engines.Workers(8, device="cpu", chunk=2) as engine, deadline():
        got = list(engine.map(Recording(str(log)), "score", units("a", "bb")))  # one chunk
        assert engine.started == 1 and len(engine.pids) == 1 and len(workers_alive()) == 1
        assert got == [([0, 1], got[0][1])] and got[0][1].scores == [1.0, 2.0]
        first = engine.pids[0]
        got = list(engine.map(Recording(str(log)), "score", units("a", "bb", "ccc", "dddd")))  # two chunks
        assert engine.started == 2 and len(engine.pids) == 2 and first in engine.pids
        assert sorted(s for _, out in got for s in out.scores) == [1.0, 2.0, 3.0, 4.0]


def test_several_calls_build_the_backbone_once_per_worker(tmp_path, no_process_left):
    log = tmp_path / "builds.log"
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    want = {tuple(c): out.scores for c, out in engines.InProcess(chunk=2).map(Counting("m"), "score", units(*texts))}
    with engines.Workers(2, device="cpu", chunk=2) as engine, deadline():
        for _ in range(3):
            got = {tuple(c): out.scores for c, out in engine.map(Recording(str(log)), "score", units(*texts))}
            assert got == want
        pids = set(engine.pids)
    built = builds(log)
    built.pop(os.getpid())  # the copies made here, to send
    assert set(built) == pids and set(built.values()) == {1}


def test_a_call_abandoned_half_way_never_takes_the_next_calls_results(no_process_left):
    with engines.Workers(1, device="cpu", chunk=1) as engine, deadline():
        first = engine.map(Counting("m"), "score", units("a", "bb"))
        assert next(first)[1].scores == [1.0]  # its worker now scores 'bb'
        second = engine.map(Counting("m"), "score", units("ccc", "dddd"))
        assert next(second)[1].scores == [3.0]  # on a new worker: 'bb' will never be read as 'ccc'
        with pytest.raises(RuntimeError, match="another map"):
            next(first)  # never a quiet end with chunks unscored
        assert [out.scores for _, out in second] == [[4.0]]  # the first call's end left its workers alone
        assert engine.started == 2


def test_a_worker_that_died_between_calls_is_replaced(tmp_path, no_process_left):
    with engines.Workers(1, device="cpu") as engine, deadline():
        assert [out.scores for _, out in engine.map(Counting("m"), "score", units("a"))] == [[1.0]]
        [pid] = engine.pids
        os.kill(pid, signal.SIGKILL)
        while engine.pids:
            time.sleep(0.05)
        assert [out.scores for _, out in engine.map(Counting("m"), "score", units("bb"))] == [[2.0]]
        assert engine.started == 2 and engine.pids != [pid]
