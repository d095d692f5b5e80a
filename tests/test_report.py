"""The report page without a browser: it parses; its embedded JSON equals what -f json prints; every #anchor
resolves; nothing in it points to the network; hostile texts stay text; the size budget.  Toy backbone and chrF
only (no model).  Size budget: the page adds at most ``PAGE_BUDGET`` (96 KiB) of HTML, CSS and JavaScript to its
data, and the data is the JSON (compact) plus nothing per segment but the texts and one number per unit."""

from __future__ import annotations

import ast
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from plugin_fixtures import toy_dist  # noqa: F401  (a fixture)

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "</script><script>alert(2)</script>",
           "<!-- x", "\u2028 & &amp; </SCRIPT >"]


def write_testset(folder: Path) -> dict[str, Path]:
    """Three systems, two documents of three lines each, hostile texts everywhere, segment-level human scores."""
    src = ["The cat sat.", "It was happy.", "Then it left " + HOSTILE[0], "A dog came.", "It barked.", "All ran."]
    ids = ["d1"] * 3 + ["d<2>"] * 3
    files = {"src": folder / "src.txt", "ref": folder / "ref.txt", "ids": folder / "ids.txt",
             "human": folder / "human.tsv"}
    files["src"].write_text("\n".join(src) + "\n", encoding="utf-8")
    files["ids"].write_text("\n".join(ids) + "\n", encoding="utf-8")
    files["ref"].write_text("\n".join("Die " + s for s in src) + "\n", encoding="utf-8")
    rows = ["system\tdoc_id\tseg_id\tscore"]
    for n, name in enumerate(("sysA", "sysB", "sysC")):
        hyp = [("X" * ((n + i) % 4)) + " " + s + " " + HOSTILE[(n + i) % len(HOSTILE)] for i, s in enumerate(src)]
        files[name] = folder / f"{name}.txt"
        files[name].write_text("\n".join(hyp) + "\n", encoding="utf-8")
        pos = {"d1": 0, "d<2>": 0}
        for i, d in enumerate(ids):
            pos[d] += 1
            rows.append(f"{name}\t{d}\t{pos[d]}\t{((n + 1) * (i + 2)) % 7 / 7:.4f}")
    files["human"].write_text("\n".join(rows) + "\n", encoding="utf-8")
    return files


@pytest.fixture(scope="module")
def data(tmp_path_factory, toy_dist):  # noqa: F811
    return write_testset(tmp_path_factory.mktemp("report-data"))


def base(f: dict[str, Path]) -> list:
    return ["-i", f["sysA"], f["sysB"], f["sysC"], "-s", f["src"], "-r", f["ref"], "--doc-ids", f["ids"], "-q"]


def embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="docmetrics-data">(.*?)</script>', page, re.S)
    assert m, "no embedded data"
    return json.loads(m.group(1))


