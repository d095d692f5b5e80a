"""The backbone pool: one loaded model per process for every metric that uses the same backbone,
model, precision, device and options."""

from __future__ import annotations

from typing import Any

from ..plugin.backbone import Backbone

__all__ = ["get_backbone", "clear"]

_POOL: dict[tuple[Any, ...], Backbone] = {}


def get_backbone(
    backbone_cls: type[Backbone],
    model: str | None,
    *,
    precision: str = "fp32",
    device: str = "auto",
    batch_size: int | None = None,
    max_tokens: int | None = None,
    quiet: bool = True,
    **options: Any,
) -> Backbone:
    """A backbone instance, shared with every other metric in this process that uses the same
    model, precision, device and options."""
    key = (backbone_cls, model or backbone_cls.default_model, precision, device, tuple(sorted(options.items())))
    bb = _POOL.get(key)
    if bb is None:
        bb = backbone_cls(model, precision=precision, device=device, batch_size=batch_size,
                          max_tokens=max_tokens, quiet=quiet, **options)
        _POOL[key] = bb
    else:
        bb.batch_size = batch_size
        bb.max_tokens = max_tokens
        bb.quiet = quiet
    return bb


def clear() -> None:
    """Drop every pooled backbone (frees their models)."""
    _POOL.clear()
