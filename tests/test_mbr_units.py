"""MBR and rerank per paragraph (--unit paragraph with --paragraph-ids) and with the candidates in one JSONL file
(-c cands.jsonl), issue 49: the choices checked against sacrebleu computed here per paragraph independently (a
paragraph's chrF = corpus chrF of its segments), and the bad inputs as table rows."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from cli_fixtures import run_cli

import docmetrics
from docmetrics.values.io import read_lines

TED = Path(__file__).resolve().parents[1] / "docmetrics" / "data" / "ted"
SYSTEMS = sorted((TED / "sys").glob("*.txt"))


def corpus_chrf(hyps, refs):
    from sacrebleu.metrics import CHRF

    return CHRF().corpus_score(hyps, [refs]).score


def first_best(values, higher=True):
    target = max(values) if higher else min(values)
    return values.index(target)


def paragraph_ids(doc_ids):
    """Paragraphs of 3 lines within each document (the last one shorter), restarting at "p0" in each document:
    the same id in two documents is two paragraphs."""
    out, k, prev = [], 0, None
    for d in doc_ids:
        k = 0 if d != prev else k + 1
        prev = d
        out.append(f"p{k // 3}")
    return out


@pytest.fixture(scope="module")
def ted():
    cands = [read_lines(p) for p in SYSTEMS]
    ids = read_lines(TED / "docids.txt")
    pids = paragraph_ids(ids)
    spans = []  # (doc id, paragraph id, start, end), by hand
    for i, key in enumerate(zip(ids, pids)):
        if spans and spans[-1][:2] == key:
            spans[-1] = (*key, spans[-1][2], i + 1)
        else:
            spans.append((*key, i, i + 1))
    return cands, ids, pids, spans, read_lines(TED / "ref.txt")


@pytest.fixture()
def pid_file(ted, tmp_path):
    path = tmp_path / "paragraphs.txt"
    path.write_text("".join(p + "\n" for p in ted[2]), encoding="utf-8")
    return path


# -- per paragraph --------------------------------------------------------------------------------------------------
def test_paragraph_mbr_with_chrf_chooses_what_sacrebleu_computes_per_paragraph(ted, pid_file, capsys, tmp_path):
    cands, ids, pids, spans, _ = ted
    assert len(spans) == 9 and len({p for p in pids}) == 3  # 3 documents x 3 paragraphs, ids reused across docs
    expected = []
    for _, _, a, b in spans:
        texts = [c[a:b] for c in cands]
        n = len(texts)
        utilities = [math.fsum(corpus_chrf(texts[i], texts[j]) for j in range(n) if j != i) / (n - 1)
                     for i in range(n)]
        expected.append((utilities, first_best(utilities)))
    out_file = tmp_path / "chosen.txt"
    code, out, err = run_cli(capsys, "mbr", "-m", "chrf", "-c", *SYSTEMS, "--doc-ids", TED / "docids.txt",
                             "--unit", "paragraph", "--paragraph-ids", pid_file, "-f", "json", "-o", out_file)
    assert code == 0, err
    got = json.loads(out)
    assert got["signature"].endswith("|mbr|n:6|unit:paragraph|utility:mean") and got["unit"] == "paragraph"
    assert [(u["doc_id"], u["paragraph_id"], u["first_line"], u["last_line"]) for u in got["units"]] == \
        [(d, p, a + 1, b) for d, p, a, b in spans]
    for unit, (utilities, chosen) in zip(got["units"], expected):
        assert unit["utilities"] == pytest.approx(utilities, abs=1e-9)
        assert unit["chosen"] == chosen
    assert len({u["chosen"] for u in got["units"]}) > 1  # the paragraphs do not all choose alike: a real test
    lines = []
    for (_, _, a, b), (_, c) in zip(spans, expected):
        lines += cands[c][a:b]
    assert read_lines(out_file) == lines


def test_paragraph_rerank_against_the_reference_and_the_python_call_agree(ted, pid_file, capsys):
    cands, ids, pids, spans, ref = ted
    expected = [first_best([corpus_chrf(c[a:b], ref[a:b]) for c in cands]) for _, _, a, b in spans]
    names = [p.name for p in SYSTEMS]
    selection = docmetrics.rerank("chrf", dict(zip(names, cands)), references=ref, doc_ids=ids, unit="paragraph",
                                  paragraph_ids=pids)
    assert selection.chosen == expected
    assert [(u.doc_id, u.paragraph_id) for u in selection.units] == [(d, p) for d, p, _, _ in spans]
    code, out, err = run_cli(capsys, "rerank", "-m", "chrf", "-c", *SYSTEMS, "--doc-ids", TED / "docids.txt",
                             "-r", TED / "ref.txt", "--unit", "paragraph", "--paragraph-ids", pid_file, "-f", "json")
    assert code == 0, err
    assert [u["chosen"] for u in json.loads(out)["units"]] == expected
    assert "talk.1#p0\t1-3\t" in selection.to_text()


def test_one_paragraph_per_document_is_the_document_unit(ted):
    cands, ids, _, _, _ = ted
    systems = {f"s{k}": c for k, c in enumerate(cands)}
    by_doc = docmetrics.mbr("chrf", systems, doc_ids=ids)
    by_par = docmetrics.mbr("chrf", systems, doc_ids=ids, unit="paragraph", paragraph_ids=["x"] * len(ids))
    assert by_par.chosen == by_doc.chosen
    assert [u.utilities for u in by_par.units] == [u.utilities for u in by_doc.units]


PY_BAD = [
    ("paragraph without ids", dict(unit="paragraph"), docmetrics.SpecError, "unit=paragraph needs paragraph_ids="),
    ("ids without unit paragraph", dict(paragraph_ids="ids"), docmetrics.SpecError, "given with unit=document"),
    ("too few ids", dict(unit="paragraph", paragraph_ids=["a"] * 5), docmetrics.InputError, "5 paragraph ids for 24"),
    ("a string, not a list", dict(unit="paragraph", paragraph_ids="a" * 24), docmetrics.InputError,
     "a list of strings"),
]


@pytest.mark.parametrize("case, kwargs, error, said", PY_BAD, ids=[r[0] for r in PY_BAD])
def test_python_bad_paragraph_arguments(ted, case, kwargs, error, said):
    cands, ids, _, _, _ = ted
    if kwargs.get("paragraph_ids") == "ids":
        kwargs = dict(kwargs, paragraph_ids=ted[2])
    with pytest.raises(error, match=said):
        docmetrics.mbr("chrf", {"a": cands[0], "b": cands[1]}, doc_ids=ids, **kwargs)


# -- bad input from the command line: one row per case --------------------------------------------------------------
BAD = [
    ("--unit paragraph without --paragraph-ids", ["mbr", "-m", "chrf", "-c", "{sys0}", "{sys1}", "--unit", "paragraph"],
     ["--unit paragraph needs --paragraph-ids FILE"]),
    ("--paragraph-ids without --unit paragraph", ["mbr", "-m", "chrf", "-c", "{sys0}", "{sys1}", "--paragraph-ids",
                                                  "{pids}"], ["--paragraph-ids given with --unit document"]),
    ("--paragraph-ids of another length", ["rerank", "-m", "chrf", "-c", "{sys0}", "{sys1}", "-r", "{ref}", "--unit",
                                           "paragraph", "--paragraph-ids", "{short}"],
     ["{short}: 3 paragraph ids for 24 lines", "line-parallel"]),
    ("a paragraph id reappears", ["mbr", "-m", "chrf", "-c", "{sys0}", "{sys1}", "--unit", "paragraph",
                                  "--paragraph-ids", "{split}"], ["{split}, line 3", "'a'", "reappears"]),
    ("an empty paragraph id", ["mbr", "-m", "chrf", "-c", "{sys0}", "{sys1}", "--unit", "paragraph",
                               "--paragraph-ids", "{blank}"], ["{blank}, line 2", "empty paragraph id"]),
]


@pytest.mark.parametrize("case, argv, said", BAD, ids=[row[0] for row in BAD])
def test_bad_input_exits_2_with_one_message(case, argv, said, capsys, tmp_path, pid_file):
    files = {"short": "a\nb\nc\n", "split": "a\nb\na\n" + "c\n" * 21, "blank": "a\n \n" + "a\n" * 22}
    names = {"sys0": str(SYSTEMS[0]), "sys1": str(SYSTEMS[1]), "ref": str(TED / "ref.txt"), "pids": str(pid_file)}
    for key, text in files.items():
        (tmp_path / f"{key}.txt").write_text(text, encoding="utf-8")
        names[key] = str(tmp_path / f"{key}.txt")
    code, out, err = run_cli(capsys, *[a.format(**names) for a in argv])
    assert code == 2, (out, err)
    assert "Traceback" not in err and [": error: " in line for line in err.splitlines()].count(True) == 1, err
    for text in said:
        assert text.format(**names) in err, err


# -- candidates in one JSONL file -----------------------------------------------------------------------------------
def write_jsonl(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def segment_rows(ted, with_paragraphs=False):
    cands, ids, pids, _, ref = ted
    rows = []
    for i in range(len(ids)):
        row = {"doc_id": ids[i], "ref": ref[i], "candidates": [c[i] for c in cands]}
        if with_paragraphs:
            row["paragraph_id"] = pids[i]
        rows.append(row)
    return rows


def document_rows(ted):
    cands, ids, _, _, ref = ted
    rows = []
    for d in dict.fromkeys(ids):
        lines = [i for i, x in enumerate(ids) if x == d]
        rows.append({"doc_id": d, "ref": [ref[i] for i in lines], "candidates": [[c[i] for i in lines] for c in cands]})
    return rows


@pytest.mark.parametrize("layout", ["segment", "document"])
def test_a_jsonl_of_candidates_chooses_as_the_text_files_do(ted, layout, capsys, tmp_path):
    path = write_jsonl(tmp_path / "cands.jsonl", segment_rows(ted) if layout == "segment" else document_rows(ted))
    code, out, err = run_cli(capsys, "mbr", "-m", "chrf", "-c", path, "-f", "json", "-o", tmp_path / "a.txt")
    assert code == 0, err
    from_jsonl = json.loads(out)
    code, out, err = run_cli(capsys, "mbr", "-m", "chrf", "-c", *SYSTEMS, "--doc-ids", TED / "docids.txt",
                             "-r", TED / "ref.txt", "-f", "json", "-o", tmp_path / "b.txt")
    assert code == 0, err
    from_text = json.loads(out)
    assert from_jsonl["candidates"] == [f"{path} candidate {k}" for k in range(len(SYSTEMS))]
    assert from_jsonl["units"] == from_text["units"]  # utilities, choices and reference scores (ref read from JSONL)
    assert "reference_scores" in from_jsonl["units"][0]
    assert read_lines(tmp_path / "a.txt") == read_lines(tmp_path / "b.txt")


def test_a_jsonl_carries_paragraph_ids_for_the_paragraph_unit(ted, capsys, tmp_path):
    from docmetrics.values.candidates import read_candidates

    path = write_jsonl(tmp_path / "cands.jsonl", segment_rows(ted, with_paragraphs=True))
    read = read_candidates(str(path))
    assert read.layout == "segment" and read.paragraph_ids == ted[2] and len(read.testset.systems) == 6
    code, out, err = run_cli(capsys, "rerank", "-m", "chrf", "-c", path, "--unit", "paragraph", "-f", "json")
    assert code == 0, err
    cands, _, _, spans, ref = ted
    expected = [first_best([corpus_chrf(c[a:b], ref[a:b]) for c in cands]) for _, _, a, b in spans]
    assert [u["chosen"] for u in json.loads(out)["units"]] == expected
    code, out, err = run_cli(capsys, "rerank", "-m", "chrf", "-c", path, "-f", "json")  # per document: ids unused
    assert code == 0, err
    assert len(json.loads(out)["units"]) == 3


SEG = {"doc_id": "d", "src": "s", "candidates": ["a", "b", "c"]}
DOC = {"doc_id": "d", "candidates": [["a", "b"], ["c", "d"]]}
JSONL_BAD = [
    ("missing candidates", [SEG, {"doc_id": "d", "src": "s"}], [], ["{f}, line 2, field candidates: missing"]),
    ("ragged candidate counts", [SEG, dict(SEG, candidates=["a", "b"])], [],
     ["{f}, line 2, field candidates: 2 candidates, and line 1 has 3"]),
    ("a non-string candidate", [SEG, dict(SEG, candidates=["a", 5, "c"])], [],
     ["{f}, line 2, field candidates[1]: 5 is not a string"]),
    ("one candidate", [dict(SEG, candidates=["a"])], [], ["{f}, line 1, field candidates: 1 candidate;", "N >= 2"]),
    ("candidates not a list", [dict(SEG, candidates="a b")], [], ["{f}, line 1, field candidates: \"a b\" is not a list"]),
    ("a field on some lines only", [SEG, {"doc_id": "d", "candidates": ["a", "b", "c"]}], [],
     ["{f}, line 2, field src: missing here but given on line 1"]),
    ("a non-string source", [SEG, dict(SEG, src=["s"])], [], ["{f}, line 2, field src:", "is not a string"]),
    ("layouts mixed", [SEG, dict(DOC, candidates=[["a"], ["b"], ["c"]])], [],
     ["{f}, line 2, field candidates: a document's candidates, and line 1 has a segment's"]),
    ("a document's candidates of different lengths", [DOC, dict(DOC, doc_id="e", candidates=[["a", "b"], ["c"]])],
     [], ["{f}, line 2, field candidates[1]: 1 lines, and candidates[0] has 2"]),
    ("a document without doc_id", [{"candidates": [["a"], ["b"]]}], [], ["{f}, line 1, field doc_id: missing"]),
    ("a document's src of another length", [dict(DOC, src=["x"])], [], ["{f}, line 1, field src: 1 lines"]),
    ("a document's line not a string", [dict(DOC, candidates=[["a", None], ["c", "d"]])], [],
     ["{f}, line 1, field candidates[0][1]: null is not a string"]),
    ("not JSON", [SEG, "{oops"], [], ["{f}, line 2"]),
    ("-s beside the JSONL", [SEG], ["-s", "{f}"], ["is JSONL", "drop -s"]),
    ("two JSONL files", [SEG], ["{f}"], ["ONE JSONL file"]),
]


@pytest.mark.parametrize("case, rows, extra, said", JSONL_BAD, ids=[r[0] for r in JSONL_BAD])
def test_a_bad_jsonl_of_candidates_exits_2_naming_file_line_and_field(case, rows, extra, said, capsys, tmp_path):
    path = write_jsonl(tmp_path / "cands.jsonl", rows)
    other = write_jsonl(tmp_path / "other.jsonl", rows)
    extra = [str(other) if e == "{f}" and "-s" not in extra else e.format(f=path) for e in extra]
    code, out, err = run_cli(capsys, "mbr", "-m", "chrf", "-c", path, *extra)
    assert code == 2, (out, err)
    assert "Traceback" not in err and [": error: " in line for line in err.splitlines()].count(True) == 1, err
    for text in said:
        assert text.format(f=path) in err, err


# -- encoder rows at N = 16: the pass's chunks keep a source's units together -----------------------------------
def test_plan_chunks_end_where_the_key_changes():
    from docmetrics.plugin.backbone import Backbone, Unit
    from docmetrics.runtime import engines

    class BySource(Backbone):
        capabilities = frozenset()

        def load(self): ...
        def score(self, units): ...
        def fingerprint(self): return "x"
        def chunk_key(self, item): return item.src

    sizes = [5, 3, 7, 4, 12, 1, 6]  # units per source; 12 alone is more than a chunk of 8
    units = [Unit(mt=f"m{k}", src=f"s{g:02d}") for g, n in enumerate(sizes) for k in range(n)]
    units = units[::-1]  # given out of order: the key sorts them
    chunks = engines.plan_chunks(BySource("m"), units, 8)
    assert sorted(i for c in chunks for i in c) == list(range(len(units)))
    assert all(len(c) <= 8 for c in chunks)
    groups = [[units[i].src for i in c] for c in chunks]
    assert [sorted(set(g)) for g in groups] == [["s00", "s01"], ["s02"], ["s03"], ["s04"], ["s04", "s05"], ["s06"]]
    assert [len(g) for g in groups] == [8, 7, 4, 8, 5, 6]


def test_mbr_at_n_16_embeds_each_distinct_text_once_across_chunks(tiny_comet_da_dir, ted):
    """16 candidates per line of the TED slice: more than one chunk (1024 units) of N x N pairs; the encoder
    still embeds each distinct source and candidate once (it embedded some twice when chunks cut a line's
    pairs apart)."""
    import random

    from docmetrics_backbones.comet.testing import counting_embedded_rows

    _, _, _, _, ref = ted
    src = read_lines(TED / "src.txt")
    rng = random.Random(5)
    cands = []
    for _ in range(16):
        out = []
        for line in ref:
            words = line.split()
            for _ in range(2):
                if len(words) > 3 and rng.random() < 0.6:
                    del words[rng.randrange(len(words))]
            out.append(" ".join(words))
        cands.append(out)
    pairs = sum(len({c[i] for c in cands}) ** 2 for i in range(len(src)))
    assert pairs > 1024  # the premise: several chunks
    with counting_embedded_rows() as rows:
        docmetrics.mbr(f"doc-comet:k=0,model={tiny_comet_da_dir}", {f"c{k}": c for k, c in enumerate(cands)},
                       sources=src, unit="segment")
    assert sum(rows) == len(set(src) | {t for c in cands for t in c})


def test_pruning_per_paragraph_keeps_each_paragraphs_k_best_by_qe(tiny_comet_qe_dir, ted):
    """--prune-top-k per paragraph: the QE rerank is per paragraph too, and MBR runs among its K best (chrF of
    the paragraph's lines, against sacrebleu)."""
    cands, ids, pids, spans, _ = ted
    src = read_lines(TED / "src.txt")
    named = {f"c{k}": c for k, c in enumerate(cands)}
    qe_spec = f"doc-comet-qe:k=0,model={tiny_comet_qe_dir}"
    qe = docmetrics.rerank(qe_spec, named, sources=src, doc_ids=ids, unit="paragraph", paragraph_ids=pids)
    pruned = docmetrics.mbr("chrf", named, sources=src, doc_ids=ids, unit="paragraph", paragraph_ids=pids,
                            prune_top_k=3, prune_metric=qe_spec)
    assert pruned.prune_signature == qe.signature and len(pruned.units) == len(spans) == 9
    for unit, q, (_, _, a, b) in zip(pruned.units, qe.units, spans):
        kept = sorted(sorted(range(len(cands)), key=lambda c: (-q.utilities[c], c))[:3])
        assert [k for k, u in enumerate(unit.utilities) if u is not None] == kept
        for i in kept:
            mine = [corpus_chrf(cands[i][a:b], cands[j][a:b]) for j in kept if j != i]
            assert unit.utilities[i] == pytest.approx(math.fsum(mine) / 2, abs=1e-9)
        assert unit.chosen in kept


def test_a_per_document_jsonl_carries_paragraph_id_lists(ted, capsys, tmp_path):
    cands, ids, pids, spans, _ = ted
    rows = []
    for d in dict.fromkeys(ids):
        lines = [i for i, x in enumerate(ids) if x == d]
        rows.append({"doc_id": d, "paragraph_id": [pids[i] for i in lines],
                     "candidates": [[c[i] for i in lines] for c in cands]})
    path = write_jsonl(tmp_path / "docs.jsonl", rows)
    code, out, err = run_cli(capsys, "mbr", "-m", "chrf", "-c", path, "--unit", "paragraph", "-f", "json")
    assert code == 0, err
    text = docmetrics.mbr("chrf", {f"c{k}": c for k, c in enumerate(cands)}, doc_ids=ids, unit="paragraph",
                          paragraph_ids=pids)
    got = json.loads(out)["units"]
    assert [(u["doc_id"], u["paragraph_id"]) for u in got] == [(d, p) for d, p, _, _ in spans]
    assert [u["utilities"] for u in got] == [u.utilities for u in text.units]
