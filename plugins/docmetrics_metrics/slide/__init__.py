"""SLIDE (Raunak, Kocmi and Post, 2024): a sliding document window for quality estimation.

Registered as the ``slide`` metric (entry point ``docmetrics.metrics``).  Importing this package is
light: the backbone (COMET) is reached through the registry.
"""

from .metric import SlideMetric

__all__ = ["SlideMetric"]
