"""The ``comet`` backbone: COMET models (CometKiwi, COMET-DA, COMET-QE, XCOMET) via unbabel-comet.

The model is loaded with unbabel-comet's own code (``comet.download_model`` and
``comet.load_from_checkpoint``; :mod:`.resolve`) and scored with its own ``prepare_sample`` and
``predict_step``, in a small inference loop of our own: ``CometModel.predict`` builds a Lightning Trainer
on every call and prints banners.  The loop deduplicates identical units, sorts them by length, batches
them and restores the order; for the same inputs it gives the numbers ``model.predict`` gives.

The package, by concept:

- :mod:`.resolve`: finding the checkpoint (hub id, legacy name, directory, ``.ckpt``) and its encoder,
  and loading it; :mod:`.checkpoint`: the hyper-parameters stored in it, read without torch;
- :mod:`.kinds`: what the model is (kind, input segments, pooling) and so what it can score, before
  loading from its hyper-parameters;
- :mod:`.inputs`: the fields of each unit, context joined and fitted (current-sentence pooling, as
  COMET's ``enable_context()``), the joint sequences and the tensors;
- :mod:`.truncation`: what the inputs lost to the encoder's maximum length (``truncated``,
  ``tokens_cut``) and the context dropped (``contexts_shortened``, ``context_sentences_dropped``);
- :mod:`.spans`: XCOMET's error spans per unit, from the ``predict_step`` that scores;
- this module: the backbone itself (parameters, capabilities, the scoring loop).

torch and comet are imported only when a model is loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Sequence

from docmetrics.plugin.backbone import Backbone, BackboneOutput, Unit
from docmetrics.plugin.models import declared_token, fingerprint, quiet_libraries
from docmetrics.values.params import Param
from docmetrics.values.units import UnitRecord, UnitSpan

from .checkpoint import stored_hparams
from .inputs import CometInputs
from .kinds import Facts, capabilities_of, declared_facts, declares_spans, kind_of, why_not
from .resolve import encoder_of, find_checkpoint, load_checkpoint
from .spans import predicted_spans, unit_spans
from .truncation import unit_counters

__all__ = ["CometBackbone"]


class CometBackbone(Backbone):
    """COMET models through unbabel-comet.

    ``model`` is a hub id (``Unbabel/wmt22-cometkiwi-da``; fetched with ``comet.download_model``,
    from the Hugging Face cache when offline), a COMET model directory (``hparams.yaml`` and
    ``checkpoints/model.ckpt``) or the ``.ckpt`` file itself.

    Capabilities depend on the model: a UnifiedMetric over mt+src (CometKiwi) gives :data:`QE`;
    one that also takes references (XCOMET) gives :data:`QE` and :data:`REFERENCE`; a
    RegressionMetric (COMET-DA) gives :data:`REFERENCE` and a ReferencelessRegression (COMET-QE)
    :data:`QE`, both with :data:`CURRENT_SENTENCE` when they pool by average.
    """

    name = "comet"
    description = "COMET models (CometKiwi, COMET-DA, COMET-QE, XCOMET) through unbabel-comet"
    default_model = "Unbabel/wmt22-cometkiwi-da"
    libraries = (("unbabel-comet", "comet"), ("transformers", "tf"), ("torch", "torch"))
    sample_models = {
        "tiny-cometkiwi": "a UnifiedMetric over mt+src, like Unbabel/wmt22-cometkiwi-da (QE)",
        "tiny-comet": "a RegressionMetric over src, mt and ref, like Unbabel/wmt22-comet-da",
        "tiny-comet-qe": "a ReferencelessRegression over src and mt, like wmt21-comet-qe-mqm",
        "tiny-xcomet": "an XCOMETMetric with error spans, like Unbabel/XCOMET-XL",
    }
    _SAMPLE_KINDS = {"tiny-cometkiwi": "unified", "tiny-comet": "regression", "tiny-comet-qe": "referenceless",
                     "tiny-xcomet": "xcomet"}
    params = (
        Param("qe", bool, None, "for a model that takes a source, a reference or both (XCOMET): no = always "
              "with the reference (src + mt + ref), yes = never (src + mt); default: the metric chooses "
              "(slide scores such a model without the reference)", short="qe"),
    )

    @classmethod
    def write_sample_model(cls, name: str, out_dir: str) -> str:
        from docmetrics.values.samples import sample_sentences

        from .testing import build_tiny_comet

        build_tiny_comet(out_dir, kind=cls._SAMPLE_KINDS[name], seed=0, portable=True, sentences=sample_sentences())
        return f"model={out_dir}"

    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        if self.p.get("qe") is None:
            # Unset, qe stays out of the signature, the JSON params and the cache key: every signature and
            # cached score of a COMET model from before the parameter existed stays valid.
            del self.p["qe"]
            self.params = ()
        self._ckpt: Path | None = None
        self._model: Any = None
        self._device = "cpu"
        self._kind = ""
        self._segments: tuple[str, ...] = ()
        #: (kind, input segments, pooling) from the checkpoint's hyper-parameters, before loading.
        self._declared: Facts | None = None
        #: (checkpoint, its stored hyper-parameters), read once.
        self._hparams: tuple[Path, dict[str, Any]] | None = None

    # -- model resolution -------------------------------------------------------------------------
    def checkpoint_path(self) -> Path:
        """The ``.ckpt`` file of the model (downloads a hub id, or finds it in the local cache)."""
        if self._ckpt is None:
            self._ckpt = find_checkpoint(str(self.model))
        return self._ckpt

    # -- loading ------------------------------------------------------------------------------------
    def load(self) -> None:
        """Load the model once (later calls do nothing); prints nothing to stdout."""
        if self._model is not None:
            return
        device = self.checked_device()
        ckpt = self.checkpoint_path()
        with quiet_libraries():
            model = load_checkpoint(ckpt, self.model, self._stored_hparams)
            self._kind, self._segments = kind_of(model, self.model)
            self.place(model, device)
        self._device = device
        self._model = model

    def place(self, model: Any, device: str) -> Any:
        """The model on ``device`` at this backbone's precision; in bf16 its feed-forward heads also cast
        their input to their own dtype (:func:`cast_head_inputs`)."""
        super().place(model, device)
        if self.precision == "bf16":
            cast_head_inputs(model)
        return model

    def _stored_hparams(self, ckpt: Path) -> dict[str, Any]:
        """The hyper-parameters stored in the checkpoint (read once, without torch where it can be:
        :func:`~docmetrics_backbones.comet.checkpoint.stored_hparams`)."""
        if self._hparams is None or self._hparams[0] != ckpt:
            self._hparams = (ckpt, stored_hparams(ckpt))
        return dict(self._hparams[1])

    def _loaded(self) -> Any:
        self.load()
        return self._model

    # -- what the model can do --------------------------------------------------------------------
    @property
    def capabilities(self) -> frozenset[str]:
        """What the model can do: before loading, from the checkpoint's hyper-parameters (so a
        metric that cannot use the model is refused without loading its weights); after, from the
        loaded model."""
        facts = self._facts()
        if facts is None:  # hyper-parameters that do not say: load, and let loading explain
            self.load()
            facts = self._facts()
            assert facts is not None
        return capabilities_of(facts, self.p.get("qe"))

    @property
    def gives_spans(self) -> bool:
        """Whether the model tags MT subwords with error severities (XCOMET; a UnifiedMetric with
        ``word_level_training``), so that each unit's record carries error spans: from the loaded model,
        or before loading from the checkpoint's hyper-parameters."""
        if self._model is not None:
            return self._kind == "unified" and bool(getattr(self._model, "word_level", False))
        try:
            ckpt = self.checkpoint_path()
        except Exception:  # noqa: BLE001 - loading says what is wrong
            return False
        return declares_spans(ckpt, self._stored_hparams)

    def cache_state(self) -> dict[str, str]:
        """For a model that gives error spans: a mark, so that scores cached before this backbone kept the
        spans (rows without them) are not taken for its records."""
        return {"error_spans": "predict_step"} if self.gives_spans else {}

    def _facts(self) -> Facts | None:
        """(kind, input segments, pooling) of the model: the loaded model's, or before loading the
        checkpoint's hyper-parameters (:func:`~docmetrics_backbones.comet.kinds.declared_facts`); None
        when they do not say."""
        if self._model is not None:
            return self._kind, self._segments, self._model.hparams.get("pool")
        if self._declared is None:
            self._declared = declared_facts(self.checkpoint_path(), self._stored_hparams)
        return self._declared

    def why_not(self, capability: str) -> str:
        facts = self._facts()
        if facts is None:
            return super().why_not(capability)
        return why_not(facts, self.p.get("qe"), capability) or super().why_not(capability)

    def context_separator(self) -> str:
        """The token that joins context sentences and the current sentence (the encoder
        tokenizer's separator, ``</s>`` for XLM-R): read from a local encoder's tokenizer files
        without loading the model where they say it (so a run the score cache answers loads
        nothing), else from the loaded model's tokenizer."""
        if self._model is None:
            declared = self._declared_separator()
            if declared:
                return declared
        return str(self._loaded().encoder.tokenizer.sep_token)

    def _declared_separator(self) -> str | None:
        try:
            ckpt = self.checkpoint_path()
            encoder = encoder_of(ckpt, self._stored_hparams(ckpt))
        except Exception:  # noqa: BLE001 - the model will say when it loads
            return None
        if not isinstance(encoder, str) or not Path(encoder).expanduser().is_dir():
            return None
        return declared_token(encoder, "sep_token")

    @property
    def requires_reference(self) -> bool:
        """True when the model cannot score without a reference (COMET-DA)."""
        return bool(self._loaded().requires_references())

    def chunk_key(self, item: Any) -> Any:
        """Units of the same source (and its context) together: every system's units of one segment share a
        chunk (in MBR, every candidate against every pseudo-reference of the segment: N x N units over N + 1
        texts), so each of their distinct texts is embedded once, not once per chunk it falls in; within a
        chunk the texts are batched by length all the same (:meth:`score`)."""
        if isinstance(item, Unit):
            return (item.src_context, item.src or "")
        return super().chunk_key(item)

    def fingerprint(self) -> str:
        return fingerprint(self.checkpoint_path())

    # -- scoring ----------------------------------------------------------------------------------
    def score(self, units: Sequence[Unit]) -> BackboneOutput:
        """Score ``units`` (same order and length); identical units are scored once.

        Every distinct text is tokenized once; samples are sorted by token length and cut into
        batches by a token budget (:meth:`~docmetrics.plugin.backbone.Backbone.batches`:
        ``--max-tokens``, or ``--batch-size`` for a fixed count); the model's input tensors and the
        truncation flags are built from that tokenization, and on a GPU the next batch is prepared
        while the current one runs."""
        units = list(units)
        if not units:
            return BackboneOutput(scores=[], truncated=[], unit_counters=[])
        self.load()
        inputs = CometInputs(self._model, self._kind, self._segments, self._device)
        prepared, use_ctx, dropped_per_unit, any_context = inputs.prepare(
            units, self.capabilities, self.p.get("qe"), self.model)
        keys: list[tuple[Any, ...]] = []
        unique: dict[tuple[Any, ...], int] = {}
        samples: list[dict[str, str]] = []
        for sample, use_context in zip(prepared, use_ctx):
            key = (use_context,) + tuple(sample.items())
            keys.append(key)
            if key not in unique:
                unique[key] = len(samples)
                samples.append(sample)
        inputs.tokenize([t for sample in samples for t in sample.values()])
        cuda = self._device == "cuda"
        if self._kind != "unified":  # each distinct text embedded once, then the estimator per sample
            context = [False] * len(samples)
            for key, j in unique.items():
                context[j] = key[0]
            scores, tokens_cut = self._score_by_text(inputs, samples, context)
            cut_per_unit = [tokens_cut[unique[k]] for k in keys]
            counters, per_unit = unit_counters(dropped_per_unit, cut_per_unit, any_context)
            return BackboneOutput(scores=[scores[unique[k]] for k in keys], truncated=[n > 0 for n in cut_per_unit],
                                  counters=counters, unit_counters=per_unit)

        # Batches of one (fields given, context on/off) group each: COMET's prepare_sample reads
        # the fields of a batch from its first sample.
        groups: dict[tuple[Any, ...], list[int]] = {}
        for key, j in unique.items():
            groups.setdefault((key[0], tuple(samples[j])), []).append(j)
        plan: list[tuple[bool, list[int]]] = []
        for (use_context, _), idx in groups.items():
            lengths = [inputs.length(samples[j]) for j in idx]
            plan += [(use_context, [idx[k] for k in b])
                     for b in self.batches(lengths, default_tokens=32768 if cuda else 4096)]
        scores = [0.0] * len(samples)
        tokens_cut = [0] * len(samples)
        spans: list[tuple[UnitSpan, ...]] | None = None

        def prepare(item: tuple[bool, list[int]]) -> tuple[Any, list[int]]:
            return inputs.batch([samples[j] for j in item[1]])

        for (use_context, idx), (batch, cut) in zip(plan, _prefetched(prepare, plan, enabled=cuda)):
            batch_scores, batch_spans = self._run(batch, use_context)
            for j, s, n in zip(idx, batch_scores, cut):
                scores[j], tokens_cut[j] = s, n
            if batch_spans is not None:
                spans = spans if spans is not None else [()] * len(samples)
                for j, found in zip(idx, batch_spans):
                    spans[j] = unit_spans(found, samples[j]["mt"], self.model)

        cut_per_unit = [tokens_cut[unique[k]] for k in keys]
        counters, per_unit = unit_counters(dropped_per_unit, cut_per_unit, any_context)
        if spans is not None:  # a word-level model: one record per unit, with its error spans
            return BackboneOutput.from_records(
                [UnitRecord(scores[unique[k]], n > 0, c, spans[unique[k]])
                 for k, n, c in zip(keys, cut_per_unit, per_unit)], counters)
        return BackboneOutput(
            scores=[scores[unique[k]] for k in keys],
            truncated=[n > 0 for n in cut_per_unit],
            counters=counters,
            unit_counters=per_unit,
        )

    def _score_by_text(self, inputs: CometInputs, samples: list[dict[str, str]],
                       context: list[bool]) -> tuple[list[float], list[int]]:
        """Scores and tokens cut of the samples of a RegressionMetric or ReferencelessRegression, whose
        fields are encoded apart (COMET's forward: one sentence embedding per field, then the estimator):
        every distinct (text, context on/off) is embedded once, in length-sorted batches within the token
        budget, however many samples share it (a source or a reference with its context is shared by every
        system's units), and the estimator runs on each sample's embeddings.  The same computation as
        COMET's forward, in other batches (rounding only)."""
        import torch

        from .inputs import to_device

        model, device = self._model, self._device
        texts = list(dict.fromkeys((s[f], c) for s, c in zip(samples, context) for f in s))
        row = {t: i for i, t in enumerate(texts)}
        limit = model.encoder.max_positions - 2
        lengths = [min(len(inputs.ids[t]), limit) for t, _ in texts]
        plan: list[tuple[bool, list[int]]] = []
        for use_context in (False, True):  # pooling differs with context: one setting a batch
            idx = [i for i, (_, c) in enumerate(texts) if c == use_context]
            budget = 32768 if device == "cuda" else 4096
            plan += [(use_context, [idx[k] for k in b])
                     for b in self.batches([lengths[i] for i in idx], default_tokens=budget)]
        cut = [0] * len(texts)
        emb: Any = None

        def prepare(item: tuple[bool, list[int]]) -> tuple[Any, list[int]]:
            tensors, lost = inputs.field_input([inputs.ids[texts[i][0]] for i in item[1]])
            return to_device(tensors, device), lost

        with torch.inference_mode():
            for (use_context, idx), (tensors, lost) in zip(plan, _prefetched(prepare, plan, enabled=device == "cuda")):
                model.use_context = use_context
                try:
                    got = model.get_sentence_embedding(**tensors)
                finally:
                    model.use_context = False
                if emb is None:
                    emb = torch.empty((len(texts), got.shape[-1]), dtype=got.dtype, device=got.device)
                emb[torch.tensor(idx, device=got.device)] = got.to(emb.dtype)
                for i, n in zip(idx, lost):
                    cut[i] = n
            fields = list(samples[0])
            where = {f: torch.tensor([row[(s[f], c)] for s, c in zip(samples, context)], device=emb.device)
                     for f in fields}
            scores: list[float] = []
            step = 8192
            for k in range(0, len(samples), step):
                part = {f: emb[where[f][k:k + step]] for f in fields}
                if self._kind == "regression":
                    out = model.estimate(part["src"], part["mt"], part["ref"]).score
                else:  # ReferencelessRegression's forward, after its two sentence embeddings
                    mt, src = part["mt"], part["src"]
                    out = model.estimator(torch.cat((mt, src, mt * src, torch.abs(mt - src)), dim=1)).view(-1)
                scores += out.float().cpu().tolist()
        tokens_cut = [sum(cut[row[(s[f], c)]] for f in s) for s, c in zip(samples, context)]
        return scores, tokens_cut

    def _run(self, inputs: Any, use_context: bool) -> tuple[list[float], list[list[dict[str, Any]]] | None]:
        """The scores of a batch and, from a word-level model, COMET's ``error_spans`` per sample (None
        from other models)."""
        import torch

        model = self._model
        model.use_context = use_context
        try:
            with torch.inference_mode():
                prediction = model.predict_step(inputs)
        finally:
            model.use_context = False
        return prediction["scores"].float().cpu().tolist(), predicted_spans(prediction)


