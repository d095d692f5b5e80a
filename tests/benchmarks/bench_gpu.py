"""GPU benchmark (issues 33, 41): docmetrics against its peers and against the device's arithmetic, in one run.

    python tests/benchmarks/bench_gpu.py --smoke [--out DIR]          # tiny models, CPU, about a minute
    python tests/benchmarks/bench_gpu.py --full OUT_DIR [--data DIR]  # a lent GPU: one call under 8 minutes
    bash tests/benchmarks/gpu_run.sh                                  # the GPU machine: wheels, checks, --full

``--precisions fp16,bf16`` and ``--arms slide66,slide21,doc-comet,bertscore,doc-bertscore,metricx,llm`` choose
what runs (default: ``--full`` fp16,bf16 and every arm; ``--smoke`` fp32 and every arm).  Both write
``bench_gpu.json`` and ``bench_gpu.md`` (the table) to the folder given (``--smoke``: ``--out``, else only the
table is printed), again after every arm: a run cut short leaves what it measured.  The scores of random models
mean nothing; what is measured is the work: tokenization, batching, padding, copies and the forward passes of
models of the real architectures.

Models, built offline on the machine that runs (never carried), random weights:
* an XLM-R-shaped encoder (``--full``: XLM-R large, 1024 x 24 layers, vocabulary 250,002, about 560M
  parameters; ``--smoke``: 32 x 2) with a SentencePiece tokenizer trained on the texts, wrapped as a
  CometKiwi-22 UnifiedMetric (mt+src, CLS pooling), a wmt22-comet-da RegressionMetric (avg pooling) and, with
  its weights saved, BERTScore's encoder (layer 17 as bert-score uses for xlm-roberta-large; 2 in the smoke run);
* MetricX-24 (``--full``: mT5-XL, d_model 2048, 24+24 layers, vocabulary 250,112, 1536 input tokens; about
  3.7B parameters; ``--smoke``: build_tiny_metricx) with an mT5-style tokenizer trained on the texts;
* a chat LLM for GEMBA-ESA (``--full``: Llama-3.2-1B-shaped, hidden 2048, 16 layers, 32 heads, 8 key-value
  heads, vocabulary 128,256, about 1.2B parameters; ``--smoke``: build_tiny_llm) with a ChatML tokenizer.

Texts: ``--data`` (a folder of ../shared/data with segments.tsv, or one written by wmt_data.py with src.txt,
ref.txt, docids.txt and sys/), else ../shared/data/wmt21_ted_ende where present, else the sample of two
documents committed in data/ted_ende_sample.tsv.xz (``--smoke`` always reads the sample: CI has no ../shared).

Arms, each timed after its models are loaded, its implementations interleaved (the order rotates every round),
median of ``--repeats`` (>= 3) after an untimed warm-up:

* SLIDE(6,6), SLIDE(2,1) on the CometKiwi, Doc-COMET k=2 on the COMET-DA: docmetrics (one ``score_systems``
  call) vs COMET's ``predict()`` once per system (batch 16, COMET's default; ``enable_context()`` and the
  paper's "c1 </s> c2 </s> current" strings for Doc-COMET) on the same units vs the exact-length reference;
* BERTScore (doc-bertscore k=0) vs bert-score's ``BERTScorer.score`` per system (fp32 only: bert-score has no
  precision option); Doc-BERTScore k=2 (no peer) vs the exact-length reference;
* MetricX-24 (SLIDE(6,6) windows as MetricX inputs, qe=yes): docmetrics' batched backbone vs MetricX's own
  predict logic, one input at a time (its predict.py runs batch size 1: google-research/metricx#2);
* GEMBA-ESA (two steps: the error spans greedily, then the 0-100 score constrained) on the first segments of
  one system: docmetrics' local path (batched ``generate``) vs a plain ``generate`` loop, one unit at a time;
  vLLM where the machine has it (it has not: NOTES-gpu.md), else listed as skipped.

The exact-length reference (``exact``) is what the first run called "floor": every distinct sequence the
encoder must see (CometKiwi: each distinct joint mt+src input; COMET-DA: each distinct src/mt/ref text with its
context, embedded once and shared by every unit and field; BERTScore: each distinct sentence) encoded once in
batches of sequences of exactly one length (no padding), the tensors already on the device, then the head.  It
has its own copy of the model: COMET's ``predict()`` (a Lightning Trainer) returns the model it ran to the CPU.

The floor is the device's arithmetic.  At the start, per precision, the peak of the same device is measured
(``--peak-n`` square matmuls: 8192 on a GPU, 512 on a CPU).  Per arm, the sequences the encoder must see are
counted unpadded (``tokens_needed``) and their FLOPs (``flops_needed``) from the architecture: per layer and
token the matmuls (2 x multiply-adds of the attention projections, the feed-forward, for mT5 also the
decoder's cross-attention keys and values over the encoder's output) and per sequence the attention (4 n^2
d for QK^T and AV); embeddings, norms and softmax are not counted.  A forward hook on the encoder (XLMRobertaModel,
mT5's encoder stack, the LLM's decoder stack) counts the tokens each implementation actually ran, padded
(``tokens_run``, and ``flops_run`` for the encoders).  Each timed row gives ``tflops`` (flops_needed / median
seconds) and ``mfu`` (tflops / the measured peak at that precision): 1.0 is the floor.

Per arm and precision also: units/s (units of all systems), peak GPU memory (``max_memory_allocated`` since the
arm started, weights of every loaded model included; None on a CPU), the largest unit-score difference to
docmetrics and to the same implementation at fp32.  Then the token budget (``--max-tokens``) swept on SLIDE(2,1)
and Doc-COMET k=2 at the last precision run.  Parts that would overrun ``--budget-s`` are skipped and listed;
an arm that fails is listed with its error and the run goes on.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import lzma
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "data" / "ted_ende_sample.tsv.xz"
SHARED = HERE.parents[2] / "shared" / "data" / "wmt21_ted_ende"
SEP = " </s> "  # Doc-COMET's context separator for XLM-R (Vernikos et al. 2022's code)
PRECISIONS = ("fp32", "fp16", "bf16")
#: Largest unit-score difference docmetrics may have to its peer at the same precision.  fp32: 1e-5, as
#: bench_engines.py (a CPU run of the tiny models reaches 1e-6, the goal of issue 33, within rounding: batches
#: of other composition and padding differ there); fp16 2e-4 (the first H200 run measured 1.2e-4 on Doc-COMET:
#: fp16 keeps 11 bits, and padding changes the order of the sums); bf16 keeps 8 bits of mantissa.
TOLERANCE = {"fp32": 1e-5, "fp16": 2e-4, "bf16": 1e-2}
IMPLS = ("docmetrics", "peer", "exact")
LABELS = {"predict": "COMET predict()", "bert_score": "bert_score BERTScorer", "metricx": "MetricX predict (batch 1)",
          "generate": "generate loop (batch 1)"}


@dataclass(frozen=True)
class Sizes:
    """The shapes and the amount of work of one kind of run."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int               # the encoder's embedding rows (>= the tokenizer's pieces)
    init: float              # initializer_range (0.2 makes a tiny random model's scores vary)
    head: tuple[int, int]    # COMET's estimator hidden sizes
    bertscore_layer: int
    spm_vocab: int           # SentencePiece pieces trained on the texts (an upper bound)
    systems: int             # the first N MT systems
    repeats: int
    budgets: tuple[int, ...]  # --max-tokens values swept
    metricx: dict[str, int] | None = None   # MT5Config shape (None: build_tiny_metricx's)
    metricx_systems: int = 2                # systems the MetricX arm scores (its peer runs batch 1)
    llm: dict[str, Any] | None = None       # LlamaConfig shape (None: build_tiny_llm's)
    llm_units: int = 6                      # segments of the first system the LLM judge scores
    llm_new_tokens: int = 8                 # max_new_tokens of GEMBA-ESA's first step
    peak_n: int = 512                       # the matmul of the peak measurement


