"""``--data PATH`` (issue 46, item 2): judged data in any registered human-data format, read from the shell
through the public library.  The toy format of docs/plugins.md, installed as a distribution, works from the shell:
``docmetrics rank --data judged.toyh`` prints what ``human_clusters(read_human(...))`` gives; ``-m chrf --data F``
on a format that carries texts prints ``meta_evaluate(...).to_dict()``; bad input is one message, exit 2."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from plugin_fixtures import write_distribution
from test_judging_api import ESA, genmt  # noqa: F401  (the GenMT fixture: texts, ESA scores)

import docmetrics
from docmetrics.plugin import registry

PLUGINS_MD = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"


def docs_toy_format() -> str:
    """The toy format's module exactly as docs/plugins.md prints it."""
    text = PLUGINS_MD.read_text(encoding="utf-8")
    match = re.search(r"```python\n(# toy_judging/__init__\.py\n.*?)```", text, re.S)
    assert match, "docs/plugins.md: the toy human-data format's module"
    return match.group(1)


#: A plugin format that carries texts: one TSV line per (system, segment): system, doc, seg, src, ref, mt, score.
TOY_TEXTS = '''
from docmetrics import TestSet
from docmetrics.judging import EvalSet, HumanFormat
from docmetrics.formats.human_tsv import HumanScores


def recognise(path):
    return path.endswith(".toyt")


def read(path, lp, options):
    rows = [line.rstrip("\\n").split("\\t") for line in open(path, encoding="utf-8") if line.strip()]
    order = list(dict.fromkeys((doc, seg) for _, doc, seg, *_ in rows))
    texts, segments = {}, {}
    for system, doc, seg, src, ref, mt, score in rows:
        texts.setdefault(system, {})[(doc, seg)] = (src, ref, mt)
        segments.setdefault(system, {})[(doc, seg)] = float(score)
    first = texts[rows[0][0]]
    testset = TestSet({s: [t[k][2] for k in order] for s, t in texts.items()}, sources=[first[k][0] for k in order],
                      references=[first[k][1] for k in order], doc_ids=[doc for doc, _ in order], lp=lp)
    positions = {k: [d for d, _ in order[:n + 1]].count(k[0]) for n, k in enumerate(order)}
    system = {s: sum(v.values()) / len(v) for s, v in segments.items()}
    return EvalSet(path, "toyt", lp, testset=testset, human=HumanScores(path, "toy", system, segments, positions),
                   notes=(f"{path}: read by the toy, {len(rows)} lines",))


FORMAT = HumanFormat("toyt", "a toy file of texts and human scores", recognise, read)
'''


@pytest.fixture()
def toyh(tmp_path):
    """The docs' toy format, installed as the distribution docmetrics-toy-judging (entry point toyh), beside a toy
    format that carries texts (toyt)."""
    root = write_distribution(tmp_path / "site", "docmetrics-toy-judging", "1.0",
                              {"toy_judging/__init__.py": docs_toy_format(), "toy_texts/__init__.py": TOY_TEXTS},
                              "[docmetrics.human_formats]\ntoyh = toy_judging:FORMAT\ntoyt = toy_texts:FORMAT\n")
    sys.path.insert(0, str(root))
    registry.refresh()
    yield root
    sys.path.remove(str(root))
    sys.modules.pop("toy_judging", None)
    sys.modules.pop("toy_texts", None)
    registry.refresh()


def judged(path: Path) -> Path:
    """A toy judged file (SYSTEM ITEM SCORE per line): five systems, eight items, the ESA fixture's scores."""
    path.write_text("".join(f"{s} {i + 1} {ESA[s][i]}\n" for s in ESA for i in range(8)), encoding="utf-8")
    return path


def printed_json(capsys, *argv):
    code, out, err = run_cli(capsys, *argv, "-f", "json")
    assert code == 0, err
    return json.loads(out)


def as_json(value):
    return json.loads(json.dumps(value))


def test_rank_data_with_the_docs_toy_format_prints_human_clusters_of_read_human(toyh, tmp_path, capsys):
    path = judged(tmp_path / "judged.toyh")
    ranking = docmetrics.human_clusters(docmetrics.read_human(path))
    assert ranking.clusters()[0] == ["sysA"] and ranking.clusters()[-1] == ["sysE"]  # real clusters, not one
    assert printed_json(capsys, "rank", "--data", path) == {"ranking": as_json(ranking.to_dict()), "agreement": []}
    # the same file under another name: the format named
    other = judged(tmp_path / "judged.txt")
    named = docmetrics.human_clusters(docmetrics.read_human(other, format="toyh"), rule="wmt24")
    got = printed_json(capsys, "rank", "--data", other, "--data-format", "toyh", "--rule", "wmt24")
    assert got["ranking"] == as_json(named.to_dict()) and got["ranking"]["rule"] == "wmt24"
    # the text is the rank command's table of the same ranking
    code, out, err = run_cli(capsys, "rank", "--data", path)
    assert code == 0 and out.startswith("Human clusters: 5 systems, ") and f"from {path}" in out


