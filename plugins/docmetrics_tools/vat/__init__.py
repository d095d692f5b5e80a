"""VAT: variance-aware test sets (Zhan et al., 2021), as a docmetrics tool.

Score every test item (a segment, or a document for document-level metrics) with a filter metric
for every system, take the sample standard deviation of each item's scores across the (non-human)
systems, and keep only the items whose deviation is above the p-th percentile (p = 60 by default:
the 60% least discriminative items are dropped).

Command line: ``docmetrics vat ...`` (entry point ``vat`` in the group ``docmetrics.tools``) or
``python -m docmetrics_tools.vat ...``.  Library: :func:`docmetrics_tools.vat.core.select`,
:func:`docmetrics_tools.vat.core.vat_filter`.

Importing this package is light (no torch): metrics are reached through docmetrics' registry.
"""

from .core import VatResult, percentile, sample_std, select, vat_filter

__all__ = ["VatResult", "percentile", "sample_std", "select", "vat_filter"]
