"""The engine contract: the chunks every engine scores (:func:`plan_chunks`), one checked call of a
backbone (:func:`call_backbone`), the :class:`Engine` base and :class:`InProcess`, the default engine.
Importing this module imports only the standard library."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from ...plugin.registry import describe_plugin, plugin_fault
from ...values.errors import PluginError, UserError

if TYPE_CHECKING:
    from ...plugin.backbone import Backbone
    from ...values.units import BackboneOutput

#: Units per chunk: one backbone call, one shard of a parallel engine, one commit of the score cache.
DEFAULT_CHUNK = 1024


def plan_chunks(backbone: Backbone, items: Sequence[Any], size: int = DEFAULT_CHUNK) -> list[list[int]]:
    """Positions of ``items`` in chunks of at most ``size``, ordered by the backbone's chunk key (ties
    in the order given), so that every engine scores the same chunks.  A chunk ends where the key changes
    when it can: the units of one key (say, every system's units of one source) stay in one chunk unless
    they alone are more than ``size``, so what they share is embedded once, not once per chunk."""
    keys = [backbone.chunk_key(item) for item in items]
    order = sorted(range(len(items)), key=lambda i: (keys[i], i))
    chunks: list[list[int]] = []
    start = 0
    while start < len(order):
        end = min(start + size, len(order))
        if end < len(order) and keys[order[end]] == keys[order[end - 1]]:  # the cut would split a key's units
            cut = end - 1
            while cut > start and keys[order[cut]] == keys[order[cut - 1]]:
                cut -= 1
            end = cut if cut > start else end  # back to where the key changes, if it does in this chunk
        chunks.append(order[start:end])
        start = end
    return chunks


def call_backbone(backbone: Backbone, method: str, items: list[Any]) -> BackboneOutput:
    """``backbone.<method>(items)``, checked: a user's mistake the backbone reports passes through;
    anything else it raises, or an output of the wrong size or with a non-number, is a PluginError that
    names the plugin."""
    with plugin_fault(backbone, f"in {method}() on {len(items)} units"):
        out = getattr(backbone, method)(items)
    from ...values.units import BackboneOutput

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
        """The chunks of ``items`` (:func:`plan_chunks`, ``chunk`` units at most: the engine's size unless
        given), each yielded with its positions as soon as ``backbone.<method>`` has scored it (``progress``
        is told how many units each was)."""
        chunks = plan_chunks(backbone, items, chunk or self.chunk)
        if chunks:
            yield from self._run(backbone, method, items, chunks, progress)

    def _run(self, backbone: Backbone, method: str, items: Sequence[Any], chunks: list[list[int]],
             progress: Callable[[int], None] | None) -> Iterator[tuple[list[int], BackboneOutput]]:
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

    def _run(self, backbone: Backbone, method: str, items: Sequence[Any], chunks: list[list[int]],
             progress: Callable[[int], None] | None) -> Iterator[tuple[list[int], BackboneOutput]]:
        for part in chunks:
            out = call_backbone(backbone, method, [items[i] for i in part])
            if progress is not None:
                progress(len(part))
            yield part, out


def check_workers(n: Any) -> int:
    """``n`` if it is a whole number >= 1 (a number of worker processes or actors), else UserError."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise UserError(f"workers={n!r}: give a whole number >= 1", params=("workers",))
    return n

