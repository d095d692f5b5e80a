"""The ``metricx`` backbone: MetricX-23 and MetricX-24 (Juraska et al., 2023; 2024) on mT5.

MetricX is an mT5 encoder-decoder fine-tuned to regress an MQM-like error score: the score of an input
is the decoder's logit of the token ``<extra_id_10>`` (id 250089 in mT5's vocabulary; read here from
the tokenizer) at the first decoding step, clamped to [0, 25].  Lower is better (0: no error, 25: the
worst), and :attr:`MetricxBackbone.higher_is_better` says so.  What google-research/metricx
(``metricx23|metricx24/models.py`` and ``predict.py``) does, and this backbone does too:

* the input text, by version and mode (:func:`metricx_input`)::

      MetricX-24, reference-based   source: S candidate: H reference: R
      MetricX-24, QE                source: S candidate: H
      MetricX-23, reference-based   candidate: H reference: R          (no source)
      MetricX-23, QE                candidate: H source: S

  MetricX-24 models are hybrids that take either; MetricX-23 has separate reference-based and QE
  (``metricx-23-qe-*``) checkpoints;
* tokenized with the tokenizer's special tokens and cut at ``max_length`` tokens EOS included (1536 for
  MetricX-24, 1024 for MetricX-23, the lengths they were trained with), then the final EOS dropped
  (MetricX's ``_remove_eos``): the encoder sees at most ``max_length - 1`` tokens and no EOS.  Tokens
  cut are counted per unit (``tokens_cut``) and the unit is flagged truncated;
* one decoder step whose input is token id 0 (MetricX hard-codes it; it is mT5's
  ``decoder_start_token_id``), through the whole output layer (the decoder's output rescaled by
  ``d_model ** -0.5`` where the output layer is tied to the embeddings: T5's rule, as MetricX's
  models.py has it; mT5's is not tied), of which the score token's logit is kept.  The output layer
  for one position costs what the encoder spends on a token or two, and at batch size 1 this is
  MetricX's computation to the bit.

What differs: inputs are batched (MetricX's predict script cannot batch more than one: google-research/
metricx#2), padded on the right with an attention mask, sorted by length and cut by the token budget
(``--max-tokens``/``--batch-size``), so the batch changes a score only at the level of float rounding;
and every tensor is on the backbone's device (MetricX's puts the decoder input on CUDA whenever CUDA
exists).  fp16 is refused: T5-family activations overflow it (MetricX publishes bfloat16 variants).

The checkpoint is the directory as published (config.json and the weights, no tokenizer) or its hub
id; the tokenizer is a separate path or hub id (``tokenizer=``, default ``google/mt5-xl`` as in
MetricX's README; every mT5 size has the same one).  A config that is not mT5's, a tokenizer that is
not found, or one without the score token is an error naming the file or parameter before any weight
loads.  torch and transformers are imported only when a model is loaded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from docmetrics.plugin.backbone import QE, REFERENCE, Backbone, BackboneOutput, SigField, Unit
from docmetrics.plugin.models import check_config_size, find_model, fingerprint, quiet_libraries
from docmetrics.values.errors import ModelError, SpecError, UserError
from docmetrics.values.params import Param

__all__ = ["MetricxBackbone", "metricx_input", "VERSIONS", "MAX_LENGTH", "SCORE_TOKEN", "SCORE_RANGE",
           "DEFAULT_TOKENIZER"]

VERSIONS = (23, 24)
#: The input length each version was trained with (MetricX's README: --max_input_length), EOS included.
MAX_LENGTH = {23: 1024, 24: 1536}
#: The token whose first-step logit is the score (id 250089 in mT5's vocabulary).
SCORE_TOKEN = "<extra_id_10>"
#: MetricX clamps its predictions to this range.
SCORE_RANGE = (0.0, 25.0)
#: MetricX checkpoints ship no tokenizer; its README uses mT5-XL's.
DEFAULT_TOKENIZER = "google/mt5-xl"
#: The decoder's one input token (MetricX's models.py: ``torch.LongTensor([0])``).
DECODER_INPUT_ID = 0
_CUT = "tokens_cut"
_CHECKPOINT_LAYOUT = "config.json and the weights (model.safetensors or pytorch_model.bin)"
_TOKENIZER_LAYOUT = "spiece.model or tokenizer.json, with tokenizer_config.json"


def metricx_input(version: int, qe: bool, src: str | None, mt: str, ref: str | None) -> str:
    """The text MetricX-``version`` scores (its predict.py's ``_make_input``)."""
    if version == 23:
        return f"candidate: {mt} source: {src}" if qe else f"candidate: {mt} reference: {ref}"
    return f"source: {src} candidate: {mt}" + ("" if qe else f" reference: {ref}")


def _nonempty(value: Any) -> str | None:
    return None if str(value).strip() else "it is empty: give a hub id or a local directory"


def _says(model: str) -> tuple[int | None, bool | None]:
    """(version, QE) that a published model's name says (google/metricx-23-qe-xl-v2p0: 23, QE;
    google/metricx-24-hybrid-*: 24, either), else None for what it does not say."""
    name = model.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name.startswith("metricx-23"):
        return 23, name.startswith("metricx-23-qe")
    if name.startswith("metricx-24"):
        return 24, None
    return None, None


def _download_checkpoint(hub_id: str) -> str:
    from huggingface_hub import snapshot_download

    with quiet_libraries():
        return snapshot_download(hub_id, allow_patterns=["config.json", "*.safetensors", "*.safetensors.index.json",
                                                         "pytorch_model*.bin", "pytorch_model.bin.index.json"])


def _download_tokenizer(hub_id: str) -> str:
    from huggingface_hub import snapshot_download

    with quiet_libraries():  # not the weights of google/mt5-xl (15 GB): the tokenizer's files only
        return snapshot_download(hub_id, allow_patterns=["spiece.model", "tokenizer.json", "tokenizer_config.json",
                                                         "special_tokens_map.json", "added_tokens.json"])


class MetricxBackbone(Backbone):
    """MetricX-23 / MetricX-24 error scores (0 best, 25 worst) of source + candidate (+ reference).

    model: a MetricX checkpoint directory (config.json and weights, as published) or hub id (default
    google/metricx-24-hybrid-xl-v2p6).  tokenizer: the mT5 tokenizer (directory or hub id; default
    google/mt5-xl).  qe: score without the reference (MetricX-24 hybrids take either; MetricX-23 has
    metricx-23-qe-* models); default: yes for a model named metricx-23-qe-*, else no.  mx_version: 23
    or 24, which input format and length (default: from the model's name, else 24).  max_length: tokens
    the input is cut at, EOS included (default: 1536 for 24, 1024 for 23).

    Juraj Juraska, Mara Finkelstein, Daniel Deutsch, Aditya Siddhant, Mehdi Mirzazadeh and Markus
    Freitag. 2023. MetricX-23: The Google Submission to the WMT 2023 Metrics Shared Task. WMT.
    Juraj Juraska, Daniel Deutsch, Mara Finkelstein and Markus Freitag. 2024. MetricX-24: The Google
    Submission to the WMT 2024 Metrics Shared Task. WMT.
    """

    name = "metricx"
    description = "MetricX-23/24 error scores (0-25, lower is better) on an mT5 checkpoint"
    default_model = "google/metricx-24-hybrid-xl-v2p6"
    libraries = (("transformers", "tf"), ("torch", "torch"), ("sentencepiece", "spm"))
    higher_is_better = False
    sample_models = {"tiny-metricx": "an mT5 MetricX-24 (model/) with its tokenizer (tokenizer/), like "
                                     "google/metricx-24-hybrid-xl-v2p6 with google/mt5-xl"}
    params = (
        Param("tokenizer", str, DEFAULT_TOKENIZER, "the mT5 tokenizer: a hub id or a local directory (MetricX "
              "checkpoints ship none; MetricX's README uses google/mt5-xl's, the same for every mT5 size)",
              short="tok", check=_nonempty),
        Param("qe", bool, None, "score source + candidate without a reference (default: yes for a "
              "metricx-23-qe-* model, else no; MetricX-24 hybrids take either)", short="qe"),
        Param("mx_version", int, None, "MetricX version: 24 (source: S candidate: H [reference: R]) or 23 "
              "(candidate: H reference: R | candidate: H source: S); default: from the model's name, else 24",
              choices=VERSIONS, short="mxv"),
        Param("max_length", int, None, "input tokens, EOS included, before MetricX drops the EOS (default: "
              "1536 for MetricX-24, 1024 for MetricX-23, as trained)", minimum=2, short="ml"),
    )

    @classmethod
    def write_sample_model(cls, name: str, out_dir: str) -> str:
        from .testing import build_tiny_metricx

        built = build_tiny_metricx(out_dir, seed=0)
        return f"model={out_dir}/{built.model.name},tokenizer={out_dir}/{built.tokenizer.name}"

    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        said_version, said_qe = _says(str(self.model))
        version = self.p["mx_version"] if self.p["mx_version"] is not None else (said_version or 24)
        if said_version is not None and version != said_version:
            raise SpecError(f"backbone 'metricx': mx_version={version}, but model '{self.model}' is a "
                            f"MetricX-{said_version} checkpoint; leave mx_version= out or give "
                            f"mx_version={said_version}", params=("mx_version",))
        qe = self.p["qe"] if self.p["qe"] is not None else bool(said_qe)
        if version == 23 and said_qe is not None and qe != said_qe:
            kind = "a QE (reference-free) model: use qe=yes" if said_qe else \
                "reference-based: use qe=no, or a metricx-23-qe-* model to score without a reference"
            raise SpecError(f"backbone 'metricx': qe={'yes' if qe else 'no'}, but MetricX-23 model '{self.model}' is "
                            f"{kind}", params=("qe",))
        if self.precision == "fp16":
            raise SpecError("backbone 'metricx': precision=fp16 overflows mT5's activations (scores turn to NaN); "
                            "use precision=bf16 (MetricX publishes bfloat16 variants) or fp32")
        # the resolved values, so that the spec and the signature say what was computed
        self.p.update(mx_version=version, qe=qe,
                      max_length=self.p["max_length"] if self.p["max_length"] is not None else MAX_LENGTH[version])
        self.version: int = version
        self.qe: bool = qe
        self.max_length: int = self.p["max_length"]
        self._dir: Path | None = None
        self._tok_dir: Path | None = None
        self._model: Any = None
        self._tok: Any = None
        self._score_id = -1
        self._pad_id = 0
        self._device = "cpu"

    # -- model resolution -------------------------------------------------------------------------
    def model_dir(self) -> Path:
        """The checkpoint's local directory (a hub id from the Hugging Face cache, or downloaded)."""
        if self._dir is None:
            hub_id = str(self.model)
            self._dir = find_model(
                hub_id, kind="MetricX checkpoint", layout=_CHECKPOINT_LAYOUT, download=_download_checkpoint,
                example="/path/to/metricx-24-hybrid-xl-v2p6",
                advice=f"To copy it from a machine with network: `huggingface-cli download {hub_id} --local-dir "
                       "DIR`, then model=DIR")
        return self._dir

    def tokenizer_dir(self) -> Path:
        """The tokenizer's local directory (``tokenizer=``; a hub id from the cache, or downloaded)."""
        if self._tok_dir is None:
            name = str(self.p["tokenizer"])
            self._tok_dir = find_model(
                name, kind="mT5 tokenizer", holds=("spiece.model", "tokenizer.json"), layout=_TOKENIZER_LAYOUT,
                download=_download_tokenizer, example="/path/to/mt5-tokenizer", param="tokenizer",
                advice="MetricX checkpoints ship no tokenizer; MetricX uses google/mt5-xl's (`huggingface-cli "
                       "download google/mt5-xl spiece.model tokenizer_config.json special_tokens_map.json "
                       "--local-dir DIR`, then tokenizer=DIR)")
        return self._tok_dir

    def _config(self, path: Path) -> dict[str, Any]:
        """config.json, read without torch; a checkpoint that is not mT5 is refused here."""
        file = path / "config.json"
        try:
            config = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise ModelError(f"model '{self.model}': {file} cannot be read as JSON ({exc})") from None
        if not isinstance(config, dict) or config.get("model_type") != "mt5":
            kind = config.get("model_type") if isinstance(config, dict) else None
            raise ModelError(f"model '{self.model}': {file} says model_type {kind!r}, not 'mt5'; the metricx backbone "
                             "runs MetricX checkpoints (mT5 fine-tuned for regression, e.g. "
                             f"{self.default_model})")
        check_config_size(config, file, str(self.model))  # num_layers=100000: refused before torch builds it
        return config

    # -- loading ------------------------------------------------------------------------------------
    def load(self) -> None:
        """Check the config and the tokenizer, then load the weights (once)."""
        if self._model is not None:
            return
        device = self.checked_device()
        path = self.model_dir()
        config = self._config(path)
        tok = self._load_tokenizer(int(config.get("vocab_size") or 0))
        with quiet_libraries():
            import torch
            from transformers import MT5ForConditionalGeneration

            try:
                model, info = MT5ForConditionalGeneration.from_pretrained(
                    str(path), local_files_only=True, torch_dtype=torch.float32, output_loading_info=True)
            except Exception as exc:  # noqa: BLE001 - OSError, safetensors errors, shape mismatches...
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise ModelError(f"cannot load the weights of model '{self.model}' from {path}: {reason}") from None
        missing = [k for k in info.get("missing_keys", ()) if "lm_head" in k or "shared" in k or ".block." in k]
        if missing:  # left at random: the scores would mean nothing
            raise ModelError(f"model '{self.model}': the weights in {path} lack {len(missing)} tensors "
                             f"(e.g. {missing[0]}); is it a MetricX checkpoint?")
        self.place(model, device)
        self._pad_id = int(config.get("pad_token_id") or 0)
        self._tok, self._device, self._model = tok, device, model

    def _load_tokenizer(self, vocab_size: int) -> Any:
        """The tokenizer, fast where it can be (MetricX loads it with AutoTokenizer), checked: it holds
        the score token inside the model's vocabulary and ends a sequence with EOS."""
        where = self.tokenizer_dir()
        name = self.p["tokenizer"]
        with quiet_libraries():
            tok = _auto_tokenizer(where)
        if tok is None or not callable(getattr(tok, "convert_tokens_to_ids", None)):
            raise ModelError(f"tokenizer={name}: {where} cannot be loaded as a tokenizer{_bad_vocabulary(where)} "
                             f"({_TOKENIZER_LAYOUT})", params=("tokenizer",))
        score_id = tok.convert_tokens_to_ids(SCORE_TOKEN)
        if score_id is None or score_id == tok.unk_token_id or tok.convert_ids_to_tokens(score_id) != SCORE_TOKEN:
            raise ModelError(f"tokenizer={name}: {where} has no token {SCORE_TOKEN}, whose logit is MetricX's score; "
                             "give mT5's tokenizer (google/mt5-xl)", params=("tokenizer",))
        if vocab_size and score_id >= vocab_size:
            raise ModelError(f"tokenizer={name}: its {SCORE_TOKEN} is id {score_id}, past the {vocab_size} rows of "
                             f"model '{self.model}': the tokenizer is not this model's", params=("tokenizer",))
        probe = tok("a")["input_ids"]
        if tok.eos_token_id is None or not probe or probe[-1] != tok.eos_token_id:
            raise ModelError(f"tokenizer={name}: {where} does not end a sequence with EOS, which MetricX drops; "
                             "give mT5's tokenizer (google/mt5-xl)", params=("tokenizer",))
        self._score_id = int(score_id)
        return tok

    # -- what it can do -----------------------------------------------------------------------------
    @property
    def capabilities(self) -> frozenset[str]:
        """QE with qe=yes, REFERENCE otherwise (known without loading)."""
        return frozenset({QE} if self.qe else {REFERENCE})

    def why_not(self, capability: str) -> str:
        if capability == QE and not self.qe:
            return ("it is given reference-based inputs (qe=no); pass qe=yes (MetricX-24 hybrids take either, "
                    "MetricX-23 has metricx-23-qe-* models)")
        if capability == REFERENCE and self.qe:
            return "it is given QE inputs (qe=yes); pass qe=no to score against the reference"
        return super().why_not(capability)

    def fingerprint(self) -> str:
        return fingerprint(self.model_dir())

    def cache_state(self) -> dict[str, str]:
        """The tokenizer's fingerprint: a score cache keys the weights by theirs, the tokenizer by its."""
        return {"tokenizer_fingerprint": fingerprint(self.tokenizer_dir())}

    def extra_signature_fields(self) -> list[SigField]:
        """Its parameters and, beside them, the tokenizer's fingerprint (it changes the ids)."""
        return super().extra_signature_fields() + [
            SigField("tokenizer_fingerprint", "tfp", fingerprint(self.tokenizer_dir()), is_param=False)]

    # -- scoring ----------------------------------------------------------------------------------
    def text(self, unit: Unit, index: int = 0) -> str:
        """The input text of ``unit`` (:func:`metricx_input`); a missing field is a UserError."""
        needed = ("src",) if self.qe else (("ref",) if self.version == 23 else ("src", "ref"))
        for what in needed:
            if getattr(unit, what) is None:
                flag = "-s/--source" if what == "src" else "-r/--reference"
                raise UserError(f"backbone 'metricx' (MetricX-{self.version}, qe={'yes' if self.qe else 'no'}) needs "
                                f"the {'source' if what == 'src' else 'reference'}, but unit {index} has none; pass "
                                f"it with {flag}")
        if unit.mt_context or unit.src_context or unit.ref_context:
            raise UserError("backbone 'metricx' takes no context sentences (it scores whole inputs: put context "
                            "into the unit's text, as SLIDE's windows do)")
        return metricx_input(self.version, self.qe, unit.src, unit.mt, unit.ref)

    def encode(self, texts: Sequence[str]) -> tuple[list[list[int]], list[int]]:
        """The encoder ids of each text as MetricX makes them (special tokens added, cut at
        ``max_length`` tokens EOS included, the EOS dropped) and the tokens each lost."""
        self.load()
        keep = self.max_length - 1
        rows = self._tok(list(texts), add_special_tokens=True, verbose=False)["input_ids"] if texts else []
        ids, cut = [], []
        for row in rows:
            content = list(row[:-1])  # _remove_eos: the tokenizer ends every sequence with EOS (checked)
            ids.append(content[:keep])
            cut.append(max(0, len(content) - keep))
        return ids, cut

    def score(self, units: Sequence[Unit]) -> BackboneOutput:
        """Error scores in [0, 25] (lower is better), same order as ``units``; identical inputs once."""
        units = list(units)
        if not units:
            return BackboneOutput(scores=[], truncated=[], unit_counters=[])
        texts = [self.text(u, i) for i, u in enumerate(units)]
        distinct = list(dict.fromkeys(texts))
        ids, cut = self.encode(distinct)
        values = self._forward(ids)
        by_text = {t: (v, n) for t, v, n in zip(distinct, values, cut)}
        scores = [by_text[t][0] for t in texts]
        per_unit_cut = [by_text[t][1] for t in texts]
        counters = {_CUT: sum(per_unit_cut)} if any(per_unit_cut) else {}
        return BackboneOutput(scores=scores, truncated=[n > 0 for n in per_unit_cut], counters=counters,
                              unit_counters=[{_CUT: n} if n else {} for n in per_unit_cut])

    def _forward(self, ids: list[list[int]]) -> list[float]:
        """The clamped first-step logit of the score token for each id list, in batches sorted by length
        within the token budget."""
        import torch

        model, device = self._model, self._device
        cuda = device == "cuda"
        out = [0.0] * len(ids)
        low, high = SCORE_RANGE
        with torch.inference_mode():
            for batch in self.batches([len(x) for x in ids], default_tokens=32768 if cuda else 4096):
                width = max(1, max(len(ids[j]) for j in batch))
                enc = torch.full((len(batch), width), self._pad_id, dtype=torch.long)
                mask = torch.zeros((len(batch), width), dtype=torch.long)
                for r, j in enumerate(batch):
                    enc[r, :len(ids[j])] = torch.tensor(ids[j], dtype=torch.long)
                    mask[r, :len(ids[j])] = 1
                enc, mask = enc.to(device), mask.to(device)
                start = torch.full((len(batch), 1), DECODER_INPUT_ID, dtype=torch.long, device=device)
                # MetricX's forward: the whole output layer (its rounding, tied rescaling), then one logit
                logits = model(input_ids=enc, attention_mask=mask, decoder_input_ids=start,
                               use_cache=False).logits[:, 0, self._score_id].float()
                for r, j in enumerate(batch):
                    out[j] = min(high, max(low, float(logits[r])))
        return out


def _bad_vocabulary(where: Path) -> str:
    """What is wrong with the tokenizer's SentencePiece file, for the message (a pickle named as one: a
    hostile or mistaken file, never unpickled here), or ""."""
    spiece = where / "spiece.model" if where.is_dir() else where
    try:
        with open(spiece, "rb") as f:
            head = f.read(2)
    except OSError:
        return ""
    if head[:1] == b"\x80":
        return f": {spiece} is a Python pickle, not a SentencePiece model (nothing in it was run)"
    return f": {spiece} is not a SentencePiece model this transformers can read"


def _auto_tokenizer(where: Path) -> Any | None:
    """``AutoTokenizer`` of ``where`` (fast, as MetricX loads it); where converting the slow tokenizer
    fails on sentencepiece's protobuf module, again with transformers' own; else the slow one."""
    import importlib

    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(str(where), local_files_only=True)
    except Exception:  # noqa: BLE001 - protobuf too old for sentencepiece's module, or no converter
        pass
    cst = importlib.import_module("transformers.convert_slow_tokenizer")
    try:
        from transformers.utils import sentencepiece_model_pb2_new

        original = cst.import_protobuf
        cst.import_protobuf = lambda *a, **k: sentencepiece_model_pb2_new
        try:
            return AutoTokenizer.from_pretrained(str(where), local_files_only=True)
        finally:
            cst.import_protobuf = original
    except Exception:  # noqa: BLE001
        pass
    try:
        return AutoTokenizer.from_pretrained(str(where), local_files_only=True, use_fast=False)
    except Exception:  # noqa: BLE001
        return None
