"""Turn a ../shared/data/<set>/ folder (MQM-judged WMT data) into docmetrics' input files.

    python tests/benchmarks/wmt_data.py ../shared/data/wmt21_ted_ende OUT_DIR [--include-human]

writes OUT_DIR/src.txt, OUT_DIR/docids.txt, OUT_DIR/ref.txt (ref-A, where present), one
OUT_DIR/sys/<system>.txt per system (line-parallel, in test-set order) and OUT_DIR/human.tsv
(system<TAB>mqm_score, higher is better).  Importable: ``load(folder)`` returns the same as Python data.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import OrderedDict
from pathlib import Path

csv.field_size_limit(10**9)


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def load(folder: str | Path, include_human: bool = False) -> dict:
    folder = Path(folder)
    segs = _rows(folder / "segments.tsv")
    systems: OrderedDict[str, dict[tuple[str, int], str]] = OrderedDict()
    human_flag: dict[str, bool] = {}
    order: list[tuple[str, int]] = []
    src: dict[tuple[str, int], str] = {}
    for r in segs:
        key = (r["doc_id"], int(r["seg_id"]))
        if key not in src:
            src[key] = r["source"]
            order.append(key)
        systems.setdefault(r["system"], {})[key] = r["hypothesis"]
        human_flag[r["system"]] = r["is_human"] == "1"
    order.sort(key=lambda k: k[1])
    refs: dict[tuple[str, int], str] = {}
    ref_file = folder / "references.tsv"
    if ref_file.exists():
        for r in _rows(ref_file):
            if r["ref_name"] in ("ref-A", "refA"):
                refs[(r["doc_id"], int(r["seg_id"]))] = r["reference"]
    scores = {r["system"]: float(r["mqm_score_mean"]) for r in _rows(folder / "system_scores.tsv")}
    out_systems = OrderedDict(
        (name, [hyp.get(k, "") for k in order])
        for name, hyp in systems.items()
        if include_human or not human_flag[name]
    )
    return {
        "doc_ids": [k[0] for k in order],
        "src": [src[k] for k in order],
        "ref": [refs.get(k, "") for k in order] if refs else None,
        "systems": out_systems,
        "human": {n: scores[n] for n in out_systems if n in scores},
        "is_human": human_flag,
    }


def write(folder: str | Path, out: str | Path, include_human: bool = False) -> dict:
    data = load(folder, include_human)
    out = Path(out)
    (out / "sys").mkdir(parents=True, exist_ok=True)

    def put(path: Path, lines: list[str]) -> None:
        path.write_text("".join(x.replace("\n", " ") + "\n" for x in lines), encoding="utf-8")

    put(out / "src.txt", data["src"])
    put(out / "docids.txt", data["doc_ids"])
    if data["ref"] is not None:
        put(out / "ref.txt", data["ref"])
    for name, hyp in data["systems"].items():
        put(out / "sys" / f"{name}.txt", hyp)
    (out / "human.tsv").write_text(
        "".join(f"{n}\t{s}\n" for n, s in data["human"].items()), encoding="utf-8"
    )
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("out")
    ap.add_argument("--include-human", action="store_true")
    a = ap.parse_args(argv)
    if not Path(a.folder, "segments.tsv").exists():
        print(f"{a.folder}: no segments.tsv (is ../shared/data there?)", file=sys.stderr)
        return 2
    data = write(a.folder, a.out, a.include_human)
    print(f"{a.out}: {len(data['src'])} segments, {len(set(data['doc_ids']))} documents, "
          f"{len(data['systems'])} systems")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
