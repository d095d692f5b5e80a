"""docmetrics backbone plugin: Prism scoring on a sequence-to-sequence model of the mBART family.

Registered as ``prism = docmetrics_backbones.prism.backbone:PrismBackbone [prism]`` in the entry-point group
``docmetrics.backbones``.  Importing this package is cheap: torch and transformers are imported only
when a model is loaded.
"""

from __future__ import annotations

from typing import Any

from .languages import ISO_TO_MBART, MBART50_CODES, mbart_code

__all__ = ["PrismBackbone", "MBART50_CODES", "ISO_TO_MBART", "mbart_code"]


def __getattr__(name: str) -> Any:
    if name == "PrismBackbone":
        from .backbone import PrismBackbone

        return PrismBackbone
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
