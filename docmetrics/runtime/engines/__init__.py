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
float noise of a different thread count; 1e-6 in fp32).  Importing this package imports only the
standard library.

The modules: :mod:`.base` (the chunks, a checked backbone call, :class:`Engine`, :class:`InProcess`),
:mod:`.transport` (tasks and outputs between processes), :mod:`.workers`, :mod:`.ray`, :mod:`.progress`;
:func:`make_engine`, here, picks one for the command line.
"""

from __future__ import annotations

from typing import Callable

from ...values.errors import UserError
from .base import DEFAULT_CHUNK, Engine, InProcess, call_backbone, check_workers, plan_chunks
from .progress import Progress
from .ray import RAY_HINT, RayEngine, RayScorer
from .transport import KEPT
from .workers import Workers, visible_gpus

__all__ = [
    "DEFAULT_CHUNK", "Engine", "InProcess", "Workers", "RayEngine", "plan_chunks", "call_backbone",
    "make_engine", "Progress", "RayScorer", "RAY_HINT", "KEPT", "check_workers", "visible_gpus",
]


def make_engine(name: str = "local", *, workers: int | None = None, device: str = "auto",
                ray_address: str | None = None, notify: Callable[[str], None] | None = None) -> Engine:
    """The engine the command line asks for: ``local`` (in-process, or :class:`Workers` when ``workers``
    is more than 1; on ``device=cuda`` one worker per visible GPU by default) or ``ray`` (``notify`` is
    told, before it happens, that Ray and its workers start)."""
    if workers is not None:
        check_workers(workers)
    if name == "ray":
        return RayEngine(address=ray_address, workers=workers, device=device, notify=notify)
    if name != "local":
        raise UserError(f"engine={name!r}: choose local or ray", params=("engine",))
    if ray_address:
        raise UserError("ray_address= needs engine=ray", params=("ray_address", "engine"))
    if workers is None and device == "cuda":
        workers = max(1, len(visible_gpus()))
    if workers is None or workers == 1:
        return InProcess()
    return Workers(workers, device=device)

