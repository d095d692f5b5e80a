"""The ``prism`` backbone: Prism scoring (Thompson and Post, 2020) on an mBART-family model.

Prism scores how well a hypothesis paraphrases a reference with a sequence-to-sequence model: the
reference is fed to the encoder and the hypothesis is force-decoded (teacher forcing); the mean
log-probability of the hypothesis' tokens is one direction's score; the same with the roles swapped
is the other; the segment score is the mean of the two.  Vernikos et al. (2022, section 3.2) run it
on mBART-50 (``facebook/mbart-large-50``), a multilingual denoising model used as a zero-shot
paraphraser, so BOTH sides carry the TARGET language's code.

Exact inputs for one direction (mBART-50 layout; ``SEP`` is the tokenizer's separator ``</s>``,
which is also its EOS, as in the paper and its released code)::

    encoder input  [tgt_code] c1 SEP c2 SEP x </s>
    labels         [tgt_code] c1 SEP c2 SEP y </s>
    decoder input  </s> [tgt_code] c1 SEP c2 SEP y          (labels shifted right, MBart's rule)

``c1 c2`` are the context sentences of each side (oldest first), ``x`` the current sentence on the
input side and ``y`` the current sentence on the output side; each sentence is tokenized on its own
(the same ids as tokenizing the joined string ``"c1 </s> c2 </s> x"``).  With no context the input
is plain sentence-level Prism: ``[tgt_code] x </s>`` -> ``[tgt_code] y </s>``.

Scored positions (``scored=current+eos``, the default, Prism's own rule): the tokens of ``y`` and
the EOS that follows them, i.e. log p(y_1 .. y_n, </s> | encoder input, forced prefix).  The
language code (forced, and given as decoder input, as Prism skips its language tag), the context
tokens and the separators are a forced prefix and are never scored.  The score of a direction is
the mean of those n+1 natural-log probabilities.

``scored=released-code`` reproduces the positions of the paper's released code
(amazon-science/doc-mt-metrics, Prism/prism.py): the token before ``y`` (the language code when
there is no context, the separator otherwise) and the tokens of ``y``, but not the EOS; again n+1
positions, averaged.

Length: the model's maximum (``min(max_position_embeddings, tokenizer.model_max_length)``, 1024
for mBART-50) bounds the encoder input and the labels.  The oldest context sentences are dropped,
the same number on both sides, until both sequences of the unit fit
(:func:`docmetrics.algorithms.context.fit_context`; counted in ``context_sentences_dropped``); the current
sentence is never cut to keep context.  Only a current sentence that alone does not fit is cut at
the end (its kept tokens and the EOS are scored); the unit is flagged truncated and counted in
``current_truncated``, and the tokens cut in ``tokens_cut`` (hypothesis and reference summed; only
where some were cut).

Batches are padded on the right with attention masks; items are sorted by length, so results do not
depend on the order of the units, and the batch size changes them only at the level of float
rounding.  torch and transformers are imported only when a model is loaded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Sequence

from docmetrics.algorithms.context import FittedContext, fit_context
from docmetrics.plugin.backbone import (
    CURRENT_SENTENCE,
    FORCE_DECODE,
    REFERENCE,
    Backbone,
    BackboneOutput,
    SigField,
    Unit,
)
from docmetrics.plugin.models import find_model, fingerprint, quiet_libraries
from docmetrics.values.errors import ModelError, SpecError, UserError
from docmetrics.values.params import Param

from .languages import check_pair, target_code

__all__ = ["PrismBackbone", "DIRECTIONS", "SCORED"]

#: ``both`` is Prism-ref: the mean of ref->hyp and hyp->ref.
DIRECTIONS = ("both", "ref-hyp", "hyp-ref")
#: Which output positions a direction's score averages (see the module docstring).
SCORED = ("current+eos", "released-code")
#: The normalisation, recorded in the signature.
NORMALISATION = "mean-logprob"

_LM_HEAD_ROWS = 256  # positions per lm_head chunk: bounds memory to rows x vocabulary floats


def _download(hub_id: str) -> None:
    """Fetch the files transformers loads an MBart model from into the Hugging Face cache."""
    with quiet_libraries():
        from transformers import AutoConfig, AutoTokenizer, MBartForConditionalGeneration

        AutoConfig.from_pretrained(hub_id)
        AutoTokenizer.from_pretrained(hub_id, use_fast=False)
        MBartForConditionalGeneration.from_pretrained(hub_id)


class _Item:
    """One direction of one unit: encoder ids, label ids and the scored label positions."""

    __slots__ = ("enc", "labels", "start", "end")

    def __init__(self, enc: list[int], labels: list[int], start: int, end: int) -> None:
        self.enc, self.labels, self.start, self.end = enc, labels, start, end


class PrismBackbone(Backbone):
    """Prism (mean token log-probability of a forced paraphrase, both directions averaged) on an
    mBART-family sequence-to-sequence model.

    model: a hub id (default ``facebook/mbart-large-50``, the paper's) or a local directory of an
    MBart model (config.json, weights, sentencepiece.bpe.model); mBART-50 (``MBart50Tokenizer``:
    ``[lang] X </s>``) and mBART-cc25 (``MBartTokenizer``: ``X </s> [lang]``) layouts are handled.
    lang: the pair from ``-l src-tgt``; both sides use the TARGET language's code (the model
    paraphrases); ISO 639-1 codes (de -> de_DE, en -> en_XX, zh -> zh_CN, ...) or mBART tokens.
    directions: both (Prism-ref: mean of ref->hyp and hyp->ref), ref-hyp or hyp-ref.
    scored: current+eos (Prism's rule: the current sentence's tokens and the EOS; never the
    language code, the context or the separators) or released-code (the positions of the paper's
    released code: the token before the current sentence and its tokens, no EOS).
    Context (Unit.ref_context / mt_context) is encoded as a forced prefix on the side it belongs
    to, joined with the separator </s>; only the current sentence is scored.  Oldest context
    sentences are dropped to fit the model's length (counted); the current sentence is never cut
    to keep context.
    """

    name = "prism"
    description = "Prism scoring (forced-decoding log-probabilities, both directions) on mBART-50"
    default_model = "facebook/mbart-large-50"
    sample_models = {"tiny-mbart": "an mBART-50 (MBart50Tokenizer, 52 language codes), like facebook/mbart-large-50"}
    libraries = (("transformers", "tf"), ("torch", "torch"), ("sentencepiece", "spm"))
    params = (
        Param("lang", str, None, "language pair src-tgt (set by -l/--lang); both sides use the "
              "target language's mBART code", check=check_pair),
        Param("directions", str, "both", "both: mean of ref->hyp and hyp->ref (Prism-ref); or one "
              "direction", choices=DIRECTIONS, short="dir"),
        Param("scored", str, "current+eos", "which output positions are averaged: current+eos "
              "(Prism) or released-code (the paper's code)", choices=SCORED, short="sc"),
    )

    @classmethod
    def write_sample_model(cls, name: str, out_dir: str) -> str:
        from .testing import build_tiny_mbart

        build_tiny_mbart(out_dir, seed=0)
        return f"model={out_dir}"

    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        lang = self.p.get("lang")
        if not lang:
            raise SpecError(
                "backbone 'prism' needs the language pair: pass -l/--lang src-tgt (e.g. -l en-de), "
                "or lang=en-de in the metric spec; both sides use the target language's code"
            )
        problem = check_pair(str(lang))
        if problem:
            raise SpecError(f"backbone 'prism': parameter 'lang' ({lang!r}): {problem}")
        self.lang = str(lang)
        self.code = target_code(self.lang)
        self.directions = self.p.get("directions") or "both"
        self.scored = self.p.get("scored") or "current+eos"
        if self.directions not in DIRECTIONS:
            raise SpecError(f"backbone 'prism': directions={self.directions!r} is not one of "
                            f"{', '.join(DIRECTIONS)}")
        if self.scored not in SCORED:
            raise SpecError(f"backbone 'prism': scored={self.scored!r} is not one of {', '.join(SCORED)}")
        self._dir: Path | None = None
        self._model: Any = None
        self._tok: Any = None
        self._device = "cpu"
        self.max_length = 0
        self._enc_special: tuple[list[int], list[int]] = ([], [])
        self._dec_special: tuple[list[int], list[int]] = ([], [])
        self._sep_id = 0
        self._eos_id = 0
        self._pad_id = 1

    # -- model resolution -------------------------------------------------------------------------
    def model_dir(self) -> Path:
        """The local directory of the model (a hub id is looked up in the Hugging Face cache, and
        downloaded when the cache lacks it and downloads are allowed)."""
        if self._dir is None:
            self._dir = self._resolve()
        return self._dir

    def _resolve(self) -> Path:
        hub_id = str(self.model)
        return find_model(
            hub_id, kind="MBart model", layout="config.json, the weights and sentencepiece.bpe.model",
            download=_download, advice=f"To copy it from a machine with network: `huggingface-cli download {hub_id} "
            "--exclude '*.h5' '*.msgpack' --local-dir DIR`, then model=DIR")

    # -- loading ------------------------------------------------------------------------------------
    def load(self) -> None:
        """Load model and tokenizer once (later calls do nothing)."""
        if self._model is not None:
            return
        device = self.checked_device()
        path = self.model_dir()
        with quiet_libraries():
            from transformers import AutoConfig, MBartForConditionalGeneration

            try:
                config = AutoConfig.from_pretrained(str(path), local_files_only=True)
            except Exception as exc:  # noqa: BLE001
                raise ModelError(f"cannot read the config of model '{self.model}' in {path}: "
                                 f"{str(exc).strip().splitlines()[0] if str(exc).strip() else exc}") from None
            if getattr(config, "model_type", None) != "mbart":
                raise ModelError(
                    f"model '{self.model}' is of type {getattr(config, 'model_type', '?')!r}, not an "
                    "MBart model; the prism backbone runs mBART-family models such as "
                    f"{self.default_model}"
                )
            tok = self._load_tokenizer(path, config.vocab_size)
            try:
                model = MBartForConditionalGeneration.from_pretrained(str(path), local_files_only=True)
            except Exception as exc:  # noqa: BLE001
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise ModelError(f"cannot load the weights of model '{self.model}' from {path}: "
                                 f"{reason}") from None
            self.place(model, device)
        if self.code not in tok.lang_code_to_id:
            known = ", ".join(sorted(tok.lang_code_to_id))
            raise SpecError(
                f"backbone 'prism': language code {self.code} (from lang={self.lang}) is not in "
                f"model '{self.model}'; its codes: {known}"
            )
        tok.src_lang = self.code
        tok.set_src_lang_special_tokens(self.code)
        self._enc_special = (list(tok.prefix_tokens), list(tok.suffix_tokens))
        tok.set_tgt_lang_special_tokens(self.code)
        self._dec_special = (list(tok.prefix_tokens), list(tok.suffix_tokens))
        tok.set_src_lang_special_tokens(self.code)
        self._eos_id = tok.eos_token_id
        self._sep_id = tok.sep_token_id if tok.sep_token_id is not None else tok.eos_token_id
        self._pad_id = config.pad_token_id if config.pad_token_id is not None else tok.pad_token_id
        dec_prefix, dec_suffix = self._dec_special
        if not dec_suffix or dec_suffix[0] != self._eos_id:
            raise ModelError(f"model '{self.model}': its tokenizer does not end a sequence with EOS")
        if self.scored == "released-code" and not dec_prefix:
            raise SpecError(
                "backbone 'prism': scored=released-code needs the mBART-50 layout ([lang] X </s>); "
                f"model '{self.model}' puts the language code last; use scored=current+eos"
            )
        limit = int(getattr(config, "max_position_embeddings", 1024) or 1024)
        tok_max = getattr(tok, "model_max_length", None)
        if isinstance(tok_max, int) and 0 < tok_max < 10**6:
            limit = min(limit, tok_max)
        self.max_length = limit
        self._tok = tok
        self._device = device
        self._model = model

    def _load_tokenizer(self, path: Path, vocab_size: int) -> Any:
        """The slow MBart50Tokenizer (the paper's) or MBartTokenizer, whichever the directory's
        tokenizer_config names, else whichever matches the model's vocabulary size."""
        from transformers import MBart50Tokenizer, MBartTokenizer

        if not (path / "sentencepiece.bpe.model").is_file():
            raise ModelError(f"model '{self.model}': {path} has no sentencepiece.bpe.model (the "
                             "tokenizer of mBART models)")
        hint = ""
        try:
            hint = str(json.loads((path / "tokenizer_config.json").read_text(encoding="utf-8"))
                       .get("tokenizer_class") or "")
        except (OSError, ValueError, AttributeError, RecursionError):
            pass
        if hint.startswith("MBart50"):
            classes: list[Any] = [MBart50Tokenizer]
        elif hint.startswith("MBartTokenizer"):
            classes = [MBartTokenizer]
        else:
            classes = [MBart50Tokenizer, MBartTokenizer]
        for cls in classes:
            try:
                tok = cls.from_pretrained(str(path), local_files_only=True)
            except Exception as exc:  # noqa: BLE001
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise ModelError(f"cannot load the tokenizer of model '{self.model}' from {path}: "
                                 f"{reason}") from None
            if len(tok) == vocab_size or len(classes) == 1:
                if len(tok) > vocab_size:
                    raise ModelError(
                        f"model '{self.model}': its tokenizer has {len(tok)} tokens but the model "
                        f"only {vocab_size}"
                    )
                return tok
        raise ModelError(
            f"model '{self.model}': neither MBart50Tokenizer nor MBartTokenizer matches the model's "
            f"vocabulary of {vocab_size} tokens; name the tokenizer class in tokenizer_config.json"
        )

    # -- what the model can do --------------------------------------------------------------------
    @property
    def capabilities(self) -> frozenset[str]:
        return frozenset({REFERENCE, FORCE_DECODE, CURRENT_SENTENCE})

    def fingerprint(self) -> str:
        return fingerprint(self.model_dir())

    def extra_signature_fields(self) -> list[SigField]:
        fields = super().extra_signature_fields()
        fields.append(SigField("codes", "lc", f"{self.code}/{self.code}", is_param=False))
        fields.append(SigField("norm", "nm", NORMALISATION, is_param=False))
        return fields

    # -- building the inputs ----------------------------------------------------------------------
    def _separator_text(self) -> str:
        return f" {self._tok.sep_token} "

    def _sequence(
        self, ids: Callable[[str], list[int]], context: Sequence[str], current: str,
        special: tuple[list[int], list[int]], cut: int | None,
    ) -> tuple[list[int], int, int]:
        """``prefix c1 SEP c2 SEP current suffix`` and the span (start, end) of ``current``'s tokens;
        ``cut`` keeps only that many tokens of ``current``."""
        prefix, suffix = special
        seq = list(prefix)
        for sentence in context:
            seq += ids(sentence)
            seq.append(self._sep_id)
        cur = ids(current)
        if cut is not None:
            cur = cur[:cut]
        start = len(seq)
        seq += cur
        end = len(seq)
        seq += suffix
        return seq, start, end

    def _item(self, enc: tuple[list[int], int, int], dec: tuple[list[int], int, int]) -> _Item:
        labels, start, end = dec
        if self.scored == "current+eos":
            first, last = start, end + 1  # the current tokens and the EOS after them
        else:
            first, last = start - 1, end  # released code: the token before, and the current tokens
        return _Item(enc[0], labels, first, last)

    # -- scoring ----------------------------------------------------------------------------------
    def score(self, units: Sequence[Unit]) -> BackboneOutput:
        """Score ``units`` (same order and length as given)."""
        units = list(units)
        if not units:
            return BackboneOutput(scores=[], truncated=[])
        self.load()
        tok = self._tok
        cache: dict[str, list[int]] = {}

        def ids(text: str) -> list[int]:
            got = cache.get(text)
            if got is None:
                got = cache[text] = list(tok(text, add_special_tokens=False, verbose=False)["input_ids"])
            return got

        for i, unit in enumerate(units):
            for what in ("mt", "ref"):
                value = getattr(unit, what)
                if value is None:
                    raise UserError(
                        f"backbone 'prism' scores a hypothesis against a reference, but unit {i} has "
                        f"no {what}; pass the reference with -r/--reference"
                    )
                if not isinstance(value, str):
                    raise UserError(f"unit {i}: {what} must be a string, not {type(value).__name__}")
        # Tokenize every distinct sentence once (one call to the tokenizer).
        distinct = sorted({s for u in units for s in (u.mt, u.ref, *u.mt_context, *u.ref_context)
                           if s is not None})
        if distinct:
            rows = tok(distinct, add_special_tokens=False, verbose=False)["input_ids"]
            for text, row in zip(distinct, rows):
                cache[text] = list(row)

        enc_pre, enc_suf = self._enc_special
        dec_pre, dec_suf = self._dec_special
        overhead = max(len(enc_pre) + len(enc_suf), len(dec_pre) + len(dec_suf))
        limit = self.max_length

        def fit(context: Sequence[str], current: str) -> FittedContext:
            # tokens of "c1 </s> c2 </s> x" with special tokens, as the model counts them
            return fit_context([len(ids(c)) for c in context], len(ids(current)), limit,
                               separator_length=1, overhead=overhead)

        items: list[_Item] = []
        owners: list[int] = []
        tokens_cut = [0] * len(units)
        dropped_per_unit = [0] * len(units)
        for i, unit in enumerate(units):
            assert unit.ref is not None
            fit_ref = fit(unit.ref_context, unit.ref)
            fit_mt = fit(unit.mt_context, unit.mt)
            drop = max(fit_ref.dropped, fit_mt.dropped)
            ref_ctx, mt_ctx = tuple(unit.ref_context)[drop:], tuple(unit.mt_context)[drop:]
            dropped_per_unit[i] = max(len(unit.ref_context) - len(ref_ctx), len(unit.mt_context) - len(mt_ctx))
            cut_ref = limit - overhead if fit_ref.current_too_long else None
            cut_mt = limit - overhead if fit_mt.current_too_long else None
            tokens_cut[i] = sum(len(ids(text)) - keep for text, keep in ((unit.ref, cut_ref), (unit.mt, cut_mt))
                                if keep is not None)
            ref_enc = self._sequence(ids, ref_ctx, unit.ref, self._enc_special, cut_ref)
            mt_enc = self._sequence(ids, mt_ctx, unit.mt, self._enc_special, cut_mt)
            ref_dec = self._sequence(ids, ref_ctx, unit.ref, self._dec_special, cut_ref)
            mt_dec = self._sequence(ids, mt_ctx, unit.mt, self._dec_special, cut_mt)
            if self.directions in ("both", "ref-hyp"):
                items.append(self._item(ref_enc, mt_dec))
                owners.append(i)
            if self.directions in ("both", "hyp-ref"):
                items.append(self._item(mt_enc, ref_dec))
                owners.append(i)

        item_scores = self._score_items(items)
        sums = [0.0] * len(units)
        counts = [0] * len(units)
        for owner, value in zip(owners, item_scores):
            sums[owner] += value
            counts[owner] += 1
        scores = [s / c for s, c in zip(sums, counts)]
        truncated = [n > 0 for n in tokens_cut]
        counters = {"context_sentences_dropped": sum(dropped_per_unit), "current_truncated": sum(truncated)}
        per_unit = [{"context_sentences_dropped": d, "current_truncated": int(n > 0)}
                    for d, n in zip(dropped_per_unit, tokens_cut)]
        if any(tokens_cut):
            counters["tokens_cut"] = sum(tokens_cut)
            for c, n in zip(per_unit, tokens_cut):
                if n:
                    c["tokens_cut"] = n
        return BackboneOutput(scores=scores, truncated=truncated, counters=counters, unit_counters=per_unit)

    def _score_items(self, items: list[_Item]) -> list[float]:
        """Mean log-probability of each item's scored label positions, in the order given."""
        import torch

        model = self._model
        device = self._device
        out = [0.0] * len(items)
        cuda = device == "cuda"
        batches = self.batches([len(it.enc) + len(it.labels) for it in items],
                               default_tokens=32768 if cuda else 4096)
        bias = model.final_logits_bias[0]
        head = model.get_output_embeddings()
        pad = self._pad_id
        with torch.inference_mode():
            for batch in batches:
                group = [items[j] for j in batch]
                n = len(group)
                t_enc = max(len(it.enc) for it in group)
                t_dec = max(len(it.labels) for it in group)
                enc = torch.full((n, t_enc), pad, dtype=torch.long)
                enc_mask = torch.zeros((n, t_enc), dtype=torch.long)
                dec_in = torch.full((n, t_dec), pad, dtype=torch.long)
                dec_mask = torch.zeros((n, t_dec), dtype=torch.long)
                target = torch.full((n, t_dec), pad, dtype=torch.long)
                scored = torch.zeros((n, t_dec), dtype=torch.bool)
                for r, it in enumerate(group):
                    enc[r, :len(it.enc)] = torch.tensor(it.enc)
                    enc_mask[r, :len(it.enc)] = 1
                    lab = it.labels
                    # MBart's shift: the last label (EOS, or the code in the cc25 layout) starts
                    dec_in[r, :len(lab)] = torch.tensor([lab[-1]] + lab[:-1])
                    dec_mask[r, :len(lab)] = 1
                    target[r, :len(lab)] = torch.tensor(lab)
                    scored[r, it.start:it.end] = True
                enc, enc_mask = enc.to(device), enc_mask.to(device)
                dec_in, dec_mask = dec_in.to(device), dec_mask.to(device)
                hidden = model.model(
                    input_ids=enc, attention_mask=enc_mask, decoder_input_ids=dec_in,
                    decoder_attention_mask=dec_mask, use_cache=False,
                ).last_hidden_state
                rows, cols = scored.nonzero(as_tuple=True)  # row-major: grouped by item
                picked = hidden[rows.to(device), cols.to(device)]
                wanted = target[rows, cols].to(device)
                logps = []
                for s in range(0, picked.shape[0], _LM_HEAD_ROWS):
                    logits = (head(picked[s:s + _LM_HEAD_ROWS]) + bias).float()
                    lp = torch.log_softmax(logits, dim=-1)
                    logps.append(lp.gather(1, wanted[s:s + _LM_HEAD_ROWS, None])[:, 0])
                logp = torch.cat(logps).double().cpu()
                totals = torch.zeros(n, dtype=torch.float64).index_add_(0, rows, logp)
                counts = scored.sum(dim=1).to(torch.float64)
                for r, j in enumerate(batch):
                    out[j] = float(totals[r] / counts[r])
        return out
