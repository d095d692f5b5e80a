"""One path for span F1, paired tests, the report and sweeps (issue 46): each command is a call of the public
library, so the library's call gives what the command prints, and what only the command had (a sweep, a
report's section names and typed command, a span TSV) is a documented library call of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from test_judging_api import ESA, REFS, SYSTEMS
from test_span_f1 import PRED, genmt_file, pred_file

import docmetrics
from docmetrics.judging import compare_systems, read_human, read_spans_tsv, span_f1, sweep, write_report
from docmetrics.values.errors import InputError


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    for name, lines in SYSTEMS.items():
        write(tmp_path / f"{name}.txt", lines)
    write(tmp_path / "ref.txt", REFS)
    write(tmp_path / "ids.txt", ["d1"] * 4 + ["d2"] * 4)
    write(tmp_path / "human_sys.tsv", ["system\tscore"] + [f"{s}.txt\t{sum(v) / len(v)}" for s, v in ESA.items()])
    return tmp_path


def texts(root: Path) -> list[str]:
    return ["-i", *(str(root / f"{s}.txt") for s in SYSTEMS), "-r", str(root / "ref.txt"), "--doc-ids",
            str(root / "ids.txt")]


def make_testset(root: Path) -> docmetrics.TestSet:
    return docmetrics.read_testset([str(root / f"{s}.txt") for s in SYSTEMS], reference=str(root / "ref.txt"),
                                   doc_ids=str(root / "ids.txt"))


# -- sweep ---------------------------------------------------------------------------------------------------------
def test_sweep_from_python_is_what_docmetrics_sweep_writes(files, capsys):
    code, out, err = run_cli(capsys, "sweep", "-m", "chrf", "--grid", "char_order=4..6", *texts(files), "--human",
                             files / "human_sys.tsv", "-f", "json", "-q")
    assert code == 0, err
    printed = json.loads(out)
    human = read_human(files / "human_sys.tsv", format="human-tsv")
    swept = sweep("chrf", ["char_order=4..6"], make_testset(files), human=human)
    mine = json.loads(json.dumps(swept.to_dict()))
    assert [p["spec"] for p in mine["points"]] == ["chrf:char_order=4", "chrf:char_order=5", "chrf:char_order=6"]
    assert mine["points"] == printed["points"]
    assert {k: v for k, v in mine.items() if k not in ("points", "human")} == \
        {k: v for k, v in printed.items() if k not in ("points", "human")}
    rows, cols, values = swept.heatmap()
    assert rows == ["4", "5", "6"] and cols == ["accuracy"]
    assert [v[0] for v in values] == [p["metaeval"]["accuracy"] for p in printed["points"]]
    assert mine["cache"]["kept"] is False and mine["cache"]["path"] is None  # a temporary cache, deleted


def test_sweep_keeps_a_persistent_cache_and_skips_a_refused_point(files, tmp_path):
    store = tmp_path / "scores.sqlite"
    seen = []
    swept = sweep("chrf", ["char_order=0,5"], make_testset(files), cache=store, on_point=lambda k, p: seen.append(k))
    assert seen == [1, 2] and swept.points[0].skipped and not swept.points[1].skipped
    assert swept.to_dict()["cache"]["kept"] is True and swept.to_dict()["cache"]["path"] == str(store)
    assert swept.points[1].metaeval is None  # no human scores: scored, not meta-evaluated
    assert sweep("chrf", ["char_order=4"], make_testset(files), cache=False).to_dict()["cache"] is None


@pytest.mark.parametrize("stat, kwargs, needle", [
    ("nope", {}, "stat=nope: no such statistic; one of pearson"),
    ("spa", {}, "stat=spa needs seg_level=True"),
])
def test_sweep_names_the_parameter_that_is_wrong(files, stat, kwargs, needle):
    with pytest.raises(InputError) as caught:
        sweep("chrf", ["char_order=4"], make_testset(files), stat=stat, **kwargs)
    assert needle in str(caught.value) and "stat" in caught.value.params


def test_sweep_takes_one_grid_parameter_as_a_string_and_refuses_wrong_types(files):
    assert [p.spec for p in sweep("chrf", "char_order=4..5", make_testset(files)).points] == \
        ["chrf:char_order=4", "chrf:char_order=5"]
    with pytest.raises(docmetrics.SpecError, match="testset= takes a TestSet"):
        sweep("chrf", ["char_order=4"], "sys.txt")
    with pytest.raises(docmetrics.SpecError, match="human= takes what read_human returns"):
        sweep("chrf", ["char_order=4"], make_testset(files), human={"sysA.txt": 1.0})


# -- paired tests --------------------------------------------------------------------------------------------------
def test_compare_systems_with_a_baseline_is_what_the_command_prints(files, capsys):
    code, out, err = run_cli(capsys, "-m", "chrf", *texts(files), "--paired-ar", "--paired-ar-n", "200",
                             "--baseline", "sysC.txt", "-f", "json", "-q")
    assert code == 0, err
    printed = json.loads(out)
    results = docmetrics.load("chrf").compute(make_testset(files))
    paired = compare_systems(results, test="ar", n=200, baseline="sysC.txt")
    assert [r.system for r in paired.rows] == [r["system"] for r in printed] and paired.rows[0].system == "sysC.txt"
    assert [r.p_value for r in paired.rows] == pytest.approx([r["p_value"] for r in printed], rel=1e-12)


def test_confidence_intervals_are_what_ci_prints(files, capsys):
    code, out, err = run_cli(capsys, "-m", "chrf", *texts(files), "--ci", "--ci-n", "300", "-f", "json", "-q")
    assert code == 0, err
    printed = [r["ci"] for r in json.loads(out)]
    found = docmetrics.confidence_intervals(docmetrics.load("chrf").compute(make_testset(files)), n=300)
    assert [ci.to_dict() for ci in found] == printed
    with pytest.raises(docmetrics.UserError, match="level=95: the level of a confidence interval is between 0 and 1"):
        docmetrics.confidence_intervals(docmetrics.load("chrf").compute(make_testset(files)), level=95)


# -- span F1 -------------------------------------------------------------------------------------------------------
def test_span_f1_from_python_is_the_commands_row(tmp_path, capsys):
    gold, pred = genmt_file(tmp_path), pred_file(tmp_path, PRED)
    code, out, err = run_cli(capsys, "--genmt", gold, "--spans", pred, "-f", "json")
    assert code == 0, err
    assert span_f1(pred, read_human(gold)).to_dict() == json.loads(out)["predictors"][0]


# -- the report ----------------------------------------------------------------------------------------------------
def spans_rows(path: Path) -> Path:
    return write(path, ["system\tdoc_id\tdoc_pos\tstart\tend\tseverity\tcategory\trater",
                        "sysB\td1\t2\t0\t4\tmajor\tAccuracy\tr1",
                        "sysB\td1\t3\t\t\tno-error\t\t",
                        "sysQ\td1\t1\t0\t1\tminor\tFluency\t"])


def test_read_spans_tsv_places_spans_on_the_lines_and_notes_what_it_left_out(files, tmp_path):
    spans, notes = read_spans_tsv(str(spans_rows(tmp_path / "spans.tsv")), make_testset(files))
    assert spans == {"sysB.txt": {"1": [[0, 4, "major", "Accuracy, r1"]]}}
    assert notes == [f"{tmp_path / 'spans.tsv'}: left out 1 spans of what the test set does not have (sysQ: 1)"]
    write(tmp_path / "bad.tsv", ["system\tdoc_id"])
    with pytest.raises(InputError, match="no column doc_pos, start, end, severity"):
        read_spans_tsv(str(tmp_path / "bad.tsv"), make_testset(files))


def embedded(page: Path) -> dict:
    text = page.read_text(encoding="utf-8")
    start = text.index('<script type="application/json"')
    return json.loads(text[text.index(">", start) + 1:text.index("</script>", start)])


def test_write_report_takes_what_the_command_gives_its_page(files, tmp_path, capsys):
    """The page of ``docmetrics report`` (names, texts, spans, what was typed) is write_report's with the same
    arguments: the command only reads the files and calls it."""
    saved = tmp_path / "scores.json"
    assert run_cli(capsys, "-m", "chrf", *texts(files), "--level", "doc", "-f", "json", "-o", saved)[0] == 0
    spans_file = spans_rows(tmp_path / "spans.tsv")
    page = tmp_path / "page.html"
    code, _, err = run_cli(capsys, "report", saved, "-o", page, *texts(files), "--spans-tsv", spans_file)
    assert code == 0, err
    assert "--spans-tsv " + str(spans_file) + ": left out 1 spans" in err
    by_command = embedded(page)
    output = json.loads(saved.read_text(encoding="utf-8"))
    spans, _ = read_spans_tsv(str(spans_file), make_testset(files))
    mine = tmp_path / "mine.html"
    write_report(mine, output, names=[str(saved)], testset=make_testset(files), spans=spans,
                 command=by_command["command"], inputs=[tuple(x) for x in by_command["inputs"]])
    by_python = embedded(mine)
    assert by_python["sources"] == by_command["sources"] and by_python["spans"] == by_command["spans"]
    assert by_python["results"] == [] == by_command["results"]  # the output carries its documents and units
    assert {k: v for k, v in by_python.items() if k != "texts"} == {k: v for k, v in by_command.items()
                                                                    if k != "texts"}


def test_write_report_embeds_results_with_their_intervals(files, tmp_path):
    results = docmetrics.load("chrf").compute(make_testset(files))
    intervals = [[{"low": 1.0, "high": 2.0, "level": 0.95}] * len(results)]
    write_report(tmp_path / "p.html", results=[("chrf", results)], intervals=intervals, title="t",
                 command="docmetrics -m chrf", inputs=[("-m", "chrf")])
    d = embedded(tmp_path / "p.html")
    assert [r["system"] for r in d["results"]] == [r.system for r in results]
    assert d["results"][0]["ci"] == {"low": 1.0, "high": 2.0, "level": 0.95}
    assert d["command"] == "docmetrics -m chrf" and d["inputs"] == [["-m", "chrf"]] and d["title"] == "t"
