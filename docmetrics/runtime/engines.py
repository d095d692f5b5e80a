"""Engines: where the units that the score cache could not answer are scored.

Every engine does the same thing with the same numbers: it orders the distinct units by the
backbone's :meth:`~docmetrics.plugin.backbone.Backbone.chunk_key` (units of similar length, and units
that share inputs, together), cuts them into chunks of :data:`DEFAULT_CHUNK` units, has each chunk
scored by one call of the backbone, and hands each chunk's output back as soon as it is done, so that
the score cache stores it at once (an interrupted run resumes where it stopped) and no more than a
chunk's model state is held at a time (peak memory depends on the chunk, not on the test set).

* :class:`InProcess` (the default): this process, one chunk after another.
* :class:`Workers`: ``N`` spawned processes on this machine, each talking to this one through its own
  pipe; a free worker takes the next chunk, so long and short chunks balance out.  With ``device=cuda``
  each worker sees one GPU.
* :class:`RayEngine`: ``N`` Ray actors (``num_gpus=1`` each on GPUs), on a local Ray instance or a
  cluster (``address``); a free actor takes the next chunk.

Workers and actors start when the first units need scoring (no more than that call has chunks; a later
call with more chunks starts more) and live as long as the engine, until :meth:`Engine.close`: each
builds a backbone from its :meth:`~docmetrics.plugin.backbone.Backbone.recipe` the first time a chunk
needs it and keeps it, so the calls of a sweep or of several metrics on one model load it once per
worker.  A :class:`~docmetrics.runtime.session.Session` owns one engine (the command line makes one per
command).  Failures end cleanly: a worker process that dies (a signal, a crash, out of memory) stops the
run within seconds with a PluginError naming the backbone, every other worker terminated and joined;
Ctrl-C does the same and is raised again; a lost Ray actor's chunk is tried once more on a new actor.
The chunks scored before a failure were handed back, so a score cache keeps them.

The chunks are the same whichever engine scores them, so the engines give the same numbers (up to the
float noise of a different thread count; 1e-6 in fp32).  Importing this module imports only the
standard library.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import signal
import socket
import sys
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from ..plugin.registry import describe_plugin, plugin_fault
from ..values.errors import PluginError, UserError

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from ..plugin.backbone import Backbone
    from ..values.units import BackboneOutput

__all__ = [
    "DEFAULT_CHUNK", "Engine", "InProcess", "Workers", "RayEngine", "plan_chunks", "call_backbone",
    "make_engine",
]

#: Units per chunk: one backbone call, one shard of a parallel engine, one commit of the score cache.
DEFAULT_CHUNK = 1024



def plan_chunks(backbone: Backbone, items: Sequence[Any], size: int = DEFAULT_CHUNK) -> list[list[int]]:
    """Positions of ``items`` in chunks of at most ``size``, ordered by the backbone's chunk key (ties
    in the order given), so that every engine scores the same chunks."""
    order = sorted(range(len(items)), key=lambda i: (backbone.chunk_key(items[i]), i))
    return [order[k:k + size] for k in range(0, len(order), size)]


def call_backbone(backbone: Backbone, method: str, items: list[Any]) -> BackboneOutput:
    """``backbone.<method>(items)``, checked: a user's mistake the backbone reports passes through;
    anything else it raises, or an output of the wrong size or with a non-number, is a PluginError that
    names the plugin."""
    with plugin_fault(backbone, f"in {method}() on {len(items)} units"):
        out = getattr(backbone, method)(items)
    from ..values.units import BackboneOutput

    who = describe_plugin(backbone)
    if not isinstance(out, BackboneOutput):
        raise PluginError(f"{who}: {method}() returned {type(out).__name__}, not a BackboneOutput")
    out.check(len(items), who)
    out.check_numbers(who, None, items)
    return out


# -- the engines -------------------------------------------------------------------------------------------
class Engine:
    """Scores chunks of distinct items with a backbone; :meth:`map` yields each chunk when done."""

    #: Name in messages and benchmark tables.
    name = "engine"

    def __init__(self, chunk: int = DEFAULT_CHUNK) -> None:
        if chunk < 1:
            raise UserError(f"chunk size must be >= 1, not {chunk}")
        self.chunk = chunk

    def map(self, backbone: Backbone, method: str, items: Sequence[Any],
            progress: Callable[[int], None] | None = None, chunk: int | None = None,
            ) -> Iterator[tuple[list[int], BackboneOutput]]:
        raise NotImplementedError

    def close(self) -> None:
        """Stop workers (idempotent)."""

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class InProcess(Engine):
    """This process, one chunk after another."""

    name = "in-process"

    def map(self, backbone: Backbone, method: str, items: Sequence[Any],
            progress: Callable[[int], None] | None = None, chunk: int | None = None,
            ) -> Iterator[tuple[list[int], BackboneOutput]]:
        for part in plan_chunks(backbone, items, chunk or self.chunk):
            out = call_backbone(backbone, method, [items[i] for i in part])
            if progress is not None:
                progress(len(part))
            yield part, out


# -- in a worker process or on a Ray actor -------------------------------------------------------------------
def _built(backbones: dict[bytes, Backbone], recipe: bytes, state: bytes) -> Backbone:
    """The worker's copy of a backbone, built from ``recipe`` on first use and kept in ``backbones`` (the
    worker's, for its whole life), with ``state`` imported."""
    bb = backbones.get(recipe)
    if bb is None:
        cls, name, kwargs = pickle.loads(recipe)
        bb = cls(**kwargs)
        if name and getattr(bb, "name", "") != name:
            bb.name = name
        backbones[recipe] = bb
    bb.import_state(pickle.loads(state))
    return bb


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else a plain Exception with its type and text."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001
        return Exception(f"{type(exc).__name__}: {exc}")


