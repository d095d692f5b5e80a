"""A copy of the baseline must score exactly as the baseline and test as not different (p = 1).

    python tests/benchmarks/copy_testset.py [../shared/data/wmt21_ted_ende] [--spec doc-bertscore:model=minilm,k=1]

Scores the first two MT systems of the data set and a copy of the first (``A``, ``B``, ``A-copy``) in
one run with real all-MiniLM-L6-v2, then runs the paired bootstrap and the paired randomization test
over documents with the copy as the system under test.  Prints the two scores, their difference and
both p-values.  ``--legacy DIR`` runs the same with a docmetrics 0.1 checkout (``git worktree add DIR
a18461e``) for the "before" figures; it builds the metric from the 0.1 classes directly, as 0.1's
registry would.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from wmt_data import load  # noqa: E402


def run_current(spec: str, systems: dict, data: dict) -> tuple[dict, float, float]:
    import docmetrics
    from docmetrics.judging.paired import paired_test

    metric = docmetrics.load(spec, device="cpu", cache=None)
    results = list(metric.score_systems(systems, sources=data["src"], references=data["ref"],
                                        doc_ids=data["doc_ids"]).values())
    order = [results[0], results[2]]  # baseline A, system A-copy
    return ({r.system: r.score for r in results}, paired_test(order, "bs").rows[1].p_value,
            paired_test(order, "ar").rows[1].p_value)


def run_legacy(root: str, k: int, systems: dict, data: dict) -> tuple[dict, float, float]:
    sys.path[:0] = [root, os.path.join(root, "plugins")]
    for name in [m for m in sys.modules if m == "docmetrics" or m.startswith("docmetrics.")]:
        del sys.modules[name]
    from docmetrics.significance import paired_test  # type: ignore[import-not-found]
    from docmetrics_bertscore.backbone import BertScoreBackbone  # type: ignore[import-not-found]
    from docmetrics_docbertscore import DocBertScoreMetric  # type: ignore[import-not-found]

    backbone = BertScoreBackbone("minilm", device="cpu", quiet=True, idf=False, mode="published", score="f1",
                                 rescale=False)
    backbone.name = "bertscore"
    metric = DocBertScoreMetric(backbone, k=k)
    results = list(metric.score_systems(systems, sources=data["src"], references=data["ref"],
                                        doc_ids=data["doc_ids"]).values())
    order = [results[0], results[2]]
    return ({r.system: r.score for r in results}, paired_test(order, "bs").rows[1].p_value,
            paired_test(order, "ar").rows[1].p_value)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default=str(HERE.parents[2] / "shared" / "data" / "wmt21_ted_ende"))
    ap.add_argument("--spec", default="doc-bertscore:model=minilm,k=1")
    ap.add_argument("--legacy", metavar="DIR", help="a docmetrics 0.1 checkout (doc-bertscore only)")
    ap.add_argument("--k", type=int, default=1, help="with --legacy: doc-bertscore's k")
    a = ap.parse_args()
    if not Path(a.folder, "segments.tsv").exists():
        print(f"{a.folder}: no segments.tsv (is ../shared/data there?)", file=sys.stderr)
        return 2
    data = load(a.folder)
    names = list(data["systems"])[:2]
    systems = {"A": data["systems"][names[0]], "B": data["systems"][names[1]], "A-copy": data["systems"][names[0]]}
    scores, p_bs, p_ar = (run_legacy(a.legacy, a.k, systems, data) if a.legacy
                          else run_current(a.spec, systems, data))
    print(f"A = {names[0]}, B = {names[1]}; {len(data['src'])} segments, {len(set(data['doc_ids']))} documents")
    print(f"score A      = {scores['A']:.10f}")
    print(f"score A-copy = {scores['A-copy']:.10f}  (difference {scores['A-copy'] - scores['A']:+.3e})")
    print(f"paired bootstrap (1000): p = {p_bs:.4f}; paired randomization (10000): p = {p_ar:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