MT5_XL = {"d_model": 2048, "d_kv": 64, "d_ff": 5120, "num_layers": 24, "num_decoder_layers": 24, "num_heads": 32,
          "vocab_size": 250112, "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128}
LLAMA_1B = {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
            "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
            "rope_theta": 500000.0, "tie_word_embeddings": True}
SMOKE = Sizes(32, 2, 2, 64, 0, 0.2, (64, 32), 2, 2000, 2, 3, (1024, 4096))
FULL = Sizes(1024, 24, 16, 4096, 250002, 0.02, (3072, 1024), 17, 16000, 4, 3, (8192, 32768, 131072),
             metricx=MT5_XL, metricx_systems=2, llm=LLAMA_1B, llm_units=16, llm_new_tokens=48, peak_n=8192)


# -- the arithmetic ---------------------------------------------------------------------------------------------
def encoder_flops(n: int, hidden: int, ffn: int, layers: int, inner: int | None = None, gated: bool = False) -> int:
    """FLOPs of ``layers`` transformer encoder layers on one sequence of ``n`` tokens: the attention
    projections (q, k, v, o: 4 hidden x inner), the feed-forward (2 matrices, 3 where gated as mT5's), and
    the attention itself (QK^T and AV: 2 n^2 inner multiply-adds); 2 FLOPs a multiply-add."""
    inner = hidden if inner is None else inner
    per_token = 4 * hidden * inner + (3 if gated else 2) * hidden * ffn
    return layers * (2 * n * per_token + 4 * n * n * inner)


def mt5_flops(n: int, c: dict[str, int]) -> int:
    """MetricX's forward on one input of ``n`` tokens: the mT5 encoder, then one decoder step (its
    self-attention and feed-forward on one token, the cross-attention's keys and values over the ``n``
    encoder outputs, its query and output on one, attention over one and over ``n`` positions) and the
    output layer for that one position."""
    d, inner, ff = c["d_model"], c["num_heads"] * c["d_kv"], c["d_ff"]
    enc = encoder_flops(n, d, ff, c["num_layers"], inner, gated=True)
    dec_layer = 2 * (4 * d * inner + 3 * d * ff) + 4 * inner + 2 * (2 * d * inner) * (1 + n) + 4 * n * inner
    return enc + c["num_decoder_layers"] * dec_layer + 2 * d * c["vocab_size"]


def causal_flops(prompt: int, new: int, c: dict[str, Any]) -> int:
    """A greedy answer of ``new`` tokens to a prompt of ``prompt`` tokens on a decoder-only LM with a KV
    cache: the prompt's tokens once (causal attention: token i attends to i), then each answer token but the
    last (its successor is the answer's end) attends to the prompt and the answer so far; the output layer
    once per answer token."""
    h, layers, ff = c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"]
    kv = h * c["num_key_value_heads"] // c["num_attention_heads"]
    per_token = 2 * (h * (h + 2 * kv) + h * h + 3 * h * ff)
    seen = prompt + max(new - 1, 0)
    attention = 2 * h * seen * (seen + 1)  # sum over positions i of 4 i h
    return layers * (seen * per_token + attention) + new * 2 * h * c["vocab_size"]


def xlmr_shape(config: Any) -> dict[str, int]:
    return {"hidden": int(config.hidden_size), "ffn": int(config.intermediate_size)}


class TokenCounter:
    """Counts, while it is entered, what the encoders run: a global forward hook on every module whose class
    is one of ``classes`` (XLMRobertaModel; mT5's stack where it is no decoder; a causal LM's decoder stack)
    records its output's batch and width (padded).  ``shapes``: (class, batch, width, layers, config)."""

    CLASSES = ("XLMRobertaModel", "MT5Stack", "T5Stack", "LlamaModel", "Qwen2Model", "MistralModel")

    def __init__(self) -> None:
        self.shapes: list[tuple[str, int, int, int, Any]] = []
        self._handle: Any = None

    def __enter__(self) -> TokenCounter:
        import torch

        self._handle = torch.nn.modules.module.register_module_forward_hook(self._hook)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._handle.remove()

    def _hook(self, module: Any, args: Any, output: Any) -> None:
        name = type(module).__name__
        if name not in self.CLASSES or getattr(module, "is_decoder", False):
            return
        hidden = output[0] if isinstance(output, (tuple, list)) else getattr(output, "last_hidden_state", None)
        if hidden is None or getattr(hidden, "dim", lambda: 0)() != 3:
            return
        layers = len(getattr(getattr(module, "encoder", None), "layer", None) or getattr(module, "block", None)
                     or getattr(module, "layers", None) or [])
        self.shapes.append((name, int(hidden.shape[0]), int(hidden.shape[1]), layers, module.config))

    def tokens(self) -> int:
        return sum(b * w for _, b, w, _, _ in self.shapes)

    def flops(self) -> int | None:
        """The FLOPs of what ran, padded, for encoders (None for a causal LM: its cache lengths are not seen)."""
        total = 0
        for name, b, w, layers, c in self.shapes:
            if name == "XLMRobertaModel":
                total += b * encoder_flops(w, int(c.hidden_size), int(c.intermediate_size), layers)
            elif name in ("MT5Stack", "T5Stack"):
                total += b * mt5_flops(w, {k: int(getattr(c, k)) for k in MT5_XL})
            else:
                return None
        return total


def matmul_peak(torch: Any, device: str, precision: str, n: int) -> dict[str, Any]:
    """TFLOP/s of an n x n x n matmul at ``precision`` on ``device`` (median of timed runs after warm-up):
    the device's arithmetic as this torch uses it (fp32 without TF32, torch's default)."""
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[precision]
    gen = torch.Generator(device=device).manual_seed(0)
    a = torch.randn((n, n), device=device, dtype=dtype, generator=gen)
    b = torch.randn((n, n), device=device, dtype=dtype, generator=gen)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    for _ in range(3):
        a @ b
    sync()
    reps = 10 if device == "cuda" else 3
    times = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(reps):
            a @ b
        sync()
        times.append((time.perf_counter() - t) / reps)
    med = statistics.median(times)
    del a, b
    return {"n": n, "tflops": round(2 * n**3 / med / 1e12, 2), "seconds": round(med, 6)}


# -- texts ----------------------------------------------------------------------------------------------------
def read_sample(path: Path = SAMPLE) -> dict[str, Any]:
    """The committed sample (ted_sample.py wrote it) as wmt_data.load gives a data set."""
    lines = lzma.decompress(path.read_bytes()).decode("utf-8").splitlines()
    header, rows = lines[0].split("\t"), [line.split("\t") for line in lines[1:]]
    return {"doc_ids": [r[0] for r in rows], "src": [r[1] for r in rows], "ref": [r[2] for r in rows],
            "systems": {name: [r[3 + k] for r in rows] for k, name in enumerate(header[3:])},
            "name": f"{path.name} (2 documents of wmt21_ted_ende)"}


def read_texts(data: str | None, smoke: bool) -> dict[str, Any]:
    """``--data``, else ../shared/data/wmt21_ted_ende, else the sample (always the sample with ``smoke``)."""
    if smoke or (data is None and not (SHARED / "segments.tsv").exists()):
        return read_sample()
    folder = Path(data) if data else SHARED
    if (folder / "segments.tsv").exists():
        sys.path.insert(0, str(HERE))
        import wmt_data

        d = wmt_data.load(folder)
        return {**d, "name": folder.name}
    if (folder / "src.txt").exists():  # as wmt_data.py writes it (gpu_wheels.sh carries that)

        def lines(p: Path) -> list[str]:
            return p.read_text(encoding="utf-8").splitlines()

        return {"doc_ids": lines(folder / "docids.txt"), "src": lines(folder / "src.txt"),
                "ref": lines(folder / "ref.txt"),
                "systems": {p.stem: lines(p) for p in sorted((folder / "sys").glob("*.txt"))
                            if p.stem != "ref-A"},
                "name": f"{folder} (wmt21_ted_ende)"}
    raise SystemExit(f"--data {folder}: neither segments.tsv nor src.txt there")


# -- models ---------------------------------------------------------------------------------------------------
def build_encoder(out: Path, texts: list[str], sizes: Sizes, seed: int = 0) -> Path:
    """An XLM-R-shaped encoder directory of ``sizes``: tokenizer trained on ``texts``, random weights."""
    import torch
    from docmetrics_backbones.tiny import build_tiny_xlmr
    from transformers import XLMRobertaConfig, XLMRobertaModel

    try:
        build_tiny_xlmr(out, sentences=texts, vocab_size=sizes.spm_vocab, weights=False)
    except TypeError:  # transformers 5: XLMRobertaTokenizer takes the pieces, not a SentencePiece file
        write_xlmr_tokenizer_v5(out, texts, sizes.spm_vocab)
    base = json.loads((out / "config.json").read_text())
    config = XLMRobertaConfig(**{**base, "hidden_size": sizes.hidden, "num_hidden_layers": sizes.layers,
                                 "num_attention_heads": sizes.heads, "intermediate_size": sizes.intermediate,
                                 "vocab_size": max(base["vocab_size"], sizes.vocab),
                                 "initializer_range": sizes.init})
    config.save_pretrained(str(out))
    torch.manual_seed(seed)
    XLMRobertaModel(config, add_pooling_layer=False).save_pretrained(str(out), safe_serialization=True)
    return out


def write_xlmr_tokenizer_v5(out: Path, texts: list[str], vocab_size: int) -> None:
    """What build_tiny_xlmr writes, for transformers 5 (the GPU machine's): an XLM-R tokenizer over a
    SentencePiece unigram model trained on ``texts`` (fairseq's order: <s> <pad> </s> <unk>, the pieces,
    <mask>), and a tiny config naming its special tokens."""
    import sentencepiece as spm
    from docmetrics_backbones.tiny import train_sentencepiece
    from transformers import XLMRobertaConfig, XLMRobertaTokenizer

    proto = train_sentencepiece(texts, vocab_size)
    (out / "sentencepiece.bpe.model").write_bytes(proto)
    sp = spm.SentencePieceProcessor(model_proto=proto)
    pieces = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(3, sp.get_piece_size())]
    tok = XLMRobertaTokenizer(vocab=[("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), *pieces,
                                     ("<mask>", 0.0)])
    tok.save_pretrained(str(out))
    XLMRobertaConfig(vocab_size=len(tok), pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id,
                     eos_token_id=tok.eos_token_id, type_vocab_size=1).save_pretrained(str(out))


def comet_hparams(kind: str, sizes: Sizes) -> tuple[str, dict[str, Any]]:
    """The hyper-parameters of wmt22-cometkiwi-da (``kiwi``) or wmt22-comet-da (``da``), head sized by ``sizes``."""
    common = {"encoder_model": "XLM-RoBERTa", "activations": "Tanh", "dropout": 0.1,
              "layer_transformation": "sparsemax", "layer_norm": False, "nr_frozen_epochs": 0.3,
              "keep_embeddings_frozen": True, "batch_size": 16, "hidden_sizes": list(sizes.head)}
    if kind == "kiwi":
        return "unified_metric", {**common, "sent_layer": "mix", "word_layer": sizes.layers,
                                  "final_activation": None, "input_segments": ["mt", "src"],
                                  "word_level_training": False}
    return "regression_metric", {**common, "pool": "avg", "layer": "mix", "final_activation": None}


def build_comet(out: Path, kind: str, encoder: Path, sizes: Sizes, seed: int = 0) -> Path:
    """A random COMET model in the layout of a downloaded one (hparams.yaml, checkpoints/model.ckpt)."""
    import pytorch_lightning
    import torch
    import yaml
    from comet.models import str2model

    import docmetrics

    identifier, hparams = comet_hparams(kind, sizes)
    torch.manual_seed(seed)
    with docmetrics.quiet_libraries():
        model = str2model[identifier](pretrained_model=str(encoder), load_pretrained_weights=False, **hparams)
    if sizes.init > 0.1:  # a tiny random head barely varies; a larger one makes scores differ
        with torch.no_grad():
            for module in model.estimator.modules():
                if isinstance(module, torch.nn.Linear):
                    module.weight.mul_(3.0)
    stored = {**hparams, "class_identifier": identifier, "pretrained_model": str(encoder)}
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    torch.save({"epoch": 0, "global_step": 0, "pytorch-lightning_version": pytorch_lightning.__version__,
                "state_dict": {k: v.contiguous() for k, v in model.state_dict().items()},
                "hyper_parameters": stored}, out / "checkpoints" / "model.ckpt")
    (out / "hparams.yaml").write_text(yaml.safe_dump(stored), encoding="utf-8")
    return out


# -- the arms -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Arm:
    key: str                                   # what --arms names
    name: str
    spec: str
    model: str                                 # kiwi, da, bertscore, metricx or llm
    peer: str | None                           # predict, bert_score, metricx, generate or None
    context: bool = False                      # Doc-COMET: enable_context() and joined strings for predict()
    exact: bool = True                         # has an exact-length reference
    only: tuple[str, ...] = PRECISIONS         # the precisions it runs at
    why_not: str = ""                          # why not at the others


ARMS = (
    Arm("slide66", "SLIDE(6,6)", "slide:w=6,s=6", "kiwi", "predict"),
    Arm("slide21", "SLIDE(2,1)", "slide:w=2,s=1", "kiwi", "predict"),
    Arm("doc-comet", "doc-comet k=2", "doc-comet:k=2", "da", "predict", context=True),
    Arm("bertscore", "BERTScore (k=0)", "doc-bertscore:k=0", "bertscore", "bert_score"),
    Arm("doc-bertscore", "Doc-BERTScore k=2", "doc-bertscore:k=2", "bertscore", None),
    Arm("metricx", "MetricX-24 SLIDE(6,6)", "slide:w=6,s=6,backbone=metricx,qe=yes", "metricx", "metricx",
        exact=False, only=("fp32", "bf16"), why_not="the metricx backbone refuses fp16 (mT5's activations overflow it)"),
    Arm("llm", "GEMBA-ESA", "slide:w=1,s=1,backbone=llm,prompt=gemba-esa,score=constrained,lang=en-de", "llm",
        "generate", exact=False, only=("fp32", "bf16"), why_not="bf16 only: both fit one device call, not three"),
)
ARM_KEYS = tuple(a.key for a in ARMS)
ENCODER_ARMS = tuple(a.key for a in ARMS if a.model in ("kiwi", "da", "bertscore"))
SWEPT = ("slide21", "doc-comet")


@dataclass
class Impl:
    """One implementation of an arm: ``run`` scores every unit ({system: unit scores}); ``warm`` is a cheaper
    warm-up where the full run is long (then its tokens are not counted); ``model`` the model object it holds."""

    run: Callable[[], dict[str, list[float]]]
    label: str
    warm: Callable[[], Any] | None = None
    model: Any = None


@dataclass
class Need:
    """What the encoder must see: tokens (unpadded) and their FLOPs."""

    tokens: int
    flops: int
    sequences: int = 0


@dataclass
class Built:
    impls: dict[str, Impl]
    units: int
    need: Callable[[], Need]
    skipped: dict[str, str] = field(default_factory=dict)   # impl -> why it is not run


class Bench:
    """One benchmark run: texts, models, device and the clock."""

    def __init__(self, sizes: Sizes, texts: dict[str, Any], device: str, budget_s: float, work: Path) -> None:
        import torch

        self.torch = torch
        self.sizes, self.device, self.work = sizes, device, work
        self.deadline = time.perf_counter() + budget_s
        names = list(texts["systems"])[:sizes.systems]
        self.systems = {n: texts["systems"][n] for n in names}
        self.src, self.ref, self.ids = texts["src"], texts["ref"], texts["doc_ids"]
        self.texts_name = texts["name"]
        self.models: dict[str, Path] = {}
        self.masters: dict[str, Any] = {}       # peers' fp32 models on the CPU, copied per precision
        self.built: dict[str, Any] = {}         # models built on the device (MetricX, the LLM), at build_dtype
        self.peaks: dict[str, dict[str, Any]] = {}
        self.skipped: list[str] = []

    # -- helpers
    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def sync(self) -> None:
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def reset_peak(self) -> None:
        if self.device == "cuda":
            self.torch.cuda.reset_peak_memory_stats()

    def peak_gib(self) -> float | None:
        return round(self.torch.cuda.max_memory_allocated() / 2**30, 3) if self.device == "cuda" else None

    def free(self) -> None:
        gc.collect()
        if self.device == "cuda":
            self.torch.cuda.empty_cache()

    def dtype(self, precision: str) -> Any:
        return {"fp32": self.torch.float32, "fp16": self.torch.float16, "bf16": self.torch.bfloat16}[precision]

    def data(self, arm: Arm) -> tuple[dict[str, list[str]], list[str], list[str], list[str]]:
        """(systems, sources, references, doc ids) an arm scores: MetricX the first metricx_systems, the LLM
        judge the first llm_units segments of the first system, the others every selected system."""
        if arm.model == "metricx":
            names = list(self.systems)[:self.sizes.metricx_systems]
            return {n: self.systems[n] for n in names}, self.src, self.ref, self.ids
        if arm.model == "llm":
            k = self.sizes.llm_units
            first = next(iter(self.systems))
            return {first: self.systems[first][:k]}, self.src[:k], self.ref[:k], self.ids[:k]
        return self.systems, self.src, self.ref, self.ids

    # -- models
    def build(self, keys: tuple[str, ...]) -> dict[str, Any]:
        t = time.perf_counter()
        corpus = self.src + self.ref + [h for hyps in self.systems.values() for h in hyps]
        info: dict[str, Any] = {"sizes": asdict(self.sizes)}
        if any(k in ENCODER_ARMS for k in keys):
            enc = build_encoder(self.work / "encoder", corpus, self.sizes)
            self.models.update(bertscore=enc, kiwi=build_comet(self.work / "kiwi", "kiwi", enc, self.sizes),
                               da=build_comet(self.work / "da", "da", enc, self.sizes, seed=1))
            from transformers import AutoTokenizer

            tok = AutoTokenizer.from_pretrained(str(enc))
            words = sum(len(s.split()) for s in corpus)
            pieces = sum(len(tok(s, add_special_tokens=False)["input_ids"]) for s in corpus)
            info.update(parameters=_parameters(enc), tokenizer_pieces=len(tok), tokens_per_word=round(pieces / words, 3))
        info["seconds"] = round(time.perf_counter() - t, 1)
        if "metricx" in keys:
            t = time.perf_counter()
            info["metricx"] = self.build_metricx(corpus)
            info["metricx"]["seconds"] = round(time.perf_counter() - t, 1)
        if "llm" in keys:
            t = time.perf_counter()
            info["llm"] = self.build_llm()
            info["llm"]["seconds"] = round(time.perf_counter() - t, 1)
        return info

    def build_metricx(self, corpus: list[str]) -> dict[str, Any]:
        """A MetricX-24 checkpoint and its tokenizer: build_tiny_metricx's; with ``sizes.metricx`` its model
        replaced by a random mT5 of that shape, built on the device in bf16 and kept as the peer's."""
        from docmetrics_backbones.metricx.testing import build_tiny_metricx

        tiny = build_tiny_metricx(self.work / "metricx", sentences=corpus[:2000],
                                  vocab_size=min(self.sizes.spm_vocab, 8000))
        self.models.update(metricx=tiny.model, metricx_tokenizer=tiny.tokenizer)
        if self.sizes.metricx is None:
            return {"parameters": _parameters(tiny.model), "shape": "build_tiny_metricx"}
        torch = self.torch
        from transformers import MT5Config, MT5ForConditionalGeneration

        old = json.loads((tiny.model / "config.json").read_text())
        config = MT5Config(**self.sizes.metricx, feed_forward_proj="gated-gelu",
                           tie_word_embeddings=False, pad_token_id=old["pad_token_id"],
                           eos_token_id=old["eos_token_id"], decoder_start_token_id=old["decoder_start_token_id"])
        config.architectures = ["MT5ForRegression"]
        torch.manual_seed(0)
        with torch.device(self.device):
            model = MT5ForConditionalGeneration(config)
        model = model.to(torch.bfloat16).eval()
        for f in tiny.model.glob("*.safetensors"):
            f.unlink()
        model.save_pretrained(str(tiny.model), safe_serialization=True)
        (tiny.model / "generation_config.json").unlink(missing_ok=True)
        self.built["metricx"] = model
        return {"parameters": sum(p.numel() for p in model.parameters()), "shape": self.sizes.metricx}

    def build_llm(self) -> dict[str, Any]:
        """A chat LLM: build_tiny_llm's tokenizer (ChatML, numbers 0..100 single tokens); with ``sizes.llm``
        its model replaced by a random Llama of that shape, built on the device in bf16 and kept as the
        peer's."""
        from docmetrics_backbones.llm.testing import build_tiny_llm

        out = build_tiny_llm(self.work / "llm", vocab_size=4000 if self.sizes.llm else 600)
        self.models["llm"] = out
        if self.sizes.llm is None:
            return {"parameters": _parameters(out), "shape": "build_tiny_llm"}
        torch = self.torch
        from transformers import LlamaConfig, LlamaForCausalLM

        old = json.loads((out / "config.json").read_text())
        config = LlamaConfig(**self.sizes.llm, rms_norm_eps=1e-5, initializer_range=0.02,
                             eos_token_id=old["eos_token_id"], pad_token_id=old["pad_token_id"], bos_token_id=None)
        torch.manual_seed(0)
        with torch.device(self.device):
            model = LlamaForCausalLM(config)
        model = model.to(torch.bfloat16).eval()
        with torch.no_grad():  # rows past the tokenizer's: never the greedy answer (it could not be decoded)
            model.get_output_embeddings().weight[int(old["vocab_size"]):] = 0
        for f in out.glob("*.safetensors"):
            f.unlink()
        model.save_pretrained(str(out), safe_serialization=True)
        self.built["llm"] = model
        return {"parameters": sum(p.numel() for p in model.parameters()), "shape": self.sizes.llm}

    def spec(self, arm: Arm) -> str:
        extra = {"bertscore": f",layer={self.sizes.bertscore_layer}",
                 "metricx": f",tokenizer={self.models.get('metricx_tokenizer')}",
                 "llm": f",max_new_tokens={self.sizes.llm_new_tokens}"}.get(arm.model, "")
        return f"{arm.spec},model={self.models[arm.model]}{extra}"

    def master(self, kind: str) -> Any:
        if kind not in self.masters:
            import comet

            import docmetrics

            with docmetrics.quiet_libraries():
                model = comet.load_from_checkpoint(str(self.models[kind] / "checkpoints" / "model.ckpt"))
            self.masters[kind] = model.eval()
        return self.masters[kind]

    def cast(self, model: Any, precision: str) -> Any:
        """A copy of ``model`` of its own on the device at ``precision``: never shared with another
        implementation (COMET's predict() moves the model it ran back to the CPU)."""
        model = copy.deepcopy(model).to(self.device).eval()
        return model.to(self.dtype(precision)) if precision != "fp32" else model

    def own_model(self, kind: str, precision: str) -> Any:
        """The peer's MetricX or LLM at ``precision``: the model built on the device where it is at that
        precision, else loaded from its directory."""
        built = self.built.get(kind)
        if built is not None and next(built.parameters()).dtype == self.dtype(precision):
            return built
        from transformers import AutoModelForCausalLM, MT5ForConditionalGeneration

        import docmetrics

        cls = MT5ForConditionalGeneration if kind == "metricx" else AutoModelForCausalLM
        with docmetrics.quiet_libraries():
            model = cls.from_pretrained(str(self.models[kind]), local_files_only=True,
                                        torch_dtype=self.dtype(precision))
        return model.to(self.device).eval()

    # -- one arm at one precision
    def time_arm(self, arm: Arm, precision: str, peers: bool) -> list[dict[str, Any]]:
        import docmetrics

        session = docmetrics.Session(cache=None, device=self.device, precision=precision, quiet=True)
        try:
            t = time.perf_counter()
            built = self.impls(arm, precision, session, peers)
            load_s = time.perf_counter() - t
            counted: dict[str, TokenCounter] = {}
            for name, impl in built.impls.items():  # warm-up (kernels, allocator, lazy imports), untimed
                if impl.warm is None:
                    with TokenCounter() as counter:
                        impl.run()
                    counted[name] = counter
                else:
                    impl.warm()
            times: dict[str, list[float]] = {}
            peaks: dict[str, float | None] = {}
            scores: dict[str, dict[str, list[float]]] = {}
            order = list(built.impls)
            for r in range(self.sizes.repeats):
                for name in order[r % len(order):] + order[:r % len(order)]:
                    self.sync()
                    self.reset_peak()
                    t = time.perf_counter()
                    out = built.impls[name].run()
                    self.sync()
                    times.setdefault(name, []).append(time.perf_counter() - t)
                    peak = self.peak_gib()
                    peaks[name] = max(peaks.get(name) or 0.0, peak) if peak is not None else None
                    scores[name] = out
            need = built.need()
            peak_tflops = self.peaks.get(precision, {}).get("tflops")
            rows = []
            for name in IMPLS:
                impl = built.impls.get(name)
                label = impl.label if impl else {"docmetrics": "docmetrics", "exact": "exact-length reference"}.get(
                    name, LABELS.get(arm.peer or "", "peer"))
                if impl is None:
                    rows.append({"arm": arm.name, "key": arm.key, "impl": name, "label": label, "precision": precision,
                                 "skipped": built.skipped.get(name, "")})
                    continue
                med = statistics.median(times[name])
                tflops = need.flops / med / 1e12
                row: dict[str, Any] = {
                    "arm": arm.name, "key": arm.key, "impl": name, "label": label, "precision": precision,
                    "units": built.units, "seconds": [round(x, 4) for x in times[name]], "median_s": round(med, 4),
                    "units_per_s": round(built.units / med, 1), "peak_gpu_gib": peaks[name],
                    "tokens_needed": need.tokens, "flops_needed": need.flops, "sequences_needed": need.sequences,
                    "tflops": round(tflops, 3 if tflops < 10 else 1),
                    "mfu": round(tflops / peak_tflops, 4) if peak_tflops else None,
                    "scores": scores[name]}
                if name in counted:
                    c = counted[name]
                    row["tokens_run"] = c.tokens()
                    row["flops_run"] = c.flops()
                    row["padding"] = round(c.tokens() / need.tokens, 3) if need.tokens else None
                    if c.shapes:
                        row["attn_implementation"] = getattr(c.shapes[0][4], "_attn_implementation", None)
                if name != "docmetrics" and "docmetrics" in scores and scores[name]:
                    row["diff_to_docmetrics"] = max_diff(scores["docmetrics"], scores[name])
                rows.append(row)
            rows[0]["load_s"] = round(load_s, 1)
            return rows
        finally:
            session.close()
            self.free()

    def impls(self, arm: Arm, precision: str, session: Any, peers: bool) -> Built:
        """The implementations of ``arm`` at ``precision``, loaded, and what the encoder must see."""
        import docmetrics

        systems, src, ref, ids = self.data(arm)
        testset = docmetrics.TestSet.from_lists(systems, src, ref, ids)
        metric = docmetrics.load(self.spec(arm), session=session)
        metric.check_inputs(testset)
        plan = {n: [u.input for u in us] for n, us in metric.units(testset).systems.items()}
        units = sum(map(len, plan.values()))
        impls = {"docmetrics": Impl(self._docmetrics(metric, systems, src, ref, ids), "docmetrics")}
        skipped: dict[str, str] = {}
        if not arm.exact:
            skipped["exact"] = "no exact-length reference for this arm (its peer runs unpadded, one input at a time)"
        if arm.peer is None:
            skipped["peer"] = "no peer"
        if arm.model in ("kiwi", "da"):
            if peers:
                model = self.cast(self.master(arm.model), precision)
                first = next(iter(plan))
                impls["peer"] = Impl(self._predict(model, plan, arm.context), LABELS["predict"], model=model,
                                     warm=self._predict(model, {first: plan[first][:16]}, arm.context))
            else:
                skipped["peer"] = "peers run at the --peers precisions only"
            model = self.cast(self.master(arm.model), precision)  # the reference's own copy
            run, need = (self._exact_da if arm.context else self._exact_kiwi)(model, plan)
            impls["exact"] = Impl(run, "exact-length reference", model=model)
        elif arm.model == "bertscore":
            if arm.peer and precision == "fp32" and peers:
                impls["peer"] = Impl(self._bert_score(), LABELS["bert_score"])
            elif arm.peer:
                skipped["peer"] = ("bert_score has no precision option" if precision != "fp32" else
                                   "peers run at the --peers precisions only")
            tok, master = self._bertscore_model()
            model = self.cast(master, precision)
            run, need = self._exact_bertscore(tok, model, plan)
            impls["exact"] = Impl(run, "exact-length reference", model=model)
        elif arm.model == "metricx":
            model = self.own_model("metricx", precision)
            run, need = self._metricx_peer(model, plan)
            impls["peer"] = Impl(run, LABELS["metricx"], model=model)
        else:
            model = self.own_model("llm", precision)
            run, warm, need = self._generate_peer(model, plan)
            impls["peer"] = Impl(run, LABELS["generate"], model=model, warm=warm)
        return Built(impls, units, need if callable(need) else (lambda: need), skipped)

    def _docmetrics(self, metric: Any, systems: dict[str, list[str]], src: list[str], ref: list[str],
                    ids: list[str]) -> Callable[[], dict[str, list[float]]]:
        def run() -> dict[str, list[float]]:
            results = metric.score_systems(systems, sources=src, references=ref, doc_ids=ids)
            return {n: [u.score for u in results[n].units] for n in systems}
        return run

    def _predict(self, model: Any, plan: dict[str, list[Any]], context: bool) -> Callable[[], dict[str, list[float]]]:
        import docmetrics

        def sample(u: Any) -> dict[str, str]:
            if not context:
                return {k: getattr(u, k) for k in ("src", "mt", "ref") if getattr(u, k) is not None}
            return {k: SEP.join((*getattr(u, f"{k}_context"), getattr(u, k))) for k in ("src", "mt", "ref")}

        samples = {n: [sample(u) for u in us] for n, us in plan.items()}
        gpus = 1 if self.device == "cuda" else 0

        def run() -> dict[str, list[float]]:
            out = {}
            model.use_context = False
            if context:
                model.enable_context()
            try:
                with docmetrics.quiet_libraries():
                    for n, s in samples.items():
                        out[n] = [float(x) for x in model.predict(s, batch_size=16, gpus=gpus, progress_bar=False).scores]
            finally:
                model.use_context = False
            return out
        return run

    def _buckets(self, lengths: list[int]) -> list[list[int]]:
        """Indices grouped by exact length (no padding), each group cut to the GPU token budget."""
        by: dict[int, list[int]] = {}
        for i, n in enumerate(lengths):
            by.setdefault(n, []).append(i)
        budget = 32768 if self.device == "cuda" else 4096
        out = []
        for n, idx in sorted(by.items()):
            step = max(1, budget // n)
            out += [idx[k:k + step] for k in range(0, len(idx), step)]
        return out

    @staticmethod
    def _xlmr_need(lengths: list[int], config: Any, layers: int) -> Need:
        flops = sum(encoder_flops(n, int(config.hidden_size), int(config.intermediate_size), layers) for n in lengths)
        return Need(sum(lengths), flops, len(lengths))

    def _exact_kiwi(self, model: Any, plan: dict[str, list[Any]]) -> tuple[Callable[[], dict[str, list[float]]], Need]:
        torch = self.torch
        distinct = list(dict.fromkeys((u.mt, u.src) for us in plan.values() for u in us))
        joint = [model.prepare_sample([{"mt": mt, "src": src}], stage="predict")[0] for mt, src in distinct]
        lengths = [int(x["input_ids"].shape[1]) for x in joint]
        batches = [(b, {k: torch.cat([joint[j][k] for j in b]).to(self.device) for k in joint[b[0]]})
                   for b in self._buckets(lengths)]
        enc = model.encoder.model

        def run() -> dict[str, list[float]]:
            out = [0.0] * len(distinct)
            with torch.inference_mode():
                for b, inputs in batches:
                    for j, s in zip(b, model.predict_step((inputs,))["scores"].float().cpu().tolist()):
                        out[j] = s
            index = {p: k for k, p in enumerate(distinct)}
            return {n: [out[index[(u.mt, u.src)]] for u in us] for n, us in plan.items()}
        return run, self._xlmr_need(lengths, enc.config, len(enc.encoder.layer))

    def _exact_da(self, model: Any, plan: dict[str, list[Any]]) -> tuple[Callable[[], dict[str, list[float]]], Need]:
        torch = self.torch
        tok = model.encoder.tokenizer

        def text(u: Any, k: str) -> str:
            return SEP.join((*getattr(u, f"{k}_context"), getattr(u, k)))

        distinct = list(dict.fromkeys((text(u, "src"), text(u, "mt"), text(u, "ref")) for us in plan.values() for u in us))
        texts = list(dict.fromkeys(t for triple in distinct for t in triple))
        limit = model.encoder.max_positions - 2
        ids = [x if len(x) <= limit else x[:limit - 1] + x[-1:] for x in tok(texts)["input_ids"]]
        batches = [(b, torch.tensor([ids[j] for j in b], device=self.device)) for b in self._buckets(list(map(len, ids)))]
        index = {t: k for k, t in enumerate(texts)}
        triples = torch.tensor([[index[t] for t in triple] for triple in distinct], device=self.device)
        step = 4096
        enc = model.encoder.model

        def run() -> dict[str, list[float]]:
            model.enable_context()
            try:
                with torch.inference_mode():
                    emb = torch.empty((len(texts), model.encoder.output_units), device=self.device,
                                      dtype=next(model.parameters()).dtype)
                    for b, x in batches:
                        # compute_sentence_embedding returns fp32 from a half model: cast to the buffer's dtype
                        emb[b] = model.compute_sentence_embedding(x, torch.ones_like(x)).to(emb.dtype)
                    out = []
                    for k in range(0, len(distinct), step):
                        t = triples[k:k + step]
                        out += model.estimate(emb[t[:, 0]], emb[t[:, 1]], emb[t[:, 2]]).score.float().cpu().tolist()
            finally:
                model.use_context = False
            where = {tr: k for k, tr in enumerate(distinct)}
            return {n: [out[where[(text(u, "src"), text(u, "mt"), text(u, "ref"))]] for u in us] for n, us in plan.items()}
        return run, self._xlmr_need(list(map(len, ids)), enc.config, len(enc.encoder.layer))

    def _bertscore_model(self) -> tuple[Any, Any]:
        if "bertscore" not in self.masters:
            from bert_score.utils import get_model, get_tokenizer

            import docmetrics

            with docmetrics.quiet_libraries():
                self.masters["bertscore"] = (get_tokenizer(str(self.models["bertscore"])),
                                             get_model(str(self.models["bertscore"]), self.sizes.bertscore_layer))
        return self.masters["bertscore"]

    def _exact_bertscore(self, tok: Any, model: Any,
                         plan: dict[str, list[Any]]) -> tuple[Callable[[], dict[str, list[float]]], Need]:
        """The encoder passes alone (no scores): each distinct sentence with its context, unpadded."""
        torch = self.torch
        texts = list(dict.fromkeys(SEP.join((*getattr(u, f"{k}_context"), getattr(u, k)))
                                   for us in plan.values() for u in us for k in ("mt", "ref")))
        ids = tok(texts, truncation=True, max_length=510)["input_ids"]
        batches = [torch.tensor([ids[j] for j in b], device=self.device) for b in self._buckets(list(map(len, ids)))]

        def run() -> dict[str, list[float]]:
            with torch.inference_mode():
                for x in batches:
                    model(x, attention_mask=torch.ones_like(x))
            return {}
        return run, self._xlmr_need(list(map(len, ids)), model.config, len(model.encoder.layer))

    def _bert_score(self) -> Callable[[], dict[str, list[float]]]:
        import docmetrics

        with docmetrics.quiet_libraries():
            from bert_score import BERTScorer

            scorer = BERTScorer(model_type=str(self.models["bertscore"]), num_layers=self.sizes.bertscore_layer,
                                batch_size=64, device=self.device)

        def run() -> dict[str, list[float]]:
            with docmetrics.quiet_libraries():
                return {n: scorer.score(hyps, self.ref)[2].tolist() for n, hyps in self.systems.items()}
        return run

    def _metricx_peer(self, model: Any, plan: dict[str, list[Any]]) -> tuple[Callable[[], dict[str, list[float]]], Need]:
        """MetricX's predict logic (google-research/metricx predict.py and models.py), one input at a time:
        the input text, tokenized with truncation at 1536 tokens, the EOS dropped, one decoder step from
        token 0, the logit of <extra_id_10> clamped to [0, 25]."""
        torch = self.torch
        from docmetrics_backbones.metricx.backbone import MAX_LENGTH, SCORE_RANGE, metricx_input
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(str(self.models["metricx_tokenizer"]), local_files_only=True)
        score_id = tok.convert_tokens_to_ids("<extra_id_10>")
        texts = {n: [metricx_input(24, True, u.src, u.mt, None) for u in us] for n, us in plan.items()}
        low, high = SCORE_RANGE
        shape = {k: int(getattr(model.config, k)) for k in MT5_XL}

        def run() -> dict[str, list[float]]:
            out: dict[str, list[float]] = {}
            with torch.inference_mode():
                for n, ts in texts.items():
                    scores = []
                    for text in ts:
                        ids = tok(text, max_length=MAX_LENGTH[24], truncation=True, return_tensors="pt")["input_ids"]
                        ids = ids[:, :-1].to(self.device)  # _remove_eos
                        logits = model(input_ids=ids, attention_mask=torch.ones_like(ids),
                                       decoder_input_ids=torch.zeros((1, 1), dtype=torch.long, device=self.device)).logits
                        scores.append(min(high, max(low, float(logits[0, 0, score_id]))))
                    out[n] = scores
            return out

        distinct = list(dict.fromkeys(t for ts in texts.values() for t in ts))
        lengths = [len(x) - 1 for x in tok(distinct, max_length=MAX_LENGTH[24], truncation=True)["input_ids"]]
        return run, Need(sum(lengths), sum(mt5_flops(n, shape) for n in lengths), len(lengths))

    def _generate_peer(self, model: Any, plan: dict[str, list[Any]]) -> tuple[Any, Any, Callable[[], Need]]:
        """GEMBA-ESA with a plain ``generate`` loop, one unit at a time: the first step's error spans greedily
        (max_new_tokens), then the score, greedy over the tokens that continue an integer of the prompt's
        range (and the end once it is one).  The prompt's text is docmetrics' gemba-esa file; the decoding is
        transformers' alone.  Returns (run, a warm-up on one unit, what was needed: every prompt token once
        and every answer token, from the last run's lengths)."""
        torch = self.torch
        from docmetrics_backbones.llm.prompts import load_prompt
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(str(self.models["llm"]), local_files_only=True)
        prompt = load_prompt("gemba-esa")
        eos = {int(tok.eos_token_id)}
        gen = model.generation_config.eos_token_id if model.generation_config is not None else None
        eos |= set(gen if isinstance(gen, list) else [] if gen is None else [gen])
        eos_ids = sorted(eos)
        pad = int(tok.pad_token_id if tok.pad_token_id is not None else eos_ids[0])
        low, high = int(prompt.low), int(prompt.high)
        whole = {str(v) for v in range(low, high + 1)}
        prefixes = {s[:i] for s in whole for i in range(1, len(s) + 1)}
        texts = [tok.decode([i]) for i in range(len(tok))]
        digits = [(i, t) for i, t in enumerate(texts)
                  if t.strip().isdigit() and t.strip().isascii() and t in (t.strip(), " " + t.strip())]
        calls: list[tuple[int, int]] = []
        config = model.config
        shape = {"hidden_size": config.hidden_size, "num_hidden_layers": config.num_hidden_layers,
                 "intermediate_size": config.intermediate_size, "num_attention_heads": config.num_attention_heads,
                 "num_key_value_heads": config.num_key_value_heads, "vocab_size": config.vocab_size}

        def generate(messages: list[dict[str, str]], max_new: int, constrained: bool) -> str:
            text = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
            ids = torch.tensor([tok(text, add_special_tokens=False)["input_ids"]], device=self.device)
            kwargs: dict[str, Any] = {}
            if constrained:
                def allowed(batch_id: int, seq: Any) -> list[int]:
                    s = tok.decode(seq[ids.shape[1]:].tolist(), skip_special_tokens=True).strip()
                    ok = [i for i, t in digits if (not s or t == t.strip()) and s + t.strip() in prefixes]
                    return ok + (eos_ids if s in whole else [])
                kwargs["prefix_allowed_tokens_fn"] = allowed
            with torch.inference_mode():
                out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False, num_beams=1,
                                     max_new_tokens=max_new, eos_token_id=eos_ids, pad_token_id=pad, temperature=None,
                                     top_p=None, top_k=None, **kwargs)
            new = out[0, ids.shape[1]:].tolist()
            end = next((k for k, t in enumerate(new) if t in eos), None)
            calls.append((int(ids.shape[1]), len(new)))
            return tok.decode(new if end is None else new[:end], skip_special_tokens=True)

        def judge(u: Any) -> float:
            values = {"source_lang": "English", "target_lang": "German", "source_seg": u.src, "target_seg": u.mt,
                      "reference_seg": u.ref or "", "context": ""}
            spans = generate(prompt.messages(0, values), self.sizes.llm_new_tokens, False)
            answer = generate(prompt.messages(1, {**values, "answer": spans}), len(str(high)) + 1, True)
            return float(int(answer.strip()))

        def run() -> dict[str, list[float]]:
            calls.clear()
            return {n: [judge(u) for u in us] for n, us in plan.items()}

        first = next(iter(plan))

        def warm() -> None:
            judge(plan[first][0])

        def need() -> Need:
            return Need(sum(p + g for p, g in calls), sum(causal_flops(p, g, shape) for p, g in calls), len(calls))
        return run, warm, need

    # -- the token budget
    def sweep(self, precision: str, keys: tuple[str, ...]) -> list[dict[str, Any]]:
        import docmetrics

        rows = []
        arms = [a for a in ARMS if a.key in SWEPT and a.key in keys]
        for budget in self.sizes.budgets:
            if rows and self.left() < 3 * max(r["median_s"] for r in rows) * self.sizes.repeats + 30:
                self.skipped.append(f"token budget {budget}: time budget")
                continue
            session = docmetrics.Session(cache=None, device=self.device, precision=precision, max_tokens=budget,
                                         quiet=True)
            try:
                for arm in arms:
                    run = self._docmetrics(docmetrics.load(self.spec(arm), session=session), *self.data(arm))
                    run()
                    times = []
                    for _ in range(self.sizes.repeats):
                        self.sync()
                        self.reset_peak()
                        t = time.perf_counter()
                        run()
                        self.sync()
                        times.append(time.perf_counter() - t)
                    med = statistics.median(times)
                    rows.append({"arm": arm.name, "precision": precision, "max_tokens": budget,
                                 "median_s": round(med, 4), "seconds": [round(x, 4) for x in times],
                                 "peak_gpu_gib": self.peak_gib()})
            finally:
                session.close()
                self.free()
        return rows


def _parameters(path: Path) -> int:
    from safetensors import safe_open

    total = 0
    for file in path.glob("*.safetensors"):
        with safe_open(str(file), "pt") as f:
            total += sum(_prod(f.get_slice(k).get_shape()) for k in f.keys())
    return total


def _prod(shape: Any) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def max_diff(a: dict[str, list[float]], b: dict[str, list[float]]) -> float:
    return max((abs(x - y) for n in a for x, y in zip(a[n], b.get(n, []))), default=0.0)


def vllm_row(precision: str) -> dict[str, Any]:
    """vLLM's arm: where the machine has vllm it is named for a later run; here it is listed as skipped."""
    import importlib.util

    why = ("vllm is not installed on this machine (its wheel is larger than a device call may carry)"
           if importlib.util.find_spec("vllm") is None else "vllm is installed, but its arm is not written yet")
    return {"arm": "GEMBA-ESA", "key": "llm", "impl": "vllm", "label": "vLLM", "precision": precision, "skipped": why}


# -- the run and its report --------------------------------------------------------------------------------------
def environment(device: str) -> dict[str, Any]:
    import importlib.metadata as md

    import torch

    def version(dist: str) -> str | None:
        try:
            return md.version(dist)
        except md.PackageNotFoundError:
            return None

    env: dict[str, Any] = {
        "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "device": device, "torch": torch.__version__,
        **{d: version(d) for d in ("transformers", "unbabel-comet", "bert-score", "docmetrics", "numpy",
                                   "pytorch-lightning", "torchmetrics", "tokenizers", "vllm")},
    }
    if device == "cuda":
        env["gpu"] = torch.cuda.get_device_name(0)
        env["cuda"] = torch.version.cuda
        env["gpu_memory_gib"] = round(torch.cuda.get_device_properties(0).total_memory / 2**30, 1)
        if shutil.which("nvidia-smi"):
            q = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                               capture_output=True, text=True)
            env["driver"] = q.stdout.strip() or None
    else:
        env["gpu"] = None
        env["cpu"] = platform.processor() or None
    return env


