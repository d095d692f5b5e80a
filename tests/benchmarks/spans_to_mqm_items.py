"""Turn a metric's per-segment error spans (``docmetrics ... --level seg -f json`` on files laid out by
``wmt_data.py`` from ../shared/data/wmt21_ted_ende) into a ``--spans`` predictions file keyed as the raw MQM
file names its items (``doc``, ``seg_id``), so a model's spans are judged against the MQM spans:

    python tests/benchmarks/wmt_data.py ../shared/data/wmt21_ted_ende /tmp/ted
    docmetrics -q -m xcomet:model=DIR -i /tmp/ted/sys/*.txt -s /tmp/ted/src.txt -r /tmp/ted/ref.txt \\
        --doc-ids /tmp/ted/docids.txt --level seg -f json > spans.json
    python tests/benchmarks/spans_to_mqm_items.py spans.json ../shared/data/wmt21_ted_ende /tmp/ted > pred.jsonl
    docmetrics --human mqm_ted_ende.tsv --spans pred.jsonl     # the raw file of google/wmt-mqm-human-evaluation

Each line of a system's input file must be the hypothesis of segments.tsv at the same place (checked).
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

csv.field_size_limit(10**9)


def main(results: str, shared: str, laid_out: str) -> int:
    with open(Path(shared) / "segments.tsv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    by_system: dict[str, list[dict[str, str]]] = {}
    for r in rows:
        by_system.setdefault(r["system"], []).append(r)
    for r in json.loads(Path(results).read_text(encoding="utf-8")):
        system = Path(r["system"]).stem
        segments = by_system[system]
        lines = (Path(laid_out) / "sys" / f"{system}.txt").read_text(encoding="utf-8").split("\n")[:-1]
        if [s["hypothesis"] for s in segments] != lines:
            raise SystemExit(f"{system}: the input lines are not segments.tsv's hypotheses in order")
        for u in r["units"]:
            s = segments[u["start"]]
            errors = [{"start_i": x["start"], "end_i": x["end"], "severity": x["severity"]} for x in u.get("spans", [])]
            print(json.dumps({"system": system, "doc": s["doc_id"], "seg_id": s["seg_id"], "errors": errors},
                             ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
