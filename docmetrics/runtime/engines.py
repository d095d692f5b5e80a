"""Engines: where the units that the score cache could not answer are scored.

Every engine does the same thing with the same numbers: it orders the distinct units by the
backbone's :meth:`~docmetrics.plugin.backbone.Backbone.chunk_key` (units of similar length, and units
that share inputs, together), cuts them into chunks of :data:`DEFAULT_CHUNK` units, has each chunk
scored by one call of the backbone, and hands each chunk's output back as soon as it is done, so that
the score cache stores it at once (an interrupted run resumes where it stopped) and no more than a
chunk's model state is held at a time (peak memory depends on the chunk, not on the test set).

* :class:`InProcess` (the default): this process, one chunk after another.
* :class:`Workers`: ``N`` processes on this machine, each with its own copy of the backbone built
  once from :meth:`~docmetrics.plugin.backbone.Backbone.recipe`; a free worker takes the next chunk,
  so long and short chunks balance out.  With ``device=cuda`` each worker sees one GPU.
* :class:`RayEngine`: Ray Data's ``map_batches`` with an actor class, so every actor loads the backbone
  once (``num_gpus`` per actor on GPUs); on a local Ray instance or a cluster (``address``).

The chunks are the same whichever engine scores them, so the engines give the same numbers (up to the
float noise of a different thread count; 1e-6 in fp32).  The active engine is set by the command line
(``--workers``, ``--engine``) or with :func:`using`; :class:`~docmetrics.runtime.scoring.CachingScorer`
uses it.  Importing this module imports only the standard library.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import socket
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from ..plugin.registry import describe_plugin
from ..values.errors import PluginError, UserError

if TYPE_CHECKING:
    from ..plugin.backbone import Backbone
    from ..values.units import BackboneOutput

__all__ = [
    "DEFAULT_CHUNK", "Engine", "InProcess", "Workers", "RayEngine", "plan_chunks", "call_backbone",
    "active_engine", "set_engine", "using", "make_engine",
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
    try:
        out = getattr(backbone, method)(items)
    except UserError:
        raise
    except (MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - a plugin's bug: name the plugin, not a traceback
        text = str(exc).strip().splitlines()
        raise PluginError(
            f"{describe_plugin(backbone)} failed in {method}() on {len(items)} units: {type(exc).__name__}"
            + (f": {text[0][:300]}" if text else "") + "; the backbone is broken for these inputs "
            "(--debug shows the traceback)"
        ) from exc
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


# -- worker processes -----------------------------------------------------------------------------------
_WORKER: dict[str, Any] = {"backbones": {}}


def _worker_init(ranks: Any, device: str, gpus: list[str], threads: int) -> None:
    rank = ranks.get()
    _WORKER["rank"] = rank
    if device == "cuda" and gpus:
        os.environ["CUDA_VISIBLE_DEVICES"] = gpus[rank % len(gpus)]
    if threads > 0:
        with contextlib.suppress(Exception):
            import torch

            torch.set_num_threads(threads)


def _built(recipe: bytes, state: dict[str, Any]) -> Backbone:
    """The worker's copy of a backbone (built once per recipe), with ``state`` imported."""
    backbones: dict[bytes, Any] = _WORKER["backbones"]
    bb = backbones.get(recipe)
    if bb is None:
        cls, name, kwargs = pickle.loads(recipe)
        bb = cls(**kwargs)
        if name and getattr(bb, "name", "") != name:
            bb.name = name
        backbones[recipe] = bb
    bb.import_state(state)
    return bb


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else a PluginError with its text."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001
        return PluginError(f"{type(exc).__name__}: {exc}")


def _score_task(task: tuple[int, bytes, dict[str, Any], str, list[Any]]) -> tuple[int, Any]:
    n, recipe, state, method, items = task
    try:
        bb = _built(recipe, state)
        out = call_backbone(bb, method, items)
        return n, (out.scores, out.truncated, out.counters, out.unit_counters)
    except BaseException as exc:  # noqa: BLE001 - reported in the parent, which stops the run
        return n, _portable(exc)


