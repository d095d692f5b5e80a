"""MBR decoding and reranking (issue 49): docmetrics.mbr / docmetrics.rerank and the commands over them, checked
against sacrebleu computed independently here (document chrF = corpus chrF of its segments; sentence chrF; TER,
lower is better) and, at the sentence level on a tiny COMET, against comet-mbr's own functions."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from cli_fixtures import run_cli

import docmetrics
from docmetrics.judging.mbr import best
from docmetrics.values.io import read_lines, read_testset

TED = Path(__file__).resolve().parents[1] / "docmetrics" / "data" / "ted"
SYSTEMS = sorted((TED / "sys").glob("*.txt"))


@pytest.fixture(scope="module")
def ted():
    cands = [read_lines(p) for p in SYSTEMS]
    ids = read_lines(TED / "docids.txt")
    docs: list[tuple[str, int, int]] = []
    for i, d in enumerate(ids):
        if docs and docs[-1][0] == d:
            docs[-1] = (d, docs[-1][1], i + 1)
        else:
            docs.append((d, i, i + 1))
    return cands, ids, docs, read_lines(TED / "ref.txt")


def first_best(values, higher=True):
    """Independent argmax/argmin with ties to the first."""
    target = max(values) if higher else min(values)
    return values.index(target)


def corpus_chrf(hyps, refs):
    from sacrebleu.metrics import CHRF

    return CHRF().corpus_score(hyps, [refs]).score


def sentence_chrf(hyp, ref):
    from sacrebleu.metrics import CHRF

    return CHRF().sentence_score(hyp, [ref]).score


def mbr_by_hand(units, score):
    """For each unit (a list of candidate texts), (utilities, chosen): mean score against every other candidate."""
    out = []
    for texts in units:
        n = len(texts)
        utilities = [math.fsum(score(texts[i], texts[j]) for j in range(n) if j != i) / (n - 1) for i in range(n)]
        out.append((utilities, first_best(utilities)))
    return out


def ted_argv(*extra):
    return ["-c", *SYSTEMS, "--doc-ids", TED / "docids.txt", *extra]


# -- MBR on the shipped TED slice, against sacrebleu --------------------------------------------------------------
def test_document_mbr_with_chrf_chooses_what_sacrebleu_computes(ted, capsys, tmp_path):
    cands, ids, docs, _ = ted
    expected = mbr_by_hand([[c[a:b] for c in cands] for _, a, b in docs], corpus_chrf)
    code, out, err = run_cli(capsys, "mbr", "-m", "chrf", *ted_argv("-f", "json", "-o", tmp_path / "chosen.txt"))
    assert code == 0, err
    got = json.loads(out)
    assert [u["chosen"] for u in got["units"]] == [c for _, c in expected]
    for unit, (utilities, _) in zip(got["units"], expected):
        assert unit["utilities"] == pytest.approx(utilities, abs=1e-9)
    assert [u["doc_id"] for u in got["units"]] == [d for d, _, _ in docs]
    assert got["signature"].startswith("chrf|") and got["signature"].endswith("|mbr|n:6|unit:document|utility:mean")
    lines = []
    for (_, a, b), (_, c) in zip(docs, expected):
        lines += cands[c][a:b]
    assert read_lines(tmp_path / "chosen.txt") == lines


def test_segment_mbr_with_chrf_chooses_what_sentence_chrf_computes(ted, capsys):
    cands, _, _, _ = ted
    expected = mbr_by_hand([[c[i] for c in cands] for i in range(len(cands[0]))], sentence_chrf)
    code, out, err = run_cli(capsys, "mbr", "-m", "chrf", *ted_argv("--unit", "segment", "-f", "json"))
    assert code == 0, err
    got = json.loads(out)
    assert len(got["units"]) == len(cands[0])
    assert [u["chosen"] for u in got["units"]] == [c for _, c in expected]
    for unit, (utilities, _) in zip(got["units"], expected):
        assert unit["utilities"] == pytest.approx(utilities, abs=1e-9)
    assert got["signature"].endswith("|mbr|n:6|unit:segment|utility:mean")


def test_the_command_prints_the_python_calls_to_dict(ted, capsys):
    testset = read_testset([str(p) for p in SYSTEMS], None, None, str(TED / "docids.txt"))
    selection = docmetrics.mbr("chrf", testset, matrix=True)
    code, out, err = run_cli(capsys, "mbr", "-m", "chrf", *ted_argv("-f", "json", "--matrix"))
    assert code == 0, err
    assert json.loads(out) == json.loads(json.dumps(selection.to_dict()))
    code, out, err = run_cli(capsys, "mbr", "-m", "chrf", *ted_argv())
    assert code == 0 and out == selection.to_text()


def test_the_matrix_holds_each_candidate_scored_against_each_other(ted):
    cands, ids, docs, _ = ted
    selection = docmetrics.mbr("chrf", {f"s{k}": c for k, c in enumerate(cands)}, doc_ids=ids, matrix=True)
    for unit, (_, a, b) in zip(selection.units, docs):
        for i in range(len(cands)):
            assert unit.matrix[i][i] is None
            for j in range(len(cands)):
                if i != j:
                    assert unit.matrix[i][j] == pytest.approx(corpus_chrf(cands[i][a:b], cands[j][a:b]), abs=1e-9)


def test_a_true_reference_is_scored_beside_and_never_chooses(ted):
    cands, ids, docs, ref = ted
    names = {f"s{k}": c for k, c in enumerate(cands)}
    plain = docmetrics.mbr("chrf", names, doc_ids=ids)
    with_ref = docmetrics.mbr("chrf", names, doc_ids=ids, references=ref)
    assert with_ref.chosen == plain.chosen
    for unit, (_, a, b) in zip(with_ref.units, docs):
        assert unit.reference_scores == pytest.approx([corpus_chrf(c[a:b], ref[a:b]) for c in cands], abs=1e-9)


def test_lower_is_better_metric_chooses_the_lowest_utility(ted):
    """TER's Result says lower is better: the candidate with the fewest expected edits wins."""
    from sacrebleu.metrics import TER

    cands, ids, docs, _ = ted
    expected = []
    for _, a, b in docs:
        texts = [c[a:b] for c in cands]
        u = [math.fsum(TER().corpus_score(texts[i], [texts[j]]).score for j in range(6) if j != i) / 5
             for i in range(6)]
        expected.append((u, first_best(u, higher=False)))
    selection = docmetrics.mbr("ter", {f"s{k}": c for k, c in enumerate(cands)}, doc_ids=ids)
    assert selection.higher_is_better is False
    assert selection.chosen == [c for _, c in expected]
    for unit, (u, _) in zip(selection.units, expected):
        assert unit.utilities == pytest.approx(u, abs=1e-9)
    assert any(first_best(u, higher=True) != c for u, c in expected), "the test must tell the directions apart"


