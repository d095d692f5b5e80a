"""A/B arms of the encoder (issue 50, item 2): what makes XLM-R's forward reach the device's arithmetic.

    python tests/benchmarks/bench_ab.py --smoke [--out DIR]          # tiny XLM-R, CPU: the code paths run
    python tests/benchmarks/bench_ab.py --full OUT_DIR [--data DIR]  # a lent GPU (gpu_ab.sh runs it after gpu_run.sh)

The encoder alone, on the sequences three arms of bench_gpu.py must see (``bertscore``: every distinct
sentence; ``slide21`` and ``slide66``: every distinct (MT window, source window) pair of SLIDE(2,1) and
SLIDE(6,6) over each document, as CometKiwi joins them), token ids on the device before the clock starts.
Each variant encodes every sequence once and gives each its mean-pooled last hidden state, compared in fp32
with the baseline's (``max_diff``).  Variants (``--variants``; the ones a device cannot run are listed as
skipped with the reason):

* ``sdpa`` (the baseline), ``eager``: transformers' XLMRobertaModel with that ``attn_implementation``, batches
  of docmetrics' ``token_batches`` (length-sorted, at most 10% padding) at ``--max-tokens``;
  ``flash_attention_2`` where transformers and flash-attn allow it (transformers 4.57's XLM-R does not);
* ``rule-before``: ``sdpa`` batched by the rule before issue 50 (fewer, larger batches, up to a quarter padding
  each: bench_padding.py), so that the device says what the 10% bound costs or gains;
* ``pad64``: ``sdpa`` with every batch's width rounded up to a multiple of 64 (tensor-core tiles);
* ``compile``: ``sdpa`` after ``torch.compile(model, dynamic=True)`` (the compile is the warm-up's time), on the
  first workload only (compiling XLM-R large takes a minute or more);
* ``packed``: no padding at all: the batch's tokens in one (tokens, hidden) tensor through the same weights,
  attention per sequence by ``torch.nn.attention.varlen.varlen_attn`` (CUDA, fp16/bf16), flash-attn's
  ``flash_attn_varlen_func`` where installed, else nested (jagged) tensors through SDPA;
* ``cudagraph``: the same layers on padded batches of widths multiple of 64, one CUDA graph captured per
  (rows, width) shape (rows: the budget's, the rest in powers of two) and replayed (on a CPU the same forward
  runs without graphs, so that the smoke run checks its numbers);
* ``budget-N``: ``sdpa`` and ``packed`` at a larger ``--max-tokens`` (``--budgets``).

Rows (``bench_ab.json``, table ``bench_ab.md``): variant, workload, tokens needed and run (padded), sequences,
batches, the warm-up's and the median seconds of ``--repeats`` interleaved rounds, TFLOP/s of the FLOPs needed
(bench_gpu.encoder_flops) and mfu against the matmul peak measured at the start, max_diff.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_gpu  # noqa: E402  (the models, the texts, the arithmetic)

VARIANTS = ("sdpa", "rule-before", "eager", "flash_attention_2", "pad64", "packed", "cudagraph", "compile")  # the compile last: slow
WORKLOADS = ("slide66", "slide21", "bertscore")  # issue 50's goals first


# -- the sequences ---------------------------------------------------------------------------------------------
def documents(ids: list[str]) -> list[range]:
    out, start = [], 0
    for i in range(1, len(ids) + 1):
        if i == len(ids) or ids[i] != ids[i - 1]:
            out.append(range(start, i))
            start = i
    return out


def sequences(texts: dict[str, Any], systems: int, tok: Any, workload: str, max_len: int = 512) -> list[list[int]]:
    """Token ids of every distinct sequence the workload's encoder must see (special tokens included)."""
    names = list(texts["systems"])[:systems]
    src = texts["src"]
    if workload == "bertscore":
        distinct = dict.fromkeys([*src, *texts["ref"], *(h for n in names for h in texts["systems"][n])])
        return [tok(s, truncation=True, max_length=max_len)["input_ids"] for s in distinct]
    w, s = {"slide21": (2, 1), "slide66": (6, 6)}[workload]
    pairs: dict[tuple[str, str], None] = {}
    for n in names:
        mt = texts["systems"][n]
        for doc in documents(texts["doc_ids"]):
            for start in range(doc.start, max(doc.stop - w, doc.start) + 1, s):
                window = range(start, min(start + w, doc.stop))
                pairs[(" ".join(mt[i] for i in window), " ".join(src[i] for i in window))] = None
    return [tok(m, x, truncation=True, max_length=max_len)["input_ids"] for m, x in pairs]


