"""Doc-COMET and Doc-COMET-QE (Vernikos et al. 2022) on tiny offline COMET models.

Every score is checked against an independent computation: the context strings are built here by
hand ("c1 </s> c2 </s> current", the previous sentences of the same document, from the side the
paper prescribes) and scored with unbabel-comet's own ``enable_context()`` + ``predict()``.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from docmetrics_backbones.comet.testing import build_tiny_comet, sample_sentences

from docmetrics import api
from docmetrics.cli import main
from docmetrics.plugin import presets
from docmetrics.values.errors import CapabilityError, InputError, ModelError, SpecError

SEP = " </s> "  # the paper's code: " {} ".format(tokenizer.sep_token), </s> for XLM-R


# -- data: 4 documents of 4, 1, 2 and 3 sentences, three systems -------------------------------------
def _data():
    pool = sample_sentences(200, seed=21)
    en = [s for i, s in enumerate(pool) if i % 2 == 0 and len(s.split()) <= 14]
    de = [s for i, s in enumerate(pool) if i % 2 == 1 and len(s.split()) <= 14]
    ids = ["talk.a"] * 4 + ["talk.b"] + ["talk.c"] * 2 + ["talk.d"] * 3
    n = len(ids)
    src, ref = en[:n], de[:n]
    sys_a = de[n:2 * n]
    sys_b = list(sys_a)
    sys_b[1], sys_b[5], sys_b[8] = de[2 * n], de[2 * n + 1], de[2 * n + 2]  # B agrees with A elsewhere
    sys_c = list(ref)  # a system that copies the reference
    return {"src": src, "ref": ref, "ids": ids, "systems": {"A": sys_a, "B": sys_b, "C": sys_c}}


DATA = _data()


def previous_by_hand(sents: list[str], ids: list[str], i: int, k: int) -> list[str]:
    """The previous k sentences of line i's document (contiguous run of the same id)."""
    out: list[str] = []
    j = i - 1
    while j >= 0 and ids[j] == ids[i] and len(out) < k:
        out.insert(0, sents[j])
        j -= 1
    return out


def joined(ctx: list[str], current: str) -> str:
    return SEP.join(ctx + [current])


def _load_comet(d: Path):
    import comet

    return comet.load_from_checkpoint(str(d / "checkpoints" / "model.ckpt"))


def comet_predict(model, samples: list[dict], context: bool) -> list[float]:
    """unbabel-comet's own predict (with COMET's enable_context() pooling when ``context``)."""
    model.use_context = False
    if context:
        model.enable_context()
        assert model.use_context
    try:
        return list(model.predict(samples, batch_size=8, gpus=0, progress_bar=False).scores)
    finally:
        model.use_context = False


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Tiny models run faster on one thread (no thread hand-offs on a busy machine); restored after."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def da_model(tiny_comet_da_dir):
    return _load_comet(tiny_comet_da_dir)


@pytest.fixture(scope="module")
def qe_model(tiny_comet_qe_dir):
    return _load_comet(tiny_comet_qe_dir)


_SCORED: dict = {}


def score(spec: str, data=DATA, refs=True, fresh=False):
    """Results by system; on DATA, remembered per (spec, refs) unless ``fresh``."""
    key = (spec, refs)
    if data is DATA and not fresh and key in _SCORED:
        return _SCORED[key]
    metric = api.load(spec, device="cpu")
    out = metric.score_systems(data["systems"], sources=data["src"],
                               references=data["ref"] if refs else None, doc_ids=data["ids"])
    if data is DATA:
        _SCORED[key] = out
    return out


def expected_doc_comet(model, k: int, hyp_context: str, data=DATA) -> dict[str, list[float]]:
    src, ref, ids = data["src"], data["ref"], data["ids"]
    samples, owners = [], []
    for name, hyp in data["systems"].items():
        for i in range(len(ids)):
            hyp_side = ref if hyp_context == "ref" else hyp
            samples.append({
                "src": joined(previous_by_hand(src, ids, i, k), src[i]),
                "mt": joined(previous_by_hand(hyp_side, ids, i, k), hyp[i]),
                "ref": joined(previous_by_hand(ref, ids, i, k), ref[i]),
            })
            owners.append(name)
    scores = comet_predict(model, samples, context=True)
    out: dict[str, list[float]] = {}
    for name, s in zip(owners, scores):
        out.setdefault(name, []).append(s)
    return out