@pytest.mark.parametrize("order, chosen", [(("x", "x", "y"), 0), (("y", "x", "x"), 1)])
def test_ties_go_to_the_first_candidate(order, chosen):
    texts = {"x": ["the cat sat on the mat"], "y": ["a dog ran in the park"]}
    selection = docmetrics.mbr("chrf", {f"c{k}": texts[t] for k, t in enumerate(order)})
    u = selection.units[0].utilities
    assert u[order.index("x")] == u[len(order) - 1 - order[::-1].index("x")]  # the two copies tie
    assert selection.chosen == [chosen]
    assert "first candidate" in selection.to_dict()["ties"]


@pytest.mark.parametrize("values, higher, expected", [
    ([1.0, 3.0, 3.0], True, 1), ([1.0, 3.0, 3.0], False, 0), ([None, 2.0, 1.0], True, 1), ([2.0, 2.0], False, 0),
])
def test_best_is_direction_aware_with_ties_to_the_first(values, higher, expected):
    assert best(values, higher) == expected


# -- rerank ------------------------------------------------------------------------------------------------------
def test_rerank_with_a_reference_chooses_the_per_document_best_against_it(ted, capsys, tmp_path):
    cands, _, docs, ref = ted
    expected = [first_best([corpus_chrf(c[a:b], ref[a:b]) for c in cands]) for _, a, b in docs]
    code, out, err = run_cli(capsys, "rerank", "-m", "chrf", "-r", TED / "ref.txt",
                             *ted_argv("-f", "json", "-o", tmp_path / "oracle.txt"))
    assert code == 0, err
    got = json.loads(out)
    assert [u["chosen"] for u in got["units"]] == expected
    for unit, (_, a, b) in zip(got["units"], docs):
        assert unit["utilities"] == pytest.approx([corpus_chrf(c[a:b], ref[a:b]) for c in cands], abs=1e-9)
    assert got["signature"].endswith("|rerank|n:6|unit:document|oracle:yes")
    lines = []
    for (_, a, b), c in zip(docs, expected):
        lines += cands[c][a:b]
    assert read_lines(tmp_path / "oracle.txt") == lines


