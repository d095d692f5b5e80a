"""docmetrics backbone plugin: LLM judges (GEMBA-DA, GEMBA-MQM, GEMBA-ESA) on a local causal LM or an
OpenAI-compatible chat-completions endpoint.

Registered as ``llm = docmetrics_backbones.llm.backbone:LlmBackbone [llm]`` in the entry-point group
``docmetrics.backbones``; prompts are files (``prompts/*.txt``) or entry points in the group
``docmetrics.llm_prompts``.  Importing this package is cheap: torch and transformers are imported only
when a model is loaded.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LlmBackbone"]


def __getattr__(name: str) -> Any:
    if name == "LlmBackbone":
        from .backbone import LlmBackbone

        return LlmBackbone
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
