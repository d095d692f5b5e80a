"""Lay a ../shared/data/<set>/ folder (MQM-judged WMT data) out as an mt-metrics-eval (MTME) directory.

    python tests/benchmarks/mtme_layout.py ../shared/data/wmt21_ted_ende ROOT [--testset NAME] [--lp LP]

writes, under ROOT/TESTSET (default test set and language pair from the folder's name:
wmt21_ted_ende -> wmt21.tedtalks en-de, wmt23_sxs_ende -> wmt23.sxs en-de):

* sources/LP.txt and documents/LP.docs (``DOMAIN DOCNAME``; the domain is the test set's last part),
  segments in document order (docs.tsv) and in document position;
* references/LP.refA.txt and system-outputs/LP/SYS.txt for every system rated, the human one included
  (MTME names have no '-': ref-A becomes refA, the name it has as a system too);
* human-scores/LP.mqm.{seg,doc,sys}.score: ``mqm_score`` (the negated MQM penalty: higher is better;
  ``None`` where a segment was not rated), the documents' mean, the published system means; and, where the
  folder has them, the Marot-weighted scores as LP.mqm.marot.{seg,sys}.score.

Then: ``docmetrics -m SPEC... --mtme ROOT -t TESTSET -l LP``.  Importable: ``layout(folder, root)``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

csv.field_size_limit(10**9)

#: folder name -> (MTME test set, language pair)
KNOWN = {"wmt21_ted_ende": ("wmt21.tedtalks", "en-de"), "wmt23_sxs_ende": ("wmt23.sxs", "en-de")}


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")


def mtme_name(system: str) -> str:
    """A system or reference name as MTME writes it (no '-' in reference names)."""
    return system.replace("-", "") if system.startswith("ref-") else system


def _score(text: str, negate: bool = False) -> str:
    if text in ("", "NA", "None"):
        return "None"
    value = float(text)
    return repr(-value if negate else value)


def names(folder: str | Path, testset: str | None = None, lp: str | None = None) -> tuple[str, str]:
    """The MTME test set and language pair of a folder (given ones win)."""
    default_ts, default_lp = KNOWN.get(Path(folder).name, (Path(folder).name, "en-de"))
    return testset or default_ts, lp or default_lp


def layout(folder: str | Path, root: str | Path, testset: str | None = None, lp: str | None = None) -> Path:
    """Write ``root/testset`` from ``folder``; returns ``root``."""
    folder, root = Path(folder), Path(root)
    testset, lp = names(folder, testset, lp)
    doc_order = {r["doc_id"]: int(r["doc_order"]) for r in _rows(folder / "docs.tsv")}

    def key(r: dict[str, str]) -> tuple[int, int]:
        return doc_order[r["doc_id"]], int(r["doc_pos"])

    segs = sorted(_rows(folder / "segments.tsv"), key=key)
    systems = sorted({mtme_name(r["system"]) for r in segs})
    by_sys: dict[str, list[dict[str, str]]] = {s: [] for s in systems}
    for r in segs:
        by_sys[mtme_name(r["system"])].append(r)
    first = by_sys[systems[0]]
    keys = [key(r) for r in first]
    for s, rows in by_sys.items():
        if [key(r) for r in rows] != keys:
            raise SystemExit(f"{folder}/segments.tsv: system {s} does not cover the same segments")
    d = root / testset
    domain = testset.split(".")[-1]
    _write(d / "sources" / f"{lp}.txt", [r["source"] for r in first])
    _write(d / "documents" / f"{lp}.docs", [f"{domain} {r['doc_id']}" for r in first])
    refs: dict[str, dict[tuple[int, int], str]] = {}
    for r in _rows(folder / "references.tsv"):
        refs.setdefault(mtme_name(r["ref_name"]), {})[key(r)] = r["reference"]
    for name, text in refs.items():
        _write(d / "references" / f"{lp}.{name}.txt", [text[k] for k in keys])
    for s in systems:
        _write(d / "system-outputs" / lp / f"{s}.txt", [r["hypothesis"] for r in by_sys[s]])

    pos = {k: i for i, k in enumerate(keys)}
    seg_id_to_pos = {r["seg_id"]: i for i, r in enumerate(first)}
    seg: dict[str, list[str]] = {s: ["None"] * len(keys) for s in systems}
    for r in _rows(folder / "seg_scores.tsv"):
        seg[mtme_name(r["system"])][pos[key(r)]] = _score(r["mqm_score"])
    hs = d / "human-scores"
    _write(hs / f"{lp}.mqm.seg.score", [f"{s}\t{v}" for s in systems for v in seg[s]])
    docs = sorted(doc_order, key=doc_order.get)  # type: ignore[arg-type]
    doc: dict[str, dict[str, str]] = {s: {} for s in systems}
    for r in _rows(folder / "doc_scores.tsv"):
        doc[mtme_name(r["system"])][r["doc_id"]] = _score(r["mqm_penalty_mean"], negate=True)
    _write(hs / f"{lp}.mqm.doc.score", [f"{s}\t{doc[s].get(x, 'None')}" for s in systems for x in docs])
    _write(hs / f"{lp}.mqm.sys.score",
           [f"{mtme_name(r['system'])}\t{_score(r['mqm_score_mean'])}" for r in _rows(folder / "system_scores.tsv")])
    if (folder / "seg_scores_marot.tsv").exists():
        marot: dict[str, list[str]] = {s: ["None"] * len(keys) for s in systems}
        for r in _rows(folder / "seg_scores_marot.tsv"):
            marot[mtme_name(r["system"])][seg_id_to_pos[r["seg_id"]]] = _score(r["mqm_penalty_marot"], negate=True)
        _write(hs / f"{lp}.mqm.marot.seg.score", [f"{s}\t{v}" for s in systems for v in marot[s]])
        _write(hs / f"{lp}.mqm.marot.sys.score",
               [f"{mtme_name(r['system'])}\t{_score(r['mqm_penalty_mean_marot'], negate=True)}"
                for r in _rows(folder / "system_scores_marot.tsv")])
    return root


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", help="e.g. ../shared/data/wmt21_ted_ende")
    p.add_argument("root", help="the MTME root to write (ROOT/TESTSET/...)")
    p.add_argument("--testset", help="the test set's name (default: from the folder's name)")
    p.add_argument("--lp", help="the language pair (default: from the folder's name)")
    args = p.parse_args(argv)
    root = layout(args.folder, args.root, args.testset, args.lp)
    ts, lp = names(args.folder, args.testset, args.lp)
    print(f"{root / ts}: docmetrics -m SPEC... --mtme {root} -t {ts} -l {lp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