def save(report: dict[str, Any], rows: list[dict[str, Any]], out: Path | None) -> None:
    """Write bench_gpu.json and bench_gpu.md as they stand (after every arm: a run cut short keeps them)."""
    report["rows"] = [{k: v for k, v in r.items() if k != "scores"} for r in rows]
    report["markdown"] = markdown(report)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "bench_gpu.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        (out / "bench_gpu.md").write_text(report["markdown"], encoding="utf-8")


def run(smoke: bool, data: str | None, out: Path | None, budget_s: float, repeats: int | None = None,
        systems: int | None = None, precisions: tuple[str, ...] | None = None, arms: tuple[str, ...] | None = None,
        peers: tuple[str, ...] | None = None) -> dict[str, Any]:
    import torch

    sizes = SMOKE if smoke else FULL
    if repeats or systems:
        sizes = Sizes(**{**asdict(sizes), "head": sizes.head, "budgets": sizes.budgets,
                         "repeats": max(3, repeats or sizes.repeats), "systems": systems or sizes.systems})
    precisions = precisions or (PRECISIONS if smoke else ("fp16", "bf16"))
    arms = arms or ARM_KEYS
    peers = peers or (("fp32",) if smoke else ("fp16",))
    device = "cuda" if torch.cuda.is_available() and not smoke else "cpu"
    if smoke:
        torch.set_num_threads(1)  # tiny models: one thread is faster on a busy machine
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-gpu-") as tmp:
        bench = Bench(sizes, read_texts(data, smoke), device, budget_s, Path(tmp))
        report: dict[str, Any] = {"kind": "smoke" if smoke else "full", "env": environment(device),
                                  "data": {"name": bench.texts_name, "segments": len(bench.src),
                                           "documents": len(set(bench.ids)), "systems": list(bench.systems)},
                                  "selected": {"precisions": list(precisions), "arms": list(arms), "peers": list(peers)},
                                  "tolerance": TOLERANCE, "peaks": bench.peaks, "budget_sweep": [],
                                  "skipped": bench.skipped, "models": {}, "errors": []}
        runnable = [p for p in precisions if device == "cuda" or p == "fp32"]
        for p in runnable:  # the device's arithmetic first: the floor every row is measured against
            bench.peaks[p] = matmul_peak(torch, device, p, sizes.peak_n)
        save(report, rows, out)
        report["models"] = bench.build(arms)
        save(report, rows, out)
        order = [(p, a) for p in precisions for a in ARMS if a.key in arms and a.model in ("kiwi", "da", "bertscore")]
        order += [(p, a) for a in ARMS if a.key in arms and a.model in ("metricx", "llm") for p in precisions]
        for precision, arm in order:
            def listed(why: str, arm: Arm = arm, precision: str = precision) -> list[dict[str, Any]]:
                return [{"arm": arm.name, "key": arm.key, "impl": i, "label": i, "precision": precision,
                         "skipped": why} for i in IMPLS]
            t = time.perf_counter()
            if precision not in runnable:
                rows += listed(f"{precision} needs a GPU")
            elif precision not in arm.only:
                rows += listed(arm.why_not)
            elif bench.left() < 30:
                bench.skipped.append(f"{arm.name} at {precision}: time budget ({bench.left():.0f} s left)")
                rows += listed("time budget")
            else:
                try:
                    rows += bench.time_arm(arm, precision, peers=precision in peers or arm.model in ("metricx", "llm"))
                except Exception as exc:  # noqa: BLE001 - one arm's failure must not lose the others' figures
                    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:400]
                    report["errors"].append({"arm": arm.name, "precision": precision,
                                             "error": f"{type(exc).__name__}: {first}",
                                             "traceback": traceback.format_exc()[-4000:]})
                    traceback.print_exc()
                    rows += listed(f"error: {type(exc).__name__}: {first}")
                    bench.free()
                if arm.model == "llm":
                    rows.append(vllm_row(precision))
            print(f"bench_gpu: {arm.name} at {precision}: {time.perf_counter() - t:.1f} s "
                  f"({bench.left():.0f} s of the budget left)", file=sys.stderr, flush=True)
            save(report, rows, out)
        for r in rows:  # the largest difference to the same implementation at fp32
            if "scores" not in r or r["precision"] == "fp32":
                continue
            base = next((x for x in rows if x["arm"] == r["arm"] and x["impl"] == r["impl"]
                         and x["precision"] == "fp32" and x.get("scores")), None)
            if base and r["scores"]:
                r["diff_to_fp32"] = max_diff(base["scores"], r["scores"])
        ran = [p for p in precisions if any(r["precision"] == p and "median_s" in r for r in rows)]
        if ran and any(k in arms for k in SWEPT):
            report["budget_sweep_precision"] = ran[-1]
            try:
                report["budget_sweep"] = bench.sweep(ran[-1], arms)
            except Exception as exc:  # noqa: BLE001
                report["errors"].append({"arm": "budget sweep", "precision": ran[-1],
                                         "error": f"{type(exc).__name__}: {str(exc)[:400]}"})
        report["seconds"] = round(time.perf_counter() - started, 1)
        save(report, rows, out)
    return report