# -- the forwards ----------------------------------------------------------------------------------------------
def pooled(torch: Any, hidden: Any, mask: Any) -> Any:
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return ((hidden * m).sum(1) / m.sum(1)).float()


def positions(torch: Any, ids: Any, pad: int) -> Any:
    """RoBERTa's position ids: pad + 1 + the index among the sequence's tokens, pad at the pads."""
    mask = ids.ne(pad).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + pad


def layers_forward(model: Any, x: Any, attend: Callable[[Any, Any, Any], Any]) -> Any:
    """XLM-R's encoder layers on ``x`` (any leading shape, hidden last), attention by ``attend(q, k, v)``
    on (..., heads, head_dim) projections: the weights of the transformers model, its order of operations."""
    c = model.config
    heads, dim = c.num_attention_heads, c.hidden_size // c.num_attention_heads
    for layer in model.encoder.layer:
        a = layer.attention
        shape = (*x.shape[:-1], heads, dim)
        o = attend(a.self.query(x).view(shape), a.self.key(x).view(shape), a.self.value(x).view(shape))
        x = a.output.LayerNorm(a.output.dense(o.reshape(x.shape)) + x)
        x = layer.output.LayerNorm(layer.output.dense(layer.intermediate(x)) + x)
    return x


def embed(model: Any, ids: Any, pos: Any) -> Any:
    """XLM-R's embeddings (word + token type 0, then + position, then LayerNorm: its order of sums)."""
    e = model.embeddings
    x = e.word_embeddings(ids) + e.token_type_embeddings(ids.new_zeros(ids.shape))
    x += e.position_embeddings(pos)
    return e.LayerNorm(x)


def varlen_attention(torch: Any, device: str, dtype: Any) -> tuple[str, Callable[..., Any]] | tuple[None, str]:
    """(name, attend(q, k, v, cu, max_len)) on packed (tokens, heads, dim) tensors, or (None, why not)."""
    if device == "cuda":
        try:
            from flash_attn import flash_attn_varlen_func

            return "flash_attn_varlen_func", lambda q, k, v, cu, n: flash_attn_varlen_func(q, k, v, cu, cu, n, n)
        except ImportError:
            pass
        try:
            from torch.nn.attention.varlen import varlen_attn

            if dtype in (torch.float16, torch.bfloat16):
                return "torch varlen_attn", lambda q, k, v, cu, n: varlen_attn(q, k, v, cu, cu, n, n)
        except ImportError:
            pass

    def nested(q: Any, k: Any, v: Any, cu: Any, n: int) -> Any:
        def jag(t: Any) -> Any:
            return torch.nested.nested_tensor_from_jagged(t, cu).transpose(1, 2)
        o = torch.nn.functional.scaled_dot_product_attention(jag(q), jag(k), jag(v))
        return o.transpose(1, 2).values()
    return "nested jagged SDPA", nested


# -- one variant: prepared inputs and a run ---------------------------------------------------------------------
class Variant:
    """Inputs prepared on the device and ``run()`` giving the pooled states in the sequences' order."""

    def __init__(self, name: str, tokens_run: int, batches: int, run: Callable[[], Any], note: str = "") -> None:
        self.name, self.tokens_run, self.batches, self.run, self.note = name, tokens_run, batches, run, note