def check_against(results, expected, data=DATA):
    ids = data["ids"]
    for name, exp in expected.items():
        r = results[name]
        got = [u.score for u in r.units]
        assert got == pytest.approx(exp, abs=1e-6)
        assert [(u.doc_id, u.start, u.end) for u in r.units] == [(ids[i], i, i + 1) for i in range(len(ids))]
        assert r.score == pytest.approx(sum(exp) / len(exp), abs=1e-6)
        for doc in r.docs:
            lines = [i for i, d in enumerate(ids) if d == doc.doc_id]
            assert doc.units == len(lines)
            assert doc.score == pytest.approx(sum(exp[i] for i in lines) / len(lines), abs=1e-6)
        cov = r.coverage
        assert (cov.segments_total, cov.segments_scored, cov.units) == (len(ids),) * 3
        assert cov.documents_total == cov.documents_scored == 4
        assert cov.units_truncated == 0


# -- the definition, against COMET's own enable_context() + predict ---------------------------------
@pytest.mark.parametrize("hyp_context", ["ref", "mt"])
def test_doc_comet_equals_comet_enable_context(hyp_context, da_model, tiny_comet_da_dir):
    results = score(f"doc-comet:k=2,hyp-context={hyp_context},model={tiny_comet_da_dir}")
    check_against(results, expected_doc_comet(da_model, 2, hyp_context))
    for r in results.values():
        assert r.coverage.counters == {"contexts_shortened": 0, "context_sentences_dropped": 0}


def test_reference_context_and_hypothesis_context_differ(tiny_comet_da_dir):
    """The paper's rule (hypothesis gets REFERENCE context) and the Table 3 ablation give different
    scores wherever the previous MT and reference sentences differ, and the same where they agree."""
    by_ref = score(f"doc-comet:k=2,hyp-context=ref,model={tiny_comet_da_dir}")
    by_mt = score(f"doc-comet:k=2,hyp-context=mt,model={tiny_comet_da_dir}")
    a_ref, a_mt = [u.score for u in by_ref["A"].units], [u.score for u in by_mt["A"].units]
    assert a_ref[0] == pytest.approx(a_mt[0], abs=1e-6)   # first sentence: no context either way
    assert a_ref[1] != pytest.approx(a_mt[1], abs=1e-5)
    c_ref, c_mt = [u.score for u in by_ref["C"].units], [u.score for u in by_mt["C"].units]
    assert c_ref == pytest.approx(c_mt, abs=1e-6)         # system C is the reference


def test_doc_comet_qe_equals_comet_enable_context(qe_model, tiny_comet_qe_dir):
    results = score(f"doc-comet-qe:model={tiny_comet_qe_dir}", refs=False)
    src, ids = DATA["src"], DATA["ids"]
    expected = {}
    for name, hyp in DATA["systems"].items():
        samples = [{"src": joined(previous_by_hand(src, ids, i, 2), src[i]),
                    "mt": joined(previous_by_hand(hyp, ids, i, 2), hyp[i])} for i in range(len(ids))]
        expected[name] = comet_predict(qe_model, samples, context=True)
    check_against(results, expected)
    # a reference, when given, is not used
    with_ref = score(f"doc-comet-qe:model={tiny_comet_qe_dir}")
    assert [u.score for u in with_ref["A"].units] == [u.score for u in results["A"].units]


