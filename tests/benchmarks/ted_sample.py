"""Write tests/benchmarks/data/ted_ende_sample.tsv.xz, the text sample bench_gpu.py runs on without ../shared.

    python tests/benchmarks/ted_sample.py [../shared/data/wmt21_ted_ende] [--out tests/benchmarks/data/ted_ende_sample.tsv.xz]

Two whole documents of wmt21_ted_ende (talk.3: 31 segments, talk.5: 70), unchanged: the source, reference
ref-A and three MT systems (505 lines of text), as a tab-separated file (doc_id, src, ref, then one column
per system; a header names the systems), xz-compressed.  The texts come from google/wmt-mqm-human-evaluation
(Apache-2.0; data/README.md says so beside the file).  The output is byte-identical for the same input.
"""

from __future__ import annotations

import argparse
import lzma
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCS = ("talk.3", "talk.5")
SYSTEMS = ("Facebook-AI", "Online-W", "VolcTrans-GLAT")
OUT = HERE / "data" / "ted_ende_sample.tsv.xz"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default=str(HERE.parents[2] / "shared" / "data" / "wmt21_ted_ende"))
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args(argv)
    if not Path(a.folder, "segments.tsv").exists():
        print(f"{a.folder}: no segments.tsv (is ../shared/data there?)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(HERE))
    import wmt_data

    data = wmt_data.load(a.folder)
    rows = ["\t".join(("doc_id", "src", "ref", *SYSTEMS))]
    for i, doc in enumerate(data["doc_ids"]):
        if doc in DOCS:
            cells = (doc, data["src"][i], data["ref"][i], *(data["systems"][s][i] for s in SYSTEMS))
            rows.append("\t".join(c.replace("\t", " ").replace("\n", " ") for c in cells))
    raw = ("\n".join(rows) + "\n").encode("utf-8")
    Path(a.out).write_bytes(lzma.compress(raw, preset=9))
    print(f"{a.out}: {len(rows) - 1} segments of {', '.join(DOCS)}, systems {', '.join(SYSTEMS)}; "
          f"{len(raw)} bytes, {Path(a.out).stat().st_size} compressed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
