"""The first K sentences of every document of a ../shared/data/<set>/ folder, as docmetrics input files
plus the matching segment-level human scores (for quick sweeps and meta-evaluation runs on CPU).

    python tests/benchmarks/mqm_subset.py ../shared/data/wmt21_ted_ende OUT_DIR [--per-doc K] \\
        [--include-human]

writes what ``wmt_data.py`` writes (OUT_DIR/src.txt, docids.txt, ref.txt, sys/<system>.txt) restricted
to the first K sentences of each document (all of them without --per-doc), and OUT_DIR/human_seg.tsv:
``system, is_human, doc_id, seg_id, doc_pos, score`` (score = mqm_score, higher is better) for exactly
those segments, so that system-level human scores are means over the same segments the metric sees.
``docmetrics --human OUT_DIR/human_seg.tsv [--seg-level] [--no-human-systems]`` reads it.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from wmt_data import load  # noqa: E402  (the converter next to this file)

csv.field_size_limit(10**9)


def write(
    folder: str | Path, out: str | Path, per_doc: int | None = None, include_human: bool = False
) -> dict:
    folder, out = Path(folder), Path(out)
    data = load(folder, include_human=include_human)
    keep, pos, seen = [], {}, {}
    for i, d in enumerate(data["doc_ids"]):
        pos[i] = seen[d] = seen.get(d, 0) + 1
        if per_doc is None or pos[i] <= per_doc:
            keep.append(i)
    (out / "sys").mkdir(parents=True, exist_ok=True)

    def put(path: Path, lines: list[str]) -> None:
        path.write_text("".join(x.replace("\n", " ") + "\n" for x in lines), encoding="utf-8")

    put(out / "src.txt", [data["src"][i] for i in keep])
    put(out / "docids.txt", [data["doc_ids"][i] for i in keep])
    if data["ref"] is not None:
        put(out / "ref.txt", [data["ref"][i] for i in keep])
    for name, hyp in data["systems"].items():
        put(out / "sys" / f"{name}.txt", [hyp[i] for i in keep])
    wanted = {(data["doc_ids"][i], pos[i]) for i in keep}
    rows = ["system\tis_human\tdoc_id\tseg_id\tdoc_pos\tscore"]
    with open(folder / "seg_scores.tsv", encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if r["system"] in data["systems"] and (r["doc_id"], int(r["doc_pos"])) in wanted:
                rows.append(
                    "\t".join(
                        [r["system"], r["is_human"], r["doc_id"], r["seg_id"], r["doc_pos"], r["mqm_score"]]
                    )
                )
    (out / "human_seg.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return {
        "segments": len(keep),
        "documents": len(set(data["doc_ids"])),
        "systems": list(data["systems"]),
        "human_rows": len(rows) - 1,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("out")
    ap.add_argument(
        "--per-doc", type=int, default=None, metavar="K", help="first K sentences of each document"
    )
    ap.add_argument("--include-human", action="store_true", help="also the human references rated as systems")
    a = ap.parse_args(argv)
    if not Path(a.folder, "segments.tsv").exists():
        print(f"{a.folder}: no segments.tsv (is ../shared/data there?)", file=sys.stderr)
        return 2
    info = write(a.folder, a.out, a.per_doc, a.include_human)
    print(
        f"{a.out}: {info['segments']} segments, {info['documents']} documents, "
        f"{len(info['systems'])} systems, "
        f"{info['human_rows']} human segment scores"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
