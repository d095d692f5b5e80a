"""Doc-COMET and Doc-COMET-QE (Vernikos, Thompson, Mathur and Federico, 2022).

Registered as the ``doc-comet`` and ``doc-comet-qe`` metrics (entry-point group
``docmetrics.metrics``).  Importing this package is light: the COMET model is reached through the
``comet`` backbone, loaded only when a metric scores.
"""

from .metric import DocCometMetric, DocCometQEMetric

__all__ = ["DocCometMetric", "DocCometQEMetric"]
