"""WMT23-25 data as MTME lays it out today (docmetrics.formats.mtme): MTME's standards for every
wmt23/wmt24/wmt24pp/wmt25 pair, a tiny wmt25-style directory (locale-suffixed pair, JSONL texts, per-system
metadata) read, scored, meta-evaluated, written as MTME score files and read back; every bad input a row."""

import json
from pathlib import Path

import pytest
from cli_fixtures import run_cli as _cli
from mtme_fixtures import read_back
from plugin_fixtures import toy_dist  # noqa: F401

from docmetrics.formats.mtme import STANDARDS, Standard, load_mtme, read_mtme
from docmetrics.judging.evaluate import evaluate_mtme
from docmetrics.judging.mtme import write_mtme_scores
from docmetrics.values.errors import InputError
from docmetrics.values.result import Coverage, DocScore, Result, UnitScore
from docmetrics.values.signature import Signature

LP = "en-ko_KR"
SRC = ["One cat.", "Two dogs.", "A bird sings.", "Rain falls.", "The sun.", "Wind blows."]
DOCS = ["literary doc1"] * 3 + ["speech doc2"] * 3
REF = ["고양이 한 마리.", "개 두 마리.", "새가 노래한다.", "비가 내린다.", "태양.", "바람이 분다."]
OUT = {
    "sysA": ["고양이 한 마리.", "개 두 마리.", "새가 노래.", "비가 내린다.", "태양.", "바람이 분다."],
    "sysB": ["고양이.", "개 두.", "새가 노래한다.", "비.", "태양이 뜬다.", "바람."],
    "sysC": ["개.", "고양이.", "새.", "눈.", "달.", "바람이 분다."],
}
MQM = {  # higher is better
    "sysA": [0, 0, -1, 0, 0, 0],
    "sysB": [-1, -2, 0, -5, -1, -2],
    "sysC": [-10, -10, -5, -25, -5, 0],
}