# -- bad input: one row per case, exit 2 and one message naming the file or option and the fix ------------------------
BAD = [
    ("different lengths", ["mbr", "-m", "chrf", "-c", "{sys0}", "{short}"], ["{short}: 3 lines", "line-parallel"]),
    ("one candidate", ["mbr", "-m", "chrf", "-c", "{sys0}"], ["1 was given", "{sys0}", "-c A.txt B.txt"]),
    ("one candidate given twice", ["rerank", "-m", "chrf", "-c", "{sys0}", "{sys0}", "-r", "{ref}"],
     ["1 was given", "N >= 2"]),
    ("rerank by a reference-based metric without -r", ["rerank", "-m", "chrf", "-c", "{sys0}", "{sys1}"],
     ["reference-based", "-r/--reference FILE", "QE metric"]),
    ("an unknown unit", ["mbr", "-m", "chrf", "-c", "{sys0}", "{sys1}", "--unit", "page"],
     ["--unit", "invalid choice"]),
    ("prune-top-k without a prune metric", ["mbr", "-m", "chrf", "-c", "{sys0}", "{sys1}", "--prune-top-k", "2"],
     ["--prune-top-k K", "--prune-metric QE_SPEC"]),
    ("prune-top-k larger than N", ["mbr", "-m", "chrf", "-c", "{sys0}", "{sys1}", "--prune-top-k", "3",
                                   "--prune-metric", "chrf"], ["--prune-top-k 3", "from 2 to 2"]),
    ("-o is a candidate", ["mbr", "-m", "chrf", "-c", "{sys0}", "{sys1}", "-o", "{sys1}"], ["-o", "written over"]),
]


