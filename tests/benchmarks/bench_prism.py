"""Benchmark of Doc-Prism (backbone ``prism``) on CPU.  Not collected by pytest.

Two measurements:

1. ``tiny``: the tiny random mBART-50 of :func:`docmetrics_backbones.prism.testing.build_tiny_mbart`, time per
   100 segments (both directions, k=0 and k=2), through the metric API as a user calls it.
2. ``full``: what the real ``facebook/mbart-large-50`` costs.  The hub is unreachable here, so the
   script builds a model with mbart-large-50's dimensions (d_model 1024, 12+12 layers, 16 heads,
   FFN 4096, 250054-token vocabulary, 1024 positions) and RANDOM weights, saves it with the tiny
   SentencePiece tokenizer, and scores through the backbone's normal loading path.  Compute per token
   does not depend on the weights; the tokenizer only sets the number of tokens, so the script makes
   sentences of about ``--tokens`` tokens (mBART-50's tokenizer gives about 30-40 tokens for a WMT
   news sentence) and reports time per segment, per 100 segments, load time and peak memory.

Usage::

    python tests/benchmarks/bench_prism.py tiny  [--segments 500] [--threads N]
    python tests/benchmarks/bench_prism.py full  [--segments 24] [--tokens 32] [--batch-size 8]
                                                 [--thread-list 1,2] [--model-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("DOCMETRICS_CACHE", tempfile.mkdtemp(prefix="bench-prism-cache-"))


def _docs(n: int, size: int = 10) -> list[str]:
    return [f"doc{i // size}" for i in range(n)]


def _peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def bench_tiny(args: argparse.Namespace) -> None:
    from docmetrics_backbones.prism.testing import build_tiny_mbart, mbart_sample_sentences

    import docmetrics

    root = Path(tempfile.mkdtemp(prefix="bench-tiny-mbart-"))
    path = build_tiny_mbart(root / "m", seed=0)
    n = args.segments
    sents = mbart_sample_sentences(3 * n, seed=7)
    ref, hyp = sents[:n], sents[n:2 * n]
    ids = _docs(n)
    print(f"tiny mBART-50 (d_model 32, 2+2 layers), {n} segments in documents of 10, CPU, "
          f"torch threads {__import__('torch').get_num_threads()}")
    for k in (0, 2):
        metric = docmetrics.load(f"doc-prism:model={path},k={k}", device="cpu", batch_size=args.batch_size,
                                 defaults={"lang": "en-de"})
        metric.score(hyp[:20], references=ref[:20], doc_ids=ids[:20])  # warm-up (loads the model)
        best = best_cpu = float("inf")
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            res = metric.score(hyp, references=ref, doc_ids=ids)
            best = min(best, time.perf_counter() - t0)
            best_cpu = min(best_cpu, time.process_time() - c0)
        print(f"  k={k}: wall {100 * best / n:.3f} s per 100 segments, CPU {100 * best_cpu / n:.3f} s per "
              f"100 segments (best of {args.repeats}; {n} segments; score {res.score:.4f}; load average "
              f"{os.getloadavg()[0]:.1f})")


def build_full(root: Path) -> Path:
    """A random model with mbart-large-50's dimensions and the tiny tokenizer, saved under ``root``."""
    import torch
    from docmetrics_backbones.prism.testing import build_tiny_mbart
    from transformers import MBart50Tokenizer, MBartConfig, MBartForConditionalGeneration

    tiny = build_tiny_mbart(root / "tok", seed=0, max_position_embeddings=1024)
    tok = MBart50Tokenizer.from_pretrained(str(tiny))
    full = root / "mbart-large-50-random"
    t0 = time.perf_counter()
    config = MBartConfig(  # facebook/mbart-large-50's config.json dimensions
        vocab_size=250054, d_model=1024, encoder_layers=12, decoder_layers=12,
        encoder_attention_heads=16, decoder_attention_heads=16, encoder_ffn_dim=4096,
        decoder_ffn_dim=4096, max_position_embeddings=1024, scale_embedding=True,
        activation_function="gelu", pad_token_id=1, bos_token_id=0, eos_token_id=2,
        decoder_start_token_id=2, forced_eos_token_id=2,
    )
    torch.manual_seed(0)
    model = MBartForConditionalGeneration(config)
    n_params = sum(p.numel() for p in model.parameters())
    model.save_pretrained(str(full), safe_serialization=True)
    del model
    tok.save_pretrained(str(full))
    size = sum(f.stat().st_size for f in full.iterdir()) / 2**30
    print(f"built a random model with mbart-large-50's dimensions: {n_params / 1e6:.0f} M parameters, "
          f"{size:.2f} GiB on disk ({time.perf_counter() - t0:.0f} s) in {full}")
    return full


