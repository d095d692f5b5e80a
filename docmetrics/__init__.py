"""docmetrics: document-level MT metrics with citable signatures.

The public API is small and imports nothing heavy::

    import docmetrics
    metric = docmetrics.load("slide:w=6,s=6")
    result = metric.score(hyps, sources=srcs, doc_ids=doc_ids)
    print(result.signature, result.score)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .algorithms.aggregation import Aggregation, MeanOfGroupMeans, WeightedMean
from .api import build, load
from .plugin.backbone import (
    CURRENT_SENTENCE,
    FORCE_DECODE,
    QE,
    REFERENCE,
    SIMILARITY,
    TOKEN_MATCHING,
    Backbone,
    BackboneOutput,
    SigField,
    Unit,
)
from .plugin.metric import Metric, Scorer
from .plugin.models import (
    declared_token,
    find_model,
    fingerprint,
    hub_offline,
    looks_like_hub_id,
    looks_like_path,
    model_not_found,
    quiet_libraries,
)
from .runtime.session import Session
from .values.errors import (
    CapabilityError,
    DocMetricsError,
    InputError,
    ModelError,
    PluginError,
    SpecError,
    UserError,
)
from .values.io import read_testset
from .values.params import Param
from .values.result import Coverage, DocScore, Result, UnitScore
from .values.signature import Signature, parse_signature
from .values.spec import MetricSpec, parse_spec
from .values.testset import Document, TestSet
from .values.units import ScoringUnit, UnitPlan
from .values.versions import __version__

__all__ = [
    "__version__", "load", "build", "Session", "Scorer",
    "Backbone", "BackboneOutput", "SigField", "Unit", "Metric", "Param", "ScoringUnit", "UnitPlan",
    "Aggregation", "WeightedMean", "MeanOfGroupMeans",
    "QE", "REFERENCE", "CURRENT_SENTENCE", "SIMILARITY", "FORCE_DECODE", "TOKEN_MATCHING",
    "Result", "UnitScore", "DocScore", "Coverage", "Signature", "parse_signature",
    "MetricSpec", "parse_spec", "TestSet", "Document", "read_testset",
    "DocMetricsError", "UserError", "InputError", "SpecError", "PluginError", "ModelError",
    "CapabilityError",
    "find_model", "model_not_found", "fingerprint", "hub_offline", "looks_like_hub_id", "looks_like_path",
    "quiet_libraries", "declared_token",
    "read_human", "EvalSet", "HumanFormat", "meta_evaluate", "MetaEvaluation", "human_clusters", "ClusterRule",
    "autorank", "span_f1", "compare_systems", "confidence_intervals", "write_report", "sweep", "mbr", "rerank",
    "CandidateSelection",
]

if TYPE_CHECKING:
    from .judging import (
        CandidateSelection,
        ClusterRule,
        EvalSet,
        HumanFormat,
        MetaEvaluation,
        autorank,
        compare_systems,
        confidence_intervals,
        human_clusters,
        mbr,
        meta_evaluate,
        read_human,
        rerank,
        span_f1,
        sweep,
        write_report,
    )


def __getattr__(name: str) -> Any:
    """The judging API (:mod:`docmetrics.judging`: the names of ``__all__`` not imported above), imported when
    first used: ``import docmetrics`` stays light."""
    if name in __all__:
        from . import judging

        return getattr(judging, name)
    raise AttributeError(f"module 'docmetrics' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
