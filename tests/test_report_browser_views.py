"""The report's views on data of realistic size, in Debian's headless Chromium (the DevTools client of
tests/test_report_browser.py): a generated set of 30 systems x 500 documents (tests/report_data.py, deterministic)
and the shipped slice (``--genmt docmetrics/data/genmt/ted-ende.jsonl``).  The assertions are on what is laid out
(widths, row heights, labels that do not overlap, the text on screen), each checked against an independent
computation in Python where the page computes something (ranks, r, Kendall's tau).  Page size and load time are
the benchmark's (tests/benchmarks/bench_report.py), not a test's."""

from __future__ import annotations

import itertools
import json
import os
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from cli_fixtures import run_cli
from report_data import kendall, page_data, pearson
from test_report_browser import CHROMIUM, Browser

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM}")

ROOT = Path(__file__).resolve().parents[1]
INNER = ("this command's output", "(human) (human)")
#: the generated page of 30 systems x 500 documents holds 2,000-odd segments of texts and unit scores per system
BIG_PAGE_MB = 10


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, dict[str, Any]]:
    from docmetrics.report import write

    data = page_data(30, 500)
    path = tmp_path_factory.mktemp("report-views") / "big.html"
    write(path, data)
    return path, data


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> Path:
    class Quiet:
        def readouterr(self) -> tuple[str, str]:
            return "", ""

    path = tmp_path_factory.mktemp("report-shipped") / "slice.html"
    code, _, _ = run_cli(Quiet(), "-m", "chrf", "bleu", "--genmt", ROOT / "docmetrics/data/genmt/ted-ende.jsonl",
                         "-l", "en-de", "--error-free", "-q", "--report", path)
    assert code == 0
    return path


@pytest.fixture(scope="module")
def ted(tmp_path_factory) -> Path:
    """The shipped slice scored from its files against its MQM segment scores (a human column named "score")."""
    class Quiet:
        def readouterr(self) -> tuple[str, str]:
            return "", ""

    data = ROOT / "docmetrics" / "data" / "ted"
    path = tmp_path_factory.mktemp("report-ted") / "ted.html"
    code, _, _ = run_cli(Quiet(), "-m", "chrf", "bleu", "-i", *sorted((data / "sys").glob("*.txt")), "-r",
                         data / "ref.txt", "--doc-ids", data / "docids.txt", "--human", data / "human_seg.tsv",
                         "--seg-level", "-q", "--report", path)
    assert code == 0
    return path


@pytest.fixture(scope="module")
def browser():
    b = Browser(1280, 900)
    yield b
    b.close()


def show(b: Browser, path: Path, view: str) -> None:
    b.events.clear()
    b.open(path.resolve().as_uri() + "#" + view)
    b.wait("document.querySelector('.view.active .body').childElementCount > 0")


def box(b: Browser, selector: str) -> dict[str, float]:
    return b.js(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect(); "
                "return {left: r.left, top: r.top, width: r.width, height: r.height}; })()")


def doc_column(b: Browser) -> list[str]:
    return b.js("[...document.querySelectorAll('#documents table.docs tbody th')].map(t => t.textContent)")


# -- Documents ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("width", [1280, 800])
def test_the_documents_table_at_30_systems_keeps_ids_readable_and_rows_short(browser, big, width):
    b = browser
    b.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=900, deviceScaleFactor=1,
           mobile=False)
    try:
        show(b, big[0], "documents")
        b.wait("document.querySelector('#documents table.docs tbody tr')")
        widths = b.js("[...document.querySelectorAll('#documents table.docs tbody th')].map(t => "
                      "t.getBoundingClientRect().width)")
        heights = b.js("[...document.querySelectorAll('#documents table.docs tbody tr')].map(t => "
                       "t.getBoundingClientRect().height)")
        assert len(widths) == 100 and min(widths) >= 80
        assert statistics.median(heights) <= 60
        assert b.js("document.querySelectorAll('#documents table.docs thead th').length") >= 32  # id, position, 30
        # an id cut by the column's width says so (ellipsis) and shows the whole id on hover
        cell = b.js("(() => { const t = document.querySelector('#documents table.docs tbody th'); const a = "
                    "t.querySelector('a'); return [t.title, a.textContent, getComputedStyle(a).textOverflow, "
                    "decodeURIComponent(a.hash.slice(5))]; })()")
        assert cell[0] == cell[1] == cell[3] and cell[2] == "ellipsis"
        assert b.problems(big[0].resolve().as_uri()) == []
    finally:
        b.call("Emulation.setDeviceMetricsOverride", session=True, width=1280, height=900, deviceScaleFactor=1,
               mobile=False)