class Page(HTMLParser):
    """Every element, id, href, src and inline style or script of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.ids: set[str] = set()
        self.text: dict[str, list[str]] = {"script": [], "style": []}
        self.open: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "id" in a:
            self.ids.add(a["id"])
        self.open.append(tag)

    def handle_endtag(self, tag):
        if self.open and self.open[-1] == tag:
            self.open.pop()

    def handle_data(self, data):
        if self.open and self.open[-1] in self.text:
            self.text[self.open[-1]].append(data)


def parse(page: str) -> Page:
    p = Page()
    p.feed(page)
    p.close()
    return p


def check_page(page: str) -> Page:
    """What every page must be: parses, anchors resolve, no network address, hostile texts inert."""
    p = parse(page)
    tags = [t for t, _ in p.tags]
    assert tags.count("script") == 2 and "img" not in tags and "iframe" not in tags
    csp = [a["content"] for t, a in p.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0] and "'unsafe-inline'" not in csp[0].split("script-src")[1]
    for _, a in p.tags:
        assert not [k for k in a if k.startswith("on")], a  # no inline handler from the data
        for key in ("href", "src", "action", "formaction", "srcset"):
            value = a.get(key) or ""
            assert not re.match(r"\s*(https?:)?//", value), value
            if value.startswith("#"):
                assert value[1:] in p.ids, f"anchor {value} resolves to no id"
    css = "".join(p.text["style"])
    assert not re.search(r"url\(\s*['\"]?\s*(https?:)?//", css) and "@import" not in css
    script = "".join(p.text["script"])
    assert not re.search(r"url\(\s*['\"]?\s*https?://|@import|fetch\(|XMLHttpRequest|\.src\s*=|innerHTML|insertAdjacentHTML|"
                         r"document\.write|eval\(|new Function", script)
    for h in HOSTILE:  # only inside the JSON, escaped: the raw markup never appears
        assert h not in page
    return p


def test_scores_page_embeds_the_json_output(data, tmp_path, capsys):
    out, page = tmp_path / "scores.json", tmp_path / "scores.html"
    code, stdout, err = run_cli(capsys, "-m", "slide:w=2,s=1,backbone=toy", "chrf", *base(data), "--level", "chunk",
                                "-f", "json", "-o", out, "--report", page)
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    check_page(html)
    d = embedded(html)
    assert d["sources"][0]["layout"] == "scores"
    assert d["sources"][0]["data"] == json.loads(out.read_text(encoding="utf-8"))
    assert d["results"] == []  # the output carries the units
    assert d["texts"]["systems"]["sysA.txt"][2] == data["sysA"].read_text(encoding="utf-8").splitlines()[2]
    assert [x[0] for x in d["texts"]["documents"]] == ["d1", "d<2>"]


def test_system_scores_page_adds_documents_and_units(data, tmp_path, capsys):
    page = tmp_path / "ci.html"
    code, stdout, err = run_cli(capsys, "-m", "slide:w=2,s=1,backbone=toy", *base(data), "--ci", "-f", "json",
                                "--report", page)
    assert code == 0, err
    d = embedded(page.read_text(encoding="utf-8"))
    assert d["sources"][0]["data"] == json.loads(stdout)
    (r,) = [r for r in d["results"] if r["system"] == "sysB.txt"]
    assert r["ci"] == json.loads(stdout)[1]["ci"]
    assert [x[0] for x in r["docs"]] == ["d1", "d<2>"] and r["units"]["start"] == [0, 1, 3, 4]
    assert d["command"].startswith("docmetrics -m slide:w=2,s=1,backbone=toy")
    assert ["--doc-ids", str(data["ids"])] in d["inputs"]


def test_text_output_gets_the_same_page_data(data, tmp_path, capsys):
    """-f text --report writes into the page what -f json would print."""
    page = tmp_path / "text.html"
    code, stdout, _ = run_cli(capsys, "-m", "chrf", *base(data), "--report", page)
    assert code == 0 and "chrf" in stdout.lower()
    code, as_json, _ = run_cli(capsys, "-m", "chrf", *base(data), "-f", "json")
    assert embedded(page.read_text(encoding="utf-8"))["sources"][0]["data"] == json.loads(as_json)


def test_human_page_embeds_the_metaevaluation(data, tmp_path, capsys):
    page = tmp_path / "human.html"
    code, stdout, err = run_cli(capsys, "-m", "slide:w=1,s=1,backbone=toy", "chrf", *base(data), "--human", data["human"],
                                "--human-column", "score", "--seg-level", "-f", "json", "--report", page)
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    check_page(html)
    d = embedded(html)
    assert d["sources"][0]["layout"] == "human" and d["sources"][0]["data"] == json.loads(stdout)
    assert d["human"]["segments"]["sysB"][3] == pytest.approx(float(data["human"].read_text().splitlines()[10].split("\t")[3]))
    assert len(d["results"]) == 6


def test_paired_page(data, tmp_path, capsys):
    page = tmp_path / "paired.html"
    code, stdout, err = run_cli(capsys, "-m", "chrf", *base(data), "--paired-bs", "-f", "json", "--report", page)
    assert code == 0, err
    d = embedded(page.read_text(encoding="utf-8"))
    assert d["sources"][0]["layout"] == "paired" and d["sources"][0]["data"] == json.loads(stdout)


def test_genmt_page_has_the_spans(tmp_path, capsys):
    lines = []
    for k, (src, a, b) in enumerate([("Hello there.", "Hallo da.", "Hallo <b>dort</b>."), ("Bye.", "Tschüss.", "Ciao.")]):
        lines.append({"doc_id": f"en-de_#_news_#_d1_#_{k}", "src_text": src,
                      "tgt_text": {"sysA": a, "sysB": b, "refA": a},
                      "scores": {"sysA": [{"score": 90.0, "errors": [], "protocol": "ESA"}],
                                 "sysB": [{"score": 40.0 + k, "errors": [{"start_i": 0, "end_i": 5, "severity": "major"}],
                                           "protocol": "ESA"}]}})
    path = tmp_path / "genmt.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    page = tmp_path / "genmt.html"
    code, stdout, err = run_cli(capsys, "-m", "chrf", "--genmt", path, "-l", "en-de", "--error-free", "-f", "json",
                                "--report", page, "-q")
    assert code == 0, err
    d = embedded(page.read_text(encoding="utf-8"))
    assert d["sources"][0]["layout"] == "human" and d["sources"][0]["data"] == json.loads(stdout)
    assert [m["error_free"]["spec"] for m in json.loads(stdout)] == ["chrf"]  # issue 37: one JSON shape
    assert d["spans"] == {"sysB": {"0": [[0, 5, "major", ""]], "1": [[0, 5, "major", ""]]}}
    # issue 37: without -f json typed, the title names the command, not '-f json'; --genmt's file is no --human
    code, stdout, err = run_cli(capsys, "-m", "chrf", "--genmt", path, "-l", "en-de", "--report", page, "-q")
    assert code == 0, err
    d = embedded(page.read_text(encoding="utf-8"))
    typed = f"docmetrics report: docmetrics -m chrf --genmt {path} -l en-de --report {page} -q"
    assert d["title"] == (typed if len(typed) <= 179 else typed[:178] + "…")  # the command as typed, up to 160
    assert "-f json" not in d["title"] and "-f json" not in d["sources"][0]["name"]
    assert [flag for flag, _ in d["inputs"]] == ["-m", "-l", "--genmt"]


def test_a_saved_error_free_output_of_either_shape_is_read(tmp_path, capsys):
    """issue 37: --error-free -f json is the list of -f json without it (each metric with error_free); a file
    saved in the object shape of before ({metaeval, error_free}) still makes a page with the same detections."""
    lines = [{"doc_id": f"en-de_#_news_#_d1_#_{k}", "src_text": f"Source {k}.",
              "tgt_text": {"sysA": f"Satz {k} gut.", "sysB": f"Satz {k}.", "refA": f"Satz {k} gut."},
              "scores": {"sysA": [{"score": 90.0, "errors": [], "protocol": "ESA"}],
                         "sysB": [{"score": 40.0 + k, "errors": [], "protocol": "ESA"}]}} for k in range(3)]
    path = tmp_path / "genmt.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    code, stdout, err = run_cli(capsys, "-m", "chrf", "--genmt", path, "-l", "en-de", "--error-free", "-f", "json",
                                "-q")
    assert code == 0, err
    new = json.loads(stdout)
    code, plain, err = run_cli(capsys, "-m", "chrf", "--genmt", path, "-l", "en-de", "-f", "json", "-q")
    assert isinstance(new, list) and [{k: v for k, v in m.items() if k != "error_free"} for m in new] == json.loads(plain)
    old = {"metaeval": json.loads(plain), "error_free": [m["error_free"] for m in new]}
    for name, data, layout in (("new.json", new, "human"), ("old.json", old, "genmt")):
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
        page = tmp_path / f"{name}.html"
        code, _, err = run_cli(capsys, "report", tmp_path / name, "-o", page)
        assert code == 0, err
        d = embedded(page.read_text(encoding="utf-8"))
        assert d["sources"][0]["layout"] == layout and d["sources"][0]["data"] == data


def test_report_rebuilds_every_layout_without_a_model(data, tmp_path, capsys):
    saved = {}
    for name, extra in (("chunks", ["-m", "slide:w=2,s=1,backbone=toy", "--level", "chunk", "-o"]),
                        ("system", ["-m", "chrf", "-o"])):
        saved[name] = tmp_path / f"{name}.json"
        assert run_cli(capsys, *extra, saved[name], *base(data), "-f", "json")[0] == 0
    saved["align"] = tmp_path / "align.jsonl"
    saved["asd"] = tmp_path / "asd.json"
    assert run_cli(capsys, "-m", "asd:aligner=toy,backbone=toy", *base(data), "-f", "json", "--level", "chunk",
                   "-o", saved["asd"], "--dump-alignment", saved["align"])[0] == 0
    saved["sweep"] = tmp_path / "sweep.json"
    assert run_cli(capsys, "sweep", "-m", "slide:backbone=toy", "--grid", "w=1..2", "s=1..w", *base(data), "--human",
                   data["human"], "--human-column", "score", "-o", saved["sweep"])[0] == 0
    page = tmp_path / "all.html"
    code, _, err = run_cli(capsys, "report", *saved.values(), "-o", page, *base(data)[:-1], "--human", data["human"],
                           "--human-column", "score")
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    check_page(html)
    d = embedded(html)
    assert [s["layout"] for s in d["sources"]] == ["scores", "scores", "alignment", "scores", "sweep"]
    for s, path in zip(d["sources"], saved.values()):
        text = path.read_text(encoding="utf-8")
        assert s["data"] == (json.loads(text) if s["layout"] != "alignment"
                             else [json.loads(x) for x in text.splitlines()])
    assert d["texts"] is not None and d["human"] is not None
    again = tmp_path / "again.html"  # the page's JSON export rebuilds the same page
    export = tmp_path / "export.json"
    export.write_text(json.dumps(d), encoding="utf-8")
    assert run_cli(capsys, "report", export, "-o", again)[0] == 0
    assert embedded(again.read_text(encoding="utf-8"))["sources"] == d["sources"]


def test_sweep_page_draws_the_sweep_with_the_texts(data, tmp_path, capsys):
    saved, page = tmp_path / "sweep.json", tmp_path / "sweep.html"
    code, _, err = run_cli(capsys, "sweep", "-m", "slide:backbone=toy", "--grid", "w=1..2", "s=1..w", *base(data),
                           "--human", data["human"], "--human-column", "score", "--seg-level", "-o", saved,
                           "--report", page)
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    check_page(html)
    d = embedded(html)
    assert [s["layout"] for s in d["sources"]] == ["sweep"]
    assert d["sources"][0]["data"] == json.loads(saved.read_text(encoding="utf-8"))
    assert d["texts"]["systems"]["sysB.txt"] == data["sysB"].read_text(encoding="utf-8").split("\n")[:-1]
    assert d["human"]["segments"]["sysB"][3] is not None
    assert d["command"].startswith("docmetrics sweep -m slide:backbone=toy") and ["--grid", "w=1..2 s=1..w"] in d["inputs"]


def test_metaeval_page_has_every_language_pair_and_the_averages(tmp_path, capsys, toy_dist):  # noqa: F811
    from test_mtme import build_tiny

    build_tiny(tmp_path / "data")
    build_tiny(tmp_path / "data", lp="zh-en")
    page = tmp_path / "metaeval.html"
    code, stdout, err = run_cli(capsys, "metaeval", "--mtme", tmp_path / "data", "-t", "toy", "-l", "en-de,zh-en",
                                "-m", "slide:w=1,s=1,backbone=toy", "--ref", "refA", "--resamples", "20", "-f", "json",
                                "--report", page)
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    check_page(html)
    d = embedded(html)
    assert [s["layout"] for s in d["sources"]] == ["metaeval"] and d["sources"][0]["data"] == json.loads(stdout)
    assert set(d["sources"][0]["data"]["averages"]) == {"wmt23", "wmt24"}
    code, text, err = run_cli(capsys, "metaeval", "--mtme", tmp_path / "data", "-t", "toy", "-l", "en-de",
                              "-m", "slide:w=1,s=1,backbone=toy", "--ref", "refA", "--resamples", "20",
                              "--report", tmp_path / "text.html")
    assert code == 0 and "WMT24 average" in text
    assert embedded((tmp_path / "text.html").read_text(encoding="utf-8"))["sources"][0]["layout"] == "metaeval"


def spans_tsv(path: Path) -> Path:
    """An MQM span TSV as ../shared/data's spans.tsv: a span, a no-error row, a span without a place, one of a
    system and one of a document the test set does not have, one past its line's end."""
    rows = ["system\tdoc_id\tseg_id\tdoc_pos\trater\tstart\tend\tseverity\tcategory\tspan_text",
            "sysB\td<2>\t5\t2\trater1\t0\t3\tmajor\tAccuracy/Mistranslation\tX <",
            "sysB\td<2>\t6\t3\trater1\t\t\tno-error\tNo-error\t",
            "sysA\td1\t1\t1\trater2\t\t\tminor\tAccuracy/Omission\t",
            "sysZ\td1\t1\t1\trater2\t0\t1\tminor\tFluency\tx",
            "sysA\td9\t1\t1\trater2\t0\t1\tminor\tFluency\tx",
            "sysA\td1\t2\t2\trater2\t0\t9999\tminor\tFluency\tx"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_report_reads_a_spans_tsv(data, tmp_path, capsys):
    saved, page = tmp_path / "scores.json", tmp_path / "spans.html"
    assert run_cli(capsys, "-m", "chrf", *base(data), "--level", "chunk", "-f", "json", "-o", saved)[0] == 0
    code, _, err = run_cli(capsys, "report", saved, "-o", page, *base(data)[:-1], "--spans-tsv",
                           spans_tsv(tmp_path / "spans.tsv"))
    assert code == 0, err
    d = embedded(page.read_text(encoding="utf-8"))
    assert d["spans"] == {"sysB.txt": {"4": [[0, 3, "major", "Accuracy/Mistranslation, rater1"]]},
                          "sysA.txt": {"0": [[None, None, "minor", "Accuracy/Omission, rater2"]]}}
    assert "left out 2 spans of what the test set does not have (document d9: 1, sysZ: 1)" in err
    assert "left out 1 spans outside their line" in err
    assert ["--spans-tsv", str(tmp_path / "spans.tsv")] in d["inputs"]
    code, _, err = run_cli(capsys, "report", saved, "-o", page, "--spans-tsv", tmp_path / "spans.tsv")
    assert code == 2 and "give the texts with -i" in err
    (tmp_path / "bad.tsv").write_text("system\tdoc_id\tstart\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "report", saved, "-o", page, *base(data)[:-1], "--spans-tsv", tmp_path / "bad.tsv")
    assert code == 2 and "no column doc_pos, end, severity" in err


def with_spans_and_answers(scores: list) -> list:
    """``-f json --level chunk`` of chrF, made a judge's: every unit of sysB answers a hostile text, its second
    unit has two error spans (as XCOMET or an LLM judge gives them in units[].spans)."""
    out = json.loads(json.dumps(scores))
    for r in out:
        r["metric"] = r["spec"] = "judge"
        if r["system"] == "sysB.txt":
            for k, u in enumerate(r["units"]):
                u["answer"] = f"Major: {HOSTILE[k % len(HOSTILE)]} @@ score {k}"
            r["units"][1]["spans"] = [{"start": 0, "end": 4, "severity": "major", "confidence": 0.75},
                                      {"start": 5, "end": 8, "severity": "minor"}]
    return out


def test_unit_spans_and_answers_reach_the_page(data, tmp_path, capsys):
    from docmetrics.report import compact_result
    from docmetrics.values.result import Result, UnitScore
    from docmetrics.values.signature import Signature
    from docmetrics.values.units import UnitSpan

    units = [UnitScore("d1", 0, 1, 0.5), UnitScore("d1", 1, 2, 0.25, spans=(UnitSpan(0, 2, "major", 0.5),),
                                                     answer=HOSTILE[1])]
    r = Result("s", "judge", 0.4, Signature("judge", {}), {}, units=units)
    c = compact_result(r, "judge")
    assert c["units"]["spans"] == [None, [{"start": 0, "end": 2, "severity": "major", "confidence": 0.5}]]
    assert c["units"]["answer"] == [None, HOSTILE[1]]
    assert "answer" not in compact_result(Result("s", "x", 0.4, Signature("x", {}), {}, units=units[:1]), "x")["units"]
    saved, judged, page = tmp_path / "scores.json", tmp_path / "judge.json", tmp_path / "judge.html"
    assert run_cli(capsys, "-m", "chrf", *base(data), "--level", "chunk", "-f", "json", "-o", saved)[0] == 0
    judged.write_text(json.dumps(with_spans_and_answers(json.loads(saved.read_text(encoding="utf-8")))), encoding="utf-8")
    assert run_cli(capsys, "report", judged, "-o", page, *base(data)[:-1])[0] == 0
    html = page.read_text(encoding="utf-8")
    check_page(html)
    (r,) = [r for r in embedded(html)["sources"][0]["data"] if r["system"] == "sysB.txt"]
    assert r["units"][1]["spans"][0]["severity"] == "major" and r["units"][0]["answer"].startswith("Major: <script>")


def test_report_refuses_what_it_cannot_read(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}', encoding="utf-8")
    code, _, err = run_cli(capsys, "report", bad, "-o", tmp_path / "x.html")
    assert code == 2 and "bad.json" in err and "not an output docmetrics report reads" in err
    code, _, err = run_cli(capsys, "report", tmp_path / "missing.json", "-o", tmp_path / "x.html")
    assert code == 2 and "missing.json" in err


def _scores_json(name="sysA", params="{}"):
    first = f'{{"system": "{name}", "metric": "bleu", "score": 1.0, "signature": "BLEU|v:2", "params": {params}}}'
    return f'[{first}, {{"system": "sysB", "metric": "bleu", "score": 2.0, "signature": "BLEU|v:2", "params": {{}}}}]'



HOSTILE_JSON = [  # issue 37: (id, the saved output, exit status, what stderr says); before: a traceback each
    ("lone-surrogate-in-a-name", _scores_json("a\\ud800b"), 0, "wrote"),  # UnicodeEncodeError in report/page.py
    ("array-100000-deep", "[" * 100_000 + "]" * 100_000, 2,
     "bad.json: not an output docmetrics report reads: its JSON nests arrays or objects about a thousand levels"),
    ("deep-inside-a-valid-output", _scores_json(params="[" * 5000 + "]" * 5000), 2, "about a thousand levels deep"),
]


@pytest.mark.parametrize("text,code,says", [r[1:] for r in HOSTILE_JSON], ids=[r[0] for r in HOSTILE_JSON])
def test_hostile_saved_output_exits_cleanly(tmp_path, capsys, text, code, says):
    bad = tmp_path / "bad.json"
    bad.write_text(text, encoding="utf-8")
    got, out, err = run_cli(capsys, "report", bad, "-o", tmp_path / "x.html")
    assert got == code and says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    if code == 0:  # the lone surrogate stays the escape it was: the page's data reads back as the file's
        html = (tmp_path / "x.html").read_text(encoding="utf-8")
        check_page(html)
        assert "a\ud800b" in [r["system"] for r in embedded(html)["sources"][0]["data"]]


def test_size_budget(data, tmp_path, capsys):
    from docmetrics.report import page as report_page

    path = tmp_path / "s.html"
    assert run_cli(capsys, "-m", "slide:w=2,s=1,backbone=toy", *base(data), "--report", path)[0] == 0
    html = path.read_text(encoding="utf-8")
    data_text = re.search(r'id="docmetrics-data">(.*?)</script>', html, re.S).group(1)
    assert len(html.encode()) - len(data_text.encode()) <= report_page.PAGE_BUDGET
    d = json.loads(data_text)
    texts = sum(len(json.dumps(v)) for v in (d["texts"]["source"], d["texts"]["systems"], d["texts"]["references"]))
    assert len(data_text) <= 2 * (texts + len(json.dumps(d["sources"]))) + 4000


def test_embed_escapes_and_round_trips():
    from docmetrics.report.data import embed

    value = {"x": HOSTILE, "nan": float("nan"), "u": "\u2028\u2029"}
    text = embed(value)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"x": HOSTILE, "nan": None, "u": "\u2028\u2029"}


def test_the_report_is_a_leaf():
    """docmetrics/report imports value types and the standard library only; only the CLI and the judging API's
    write_report import it (the commands, :mod:`docmetrics.commands`, are the command line's logic)."""
    for path in (ROOT / "docmetrics" / "report").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.level == 1 or (node.module or "").startswith("values"), f"{path}: {node.module}"
                if node.level == 2:
                    assert (node.module or "").startswith("values")
            elif isinstance(node, ast.Import) or (isinstance(node, ast.ImportFrom) and not node.level):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                assert not [n for n in names if n.split(".")[0] in ("docmetrics", "numpy", "torch")], f"{path}: {names}"
    users = [p for p in (ROOT / "docmetrics").rglob("*.py")
             if "report" not in p.relative_to(ROOT).parts and re.search(r"from \.\.? ?import report|from \.\.report|docmetrics\.report",
                                                      p.read_text(encoding="utf-8"))]
    assert users and all(p.relative_to(ROOT).parts[:2] in (("docmetrics", "cli"), ("docmetrics", "commands"),
                                                            ("docmetrics", "judging"))
                         for p in users), users


# -- the significance between metrics: PERM-BOTH p-value matrices ---------------------------------------------
def pvalue_cells(m: dict) -> dict:
    """(better, worse) -> p of a matrix of the page's data, its empty cells left out."""
    return {(a, b): p for a, row in zip(m["metrics"], m["pvalues"]) for b, p in zip(m["metrics"], row) if p is not None}


def check_human_matrices(rows: list, group: dict, ties_by_name: bool = True) -> None:
    """``group`` (one of the page's significance groups) against ``--human -f json`` read directly: every p-value
    in its cell and no other, the clusters and PERM-BOTH settings; in ranking order (the upper triangle full; the
    order of the statistic's value, the name breaking ties as WMT ranks, unless the names were changed after)."""
    assert group["note"] is None and group["lp"] is None
    by_stat = {m["statistic"]: m for m in group["matrices"]}
    assert set(by_stat) == {s for r in rows for s in r["clusters"]}
    values = {"pearson": "pearson", "accuracy": "accuracy", "seg_pearson": "seg_pearson", "spa": "spa"}
    for stat, m in by_stat.items():
        expected = {(r["spec"], b): p for r in rows for b, p in r["pvalues"].get(stat, {}).items()}
        assert pvalue_cells(m) == expected and expected
        n = len(m["metrics"])
        assert all((m["pvalues"][i][j] is not None) == (j > i) for i in range(n) for j in range(n))
        assert {(a, c) for a, c in zip(m["metrics"], m["clusters"])} == {(r["spec"], r["clusters"][stat]) for r in rows}
        assert (m["alpha"], m["n_resamples"], m["seed"]) == tuple(rows[0]["perm_both"][k] for k in
                                                                ("alpha", "n_resamples", "seed"))
        if stat in values:
            value = {r["spec"]: r[values[stat]] for r in rows}
            assert [value[x] for x in m["metrics"]] == sorted(value.values(), reverse=True), stat
            if ties_by_name:
                assert m["metrics"] == sorted(value, key=lambda x: (-value[x], x)), stat


def check_mtme_matrices(lp: dict, group: dict) -> None:
    """``group`` against one language pair of ``--mtme``/``metaeval -f json``: its comparisons' p-values,
    ranking, clusters and settings."""
    assert group["note"] is None and group["lp"] == lp["lp"]
    assert [m["statistic"] for m in group["matrices"]] == list(lp["comparisons"])
    for m in group["matrices"]:
        comp = lp["comparisons"][m["statistic"]]
        assert pvalue_cells(m) == {(t["better"], t["worse"]): t["p_value"] for t in comp["pvalues"]}
        assert list(zip(m["metrics"], m["clusters"])) == [(r["metric"], r["rank"]) for r in comp["ranking"]]
        assert (m["alpha"], m["n_resamples"], m["seed"], m["skipped"]) == \
            (comp["alpha"], comp["n_resamples"], comp["seed"], comp["skipped"])


def test_significance_matrices_are_the_human_json_pvalues(data, tmp_path, capsys):
    page = tmp_path / "human.html"
    code, stdout, err = run_cli(capsys, "-m", "chrf", "bleu", "ter", *base(data), "--human", data["human"],
                                "--human-column", "score", "--seg-level", "--resamples", "200", "-f", "json",
                                "--report", page)
    assert code == 0, err
    rows = json.loads(stdout)
    html = page.read_text(encoding="utf-8")
    check_page(html)
    (group,) = embedded(html)["significance"]
    assert group["source"] == 0 and rows[0]["perm_both"]["n_resamples"] == 200
    check_human_matrices(rows, group)
    assert {m["statistic"] for m in group["matrices"]} >= {"pearson", "accuracy", "seg_pearson"}
    # rebuilt from the saved output (and from the page's own export), the same matrices
    saved, again = tmp_path / "human.json", tmp_path / "again.html"
    saved.write_text(stdout, encoding="utf-8")
    assert run_cli(capsys, "report", saved, "-o", again)[0] == 0
    assert embedded(again.read_text(encoding="utf-8"))["significance"] == [group]
    export = tmp_path / "export.json"
    export.write_text(json.dumps(embedded(html)), encoding="utf-8")
    assert run_cli(capsys, "report", export, "-o", again)[0] == 0
    assert embedded(again.read_text(encoding="utf-8"))["significance"] == [group]


def test_significance_matrices_are_the_mtme_and_metaeval_comparisons(tmp_path, capsys):
    from test_mtme import build_tiny

    build_tiny(tmp_path / "data")
    build_tiny(tmp_path / "data", lp="zh-en")
    common = ["--mtme", tmp_path / "data", "-t", "toy", "-m", "chrf", "bleu", "--ref", "refA", "--resamples", "50",
              "-f", "json"]
    page = tmp_path / "mtme.html"
    code, stdout, err = run_cli(capsys, *common, "-l", "en-de", "--report", page)
    assert code == 0, err
    (group,) = embedded(page.read_text(encoding="utf-8"))["significance"]
    check_mtme_matrices(json.loads(stdout), group)
    page = tmp_path / "metaeval.html"
    code, stdout, err = run_cli(capsys, "metaeval", *common, "-l", "en-de,zh-en", "--report", page)
    assert code == 0, err
    lps = json.loads(stdout)["lps"]
    groups = embedded(page.read_text(encoding="utf-8"))["significance"]
    assert [g["lp"] for g in groups] == ["en-de", "zh-en"] and {g["source"] for g in groups} == {0}
    for lp, g in zip(lps, groups):
        check_mtme_matrices(lp, g)


def renamed(value, old: str, new: str):
    """``value`` with every string equal to ``old`` (and every key) made ``new``."""
    if isinstance(value, dict):
        return {(new if k == old else k): renamed(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v, old, new) for v in value]
    return new if value == old else value


def test_significance_matrix_names_stay_text(data, tmp_path, capsys):
    """A metric named with HTML and JavaScript metacharacters (renamed in a saved --human output) reaches the
    matrices as data only: the page holds it escaped, never as markup."""
    code, stdout, err = run_cli(capsys, "-m", "chrf", "bleu", *base(data), "--human", data["human"], "--human-column",
                                "score", "--resamples", "50", "-f", "json")
    assert code == 0, err
    rows = renamed(json.loads(stdout), "chrf", HOSTILE[2])
    saved, page = tmp_path / "hostile.json", tmp_path / "hostile.html"
    saved.write_text(json.dumps(rows), encoding="utf-8")
    assert run_cli(capsys, "report", saved, "-o", page)[0] == 0
    html = page.read_text(encoding="utf-8")
    check_page(html)
    (group,) = embedded(html)["significance"]
    check_human_matrices(rows, group, ties_by_name=False)
    assert all(HOSTILE[2] in m["metrics"] for m in group["matrices"])


def test_no_matrix_for_one_metric_and_a_note_without_resamples(data, tmp_path, capsys):
    from test_mtme import build_tiny

    build_tiny(tmp_path / "data")
    mtme = ["--mtme", tmp_path / "data", "-t", "toy", "-l", "en-de", "--ref", "refA", "-f", "json"]
    human = [*base(data), "--human", data["human"], "--human-column", "score", "-f", "json"]
    for args, note in ((["-m", "chrf", *human], None), (["-m", "chrf", *mtme], None),
                       (["-m", "chrf", "bleu", *human, "--resamples", "0"],
                        "No significance matrix: the metrics were not compared by PERM-BOTH (--resamples 0, or fewer "
                        "than 2 systems scored by every metric)."),
                       (["-m", "chrf", "bleu", *mtme, "--resamples", "0"],
                        "No significance matrix: the metrics were not compared by PERM-BOTH (--resamples 0).")):
        page = tmp_path / "page.html"
        code, _, err = run_cli(capsys, *args, "--report", page)
        assert code == 0, err
        groups = embedded(page.read_text(encoding="utf-8"))["significance"]
        assert groups == ([] if note is None else [{"matrices": [], "note": note, "source": 0, "lp": groups[0]["lp"]}])


def test_significance_names_two_metrics_of_one_spec_as_the_json_does(data, tmp_path, capsys):
    """--human names two metrics of one spec ``spec [k]`` in its p-values (k: its place in -m, as its table does)."""
    page = tmp_path / "twice.html"
    code, stdout, err = run_cli(capsys, "-m", "chrf", "bleu", "chrf", *base(data), "--human", data["human"],
                                "--human-column", "score", "--resamples", "50", "-f", "json", "--report", page)
    assert code == 0, err
    rows = json.loads(stdout)
    (group,) = embedded(page.read_text(encoding="utf-8"))["significance"]
    names = ["chrf [1]", "bleu", "chrf [3]"]
    for m in group["matrices"]:
        assert sorted(m["metrics"]) == sorted(names)
        assert pvalue_cells(m) == {(a, b): p for a, r in zip(names, rows) for b, p in r["pvalues"].get(m["statistic"],
                                                                                                     {}).items()}


def test_the_page_script_parses():
    """The page's script is valid JavaScript (node --check, where node is installed): a syntax error leaves every
    view of every report empty, and the browser tests need a Chromium this machine may not have."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to check the page's script with")
    script = Path(__file__).resolve().parents[1] / "docmetrics" / "report" / "templates" / "report.js"
    done = subprocess.run([node, "--check", str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_report_cosmetics_of_issue_37():
    """Issue 37 (the page itself is checked in a browser in tests/test_report_browser.py): counts print as whole
    numbers, the per-system scatter plots sit above the document level, the Documents view names the metric and
    the systems it compares, and wide tables scroll in their box with headers that wrap."""
    root = Path(__file__).resolve().parents[1] / "docmetrics" / "report" / "templates"
    js, css = (root / "report.js").read_text(encoding="utf-8"), (root / "report.css").read_text(encoding="utf-8")
    assert re.search(r"var COUNTS = \{[^}]*\berror_free: 1", js) and "COUNTS[c[0]] && Number.isInteger(x)" in js
    meta = js[js.index("M.metaeval.forEach"):js.index("M.errorFree.forEach")]
    assert meta.index("system-scatter") < meta.index('"Document level"')
    assert '"Per-document difference of " + S.spec + ": A (" + S.a + ")' in js
    assert re.search(r"th\.num \{[^}]*white-space: normal", css) and re.search(r"\.scroll \{[^}]*overflow-x: auto", css)


def test_a_saved_span_judgement_is_read_as_its_own_layout(tmp_path, capsys):
    """--spans -f json saved to a file: docmetrics report reads it (layout spans) and keeps it whole."""
    from test_span_f1 import PRED, genmt_file, pred_file

    saved, page = tmp_path / "spans.json", tmp_path / "spans.html"
    code, _, err = run_cli(capsys, "--genmt", genmt_file(tmp_path), "--spans", pred_file(tmp_path, PRED), "-f", "json",
                           "-o", saved)
    assert code == 0, err
    code, _, err = run_cli(capsys, "report", saved, "-o", page)
    assert code == 0, err
    d = embedded(page.read_text(encoding="utf-8"))
    assert [s["layout"] for s in d["sources"]] == ["spans"]
    assert d["sources"][0]["data"] == json.loads(saved.read_text(encoding="utf-8"))
