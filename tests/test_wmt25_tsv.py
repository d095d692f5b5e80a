"""The WMT25 metrics task's files (issue 30, part 4): its test TSV as the data to score (``--wmt25-tsv``:
systems, documents, segments, references of one language pair and set_id) and a submission written from any
metric (``--write-submission``), read back with the task's own field names by the task's reading logic
rewritten here (``csv.DictReader`` and ``float(line["overall"])`` as scripts/analysis/20-collect_humeval_metrics.py
reads task-1 submissions; ``pandas.read_csv(sep="\\t", keep_default_na=False)``, the merge on the key columns
and ``get_error_list`` as scripts/scoring/task2/scoring_esa.py reads the span subtask's).  Toy backbone."""

from __future__ import annotations

import csv
import json

import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401

import docmetrics
from docmetrics.formats.wmt25_tsv import SPAN_FIELDS, TSV_FIELDS, read_wmt25_tsv, write_submission

pytestmark = pytest.mark.usefixtures("toy_dist")

QE = "slide:w=1,s=1,backbone=toy"
REF = "slide:w=1,s=1,backbone=toy,model=toy-ref"
DOCS = [("n1", "news"), ("n1", "news"), ("t1", "speech"), ("t1", "speech"), ("t2", "speech"), ("t2", "speech")]
HYPS = {
    "sysA": ["Gute Nachricht.", 'Er sagte "hallo".', "Eine Rede.\\nZweite Zeile.", "Noch eine.", "Kurz.", "Lang hier."],
    "sysB": ["Schlecht.", "Gute zwei.", "Eine lange Rede.", "Rede.", "Kurz eins.", "Antwort."],
    "sysC": ["Neu.", "Neu zwei, gut.", "Rede Rede.", "Andere Rede.", "Kurze Antwort.", "Ok."],
}


def lines(lp=("en", "de_DE"), set_id="official", refs=True, systems=HYPS):
    out = []
    for s, hyps in systems.items():
        for i, ((doc, domain), hyp) in enumerate(zip(DOCS, hyps)):
            out.append([f"{lp[0]}-{lp[1]}_#_{domain}_#_{doc}", str(i + 1), lp[0], lp[1], set_id, s,
                        f"Source {i} with words.", hyp, f"Referenz {i}." if refs else "NaN", domain, "ESA"])
    return out