def jsonl(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def lines(path: Path, rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{r}\n" for r in rows), encoding="utf-8")


def build_wmt25(root: Path) -> Path:
    """ROOT/wmt25 for en-ko_KR as MTME lays WMT25 out: JSONL source/reference/outputs, metadata."""
    d = root / "wmt25"
    jsonl(d / "sources" / f"{LP}.jsonl", [{"source": s, "doc_id": doc.split()[1]} for s, doc in zip(SRC, DOCS)])
    lines(d / "documents" / f"{LP}.docs", DOCS)
    jsonl(d / "references" / f"{LP}.refA.jsonl", [{"target": t} for t in REF])
    for name, hyps in {**OUT, "refA": REF}.items():
        jsonl(d / "system-outputs" / LP / f"{name}.jsonl", [{"hypothesis": h} for h in hyps])
    for name in OUT:
        jsonl(d / "metadata" / LP / f"{name}.jsonl",
              [{"doc_id": doc.split()[1], "domain": doc.split()[0], "seg": i} for i, doc in enumerate(DOCS)])
    lines(d / "human-scores" / f"{LP}.mqm.seg.score", [f"{s}\t{v}" for s, vals in MQM.items() for v in vals])
    lines(d / "human-scores" / f"{LP}.mqm.sys.score", [f"{s}\t{sum(v) / len(v)}" for s, v in MQM.items()])
    return d


# -- MTME's standards ----------------------------------------------------------------------------------------
# (test set, pair, reference, gold at sys/domain/seg or None, outliers), from MTME's meta_info.py
STANDARD_ROWS = [
    ("wmt25", "en-ko_KR", "refA", "mqm", ()),
    ("wmt25", "ja-zh_CN", "refA", "mqm", ()),
    ("wmt25", "cs-de_DE", "refA", "esa-human1", ()),
    ("wmt25", "en-sr_Cyrl_RS", "refA", "esa-human1", ()),
    ("wmt25", "en-mas_KE", "refA", "esa-human1", ()),
    ("wmt24pp", "en-de_DE", "posteditB", None, ()),
    ("wmt24pp", "en-is_IS", "refA", None, ()),
    ("wmt24pp", "en-fil_PH", "posteditA", None, ()),
    ("wmt24", "en-hi", "refA", "esa", ()),
    ("wmt24", "en-de", "refB", "mqm", ("MSLC",)),
    ("wmt23", "de-en", "refA", "da-sqm", ()),
    ("wmt23", "en-he", "refB", None, ()),
    ("wmt23", "uk-en", "refA", None, ()),
    ("wmt23", "en-de", "refA", "mqm", ("synthetic_ref",)),
    ("wmt23.sent", "en-de", "refA", "mqm", ()),
]


@pytest.mark.parametrize("testset, lp, ref, gold, outliers", STANDARD_ROWS)
def test_standards(testset, lp, ref, gold, outliers):
    levels = {"sys": gold, "domain": gold, "seg": gold} if gold else {}
    assert STANDARDS[(testset, lp)] == Standard(ref, levels, frozenset(outliers))


def test_standard_counts():
    # meta_info.DATA: wmt23 14 pairs, wmt23.sent 1, wmt24 11, wmt24pp 55, wmt25 16
    count = {t: sum(1 for ts, _ in STANDARDS if ts == t) for t in ("wmt23", "wmt23.sent", "wmt24", "wmt24pp", "wmt25")}
    assert count == {"wmt23": 14, "wmt23.sent": 1, "wmt24": 11, "wmt24pp": 55, "wmt25": 16}


# -- the wmt25-style directory round-trips ------------------------------------------------------------------
def test_read_wmt25_directory(tmp_path):
    build_wmt25(tmp_path)
    data = read_mtme(tmp_path, "wmt25", LP)
    assert data.sources == SRC and data.references == {"refA": REF}
    assert data.system_outputs["sysB"] == OUT["sysB"] and data.human_systems == {"refA"}
    assert data.langpair.tgt == "ko" and data.langpair.target.region == "KR"
    assert data.standard == STANDARDS[("wmt25", LP)]
    assert data.doc_names == ["doc1", "doc2"] and data.domain_names == ["literary", "speech"]
    assert data.metadata["sysA"][4] == {"doc_id": "doc2", "domain": "speech", "seg": 4}
    summary = data.metadata_summary()
    assert set(summary) == {"sysA", "sysB", "sysC"}
    assert summary["sysC"]["documents"] == ["doc1", "doc2"] and summary["sysC"]["domains"] == ["literary", "speech"]
    assert summary["sysC"]["fields"] == ["doc_id", "domain", "seg"] and summary["sysC"]["records"] == 6
    assert summary["sysC"]["path"].endswith(f"metadata/{LP}/sysC.jsonl")
    assert data.missing == {}


def test_jsonl_null_is_a_missing_translation(tmp_path):
    d = build_wmt25(tmp_path)
    jsonl(d / "system-outputs" / LP / "sysC.jsonl", [{"hypothesis": None if i == 2 else h} for i, h in enumerate(OUT["sysC"])])
    data = read_mtme(tmp_path, "wmt25", LP)
    assert data.system_outputs["sysC"][2] == "" and data.missing == {str(d / "system-outputs" / LP / "sysC.jsonl"): [2]}


def _char_overlap(hyp: str, ref: str) -> float:
    a, b = set(hyp), set(ref)
    return len(a & b) / max(1, len(a | b))


def _results(testset, name):
    out = []
    for system, hyps in testset.systems.items():
        units = [UnitScore(d.doc_id, i, i + 1, _char_overlap(hyps[i], testset.references[i]))
                 for d in testset.documents for i in range(d.start, d.end)]
        docs = [DocScore(d.doc_id, sum(u.score for u in units[d.start:d.end]) / len(d), len(d))
                for d in testset.documents]
        cov = Coverage(testset.n_segments, testset.n_segments, len(units))
        score = sum(u.score for u in units) / len(units)
        out.append(Result(system, name, score, Signature(name), {}, units, docs, cov))
    return out


def test_wmt25_round_trip(tmp_path):
    build_wmt25(tmp_path)
    data, testset = load_mtme(tmp_path, "wmt25", LP)
    assert data.ref == "refA" and data.human_name == "mqm" and data.systems == ["sysA", "sysB", "sysC"]
    results = _results(testset, "overlap")
    out = tmp_path / "out"
    written = write_mtme_scores(out, "wmt25", LP, "overlap", data.ref, results, doc_ids=data.doc_names)
    assert set(written.paths) == {"sys", "doc", "seg"}
    assert written.paths["seg"].endswith(f"wmt25/metric-scores/{LP}/overlap-refA.seg.score")
    back = read_back(out, "wmt25", LP)
    assert back[("overlap", "refA", "seg")] == {r.system: [u.score for u in r.units] for r in results}
    assert back[("overlap", "refA", "doc")] == {r.system: [d.score for d in r.docs] for r in results}
    assert back[("overlap", "refA", "sys")] == {r.system: [r.score] for r in results}
    ev = evaluate_mtme({"overlap": results}, data, n_resamples=50, n_permutations=50)
    m = ev.metrics["overlap"]
    assert ev.systems == ["sysA", "sysB", "sysC"] and m.accuracy == 1.0 and m.seg_acc_eq is not None
    json.dumps(ev.to_dict(), allow_nan=False)


# -- bad input: one row each, the file, the line and the field named --------------------------------------------
def _jsonl_rewrite(rel, line_no, record):
    def damage(d: Path):
        p = d / rel
        rows = p.read_text(encoding="utf-8").splitlines()
        rows[line_no - 1] = record if isinstance(record, str) else json.dumps(record)
        p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return damage


BAD = [
    ("locale-form", None, "en-ko_KOR", ["wmt25", "'KOR' in 'ko_KOR'", "SRC-TGT"]),
    ("locale-dash", None, "en-ko-KR", ["wmt25", "'en-ko-KR' is not of the form"]),
    ("source-no-field", _jsonl_rewrite(f"sources/{LP}.jsonl", 2, {"src": "x"}),
     LP, [f"sources/{LP}.jsonl, line 2", "field source: missing (fields: src); MTME reads the text of this file from field source"]),
    ("reference-no-field", _jsonl_rewrite(f"references/{LP}.refA.jsonl", 3, {"text": "x"}),
     LP, [f"references/{LP}.refA.jsonl, line 3", "field target: missing"]),
    ("output-no-field", _jsonl_rewrite(f"system-outputs/{LP}/sysB.jsonl", 6, {"target": "x"}),
     LP, [f"system-outputs/{LP}/sysB.jsonl, line 6", "field hypothesis: missing"]),
    ("output-not-json", _jsonl_rewrite(f"system-outputs/{LP}/sysA.jsonl", 1, "{hypothesis"),
     LP, [f"system-outputs/{LP}/sysA.jsonl, line 1", "not valid JSON"]),
    ("output-not-object", _jsonl_rewrite(f"system-outputs/{LP}/sysA.jsonl", 2, ["x"]),
     LP, [f"system-outputs/{LP}/sysA.jsonl, line 2", "a list, not a JSON object"]),
    ("output-key-twice", _jsonl_rewrite(f"system-outputs/{LP}/sysA.jsonl", 3, '{"hypothesis": "a", "hypothesis": "b"}'),
     LP, [f"system-outputs/{LP}/sysA.jsonl, line 3, field hypothesis", "given twice"]),
    ("output-deep", _jsonl_rewrite(f"system-outputs/{LP}/sysA.jsonl", 5, "[" * 100000 + "]" * 100000),
     LP, [f"system-outputs/{LP}/sysA.jsonl, line 5", "nested more than 64 levels deep"]),
    ("output-number", _jsonl_rewrite(f"system-outputs/{LP}/sysA.jsonl", 4, {"hypothesis": 3}),
     LP, [f"system-outputs/{LP}/sysA.jsonl, line 4", "field hypothesis: 3 is not a string"]),
    ("metadata-unknown-doc", _jsonl_rewrite(f"metadata/{LP}/sysC.jsonl", 5, {"doc_id": "doc9"}),
     LP, [f"metadata/{LP}/sysC.jsonl, line 5", "'doc_id' names document 'doc9'", f"documents/{LP}.docs"]),
    ("metadata-short", lambda d: jsonl(d / "metadata" / LP / "sysA.jsonl", [{"doc_id": "doc1"}]),
     LP, [f"metadata/{LP}/sysA.jsonl: 1 lines", "one JSON object per segment"]),
    ("metadata-unknown-system", lambda d: jsonl(d / "metadata" / LP / "sysZ.jsonl", [{}] * 6),
     LP, [f"metadata/{LP}/sysZ.jsonl", "system 'sysZ'", "no file in system-outputs"]),
    ("metadata-not-json", _jsonl_rewrite(f"metadata/{LP}/sysB.jsonl", 2, "nope"),
     LP, [f"metadata/{LP}/sysB.jsonl, line 2", "not valid JSON"]),
]


@pytest.mark.parametrize("name, damage, lp, says", BAD, ids=[b[0] for b in BAD])
def test_bad_input(tmp_path, name, damage, lp, says):
    d = build_wmt25(tmp_path)
    if damage is not None:
        damage(d)
    with pytest.raises(InputError) as exc:
        read_mtme(tmp_path, "wmt25", lp)
    assert exc.value.exit_code == 2
    for s in says:
        assert s in str(exc.value), (s, str(exc.value))


# -- the command line on the wmt25-style directory (toy backbone, no model) ----------------------------------


QE = "slide:w=1,s=1,backbone=toy"


def test_cli_wmt25_round_trip(tmp_path, capsys, toy_dist):
    build_wmt25(tmp_path / "data")
    out_dir = tmp_path / "out"
    code, out, err = _cli(capsys, "-m", QE, "--mtme", tmp_path / "data", "-t", "wmt25", "-l", LP,
                          "--write-mtme", out_dir, "--resamples", "20", "-f", "json", "--doc-level", "mean")
    assert code == 0, err
    report = json.loads(out)
    assert report["reference"] == "refA" and report["systems"] == ["sysA", "sysB", "sysC"]
    back = read_back(out_dir, "wmt25", LP)
    assert {level for _, _, level in back} == {"sys", "doc", "seg"}
    text = json.dumps(report)
    assert '"document"' in text
    meta = report["metadata"]  # carried into the output: the documents and domains the records name
    assert meta == json.loads(json.dumps(read_mtme(tmp_path / "data", "wmt25", LP).metadata_summary()))
    assert meta["sysA"]["domains"] and meta["sysA"]["documents"]


@pytest.mark.parametrize("argv, says", [
    (["-l", "en-ko_KOR"], "'KOR' in 'ko_KOR'"),
    (["-l", "en-ko-KR"], "'en-ko-KR' is not of the form"),
    (["-l", "en-sr_Cyrl_XX_Y"], "3 '_' suffixes"),
])
def test_cli_bad_language_pair(tmp_path, capsys, toy_dist, argv, says):
    build_wmt25(tmp_path / "data")
    code, out, err = _cli(capsys, "-m", QE, "--mtme", tmp_path / "data", "-t", "wmt25", *argv)
    assert code == 2 and says in err and "wmt25" in err and "Traceback" not in err, err


def test_cli_asd_lang_with_locale(tmp_path, capsys, toy_dist):
    """lang= on a metric takes MTME's locale-suffixed pair (asd: target ko, joined with spaces)."""
    build_wmt25(tmp_path / "data")
    code, out, err = _cli(capsys, "-m", "asd:backbone=toy,aligner=toy,lang=en-ko_KR", "--mtme", tmp_path / "data",
                          "-t", "wmt25", "-l", LP, "--resamples", "0", "-f", "json")
    assert code == 0, err
    code, out, err = _cli(capsys, "-m", "asd:backbone=toy,aligner=toy,lang=en-ko_KOR", "--mtme",
                          tmp_path / "data", "-t", "wmt25", "-l", LP)
    assert code == 2 and "'KOR' in 'ko_KOR'" in err, err
