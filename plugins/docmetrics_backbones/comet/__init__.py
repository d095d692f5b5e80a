"""docmetrics backbone plugin for COMET models (unbabel-comet).

Registered as ``comet = docmetrics_backbones.comet.backbone:CometBackbone`` in the entry-point group
``docmetrics.backbones``.  Importing this package is cheap: torch and comet are imported only when
a model is loaded.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CometBackbone"]


def __getattr__(name: str) -> Any:
    if name == "CometBackbone":
        from .backbone import CometBackbone

        return CometBackbone
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