def write_tsv(path, rows, header=TSV_FIELDS):
    with open(path, "w", newline="", encoding="utf-8") as f:  # as testset_jsonl_to_tsv_task2.py writes it
        w = csv.writer(f, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        w.writerow(header)
        w.writerows(rows)
    return path


@pytest.fixture()
def tsv(tmp_path):
    rows = lines() + lines(("en", "ko_KR"), refs=False) + lines(set_id="challenge1")
    return write_tsv(tmp_path / "test.tsv", rows)


def test_read_a_pair_as_a_test_set(tsv):
    data = read_wmt25_tsv(tsv)
    assert data.pairs() == ["en-de_DE", "en-ko_KR"] and data.pairs("challenge1") == ["en-de_DE"]
    pair = data.pair("en-de")
    ts = pair.testset
    assert list(ts.systems) == ["sysA", "sysB", "sysC"] and ts.n_segments == 6
    assert [d.doc_id for d in ts.documents] == ["en-de_DE_#_news_#_n1", "en-de_DE_#_speech_#_t1",
                                                "en-de_DE_#_speech_#_t2"]
    assert ts.systems["sysA"][2] == "Eine Rede.\nZweite Zeile." and ts.systems["sysA"][1] == 'Er sagte "hallo".'
    assert ts.references[0] == "Referenz 0." and pair.rows["sysB"][0] == 6
    assert data.pair("en-ko_KR").testset.references is None


def task1_reader(path):
    """scripts/analysis/20-collect_humeval_metrics.py: csv.DictReader, the official set, float(overall)."""
    with open(path) as f:
        data = list(csv.DictReader(f, delimiter="\t"))
    return {(r["system_id"], r["doc_id"], r["segment_id"]): float(r["overall"]) for r in data
            if r["set_id"] == "official"}


def test_a_submission_reads_back_with_the_tasks_field_names(tsv, tmp_path, capsys):
    sub = tmp_path / "sub.tsv"
    code, out, err = run(capsys, "-m", REF, "--wmt25-tsv", tsv, "-l", "en-de_DE", "--write-submission", sub)
    assert code == 0, err
    assert f"wrote {sub}" in err and f"wrote {sub}.signature" in err
    pair = read_wmt25_tsv(tsv).pair("en-de_DE")
    results = docmetrics.load(REF).compute(pair.testset)
    want = {(r.system, u.doc_id, str(u.start + 1)): u.score for r in results for u in r.units}
    assert task1_reader(sub) == want
    assert sub.read_text(encoding="utf-8").splitlines()[0].split("\t") == [*TSV_FIELDS, "overall"]
    side = (tmp_path / "sub.tsv.signature").read_text().splitlines()
    assert side[0] == results[0].signature.format() and side[1].startswith("# overall: ")
    pd = pytest.importorskip("pandas")
    pred = pd.read_csv(sub, sep="\t", keep_default_na=False)  # as scoring_esa.py reads predictions.tsv
    gold = pd.read_csv(tsv, sep="\t", keep_default_na=False)
    gold = gold[(gold.set_id == "official") & (gold.target_lang == "de_DE")]
    keys = ["doc_id", "segment_id", "source_lang", "target_lang", "set_id", "system_id", "domain_name", "method"]
    merged = pred.merge(gold, on=keys, how="left", suffixes=("_pred", "_gold"))
    assert len(merged) == len(pred) == len(gold) == 18
    assert (merged.hypothesis_segment_pred == merged.hypothesis_segment_gold).all()
    assert pred.overall.dtype == float


def get_error_list(x):
    """scripts/scoring/task2/scoring_esa.py's reading of the span columns of a line."""
    if x["error_types"] == "no-error":
        return []
    starts, ends, types = x["start_indices"].split(" "), x["end_indices"].split(" "), x["error_types"].split(" ")
    return [{"start": a, "end": b, "severity": c} for a, b, c in zip(starts, ends, types)]


def test_span_columns_index_the_escaped_hypothesis(tsv, tmp_path):
    data = read_wmt25_tsv(tsv)
    pair = data.pair("en-de_DE")
    scores = {s: [0.5] * 6 for s in pair.testset.systems}
    spans = {s: [[] for _ in range(6)] for s in pair.testset.systems}
    hyp = pair.testset.systems["sysA"][2]  # "Eine Rede.\nZweite Zeile."
    spans["sysA"][2] = [(hyp.index("Zweite"), hyp.index("Zweite") + 6, "major"), (0, 4, "minor")]
    sub = tmp_path / "spans.tsv"
    write_submission(str(sub), data, pair, scores, "sig", spans=spans)
    with open(sub) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert list(rows[0])[-3:] == list(SPAN_FIELDS)
    row = rows[2]
    assert row["hypothesis_segment"] == "Eine Rede.\\nZweite Zeile."
    errors = get_error_list(row)
    assert [(e["severity"], row["hypothesis_segment"][int(e["start"]):int(e["end"])]) for e in errors] == [
        ("minor", "Eine"), ("major", "Zweite")]
    assert get_error_list(rows[0]) == [] and rows[0]["error_types"] == "no-error"


def test_stored_scores_to_a_submission_and_a_paired_test(tsv, tmp_path, capsys):
    pair = read_wmt25_tsv(tsv).pair("en-de_DE")
    results = docmetrics.load(QE).compute(pair.testset)
    scores = tmp_path / "scores.tsv"
    scores.write_text("system\tdoc_id\tToy\n" + "".join(f"{r.system}\t{u.doc_id}\t{u.score!r}\n"
                                                       for r in results for u in r.units))
    sub = tmp_path / "sub.tsv"
    code, out, err = run(capsys, "--scores", scores, "--wmt25-tsv", tsv, "-l", "en-de", "--write-submission", sub)
    assert code == 0, err
    assert task1_reader(sub) == {(r.system, u.doc_id, str(u.start + 1)): u.score for r in results for u in r.units}
    assert (tmp_path / "sub.tsv.signature").read_text().startswith("stored|name:Toy|format:tsv|")
    code, out, err = run(capsys, "-m", QE, "--wmt25-tsv", tsv, "-l", "en-de", "--wmt25-set", "challenge1",
                         "--paired-bs", "--paired-bs-n", "100", "-f", "json")
    assert code == 0, err
    assert json.loads(out)


def _bad(rows=None, header=TSV_FIELDS):
    def make(tmp):
        return write_tsv(tmp / "bad.tsv", lines() if rows is None else rows, header)
    return make


BASE = lines()
BAD = [
    ("header lacks a field", _bad(header=TSV_FIELDS[:-1]), [], "bad.tsv, line 1: no field 'method' in the header"),
    ("a line short", _bad(BASE[:3] + [BASE[3][:-1]] + BASE[4:]), [], "bad.tsv, line 5: 10 fields, the header has 11"),
    ("a segment missing", _bad(BASE[:-1]), [],
     "bad.tsv, field segment_id: system 'sysC' of en-de_DE has no line for segment 6"),
    ("a source differs", _bad(BASE[:7] + [BASE[7][:6] + ["other"] + BASE[7][7:]] + BASE[8:]), [],
     "bad.tsv, line 9, field source_segment: differs from line 3 (system 'sysA')"),
    ("a document reappears", _bad([r[:] for r in BASE[:2]] + [BASE[2]] + [BASE[0][:1] + ["9"] + BASE[0][2:]]), [],
     "bad.tsv, line 5, field doc_id: document 'en-de_DE_#_news_#_n1' reappears"),
    ("an empty system", _bad(BASE[:1] + [BASE[1][:5] + [""] + BASE[1][6:]] + BASE[2:]), [],
     "bad.tsv, line 3, field system_id: empty"),
    ("unknown pair", _bad(), ["-l", "en-fr"], "no language pair 'en-fr'"),
    ("unknown set", _bad(), ["--wmt25-set", "nope"], "bad.tsv: no line with set_id 'nope' (field set_id"),
    ("two metrics", _bad(), ["-m", REF, "--write-submission", "{tmp}/s.tsv"],
     "--write-submission writes one metric's scores; 2 given"),
    ("-i too", _bad(), ["-i", "{tmp}/x"], "drop -i"),
    # issue 37: every output path goes through one check (never an input, never another output)
    ("submission is the TSV", _bad(), ["--write-submission", "{tmp}/bad.tsv"],
     "--write-submission {tmp}/bad.tsv: is the file --wmt25-tsv names"),
    ("report is the submission's signature", _bad(), ["--write-submission", "{tmp}/s.tsv", "--report",
                                                      "{tmp}/s.tsv.signature"],
     "--write-submission {tmp}/s.tsv.signature: is the file --report names ({tmp}/s.tsv.signature), which this "
     "command also writes"),
]


@pytest.mark.parametrize("name,make,extra,message", BAD, ids=[b[0] for b in BAD])
def test_bad_tsv_exits_2_naming_file_line_and_field(tmp_path, capsys, monkeypatch, name, make, extra, message):
    path = make(tmp_path)

    def no_model(*a, **k):
        raise AssertionError("a model was loaded before the TSV was checked")

    monkeypatch.setattr(docmetrics.api, "load", no_model)
    code, out, err = run(capsys, "-m", QE, "--wmt25-tsv", path, *[a.replace("{tmp}", str(tmp_path)) for a in extra])
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert message.replace("{tmp}", str(tmp_path)) in err


def test_write_submission_needs_the_tsv(tmp_path, capsys):
    code, _, err = run(capsys, "-m", QE, "-i", tmp_path / "x", "--write-submission", tmp_path / "s.tsv")
    assert code == 2 and "--write-submission writes the lines of the task's test TSV: it needs --wmt25-tsv" in err
