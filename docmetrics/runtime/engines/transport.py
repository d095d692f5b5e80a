"""What crosses between this process and a worker process or a Ray actor: a task scored on the far side
(the backbone built from its pickled recipe and kept, its state imported, a failure made portable), and
back in the parent the output unpacked or the failure raised here; what the parent says when the far side
is lost."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

from ...plugin.registry import describe_plugin
from ...values.errors import PluginError, UserError
from .base import call_backbone

if TYPE_CHECKING:
    from ...plugin.backbone import Backbone
    from ...values.units import BackboneOutput


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


def score_task(backbones: dict[bytes, Backbone], n: int, recipe: bytes, state: bytes, method: str,
               items: list[Any]) -> tuple[int, Any]:
    """``(n, output as plain lists)``, or ``(n, the exception)``: a worker never raises, its parent does."""
    try:
        out = call_backbone(_built(backbones, recipe, state), method, items)
        return n, (out.scores, out.truncated, out.counters, out.unit_counters, out.unit_details)
    except BaseException as exc:  # noqa: BLE001 - reported in the parent, which stops the run
        return n, _portable(exc)


# -- back in the parent -----------------------------------------------------------------------------------
def unpack_output(raw: Any, backbone: Backbone) -> BackboneOutput:
    """The output a worker sent, or the exception it reported raised here (see :func:`raised_in_parent`)."""
    from ...values.units import BackboneOutput

    if isinstance(raw, BaseException):
        raise raised_in_parent(raw, backbone)
    scores, truncated, counters, unit_counters, unit_details = raw
    return BackboneOutput(list(scores), list(truncated), dict(counters), unit_counters, unit_details)


def raised_in_parent(exc: BaseException, backbone: Backbone) -> BaseException:
    """A user's mistake, a PluginError, Ctrl-C or MemoryError unchanged; anything else (a backbone that
    cannot be built in a worker, a plugin calling sys.exit) a PluginError naming the plugin."""
    if isinstance(exc, (UserError, KeyboardInterrupt, MemoryError)):
        return exc
    text = str(exc).strip().splitlines()
    what = "" if type(exc) is Exception else type(exc).__name__  # a plain Exception: what _portable made
    return PluginError(f"{describe_plugin(backbone)} failed in a worker: " + ": ".join(
        part for part in (what, text[0][:300] if text else "") if part))


def shipped(backbone: Backbone) -> tuple[bytes, bytes]:
    """The backbone's recipe and its state, pickled for another process; else a PluginError naming it."""
    try:
        return pickle.dumps(backbone.recipe()), pickle.dumps(backbone.export_state())
    except Exception as exc:  # noqa: BLE001
        raise PluginError(
            f"{describe_plugin(backbone)} cannot be sent to another process ({type(exc).__name__}: {exc}); "
            "use one worker (workers=1) or make its class importable and its parameters picklable",
            params=("workers",),
        ) from None


#: What a message about a lost worker says the user can do (the chunks scored before were stored).
KEPT = ("the chunks already scored were kept: with a score cache (cache=PATH) the same run again resumes "
        "from them")


def units_phrase(n: int) -> str:
    return f"{n} unit" if n == 1 else f"{n} units"

