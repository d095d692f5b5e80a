"""A tiny MetricX built offline, for tests and for plugin authors (the ``metricx`` backbone).

:func:`build_tiny_metricx` writes two directories, laid out as MetricX's are published::

    <dir>/model/       config.json (model_type mt5, architectures MT5ForRegression), model.safetensors
    <dir>/tokenizer/   spiece.model, tokenizer_config.json, special_tokens_map.json, tokenizer.json

The checkpoint ships no tokenizer (as google/metricx-24-* ship none); the tokenizer is a ``T5Tokenizer``
over a SentencePiece unigram model trained on a few hundred generated sentences, with mT5's 100
``<extra_id_*>`` tokens after the pieces (so ``<extra_id_10>`` is the 90th from the end, as id 250089 is
in mT5's 250100).  The model is a randomly initialised ``MT5ForConditionalGeneration`` (d_model 32, 2
encoder and 2 decoder layers, untied output layer as in mT5) whose output row of ``<extra_id_10>`` is
set (and its cross-attention strengthened) so that the first-step logits of MetricX-style inputs
vary with the input and spread over roughly 4..20 instead of sitting at 0, where the clamp to
[0, 25] would hide differences.  The same seed gives the same
files; the scores mean nothing.

Importing this module is cheap: torch, sentencepiece and transformers are imported inside
:func:`build_tiny_metricx`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple, Sequence

from docmetrics.plugin.models import quiet_libraries

__all__ = ["TinyMetricx", "build_tiny_metricx"]

#: Where the calibrated first-step logits of the tiny model centre, and their spread.
_CENTRE, _SPREAD = 12.0, 4.0


class TinyMetricx(NamedTuple):
    """The two directories :func:`build_tiny_metricx` writes: ``model=`` and ``tokenizer=``."""

    model: Path
    tokenizer: Path


def _fast_tokenizer(slow: Any) -> Any | None:
    """The fast T5 tokenizer converted from ``slow``, or None when it cannot be converted
    (sentencepiece's protobuf module may need a newer protobuf: transformers' own is tried next)."""
    import importlib

    from transformers import T5TokenizerFast

    cst = importlib.import_module("transformers.convert_slow_tokenizer")
    try:
        backend = cst.T5Converter(slow).converted()
    except (ImportError, TypeError, AttributeError):
        try:
            from transformers.utils import sentencepiece_model_pb2_new

            original = cst.import_protobuf
            cst.import_protobuf = lambda *a, **k: sentencepiece_model_pb2_new
            try:
                backend = cst.T5Converter(slow).converted()
            finally:
                cst.import_protobuf = original
        except Exception:  # noqa: BLE001 - the slow tokenizer alone is enough
            return None
    return T5TokenizerFast(tokenizer_object=backend, vocab_file=slow.vocab_file, extra_ids=100)


def build_tiny_metricx(
    out_dir: str | os.PathLike[str],
    seed: int = 0,
    *,
    sentences: Sequence[str] | None = None,
    vocab_size: int = 300,
    d_model: int = 32,
    layers: int = 2,
    tie_word_embeddings: bool = False,
) -> TinyMetricx:
    """Write a tiny random MetricX (an mT5 checkpoint and, apart, its tokenizer) under ``out_dir``.

    ``sentences`` train the SentencePiece model (default: :func:`docmetrics_backbones.tiny.sample_sentences`);
    ``vocab_size`` bounds its pieces (100 ``<extra_id_*>`` tokens follow them; the model's vocabulary
    has 12 rows more than the tokenizer, as mT5's 250112 beside 250100).  ``tie_word_embeddings``
    ties the output layer to the embeddings (mT5 does not; T5 v1.0 did), which makes MetricX rescale
    the decoder's output by d_model ** -0.5.  Weights are drawn from ``seed``.
    """
    import torch
    from transformers import MT5Config, MT5ForConditionalGeneration, T5Tokenizer

    from ..tiny import sample_sentences, train_sentencepiece

    root = Path(out_dir)
    model_dir, tok_dir = root / "model", root / "tokenizer"
    model_dir.mkdir(parents=True, exist_ok=True)
    tok_dir.mkdir(parents=True, exist_ok=True)
    if sentences is None:
        sentences = sample_sentences()
    spm_path = tok_dir / "spiece.model"
    # mT5's pieces: <pad> 0, </s> 1, <unk> 2, then the vocabulary (no <s>)
    spm_path.write_bytes(train_sentencepiece(sentences, vocab_size, pad_id=0, eos_id=1, unk_id=2, bos_id=-1,
                                             seed_sentencepiece_size=100000))
    with quiet_libraries():
        tok = T5Tokenizer(str(spm_path), extra_ids=100, legacy=True)
        fast = _fast_tokenizer(tok)
        tok.save_pretrained(str(tok_dir))
        if fast is not None:  # last: its tokenizer_config.json loads tokenizer.json as it is, no conversion
            fast.save_pretrained(str(tok_dir))
        config = MT5Config(
            vocab_size=len(tok) + 12,
            d_model=d_model,
            d_kv=d_model // 4,
            d_ff=2 * d_model,
            num_layers=layers,
            num_decoder_layers=layers,
            num_heads=4,
            relative_attention_num_buckets=8,
            relative_attention_max_distance=32,
            feed_forward_proj="gated-gelu",
            tie_word_embeddings=tie_word_embeddings,
            dropout_rate=0.1,
            pad_token_id=tok.pad_token_id,
            eos_token_id=tok.eos_token_id,
            decoder_start_token_id=tok.pad_token_id,
        )
        torch.manual_seed(seed)
        model = MT5ForConditionalGeneration(config).eval()
        _calibrate(model, tok, sentences)
        model.config.architectures = ["MT5ForRegression"]  # what MetricX's config.json says
        model.save_pretrained(str(model_dir), safe_serialization=True)
    for extra in ("generation_config.json",):  # MetricX checkpoints have config.json and the weights only
        (model_dir / extra).unlink(missing_ok=True)
    return TinyMetricx(model_dir, tok_dir)


def _calibrate(model: Any, tok: Any, sentences: Sequence[str]) -> None:
    """Make the first-step logit of ``<extra_id_10>`` depend on the input and spread over about 4..20.

    The decoder's only input is the same token for every input, so a random decoder's state barely
    varies; its cross-attention outputs are scaled up (x4) so that the encoder's input weighs more.  The
    output row of the score token is then the mean decoder state (scaled to give 12) plus the first
    principal direction of the states' variation (scaled to a spread of 4), both measured on
    MetricX-style inputs made from ``sentences``."""
    import torch

    score_id = tok.convert_tokens_to_ids("<extra_id_10>")
    texts = [f"source: {sentences[i]} candidate: {sentences[i + 1]}" + (f" reference: {sentences[i + 2]}" if i % 2
                                                                          else "")
             for i in range(0, min(len(sentences) - 2, 400), 3)]
    enc = tok(texts, padding=True, return_tensors="pt")
    start = torch.full((len(texts), 1), model.config.decoder_start_token_id, dtype=torch.long)
    with torch.no_grad():
        for block in model.decoder.block:
            block.layer[1].EncDecAttention.o.weight.mul_(4.0)
        hidden = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                       decoder_input_ids=start, output_hidden_states=True).decoder_hidden_states[-1][:, 0]
        if model.config.tie_word_embeddings:
            hidden = hidden * model.config.d_model ** -0.5
        hidden = hidden.double()
        mean = hidden.mean(dim=0)
        direction = torch.linalg.svd(hidden - mean, full_matrices=False).Vh[0]
        direction -= (direction @ mean) / (mean @ mean) * mean
        row = _CENTRE * mean / (mean @ mean) + (_SPREAD / (hidden @ direction).std()) * direction
        head = model.get_output_embeddings()  # tied: the shared embedding row changes too
        head.weight[score_id] = row.to(head.weight.dtype)
