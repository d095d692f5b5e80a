"""Throughput of the llm backbone: units per second for each score rule and batch size.

Usage::

    python tests/benchmarks/bench_llm.py [--device cpu|cuda] [--model DIR] [--units N] [--batch-sizes 1,8,32]
                                         [--prompts gemba-da,gemba-esa] [--max-new-tokens 32]

Without ``--model`` it builds the tiny random Llama of ``docmetrics_backbones.llm.testing`` (figures then
measure the code around the model: prompt rendering, the chat template, batching, decoding loops).  With
``--device cuda --model DIR`` (a real chat LLM, e.g. Qwen2.5-7B-Instruct with ``--precision bf16``) it is
the GPU arm the GPU issue runs when a device is lent.  Units are the quickstart segments repeated with a
counter appended, so none is deduplicated.  Prints one line per (prompt, rule, batch size): units, seconds,
units/s, prompt tokens per unit, and the share of parse failures; then checks that the batch sizes gave the
same scores (1e-4 for expected, exact otherwise).  No cache is used.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--precision", default="fp32", choices=("fp32", "bf16", "fp16"))
    ap.add_argument("--model", default=None, help="a local chat LLM (default: the tiny random one)")
    ap.add_argument("--units", type=int, default=64)
    ap.add_argument("--batch-sizes", default="1,8,32")
    ap.add_argument("--prompts", default="gemba-da,gemba-esa")
    ap.add_argument("--rules", default="expected,constrained,parse")
    ap.add_argument("--max-new-tokens", type=int, default=32)
    args = ap.parse_args(argv)

    from docmetrics_backbones.llm.backbone import LlmBackbone
    from docmetrics_backbones.llm.testing import build_tiny_llm

    import docmetrics
    from docmetrics.values.units import Unit

    data = Path(docmetrics.__file__).parent / "data" / "quickstart"
    src = (data / "src.txt").read_text(encoding="utf-8").splitlines()
    hyp = (data / "sysA.txt").read_text(encoding="utf-8").splitlines()
    units = [Unit(mt=f"{hyp[i % len(hyp)]} ({i})", src=f"{src[i % len(src)]} ({i})") for i in range(args.units)]
    model = args.model or str(build_tiny_llm(tempfile.mkdtemp(prefix="tinyllm-")))
    print(f"model {model} device {args.device} precision {args.precision} units {len(units)} "
          f"max_new_tokens {args.max_new_tokens}")
    ok = True
    for prompt in args.prompts.split(","):
        for rule in args.rules.split(","):
            if prompt == "gemba-mqm" and rule != "parse":
                continue
            first = None
            for size in (int(b) for b in args.batch_sizes.split(",")):
                bb = LlmBackbone(model, prompt=prompt, score=rule, lang="en-de", device=args.device,
                                 precision=args.precision, batch_size=size, max_new_tokens=args.max_new_tokens,
                                 max_unparsed=1.0)
                bb.load()
                tokens = sum(len(bb._fit(0, u, bb._values(u, i), i)[0]) for i, u in enumerate(units)) / len(units)
                start = time.perf_counter()
                out = bb.score(units)
                if args.device == "cuda":
                    import torch

                    torch.cuda.synchronize()
                took = time.perf_counter() - start
                unparsed = sum(c.get("answers_unparsed", 0) for c in out.unit_counters or []) / len(units)
                print(f"{prompt:16} {rule:12} batch {size:3}  {len(units)} units  {took:7.2f} s  "
                      f"{len(units) / took:8.2f} units/s  {tokens:6.0f} prompt tokens/unit  unparsed {unparsed:.0%}")
                if first is None:
                    first = out.scores
                else:
                    tol = 1e-4 if rule == "expected" else 0.0
                    worst = max(abs(a - b) for a, b in zip(first, out.scores))
                    if worst > tol:
                        ok = False
                        print(f"  batch {size} differs from the first by {worst:g} (tolerance {tol:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