class AB:
    def __init__(self, torch: Any, device: str, dtype: Any, enc: Path, pad: int, budget: int) -> None:
        self.torch, self.device, self.dtype, self.enc, self.pad, self.budget = torch, device, dtype, enc, pad, budget
        self.models: dict[str, Any] = {}
        self.compiled_on = ""  # the workload the compile variant runs on (once: compiling takes a minute or more)

    def model(self, attn: str) -> Any:
        if attn not in self.models:
            from transformers import XLMRobertaModel

            m = XLMRobertaModel.from_pretrained(str(self.enc), attn_implementation=attn, dtype=self.dtype,
                                                add_pooling_layer=False)
            self.models[attn] = m.to(self.device).eval()
        return self.models[attn]

    def padded_inputs(self, seqs: list[list[int]], batches: list[list[int]],
                      round_to: int = 1) -> list[tuple[list[int], Any, Any]]:
        torch = self.torch
        out = []
        for b in batches:
            w = max(len(seqs[i]) for i in b)
            w = -(-w // round_to) * round_to
            ids = torch.full((len(b), w), self.pad, dtype=torch.long)
            for row, i in enumerate(b):
                ids[row, :len(seqs[i])] = torch.tensor(seqs[i])
            mask = ids.ne(self.pad).long()
            out.append((b, ids.to(self.device), mask.to(self.device)))
        return out

    def hf(self, name: str, model: Any, seqs: list[list[int]], max_tokens: int, round_to: int = 1,
           rule: Callable[..., list[list[int]]] | None = None) -> Variant:
        from docmetrics.algorithms.batching import token_batches

        torch = self.torch
        batches = (rule or token_batches)([-(-len(s) // round_to) * round_to for s in seqs], max_tokens=max_tokens)
        inputs = self.padded_inputs(seqs, batches, round_to)

        def run() -> Any:
            out = torch.empty(len(seqs), model.config.hidden_size, device=self.device)
            with torch.inference_mode():
                for b, ids, mask in inputs:
                    out[b] = pooled(torch, model(input_ids=ids, attention_mask=mask).last_hidden_state, mask)
            return out
        return Variant(name, sum(ids.numel() for _, ids, _ in inputs), len(inputs), run)

    def packed(self, name: str, seqs: list[list[int]], max_tokens: int) -> Variant:
        torch = self.torch
        how, attend = varlen_attention(torch, self.device, self.dtype)
        model = self.model("sdpa")
        order = sorted(range(len(seqs)), key=lambda i: -len(seqs[i]))
        groups, cur, used = [], [], 0
        for i in order:  # as many whole sequences as the budget holds, no padding
            if cur and used + len(seqs[i]) > max_tokens:
                groups.append(cur)
                cur, used = [], 0
            cur.append(i)
            used += len(seqs[i])
        if cur:
            groups.append(cur)
        inputs = []
        for g in groups:
            lens = [len(seqs[i]) for i in g]
            ids = torch.tensor([t for i in g for t in seqs[i]], dtype=torch.long)
            pos = torch.cat([torch.arange(n) + self.pad + 1 for n in lens])
            cu = torch.tensor([0, *torch.tensor(lens).cumsum(0).tolist()], dtype=torch.int32)
            seg = torch.repeat_interleave(torch.arange(len(g)), torch.tensor(lens))
            inputs.append((g, ids.to(self.device), pos.to(self.device), cu.to(self.device),
                           seg.to(self.device), max(lens), torch.tensor(lens, device=self.device)))

        def run() -> Any:
            out = torch.zeros(len(seqs), model.config.hidden_size, device=self.device)
            with torch.inference_mode():
                for g, ids, pos, cu, seg, n, lens in inputs:
                    x = layers_forward(model, embed(model, ids, pos), lambda q, k, v, cu=cu, n=n: attend(q, k, v, cu, n))
                    sums = torch.zeros(len(g), x.shape[-1], device=self.device, dtype=torch.float32)
                    sums.index_add_(0, seg, x.float())
                    out[g] = sums / lens.unsqueeze(1)
            return out
        return Variant(name, sum(len(s) for s in seqs), len(inputs), run, note=how)

    def cudagraph(self, seqs: list[list[int]], max_tokens: int) -> Variant:
        """Padded batches of widths multiple of 64, each shape captured once as a CUDA graph and replayed."""
        from docmetrics.algorithms.batching import token_batches

        torch = self.torch
        model = self.model("sdpa")
        rounded = [-(-len(s) // 64) * 64 for s in seqs]
        full_rows: dict[int, int] = {}
        batches = []
        for b in token_batches(rounded, max_tokens=max_tokens, max_padding=0.0):  # one width a batch
            w = rounded[b[0]]
            full_rows[w] = max(full_rows.get(w, 0), len(b), max(1, max_tokens // w))
            k = 0
            while k < len(b):  # the budget's rows, the rest in powers of two: few shapes, no empty rows
                r = full_rows[w] if len(b) - k >= full_rows[w] else 2 ** int(math.log2(len(b) - k))
                batches.append(b[k:k + r])
                k += r
        inputs = self.padded_inputs(seqs, batches, 64)

        def forward(ids: Any, mask: Any) -> Any:
            keep = mask.bool()[:, None, None, :]
            x = embed(model, ids, positions(torch, ids, self.pad))

            def attend(q: Any, k: Any, v: Any) -> Any:
                o = torch.nn.functional.scaled_dot_product_attention(
                    q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), attn_mask=keep)
                return o.transpose(1, 2)
            return pooled(torch, layers_forward(model, x, attend), mask)

        graphs: dict[tuple[int, int], Any] = {}
        cuda = self.device == "cuda"

        def run() -> Any:
            out = torch.empty(len(seqs), model.config.hidden_size, device=self.device)
            with torch.inference_mode():
                for b, ids, mask in inputs:
                    shape = tuple(ids.shape)
                    if not cuda:  # the forward the graphs hold, run as it is (a CPU run checks its numbers)
                        out[b] = forward(ids, mask)
                        continue
                    if shape not in graphs:
                        static = (ids.clone(), mask.clone())
                        stream = torch.cuda.Stream()
                        stream.wait_stream(torch.cuda.current_stream())
                        with torch.cuda.stream(stream):
                            forward(*static)  # warm-up outside the capture, as torch's docs ask
                        torch.cuda.current_stream().wait_stream(stream)
                        g = torch.cuda.CUDAGraph()
                        with torch.cuda.graph(g):
                            result = forward(*static)
                        graphs[shape] = (g, static, result)
                    g, (sid, smask), result = graphs[shape]
                    sid.copy_(ids)
                    smask.copy_(mask)
                    g.replay()
                    out[b] = result[:len(b)]
            return out
        shapes = len({tuple(i.shape) for _, i, _ in inputs})
        return Variant("cudagraph", sum(ids.numel() for _, ids, _ in inputs), len(inputs), run,
                       note=f"{shapes} shapes" + ("" if cuda else ", no CUDA: the graphs' forward run as it is"))


# -- the run -----------------------------------------------------------------------------------------------------
def env_info(torch: Any, device: str) -> dict[str, Any]:
    import importlib.metadata as md

    info = {"python": platform.python_version(), "device": device,
            "gpu": torch.cuda.get_device_name(0) if device == "cuda" else None}
    for d in ("torch", "transformers", "numpy", "flash-attn"):
        try:
            info[d] = md.version(d)
        except md.PackageNotFoundError:
            info[d] = None
    return info


def prepare(ab: AB, seqs: list[list[int]], workload: str, variants: list[str], budgets: list[int], budget: int,
            compile_on_cpu: bool, deadline: float, report: dict[str, Any]) -> dict[str, Variant]:
    """The variants of one workload with their inputs on the device; those that cannot run are listed."""
    torch, device = ab.torch, ab.device
    built: dict[str, Variant] = {}

    def add(name: str, make: Callable[[], Variant | str]) -> None:
        if time.perf_counter() > deadline:
            report["skipped"].append({"workload": workload, "variant": name, "why": "time budget (--budget-s)"})
            return
        try:
            v = make()
        except Exception as exc:  # a variant that cannot run here is listed, the others go on
            report["errors"].append({"workload": workload, "variant": name, "error": f"{type(exc).__name__}: {exc}",
                                     "trace": traceback.format_exc()[-2000:]})
            return
        if isinstance(v, str):
            report["skipped"].append({"workload": workload, "variant": name, "why": v})
        else:
            built[name] = v

    for name in variants:
        if name in ("sdpa", "eager"):
            add(name, lambda n=name: ab.hf(n, ab.model(n), seqs, budget))
        elif name == "flash_attention_2":
            def fa2() -> Variant | str:
                if device != "cuda":
                    return "needs CUDA"
                try:
                    model = ab.model("flash_attention_2")
                except (ImportError, ValueError) as exc:  # transformers says why (XLM-R: not supported)
                    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
                return ab.hf("flash_attention_2", model, seqs, budget)
            add(name, fa2)
        elif name == "rule-before":
            from bench_padding import token_batches_before

            add(name, lambda: ab.hf("rule-before", ab.model("sdpa"), seqs, budget, rule=token_batches_before))
        elif name == "pad64":
            add(name, lambda: ab.hf("pad64", ab.model("sdpa"), seqs, budget, round_to=64))
        elif name == "compile":
            def compiled() -> Variant | str:
                if "compiled" in ab.models and workload != ab.compiled_on:
                    return f"compiled once, on {ab.compiled_on} (its compile takes a minute or more)"
                if device != "cuda" and not compile_on_cpu:
                    return "CPU: inductor's compile of the encoder takes minutes here (--compile-on-cpu runs it)"
                if "compiled" not in ab.models:
                    ab.models["compiled"] = torch.compile(ab.model("sdpa"), dynamic=True)
                    ab.compiled_on = workload
                return ab.hf("compile", ab.models["compiled"], seqs, budget)
            add(name, compiled)
        elif name == "packed":
            add(name, lambda: ab.packed("packed", seqs, budget))
        elif name == "cudagraph":
            add(name, lambda: ab.cudagraph(seqs, budget))
    for b in budgets:
        if "sdpa" in variants:
            add(f"sdpa-budget-{b}", lambda b=b: ab.hf(f"sdpa-budget-{b}", ab.model("sdpa"), seqs, b))
        if "packed" in variants:
            add(f"packed-budget-{b}", lambda b=b: ab.packed(f"packed-budget-{b}", seqs, b))
    return built


def run_ab(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    from transformers import AutoTokenizer

    t0 = time.perf_counter()
    smoke = args.smoke
    sizes = bench_gpu.SMOKE if smoke else bench_gpu.FULL
    device = "cuda" if torch.cuda.is_available() and not smoke else "cpu"
    precision = args.precision or ("bf16" if device == "cuda" else "fp32")
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[precision]
    budget = args.max_tokens or (32768 if device == "cuda" else 4096)
    texts = bench_gpu.read_texts(args.data, smoke)
    report: dict[str, Any] = {"kind": "smoke" if smoke else "full", "env": env_info(torch, device),
                              "precision": precision, "max_tokens": budget, "data": texts["name"], "rows": [],
                              "skipped": [], "errors": []}
    work = Path(tempfile.mkdtemp(prefix="bench-ab-"))
    corpus = texts["src"] + texts["ref"] + [h for n in list(texts["systems"])[:sizes.systems]
                                            for h in texts["systems"][n]]
    enc = bench_gpu.build_encoder(work / "encoder", corpus, sizes)
    tok = AutoTokenizer.from_pretrained(str(enc))
    peak = bench_gpu.matmul_peak(torch, device, precision, sizes.peak_n)
    peak["tflops_exact"] = 2 * sizes.peak_n ** 3 / peak["seconds"] / 1e12  # unrounded: a CPU's is < 0.01
    report["peak"] = peak
    ab = AB(torch, device, dtype, enc, int(tok.pad_token_id), budget)
    config = ab.model("sdpa").config
    layers = config.num_hidden_layers
    variants = [v for v in args.variants.split(",") if v]
    budgets = [int(b) for b in args.budgets.split(",") if b]
    deadline = t0 + args.budget_s

    for workload in args.workloads.split(","):
        seqs = sequences(texts, sizes.systems, tok, workload)
        lengths = [len(s) for s in seqs]
        needed = sum(lengths)
        flops = sum(bench_gpu.encoder_flops(n, int(config.hidden_size), int(config.intermediate_size), layers)
                    for n in lengths)
        built = prepare(ab, seqs, workload, variants, budgets, budget, args.compile_on_cpu, deadline, report)
        warm: dict[str, float] = {}
        outs: dict[str, Any] = {}
        for name, v in list(built.items()):  # warm-up, untimed in the median: compiles and captures happen here
            try:
                sync(torch, device)
                t = time.perf_counter()
                outs[name] = v.run()
                sync(torch, device)
                warm[name] = time.perf_counter() - t
            except Exception as exc:
                report["errors"].append({"workload": workload, "variant": name, "error": f"{type(exc).__name__}: {exc}",
                                         "trace": traceback.format_exc()[-2000:]})
                del built[name]
        times: dict[str, list[float]] = {n: [] for n in built}
        order = list(built)
        for r in range(args.repeats if order else 0):  # nothing built (time budget, errors): listed above
            if r and time.perf_counter() > deadline:
                report["skipped"].append({"workload": workload, "variant": "*", "why": f"rounds after {r}: time budget"})
                break
            for name in order[r % len(order):] + order[:r % len(order)]:
                sync(torch, device)
                t = time.perf_counter()
                built[name].run()
                sync(torch, device)
                times[name].append(time.perf_counter() - t)
        base = outs.get("sdpa")
        for name, v in built.items():
            med = statistics.median(times[name]) if times[name] else warm[name]
            tflops = flops / med / 1e12
            report["rows"].append({
                "workload": workload, "variant": name, "note": v.note, "sequences": len(seqs), "batches": v.batches,
                "tokens_needed": needed, "tokens_run": v.tokens_run, "padded": round(v.tokens_run / needed, 3),
                "flops_needed": flops, "warm_s": round(warm[name], 3), "seconds": [round(x, 4) for x in times[name]],
                "median_s": round(med, 4), "tflops": round(tflops, 3), "mfu": round(tflops / peak["tflops_exact"], 4),
                "max_diff": (float((outs[name] - base).abs().max()) if base is not None and name in outs else None)})
        write(report, args.out_dir)
    report["seconds"] = round(time.perf_counter() - t0, 1)
    write(report, args.out_dir)
    return report


def sync(torch: Any, device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def table(report: dict[str, Any]) -> str:
    env = report["env"]
    lines = [f"bench_ab ({report['kind']}): {env['gpu'] or 'CPU'}, torch {env['torch']}, transformers "
             f"{env['transformers']}, flash-attn {env['flash-attn']}; {report['precision']}; --max-tokens "
             f"{report['max_tokens']}; peak {report.get('peak', {}).get('tflops')} TFLOP/s; {report['data']}", "",
             "| workload | variant | sequences | batches | tokens needed | padded | warm s | median s | TFLOP/s | mfu "
             "| max diff | note |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in report["rows"]:
        diff = "–" if r["max_diff"] is None else f"{r['max_diff']:.1e}"
        lines.append(f"| {r['workload']} | {r['variant']} | {r['sequences']} | {r['batches']} | {r['tokens_needed']:,} "
                     f"| {r['padded']:.2f} | {r['warm_s']:.3f} | {r['median_s']:.4f} | {r['tflops']:.3f} | "
                     f"{r['mfu']:.3f} | {diff} | {r['note']} |")
    for s in report["skipped"]:
        lines.append(f"| {s['workload']} | {s['variant']} | | | | | | | | | | skipped: {s['why']} |")
    for e in report["errors"]:
        lines.append(f"| {e['workload']} | {e['variant']} | | | | | | | | | | error: {e['error'][:200]} |")
    return "\n".join(lines) + "\n"


def write(report: dict[str, Any], out: str | None) -> None:
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "bench_ab.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
        (Path(out) / "bench_ab.md").write_text(table(report), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--smoke", action="store_true", help="tiny XLM-R on the CPU, the committed sample")
    mode.add_argument("--full", metavar="OUT_DIR", help="XLM-R-large-shaped, on the GPU where there is one")
    p.add_argument("--out", help="with --smoke: where to write bench_ab.json and bench_ab.md")
    p.add_argument("--data", help="texts (as bench_gpu.py --data)")
    p.add_argument("--precision", choices=("fp32", "fp16", "bf16"), help="default: bf16 on a GPU, fp32 on a CPU")
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--max-tokens", type=int, help="the batches' budget (default: 32768 on a GPU, 4096 on a CPU)")
    p.add_argument("--budgets", default="", help="larger budgets for sdpa and packed, e.g. 65536,131072")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--budget-s", type=float, default=240.0, help="stop adding variants and rounds after this")
    p.add_argument("--compile-on-cpu", action="store_true")
    args = p.parse_args(argv)
    args.out_dir = args.full or args.out
    report = run_ab(args)
    sys.stdout.write(table(report))
    return 1 if report["errors"] and not report["rows"] else 0


if __name__ == "__main__":
    sys.exit(main())
