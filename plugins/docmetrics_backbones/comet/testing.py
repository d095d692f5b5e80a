"""Tiny COMET checkpoints built offline, for tests and for third-party plugin authors.

:func:`build_tiny_comet` wraps a tiny XLM-R-shaped encoder (:func:`docmetrics_backbones.tiny.build_tiny_xlmr`)
in a randomly initialised COMET model and writes it in the layout of a downloaded COMET checkpoint::

    <dir>/hparams.yaml
    <dir>/checkpoints/model.ckpt
    <dir>/encoder/            (config.json and tokenizer files; ``pretrained_model`` points here)

Everything is deterministic for a seed.  The scores of these models mean nothing; they only have
the shapes, code paths and truncation behaviour of the real ones.  Importing this module is cheap.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, Iterator, Sequence

from docmetrics.plugin.models import quiet_libraries

from ..tiny import build_tiny_xlmr, sample_sentences

#: Scale of the regression head's random weights, so a random tiny model's scores vary visibly.
HEAD_GAIN = 3.0

__all__ = ["COMET_KINDS", "build_tiny_comet", "build_tiny_xlmr", "sample_sentences", "counting_embedded_rows"]

#: The kinds of COMET model :func:`build_tiny_comet` builds, with the published model each mimics.
COMET_KINDS = {
    "unified": "UnifiedMetric over mt+src with CLS pooling, like Unbabel/wmt22-cometkiwi-da",
    "unified-ref": "UnifiedMetric over mt, src and ref (three joint inputs, scores averaged), "
    "like XCOMET without its error spans",
    "regression": "RegressionMetric over src, mt and ref with avg pooling, like Unbabel/wmt22-comet-da",
    "referenceless": "ReferencelessRegression over src and mt with avg pooling, like wmt21-comet-qe-mqm",
    "xcomet": "XCOMETMetric over mt, src and ref with word-level tags (O, minor, major, critical), like "
    "Unbabel/XCOMET-XL: a score and error spans",
}

#: Scale of the word-level tagger's random weights and the lead of the tag ``O`` in its bias: a random
#: tiny XCOMET then tags some subwords of every severity and leaves most untagged (with default
#: initialisation nearly every subword gets the same tag).
TAG_GAIN = 4.0
TAG_O_BIAS = 2.0


def _comet_hparams(kind: str) -> tuple[str, dict[str, Any]]:
    """COMET class identifier and hyper-parameters of a tiny model of ``kind`` (shaped like the
    published models' hparams.yaml, with tiny hidden sizes)."""
    common: dict[str, Any] = {
        "encoder_model": "XLM-RoBERTa",
        "activations": "Tanh",
        "dropout": 0.1,
        "layer_transformation": "sparsemax",
        "layer_norm": False,
        "nr_frozen_epochs": 0.3,
        "keep_embeddings_frozen": True,
        "batch_size": 16,
        "hidden_sizes": [64, 32],
    }
    if kind in ("unified", "unified-ref"):
        segments = ["mt", "src"] if kind == "unified" else ["mt", "src", "ref"]
        return "unified_metric", {
            **common,
            "sent_layer": "mix",
            "word_layer": 2,
            "final_activation": "Sigmoid",
            "input_segments": segments,
            "word_level_training": False,
        }
    if kind == "xcomet":
        # XCOMET-XL's hparams.yaml with tiny sizes: its word layer (36) is one of the tiny encoder's 3.
        return "xcomet_metric", {
            **common,
            "sent_layer": "mix",
            "word_layer": 2,
            "final_activation": "Sigmoid",
            "error_labels": ["minor", "major", "critical"],
            "cross_entropy_weights": [0.08, 0.486, 0.505, 0.533],
            "loss_lambda": 0.055,
            "word_level_training": True,
        }
    if kind in ("regression", "referenceless"):
        identifier = "regression_metric" if kind == "regression" else "referenceless_regression_metric"
        return identifier, {**common, "pool": "avg", "layer": "mix", "final_activation": None}
    raise ValueError(f"kind {kind!r} is not one of {', '.join(COMET_KINDS)}")


def _spread_tags(model: Any) -> None:
    """Scale the tagger by :data:`TAG_GAIN` and centre its logits over the sample sentences' subwords,
    ``O`` ahead by :data:`TAG_O_BIAS`, so that the tags vary across subwords."""
    import torch

    tok = model.encoder.tokenizer
    model.eval()
    enc = tok(sample_sentences()[:64], padding=True, return_tensors="pt")
    states = model.encoder(enc["input_ids"], enc["attention_mask"])["all_layers"][model.hparams.word_layer]
    model.hidden2tag.weight.mul_(TAG_GAIN)
    model.hidden2tag.bias.zero_()
    mean = model.hidden2tag(states[enc["attention_mask"].bool()]).mean(dim=0)
    lead = torch.zeros_like(mean)
    lead[0] = TAG_O_BIAS
    model.hidden2tag.bias.copy_(lead - mean)
    model.train()


def _plain(value: Any) -> Any:
    """Hyper-parameters as plain Python types (the checkpoint is read with weights_only=True)."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def build_tiny_comet(
    out_dir: str | os.PathLike[str],
    kind: str = "unified",
    seed: int = 0,
    *,
    max_position_embeddings: int = 514,
    encoder: str | os.PathLike[str] | None = None,
    encoder_model: str = "BERT",
    portable: bool = False,
    sentences: Sequence[str] | None = None,
) -> Path:
    """Write a tiny randomly initialised COMET model to ``out_dir`` and return ``out_dir``.

    ``kind`` is one of :data:`COMET_KINDS`: ``"unified"`` (CometKiwi-like), ``"regression"``
    (wmt22-comet-da-like), ``"referenceless"`` (COMET-QE-like), ``"unified-ref"`` (a
    UnifiedMetric that also takes references, scored like XCOMET's regression part) or ``"xcomet"`` (an
    XCOMETMetric with word-level tags: scores and error spans, as Unbabel/XCOMET-XL gives them).  The layout
    is that of a downloaded COMET model (``hparams.yaml``, ``checkpoints/model.ckpt``) plus the tiny encoder in
    ``encoder/``, named by absolute path as the checkpoint's ``pretrained_model``; so
    ``comet.load_from_checkpoint(str(out_dir / "checkpoints/model.ckpt"))`` loads it from any
    working directory (if the directory is moved, ``pretrained_model`` goes stale; the comet
    backbone then finds ``encoder/`` next to the checkpoint).

    The same ``seed`` gives byte-identical weights; different seeds give different scores.

    ``encoder``: a real encoder directory (config.json, tokenizer and weights, e.g. all-MiniLM-L6-v2
    from the ``minilm`` extra) to use instead of the tiny XLM-R, with its pretrained weights and COMET's
    ``encoder_model`` class for it (``BERT`` works for MiniLM): a realistic model of that size, with a
    random head, for benchmarks.

    ``portable``: the checkpoint names its tiny encoder relative to itself (``encoder``), not by absolute path,
    so the folder is the same bytes (and the same fingerprint) wherever it is built or moved to.
    ``sentences`` train the tiny encoder's tokenizer (default: :func:`sample_sentences`).
    """
    class_identifier, hparams = _comet_hparams(kind)
    out = Path(out_dir).absolute()
    out.mkdir(parents=True, exist_ok=True)
    if encoder is None:
        encoder_dir = build_tiny_xlmr(
            out / "encoder", seed=0, sentences=sentences, max_position_embeddings=max_position_embeddings,
            weights=False,
        )
    else:
        encoder_dir = Path(encoder).absolute()
        hparams = {**hparams, "encoder_model": encoder_model}

    import torch
    import yaml

    with quiet_libraries():
        import pytorch_lightning
        from comet.models import str2model

        model_class = str2model[class_identifier]
        torch.manual_seed(seed)
        model = model_class(
            pretrained_model=str(encoder_dir), load_pretrained_weights=encoder is not None, **hparams
        )
        # With default initialisation the head's output barely varies across inputs (a random
        # CometKiwi's scores have a std of about 2e-3); a larger head makes scores differ.
        with torch.no_grad():
            for module in model.estimator.modules():
                if isinstance(module, torch.nn.Linear):
                    module.weight.mul_(HEAD_GAIN)
            if kind == "xcomet":
                _spread_tags(model)
    stored = _plain(dict(model.hparams))
    stored["class_identifier"] = class_identifier
    stored["pretrained_model"] = "./encoder" if portable and encoder is None else str(encoder_dir)
    stored.pop("load_pretrained_weights", None)
    stored.pop("local_files_only", None)
    state = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
    checkpoint = {
        "epoch": 0,
        "global_step": 0,
        "pytorch-lightning_version": pytorch_lightning.__version__,
        "state_dict": state,
        "hyper_parameters": stored,
    }
    ckpt_dir = out / "checkpoints"
    ckpt_dir.mkdir(exist_ok=True)
    torch.save(checkpoint, ckpt_dir / "model.ckpt")
    in_yaml = {**stored, "pretrained_model": "encoder"} if portable and encoder is None else stored
    (out / "hparams.yaml").write_text(  # a relative pretrained_model in hparams.yaml is read next to it
        yaml.safe_dump(in_yaml, sort_keys=True, default_flow_style=False), encoding="utf-8"
    )
    return out


@contextlib.contextmanager
def counting_embedded_rows() -> Iterator[list[int]]:
    """While inside: the rows (sequences) each call of a COMET estimator's ``get_sentence_embedding`` embeds
    (``RegressionMetric`` and its subclasses), in call order; the method is restored on leaving."""
    from comet.models import RegressionMetric

    rows: list[int] = []
    original = RegressionMetric.get_sentence_embedding

    def counted(self: Any, input_ids: Any, attention_mask: Any, **kw: Any) -> Any:
        rows.append(int(input_ids.shape[0]))
        return original(self, input_ids, attention_mask, **kw)

    RegressionMetric.get_sentence_embedding = counted  # type: ignore[method-assign]
    try:
        yield rows
    finally:
        RegressionMetric.get_sentence_embedding = original  # type: ignore[method-assign]
