"""The GenMT humeval JSONL as the WMT organisers release it (issue 27), read by ``--genmt``.

The real file (wmt-conference/wmt24-news-systems, ``humeval/merge_to_jsonl.py`` output; ../shared/data/wmt24_esa
has en-cs and en-hi of it) states no licence, so none of it is copied here: :func:`release_like_lines` writes
a file with every shape the real one has, and the tests that read the real file skip cleanly without it.
The shapes, checked over the whole real file by :func:`shapes_of` (``test_the_fixture_has_every_shape_of_the_
real_release`` compares the two):

* one line per judged segment, keys ``doc_id``, ``src_text``, ``tgt_text``, ``scores``;
* ``doc_id`` of four parts ``LP_#_DOMAIN_#_DOCID_#_LINEID``, LINEID the test set's global line (not from 0);
* ``tgt_text`` has every system and ``refA`` (the reference), and ``refA`` is judged as a system in ``scores``;
* ``scores[system]`` a list of 1 to 3 annotations, each ``score`` (a float, 0-100), ``annotator``,
  ``errors``, ``times`` and ``protocol`` ("ESA");
* an error ``start_i``, ``end_i``, ``severity`` (minor, major, undecided) and ``error_type`` (null);
  offsets are integers, equal for an empty span (a place), or both the string ``"missing"`` (an omission).

Then every judging flag with every data source (``--human``, ``--mtme``, ``--genmt``): one row each."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest
import sacrebleu
import scipy.stats
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401
from test_cli_genmt import DOCS, ESA, SYSTEMS, genmt_lines
from test_mtme import build_tiny

from docmetrics.formats.base import Span
from docmetrics.formats.genmt import read_genmt

pytestmark = pytest.mark.usefixtures("toy_dist")

QE = "slide:w=1,s=1,backbone=toy"  # reference-free, one unit per segment
REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt24_esa" / "wmt24-esa-encs-enhi.jsonl"
needs_real = pytest.mark.skipif(not REAL.is_file(), reason="../shared/data/wmt24_esa is not here")


def annotation(score, errors=(), annotator="Annotator01", protocol="ESA"):
    return {"score": float(score), "annotator": annotator, "errors": list(errors),
            "times": ["1724771599.999", "1724771927.631"], "protocol": protocol}


def error(start, end, severity="minor"):
    return {"start_i": start, "end_i": end, "severity": severity, "error_type": None}


OMISSION = error("missing", "missing", "major")


def release_like_lines():
    """Two documents of en-cs (news: 2 segments, literary: 1) as the release writes them: global line ids
    from 1041, refA judged, one to three annotations, spans empty, minor, major, undecided and omitted."""
    texts = {"sysA": ["Dobrý den, světe.", "Druhá věta zde.", "Literární text."],
             "sysB": ["Ahoj světe.", "Druhá.", "Text knihy dlouhý."],
             "refA": ["Dobrý den, světe!", "Tady je druhá věta.", "Literární text zde."]}
    judged = {
        "sysA": [[annotation(95)], [annotation(70, [error(0, 5), error(6, 6, "undecided")])],
                 [annotation(88, [OMISSION]), annotation(92, [], "Annotator02")]],
        "sysB": [[annotation(40, [error(0, 4, "major"), OMISSION])], [annotation(86)],
                 [annotation(60, [error(5, 10)]), annotation(70, [], "Annotator02"), annotation(65, [], "A3")]],
        "refA": [[annotation(100)], [annotation(90)], [annotation(99)]],
    }
    places = [("news", "doc7", 1041), ("news", "doc7", 1042), ("literary", "doc9", 1200)]
    return [{"doc_id": f"en-cs_#_{domain}_#_{doc}_#_{line}", "src_text": f"Source {k}.",
             "tgt_text": {s: texts[s][k] for s in texts}, "scores": {s: judged[s][k] for s in judged}}
            for k, (domain, doc, line) in enumerate(places)]


def shapes_of(lines) -> Counter:
    """Every shape a GenMT humeval file's lines have (the module docstring's list), counted."""
    found: Counter = Counter()
    for obj in lines:
        found[("keys", tuple(sorted(obj)))] += 1
        found[("doc_id parts", len(obj["doc_id"].split("_#_")))] += 1
        found[("refA judged", "refA" in obj["scores"] and "refA" in obj["tgt_text"])] += 1
        for system, given in obj["scores"].items():
            found[("annotations", type(given).__name__, len(given))] += 1
            for a in given:
                found[("annotation keys", tuple(sorted(a)))] += 1
                found[("score", type(a["score"]).__name__, 0 <= a["score"] <= 100)] += 1
                found[("protocol", a["protocol"])] += 1
                for e in a["errors"]:
                    found[("error keys", tuple(sorted(e)))] += 1
                    found[("severity", e["severity"])] += 1
                    found[("error_type", e["error_type"])] += 1
                    start, end = e["start_i"], e["end_i"]
                    if start == end == "missing":
                        found[("span", "omission")] += 1
                    else:
                        assert isinstance(start, int) and isinstance(end, int)
                        inside = 0 <= start <= end <= len(obj["tgt_text"][system])
                        found[("span", "empty" if start == end else "text", inside)] += 1
    return found


@pytest.fixture()
def release(tmp_path):
    path = tmp_path / "wmt24-esa.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in release_like_lines()), encoding="utf-8")
    return path


# -- the release's shapes ------------------------------------------------------------------------------------
def test_the_release_like_file_reads_with_omissions_and_the_judged_reference(release):
    pair = read_genmt(release).pair("en-cs")
    assert pair.systems == ["sysA", "sysB"] and [len(d) for d in pair.documents] == [2, 1]
    assert [s.position for s in pair.segments] == [1, 2, 1]  # global line ids 1041, 1042, 1200
    a, b = pair.human["sysA"], pair.human["sysB"]
    assert a[1].errors == (Span(0, 5, "minor"), Span(6, 6, "undecided"))
    assert a[2].errors == (Span(None, None, "major"),) and a[2].score == 90  # the omission: no place
    assert b[2].scores == (60, 70, 65) and b[2].score == 65
    # gold error-free: ESA >= 85 and no span, an omission counting as one
    assert pair.error_free() == {"sysA": [True, False, False], "sysB": [False, True, False],
                                 "refA": [True, True, True]}


@needs_real
def test_the_fixture_has_every_shape_of_the_real_release():
    real_lines = [json.loads(x) for x in REAL.read_text(encoding="utf-8").splitlines()]
    real, ours = shapes_of(real_lines), shapes_of(release_like_lines())
    assert set(real) - {("annotations", "list", n) for n in (1, 2, 3)} <= set(ours), set(real) - set(ours)
    assert {k for k in real if k[0] == "annotations"} == {("annotations", "list", n) for n in (1, 2, 3)}
    assert real[("span", "omission")] == 478 and real[("span", "empty", True)] == 387
    assert not [k for k in real if k[0] == "span" and k[-1] is False]  # every span inside its text


@needs_real
@pytest.mark.parametrize("lp,systems,items,with_spans,error_free", [
    ("en-cs", 15, 4455, 1672, 2625), ("en-hi", 10, 2970, 1009, 1771)])
def test_the_real_release_reads_as_its_readme_counts(lp, systems, items, with_spans, error_free):
    pair = read_genmt(REAL).pair(lp)
    assert (len(pair.systems), len(pair.documents), len(pair.segments)) == (systems, 85, 297)
    judged = [j for s in pair.systems for j in pair.human[s] if j is not None]
    assert len(judged) == items and sum(bool(j.errors) for j in judged) == with_spans
    assert sum(f is True for s in pair.systems for f in pair.error_free()[s]) == error_free


@needs_real
@pytest.mark.parametrize("lp", ["en-cs", "en-hi"])
def test_chrf_on_the_real_release_equals_an_independent_computation(capsys, lp):
    """System-level Pearson of chrF against the systems' mean ESA, recomputed from the raw JSON with
    sacrebleu and scipy; refA is named as left out."""
    code, out, err = run(capsys, "-m", "chrf", "--genmt", REAL, "-l", lp, "-f", "json")
    assert code == 0, err
    (ev,) = json.loads(out)
    assert "refA (the reference) was judged as a system" in err and "--include-human" in err
    lines = [json.loads(x) for x in REAL.read_text(encoding="utf-8").splitlines()]
    lines = [o for o in lines if o["doc_id"].startswith(lp + "_#_")]
    lines.sort(key=lambda o: (o["doc_id"].rsplit("_#_", 1)[0], int(o["doc_id"].rsplit("_#_", 1)[1])))
    systems = [s for s in lines[0]["tgt_text"] if s != "refA"]
    refs = [o["tgt_text"]["refA"] for o in lines]
    metric, human = [], []
    for s in systems:
        metric.append(sacrebleu.corpus_chrf([o["tgt_text"][s] for o in lines], [refs]).score)
        esa = [math.fsum(a["score"] for a in o["scores"][s]) / len(o["scores"][s]) for o in lines]
        human.append(math.fsum(esa) / len(esa))
    assert ev["pearson"] == pytest.approx(scipy.stats.pearsonr(metric, human)[0], abs=1e-12)
    assert len(ev["systems"]) == len(systems)


# -- --genmt's own behaviour on the release's shapes ----------------------------------------------------------
def test_include_human_scores_the_judged_reference_with_reference_free_metrics(release, capsys):
    code, out, err = run(capsys, "-m", QE, "--genmt", release, "-f", "json", "--include-human")
    assert code == 0, err
    (ev,) = json.loads(out)
    assert sorted(ev["systems"]) == ["refA", "sysA", "sysB"] and "was judged as a system" not in err
    code, out, err = run(capsys, "-m", QE, "--genmt", release, "-f", "json")
    assert sorted(json.loads(out)[0]["systems"]) == ["sysA", "sysB"]
    assert "refA (the reference) was judged as a system" in err


def test_one_coverage_line_per_metric_unless_verbose(release, capsys):
    code, _, err = run(capsys, "-m", QE, "--genmt", release)
    assert code == 0 and err.count("coverage 3/3") == 1, err
    assert "slide [each of 2 systems]: 3 units, coverage 3/3 segments (100.0%), 0 truncated (-v: one line per " \
           "system)" in err
    code, _, err = run(capsys, "-m", QE, "--genmt", release, "-v")
    assert code == 0 and err.count("coverage 3/3") == 2 and "[sysA]: 3 units, coverage 3/3" in err


def test_the_footnote_says_what_the_human_scores_are(release, capsys):
    code, out, err = run(capsys, "-m", QE, "--genmt", release)
    assert code == 0, err
    assert f"Human scores: ESA scores of {release} (en-cs, field scores; an item's score is the mean of its " \
           "annotations; 6 judged (segment, system) items of 2 systems; higher is better)" in out
    assert "column auto" not in out


def test_error_free_names_items_and_says_what_is_undefined(tmp_path, capsys):
    """No item is error-free in the gold (every ESA below 85): recall, MCC and AP are undefined, and why."""
    lines = release_like_lines()
    for obj in lines:
        for given in obj["scores"].values():
            for a in given:
                a["score"] = min(a["score"], 40.0)
    path = tmp_path / "low.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    code, out, err = run(capsys, "-m", QE, "--genmt", path, "--error-free", "0.5")
    assert code == 0, err
    assert "Error-free translations (WMT26 subtask 3): (segment, system) items" in out
    table = out[out.index("Error-free translations"):]
    row = next(line for line in table.splitlines() if line.startswith("slide [1]"))
    cells = re.split(r"\s{2,}", row)
    assert [cells[1], cells[3], cells[5], cells[7]] == ["undefined", "undefined", "undefined", "0/6"], cells
    assert "no item is error-free in the gold, so recall, MCC and AP are undefined" in row
    assert "every human score is below 85 (the highest: 40), so the gold rule ESA >= 85 never holds" in row
    code, out, err = run(capsys, "-m", QE, "--genmt", path, "--error-free", "0.5", "-f", "json")
    det = json.loads(out)[0]["error_free"]
    assert det["mcc"] is None and det["recall"] is None and det["average_precision"] is None
    assert det["undefined"].startswith("no item is error-free") and "never holds" in det["note"]


# -- every judging flag with every data source ---------------------------------------------------------------
@pytest.fixture()
def sources(tmp_path):
    """The same three systems as plain files with a --human TSV, as an MTME directory and as a GenMT file."""
    build_tiny(tmp_path / "mtme")
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in genmt_lines()), encoding="utf-8")
    for s, lines in SYSTEMS.items():
        (tmp_path / f"{s}.txt").write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    (tmp_path / "src.txt").write_text("".join(f"Quelle {i}.\n" for i in range(6)), encoding="utf-8")
    (tmp_path / "ids.txt").write_text("".join(f"{d}_{n}\n" for d, n in DOCS), encoding="utf-8")
    rows = ["system\tis_human\tdoc_id\tseg_id\tscore"] + [
        f"{s}\t0\t{d}_{n}\t{i + 1}\t{ESA[s][i]}" for s in SYSTEMS for i, (d, n) in enumerate(DOCS)]
    (tmp_path / "human.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return {
        "human": ["-i", *(tmp_path / f"{s}.txt" for s in SYSTEMS), "-s", tmp_path / "src.txt", "--doc-ids",
                  tmp_path / "ids.txt", "--human", tmp_path / "human.tsv"],
        "mtme": ["--mtme", tmp_path / "mtme", "-t", "toy", "-l", "en-de", "--ref", "refA"],
        "genmt": ["--genmt", tmp_path / "g.jsonl", "-l", "en-de_DE"],
    }


SEG_TABLE = "seg-kendall"  # the table's segment-level column (the same table for the three sources)
FLAG_ROWS = [
    # (source, flags, exit status, what stdout + stderr must contain)
    ("human", [], 0, ["pearson", "accuracy"]),
    ("mtme", [], 0, ["spa", "acc_eq", SEG_TABLE]),
    ("genmt", [], 0, ["pearson", SEG_TABLE]),
    ("human", ["--seg-level"], 0, [SEG_TABLE, "spa"]),
    ("mtme", ["--seg-level"], 0, ["acc_eq"]),
    ("genmt", ["--seg-level"], 0, [SEG_TABLE, "spa"]),
    ("human", ["--doc-level"], 0, ["Document level", "pearson-doc", "sys-pdp"]),
    ("mtme", ["--doc-level"], 0, ["Document level"]),
    ("genmt", ["--doc-level"], 0, ["Document level", "pearson-doc", "sys-pdp"]),
    ("human", ["--doc-level", "sum"], 0, ["Gold: sum of each document's judged segments"]),
    ("genmt", ["--doc-level", "sum"], 0, ["Gold: sum of each document's judged segments"]),
    ("human", ["--pdp"], 0, ["sys-pdp"]),
    ("mtme", ["--pdp"], 0, ["Pairwise Difference Pearson", "sys-pdp"]),
    ("genmt", ["--pdp"], 0, ["sys-pdp"]),
    ("human", ["--exclude-systems", "sysC"], 0, ["left out: sysC"]),
    ("mtme", ["--exclude-systems", "sysC"], 2, ["--exclude-systems cannot be combined with --mtme: choose the "
                                                "systems with --systems"]),
    ("genmt", ["--exclude-systems", "sysC"], 0, ["left out: sysC"]),
    ("human", ["--error-free"], 2, ["--error-free needs --genmt FILE"]),
    ("mtme", ["--error-free"], 2, ["--error-free needs --genmt FILE"]),
    ("genmt", ["--error-free"], 0, ["Error-free translations (WMT26 subtask 3)"]),
    ("human", ["--include-human"], 2, ["--include-human needs --mtme ROOT"]),
    ("mtme", ["--include-human"], 0, ["4 systems"]),
    ("genmt", ["--include-human"], 0, ["refA"]),
    ("human", ["--human-lower-better"], 0, ["higher is better after negation"]),
    ("mtme", ["--human-lower-better"], 2, ["--human-lower-better cannot be combined with --mtme: MTME stores human "
                                           "scores with higher better"]),
    ("genmt", ["--human-lower-better"], 2, ["--human-lower-better with --genmt: its human scores are ESA scores"]),
    ("genmt", ["--human-column", "x"], 2, ["--human-column with --genmt"]),
    ("human", ["--paired-bs"], 2, ["give either a paired test (--paired-bs/--paired-ar) or --human, not both"]),
    ("mtme", ["--paired-bs"], 2, ["--paired-bs cannot be combined with --mtme"]),
    ("genmt", ["--paired-bs", "--paired-bs-n", "50"], 0, ["p-value"]),
    ("human", ["--ci"], 2, ["--ci with --human"]),
    ("mtme", ["--ci"], 2, ["--ci cannot be combined with --mtme"]),
    ("genmt", ["--ci"], 2, ["--ci with --genmt"]),
    ("human", ["-f", "json"], 0, ['"pearson"']),
    ("mtme", ["-f", "json"], 0, ['"metrics"']),
    ("genmt", ["-f", "json"], 0, ['"pearson"']),
    ("genmt", ["--ref", "refA", "--ref", "refA"], 0, ["--ref refA,refA: refA given twice: used once"]),
    ("mtme", ["--ref", "refA"], 0, ["--ref refA,refA: refA given twice: used once"]),
    ("human", ["--resamples", "5"], 0, ["pearson"]),
    ("mtme", ["--resamples", "5"], 0, ["pearson"]),
    ("genmt", ["--resamples", "5"], 0, ["pearson"]),
]


@pytest.mark.parametrize("source,flags,code,present", FLAG_ROWS,
                         ids=[f"{r[0]}{''.join(r[1][:1]) or '-plain'}" for r in FLAG_ROWS])
def test_every_judging_flag_with_every_data_source(sources, capsys, source, flags, code, present):
    got, out, err = run(capsys, "-m", QE, *sources[source], *flags)
    text = out + err
    assert got == code, text
    assert "Traceback" not in text
    for piece in present:
        assert piece in text, text
    if code == 2:
        assert out == "" and err.count("\n") == 1, err


@pytest.mark.parametrize("flag", ["--doc-level", "--pdp", "--error-free", "--seg-level"])
def test_judging_a_genmt_file_without_human_scores_says_so(tmp_path, capsys, flag):
    lines = genmt_lines()
    for obj in lines:
        del obj["scores"]
    path = tmp_path / "plain.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    code, out, err = run(capsys, "-m", QE, "--genmt", path, flag)
    assert code == 2 and f"{flag}: {path} has no human scores for en-de_DE (field scores)" in err, err
    code, out, err = run(capsys, "-m", QE, "--genmt", path)  # scoring alone needs none
    assert code == 0, err
