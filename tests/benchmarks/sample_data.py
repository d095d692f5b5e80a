"""Write docmetrics/data/ (the sample data shipped in the package) from ../shared/data/wmt21_ted_ende.

    python tests/benchmarks/sample_data.py [../shared/data/wmt21_ted_ende] [--out docmetrics/data]

A slice of WMT21 TED en-de (google/wmt-mqm-human-evaluation, Apache-2.0): the first 8 segments of three talks
(talk.1, talk.3, talk.5) and six MT systems, laid out the ways docmetrics reads judged data:

* ``ted/``: src.txt, ref.txt (ref-A), docids.txt, sys/SYSTEM.txt, human_seg.tsv (``--human``: mqm_score per
  segment, higher is better) and mqm.tsv (the raw MQM layout, one line per error, ``<v>`` marks; ``--human``
  reads it with its error spans);
* ``mtme/wmt21.tedtalks/``: an mt-metrics-eval folder (``--mtme docmetrics/data/mtme -t wmt21.tedtalks``), with
  stored chrF and BLEU scores in metric-scores/;
* ``genmt/ted-ende.jsonl``: the slice in the WMT GenMT humeval JSONL layout (``--genmt``), paragraphs of four
  sentences whose human score is the mean MQM score (not an ESA release: none has a licence that allows copying);
* ``stored/scores.tsv``: stored segment scores (sentence chrF and BLEU by sacrebleu), ``--scores``' TSV;
* ``wmt25/automatic_scores/SYSTEM.jsonl``: the same stored scores in WMT25's automatic-scores layout;
  ``wmt25/metrics_testset.tsv``: the slice as the WMT25 metrics task's test TSV (``--wmt25-tsv``);
* ``wmt26/wmt26-genmt.jsonl`` and ``wmt26/systems/SYSTEM.jsonl``: the slice as the WMT26 General MT release lays
  it out (``--wmt26``): one talk a line, its segments as ``<p>`` paragraphs.

The output is byte-identical for the same input.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
csv.field_size_limit(10**9)

DOCS = ("talk.1", "talk.3", "talk.5")
PER_DOC = 8
SYSTEMS = ("Facebook-AI", "Online-W", "VolcTrans-GLAT", "HuaweiTSC", "UEdin", "Nemo")
PARAGRAPH = 4


def _rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        return list(reader.fieldnames or []), list(reader)


def _keep(row: dict[str, str]) -> bool:
    system = row.get("system", row.get("ref_name", "ref-A"))
    pos = row.get("doc_pos")
    return (row.get("doc_id") in DOCS and (pos is None or int(pos) <= PER_DOC)
            and (system in SYSTEMS or system == "ref-A"))


def slice_folder(folder: Path, out: Path) -> None:
    """The slice as a ../shared/data-style folder (what wmt_data.py, mqm_subset.py and mtme_layout.py read)."""
    out.mkdir(parents=True, exist_ok=True)
    for name in ("segments.tsv", "references.tsv", "seg_scores.tsv", "spans.tsv"):
        fields, rows = _rows(folder / name)
        rows = [r for r in rows if _keep(r)]
        _write_tsv(out / name, fields, rows)
    fields, rows = _rows(folder / "docs.tsv")
    _write_tsv(out / "docs.tsv", fields, [dict(r, n_segs=str(PER_DOC), n_rated_segs=str(PER_DOC)) for r in rows
                                          if r["doc_id"] in DOCS])
    _, seg = _rows(out / "seg_scores.tsv")
    by_sys: dict[str, list[float]] = {}
    by_doc: dict[tuple[str, str], list[float]] = {}
    for r in seg:
        by_sys.setdefault(r["system"], []).append(float(r["mqm_score"]))
        by_doc.setdefault((r["system"], r["doc_id"]), []).append(float(r["mqm_score"]))
    _write_tsv(out / "system_scores.tsv", ["system", "mqm_score_mean"],
               [{"system": s, "mqm_score_mean": f"{sum(v) / len(v):.6g}"} for s, v in by_sys.items()])
    _write_tsv(out / "doc_scores.tsv", ["system", "doc_id", "mqm_penalty_mean"],
               [{"system": s, "doc_id": d, "mqm_penalty_mean": f"{-sum(v) / len(v):.6g}"}
                for (s, d), v in by_doc.items()])


def _write_tsv(path: Path, fields: list[str], rows: list[dict[str, str]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("\t".join(fields) + "\n")
        for r in rows:
            f.write("\t".join(r[k] for k in fields) + "\n")


def raw_mqm(part: Path) -> list[str]:
    """The slice's MQM ratings as google's raw TSV lays them out: one line per error, the span marked <v>."""
    _, segs = _rows(part / "segments.tsv")
    text = {(r["system"], r["doc_id"], r["doc_pos"]): r for r in segs}
    lines = ["system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"]
    _, spans = _rows(part / "spans.tsv")
    for r in spans:
        seg = text[(r["system"], r["doc_id"], r["doc_pos"])]
        hyp = seg["hypothesis"]
        if r["start"] and r["end"]:
            a, b = int(r["start"]), int(r["end"])
            hyp = hyp[:a] + "<v>" + hyp[a:b] + "</v>" + hyp[b:]
        severity = {"no-error": "no-error", "minor": "Minor", "major": "Major"}.get(r["severity"], r["severity"])
        category = r["category"] or "No-error"
        lines.append("\t".join((r["system"], r["doc_id"], r["doc_pos"], r["seg_id"], r["rater"], seg["source"], hyp,
                                category, severity)))
    return lines


def stored_scores(data: dict) -> dict[str, dict[str, list[float]]]:
    """system -> metric -> segment scores: sacrebleu's sentence chrF and BLEU against ref-A."""
    from sacrebleu.metrics import BLEU, CHRF

    bleu, chrf = BLEU(effective_order=True), CHRF()
    out = {}
    for s in SYSTEMS:
        hyps = data["systems"][s]
        out[s] = {"chrF": [round(chrf.sentence_score(h, [r]).score, 4) for h, r in zip(hyps, data["ref"])],
                  "BLEU": [round(bleu.sentence_score(h, [r]).score, 4) for h, r in zip(hyps, data["ref"])]}
    return out


