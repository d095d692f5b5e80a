"""BLEU, chrF and TER computed by sacrebleu, per segment and per document (d-BLEU, d-chrF, d-TER).

Registered as the ``bleu``, ``chrf``, ``ter``, ``d-bleu``, ``d-chrf`` and ``d-ter`` metrics (entry
point ``docmetrics.metrics``).  No backbone: sacrebleu (a core dependency) computes every number; the
corpus scores are sacrebleu's scores of summed segment statistics (:mod:`.aggregation`).
"""

from .metric import BleuMetric, ChrfMetric, DocBleuMetric, DocChrfMetric, DocTerMetric, SacrebleuMetric, TerMetric

__all__ = ["SacrebleuMetric", "BleuMetric", "ChrfMetric", "TerMetric", "DocBleuMetric", "DocChrfMetric",
           "DocTerMetric"]