def cast_head_inputs(model: Any) -> None:
    """Make every feed-forward head of a COMET model (its estimator; a unified model's sentence and word
    heads) cast its input to the head's own dtype.

    COMET's average pooling divides by a float32 token count, so a half-precision model's sentence embeddings
    reach the estimator in float32; COMET casts them only for a float16 head (comet/modules/feedforward.py),
    so a bfloat16 COMET-DA fails on a GPU with "mat1 and mat2 must have the same dtype, but got Float and
    BFloat16" (found by bench_gpu.py on an H200).  The cast is what COMET does for float16."""
    from comet.modules.feedforward import FeedForward

    def hook(module: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
        dtype = next(module.parameters()).dtype
        return tuple(a.to(dtype) if hasattr(a, "is_floating_point") and a.is_floating_point() else a for a in args)

    for module in model.modules():
        if isinstance(module, FeedForward) and not getattr(module, "_docmetrics_casts", False):
            module.register_forward_pre_hook(hook)
            module._docmetrics_casts = True


def _prefetched(prepare: Any, items: Sequence[Any], *, enabled: bool) -> Iterator[Any]:
    """``prepare(item)`` for each item, in order; with ``enabled`` the next one is prepared on a
    helper thread while the caller runs the current one (a GPU computes while the CPU builds the
    next batch's tensors)."""
    if not enabled or len(items) < 2:
        for item in items:
            yield prepare(item)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(prepare, items[0])
        for k in range(len(items)):
            current = pending.result()
            if k + 1 < len(items):
                pending = pool.submit(prepare, items[k + 1])
            yield current
