"""A report page's data of realistic size, made up but deterministic: ``systems`` systems, ``documents`` documents of
2-6 segments, two metrics (chrF- and BLEU-like scores with their per-document and per-segment units), ESA-like
human segment scores with error spans, and the meta-evaluation of both metrics against the humans, as
``--human ... -f json`` writes it.

    python tests/report_data.py OUT.html [--systems 30 --documents 500]

The browser tests (tests/test_report_browser_views.py) and tests/benchmarks/bench_report.py build their pages
with :func:`page_data`; the numbers are correlated on purpose (a better system scores higher by metric and human,
with noise), so rankings differ a little between the metrics and the humans, as in WMT.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path
from typing import Any

WORDS = ("the a of to in and is was for on that with as by at from this be it are an have not has were which but "
         "house time world year city work question example story good new great small old fast today always").split()
METRICS = (("chrf", "chrf|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.4.2"),
           ("bleu", "BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.4.2"))


def system_names(n: int) -> list[str]:
    """Names like WMT's, some long (the documents table must keep them readable)."""
    stems = ["ONLINE-A", "ONLINE-B", "ONLINE-W", "Unbabel-Tower70B", "IOL-Research", "Claude-3.5", "GPT-4",
             "Gemini-1.5-Pro", "CommandR-plus", "Aya23", "Llama3-70B", "Mistral-Large", "TranssionMT", "NVIDIA-NeMo",
             "CUNI-DocTransformer", "Dubformer", "IKUN", "IKUN-C", "Team-J", "AMI", "BJFU-LPT", "HW-TSC",
             "MSLC", "SCIR-MT", "TSU-HITs", "UvA-MT", "Yandex", "ZMT", "NTTSU", "DLUT-GTCOM"]
    return [stems[k % len(stems)] + ("" if k < len(stems) else f"-{k // len(stems) + 1}") for k in range(n)]


def page_data(systems: int = 30, documents: int = 500, seed: int = 7) -> dict[str, Any]:
    """The page's data (:func:`docmetrics.report.data.payload`)."""
    from docmetrics.judging.rules import report_ranking
    from docmetrics.report.data import payload

    rng = random.Random(seed)
    names = system_names(systems)
    quality = {n: 0.9 - 0.5 * k / max(1, systems - 1) + rng.gauss(0, 0.03) for k, n in enumerate(names)}
    docs, line = [], 0
    for d in range(documents):
        size = rng.randint(2, 6)
        docs.append([f"{['news', 'literary', 'social', 'speech'][d % 4]}_{d:04d}_{rng.randrange(10**6):06d}",
                     line, line + size])
        line += size

    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))) + "."

    source = [sentence() for _ in range(line)]
    reference = [sentence() for _ in range(line)]
    outputs = {n: [sentence() for _ in range(line)] for n in names}
    human: dict[str, list[float | None]] = {}
    spans: dict[str, dict[str, list[list[Any]]]] = {}
    for n in names:
        row: list[float | None] = []
        for k in range(line):
            v = max(0.0, min(100.0, 100 * quality[n] + rng.gauss(0, 12)))
            row.append(round(v) if rng.random() > 0.05 else None)
            if v < 75 and rng.random() < 0.5:
                text = outputs[n][k]
                a = rng.randrange(max(1, len(text) - 8))
                spans.setdefault(n, {})[str(k)] = [[a, a + rng.randint(3, 8), "major" if v < 50 else "minor", ""]]
        human[n] = row
    results, rows = [], []
    for m, (metric, signature) in enumerate(METRICS):
        scale = 60 if metric == "chrf" else 35
        system_scores = {}
        for n in names:
            seg = [max(0.0, scale * quality[n] + rng.gauss(0, 8) + (0.3 * m * rng.gauss(0, 5))) for _ in range(line)]
            doc_scores = [sum(seg[a:b]) / (b - a) for _, a, b in docs]
            system_scores[n] = sum(seg) / line + rng.gauss(0, 1.5)
            results.append({"system": n, "metric": metric, "spec": metric, "score": system_scores[n],
                            "signature": signature, "higher_is_better": True,
                            "coverage": {"segments_scored": line, "segments_total": line, "units": line,
                                         "units_truncated": 0},
                            "docs": [[d[0], s, d[2] - d[1]] for d, s in zip(docs, doc_scores)],
                            "units": {"doc": [k for k, d in enumerate(docs) for _ in range(d[1], d[2])],
                                      "start": list(range(line)), "end": list(range(1, line + 1)), "score": seg}})
        hs = [mean_of(human[n]) for n in names]
        ms = [system_scores[n] for n in names]
        rows.append({"metric": metric, "spec": metric, "signature": signature, "systems": names, "metric_scores": ms,
                     "human_scores": hs, "n_systems": systems, "pearson": pearson(ms, hs),
                     "kendall": kendall(ms, hs), "accuracy": accuracy(ms, hs), "spa": 0.9 - 0.05 * m,
                     "seg_pearson": 0.4 - 0.05 * m, "clusters": {"pearson": 1 + m, "accuracy": 1, "spa": 1 + m},
                     "pvalues": {"pearson": {"bleu": 0.01}, "accuracy": {"bleu": 0.2}, "spa": {"bleu": 0.03}}
                     if m == 0 else {}, "perm_both": {"alpha": 0.05, "n_resamples": 1000, "seed": 12345}})
    texts = {"documents": docs, "source": source, "references": [reference], "reference_names": ["refA"],
             "systems": outputs}
    return payload([("human.json", rows)], results=results, texts=texts,
                   human={"name": "esa.jsonl", "column": "ESA", "lower_is_better": False, "segments": human,
                          "ranking": report_ranking(human)},
                   spans=spans, command=f"docmetrics -m chrf bleu --genmt esa.jsonl -l en-xx --report page.html "
                                        f"-f json -o human.json  # {systems} systems, {documents} documents",
                   inputs=[("--genmt", "esa.jsonl"), ("-m", "chrf bleu")])


def mean_of(xs: list[float | None]) -> float:
    v = [x for x in xs if x is not None]
    return sum(v) / len(v)


def pearson(x: list[float], y: list[float]) -> float:
    mx, my = sum(x) / len(x), sum(y) / len(y)
    cov = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return cov / math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))


def kendall(x: list[float], y: list[float]) -> float:
    pairs = [(i, j) for i in range(len(x)) for j in range(i + 1, len(x))]
    def sign(v: float) -> int:
        return (v > 0) - (v < 0)

    return sum(sign(x[i] - x[j]) * sign(y[i] - y[j]) for i, j in pairs) / len(pairs)  # tau-a: a tie counts 0


def accuracy(x: list[float], y: list[float]) -> float:
    pairs = [(i, j) for i in range(len(x)) for j in range(i + 1, len(x))]
    return sum((x[i] - x[j]) * (y[i] - y[j]) > 0 for i, j in pairs) / len(pairs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--systems", type=int, default=30)
    ap.add_argument("--documents", type=int, default=500)
    a = ap.parse_args(argv)
    from docmetrics.report import write

    size = write(a.out, page_data(a.systems, a.documents))
    print(f"{a.out}: {size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