def test_data_option_reaches_the_format_as_read_human_options(toyh, tmp_path, capsys):
    path = judged(tmp_path / "judged.toyh")
    scaled = docmetrics.read_human(path, scale=2)
    assert scaled.human.system["sysA"] == pytest.approx(2 * sum(ESA["sysA"]) / 8)
    got = printed_json(capsys, "rank", "--data", path, "--data-option", "scale=2")
    assert got["ranking"] == as_json(docmetrics.human_clusters(scaled).to_dict())
    scores = {s["system"]: s["score"] for s in got["ranking"]["systems"]}
    assert scores["sysA"] == pytest.approx(2 * sum(ESA["sysA"]) / 8)  # 2 x the mean: the option was applied


def test_main_command_data_on_a_format_with_texts_prints_meta_evaluate(genmt, capsys):  # noqa: F811
    data = docmetrics.read_human(genmt, lp="en-de")
    ev = docmetrics.meta_evaluate([("chrf", docmetrics.load("chrf").compute(data.testset))], data)
    for extra in ([], ["--data-format", "genmt"]):
        assert printed_json(capsys, "-m", "chrf", "--data", genmt, "-l", "en-de", *extra) == as_json(ev.to_dict())
    code, out, _ = run_cli(capsys, "-m", "chrf", "--data", genmt, "-l", "en-de")
    assert code == 0 and out == ev.to_text()
    # a built-in format through --data prints what its alias prints, byte for byte
    for fmt in ("text", "json"):
        via_data = run_cli(capsys, "-m", "chrf", "--data", genmt, "-l", "en-de", "-f", fmt)[1]
        via_alias = run_cli(capsys, "-m", "chrf", "--genmt", genmt, "-l", "en-de", "-f", fmt)[1]
        assert via_data == via_alias
    via_data = run_cli(capsys, "rank", "--data", genmt, "-l", "en-de", "-f", "json")[1]
    assert via_data == run_cli(capsys, "rank", "--genmt", genmt, "-l", "en-de", "-f", "json")[1]


def test_main_command_data_on_a_plugin_format_with_texts_prints_meta_evaluate(toyh, genmt, tmp_path,  # noqa: F811
                                                                              capsys):
    pair = docmetrics.read_human(genmt, lp="en-de")  # the GenMT fixture's texts and scores, as a toyt file
    ts, docs = pair.testset, pair.testset.doc_ids
    keys = list(pair.human.positions)
    path = tmp_path / "judged.toyt"
    path.write_text("".join(f"{s}\t{docs[i]}\t{keys[i][1]}\t{ts.sources[i]}\t{ts.references[i]}\t{ts.systems[s][i]}"
                            f"\t{ESA[s][i]}\n" for s in ts.systems for i in range(len(docs))), encoding="utf-8")
    data = docmetrics.read_human(path, lp="en-de")
    assert data.format == "toyt" and data.testset.systems["sysB"] == ts.systems["sysB"]
    ev = docmetrics.meta_evaluate([("chrf", docmetrics.load("chrf").compute(data.testset))], data)
    code, out, err = run_cli(capsys, "-m", "chrf", "--data", path, "-l", "en-de", "-f", "json")
    got = json.loads(out)
    assert got == as_json(ev.to_dict()) and got[0]["seg_kendall"] is not None  # the segment level too
    assert f"docmetrics: {path}: read by the toy, 40 lines" in err.splitlines()  # the reader's note, said
    assert "read by the toy" not in run_cli(capsys, "-m", "chrf", "--data", path, "-l", "en-de", "-q")[2]
    # the same texts and scores read as GenMT: the same statistics
    alias = printed_json(capsys, "-m", "chrf", "--genmt", genmt, "-l", "en-de")
    for key in ("pearson", "kendall", "accuracy", "seg_kendall", "seg_pearson", "acc_eq", "spa"):
        assert got[0][key] == pytest.approx(alias[0][key]), key