def test_header_and_id_column_stay_in_view_when_the_table_scrolls(browser, big):
    b = browser
    show(b, big[0], "documents")
    b.wait("document.querySelector('#documents table.docs tbody tr')")
    scroller = "#documents .paged .scroll"
    before = box(b, scroller)
    b.js(f"document.querySelector({json.dumps(scroller)}).scrollTo(900, 600)")
    b.wait(f"document.querySelector({json.dumps(scroller)}).scrollTop > 0")
    assert b.js(f"document.querySelector({json.dumps(scroller)}).scrollLeft") > 0
    head = box(b, "#documents table.docs thead th:nth-child(3)")
    assert abs(head["top"] - before["top"]) <= 2  # the header row is still at the box's top
    first = b.js("(() => { const box = document.querySelector('#documents .paged .scroll').getBoundingClientRect(); "
                 "const th = [...document.querySelectorAll('#documents table.docs tbody th')].find(t => { "
                 "const r = t.getBoundingClientRect(); return r.top > box.top + 40 && r.bottom < box.bottom; }); "
                 "return th.getBoundingClientRect().left - box.left; })()")
    assert abs(first) <= 2  # an id cell of a row in view is still at the box's left edge


def test_sort_filter_pages_and_the_pair_compared(browser, big):
    b = browser
    path, data = big
    show(b, path, "documents")
    b.wait("document.querySelector('#documents table.docs tbody tr')")
    assert "of 500" in b.js("document.querySelector('#documents .pager').textContent")
    systems = data["human"]["ranking"]["systems"]
    name = systems[5]["system"]
    header = (f"[...document.querySelectorAll('#documents table.docs thead th')].find(t => t.textContent === "
              f"{json.dumps(name)})")
    b.js(f"{header}.querySelector('button').click()")
    scores = {d[0]: d[1] for r in data["results"] if r["system"] == name and r["spec"] == "chrf" for d in r["docs"]}
    want = sorted(scores, key=scores.__getitem__, reverse=True)[:100]
    assert doc_column(b) == want and b.js(f"{header}.getAttribute('aria-sort')") == "descending"
    b.js("[...document.querySelectorAll('#documents .pager button')].find(x => x.textContent.startsWith('next'))"
         ".click()")
    assert doc_column(b) == sorted(scores, key=scores.__getitem__, reverse=True)[100:200]
    b.js("const f = document.querySelector('#documents input[type=search]'); f.value = 'speech_01'; "
         "f.dispatchEvent(new Event('input'))")
    shown = doc_column(b)
    assert shown == [d for d in sorted(scores, key=scores.__getitem__, reverse=True) if "speech_01" in d]
    # the pair compared: the chart's heading and the A - B column follow the chosen systems
    a, bb = systems[0]["system"], systems[29]["system"]
    for label, value in (("system A", a), ("system B", bb)):
        b.js(f"(() => {{ const s = [...document.querySelectorAll('#documents .controls label')].find(l => "
             f"l.firstChild.textContent === {json.dumps(label)}).querySelector('select'); s.value = "
             f"{json.dumps(value)}; s.dispatchEvent(new Event('change')); }})()")
    assert b.js("document.querySelector('#documents .diff-head').textContent") == \
        f"Per-document difference of chrf: A ({a}) \u2212 B ({bb})"
    by = {n: {d[0]: d[1] for d in r["docs"]} for r in data["results"] if r["spec"] == "chrf"
          for n in [r["system"]]}
    cells = b.js("[...document.querySelectorAll('#documents table.docs tbody tr')].map(r => [r.dataset.doc, "
                 "[...r.children][[...document.querySelectorAll('#documents table.docs thead th')].findIndex(t => "
                 "t.textContent === 'A \u2212 B')].textContent])")
    assert cells and all(abs(float(v) - (by[a][d] - by[bb][d])) < 0.006 for d, v in cells)
    assert len(b.js("[...document.querySelectorAll('#documents svg rect.bar')]")) == 500


# -- Overview -----------------------------------------------------------------------------------------------
def competition_ranks(values: list[float]) -> list[int]:
    return [1 + sum(w > v for w in values) for v in values]


