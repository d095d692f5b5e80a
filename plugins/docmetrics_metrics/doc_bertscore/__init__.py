"""Doc-BERTScore (Vernikos et al., 2022): BERTScore with the previous reference sentences as context.

Registered as the ``doc-bertscore`` metric (entry point ``docmetrics.metrics``).  Importing this
package is light: the backbone (bert-score) is reached through the registry.
"""

from .metric import DocBertScoreMetric

__all__ = ["DocBertScoreMetric"]
