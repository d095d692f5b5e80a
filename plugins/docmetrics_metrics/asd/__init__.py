"""ASD (Align-then-Slide): whole-document MT evaluation when sentences do not line up.

Registered as the ``asd`` metric (entry point ``docmetrics.metrics``).  Importing this package is
light: the aligner and scorer backbones are reached through the registry, segmenters through
``docmetrics.segmenters``.  :mod:`docmetrics_metrics.asd.align` holds the Align stage as pure functions.
"""

from .metric import AsdMetric

__all__ = ["AsdMetric"]