def test_the_overview_puts_each_metrics_rank_beside_the_human_ranking(browser, big):
    b = browser
    path, data = big
    show(b, path, "overview")
    table = b.js("[...document.querySelectorAll('#overview table.ranking tr')].map(r => [...r.children].map(c => "
                 "c.textContent))")
    head, rows = table[0], table[1:]
    assert head[:4] == ["cluster", "rank", "system", "human ESA"] and head[4].startswith("chrf") and \
        head[5].startswith("bleu")
    ranking = data["human"]["ranking"]["systems"]
    assert [r[2] for r in rows] == [s["system"] for s in ranking]
    assert [r[0] for r in rows] == [str(s["cluster"]) for s in ranking]
    for col, spec in ((4, "chrf"), (5, "bleu")):
        score = {r["system"]: r["score"] for r in data["results"] if r["spec"] == spec}
        ranks = competition_ranks([score[s["system"]] for s in ranking])
        for i, (row, rank) in enumerate(zip(rows, ranks)):
            move = i + 1 - rank
            assert row[col].startswith(f"{rank}{'▲' + str(move) if move > 0 else '▼' + str(-move) if move < 0 else '='}")
    # the clusters are drawn: a double line where a new one starts
    starts = b.js("[...document.querySelectorAll('#overview table.ranking tbody tr')].map(r => "
                  "r.classList.contains('cluster-start'))")
    assert starts == [i > 0 and ranking[i]["cluster"] != ranking[i - 1]["cluster"] for i in range(len(ranking))]
    # the headline: each metric's correlation and its cluster
    headline = b.js("[...document.querySelectorAll('#overview .ranking-view table:not(.ranking) tbody tr')].map(r => "
                    "[...r.children].map(c => c.textContent))")
    rows_me = data["sources"][0]["data"]
    assert [h[0] for h in headline] == ["chrf", "bleu"]
    assert [h[1] for h in headline] == [f"{r['pearson']:.4f} ({r['clusters']['pearson']})" for r in rows_me]


# -- Judging ------------------------------------------------------------------------------------------------
def overlaps(a: dict[str, float], c: dict[str, float]) -> bool:
    return not (a["right"] <= c["left"] or c["right"] <= a["left"] or a["bottom"] <= c["top"]
                or c["bottom"] <= a["top"])


def scatters(b: Browser) -> list[dict[str, Any]]:
    return b.js("[...document.querySelectorAll('#judging figure.scatter-fig')].map(f => ({"
                "caption: f.querySelector('figcaption').textContent, "
                "axes: [...f.querySelectorAll('text.axis-name')].map(t => t.textContent), "
                "labels: [...f.querySelectorAll('text.label:not(.num)')].map(t => t.textContent), "
                "legend: [...f.querySelectorAll('.legend-list li')].map(t => t.textContent), "
                "boxes: [...f.querySelectorAll('text.label')].map(t => { const r = t.getBoundingClientRect(); "
                "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }), "
                "points: [...f.querySelectorAll('g.point')].map(g => g.dataset.system)}))")


def test_each_scatter_names_its_systems_states_r_and_its_axes(browser, big):
    b = browser
    path, data = big
    show(b, path, "judging")
    figs = scatters(b)
    rows = data["sources"][0]["data"]
    assert len(figs) == len(rows) == 2
    for fig, row in zip(figs, rows):
        assert sorted(fig["labels"] + fig["legend"]) == sorted(row["systems"])  # every system named once
        assert not any(overlaps(x, y) for x, y in itertools.combinations(fig["boxes"], 2))
        r = pearson(row["metric_scores"], row["human_scores"])
        assert f"r = {r:.3f} over 30 systems" in fig["caption"]
        assert f"significance cluster {row['clusters']['pearson']}" in fig["caption"]
        assert fig["axes"] == [f"{row['spec']} (system score)", "human ESA (system mean)"]


# -- A document ---------------------------------------------------------------------------------------------
def test_a_document_shows_the_lines_where_metric_and_humans_disagree_first(browser, big):
    b = browser
    path, data = big
    doc_id, start, end = data["texts"]["documents"][7]
    show(b, path, "doc=" + doc_id)
    b.wait("document.querySelector('#segments tbody tr')")
    lines = b.js("[...document.querySelectorAll('#segments tbody tr')].map(r => +r.dataset.line)")
    seg = {r["system"]: r["units"]["score"] for r in data["results"] if r["spec"] == "chrf"}
    names = [r["system"] for r in data["results"] if r["spec"] == "chrf"]
    human = data["human"]["segments"]

    def tau(line: int) -> float:
        pairs = [(seg[n][line], human[n][line]) for n in names if human[n][line] is not None]
        return kendall([p[0] for p in pairs], [p[1] for p in pairs])

    want = sorted(range(start, end), key=lambda k: (tau(k), k))
    assert lines == want
    shown = b.js("[...document.querySelectorAll('#segments tbody th .score')].map(s => s.textContent)")
    assert shown == [f"\u03c4 {tau(k):.2f}" for k in want]
    # source, the systems and the reference side by side, with metric and human scores per segment
    head = b.js("[...document.querySelectorAll('#segments thead th')].map(t => t.textContent)")
    assert head[:2] == ["line", "source"] and head[-1] == "refA"
    cell = b.js("[...document.querySelectorAll('#segments tbody tr')[0].querySelectorAll('td')][1].textContent")
    assert "chrf: " in cell and "human ESA: " in cell