def _score_task(backbones: dict[bytes, Backbone], n: int, recipe: bytes, state: bytes, method: str,
                items: list[Any]) -> tuple[int, Any]:
    """``(n, output as plain lists)``, or ``(n, the exception)``: a worker never raises, its parent does."""
    try:
        out = call_backbone(_built(backbones, recipe, state), method, items)
        return n, (out.scores, out.truncated, out.counters, out.unit_counters, out.unit_details)
    except BaseException as exc:  # noqa: BLE001 - reported in the parent, which stops the run
        return n, _portable(exc)


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
        n, raw = _score_task(backbones, *task)
        try:
            conn.send((n, raw))
        except (EOFError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 - an output that cannot be pickled: the parent says so
            conn.send((n, Exception(f"its output cannot be sent back ({type(exc).__name__}: {exc})")))


# -- back in the parent -----------------------------------------------------------------------------------
def _output(raw: Any, backbone: Backbone) -> BackboneOutput:
    """The output a worker sent, or the exception it reported raised here (see :func:`_in_parent`)."""
    from ..values.units import BackboneOutput

    if isinstance(raw, BaseException):
        raise _in_parent(raw, backbone)
    scores, truncated, counters, unit_counters, unit_details = raw
    return BackboneOutput(list(scores), list(truncated), dict(counters), unit_counters, unit_details)


def _in_parent(exc: BaseException, backbone: Backbone) -> BaseException:
    """A user's mistake, a PluginError, Ctrl-C or MemoryError unchanged; anything else (a backbone that
    cannot be built in a worker, a plugin calling sys.exit) a PluginError naming the plugin."""
    if isinstance(exc, (UserError, KeyboardInterrupt, MemoryError)):
        return exc
    text = str(exc).strip().splitlines()
    what = "" if type(exc) is Exception else type(exc).__name__  # a plain Exception: what _portable made
    return PluginError(f"{describe_plugin(backbone)} failed in a worker: " + ": ".join(
        part for part in (what, text[0][:300] if text else "") if part))


def _pickled(backbone: Backbone, what: Any) -> bytes:
    """``what`` (the backbone's recipe or state) pickled for another process, else a PluginError naming it."""
    try:
        return pickle.dumps(what)
    except Exception as exc:  # noqa: BLE001
        raise PluginError(
            f"{describe_plugin(backbone)} cannot be sent to another process ({type(exc).__name__}: {exc}); "
            "use one worker (workers=1) or make its class importable and its parameters picklable",
            params=("workers",),
        ) from None


def _recipe_bytes(backbone: Backbone) -> bytes:
    return _pickled(backbone, backbone.recipe())


#: What a message about a lost worker says the user can do (the chunks scored before were stored).
KEPT = ("the chunks already scored were kept: with a score cache (cache=PATH) the same run again resumes "
        "from them")


def _units(n: int) -> str:
    return f"{n} unit" if n == 1 else f"{n} units"


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


def check_workers(n: Any) -> int:
    """``n`` if it is a whole number >= 1 (a number of worker processes or actors), else UserError."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise UserError(f"workers={n!r}: give a whole number >= 1", params=("workers",))
    return n


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


# -- worker processes -----------------------------------------------------------------------------------
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

    def map(self, backbone: Backbone, method: str, items: Sequence[Any],
            progress: Callable[[int], None] | None = None, chunk: int | None = None,
            ) -> Iterator[tuple[list[int], BackboneOutput]]:
        chunks = plan_chunks(backbone, items, chunk or self.chunk)
        if not chunks:
            return
        recipe, state = _recipe_bytes(backbone), _pickled(backbone, backbone.export_state())
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
            outs = [(n, _output(raw, backbone)) for n, raw in done]  # a worker's error is raised at once
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
        doing = f"while scoring a chunk of {_units(len(chunks[w.chunk]))}" if w.chunk is not None else "between chunks"
        return PluginError(
            f"{describe_plugin(backbone)}: worker process {w.rank} died ({_exit_reason(w.process.exitcode)}) "
            f"{doing}; every worker was stopped, and {KEPT}", params=("cache",))

    def _busy(self) -> bool:
        return any(w.chunk is not None for w in self._workers)

    def _stop(self) -> None:
        """Terminate every worker at once and wait for each (what they were scoring is dropped)."""
        workers, self._workers = self._workers, []
        for w in workers:
            with contextlib.suppress(Exception):
                w.process.terminate()
        for w in workers:
            _reap(w, 5)

    def close(self) -> None:
        """Ask the free workers to stop, terminate the busy ones, wait for every one (idempotent)."""
        workers, self._workers = self._workers, []
        for w in workers:
            if w.chunk is None:
                with contextlib.suppress(OSError):
                    w.conn.send(None)  # a free worker ends on its own, freeing its models as it exits
                    continue
            with contextlib.suppress(Exception):
                w.process.terminate()
        for w in workers:
            _reap(w, 5)


# -- Ray -------------------------------------------------------------------------------------------------
RAY_HINT = "install it with: pip install 'docmetrics[ray]'"


class RayScorer:
    """The actor class of :class:`RayEngine` (made remote there): keeps every backbone it built, keyed
    by its recipe, for the actor's life, and scores one chunk per call."""

    def __init__(self) -> None:
        self.backbones: dict[bytes, Backbone] = {}

    def score(self, n: int, recipe: bytes, state: bytes, method: str, items: list[Any]) -> tuple[int, Any]:
        return _score_task(self.backbones, n, recipe, state, method, items)


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Raise UserError unless ``host:port`` accepts a TCP connection ("auto" and ray:// are left to Ray)."""
    if address in ("auto", "local") or address.startswith("ray://"):
        target = address[len("ray://"):] if address.startswith("ray://") else ""
    else:
        target = address
    if not target:
        return
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise UserError(f"ray_address={address!r}: give HOST:PORT of the Ray head (e.g. 10.0.0.1:6379), "
                        "ray://HOST:PORT, or auto", params=("ray_address",))
    if not 0 < int(port) < 65536:
        raise UserError(f"ray_address={address!r}: port {int(port)} cannot exist (ports are 1 to 65535); the "
                        "Ray head listens on 6379 unless started otherwise", params=("ray_address",))
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise UserError(f"ray_address={address}: no Ray head answers there ({exc.strerror or exc}); start one "
                        "with `ray start --head` or leave ray_address= out to start a local Ray",
                        params=("ray_address",)) from None


class _Held:
    """What was written to file descriptor 2 inside :func:`_stderr_held`."""

    def __init__(self) -> None:
        self.text = ""

    def read(self) -> str:
        return self.text


@contextlib.contextmanager
def _stderr_held() -> Iterator[_Held]:
    """File descriptor 2 (where C++ libraries write, below Python's sys.stderr) sent to a temporary file for
    the block; what was written is kept for an error message and otherwise dropped."""
    import tempfile

    held = _Held()
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real stderr (an embedding host): nothing to hold
        yield held
        return
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield held
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            held.text = tmp.read().decode("utf-8", "replace")


def _raylet_notices(ray: Any, shown: bool) -> None:
    """Show or hide what Ray's driver prints for the raylet (Ray's own switch, which its debugger uses)."""
    worker = getattr(getattr(ray, "_private", None), "worker", None)
    if worker is not None and hasattr(worker, "_worker_logs_enabled"):
        worker._worker_logs_enabled = shown


def _lost_errors(ray: Any) -> tuple[type[BaseException], ...]:
    """Ray's exceptions for an actor that is gone (its process died, its node died, it ran out of memory)."""
    names = ("RayActorError", "WorkerCrashedError", "OutOfMemoryError", "NodeDiedError")
    return tuple(c for c in (getattr(ray.exceptions, n, None) for n in names) if isinstance(c, type))


class RayEngine(Engine):
    """Ray actors (:class:`RayScorer`), started on the first chunks to score (never more than a call has
    chunks, nor than the cluster has CPUs, or GPUs on ``device=cuda``) and kept until :meth:`close`, each
    with the backbones it built; a free actor takes the next chunk.  A chunk whose actor is lost is
    retried once on a new actor."""

    name = "ray"

    def __init__(self, *, address: str | None = None, workers: int | None = None, device: str = "auto",
                 num_cpus: int | None = None, chunk: int = DEFAULT_CHUNK) -> None:
        super().__init__(chunk)
        try:
            import ray  # noqa: F401
        except ImportError as exc:
            raise PluginError(f"engine=ray needs Ray ({exc}); {RAY_HINT}", params=("engine",)) from None
        if workers is not None:
            check_workers(workers)
        if address:
            _reachable(address)
        self.address = address
        self.workers = workers
        self.device = device
        self.num_cpus = num_cpus
        self._started = False
        self._actors: list[Any] = []
        self._remote: Any = None  # ray.remote(RayScorer) with this engine's resources, made once
        self._size = 0  # the most actors this engine runs (known once Ray is up)
        #: Actors started in this engine's life (replacements of lost ones included).
        self.started = 0

    def _init(self) -> Any:
        import ray

        if not ray.is_initialized():
            import logging

            os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")  # the C++ core's notices
            logging.getLogger("ray").setLevel(logging.ERROR)
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                      "logging_level": "ERROR", "configure_logging": True}
            if self.address:
                kwargs["address"] = self.address
            elif self.num_cpus is not None:
                kwargs["num_cpus"] = self.num_cpus
            try:
                with _stderr_held() as held:  # the C++ core's start-up line ("Set ray log level ...")
                    ray.init(**kwargs)
            except Exception as exc:  # noqa: BLE001 - Ray's own start-up failure, in one line
                said = held.read().strip().splitlines()
                raise UserError(f"engine=ray: Ray did not start ({type(exc).__name__}: {exc})"
                                + (f"; Ray said: {said[-1][:300]}" if said else ""), params=("engine",)) from None
            self._started = True
            # the driver prints raylet notices (a lost actor) on stdout, where results go: our errors say it
            _raylet_notices(ray, False)
        return ray

    def _actor_class(self, ray: Any) -> Any:
        """The remote actor class, with one GPU per actor (or one CPU), and how many actors at most."""
        if self._remote is None:
            resources = ray.cluster_resources()
            gpu = self.device == "cuda" or (self.device == "auto" and resources.get("GPU", 0) > 0)
            have = int(resources.get("GPU" if gpu else "CPU", 0))
            if have < 1:
                raise UserError(f"device={self.device}: the Ray cluster has no {'GPU' if gpu else 'CPU'} "
                                "for an actor", params=("device",))
            # an actor the cluster cannot place would hold its chunk for ever: never ask for more
            self._size = min(self.workers or have, have)
            self._remote = ray.remote(num_gpus=1 if gpu else 0, num_cpus=0 if gpu else 1)(RayScorer)
        return self._remote

    def _new_actor(self, ray: Any) -> Any:
        actor = self._actor_class(ray).remote()
        self._actors.append(actor)
        self.started += 1
        return actor

    def _drop(self, ray: Any, actor: Any) -> None:
        """Kill ``actor`` (it died, or its chunk is no longer wanted) and forget it."""
        with contextlib.suppress(Exception):
            ray.kill(actor, no_restart=True)
        if actor in self._actors:
            self._actors.remove(actor)

    def map(self, backbone: Backbone, method: str, items: Sequence[Any],
            progress: Callable[[int], None] | None = None, chunk: int | None = None,
            ) -> Iterator[tuple[list[int], BackboneOutput]]:
        chunks = plan_chunks(backbone, items, chunk or self.chunk)
        if not chunks:
            return
        recipe, state = _recipe_bytes(backbone), _pickled(backbone, backbone.export_state())
        ray = self._init()
        self._actor_class(ray)
        while len(self._actors) < min(self._size, len(chunks)):
            self._new_actor(ray)
        state_ref = ray.put(state)  # once per call, whatever the number of chunks
        lost = _lost_errors(ray)
        pending = deque(range(len(chunks)))
        free = list(self._actors)
        in_flight: dict[Any, tuple[Any, int]] = {}
        retried: set[int] = set()

        def dispatch() -> None:
            while pending and free:
                actor, n = free.pop(), pending.popleft()
                ref = actor.score.remote(n, recipe, state_ref, method, [items[i] for i in chunks[n]])
                in_flight[ref] = (actor, n)

        try:
            dispatch()
            while in_flight:
                [ref], _ = ray.wait(list(in_flight), num_returns=1)
                actor, n = in_flight.pop(ref)
                try:
                    _, raw = ray.get(ref)
                except lost as exc:
                    self._drop(ray, actor)
                    if n in retried:
                        raise self._lost(backbone, exc, len(chunks[n])) from None
                    retried.add(n)  # once more, on a new actor
                    pending.appendleft(n)
                    free.append(self._new_actor(ray))
                    dispatch()
                    continue
                except ray.exceptions.RayError as exc:
                    raise _in_parent(exc, backbone) from None
                free.append(actor)
                out = _output(raw, backbone)
                dispatch()
                if progress is not None:
                    progress(len(chunks[n]))
                yield chunks[n], out
        except BaseException:
            for actor, _ in list(in_flight.values()):
                self._drop(ray, actor)  # its chunk is no longer wanted: the next call must not wait for it
            raise

    def _lost(self, backbone: Backbone, exc: BaseException, units: int) -> PluginError:
        text = str(exc).strip().splitlines()
        return PluginError(
            f"{describe_plugin(backbone)}: the Ray actor scoring a chunk of {_units(units)} died, and so did the "
            f"new actor that took the chunk again ({type(exc).__name__}" + (f": {text[0][:200]}" if text else "")
            + f"); {KEPT}", params=("cache",))

    def close(self) -> None:
        """Kill this engine's actors, and shut Ray down if this engine started it (idempotent)."""
        if self._actors:
            with contextlib.suppress(Exception):
                import ray

                for actor in self._actors:
                    ray.kill(actor, no_restart=True)
            self._actors = []
        if self._started:
            with contextlib.suppress(Exception):
                import ray

                ray.shutdown()
                _raylet_notices(ray, True)
            self._started = False
        self._remote = None


def make_engine(name: str = "local", *, workers: int | None = None, device: str = "auto",
                ray_address: str | None = None, chunk: int = DEFAULT_CHUNK) -> Engine:
    """The engine the command line asks for: ``local`` (in-process, or :class:`Workers` when ``workers``
    is more than 1; on ``device=cuda`` one worker per visible GPU by default) or ``ray``."""
    if workers is not None:
        check_workers(workers)
    if name == "ray":
        return RayEngine(address=ray_address, workers=workers, device=device, chunk=chunk)
    if name != "local":
        raise UserError(f"engine={name!r}: choose local or ray", params=("engine",))
    if ray_address:
        raise UserError("ray_address= needs engine=ray", params=("ray_address", "engine"))
    if workers is None and device == "cuda":
        workers = max(1, len(visible_gpus()))
    if workers is None or workers == 1:
        return InProcess(chunk)
    return Workers(workers, device=device, chunk=chunk)


class Progress:
    """An overall progress bar for the units of a run, on a terminal only (never in a log file)."""

    def __init__(self, total: int, label: str, *, quiet: bool = False, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.bar: Any = None
        if quiet or total <= 0 or not getattr(self.stream, "isatty", lambda: False)():
            return
        with contextlib.suppress(ImportError):
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=label, unit="unit", file=self.stream, leave=False,
                            dynamic_ncols=True, mininterval=0.5)

    def __call__(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