def test_rank_m_with_data_prints_autorank_then_the_human_clusters(genmt, capsys):  # noqa: F811
    data = docmetrics.read_human(genmt, lp="en-de")
    results = {s: docmetrics.load(s).compute(data.testset) for s in ("chrf", "bleu")}
    got = printed_json(capsys, "rank", "-m", "chrf", "bleu", "--data", genmt, "-l", "en-de")
    beside = got.pop("human_clusters")
    assert got == as_json(docmetrics.autorank(results, lp=data.lp).to_dict())
    assert beside["ranking"] == as_json(docmetrics.human_clusters(data).to_dict())
    assert [a["metric"] for a in beside["agreement"]] == ["chrf", "bleu"]
    # exactly as rank -m --genmt prints it, the notes included (the library's AutoRank says them: issue 46)
    alias = printed_json(capsys, "rank", "-m", "chrf", "bleu", "--genmt", genmt, "-l", "en-de")
    assert alias["notes"] and got["notes"] == alias["notes"]
    assert {**got, "human_clusters": beside} == alias


def _page_data(path: Path) -> dict:
    """The JSON a report page embeds."""
    (found,) = re.findall(r'<script[^>]*type="application/json"[^>]*>(.*?)</script>', path.read_text("utf-8"), re.S)
    return json.loads(found)


def test_main_command_data_report_is_the_alias_page_a_superset_of_write_report_with_data(genmt, tmp_path,  # noqa
                                                                                          capsys):
    """--data --report is the alias's page (one path: commands/run.judged_run), the same JSON but for the option
    typed; it holds what ``write_report(meta_evaluate(...), results=, data=)`` holds, plus the command line and its
    inputs (issue 46: the page used to be written by a path of its own without them)."""
    page = tmp_path / "page.html"
    code, _, err = run_cli(capsys, "-m", "chrf", "--data", genmt, "-l", "en-de", "--report", page)
    assert code == 0, err
    got = _page_data(page)
    assert run_cli(capsys, "-m", "chrf", "--genmt", genmt, "-l", "en-de", "--report", page)[0] == 0
    alias = json.loads(json.dumps(_page_data(page)).replace("--genmt ", "--data ").replace('"--genmt"', '"--data"'))
    assert {**got, "title": None} == {**alias, "title": None}  # the title: the command line, cut at 160 characters
    data = docmetrics.read_human(genmt, lp="en-de")
    results = docmetrics.load("chrf").compute(data.testset)
    mine = tmp_path / "mine.html"
    docmetrics.write_report(mine, docmetrics.meta_evaluate([("chrf", results)], data), results={"chrf": results},
                            data=data)
    lib = _page_data(mine)
    for key in ("results", "texts", "human", "spans", "significance", "report", "docmetrics"):
        assert got[key] == lib[key], key
    assert lib["command"] is None and lib["inputs"] == []
    assert got["command"].startswith("docmetrics -m chrf --data ") and ["-l", "en-de"] in got["inputs"]


# -- bad input: one row per case; exit 2, one message naming the option and the fix ----------------------------
BAD = [
    ("unknown --data-format lists the formats",
     ["rank", "--data", "{toyh}", "--data-format", "nope"],
     ["unknown human-data format 'nope'", "genmt", "human-tsv", "toyh"]),
    ("--data-option the format does not take",
     ["rank", "--data", "{toyh}", "--data-option", "column=x"],
     ["--data-option", "'toyh' takes no option 'column'", "its options: scale"]),
    ("--data-option not KEY=VALUE",
     ["rank", "--data", "{toyh}", "--data-option", "scale"],
     ["--data-option 'scale'", "KEY=VALUE"]),
    ("--data and an alias at once (rank)",
     ["rank", "--data", "{toyh}", "--genmt", "{toyh}"],
     ["--data and --genmt", "give the judged data once"]),
    ("--data and an alias at once (main command)",
     ["-m", "chrf", "--data", "{toyh}", "--human", "{toyh}"],
     ["--data and --human", "give the judged data once"]),
    ("a file no format recognises names the formats tried",
     ["rank", "--data", "{unknown}"],
     ["not a form of judging data docmetrics recognises", "mtme", "genmt", "human-tsv", "toyh",
      "--data-format human-tsv"]),
    ("--data-format without --data",
     ["rank", "--data-format", "toyh"],
     ["--data-format needs --data PATH"]),
    ("--data with an option it does not honour is refused, not ignored (an alias's own: --data-option for it)",
     ["rank", "--data", "{toyh}", "--human-column", "score"],
     ["--data does not take --human-column"]),
    ("-m on a format without texts",
     ["-m", "chrf", "--data", "{toyh}"],
     ["carries no texts to score"]),
    ("--data on the main command without -m",
     ["--data", "{toyh}"],
     ["give the metrics to judge with -m"]),
    ("metaeval: --data and --mtme at once",
     ["metaeval", "-m", "chrf", "--data", "{toyh}", "--mtme", "{toyh}"],
     ["--data and --mtme", "give the judged data once"]),
    ("metaeval: -m on a format without texts",
     ["metaeval", "-m", "chrf", "--data", "{toyh}"],
     ["carries no texts to score"]),
    ("report: --data with --human is refused, not ignored",
     ["report", "{toyh}", "-o", "{page}", "--data", "{toyh}", "--human", "{toyh}"],
     ["--data and --human"]),
    ("report: --data with -i is refused, not ignored",
     ["report", "{toyh}", "-o", "{page}", "--data", "{toyh}", "-i", "{toyh}"],
     ["--data does not take -i"]),
    ("--report that would overwrite the data, refused before scoring",
     ["-m", "chrf", "--data", "{toyh}", "--report", "{toyh}"],
     ["--report", "judged.toyh"]),
]


