"""The README's screenshots of the report: WMT21 TED en-de from ../shared/data, doc-bertscore on MiniLM and chrF
against the MQM segment scores, with the MQM error spans of spans.tsv; one PNG per view.

    python tests/benchmarks/report_screenshots.py ../shared/data/wmt21_ted_ende docs/report
    python tests/benchmarks/report_screenshots.py ../shared/data/wmt24_esa/wmt24-esa-encs-enhi.jsonl --lp en-cs OUT

lays the data out as input files (wmt_data.py), scores both metrics once at --level chunk and once against
the humans (--human seg_scores.tsv --human-column mqm_score --seg-level; the second run takes the scores from
a score cache in the work folder), rebuilds the page with ``docmetrics report ... --spans-tsv spans.tsv`` and
photographs overview.png, documents.png, document.png and judging.png in headless Chromium (the DevTools client
of tests/test_report_browser.py, which runs this too when DOCMETRICS_SCREENSHOTS is set and the data is here).
With a GenMT JSONL and --lp: chrF and BLEU against its ESA scores (``--genmt``), and the measures of issue 48's
Done-when (document-id column width, median row height, page size, scatter labels) printed as JSON first.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import wmt_data  # noqa: E402

METRICS = ["doc-bertscore:model=minilm", "chrf"]
#: The views and the page's hash that opens each; the document: one with MQM spans in its first segments.
VIEWS = {"overview": "overview", "documents": "documents", "document": "doc=talk.4", "judging": "judging"}


def cli(*argv: object) -> None:
    from docmetrics.cli import main

    code = main([str(a) for a in argv])
    if code:
        raise SystemExit(f"docmetrics {' '.join(map(str, argv))}: exit {code}")


def build_page(data: Path, work: Path, cache: Path | None = None) -> Path:
    """The report page of the README's screenshots, written in ``work`` (the commands run there, so that
    the page shows short paths: ``sys/NAME`` for each system, named as in the MQM files, ``wmt21_ted_ende/``
    for ``data``)."""
    wmt_data.write(data, work)
    for path in sorted((work / "sys").glob("*.txt")):
        path.rename(path.with_suffix(""))
    (work / data.name).symlink_to(data.resolve())
    here = os.getcwd()
    os.chdir(work)
    try:
        systems = sorted(str(p.relative_to(work)) for p in (work / "sys").iterdir())
        inputs = ["-i", *systems, "-s", "src.txt", "-r", "ref.txt", "--doc-ids", "docids.txt"]
        human = ["--human", f"{data.name}/seg_scores.tsv", "--human-column", "mqm_score"]
        kept = ["--cache", cache or work / "scores.sqlite", "-q"]
        cli("-m", *METRICS, *inputs, "--level", "chunk", "-f", "json", "-o", "scores.json", *kept)
        cli("-m", *METRICS, *inputs, *human, "--seg-level", "--doc-level", "mean", "-f", "json", "-o", "human.json",
            *kept)
        cli("report", "scores.json", "human.json", "-o", "report.html", *inputs, *human, "--spans-tsv",
            f"{data.name}/spans.tsv", "--title", "WMT21 TED en-de: doc-bertscore (MiniLM) and chrF against MQM", "-q")
    finally:
        os.chdir(here)
    return work / "report.html"


def genmt_page(jsonl: Path, lp: str, work: Path) -> Path:
    """The page of ``docmetrics -m chrf bleu --genmt JSONL -l LP --report`` (WMT's own humeval JSONL, e.g.
    ../shared/data/wmt24_esa), run in ``work`` on a link to the file, so that the page names it as typed."""
    (work / jsonl.name).symlink_to(jsonl.resolve())
    here = os.getcwd()
    os.chdir(work)
    try:
        cli("-m", "chrf", "bleu", "--genmt", jsonl.name, "-l", lp, "--report", "report.html", "-q")
    finally:
        os.chdir(here)
    return work / "report.html"


def measure(browser, page: Path) -> dict[str, float]:
    """What the issue's Done-when asks of the documents view and the page: the narrowest document-id cell and the
    median row height (px, at the browser's width), the page's size (MB), and per scatter plot whether it names
    every system and states r."""
    import statistics

    browser.open(page.resolve().as_uri() + "#documents")
    browser.wait("document.querySelector('#documents table.docs tbody tr')")
    widths = browser.js("[...document.querySelectorAll('#documents table.docs tbody th')].map(t => "
                        "t.getBoundingClientRect().width)")
    heights = browser.js("[...document.querySelectorAll('#documents table.docs tbody tr')].map(t => "
                         "t.getBoundingClientRect().height)")
    browser.js("location.hash = 'judging'")
    browser.wait("document.querySelector('#judging figure')")
    figs = browser.js("[...document.querySelectorAll('#judging figure.scatter-fig')].map(f => [[...f.querySelectorAll("
                      "'g.point')].length, [...f.querySelectorAll('text.label:not(.num)')].length + [...f.querySelectorAll("
                      "'.legend-list li')].length, f.querySelector('figcaption').textContent.includes('r = ')])")
    text = browser.js("document.body.innerText + [...document.querySelectorAll('.view')].map(v => v.textContent).join()")
    return {"id_column_px": round(min(widths), 1), "median_row_px": round(statistics.median(heights), 1),
            "page_mb": round(page.stat().st_size / 1e6, 2),
            "scatters": [{"points": f[0], "named": f[1], "states_r": f[2]} for f in figs],
            "inner_names": [x for x in ("this command's output", "(human) (human)") if x in text]}


def screenshots(browser, page: Path, out: Path, width: int = 1600, height: int = 1000,
                views: dict[str, str] = VIEWS) -> list[Path]:
    """One PNG per view of ``page`` in ``out`` (``browser``: test_report_browser.Browser)."""
    browser.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                 deviceScaleFactor=1, mobile=False)
    url = page.resolve().as_uri()
    browser.open(url + "#overview")
    written = []
    for name, view in views.items():
        browser.js(f"location.hash = {json.dumps(view)}")
        browser.wait("document.querySelector('.view.active .body').childElementCount > 0")
        browser.js("window.scrollTo(0, 0)")
        if name == "document":  # the segments, with their error spans, below the sticky header
            browser.js("window.scrollTo(0, document.querySelector('#segments').getBoundingClientRect().top - 130)")
        if name == "judging" and browser.js("!!document.querySelector('#judging .system-scatter')"):  # the scatters
            browser.js("window.scrollTo(0, document.querySelector('#judging .system-scatter').getBoundingClientRect()"
                       ".top - 500)")
        path = out / f"{name}.png"
        browser.screenshot(path)
        written.append(path)
    problems = browser.problems(url)
    if problems:
        raise AssertionError(f"{page}: {problems}")
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path, help="../shared/data/wmt21_ted_ende, or a GenMT humeval JSONL with --lp")
    ap.add_argument("--lp", help="with a JSONL: its language pair (chrF and BLEU against its ESA scores); prints the "
                                 "measures of the issue's Done-when as JSON")
    ap.add_argument("out", type=Path, help="where the PNGs go (docs/report)")
    ap.add_argument("--keep", type=Path, help="also keep the page and its inputs in this folder")
    ap.add_argument("--cache", type=Path, help="a score cache to keep between runs (default: none kept)")
    a = ap.parse_args(argv)
    from test_report_browser import Browser

    work = Path(tempfile.mkdtemp(prefix="docmetrics-screenshots-"))
    browser = Browser()
    try:
        if a.lp:
            page = genmt_page(a.data, a.lp, work)
            print(json.dumps(measure(browser, page)))
            views = dict(VIEWS, document="document")
        else:
            page, views = build_page(a.data, work, a.cache.resolve() if a.cache else None), VIEWS
        for path in screenshots(browser, page, a.out, views=views):
            print(path)
        if a.keep:
            shutil.copytree(work, a.keep, dirs_exist_ok=True, symlinks=True)
    finally:
        browser.close()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
