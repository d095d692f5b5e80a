"""docmetrics backbone plugin: MetricX-23 and MetricX-24 error scores on an mT5 checkpoint.

Registered as ``metricx = docmetrics_backbones.metricx.backbone:MetricxBackbone [metricx]`` in the entry-point
group ``docmetrics.backbones``.  Importing this package is cheap: torch and transformers are imported only
when a model is loaded.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MetricxBackbone"]


def __getattr__(name: str) -> Any:
    if name == "MetricxBackbone":
        from .backbone import MetricxBackbone

        return MetricxBackbone
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