def bench_full(args: argparse.Namespace) -> None:
    """Build (or reuse) the full-size model, then score in a fresh process (clean peak memory)."""
    import subprocess

    if args.model_dir:
        full = Path(args.model_dir)
    else:
        full = build_full(Path(tempfile.mkdtemp(prefix="bench-full-")))
    for threads in args.thread_list:
        cmd = [sys.executable, __file__, "score-full", "--model-dir", str(full), "--segments",
               str(args.segments), "--tokens", str(args.tokens), "--batch-size", str(args.batch_size),
               "--threads", str(threads)]
        subprocess.run(cmd, check=True)


def score_full(args: argparse.Namespace) -> None:
    import torch
    from docmetrics_backbones.prism.backbone import PrismBackbone
    from docmetrics_backbones.prism.testing import mbart_sample_sentences
    from transformers import MBart50Tokenizer

    from docmetrics.plugin.backbone import Unit

    full = Path(args.model_dir)
    tok = MBart50Tokenizer.from_pretrained(str(full))
    # sentences of about --tokens tokens with this tokenizer
    words = " ".join(mbart_sample_sentences(4000, seed=3)).split()
    sents, i = [], 0
    while len(sents) < 2 * args.segments:
        j = i + 4
        while len(tok(" ".join(words[i:j]), verbose=False)["input_ids"]) < args.tokens + 2:
            j += 1
        sents.append(" ".join(words[i:j]))
        i = j
    n = args.segments
    ref, hyp = sents[:n], sents[n:2 * n]
    mean_tokens = sum(len(tok(s, add_special_tokens=False)["input_ids"]) for s in ref + hyp) / (2 * n)

    bb = PrismBackbone(str(full), device="cpu", quiet=True, lang="en-de", batch_size=args.batch_size)
    rss0 = _peak_rss_gib()
    t0 = time.perf_counter()
    bb.load()
    print(f"[{torch.get_num_threads()} thread(s)] load {time.perf_counter() - t0:.1f} s (RSS before "
          f"{rss0:.2f} GiB); {n} segments of {mean_tokens:.1f} tokens per sentence, batch size "
          f"{args.batch_size}, both directions; load average {os.getloadavg()[0]:.1f}")
    for k in (0, 2):
        units = []
        for s in range(n):
            ctx = tuple(ref[max(0, s - k):s]) if s % 10 else ()  # documents of 10 sentences
            units.append(Unit(mt=hyp[s], ref=ref[s], mt_context=ctx, ref_context=ctx))
        bb.score(units[:2])  # warm-up
        t0, c0 = time.perf_counter(), time.process_time()
        bb.score(units)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"  k={k}: wall {wall / n:.2f} s per segment ({100 * wall / n / 60:.1f} min per 100), "
              f"CPU {cpu / n:.2f} s per segment; peak RSS {_peak_rss_gib():.2f} GiB; load average "
              f"{os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("tiny", "full", "score-full"))
    parser.add_argument("--model-dir", default=None, help="reuse a model built by an earlier 'full' run")
    parser.add_argument("--thread-list", type=lambda t: [int(x) for x in t.split(",")], default=[1, 2])
    parser.add_argument("--segments", type=int, default=None)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    if args.what == "tiny":
        args.segments = args.segments or 500
        bench_tiny(args)
    else:
        args.segments = args.segments or 24
        args.batch_size = args.batch_size or 8
        bench_full(args) if args.what == "full" else score_full(args)


if __name__ == "__main__":
    sys.exit(main())
