"""The :class:`RayEngine`: ``N`` Ray actors (:class:`RayScorer`; ``num_gpus=1`` each on GPUs), on a local Ray
instance or a cluster (``address``); a free actor takes the next chunk, and a lost actor's chunk is tried
once more on a new actor.  Ray is imported when the engine is made."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from ...plugin.registry import describe_plugin
from ...values.errors import PluginError, UserError
from .base import DEFAULT_CHUNK, Engine, check_workers
from .transport import KEPT, raised_in_parent, score_task, shipped, units_phrase, unpack_output

if TYPE_CHECKING:
    from ...plugin.backbone import Backbone
    from ...values.units import BackboneOutput


RAY_HINT = "install it with: pip install 'docmetrics[ray]'"


class RayScorer:
    """The actor class of :class:`RayEngine` (made remote there): keeps every backbone it built, keyed
    by its recipe, for the actor's life, and scores one chunk per call."""

    def __init__(self) -> None:
        self.backbones: dict[bytes, Backbone] = {}

    def score(self, n: int, recipe: bytes, state: bytes, method: str, items: list[Any]) -> tuple[int, Any]:
        return score_task(self.backbones, n, recipe, state, method, items)


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


@contextlib.contextmanager
def _stderr_held() -> Iterator[list[str]]:
    """File descriptor 2 (where C++ libraries write, below Python's sys.stderr) sent to a temporary file for
    the block; what was written (the list's one item, once the block ends) is kept for an error message and
    otherwise dropped."""
    import tempfile

    held: list[str] = []
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
            held.append(tmp.read().decode("utf-8", "replace"))


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
                 num_cpus: int | None = None, chunk: int = DEFAULT_CHUNK,
                 notify: Callable[[str], None] | None = None) -> None:
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
        #: Told, in a phrase, what takes long before it starts (Ray's start-up, its actors): a note on stderr
        self.notify = notify or (lambda text: None)

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
            where = f"connecting to the Ray cluster at {self.address}" if self.address else "starting Ray here"
            self.notify(f"{where} (this can take a minute)...")
            main = threading.current_thread() is threading.main_thread()
            sigterm = signal.getsignal(signal.SIGTERM) if main else None
            try:
                with _stderr_held() as held:  # the C++ core's start-up line ("Set ray log level ...")
                    ray.init(**kwargs)
            except Exception as exc:  # noqa: BLE001 - Ray's own start-up failure, in one line
                said = "".join(held).strip().splitlines()
                raise UserError(f"engine=ray: Ray did not start ({type(exc).__name__}: {exc})"
                                + (f"; Ray said: {said[-1][:300]}" if said else ""), params=("engine",)) from None
            finally:
                if main and sigterm is not None:  # ray.init makes SIGTERM sys.exit(15): the command's own again
                    signal.signal(signal.SIGTERM, sigterm)
            self._started = True
            resources = ray.cluster_resources()
            self.notify(f"Ray is up ({int(resources.get('CPU', 0))} CPUs, {int(resources.get('GPU', 0))} "
                        "GPUs)")
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

    def _run(self, backbone: Backbone, method: str, items: Sequence[Any], chunks: list[list[int]],
             progress: Callable[[int], None] | None) -> Iterator[tuple[list[int], BackboneOutput]]:
        recipe, state = shipped(backbone)
        ray = self._init()
        self._actor_class(ray)
        wanted = min(self._size, len(chunks)) - len(self._actors)
        if wanted > 0:
            self.notify(f"starting {wanted} Ray worker{'s' if wanted > 1 else ''} for backbone {backbone.name!r} "
                        f"(each loads {backbone.model_name()} once)...")
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
                    raise raised_in_parent(exc, backbone) from None
                free.append(actor)
                out = unpack_output(raw, backbone)
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
            f"{describe_plugin(backbone)}: the Ray actor scoring a chunk of {units_phrase(units)} died, and so did the "
            f"new actor that took the chunk again ({type(exc).__name__}" + (f": {text[0][:200]}" if text else "")
            + f"); {KEPT}", params=("cache",))

    def close(self) -> None:
        """Kill this engine's actors, and shut Ray down if this engine started it (idempotent)."""
        if self._actors or self._started:
            import ray

            for actor in list(self._actors):
                self._drop(ray, actor)
            if self._started:
                with contextlib.suppress(Exception):
                    ray.shutdown()
                    _raylet_notices(ray, True)
        self._actors, self._started, self._remote = [], False, None