def genmt(part: Path) -> list[str]:
    _, segs = _rows(part / "segments.tsv")
    _, seg_scores = _rows(part / "seg_scores.tsv")
    _, refs = _rows(part / "references.tsv")
    score = {(r["system"], r["doc_id"], int(r["doc_pos"])): float(r["mqm_score"]) for r in seg_scores}
    ref = {(r["doc_id"], int(r["doc_pos"])): r["reference"] for r in refs}
    text = {(r["system"], r["doc_id"], int(r["doc_pos"])): r for r in segs}
    _, span_rows = _rows(part / "spans.tsv")
    spans: dict[tuple[str, str, int], list[tuple[int, int, str]]] = {}
    for r in span_rows:
        if r["start"] and r["severity"] in ("minor", "major"):
            key = (r["system"], r["doc_id"], int(r["doc_pos"]))
            spans.setdefault(key, []).append((int(r["start"]), int(r["end"]), r["severity"]))

    def errors(system: str, doc: str, block: range) -> list[dict]:
        found, offset = [], 0
        for p in block:  # each sentence's spans, shifted to where it starts in the joined paragraph
            for a, b, severity in spans.get((system, doc, p), []):
                found.append({"start_i": offset + a, "end_i": offset + b, "severity": severity})
            offset += len(text[(system, doc, p)]["hypothesis"]) + 1
        return found

    out = []
    for doc in DOCS:
        for k in range(0, PER_DOC, PARAGRAPH):
            block = range(k + 1, k + PARAGRAPH + 1)
            row = {"doc_id": f"en-de_DE_#_ted_#_{doc}_#_{k // PARAGRAPH}",
                   "src_text": " ".join(text[(SYSTEMS[0], doc, p)]["source"] for p in block),
                   "tgt_text": {**{s: " ".join(text[(s, doc, p)]["hypothesis"] for p in block) for s in SYSTEMS},
                                "refA": " ".join(ref[(doc, p)] for p in block)},
                   "scores": {s: {"human": round(sum(score[(s, doc, p)] for p in block) / PARAGRAPH, 4),
                                  "errors": errors(s, doc, block), "protocol": "MQM"}
                              for s in SYSTEMS}}
            out.append(json.dumps(row, ensure_ascii=False))
    return out


def write_genmt_extras(folder: Path) -> None:
    """Beside the GenMT file: stored chrF and BLEU of its paragraphs (scores.tsv, ``--scores``) and span
    predictions (predicted-spans.jsonl, ``--spans``): the humans' own spans for every system but Nemo's, none."""
    from sacrebleu.metrics import BLEU, CHRF

    bleu, chrf = BLEU(effective_order=True), CHRF()
    rows = [json.loads(x) for x in (folder / "ted-ende.jsonl").read_text(encoding="utf-8").splitlines()]
    scores, spans, seen = ["system\tdoc_id\tchrF\tBLEU"], [], {}
    for s in SYSTEMS:
        for row in rows:
            doc = row["doc_id"].rsplit("_#_", 1)[0]  # the document as the GenMT reader names it
            hyp, ref = row["tgt_text"][s], row["tgt_text"]["refA"]
            scores.append(f"{s}\t{doc}\t{round(chrf.sentence_score(hyp, [ref]).score, 4)}\t"
                          f"{round(bleu.sentence_score(hyp, [ref]).score, 4)}")
    for row in rows:
        doc = row["doc_id"].rsplit("_#_", 1)[0]
        seen[doc] = seen.get(doc, 0) + 1
        for s in SYSTEMS:
            errors = [] if s == "Nemo" else row["scores"][s]["errors"]
            spans.append(json.dumps({"system": s, "doc_id": row["doc_id"], "segment": seen[doc], "errors": errors}))
    (folder / "scores.tsv").write_text("\n".join(scores) + "\n", encoding="utf-8")
    (folder / "predicted-spans.jsonl").write_text("\n".join(spans) + "\n", encoding="utf-8")