# -- no inner names, on the generated page and on the shipped slice -----------------------------------------
@pytest.mark.parametrize("which", ["big", "shipped", "ted"])
def test_no_inner_names_on_any_view(browser, big, shipped, ted, which):
    b = browser
    path = {"big": big[0], "shipped": shipped, "ted": ted}[which]
    for view in ("overview", "documents", "document", "judging", "exports"):
        show(b, path, view)
        text = b.js("document.body.innerText")
        assert not [x for x in INNER if x in text], view
        assert not re.search(r"\b(human|scores?)\)? \(?\1s?\b", text), view  # "human score scores", "human) (human"
        assert b.problems(path.resolve().as_uri()) == []


def test_the_shipped_slice_in_the_human_order_with_labelled_scatters(browser, shipped):
    b = browser
    show(b, shipped, "overview")
    rows = b.js("[...document.querySelectorAll('#overview table.ranking tbody tr')].map(r => [...r.children].map(c => "
                "c.textContent))")
    judged: dict[str, list[float]] = {}  # the file's own MQM scores (higher is better: 0 = no error)
    for line in (ROOT / "docmetrics/data/genmt/ted-ende.jsonl").read_text(encoding="utf-8").splitlines():
        for name, x in json.loads(line)["scores"].items():
            judged.setdefault(name, []).append(x["human"])
    means = {name: statistics.mean(v) for name, v in judged.items()}
    shown = [r[2] for r in rows]
    assert sorted(shown) == sorted(means) and len(shown) == 6
    assert all(means[x] >= means[y] - 1e-9 for x, y in zip(shown, shown[1:]))  # best first by the humans
    show(b, shipped, "judging")
    for fig in scatters(b):
        assert sorted(fig["labels"] + fig["legend"]) == sorted(means)
        assert "r = " in fig["caption"]
        assert not any(overlaps(x, y) for x, y in itertools.combinations(fig["boxes"], 2))


def test_the_generated_page_size(big):
    from docmetrics.report.page import PAGE_BUDGET, render

    path, data = big
    size = path.stat().st_size
    assert size <= BIG_PAGE_MB * 1e6
    empty = len(render(dict(data, texts=None, results=[], sources=[], human=None, spans=None)).encode("utf-8"))
    assert empty <= PAGE_BUDGET + 4000  # the page adds its code and little else


def test_without_human_scores_the_metrics_rankings_side_by_side(browser, big, tmp_path):
    from docmetrics.report import write

    _, data = big
    path = tmp_path / "no-human.html"
    write(path, dict(data, human=None, sources=[], significance=[], spans=None))
    show(browser, path, "overview")
    assert "rankings side by side" in browser.js("document.querySelector('#overview .ranking-view h3').textContent")
    table = browser.js("[...document.querySelectorAll('#overview table.ranking tr')].map(r => [...r.children].map(c => "
                       "c.textContent))")
    head, rows = table[0], table[1:]
    assert head[:2] == ["rank", "system"] and head[2].startswith("chrf") and head[3].startswith("bleu")
    chrf = {r["system"]: r["score"] for r in data["results"] if r["spec"] == "chrf"}
    bleu = {r["system"]: r["score"] for r in data["results"] if r["spec"] == "bleu"}
    order = sorted(chrf, key=chrf.__getitem__, reverse=True)
    assert [r[1] for r in rows] == order
    ranks = competition_ranks([bleu[n] for n in order])
    for i, (row, rank) in enumerate(zip(rows, ranks)):
        move = i + 1 - rank
        assert row[3].startswith(f"{rank}{'▲' + str(move) if move > 0 else '▼' + str(-move) if move < 0 else '='}")
    assert browser.problems(path.resolve().as_uri()) == []