def _fmt(x: Any, spec: str = ".3g") -> str:
    return "–" if x is None else format(x, spec) if isinstance(x, (int, float)) else str(x)


def markdown(report: dict[str, Any]) -> str:
    env = report["env"]
    gpu = env.get("gpu") or f"CPU ({env.get('cpus')} cores)"
    models = report.get("models") or {}
    lines = [
        f"# bench_gpu.py --{report['kind']}: {gpu}",
        "",
        f"driver {env.get('driver', '–')}, CUDA {env.get('cuda', '–')}, torch {env['torch']}, transformers "
        f"{env['transformers']}, unbabel-comet {env['unbabel-comet']}, bert-score {env['bert-score']}, "
        f"docmetrics {env['docmetrics']}, numpy {env['numpy']}, Python {env['python']}",
        f"data: {report['data']['name']}: {report['data']['segments']} segments, {report['data']['documents']} "
        f"documents, systems {', '.join(report['data']['systems'])}",
    ]
    if "parameters" in models:
        lines.append(f"models: XLM-R-shaped encoder {models['parameters']:,} parameters (random), built in "
                     f"{models['seconds']} s, {models['tokens_per_word']} tokens per word"
                     + "".join(f"; {k} {models[k]['parameters']:,} parameters, built in {models[k]['seconds']} s"
                               for k in ("metricx", "llm") if k in models))
    if report.get("peaks"):
        lines.append("measured peak (n x n x n matmul): " + ", ".join(
            f"{p} {v['tflops']} TFLOP/s (n={v['n']})" for p, v in report["peaks"].items()))
    lines += [
        "",
        "| arm | precision | implementation | units | median s | units/s | TFLOP/s | mfu | tokens needed | padded "
        "| x docmetrics | peak GPU GiB | max diff to docmetrics | max diff to fp32 |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows = report.get("rows", [])
    shown: set[tuple[str, str]] = set()
    for r in rows:
        whole = [x for x in rows if x["precision"] == r["precision"]]
        if r.get("skipped") and all(x.get("skipped") == r.get("skipped") for x in whole):
            if (r["precision"], r["skipped"]) not in shown:  # a precision skipped as a whole: one line
                shown.add((r["precision"], r["skipped"]))
                lines.append(f"| every arm | {r['precision']} | | | | | | | | | | | {r['skipped']} | |")
            continue
        if "median_s" not in r:
            lines.append(f"| {r['arm']} | {r['precision']} | {r.get('label', r['impl'])} | | | | | | | | | | "
                         f"{r.get('skipped', '')} | |")
            continue
        dm = next((x["median_s"] for x in rows if x["arm"] == r["arm"] and x["precision"] == r["precision"]
                   and x["impl"] == "docmetrics" and "median_s" in x), None)
        lines.append(
            f"| {r['arm']} | {r['precision']} | {r['label']} | {r['units']} | {r['median_s']:.3f} | "
            f"{r['units_per_s']:.0f} | {_fmt(r.get('tflops'))} | {_fmt(r.get('mfu'), '.3f')} | "
            f"{r['tokens_needed']:,} | {_fmt(r.get('padding'), '.2f')} | "
            f"{_fmt(r['median_s'] / dm if dm else None, '.2f')} | {_fmt(r['peak_gpu_gib'])} | "
            f"{_fmt(r.get('diff_to_docmetrics'), '.1e')} | {_fmt(r.get('diff_to_fp32'), '.1e')} |")
    if report.get("budget_sweep"):
        lines += ["", f"docmetrics' token budget (--max-tokens) at {report['budget_sweep_precision']}:", "",
                  "| arm | max tokens | median s | peak GPU GiB |", "|---|---:|---:|---:|"]
        lines += [f"| {r['arm']} | {r['max_tokens']} | {r['median_s']:.3f} | {_fmt(r['peak_gpu_gib'])} |"
                  for r in report["budget_sweep"]]
    if report.get("skipped"):
        lines += ["", "skipped: " + "; ".join(report["skipped"])]
    for e in report.get("errors", []):
        lines += ["", f"error in {e['arm']} at {e['precision']}: {e['error']}"]
    lines += ["", "mfu: FLOPs the encoder must do on the unpadded tokens it must see, per second, over the measured "
              "peak; padded: tokens run / tokens needed (docmetrics and the reference: counted by a forward hook)",
              f"median of {report.get('models', {}).get('sizes', {}).get('repeats', 3)} interleaved rounds after a "
              f"warm-up; whole run {report.get('seconds', '(still running)')} s", ""]
    return "\n".join(lines)


def _names(value: str, known: tuple[str, ...], what: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"{what}: {', '.join(bad) or 'none given'}: choose from {', '.join(known)}")
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--smoke", action="store_true", help="tiny models on the CPU (CI)")
    mode.add_argument("--full", metavar="OUT_DIR", help="full-size models on the GPU; JSON and table to OUT_DIR")
    ap.add_argument("--out", help="with --smoke: write bench_gpu.json and bench_gpu.md here")
    ap.add_argument("--data", help="texts (see above; default ../shared/data/wmt21_ted_ende, else the sample)")
    ap.add_argument("--precisions", type=lambda v: _names(v, PRECISIONS, "--precisions"),
                    help="comma-separated, in the order run (default: --full fp16,bf16; --smoke fp32,fp16,bf16, "
                         "of which a CPU runs fp32 and lists the others as skipped)")
    ap.add_argument("--arms", type=lambda v: _names(v, ARM_KEYS, "--arms"),
                    help=f"comma-separated, of {','.join(ARM_KEYS)} (default: all)")
    ap.add_argument("--peers", type=lambda v: _names(v, PRECISIONS, "--peers"),
                    help="precisions at which COMET's predict() and bert-score run beside docmetrics (default: "
                         "--full fp16, --smoke fp32); MetricX's and the LLM judge's peers run at every precision")
    ap.add_argument("--budget-s", type=float, default=450.0,
                    help="skip what would run past this many seconds (default 450: the whole run within 8 minutes)")
    ap.add_argument("--repeats", type=int, help="rounds per arm (>= 3; default 3)")
    ap.add_argument("--systems", type=int, help="the first N MT systems (default: smoke 2, full 4)")
    a = ap.parse_args(argv)
    out = Path(a.full) if a.full else Path(a.out) if a.out else None
    report = run(a.smoke, a.data, out, a.budget_s, a.repeats, a.systems, a.precisions, a.arms, a.peers)
    print(report["markdown"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
