"""The report's size and load time for a WMT-sized run: 30 systems x 2,000 segments (100 documents of 20) x 3
metrics on toy data (chrF, BLEU and TER, no model), as the README states them.

    python tests/benchmarks/bench_report.py [--systems 30 --segments 2000 --metrics chrf bleu ter]
    python tests/benchmarks/bench_report.py --systems 30 --documents 2000     # the generated page, no scoring

writes the toy test set to a temporary folder, runs ``docmetrics -m ... --report page.html`` (every result's
documents and units go into the page, with the texts), then opens the page in headless Chromium (the DevTools
client of tests/test_report_browser.py) and times: the load until the page has drawn its first view, then the
Documents view, a document and the Judging view (hash changes), and a sort of the documents table; and the
first contentful paint by the browser's clock.  Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

WORDS = ("der die das und ist nicht ein eine zu mit auf für von dem den Haus Zeit Welt Jahr Mensch Stadt Arbeit "
         "Frage Beispiel Geschichte gut neu groß klein alt schnell heute immer wieder schon auch noch").split()


def write_testset(folder: Path, systems: int, segments: int, doc_size: int = 20, seed: int = 1) -> list[str]:
    rng = random.Random(seed)

    def sentence() -> list[str]:
        return [rng.choice(WORDS) for _ in range(rng.randint(8, 24))]

    ref = [sentence() for _ in range(segments)]
    (folder / "ref.txt").write_text("".join(" ".join(s) + ".\n" for s in ref), encoding="utf-8")
    (folder / "src.txt").write_text("".join(" ".join(reversed(s)) + ".\n" for s in ref), encoding="utf-8")
    (folder / "ids.txt").write_text("".join(f"doc{k // doc_size:04d}\n" for k in range(segments)), encoding="utf-8")
    (folder / "sys").mkdir()
    names = []
    for n in range(systems):
        noise = 0.05 + 0.4 * n / max(1, systems - 1)
        lines = [" ".join(w if rng.random() > noise else rng.choice(WORDS) for w in s) + ".\n" for s in ref]
        path = folder / "sys" / f"system{n:02d}.txt"
        path.write_text("".join(lines), encoding="utf-8")
        names.append(str(path))
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", type=int, default=30)
    ap.add_argument("--segments", type=int, default=2000)
    ap.add_argument("--metrics", nargs="+", default=["chrf", "bleu", "ter"])
    ap.add_argument("--keep", type=Path, help="also keep the page here")
    ap.add_argument("--documents", type=int, help="instead of scoring: the generated page of tests/report_data.py "
                                                  "(--systems systems x this many documents of 2-6 segments, chrF- "
                                                  "and BLEU-like scores, ESA-like human scores and spans)")
    a = ap.parse_args(argv)
    from test_report_browser import Browser

    from docmetrics.cli import main as cli

    work = Path(tempfile.mkdtemp(prefix="docmetrics-bench-report-"))
    try:
        page = work / "page.html"
        t0 = time.perf_counter()
        if a.documents:
            from report_data import page_data

            from docmetrics.report import write

            data = page_data(a.systems, a.documents)
            write(page, data)
            out = {"systems": a.systems, "documents": a.documents, "segments": len(data["texts"]["source"]),
                   "metrics": ["chrf", "bleu"], "generated": True, "write_s": round(time.perf_counter() - t0, 1)}
            first_doc = data["texts"]["documents"][a.documents // 2][0]
        else:
            systems = write_testset(work, a.systems, a.segments)
            code = cli(["-m", *a.metrics, "-i", *systems, "-s", str(work / "src.txt"), "-r", str(work / "ref.txt"),
                        "--doc-ids", str(work / "ids.txt"), "-q", "-f", "json", "-o", str(work / "scores.json"),
                        "--report", str(page)])
            if code:
                raise SystemExit(f"docmetrics exit {code}")
            out = {"systems": a.systems, "segments": a.segments, "metrics": a.metrics,
                   "command_s": round(time.perf_counter() - t0, 1)}
            first_doc = "doc0050"
        out["page_bytes"] = page.stat().st_size
        browser = Browser()
        try:
            url = page.resolve().as_uri()
            t0 = time.perf_counter()
            browser.call("Page.navigate", session=True, url=url + "#overview")
            browser.wait("document.documentElement.getAttribute('data-ready') === '1'", timeout=120)
            out["load_s"] = round(time.perf_counter() - t0, 2)
            # the browser's own clock, from the navigation's start: first contentful paint, and the page drawn
            out["first_paint_s"] = browser.js("(() => { const p = performance.getEntriesByName('first-contentful-paint')[0]; "
                                              "return p ? Math.round(p.startTime) / 1000 : null; })()")
            for name, hash_, ready in (
                    ("documents_s", "documents", "#documents.active table.docs tbody tr"),
                    ("document_s", "doc=" + first_doc, "#document.active #segments tbody tr"),
                    ("judging_s", "judging", "#judging.active .body > *")):
                t0 = time.perf_counter()
                browser.js(f"location.hash = {json.dumps(hash_)}")
                browser.wait(f"document.querySelector({json.dumps(ready)})", timeout=60)
                out[name] = round(time.perf_counter() - t0, 2)
            browser.js("location.hash = 'documents'")
            t0 = time.perf_counter()
            browser.js("[...document.querySelectorAll('#documents table.docs th button')][2].click()")
            out["sort_s"] = round(time.perf_counter() - t0, 2)
            out["problems"] = browser.problems(url)
        finally:
            browser.close()
        if a.keep:
            shutil.copy(page, a.keep)
        print(json.dumps(out))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
