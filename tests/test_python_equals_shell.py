"""Python = shell (issue 45, guard 3): each documented Python call of docs/judging-python.md beside the command
it stands for (``docmetrics ... -f json``), their JSON compared number by number (1e-9).

The data: the shipped WMT21 TED en-de slice the page reads, and a tiny Japanese and a tiny Chinese GenMT file
built here, whose pair (``en-ja_JP``, ``en-zh_CN``) is all that tells BLEU its tokenizer (ja-mecab, zh): from
Python the test set carries it, as ``--genmt`` gives it to the command.  Where the two ever differ, the
command's number is the reference and the library is fixed."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any, Callable

import pytest
from cli_fixtures import run_cli

import docmetrics

ROOT = Path(__file__).resolve().parents[1]
TED = ROOT / "docmetrics" / "data" / "genmt" / "ted-ende.jsonl"
MTME = ROOT / "docmetrics" / "data" / "mtme" / "wmt21.tedtalks"

#: words of each target language, joined without spaces as the language writes them
WORDS = {"ja": ["私は", "今日", "東京", "で", "新しい", "本", "を", "買い", "ました", "友達", "と", "一緒に",
                "映画", "見", "に", "行き", "たい", "です", "昨日", "雨", "が", "降り", "学校", "先生"],
         "zh": ["我们", "今天", "在", "北京", "买", "了", "一本", "新", "书", "朋友", "一起", "去", "看",
                "电影", "昨天", "下雨", "学校", "老师", "说", "很", "好", "的", "问题", "解决"]}


def write_cjk_genmt(path: Path, lp: str, *, n_docs: int = 5, per_doc: int = 3, n_systems: int = 4,
                    seed: int = 1) -> Path:
    """A GenMT file of ``lp`` (``en-ja_JP``): references of random words of the target language, system k's
    output the reference with about 3k characters replaced, its ESA score about 90 - 10k, every system
    marked with an error span where it scores below 70."""
    rng = random.Random(seed)
    words = WORDS[lp.split("-")[1].split("_")[0]]
    letters = "".join(words)
    rows = []
    for d in range(n_docs):
        for i in range(per_doc):
            ref = "".join(rng.choice(words) for _ in range(12)) + "。"
            texts, scores = {"refA": ref}, {}
            for k in range(n_systems):
                chars = list(ref[:-1])
                for _ in range(3 * k + rng.randint(0, 2)):
                    chars[rng.randrange(len(chars))] = rng.choice(letters)
                texts[f"sys{k}"] = "".join(chars) + "。"
                score = 90 - 10 * k + rng.randint(-8, 8)
                scores[f"sys{k}"] = [{"score": score, "errors": [{"start_i": 0, "end_i": 3, "severity": "minor"}]
                                      if score < 70 else []}]
            rows.append({"doc_id": f"{lp}_#_news_#_doc{d}_#_{d * per_doc + i}", "src_text": f"Source {d}.{i}.",
                         "tgt_text": texts, "scores": scores})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("python-shell")
    return {"en-de": TED, "en-ja": write_cjk_genmt(folder / "ja.jsonl", "en-ja_JP"),
            "en-zh": write_cjk_genmt(folder / "zh.jsonl", "en-zh_CN", seed=2)}


def differences(python: Any, shell: Any, where: str = "$", tol: float = 1e-9) -> list[str]:
    """Where two JSON values differ: numbers by more than ``tol`` (absolute and relative; NaN equals NaN),
    anything else exactly."""
    if isinstance(python, bool) or isinstance(shell, bool):
        return [] if python is shell else [f"{where}: {python!r} != {shell!r}"]
    if isinstance(python, (int, float)) and isinstance(shell, (int, float)):
        a, b = float(python), float(shell)
        if (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=tol, abs_tol=tol):
            return []
        return [f"{where}: {python!r} != {shell!r}"]
    if isinstance(python, dict) and isinstance(shell, dict):
        if set(python) != set(shell):
            return [f"{where}: keys {sorted(set(python) ^ set(shell))} on one side only"]
        return [d for k in python for d in differences(python[k], shell[k], f"{where}.{k}", tol)]
    if isinstance(python, list) and isinstance(shell, list):
        if len(python) != len(shell):
            return [f"{where}: {len(python)} items != {len(shell)}"]
        return [d for k, (a, b) in enumerate(zip(python, shell)) for d in differences(a, b, f"{where}[{k}]", tol)]
    return [] if python == shell else [f"{where}: {python!r} != {shell!r}"]


def test_the_comparison_sees_a_difference():
    assert differences({"a": [1.0, "x"]}, {"a": [1.0 + 1e-12, "x"]}) == []
    assert differences({"a": [1.0, "x"]}, {"a": [1.001, "x"]}) == ["$.a[0]: 1.0 != 1.001"]
    assert differences({"a": 1}, {"b": 1}) and differences([1], [1, 2]) and differences(True, 1)


def shell(capsys: pytest.CaptureFixture[str], *argv: object) -> Any:
    code, out, err = run_cli(capsys, *argv, "-f", "json")
    assert code == 0, err
    return json.loads(out)


def plain(value: Any) -> Any:
    """A Python value as its JSON reads back (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(value))


