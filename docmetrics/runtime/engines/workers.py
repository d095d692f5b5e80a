"""The :class:`Workers` engine: ``N`` spawned processes on this machine, each talking to this one through its
own pipe; a free worker takes the next chunk.  With ``device=cuda`` each worker sees one GPU."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from ...plugin.registry import describe_plugin
from ...values.errors import PluginError
from .base import DEFAULT_CHUNK, Engine, check_workers
from .transport import KEPT, score_task, shipped, units_phrase, unpack_output

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from ...plugin.backbone import Backbone
    from ...values.units import BackboneOutput


# -- in a worker process -----------------------------------------------------------------------------------
def _worker_main(conn: Connection, rank: int, device: str, gpus: list[str], threads: int) -> None:
    """A worker process: scores the tasks its parent sends, one at a time, until it is sent None or the
    parent is gone; the backbones it builds live as long as it does."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops every worker itself
    if device == "cuda" and gpus:
        os.environ["CUDA_VISIBLE_DEVICES"] = gpus[rank % len(gpus)]  # before anything imports torch
    if threads > 0:
        with contextlib.suppress(Exception):
            import torch

            torch.set_num_threads(threads)
    backbones: dict[bytes, Backbone] = {}
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if task is None:
            return
        n, raw = score_task(backbones, *task)
        try:
            conn.send((n, raw))
        except (EOFError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 - an output that cannot be pickled: the parent says so
            conn.send((n, Exception(f"its output cannot be sent back ({type(exc).__name__}: {exc})")))


# -- in the parent -----------------------------------------------------------------------------------------
def _exit_reason(code: int | None) -> str:
    """How a process ended, from its exit code (negative: the signal that killed it)."""
    if code is None:
        return "its pipe closed"
    if code >= 0:
        return f"exit code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    oom = ", which is also how the system stops a process that runs out of memory" if name == "SIGKILL" else ""
    return f"killed by {name}{oom}"


def visible_gpus() -> list[str]:
    """The GPUs this process may use (``CUDA_VISIBLE_DEVICES``, else every device torch sees)."""
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [g.strip() for g in env.split(",") if g.strip() and g.strip() != "-1"]
    try:
        import torch

        return [str(i) for i in range(torch.cuda.device_count())]
    except Exception:  # noqa: BLE001
        return []


@dataclasses.dataclass
class _Worker:
    """The parent's handle on one worker process: the process, its end of the pipe, its rank, its chunk."""

    process: Any
    conn: Connection
    rank: int
    #: The chunk it is scoring (None: free).
    chunk: int | None = None


def _reap(worker: _Worker, grace: float) -> None:
    """Wait ``grace`` seconds for ``worker`` to end, then terminate it, then kill it; free its pipe."""
    p = worker.process
    p.join(grace)
    if p.exitcode is None:
        p.terminate()
        p.join(5)
    if p.exitcode is None:
        p.kill()
        p.join()
    worker.conn.close()
    p.close()


class Workers(Engine):
    """``n`` spawned worker processes on this machine, started on the first chunks to score (never more
    than a call has chunks; a later call with more starts more) and kept until :meth:`close`, each with
    the backbones it built.  A worker that dies stops the run with a PluginError; so does Ctrl-C."""

    name = "workers"

    def __init__(self, n: int, *, device: str = "auto", chunk: int = DEFAULT_CHUNK) -> None:
        super().__init__(chunk)
        self.n = check_workers(n)
        self.device = device
        self._workers: list[_Worker] = []
        self._owner: object | None = None  # the map() call whose chunks the workers score
        #: Worker processes started in this engine's life (replacements of lost ones included).
        self.started = 0

    @property
    def pids(self) -> list[int]:
        """The process ids of the workers running now."""
        return [w.process.pid for w in self._workers if w.process.is_alive()]

    def _grow(self, size: int) -> None:
        """Run ``min(size, n)`` workers: replace those that died between calls, start the missing ones."""
        for w in [w for w in self._workers if not w.process.is_alive()]:
            self._workers.remove(w)
            _reap(w, 0)
        ranks = sorted(set(range(self.n)) - {w.rank for w in self._workers})
        missing = min(size, self.n) - len(self._workers)
        if missing <= 0:
            return
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: safe with CUDA and threads
        gpus = visible_gpus() if self.device == "cuda" else []
        threads = 0 if self.device == "cuda" else max(1, (os.cpu_count() or 1) // self.n)
        for rank in ranks[:missing]:
            mine, theirs = ctx.Pipe()
            process = ctx.Process(target=_worker_main, args=(theirs, rank, self.device, gpus, threads),
                                  name=f"docmetrics-worker-{rank}", daemon=True)
            process.start()
            theirs.close()  # only the worker holds its end now: its death is end-of-file here
            self._workers.append(_Worker(process, mine, rank))
            self.started += 1

    def _run(self, backbone: Backbone, method: str, items: Sequence[Any], chunks: list[list[int]],
             progress: Callable[[int], None] | None) -> Iterator[tuple[list[int], BackboneOutput]]:
        recipe, state = shipped(backbone)
        if self._busy():
            self._stop()  # an earlier map() was abandoned mid-way: its results must not come back here
        call = self._owner = object()
        try:
            self._grow(len(chunks))
            yield from self._feed(call, backbone, method, items, chunks, recipe, state, progress)
        except BaseException as exc:
            if self._owner is call and (not isinstance(exc, GeneratorExit) or self._busy()):
                self._stop()  # a failure, Ctrl-C, or a caller who stopped reading: no worker is left behind
            raise

    def _feed(self, call: object, backbone: Backbone, method: str, items: Sequence[Any], chunks: list[list[int]],
              recipe: bytes, state: bytes, progress: Callable[[int], None] | None,
              ) -> Iterator[tuple[list[int], BackboneOutput]]:
        """A free worker takes the next chunk; each result is yielded as it comes back (``call``: this
        map() call, which must still own the workers)."""
        from multiprocessing.connection import wait

        pending = deque(range(len(chunks)))

        def dispatch() -> None:
            for w in self._workers:
                if w.chunk is None and pending:
                    w.chunk = pending.popleft()
                    self._send(w, (w.chunk, recipe, state, method, [items[i] for i in chunks[w.chunk]]),
                               backbone, chunks)

        dispatch()
        while True:
            if self._owner is not call:  # never end quietly with chunks unscored
                raise RuntimeError("another map() call on this engine started while this one was being read; "
                                   "read one call's results to the end before starting the next")
            if not self._busy():
                return
            # a worker's pipe (a result, or end-of-file) and its sentinel (it ended): a death is seen at once
            ready = set(wait([w.conn for w in self._workers] + [w.process.sentinel for w in self._workers]))
            done = [self._receive(w, backbone, chunks) for w in self._workers
                    if w.conn in ready or w.process.sentinel in ready]
            outs = [(n, unpack_output(raw, backbone)) for n, raw in done]  # a worker's error is raised at once
            dispatch()  # before handing results back: the workers score while the caller stores
            for n, out in outs:
                if progress is not None:
                    progress(len(chunks[n]))
                yield chunks[n], out

    def _send(self, w: _Worker, task: tuple[Any, ...], backbone: Backbone, chunks: list[list[int]]) -> None:
        try:
            w.conn.send(task)
        except OSError:  # its end of the pipe is closed: it died
            raise self._died(w, backbone, chunks) from None

    def _receive(self, w: _Worker, backbone: Backbone, chunks: list[list[int]]) -> tuple[int, Any]:
        """The result ``w`` sent, or the PluginError saying it died."""
        if w.conn.poll():
            try:
                n, raw = w.conn.recv()
            except (EOFError, OSError):
                raise self._died(w, backbone, chunks) from None
            w.chunk = None
            return n, raw
        raise self._died(w, backbone, chunks)

    def _died(self, w: _Worker, backbone: Backbone, chunks: list[list[int]]) -> PluginError:
        w.process.join(5)  # it has ended, or is ending: its exit code says how
        doing = (f"while scoring a chunk of {units_phrase(len(chunks[w.chunk]))}" if w.chunk is not None
                 else "between chunks")
        return PluginError(
            f"{describe_plugin(backbone)}: worker process {w.rank} died ({_exit_reason(w.process.exitcode)}) "
            f"{doing}; every worker was stopped, and {KEPT}", params=("cache",))

    def _busy(self) -> bool:
        return any(w.chunk is not None for w in self._workers)

    def _stop(self, *, ask_free: bool = False) -> None:
        """Terminate every worker (``ask_free``: ask the free ones to stop instead) and wait for each (what they
        were scoring is dropped)."""
        workers, self._workers = self._workers, []
        for w in workers:
            if ask_free and w.chunk is None:
                with contextlib.suppress(OSError):
                    w.conn.send(None)  # a free worker ends on its own, freeing its models as it exits
                    continue
            with contextlib.suppress(Exception):
                w.process.terminate()
        for w in workers:
            _reap(w, 5)

    def close(self) -> None:
        """Ask the free workers to stop, terminate the busy ones, wait for every one (idempotent)."""
        self._stop(ask_free=True)

