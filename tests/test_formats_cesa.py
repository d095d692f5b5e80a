"""WMT26's contrastive ESA judgements (docmetrics/formats/cesa.py, the documented stand-in): recognised, read
(scores, judgements, the release's texts), clustered and meta-evaluated as the library and the shell give them,
and bad input as one message with exit status 2."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from cli_fixtures import run_cli

import docmetrics
from docmetrics.judging import formats
from docmetrics.values.errors import InputError

DATA = Path(docmetrics.__file__).resolve().parent / "data" / "wmt26"
TEST_FILE = DATA / "wmt26-genmt.jsonl"
SYSTEMS = ["Facebook-AI", "HuaweiTSC", "Nemo", "Online-W", "UEdin", "VolcTrans-GLAT"]
DOCS = [json.loads(line)["doc_id"] for line in TEST_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


def score(doc: int, system: int, annotator: int) -> int:
    """A clear order of the systems (the first best), varied by document and annotator."""
    return 92 - 9 * system - 2 * doc + 3 * annotator


def judgement(doc: int, system: int, annotator: int, **fields: object) -> dict:
    row = {"doc_id": DOCS[doc], "system": SYSTEMS[system], "score": score(doc, system, annotator),
           "errors": [{"start_i": 0, "end_i": 5 + system, "severity": "minor"}], "annotator": f"a{annotator}"}
    row.update(fields)
    return row


def write(path: Path, rows: list[dict | str]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture()
def cesa(tmp_path: Path) -> Path:
    return write(tmp_path / "cesa.jsonl",
                 [judgement(d, s, a) for d in range(len(DOCS)) for s in range(len(SYSTEMS)) for a in range(2)])


def test_a_cesa_file_is_recognised_and_named_in_the_registry(cesa):
    assert formats.detect(cesa).name == "cesa"
    assert "cesa" in [f.name for f in formats.human_formats(plugins=False)]
    assert formats.human_format("cesa").options == ("test_file", "systems", "references", "source")


def test_read_human_gives_the_system_means_of_document_means_and_the_judgements(cesa):
    data = docmetrics.read_human(cesa)
    assert (data.format, data.lp, data.testset) == ("cesa", "eng_Latn-deu_Latn", None)
    for s, name in enumerate(SYSTEMS):
        per_doc = [(score(d, s, 0) + score(d, s, 1)) / 2 for d in range(len(DOCS))]
        assert math.isclose(data.human.system[name], sum(per_doc) / len(per_doc), rel_tol=1e-12)
    judged = data.judgements
    keys = [("", "0"), ("", "1"), ("", "2")]  # a document an item (HumanScores, the one container: issue 46)
    assert judged.items == keys and [judged.domains[k] for k in keys] == ["ted"] * 3
    assert judged.annotations["Nemo"][keys[1]] == (score(1, 2, 0), score(1, 2, 1))  # two annotators: two waves
    assert data.raw.judgements[0].errors[0].end == 5


def test_human_clusters_on_cesa_equal_the_command(cesa, capsys):
    ranking = docmetrics.human_clusters(docmetrics.read_human(cesa), rule="wmt26")
    assert [s.system for s in ranking.systems] == SYSTEMS
    assert ranking.lp == "eng_Latn-deu_Latn"
    code, out, err = run_cli(capsys, "rank", "--data", cesa, "--rule", "wmt26", "-f", "json")
    assert code == 0, err
    clusters: dict[int, list[str]] = {}
    for s in ranking.systems:
        clusters.setdefault(s.cluster, []).append(s.system)
    assert json.loads(out)["ranking"]["clusters"] == list(clusters.values())


def test_with_the_release_the_texts_are_read_and_metrics_meta_evaluated(cesa, capsys):
    data = docmetrics.read_human(cesa, lp="en-de", test_file=str(TEST_FILE), systems=str(DATA / "systems"),
                                 references=["refA"])
    assert list(data.testset.systems) == SYSTEMS
    results = [("chrf", docmetrics.load("chrf").compute(data.testset))]
    ev = docmetrics.meta_evaluate(results, data, significance=10, seed=3)
    row = ev.to_dict()[0]
    assert row["n_systems"] == 6 and row["human_scores"] == [data.human.system[s] for s in SYSTEMS]
    code, out, err = run_cli(capsys, "-m", "chrf", "--data", cesa, "-l", "en-de", "--data-option",
                             f"test_file={TEST_FILE}", "--data-option", f"systems={DATA / 'systems'}",
                             "--data-option", "references=refA", "-f", "json")
    assert code == 0, err
    assert json.loads(out)[0]["pearson"] == pytest.approx(row["pearson"], rel=1e-9)


def test_a_judged_document_the_release_lacks_is_named(tmp_path):
    path = write(tmp_path / "cesa.jsonl", [judgement(0, 0, 0), judgement(0, 1, 0),
                                           judgement(0, 2, 0, doc_id=DOCS[0] + "x")])
    with pytest.raises(InputError, match=r"line 3, field doc_id: .* is not in .*wmt26-genmt.jsonl"):
        docmetrics.read_human(path, test_file=str(TEST_FILE), systems=str(DATA / "systems"))


BAD = [
    ("a score outside 0..100", [judgement(0, 0, 0, score=101)], "line 1, field score: 101 is outside 0..100"),
    ("a score that is no number", [judgement(0, 0, 0, score="good")], "line 1, field score"),
    ("a doc_id not in the release's form", [judgement(0, 0, 0, doc_id="talk.1")],
     "line 1, field doc_id: 'talk.1' is not SET_###_DOMAIN"),
    ("no system", [{k: v for k, v in judgement(0, 0, 0).items() if k != "system"}], "line 1, field system: missing"),
    ("a span backwards", [judgement(0, 0, 0, errors=[{"start_i": 9, "end_i": 2, "severity": "minor"}])],
     "line 1, field errors[0]: start_i 9, end_i 2"),
    ("a severity cESA does not have", [judgement(0, 0, 0, errors=[{"start_i": 0, "end_i": 2, "severity": "bad"}])],
     "line 1, field errors[0], severity: 'bad' is not one of minor, major"),
    ("errors not a list", [judgement(0, 0, 0, errors={"start_i": 0})], "line 1, field errors"),
    ("a line that is no JSON", [judgement(0, 0, 0), '{"doc_id": '], "line 2"),
    ("two language pairs and no -l", [judgement(0, 0, 0), judgement(
        0, 1, 0, doc_id=DOCS[0].replace("deu_Latn", "ces_Latn"))], "holds 2 language pairs"),
]


@pytest.mark.parametrize("rows, needle", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_cesa_input_exits_2_with_one_message(tmp_path, capsys, rows, needle):
    path = write(tmp_path / "cesa.jsonl", rows)
    code, out, err = run_cli(capsys, "rank", "--data", path, "--data-format", "cesa")
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "error:" in lines[0] and "Traceback" not in err, err
    assert needle in lines[0], (needle, lines[0])


def test_texts_need_both_the_test_file_and_the_systems(cesa, capsys):
    code, _, err = run_cli(capsys, "rank", "--data", cesa, "--data-option", f"test_file={TEST_FILE}")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "give both test_file=" in err and "systems=" in err