@pytest.mark.parametrize("argv, needles", [row[1:] for row in BAD], ids=[row[0] for row in BAD])
def test_bad_data_input_exits_2_with_one_message(toyh, tmp_path, capsys, argv, needles):
    files = {"toyh": judged(tmp_path / "judged.toyh"), "unknown": tmp_path / "judged.xyz", "page": tmp_path / "p.html"}
    files["unknown"].write_text("nothing any format reads\n", encoding="utf-8")
    code, out, err = run_cli(capsys, *(a.format(**files) for a in argv))
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "error:" in lines[0] and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_metaeval_data_prints_meta_evaluate_per_language_pair(genmt, capsys):  # noqa: F811
    expected = []
    for lp in ("en-de", "en-cs"):
        data = docmetrics.read_human(genmt, lp=lp)
        results = [(s, docmetrics.load(s).compute(data.testset)) for s in ("chrf", "bleu")]
        ev = docmetrics.meta_evaluate(results, data, significance=20, seed=7)
        expected.append({"lp": data.lp, "metrics": ev.to_dict()})
    got = printed_json(capsys, "metaeval", "-m", "chrf", "bleu", "--data", genmt, "-l", "en-de,en-cs",
                       "--resamples", "20", "--seed", "7")
    assert got == {"data": str(genmt), "lps": as_json(expected)}
    assert [p["lp"] for p in got["lps"]] == ["en-de_DE", "en-cs_CZ"] and len(got["lps"][0]["metrics"]) == 2


def test_metaeval_without_data_still_needs_mtme_and_lps(capsys):
    code, out, err = run_cli(capsys, "metaeval", "-m", "chrf")
    assert code == 2 and "the following arguments are required: --mtme, -l/--lps" in err
    code, out, err = run_cli(capsys, "metaeval", "-m", "chrf", "--mtme", "somewhere")
    assert code == 2 and "the following arguments are required: -l/--lps" in err


def test_report_data_is_write_report_of_the_saved_output_with_data(genmt, tmp_path, capsys):  # noqa: F811
    saved = tmp_path / "saved.json"
    code, out, err = run_cli(capsys, "-m", "chrf", "--genmt", genmt, "-l", "en-de", "-f", "json")
    saved.write_text(out, encoding="utf-8")
    page = tmp_path / "page.html"
    code, _, err = run_cli(capsys, "report", saved, "-o", page, "--data", genmt, "-l", "en-de", "--title", "T")
    assert code == 0, err
    mine = tmp_path / "mine.html"
    docmetrics.write_report(mine, saved, data=docmetrics.read_human(genmt, lp="en-de"), title="T")  # named by its file
    html = page.read_text(encoding="utf-8")
    assert "Quelle Satz 3." in html  # the data's texts are on it
    # one path (commands/report.run, issue 46): the page of write_report(..., data=) plus the command line typed
    got, lib = _page_data(page), _page_data(mine)
    assert {**got, "command": None, "inputs": []} == lib
    assert got["command"].startswith("docmetrics report ") and ["-l", "en-de"] in got["inputs"]
    assert ["--data", str(genmt)] in got["inputs"]


def test_data_option_values_are_typed_and_a_repeated_key_is_a_list():
    from docmetrics.commands.data import data_options as options

    assert options(["scale=2", "x=0.5", "column=mqm", "lower_is_better=false", "domains=news", "domains=talk"]) == {
        "scale": 2, "x": 0.5, "column": "mqm", "lower_is_better": False, "domains": ["news", "talk"]}
    assert options(["include_reference=Yes"]) == {"include_reference": True} and options(None) == {}
