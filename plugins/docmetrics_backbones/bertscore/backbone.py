"""The ``bertscore`` backbone: BERTScore (Zhang et al., 2020) on any Hugging Face encoder, through
the bert-score library.

The model is loaded with bert-score's own ``get_tokenizer`` and ``get_model`` (which keeps the first
``layer`` layers), sentences are tokenised as bert-score's ``sent_encode`` does, embedded with its
``bert_encode``, and idf statistics come from its ``get_idf_dict``.  The greedy matching is done here,
per unit, with exactly bert-score's formulas (cosine similarity, each token matched to its most
similar token of the other side, idf-weighted means, F1 = 2PR/(P+R), baseline rescaling
(x - b) / (1 - b) per score), so that a sentence scores the same as with ``bert_score.score``.

Context (:data:`~docmetrics.plugin.backbone.CURRENT_SENTENCE`)
-------------------------------------------------------
A unit's ``mt_context`` / ``ref_context`` (previous sentences, oldest first) are joined with the
current sentence by the tokenizer's separator token, ``"ctx1 [SEP] ctx2 [SEP] current"`` (``</s>``
for RoBERTa / XLM-R), encoded as one sequence, and only the current sentence's tokens are scored:
context tokens weigh 0.  How context tokens take part in the matching is the parameter ``mode``:

``published`` (default)
    what the code released with Vernikos et al. (2022) does: context tokens weigh 0 but stay in the
    similarity matrix, so a current token may be matched to a context token of the other side.
``strict``
    context token embeddings (and their separators) are removed before matching: the current
    sentence's tokens (with the sequence's own special tokens, weight 0 as in BERTScore) are matched
    only against the other side's current sentence.

With ``idf=yes`` the current tokens keep their idf weights in both modes (the published code
reduced them to 0/1).  idf statistics come from the sentences a metric names with
:meth:`BertScoreBackbone.configured` (Doc-BERTScore: the test set's references, one per segment, as
``bert_score.score`` computes them from its ``refs``); outside such a block, from the references of
the units scored in that call, one per unit.  That corpus is the backbone's only state besides its
parameters; :meth:`BertScoreBackbone.cache_state` exposes it for score caches.

Length: when context + current sentence exceed the encoder's maximum length, the oldest context
sentences are dropped first (:func:`docmetrics.algorithms.context.fit_context`) and counted
(``context_sentences_dropped``); the current sentence is never cut for context.  A current sentence
that alone exceeds the limit is cut as bert-score cuts it (from the right), its unit is flagged
``truncated`` and the tokens cut are counted (``tokens_cut``, hypothesis and reference summed).  An
empty current sentence scores 0 (as in bert-score) and is counted (``empty_sentences``).

The package, by concept: :mod:`.languages` (the ``lang`` parameter and its target language),
:mod:`.tables` (bert-score's default models, layers and baselines, read from its source),
:mod:`.resolve` (the model's files, its layer and baseline, loading it), :mod:`.inputs` (the sequences
with context, fitted to the model, and the idf weights), :mod:`.matching` (the greedy matching),
:mod:`.counters` (what is counted per unit), and this module: the backbone (parameters, state, embedding).

torch, transformers and bert-score are imported only when a model is loaded; :attr:`capabilities`
reads the tokenizer files, so a run the score cache answers loads nothing.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, ClassVar, ContextManager, Iterator, Sequence

from docmetrics.plugin.backbone import (
    CURRENT_SENTENCE,
    REFERENCE,
    TOKEN_MATCHING,
    Backbone,
    BackboneOutput,
    SigField,
    Unit,
)
from docmetrics.plugin.models import declared_token, english_only, fingerprint, quiet_libraries
from docmetrics.values.errors import SpecError, UserError
from docmetrics.values.params import Param, path_problem

from .counters import unit_counters
from .inputs import Encoder, idf_weights, uniform_weights
from .languages import check_lang, target_language, unset
from .matching import SCORES, match, rescale
from .resolve import default_layer, find_baseline, load_encoder, max_length, model_dir
from .tables import bert_score_tables, read_baseline

__all__ = ["BertScoreBackbone", "CONTEXT_MODES"]

CONTEXT_MODES = ("published", "strict")


class BertScoreBackbone(Backbone):
    """BERTScore through the bert-score library, on any Hugging Face encoder.

    ``model``: a hub id (``roberta-large``; needs the Hugging Face cache when offline), a local
    model directory, or ``minilm`` (all-MiniLM-L6-v2 from the package index, no hub needed).
    Without a model, ``lang`` (``-l en-de`` on the command line) picks bert-score's default model for
    the target language: roberta-large for en, bert-base-chinese for zh,
    dbmdz/bert-base-turkish-cased for tr, bert-base-multilingual-cased otherwise.

    ``layer``: the hidden layer whose embeddings are matched.  Default: bert-score's tuned layer for
    the models it knows (roberta-large: 17, ...), 6 for minilm; required for any other model, and
    checked against the model's number of layers.

    ``idf``: idf-weight tokens, with statistics from the references (bert-score's get_idf_dict).
    ``rescale``: rescale P, R and F with bert-score's baseline file for (target language, model),
    or with the file given as ``baseline``.  ``score``: which of precision, recall, f1 is the score.
    ``mode``: how prepended context takes part in the matching: ``published`` (context tokens weigh 0
    but stay in the similarity matrix, as in the code of Vernikos et al., 2022) or ``strict``
    (context embeddings removed before matching).

    Capabilities: reference (score MT against a reference) and current-sentence (prepended context,
    only the current sentence scored).  An empty sentence scores 0, as in bert-score.
    """

    name = "bertscore"
    description = "BERTScore (bert-score library) on any Hugging Face encoder; minilm works offline"
    default_model = None
    libraries = (("bert-score", "bert-score"), ("transformers", "tf"), ("torch", "torch"))
    params = (
        Param("layer", int, None, "hidden layer used (default: bert-score's for known models, 6 for "
              "minilm; required otherwise)", minimum=0, short="L"),
        Param("idf", bool, False, "idf weighting, statistics from the references", short="idf"),
        Param("rescale", bool, False, "rescale with bert-score's baseline for the target language "
              "(or the file given as baseline)", short="rs"),
        Param("score", str, "f1", "which BERTScore is the score", choices=SCORES, short="sc"),
        Param("mode", str, "published", "how prepended context takes part in the matching: published "
              "(context tokens weigh 0 but stay in the similarity matrix, the paper's code) or strict "
              "(removed before matching)", choices=CONTEXT_MODES, short="md"),
        Param("lang", str, None, "language or pair (en-de): picks the default model and the "
              "baseline file (target language)", short="l", check=check_lang),
        Param("baseline", str, None, "a custom baseline file (bert-score's TSV: LAYER,P,R,F) for "
              "rescale=yes", short="bl", check=path_problem),
    )

    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        lang = unset(kwargs.pop("lang", None))
        if lang is not None:
            problem = check_lang(str(lang))
            if problem:
                raise SpecError(f"bertscore: parameter 'lang' has value {lang!r}; {problem}")
        model = unset(model)
        if not model:
            if lang is None:
                raise SpecError(
                    "bertscore: no model given; pass model=<hub id or directory> (model=minilm works "
                    "offline), or the language pair with -l/--lang (e.g. -l en-de) for bert-score's "
                    "default model of the target language"
                )
            default, langs, _ = bert_score_tables()
            model = langs.get(target_language(lang), default)
        super().__init__(model, lang=lang, **kwargs)
        opts = self.p
        for p in self.params:
            opts.setdefault(p.name, p.default)
        opts["baseline"] = unset(opts.get("baseline"))
        for p, allowed in (("score", SCORES), ("mode", CONTEXT_MODES)):
            if opts[p] not in allowed:
                raise SpecError(f"bertscore: parameter '{p}' has value {opts[p]!r}; "
                                f"it must be one of {', '.join(allowed)}")
        self.layer: int = default_layer(str(self.model)) if opts["layer"] is None else int(opts["layer"])
        if self.layer < 0:
            raise SpecError(f"bertscore: parameter 'layer' has value {self.layer}; it must be >= 0")
        opts["layer"] = self.layer
        self._baseline: Path | None = (find_baseline(str(self.model), self.p.get("lang"), self.p.get("baseline"))
                                       if opts["rescale"] else None)

        self._dir: Path | None = None
        self._tokenizer: Any = None
        self._model: Any = None
        self._device = "cpu"
        self._encoder: Encoder | None = None
        self._baseline_row: tuple[float, float, float] | None = None
        # set for a while by configured()
        self._idf_refs: tuple[str, ...] | None = None
        self._idf_cache: tuple[tuple[str, ...], Any] | None = None

    # -- configuration --------------------------------------------------------------------------
    @contextlib.contextmanager
    def configured(self, *, idf_references: Sequence[str] | None = None) -> Iterator[BertScoreBackbone]:
        """Inside the ``with`` block, idf statistics (``idf=yes``) come from ``idf_references`` (one
        string per reference segment, as ``bert_score.score`` takes its ``refs``).  Embeddings live
        only as long as the :meth:`score` call that needs them (the runtime calls it chunk by chunk,
        with the units of one reference together: see :meth:`chunk_key`), so memory does not grow with
        the test set."""
        saved = self._idf_refs
        self._idf_refs = tuple(idf_references) if idf_references is not None else None
        try:
            yield self
        finally:
            self._idf_refs = saved

    def export_state(self) -> dict[str, Any]:
        """The idf corpus of a :meth:`configured` block, for a copy of this backbone in a worker."""
        return {"idf_refs": self._idf_refs} if self.p.get("idf") and self._idf_refs is not None else {}

    def import_state(self, state: dict[str, Any]) -> None:
        self._idf_refs = state.get("idf_refs")

    def chunk_key(self, item: Any) -> Any:
        """Units of the same reference (and its context) together, so each chunk embeds a reference
        once whatever systems it is compared with."""
        if isinstance(item, Unit):
            return (item.ref_context, item.ref or "")
        return super().chunk_key(item)

    def idf_from(self, references: Sequence[str]) -> ContextManager[BertScoreBackbone]:
        """The :class:`~docmetrics.plugin.backbone.TakesIdfCorpus` protocol: :meth:`configured`
        with ``idf_references``."""
        return self.configured(idf_references=references)

    def cache_state(self) -> dict[str, str]:
        """What, besides its parameters and the unit, the next score depends on: with ``idf=yes``
        inside a :meth:`configured` block, the corpus of the idf statistics (a SHA-256 of it); a
        persistent score cache must put this into its key.  Empty with ``idf=no``.  With ``idf=yes``
        outside a block the statistics come from the units of each call, which a per-unit cache
        cannot key (``"idf_corpus": "units-of-the-call"``): such scores should not be cached."""
        if not self.p.get("idf"):
            return {}
        if self._idf_refs is None:
            return {"idf_corpus": "units-of-the-call"}
        import hashlib
        import json

        digest = hashlib.sha256(json.dumps(list(self._idf_refs), ensure_ascii=False).encode("utf-8"))
        return {"idf_corpus": digest.hexdigest()}

    def extra_signature_fields(self) -> list[SigField]:
        out = []
        for p in self.params:
            value = self.layer if p.name == "layer" else self.p.get(p.name, p.default)
            out.append(SigField(p.name, p.short_key, p.format(value)))
        return out

    # -- model ----------------------------------------------------------------------------------
    def model_dir(self) -> Path:
        """The directory holding the model's files (a local directory, the minilm package's, or
        the Hugging Face cache snapshot of a hub id)."""
        if self._dir is None:
            self._dir = model_dir(str(self.model))
        return self._dir

    def fingerprint(self) -> str:
        return fingerprint(self.model_dir())

    multilingual_hint: ClassVar[str] = ("model=bert-base-multilingual-cased (bert-score's default for it) or "
                                        "xlm-roberta-large")

    def languages(self) -> frozenset[str] | None:
        """``{"en"}`` for an English-only encoder (by name: minilm, roberta-large, bert-base-uncased, ...;
        :func:`~docmetrics.plugin.models.english_only`), else no claim."""
        return frozenset({"en"}) if english_only(self.model) else None

    def target_language(self) -> str | None:
        """The target language of ``lang`` (``en-de`` -> ``de``), or None where lang is not given."""
        lang = self.p.get("lang")
        return target_language(str(lang)) if lang else None

    def load(self) -> None:
        if self._model is not None:
            return
        device = self.checked_device()
        root = self.model_dir()
        with quiet_libraries():
            config, tokenizer, model = load_encoder(str(self.model), root, self.layer)
            self.place(model, device)
        self._tokenizer = tokenizer
        self._device = device
        self._encoder = Encoder(tokenizer, max_length(tokenizer, model, config), self.model)
        if self._baseline is not None:
            self._baseline_row = read_baseline(self._baseline, self.layer)
        self._model = model

    @property
    def capabilities(self) -> frozenset[str]:
        """Reference scoring and token matching; :data:`CURRENT_SENTENCE` where the tokenizer has a
        separator token: read from the model's tokenizer files where they name one (so a run the
        score cache answers loads nothing), else from the loaded tokenizer."""
        caps = {REFERENCE, TOKEN_MATCHING}
        if self._model is None and declared_token(self.model_dir(), "sep_token") is not None:
            return frozenset(caps | {CURRENT_SENTENCE})
        self.load()
        if self._tokenizer.sep_token_id is not None:
            caps.add(CURRENT_SENTENCE)
        return frozenset(caps)

    @property
    def tokenizer(self) -> Any:
        """bert-score's tokenizer for the model (loads the model)."""
        self.load()
        return self._tokenizer

    # -- idf --------------------------------------------------------------------------------------
    def _idf_dict(self, refs: Sequence[str]) -> Any:
        if not self.p.get("idf"):
            return uniform_weights(self._tokenizer)
        key = tuple(refs)
        if self._idf_cache is not None and self._idf_cache[0] == key:
            return self._idf_cache[1]
        weights = idf_weights(key, self._tokenizer)
        self._idf_cache = (key, weights)
        return weights

    # -- scoring --------------------------------------------------------------------------------
    def score(self, units: Sequence[Unit]) -> BackboneOutput:
        """P, R or F1 of each unit (same order and length); identical sequences are embedded once."""
        units = list(units)
        if not units:
            return BackboneOutput(scores=[], truncated=[])
        self.load()
        for i, u in enumerate(units):
            if not isinstance(u.mt, str):
                raise UserError(f"unit {i}: mt must be a string, not {type(u.mt).__name__}")
            if u.ref is None:
                raise UserError(
                    f"BERTScore compares the MT with a reference, but unit {i} has none; give "
                    "references (-r/--reference)"
                )
        encoder = self._encoder
        assert encoder is not None
        memo: dict[str, tuple[int, ...]] = {}
        hyps = [encoder.encode(u.mt, tuple(u.mt_context), memo) for u in units]
        refs = [encoder.encode(u.ref or "", tuple(u.ref_context), memo) for u in units]
        idf = self._idf_dict(self._idf_refs if self._idf_refs is not None else [u.ref or "" for u in units])
        embeddings = self._embed([s.ids for s in hyps], [s.ids for s in refs])
        prf = match(hyps, refs, embeddings, idf, self.p["mode"] == "strict")
        if self._baseline_row is not None:
            prf = rescale(prf, self._baseline_row)
        k = SCORES.index(self.p["score"])
        counters, per_unit, cut = unit_counters(units, hyps, refs)
        return BackboneOutput(
            scores=[float(t[k]) for t in prf],
            truncated=[n > 0 for n in cut],
            counters=counters,
            unit_counters=per_unit,
        )

    def _embed(
        self, hyp_ids: list[tuple[int, ...]], ref_ids: list[tuple[int, ...]]
    ) -> dict[tuple[int, ...], Any]:
        """Unit-length embeddings at layer ``layer`` of every distinct sequence, float32 on the CPU,
        in batches by a token budget (:meth:`~docmetrics.plugin.backbone.Backbone.batches`)."""
        import torch
        from bert_score.utils import bert_encode

        out: dict[tuple[int, ...], Any] = {}
        todo = sorted(set(hyp_ids) | set(ref_ids), key=lambda ids: (-len(ids), ids))
        pad = self._tokenizer.pad_token_id
        pad = 0 if pad is None else pad
        cuda = self._device == "cuda"
        for idx in self.batches([len(ids) for ids in todo], default_tokens=32768 if cuda else 8192):
            batch = [todo[i] for i in idx]
            width = max(len(ids) for ids in batch)
            x = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for j, ids in enumerate(batch):
                x[j, :len(ids)] = torch.tensor(ids, dtype=torch.long)
                mask[j, :len(ids)] = 1
            with torch.inference_mode():
                emb = bert_encode(self._model, x.to(self._device), attention_mask=mask.to(self._device))
            emb = emb.float()
            emb = (emb / emb.norm(dim=-1, keepdim=True)).cpu()  # as greedy_cos_idf normalises
            for j, ids in enumerate(batch):
                out[ids] = emb[j, :len(ids)].clone()  # a copy: a view would keep its whole batch alive
        return out