def _output(raw: Any) -> BackboneOutput:
    from ..values.units import BackboneOutput

    if isinstance(raw, BaseException):
        raise raw
    scores, truncated, counters, unit_counters = raw
    return BackboneOutput(list(scores), list(truncated), dict(counters), unit_counters)


def _recipe_bytes(backbone: Backbone) -> bytes:
    try:
        return pickle.dumps(backbone.recipe())
    except Exception as exc:  # noqa: BLE001
        raise PluginError(
            f"{describe_plugin(backbone)} cannot be sent to another process ({type(exc).__name__}: {exc}); "
            "use one worker (--workers 1) or make its class importable and its parameters picklable"
        ) from None


def check_workers(n: Any) -> int:
    """``n`` if it is a whole number >= 1 (a number of worker processes or actors), else UserError."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise UserError(f"--workers must be a whole number >= 1, not {n!r}")
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


class Workers(Engine):
    """``n`` worker processes on this machine (spawned; each builds the backbone once)."""

    name = "workers"

    def __init__(self, n: int, *, device: str = "auto", chunk: int = DEFAULT_CHUNK) -> None:
        super().__init__(chunk)
        self.n = check_workers(n)
        self.device = device
        self._pool: Any = None

    def _start(self) -> Any:
        if self._pool is None:
            import multiprocessing

            ctx = multiprocessing.get_context("spawn")
            ranks = ctx.Queue()
            for r in range(self.n):
                ranks.put(r)
            gpus = visible_gpus() if self.device == "cuda" else []
            threads = 0 if self.device == "cuda" else max(1, (os.cpu_count() or 1) // self.n)
            self._pool = ctx.Pool(self.n, initializer=_worker_init, initargs=(ranks, self.device, gpus, threads))
        return self._pool

    def map(self, backbone: Backbone, method: str, items: Sequence[Any],
            progress: Callable[[int], None] | None = None, chunk: int | None = None,
            ) -> Iterator[tuple[list[int], BackboneOutput]]:
        chunks = plan_chunks(backbone, items, chunk or self.chunk)
        if not chunks:
            return
        recipe = _recipe_bytes(backbone)
        state = backbone.export_state()
        pool = self._start()
        tasks = ((n, recipe, state, method, [items[i] for i in chunk]) for n, chunk in enumerate(chunks))
        try:
            for n, raw in pool.imap_unordered(_score_task, tasks):
                out = _output(raw)
                if progress is not None:
                    progress(len(chunks[n]))
                yield chunks[n], out
        except BaseException:
            self.close()  # stop the other workers' chunks at once
            raise

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


# -- Ray -------------------------------------------------------------------------------------------------
RAY_HINT = "install it with: pip install 'docmetrics[ray]'"


class RayScorer:
    """The actor class of :class:`RayEngine`: builds the backbone once, scores one chunk per row."""

    def __init__(self, recipe: bytes, state: dict[str, Any], method: str) -> None:
        self.recipe, self.state, self.method = recipe, state, method

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        results = []
        for n, payload in zip(batch["chunk"], batch["payload"]):
            _, raw = _score_task((int(n), self.recipe, self.state, self.method, pickle.loads(payload)))
            results.append(pickle.dumps(raw))
        out = np.empty(len(results), dtype=object)
        out[:] = results
        return {"chunk": np.asarray(batch["chunk"]), "result": out}


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
        raise UserError(f"--ray-address {address!r}: give HOST:PORT of the Ray head (e.g. 10.0.0.1:6379), "
                        "ray://HOST:PORT, or auto")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise UserError(f"--ray-address {address}: no Ray head answers there ({exc.strerror or exc}); start one "
                        "with `ray start --head` or leave --ray-address out to start a local Ray") from None


class RayEngine(Engine):
    """Ray Data: the chunks as a Dataset, scored by ``map_batches`` with :class:`RayScorer` actors."""

    name = "ray"

    def __init__(self, *, address: str | None = None, workers: int | None = None, device: str = "auto",
                 num_cpus: int | None = None, chunk: int = DEFAULT_CHUNK) -> None:
        super().__init__(chunk)
        try:
            import ray  # noqa: F401
            import ray.data  # noqa: F401
        except ImportError as exc:
            raise PluginError(f"--engine ray needs Ray Data ({exc}); {RAY_HINT}") from None
        if workers is not None:
            check_workers(workers)
        if address:
            _reachable(address)
        self.address = address
        self.workers = workers
        self.device = device
        self.num_cpus = num_cpus
        self._started = False

    def _init(self) -> Any:
        import ray

        if not ray.is_initialized():
            import logging

            os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")  # the C++ core's notices
            for name in ("ray", "ray.data"):
                logging.getLogger(name).setLevel(logging.ERROR)
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                      "logging_level": "ERROR", "configure_logging": True}
            if self.address:
                kwargs["address"] = self.address
            elif self.num_cpus is not None:
                kwargs["num_cpus"] = self.num_cpus
            try:
                ray.init(**kwargs)
            except Exception as exc:  # noqa: BLE001 - Ray's own start-up failure, in one line
                raise UserError(f"--engine ray: Ray did not start ({type(exc).__name__}: {exc})") from None
            self._started = True
            import ray.data

            ctx = ray.data.DataContext.get_current()
            ctx.enable_progress_bars = False
            ctx.verbose_stats_logs = False
        return ray

    def map(self, backbone: Backbone, method: str, items: Sequence[Any],
            progress: Callable[[int], None] | None = None, chunk: int | None = None,
            ) -> Iterator[tuple[list[int], BackboneOutput]]:
        chunks = plan_chunks(backbone, items, chunk or self.chunk)
        if not chunks:
            return
        ray = self._init()
        recipe = _recipe_bytes(backbone)
        gpu = self.device == "cuda" or (self.device == "auto" and ray.cluster_resources().get("GPU", 0) > 0)
        actors = self.workers or max(1, int(ray.cluster_resources().get("GPU" if gpu else "CPU", 1)))
        rows = [{"chunk": n, "payload": pickle.dumps([items[i] for i in chunk])} for n, chunk in enumerate(chunks)]
        ds = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
            RayScorer, batch_size=1, batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=min(actors, len(rows))),
            num_gpus=1 if gpu else 0, num_cpus=0 if gpu else 1,
            fn_constructor_kwargs={"recipe": recipe, "state": backbone.export_state(), "method": method},
        )
        for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
            for n, raw in zip(batch["chunk"], batch["result"]):
                out = _output(pickle.loads(raw))
                if progress is not None:
                    progress(len(chunks[int(n)]))
                yield chunks[int(n)], out

    def close(self) -> None:
        if self._started:
            with contextlib.suppress(Exception):
                import ray

                ray.shutdown()
            self._started = False


# -- the active engine ------------------------------------------------------------------------------------
_ACTIVE: Engine | None = None


def active_engine() -> Engine:
    """The engine scorers use when none is given to them: the one set, else :class:`InProcess`."""
    return _ACTIVE if _ACTIVE is not None else InProcess()


def set_engine(engine: Engine | None) -> None:
    """Make ``engine`` the active one (None: back to in-process); the previous one is closed."""
    global _ACTIVE
    if _ACTIVE is not None and _ACTIVE is not engine:
        _ACTIVE.close()
    _ACTIVE = engine


@contextlib.contextmanager
def using(engine: Engine, *, close: bool = True) -> Iterator[Engine]:
    """``engine`` is the active one inside the ``with`` block (closed at its end unless ``close`` is
    false: an engine kept for several blocks keeps its workers and their loaded models)."""
    global _ACTIVE
    previous = _ACTIVE
    _ACTIVE = engine
    try:
        yield engine
    finally:
        if close:
            engine.close()
        _ACTIVE = previous


def make_engine(name: str = "local", *, workers: int | None = None, device: str = "auto",
                ray_address: str | None = None, chunk: int = DEFAULT_CHUNK) -> Engine:
    """The engine the command line asks for: ``local`` (in-process, or :class:`Workers` when ``workers``
    is more than 1; on ``device=cuda`` one worker per visible GPU by default) or ``ray``."""
    if workers is not None:
        check_workers(workers)
    if name == "ray":
        return RayEngine(address=ray_address, workers=workers, device=device, chunk=chunk)
    if name != "local":
        raise UserError(f"--engine {name!r}: choose local or ray")
    if ray_address:
        raise UserError("--ray-address needs --engine ray")
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