@pytest.mark.parametrize("which", ["doc-comet", "doc-comet-qe"])
def test_k0_and_first_sentences_equal_sentence_level_comet(which, da_model, qe_model,
                                                           tiny_comet_da_dir, tiny_comet_qe_dir):
    qe = which == "doc-comet-qe"
    model, d = (qe_model, tiny_comet_qe_dir) if qe else (da_model, tiny_comet_da_dir)
    src, ref, ids = DATA["src"], DATA["ref"], DATA["ids"]
    plain = {}
    for name, hyp in DATA["systems"].items():
        samples = [{"src": src[i], "mt": hyp[i]} if qe else {"src": src[i], "mt": hyp[i], "ref": ref[i]}
                   for i in range(len(ids))]
        plain[name] = comet_predict(model, samples, context=False)  # sentence-level COMET
    k0 = score(f"{which}:k=0,model={d}", refs=not qe)
    check_against(k0, plain)
    assert all(r.coverage.counters == {} for r in k0.values())  # no context, nothing to count
    k2 = score(f"doc-comet-qe:model={d}" if qe else f"doc-comet:k=2,hyp-context=ref,model={d}",
               refs=not qe)
    firsts = [i for i in range(len(ids)) if i == 0 or ids[i - 1] != ids[i]]
    assert firsts == [0, 4, 5, 7]
    for name in DATA["systems"]:
        got = [k2[name].units[i].score for i in firsts]
        assert got == pytest.approx([plain[name][i] for i in firsts], abs=1e-6)
        later = [i for i in range(len(ids)) if i not in firsts]
        assert any(k2[name].units[i].score != pytest.approx(plain[name][i], abs=1e-5) for i in later)


def test_k_changes_the_context(da_model, tiny_comet_da_dir):
    results = score(f"doc-comet:k=1,model={tiny_comet_da_dir}")
    check_against(results, expected_doc_comet(da_model, 1, "ref"))


# -- truncation: drop the oldest context, never cut the current sentence ----------------------------
@pytest.fixture(scope="module")
def small_da(tmp_path_factory):
    """A tiny RegressionMetric whose encoder takes 32 positions: COMET cuts each input at 30 tokens."""
    return build_tiny_comet(tmp_path_factory.mktemp("small-da"), kind="regression",
                            max_position_embeddings=34)


def _by_tokens(tok, lo: int, hi: int, n: int, seed: int) -> list[str]:
    out = []
    for s in sample_sentences(400, seed=seed):
        if lo <= len(tok(s)["input_ids"]) <= hi and s not in out:
            out.append(s)
        if len(out) == n:
            return out
    raise AssertionError("not enough sentences of that length")


