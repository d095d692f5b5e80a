"""Doc-Prism (Vernikos et al., 2022, section 3.2): Prism on mBART-50 with the previous reference
sentences as a forced prefix.

Registered as ``doc-prism = docmetrics_metrics.doc_prism:DocPrismMetric``.  Importing this package is light:
the backbone (``prism``) is reached through the registry.
"""

from .metric import DocPrismMetric

__all__ = ["DocPrismMetric"]
