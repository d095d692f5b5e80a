"""docmetrics: document-level MT metrics with citable signatures.

The public API is small and imports nothing heavy::

    import docmetrics
    metric = docmetrics.load("slide:w=6,s=6")
    result = metric.score(hyps, sources=srcs, doc_ids=doc_ids)
    print(result.signature, result.score)
"""

from __future__ import annotations

__version__ = "0.1.0"

from .api import build, clear_cache, get_backbone, load  # noqa: E402
from .backbone import Backbone, BackboneOutput, SigField, Unit  # noqa: E402
from .errors import (  # noqa: E402
    CapabilityError,
    DocMetricsError,
    InputError,
    ModelError,
    PluginError,
    SpecError,
    UserError,
)
from .metric import Metric  # noqa: E402
from .params import Param  # noqa: E402
from .result import Coverage, DocScore, Result, UnitScore  # noqa: E402
from .signature import Signature, parse_signature  # noqa: E402
from .spec import MetricSpec, parse_spec  # noqa: E402
from .testset import Document, TestSet  # noqa: E402

__all__ = [
    "__version__", "load", "build", "get_backbone", "clear_cache",
    "Backbone", "BackboneOutput", "SigField", "Unit", "Metric", "Param",
    "Result", "UnitScore", "DocScore", "Coverage", "Signature", "parse_signature",
    "MetricSpec", "parse_spec", "TestSet", "Document",
    "DocMetricsError", "UserError", "InputError", "SpecError", "PluginError", "ModelError",
    "CapabilityError",
]