def test_long_context_drops_oldest_sentences_and_keeps_the_current_whole(small_da):
    model = _load_comet(small_da)
    tok = model.encoder.tokenizer
    limit = model.encoder.max_positions - 2
    assert limit == 30
    long_ = _by_tokens(tok, 13, 18, 6, seed=5)     # two of them with a short current: over 30
    short = _by_tokens(tok, 4, 7, 12, seed=6)
    too_long = _by_tokens(tok, 36, 60, 1, seed=7)[0]  # over the limit on its own
    #           doc x: L  L  S  S  S(too long mt)     doc y: L  S
    src = [long_[0], long_[1], short[0], short[1], short[2], long_[2], short[3]]
    ref = [long_[3], long_[4], short[4], short[5], short[6], long_[5], short[7]]
    hyp = [short[8], short[9], short[10], short[11], too_long, short[8], short[9]]
    other = [long_[0], short[9], long_[1], short[11], short[3], short[8], long_[2]]  # shares lines 1, 3, 5
    ids = ["x"] * 5 + ["y"] * 2
    data = {"src": src, "ref": ref, "ids": ids, "systems": {"S": hyp, "T": other}}

    def fit(ctx: list[str], cur: str) -> tuple[str, int]:
        """The rule, independently: drop the oldest context sentences until the input fits."""
        for dropped in range(len(ctx) + 1):
            text = joined(ctx[dropped:], cur)
            if len(tok(text)["input_ids"]) <= limit:
                return text, dropped
        return cur, len(ctx)

    def by_hand(mt: list[str]) -> tuple[list[dict], list[dict], dict[str, int]]:
        fitted, naive = [], []
        shortened = dropped = tokens_cut = 0
        for i in range(len(ids)):
            sample, cut = {}, False
            for field, side, ctx_side in (("src", src, src), ("mt", mt, ref), ("ref", ref, ref)):
                ctx = previous_by_hand(ctx_side, ids, i, 2)
                sample[field], n = fit(ctx, side[i])
                dropped += n
                cut = cut or n > 0
                tokens_cut += max(len(tok(sample[field])["input_ids"]) - limit, 0)  # what COMET then cuts
            shortened += cut
            fitted.append(sample)
            naive.append({"src": joined(previous_by_hand(src, ids, i, 2), src[i]),
                          "mt": joined(previous_by_hand(ref, ids, i, 2), mt[i]),
                          "ref": joined(previous_by_hand(ref, ids, i, 2), ref[i])})
        counts = {"contexts_shortened": shortened, "context_sentences_dropped": dropped}
        return fitted, naive, {**counts, **({"tokens_cut": tokens_cut} if tokens_cut else {})}

    fitted, naive, counts = by_hand(hyp)
    fitted_t, _, counts_t = by_hand(other)
    assert counts["contexts_shortened"] >= 2 and counts["context_sentences_dropped"] >= 3
    assert counts_t != counts  # the data do exercise the rule, differently per system
    expected = comet_predict(model, fitted + fitted_t, context=True)

    both = score(f"doc-comet:model={small_da}", data=data)
    r = both["S"]
    assert [u.score for u in r.units] == pytest.approx(expected[:len(ids)], abs=1e-6)
    assert [u.score for u in both["T"].units] == pytest.approx(expected[len(ids):], abs=1e-6)
    assert r.coverage.counters == counts
    assert both["T"].coverage.counters == counts_t
    assert both["T"].coverage.units_truncated == 0
    shortened = counts["contexts_shortened"]
    # the current sentence is whole in every input COMET saw, except the one that alone is too long
    for i, sample in enumerate(fitted):
        for field, side in (("src", src), ("mt", hyp), ("ref", ref)):
            assert sample[field].endswith(side[i])
            assert (len(tok(sample[field])["input_ids"]) <= limit) == (side[i] != too_long)
    assert [u.truncated for u in r.units] == [h == too_long for h in hyp]
    assert r.coverage.units_truncated == 1
    assert "1 truncated" in r.coverage.summary() and f"{shortened} contexts shortened" in r.coverage.summary()
    # ... and scored as COMET scores it alone (COMET cuts it from the right, as it always does)
    alone = comet_predict(model, [{"src": fitted[4]["src"], "mt": too_long, "ref": fitted[4]["ref"]}],
                          context=True)
    assert r.units[4].score == pytest.approx(alone[0], abs=1e-6)
    # the published code's right cut (which loses the current sentence) gives other scores
    cut_right = comet_predict(model, naive, context=True)
    changed = [i for i in range(len(ids)) if fitted[i] != naive[i] and i != 4]
    assert changed and all(r.units[i].score != pytest.approx(cut_right[i], abs=1e-5) for i in changed)


def test_counters_count_repeated_sentences_once_each(small_da):
    """The core scores identical units once; each sentence's cut context is still counted, from the
    backbone's per-unit counters."""
    model = _load_comet(small_da)
    tok = model.encoder.tokenizer
    long_ = _by_tokens(tok, 13, 18, 2, seed=5)
    short = _by_tokens(tok, 4, 7, 1, seed=6)
    one = {"src": long_ + short, "ref": long_ + short, "ids": ["d"] * 3,
           "systems": {"S": short * 3}}
    two = {"src": one["src"] * 2, "ref": one["ref"] * 2, "ids": ["d"] * 3 + ["e"] * 3,
           "systems": {"S": short * 6}}
    single = score(f"doc-comet:model={small_da}", data=one)["S"].coverage.counters
    double = score(f"doc-comet:model={small_da}", data=two)["S"].coverage.counters
    assert single["contexts_shortened"] >= 1
    assert double == {key: 2 * v for key, v in single.items()}