@pytest.mark.parametrize("case, argv, said", BAD, ids=[row[0] for row in BAD])
def test_bad_input_exits_2_with_one_message(case, argv, said, capsys, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("a\nb\nc\n", encoding="utf-8")
    names = {"sys0": str(SYSTEMS[0]), "sys1": str(SYSTEMS[1]), "short": str(short), "ref": str(TED / "ref.txt")}
    code, out, err = run_cli(capsys, *[a.format(**names) for a in argv])
    assert code == 2, (out, err)
    assert "Traceback" not in err and [": error: " in line for line in err.splitlines()].count(True) == 1, err
    for text in said:
        assert text.format(**names) in err, err


def test_python_errors_are_docmetrics_errors(ted):
    cands, ids, _, _ = ted
    with pytest.raises(docmetrics.InputError, match="1 was given"):
        docmetrics.mbr("chrf", {"a": cands[0]})
    with pytest.raises(docmetrics.SpecError, match="reference-based"):
        docmetrics.rerank("chrf", {"a": cands[0], "b": cands[1]})
    with pytest.raises(docmetrics.SpecError, match="unit="):
        docmetrics.mbr("chrf", {"a": cands[0], "b": cands[1]}, unit="page")


@pytest.mark.slow  # a fresh process
def test_the_api_and_help_import_no_torch():
    code = ("import sys, contextlib, io\nimport docmetrics\nassert callable(docmetrics.mbr) and "
            "callable(docmetrics.rerank)\nfrom docmetrics.cli import main\nfor cmd in ('mbr', 'rerank'):\n"
            "    try:\n        with contextlib.redirect_stdout(io.StringIO()):\n            main([cmd, '--help'])\n"
            "    except SystemExit:\n        pass\nassert 'torch' not in sys.modules\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


# -- a tiny COMET: comet-mbr's choice, one embedding per distinct text, QE rows ---------------------------------------
SENTENCES = 5


@pytest.fixture(scope="module")
def sentence_candidates(ted):
    cands, _, _, _ = ted
    src = read_lines(TED / "src.txt")[:SENTENCES]
    return src, [c[:SENTENCES] for c in cands[:4]]


def test_sentence_mbr_on_a_tiny_comet_equals_comet_mbr(tiny_comet_da_dir, sentence_candidates):
    import comet
    import torch
    from comet.cli.mbr import build_embeddings, mbr_decoding

    src, cands = sentence_candidates
    n = len(cands)
    selection = docmetrics.mbr(f"doc-comet:k=0,model={tiny_comet_da_dir}", {f"c{k}": c for k, c in enumerate(cands)},
                               sources=src, unit="segment")
    model = comet.load_from_checkpoint(str(tiny_comet_da_dir / "checkpoints" / "model.ckpt"))
    model.eval()
    flat = [cands[j][i] for i in range(SENTENCES) for j in range(n)]  # comet-mbr's order: the samples of a source
    src_emb, mt_emb = build_embeddings(src, flat, model, batch_size=64)
    matrix = mbr_decoding(src_emb, mt_emb.reshape(SENTENCES, n, -1), model)
    assert selection.chosen == torch.argmax(matrix, dim=1).tolist()
    for unit, row in zip(selection.units, matrix.tolist()):
        assert unit.utilities == pytest.approx(row, abs=1e-5)


def test_the_utility_matrix_embeds_each_distinct_text_once(tiny_comet_da_dir, sentence_candidates):
    """N candidates per unit make N(N-1) pairs, but the encoder sees each distinct text (source, candidate)
    once: the pairs reuse the embeddings."""
    from docmetrics_backbones.comet.testing import counting_embedded_rows

    src, cands = sentence_candidates
    with counting_embedded_rows() as rows:
        docmetrics.mbr(f"doc-comet:k=0,model={tiny_comet_da_dir}", {f"c{k}": c for k, c in enumerate(cands)},
                       sources=src, unit="segment")
    distinct = set(src) | {t for c in cands for t in c}
    assert sum(rows) == len(distinct)
    n = len(cands)
    assert sum(rows) < SENTENCES * n * (n - 1)  # what naive pairwise scorings would embed at least (hyp rows)


def test_pruning_keeps_the_k_best_by_qe_then_runs_mbr_among_them(tiny_comet_da_dir, tiny_comet_qe_dir,
                                                                  sentence_candidates):
    src, cands = sentence_candidates
    named = {f"c{k}": c for k, c in enumerate(cands)}
    qe_spec = f"doc-comet-qe:k=0,model={tiny_comet_qe_dir}"
    qe = docmetrics.rerank(qe_spec, named, sources=src, unit="segment")
    pruned = docmetrics.mbr("chrf", named, sources=src, unit="segment", prune_top_k=2, prune_metric=qe_spec,
                            matrix=True)
    assert pruned.prune_signature == qe.signature and "|prune-top-k:2" in pruned.signature
    for i, (unit, q) in enumerate(zip(pruned.units, qe.units)):
        kept = sorted(sorted(range(len(cands)), key=lambda c: (-q.utilities[c], c))[:2])
        assert [k for k, u in enumerate(unit.utilities) if u is not None] == kept
        a, b = kept
        assert unit.utilities[a] == pytest.approx(sentence_chrf(cands[a][i], cands[b][i]), abs=1e-9)
        assert unit.utilities[b] == pytest.approx(sentence_chrf(cands[b][i], cands[a][i]), abs=1e-9)
        assert unit.chosen in kept


QE_BAD = [
    ("QE metric given -r in rerank", "rerank", "doc-comet-qe:k=0,model={qe}", ["-r", "{ref}"],
     ["QE metric", "{ref}", "drop -r/--reference"]),
    ("QE metric in mbr", "mbr", "doc-comet-qe:k=0,model={qe}", [], ["scores without a reference", "rerank"]),
    ("windows of 2 segments per segment", "rerank", "slide:w=2,s=1,model={kiwi}", ["--unit", "segment"],
     ["--unit segment", "several segments", "--unit document"]),
]


@pytest.mark.parametrize("case, command, spec, extra, said", QE_BAD, ids=[row[0] for row in QE_BAD])
def test_qe_metric_misuse_exits_2(case, command, spec, extra, said, tiny_comet_qe_dir, tiny_kiwi_dir, capsys):
    names = {"ref": str(TED / "ref.txt"), "qe": str(tiny_comet_qe_dir), "kiwi": str(tiny_kiwi_dir)}
    src = TED / "src.txt"
    code, out, err = run_cli(capsys, command, "-m", spec.format(**names), "-c",
                             SYSTEMS[0], SYSTEMS[1], "-s", src, "--doc-ids", TED / "docids.txt",
                             *[a.format(**names) for a in extra])
    assert code == 2, (out, err)
    assert "Traceback" not in err and [": error: " in line for line in err.splitlines()].count(True) == 1, err
    for text in said:
        assert text.format(**names) in err, err


@pytest.mark.slow  # builds a tiny MetricX (mT5)
def test_mbr_with_metricx_chooses_the_lowest_expected_error(tmp_path, sentence_candidates):
    """MetricX's Result says lower is better: the candidate with the lowest mean error against the others wins,
    each pair's score the one a separate scoring of that pair gives."""
    from docmetrics_backbones.metricx.testing import build_tiny_metricx

    tiny = build_tiny_metricx(tmp_path / "metricx", seed=0)
    spec = f"metricx24:model={tiny.model},tokenizer={tiny.tokenizer}"
    src, cands = sentence_candidates
    n = len(cands)
    selection = docmetrics.mbr(spec, {f"c{k}": c for k, c in enumerate(cands)}, sources=src, unit="segment")
    assert selection.higher_is_better is False
    metric = docmetrics.load(spec)
    pair = {(i, j): metric.score(cands[i], sources=src, references=cands[j]) for i in range(n) for j in range(n)
            if i != j}
    lowest_differs = False
    for s, unit in enumerate(selection.units):
        utilities = [math.fsum(pair[i, j].units[s].score for j in range(n) if j != i) / (n - 1) for i in range(n)]
        assert unit.utilities == pytest.approx(utilities, abs=1e-5)
        assert unit.chosen == first_best(utilities, higher=False)
        lowest_differs |= first_best(utilities, higher=True) != unit.chosen
    assert lowest_differs, "the test must tell the directions apart"
