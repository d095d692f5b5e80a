"""BERTScore vs Doc-BERTScore against MQM, system level (Vernikos et al., 2022, Table 1 setting).

    python tests/benchmarks/bench_doc_bertscore.py [--data ../shared/data/wmt21_ted_ende] [--model minilm]

Scores every MT system of the data set (human references left out) against ref-A with
``doc-bertscore:k=0`` (sentence-level BERTScore) and ``doc-bertscore`` (k=2, published and strict
modes), through the library API on the same model, and prints for each metric the system-level
Pearson correlation with the MQM scores (higher = better for both) and the pairwise accuracy (share
of system pairs that the metric orders as MQM does; a metric tie counts as a disagreement), plus the
time each metric took.  The equivalent command line for one metric is printed too.

Needs the MQM data in ../shared/data (not part of the project); without it, says so and exits.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[2] / "shared" / "data" / "wmt21_ted_ende"


def pearson(x: list[float], y: list[float]) -> float:
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy)


def pairwise_accuracy(metric: list[float], human: list[float]) -> tuple[int, int]:
    """(agreeing pairs, pairs with different human scores)."""
    agree = total = 0
    for i, j in itertools.combinations(range(len(human)), 2):
        if human[i] == human[j]:
            continue
        total += 1
        if (metric[i] - metric[j]) * (human[i] - human[j]) > 0:
            agree += 1
    return agree, total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="an MQM folder of ../shared/data")
    ap.add_argument("--model", default="minilm", help="bertscore backbone model (default: minilm)")
    ap.add_argument("--layer", type=int, default=None, help="layer (default: the backbone's)")
    ap.add_argument("--k", type=int, default=2, help="context sentences of Doc-BERTScore (default 2)")
    ap.add_argument("--idf", action="store_true", help="idf weighting")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--batch-size", type=int, default=None)
    args = ap.parse_args(argv)

    folder = Path(args.data)
    if not (folder / "segments.tsv").is_file():
        print(f"{folder}: no MQM data here (../shared/data is not part of the project); nothing to do")
        return 0
    sys.path.insert(0, str(HERE))
    import wmt_data  # noqa: E402  (tests/benchmarks/wmt_data.py)

    import docmetrics

    data = wmt_data.load(folder, include_human=False)
    systems = data["systems"]
    names = list(systems)
    human = [data["human"][n] for n in names]
    refs, ids = data["ref"], data["doc_ids"]
    missing = [n for n in names if not all(h.strip() for h in systems[n])]
    print(f"{folder.name}: {len(refs)} segments, {len(set(ids))} documents, {len(names)} MT systems "
          f"(human references excluded), reference ref-A; systems with empty lines: {missing or 'none'}")

    extra = f",layer={args.layer}" if args.layer is not None else ""
    extra += ",idf=yes" if args.idf else ""
    specs = {
        "BERTScore (k=0)": f"doc-bertscore:k=0,model={args.model}{extra}",
        f"Doc-BERTScore (k={args.k}, published)": f"doc-bertscore:k={args.k},model={args.model}{extra}",
        f"Doc-BERTScore (k={args.k}, strict)":
            f"doc-bertscore:k={args.k},mode=strict,model={args.model}{extra}",
    }
    rows = []
    for label, spec in specs.items():
        metric = docmetrics.load(spec, device=args.device, batch_size=args.batch_size, quiet=True)
        start = time.perf_counter()
        results = metric.score_systems(systems, references=refs, doc_ids=ids)
        seconds = time.perf_counter() - start
        scores = [results[n].score for n in names]
        agree, total = pairwise_accuracy(scores, human)
        cov = results[names[0]].coverage
        rows.append((label, pearson(scores, human), agree, total, seconds, str(results[names[0]].signature),
                     cov.summary() if cov else ""))

    print()
    print(f"{'metric':<34} {'Pearson':>8} {'pairwise acc.':>16} {'seconds':>8}")
    for label, r, agree, total, seconds, _, _ in rows:
        print(f"{label:<34} {r:8.4f} {agree:>5}/{total:<3} = {agree / total:.3f} {seconds:8.1f}")
    print()
    for label, *_, sig, cov in rows:
        print(f"{label}: {sig}\n    ({cov}, first system)")
    n_units = len(refs) * len(names)
    print(f"\n{n_units} units per metric ({len(names)} systems x {len(refs)} segments)")
    print("\nThe same from the command line (files from tests/benchmarks/wmt_data.py):\n"
          f"  python tests/benchmarks/wmt_data.py {folder} /tmp/ted\n"
          f"  docmetrics -m {' '.join(specs.values())} -i /tmp/ted/sys/*.txt -r /tmp/ted/ref.txt "
          "--doc-ids /tmp/ted/docids.txt")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