def write_wmt25_tsv(data: dict, path: Path) -> None:
    """The WMT25 metrics task's test TSV (docmetrics.formats.wmt25_tsv.TSV_FIELDS), official set, one pair."""
    from docmetrics.formats.wmt25_tsv import TSV_FIELDS

    rows = ["\t".join(TSV_FIELDS)]
    for s in SYSTEMS:
        for i, (doc, src, hyp, ref) in enumerate(zip(data["doc_ids"], data["src"], data["systems"][s], data["ref"])):
            rows.append("\t".join((doc, str(i + 1), "en", "de_DE", "official", s, src, hyp, ref, "ted", "")))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def write_wmt26(data: dict, folder: Path) -> None:
    """The WMT26 General MT release's layout: the test file (one talk a line) and one file per system."""
    (folder / "systems").mkdir(parents=True, exist_ok=True)

    def paragraphs(lines: list[str]) -> str:
        return "".join(f"<p>{x.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')}</p>" for x in lines)

    docs = list(dict.fromkeys(data["doc_ids"]))
    at = {d: [i for i, x in enumerate(data["doc_ids"]) if x == d] for d in docs}
    test = []
    for d in docs:
        test.append(json.dumps({"doc_id": f"wmt26_###_ted_###_eng_Latn_###_deu_Latn_###_{d}", "domain": "ted",
                                "src_lang": "eng_Latn", "tgt_lang": "deu_Latn",
                                "src_text": paragraphs([data["src"][i] for i in at[d]]),
                                "refs": {"refA": paragraphs([data["ref"][i] for i in at[d]])},
                                "prompt_instruction": None, "multimodal_instruction": None,
                                "evaluation_instruction": None}, ensure_ascii=False))
    (folder / "wmt26-genmt.jsonl").write_text("\n".join(test) + "\n", encoding="utf-8")
    for s in SYSTEMS:
        lines = [json.dumps({"doc_id": f"wmt26_###_ted_###_eng_Latn_###_deu_Latn_###_{d}",
                             "hypothesis": paragraphs([data["systems"][s][i] for i in at[d]]), "metadata": {}},
                            ensure_ascii=False) for d in docs]
        (folder / "systems" / f"{s}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default=str(HERE.parents[2] / "shared" / "data" / "wmt21_ted_ende"))
    ap.add_argument("--out", default=str(HERE.parents[1] / "docmetrics" / "data"))
    a = ap.parse_args(argv)
    folder, out = Path(a.folder), Path(a.out)
    if not (folder / "segments.tsv").exists():
        print(f"{folder}: no segments.tsv (is ../shared/data there?)", file=sys.stderr)
        return 2
    import mqm_subset
    import mtme_layout
    import wmt_data

    with tempfile.TemporaryDirectory() as tmp:
        part = Path(tmp) / "wmt21_ted_ende"
        slice_folder(folder, part)
        for name in ("ted", "mtme", "genmt", "stored", "wmt25", "wmt26"):
            shutil.rmtree(out / name, ignore_errors=True)
        mqm_subset.write(part, out / "ted")
        (out / "ted" / "mqm.tsv").write_text("\n".join(raw_mqm(part)) + "\n", encoding="utf-8")
        data = wmt_data.load(part)
        mtme_layout.layout(part, out / "mtme")
        scores = stored_scores(data)
        lp_dir = out / "mtme" / "wmt21.tedtalks" / "metric-scores" / "en-de"
        lp_dir.mkdir(parents=True, exist_ok=True)
        for metric in ("chrF", "BLEU"):
            (lp_dir / f"{metric}-refA.seg.score").write_text(
                "".join(f"{s}\t{v}\n" for s in SYSTEMS for v in scores[s][metric]), encoding="utf-8")
        (out / "genmt").mkdir(parents=True)
        (out / "genmt" / "ted-ende.jsonl").write_text("\n".join(genmt(part)) + "\n", encoding="utf-8")
        (out / "stored").mkdir(parents=True)
        rows = ["system\tdoc_id\tchrF\tBLEU"]
        for s in SYSTEMS:
            rows += [f"{s}\t{d}\t{c}\t{b}" for d, c, b in zip(data["doc_ids"], scores[s]["chrF"], scores[s]["BLEU"])]
        (out / "stored" / "scores.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
        auto = out / "wmt25" / "automatic_scores"
        auto.mkdir(parents=True)
        for s in SYSTEMS:
            lines = []
            for doc in DOCS:
                idx = [i for i, d in enumerate(data["doc_ids"]) if d == doc]
                lines.append(json.dumps({"language_pair": "en-de_DE", "domain": "ted", "document_id": doc,
                                         "metric_scores": {m: [scores[s][m][i] for i in idx] for m in ("chrF", "BLEU")}}))
            (auto / f"{s}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        write_wmt25_tsv(data, out / "wmt25" / "metrics_testset.tsv")
        write_genmt_extras(out / "genmt")
        write_wmt26(data, out / "wmt26")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