def test_a_backbone_without_per_unit_counters_reports_run_totals(small_da, monkeypatch):
    """Counters a backbone gives only as totals over the distinct units of the run cannot be split
    between systems: with several systems they are reported as run_* (never as a system's own)."""
    metric = api.load(f"doc-comet:model={small_da}", device="cpu", cache=None)
    model = _load_comet(small_da)
    long_ = _by_tokens(model.encoder.tokenizer, 13, 18, 2, seed=5)
    short = _by_tokens(model.encoder.tokenizer, 4, 7, 1, seed=6)
    original = type(metric.backbone).score

    def totals_only(self, units):
        out = original(self, units)
        out.unit_counters = None
        return out

    monkeypatch.setattr(type(metric.backbone), "score", totals_only)
    kwargs = {"sources": long_ + short, "references": long_ + short, "doc_ids": ["d"] * 3}
    alone = metric.score_systems({"S": short * 3}, **kwargs)["S"].coverage.counters
    both = metric.score_systems({"S": short * 3, "T": long_ + short}, **kwargs)
    assert alone["contexts_shortened"] >= 1 and not any(k.startswith("run_") for k in alone)
    for r in both.values():
        assert set(r.coverage.counters) == {"run_" + k for k in alone}


# -- models that cannot pool the current sentence, and other mismatches ------------------------------
@pytest.mark.parametrize("which", ["doc-comet-qe", "doc-comet"])
def test_cometkiwi_is_refused_with_advice(which, tiny_kiwi_dir):
    metric = api.load(f"{which}:model={tiny_kiwi_dir}", device="cpu")
    with pytest.raises(CapabilityError) as e:
        metric.score(["Es ist kalt."], sources=["It is cold."], references=["Es ist kalt."])
    msg = str(e.value)
    assert which in msg and "current-sentence" in msg and "\n" not in msg
    assert "it pools the CLS token (it is a UnifiedMetric" in msg and "use slide" in msg
    assert f"slide:w=6,s=6,model={tiny_kiwi_dir}" in msg