def python_scores(data: Any) -> Any:
    chrf = docmetrics.load("chrf").compute(data.testset)
    bleu = docmetrics.load("bleu").compute(data.testset)
    return [{"metric": rs[0].metric, "signature": str(rs[0].signature), "systems": [r.system for r in rs],
             "metric_scores": [r.score for r in rs]} for rs in (chrf, bleu)]


def shell_scores(printed: Any) -> Any:
    return [{k: m[k] for k in ("metric", "signature", "systems", "metric_scores")} for m in printed]


def results(data: Any) -> dict[str, Any]:
    return {"chrf": docmetrics.load("chrf").compute(data.testset), "bleu": docmetrics.load("bleu").compute(data.testset)}


def predicted_spans(path: Path, out: Path) -> Path:
    """The page's predictor: the humans' own spans for every system but the last, which finds nothing."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    last = list(rows[0]["scores"])[-1]
    counts: dict[str, int] = {}
    with out.open("w", encoding="utf-8") as f:
        for row in rows:
            doc = row["doc_id"].rsplit("_#_", 1)[0]
            counts[doc] = counts.get(doc, 0) + 1
            for system, judgement in row["scores"].items():
                judged = judgement[0] if isinstance(judgement, list) else judgement
                f.write(json.dumps({"system": system, "doc_id": row["doc_id"], "segment": counts[doc],
                                    "errors": [] if system == last else judged["errors"]}) + "\n")
    return out


# Each row: (name, the Python call -> JSON-ready value, the command's argv after the file -> the same part of its JSON)
Call = Callable[[Any, Path, Path], Any]
Argv = Callable[[Path, Path], list[object]]
Part = Callable[[Any], Any]
ROWS: list[tuple[str, Call, Argv, Part]] = [
    ("read_human+load+compute",
     lambda data, f, tmp: python_scores(data),
     lambda f, tmp: ["--genmt", f, "-m", "chrf", "bleu", "--resamples", "0"], shell_scores),
    ("meta_evaluate",
     lambda data, f, tmp: docmetrics.meta_evaluate(results(data), data, significance=200).to_dict(),
     lambda f, tmp: ["--genmt", f, "-m", "chrf", "bleu", "--resamples", "200"], lambda printed: printed),
    ("meta_evaluate-document",
     lambda data, f, tmp: docmetrics.meta_evaluate(results(data), data, levels=("system", "segment", "document"),
                                                   significance=0).to_dict(),
     lambda f, tmp: ["--genmt", f, "-m", "chrf", "bleu", "--resamples", "0", "--doc-level"], lambda printed: printed),
    ("human_clusters",
     lambda data, f, tmp: docmetrics.human_clusters(data, rule="wmt25").to_dict(),
     lambda f, tmp: ["rank", "--genmt", f, "--rule", "wmt25"], lambda printed: printed["ranking"]),
    ("autorank",
     lambda data, f, tmp: docmetrics.autorank(results(data), lp=data.lp).to_dict(),
     lambda f, tmp: ["rank", "-m", "chrf", "bleu", "--genmt", f],
     # the command adds the file's human clusters beside AutoRank (the cluster_agreement row)
     lambda printed: {k: v for k, v in printed.items() if k != "human_clusters"}),
    ("autorank_clusters",
     lambda data, f, tmp: docmetrics.judging.autorank_clusters(results(data), lp=data.lp, n=200).to_dict(),
     lambda f, tmp: ["rank", "-m", "chrf", "bleu", "--genmt", f, "--paired-bs", "--paired-bs-n", "200"],
     lambda printed: {k: v for k, v in printed.items() if k != "human_clusters"}),
    ("cluster_agreement",
     lambda data, f, tmp: [a.to_dict() for a in docmetrics.judging.cluster_agreement(
         docmetrics.human_clusters(data), docmetrics.autorank(results(data), lp=data.lp))],
     lambda f, tmp: ["rank", "-m", "chrf", "bleu", "--genmt", f],
     lambda printed: printed["human_clusters"]["agreement"]),
    ("compare_systems",
     lambda data, f, tmp: docmetrics.compare_systems(results(data)["bleu"]).to_dicts("bleu"),
     lambda f, tmp: ["--genmt", f, "-m", "bleu", "--paired-bs"], lambda printed: printed),
    ("span_f1",
     lambda data, f, tmp: docmetrics.span_f1(predicted_spans(f, tmp / "predicted.jsonl"), data).to_dict(),
     lambda f, tmp: ["--genmt", f, "--spans", predicted_spans(f, tmp / "predicted.jsonl")],
     lambda printed: printed["predictors"][0]),
]


@pytest.mark.parametrize("lp", ["en-de", "en-ja", "en-zh"])
@pytest.mark.parametrize("name, call, argv, part", ROWS, ids=[r[0] for r in ROWS])
def test_the_python_call_prints_the_commands_numbers(files, tmp_path, capsys, lp, name, call, argv, part):
    data = docmetrics.read_human(files[lp])
    python = plain(call(data, files[lp], tmp_path))
    printed = part(shell(capsys, *argv(files[lp], tmp_path)))
    assert differences(python, printed) == []


@pytest.mark.parametrize("lp, tokenizer", [("en-ja", "ja-mecab"), ("en-zh", "zh"), ("en-de", "13a")])
def test_bleu_takes_the_tokenizer_of_the_test_sets_pair(files, lp, tokenizer):
    data = docmetrics.read_human(files[lp])
    assert data.testset.lp == data.lp
    (result, *_) = docmetrics.load("bleu").compute(data.testset)
    assert f"tokenize:{tokenizer}" in str(result.signature)


def test_mtme_meta_evaluation_equals_the_mtme_command(capsys):
    data = docmetrics.read_human(MTME, lp="en-de")
    python = plain(docmetrics.meta_evaluate(results(data), data, significance=200).to_dict(layout="mtme"))
    printed = shell(capsys, "--mtme", MTME.parent, "-t", "wmt21.tedtalks", "-l", "en-de", "-m", "chrf", "bleu",
                    "--resamples", "200")
    # the command adds what its run wrote (written); where the data was read is the library's too
    assert set(printed) - set(python) == {"written"}
    assert differences(python, {k: printed[k] for k in python}) == []


def _embedded(page: Path) -> dict[str, Any]:
    import re

    found = re.search(r'<script type="application/json" id="docmetrics-data">(.*?)</script>',
                      page.read_text(encoding="utf-8"), re.S)
    assert found, f"{page}: no embedded data"
    return json.loads(found.group(1))


@pytest.mark.parametrize("lp", ["en-de", "en-ja"])
def test_write_report_from_python_carries_what_the_commands_page_carries(files, tmp_path, capsys, lp):
    """write_report(..., data=EvalSet) embeds the human segment scores with the human ranking, the gold error
    spans, the texts, the results and the PERM-BOTH matrices the command's --report embeds (issue 48 item 6);
    what differs is only what names the run: the title, the command typed, its inputs and the source's name."""
    data = docmetrics.read_human(files[lp])
    found = results(data)
    judged = docmetrics.meta_evaluate(found, data)
    docmetrics.write_report(tmp_path / "python.html", judged, results=found, data=data)
    code, _, err = run_cli(capsys, "--genmt", files[lp], "-m", "chrf", "bleu", "--report", tmp_path / "shell.html")
    assert code in (0, None), err
    python, shell = _embedded(tmp_path / "python.html"), _embedded(tmp_path / "shell.html")
    assert python["human"] and python["human"]["ranking"] and python["spans"] is not None
    for key in ("results", "texts", "human", "spans", "significance"):
        assert differences(python[key], shell[key]) == [], key
    assert [s["layout"] for s in python["sources"]] == [s["layout"] for s in shell["sources"]]
    assert differences(python["sources"][0]["data"], shell["sources"][0]["data"]) == []
    assert python["sources"][0]["name"] == f"meta_evaluate against {data.human.path}"


def test_write_report_without_data_takes_the_meta_evaluations_human_scores(files, tmp_path):
    data = docmetrics.read_human(files["en-de"])
    found = results(data)
    docmetrics.write_report(tmp_path / "p.html", docmetrics.meta_evaluate(found, data), results=found,
                            testset=data.testset)
    page = _embedded(tmp_path / "p.html")
    assert page["human"]["segments"] and page["human"]["ranking"]


def test_write_report_refuses_data_of_another_type(tmp_path):
    with pytest.raises(docmetrics.values.errors.UserError, match="data= takes the EvalSet"):
        docmetrics.write_report(tmp_path / "p.html", results={}, data="docmetrics/data/genmt/ted-ende.jsonl")
