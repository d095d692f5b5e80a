"""What a COMET model is (its kind, its input segments, its pooling) and so what it can score.

The kind is one of ``unified`` (UnifiedMetric: CometKiwi; XCOMETMetric), ``referenceless``
(ReferencelessRegression: COMET-QE) and ``regression`` (RegressionMetric: COMET-DA).  It is read from
the loaded model, or before loading from the checkpoint's hyper-parameters (hparams.yaml's class;
pooling and segments as stored in the checkpoint, which is what loading uses, else as in hparams.yaml),
so that a metric that cannot use a model is refused without loading its weights.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Tuple

from docmetrics.plugin.backbone import CAPABILITY_HELP, CURRENT_SENTENCE, QE, REFERENCE
from docmetrics.values.errors import ModelError

from .checkpoint import read_hparams_yaml

__all__ = ["Facts", "KINDS", "kind_of", "declared_facts", "declares_spans", "capabilities_of", "why_not"]

#: (kind, input segments, pooling) of a model.
Facts = Tuple[str, Tuple[str, ...], Any]

#: class_identifier in hparams.yaml -> the kind the comet backbone scores.
KINDS = {"unified_metric": "unified", "xcomet_metric": "unified",
         "referenceless_regression_metric": "referenceless", "regression_metric": "regression"}


def kind_of(model: Any, name: Any) -> tuple[str, tuple[str, ...]]:
    """(kind, input segments) of a loaded COMET model (named ``name`` in messages); ModelError for a
    class the comet backbone does not score."""
    from comet.models import ReferencelessRegression, RegressionMetric, UnifiedMetric

    if isinstance(model, UnifiedMetric):
        return "unified", tuple(model.hparams.get("input_segments", ("mt", "src", "ref")))
    if isinstance(model, ReferencelessRegression):
        return "referenceless", ("mt", "src")
    if isinstance(model, RegressionMetric):
        return "regression", ("mt", "src", "ref")
    raise ModelError(
        f"COMET model '{name}' is a {type(model).__name__}, which the comet "
        "backbone does not score (it scores UnifiedMetric, XCOMETMetric, "
        "RegressionMetric and ReferencelessRegression models)"
    )


def declared_facts(ckpt: Path, stored_hparams: Callable[[Path], dict[str, Any]]) -> Facts | None:
    """(kind, input segments, pooling) from the hyper-parameters of ``ckpt`` (``stored_hparams(ckpt)``:
    those stored in it), without loading it; None when they do not say."""
    hparams_file = ckpt.parent.parent / "hparams.yaml"
    if not hparams_file.is_file():
        return None  # loading says what is missing
    in_yaml = read_hparams_yaml(hparams_file)
    kind = KINDS.get(str(in_yaml.get("class_identifier")))
    if kind is None:
        return None
    hp = stored_hparams(ckpt) or in_yaml
    segments = {"unified": tuple(hp.get("input_segments", ("mt", "src", "ref"))),
                "referenceless": ("mt", "src")}.get(kind, ("mt", "src", "ref"))
    return kind, segments, hp.get("pool")


def declares_spans(ckpt: Path, stored_hparams: Callable[[Path], dict[str, Any]]) -> bool:
    """Whether the hyper-parameters of ``ckpt`` say it tags MT subwords with error severities (an
    XCOMETMetric; a UnifiedMetric with ``word_level_training``), without loading it."""
    try:
        in_yaml = read_hparams_yaml(ckpt.parent.parent / "hparams.yaml")
    except Exception:  # noqa: BLE001 - loading says what is wrong
        return False
    if in_yaml.get("class_identifier") == "xcomet_metric":
        return True
    hp = stored_hparams(ckpt) or in_yaml
    return in_yaml.get("class_identifier") == "unified_metric" and bool(hp.get("word_level_training"))


def capabilities_of(facts: Facts, qe: bool | None) -> frozenset[str]:
    """What a model of these facts can do, given the backbone's ``qe`` (None: unset)."""
    kind, segments, pool = facts
    caps: set[str] = set()
    if kind == "unified":
        if "src" in segments:
            caps.add(QE)
        if "ref" in segments:
            caps.add(REFERENCE)
    else:
        caps.add(QE if kind == "referenceless" else REFERENCE)
        if pool == "avg":
            caps.add(CURRENT_SENTENCE)
    if qe is not None:
        caps.discard(REFERENCE if qe else QE)
    return frozenset(caps)


def why_not(facts: Facts, qe: bool | None, capability: str) -> str | None:
    """Why a model of these facts lacks ``capability``; None where the kind does not say."""
    kind, segments, pool = facts
    if capability == QE and qe is False:
        return "it is given the reference (qe=no); pass qe=yes, or leave qe out, to score without it"
    if capability == REFERENCE and qe is True:
        return "it is given no reference (qe=yes); pass qe=no, or leave qe out, to score against it"
    if capability == CURRENT_SENTENCE and kind == "unified":
        return ("it pools the CLS token (it is a UnifiedMetric, as CometKiwi and XCOMET are), so it "
                "cannot encode context and score the current sentence alone")
    if capability == CURRENT_SENTENCE:
        return f"it pools by {pool!r}, not by average, so it cannot score the current sentence alone"
    if capability == QE and kind == "regression":
        return "it is a reference-based RegressionMetric (as COMET-DA is): it needs a reference"
    if capability == REFERENCE and kind == "referenceless":
        return "it is a reference-free ReferencelessRegression (COMET-QE): it takes no reference"
    if kind == "unified":
        return f"its inputs are {' + '.join(segments)}, so it cannot {CAPABILITY_HELP.get(capability, capability)}"
    return None