def test_cometkiwi_refusal_exits_2(tiny_kiwi_dir, tmp_path, capsys):
    files = {}
    for name, lines in (("src", ["It is cold."]), ("hyp", ["Es ist kalt."]), ("ids", ["d"])):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    code = main(["-m", f"doc-comet-qe:model={tiny_kiwi_dir}", "-i", str(files["hyp"]),
                 "-s", str(files["src"]), "--doc-ids", str(files["ids"]), "--device", "cpu", "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert "pools the CLS token" in err and "use slide" in err and "Traceback" not in err


def test_model_of_the_other_kind_points_to_the_sibling(tiny_comet_da_dir, tiny_comet_qe_dir):
    with pytest.raises(CapabilityError, match="use doc-comet-qe with it"):
        score(f"doc-comet:model={tiny_comet_qe_dir}")
    with pytest.raises(CapabilityError, match="use doc-comet with it"):
        score(f"doc-comet-qe:model={tiny_comet_da_dir}")


def test_doc_comet_needs_a_reference(tiny_comet_da_dir):
    with pytest.raises(InputError, match="reference"):
        score(f"doc-comet:model={tiny_comet_da_dir}", refs=False)


@pytest.mark.parametrize("which, model", [("doc-comet", "wmt21-comet-mqm"),
                                          ("doc-comet-qe", "wmt21-comet-qe-mqm")])
def test_default_model_is_the_papers_and_fails_clearly_offline(which, model):
    if (Path.home() / ".cache" / "torch" / "unbabel_comet" / model / "checkpoints").is_dir():
        pytest.skip(f"{model} is cached on this machine")
    metric = api.load(which, device="cpu")
    assert metric.backbone.model_name() == model
    with pytest.raises(ModelError) as e:
        metric.score(["Es ist kalt."], sources=["It is cold."], references=["Es ist kalt."])
    msg = str(e.value)
    assert f"'{model}'" in msg and "unbabel_comet" in msg and "model=/path/to/local/checkpoint-dir" in msg


@pytest.mark.parametrize("spec, word", [("doc-comet:k=-1", "'k'"),
                                        ("doc-comet:hyp-context=src", "hyp_context"),
                                        ("doc-comet-qe:hyp-context=mt", "hyp-context"),
                                        ("doc-comet:w=2", "w")])
def test_bad_parameters(spec, word):
    with pytest.raises(SpecError, match=word):
        api.load(spec)


# -- signatures, presets, description ---------------------------------------------------------------
def test_signature_records_everything_and_round_trips(tiny_comet_da_dir, tiny_comet_qe_dir):
    r = score(f"doc-comet:k=2,hyp-context=mt,model={tiny_comet_da_dir}")["B"]
    sig = r.signature
    assert sig.metric == "doc-comet"
    for key, value in (("k", "2"), ("hyp-context", "mt"), ("sep", "</s>"), ("pool", "avg-current"),
                       ("backbone", "comet"), ("model", str(tiny_comet_da_dir)), ("precision", "fp32")):
        assert sig.get(key) == value
    assert sig.get("fingerprint") and len(sig.get("fingerprint")) == 10
    for text in (sig.format(), sig.format(short=True)):
        again = score(text)["B"]  # parsed back into the metric and computed again
        assert again.score == pytest.approx(r.score, abs=1e-9)
        assert again.signature.format() == sig.format()
    default = score(f"doc-comet:k=2,hyp-context=ref,model={tiny_comet_da_dir}")["B"]
    assert default.signature.get("hyp-context") == "ref"
    qe = score(f"doc-comet-qe:model={tiny_comet_qe_dir}", refs=False)["A"]
    assert qe.signature.get("k") == "2" and qe.signature.get("hyp-context") == "mt"
    assert qe.signature.get("sep") == "</s>" and qe.signature.get("pool") == "avg-current"
    again = score(qe.signature.format(short=True), refs=False)["A"]
    assert again.signature.format() == qe.signature.format()
    assert again.score == pytest.approx(qe.score, abs=1e-9)


def test_presets(tiny_comet_da_dir, tiny_comet_qe_dir):
    p = presets.get("doc-comet-vernikos2022")
    assert p is not None and p.spec.startswith("doc-comet:k=2,hyp-context=ref")
    assert "model=wmt21-comet-mqm" in p.spec
    q = presets.get("doc-comet-qe-vernikos2022")
    assert q is not None and q.spec.startswith("doc-comet-qe:k=2") and "wmt21-comet-qe-mqm" in q.spec
    assert "Vernikos" in p.citation and "Vernikos" in q.citation
    via_preset = score(f"doc-comet-vernikos2022:model={tiny_comet_da_dir}")["A"]
    direct = score(f"doc-comet:k=2,hyp-context=ref,model={tiny_comet_da_dir}")["A"]
    assert via_preset.score == pytest.approx(direct.score, abs=1e-9)
    assert via_preset.signature.get("k") == "2" and via_preset.signature.get("hyp-context") == "ref"
    assert api.load("doc-comet-qe-vernikos2022").backbone.model_name() == "wmt21-comet-qe-mqm"


def test_describe(capsys):
    assert main(["--describe", "doc-comet"]) == 0
    out = capsys.readouterr().out
    assert "default model: wmt21-comet-mqm" in out and "Unbabel/wmt22-comet-da" in out
    assert "hyp-context" in out and "Table 3" in out and "Vernikos" in out
    assert main(["--describe", "doc-comet-qe"]) == 0
    out = capsys.readouterr().out
    assert "default model: wmt21-comet-qe-mqm" in out and "CLS" in out and "slide" in out


def test_cli_levels_and_json(tiny_comet_da_dir, tmp_path, capsys):
    import json

    paths = {}
    for name, lines in (("src", DATA["src"]), ("ref", DATA["ref"]), ("ids", DATA["ids"]),
                        ("A", DATA["systems"]["A"])):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    code = main(["-m", f"doc-comet:model={tiny_comet_da_dir}", "-i", str(paths["A"]), "-s", str(paths["src"]),
                 "-r", str(paths["ref"]), "--doc-ids", str(paths["ids"]), "--device", "cpu", "-q",
                 "-f", "json", "--level", "chunk"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)[0]
    direct = score(f"doc-comet:k=2,hyp-context=ref,model={tiny_comet_da_dir}")["A"]
    assert out["score"] == pytest.approx(direct.score, abs=1e-6)  # one system here: other batches
    assert len(out["units"]) == len(DATA["ids"]) and len(out["docs"]) == 4
    assert out["coverage"]["contexts_shortened"] == 0 and out["coverage"]["units_truncated"] == 0
    assert not math.isnan(out["docs"][1]["score"])  # the one-sentence document


def test_import_is_light():
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "plugins")])}
    code = ("import sys, docmetrics_metrics.doc_comet; "
            "print(','.join(m for m in ('torch', 'comet', 'transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == ""
