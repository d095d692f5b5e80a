"""The ``prism`` backbone on a tiny random mBART-50, checked against an independent computation.

The reference computation here builds the inputs the way the paper's code does (the context and the
current sentence joined with " </s> " as one string, tokenized by MBart50Tokenizer with the target
language on both sides), runs the model with ``labels`` (transformers' own shift), takes the
log-softmax of the full logits and averages the log-probabilities of the scored positions, found
from the length of the current sentence alone.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")

from docmetrics_backbones.prism.testing import build_tiny_mbart, mbart_sample_sentences  # noqa: E402

from docmetrics import fingerprint  # noqa: E402
from docmetrics.plugin.backbone import CURRENT_SENTENCE, FORCE_DECODE, REFERENCE, Unit  # noqa: E402
from docmetrics.values.errors import ModelError, SpecError, UserError  # noqa: E402

SENTS = mbart_sample_sentences(60, seed=11)
REFS = SENTS[0::2]
HYPS = SENTS[1::2]


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Tiny models run fastest on one thread, and a second OpenMP thread on a busy machine makes
    every small operation wait for it (10x slower); restored afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def tiny_mbart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_mbart(tmp_path_factory.mktemp("tiny-mbart"), seed=0)


@pytest.fixture(scope="module")
def short_mbart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same kind of model with 32 positions, to exercise the length rule."""
    return build_tiny_mbart(tmp_path_factory.mktemp("short-mbart"), seed=1, max_position_embeddings=32)


@pytest.fixture(scope="module")
def loaded(tiny_mbart: Path):
    from transformers import MBart50Tokenizer, MBartForConditionalGeneration

    model = MBartForConditionalGeneration.from_pretrained(str(tiny_mbart)).eval()
    tok = MBart50Tokenizer.from_pretrained(str(tiny_mbart))
    return model, tok


def backbone(path: Path | str, lang: str = "en-de", **options):
    from docmetrics_backbones.prism.backbone import PrismBackbone

    return PrismBackbone(str(path), device="cpu", quiet=True, lang=lang, **options)


def direction_by_hand(model, tok, code, x_ctx, x, y_ctx, y, scored="current+eos", limit=None):
    """Mean log p of the scored positions of y given x (one direction), built independently."""
    tok.src_lang = code
    tok.tgt_lang = code
    enc = tok(" </s> ".join([*x_ctx, x]), text_target=" </s> ".join([*y_ctx, y]))
    input_ids, labels = enc["input_ids"], enc["labels"]
    n = len(tok(y, add_special_tokens=False)["input_ids"])
    if limit is not None and len(labels) > limit:  # the current sentence alone is too long: cut it
        n -= len(labels) - limit
        labels = labels[: limit - 1] + [tok.eos_token_id]
    if limit is not None and len(input_ids) > limit:
        input_ids = input_ids[: limit - 1] + [tok.eos_token_id]
    assert labels[0] == tok.lang_code_to_id[code] and labels[-1] == tok.eos_token_id
    with torch.no_grad():
        out = model(input_ids=torch.tensor([input_ids]), labels=torch.tensor([labels]))
    logp = torch.log_softmax(out.logits[0].double(), dim=-1)
    token_logp = logp[torch.arange(len(labels)), torch.tensor(labels)]
    size = len(labels)
    if scored == "current+eos":
        positions = range(size - n - 1, size)  # y's tokens and the EOS
    else:
        positions = range(size - n - 2, size - 1)  # the token before y, and y's tokens
    return float(sum(token_logp[p] for p in positions) / len(positions))


def prism_by_hand(model, tok, code, ref_ctx, ref, mt_ctx, mt, **kw):
    forward = direction_by_hand(model, tok, code, ref_ctx, ref, mt_ctx, mt, **kw)
    backward = direction_by_hand(model, tok, code, mt_ctx, mt, ref_ctx, ref, **kw)
    return 0.5 * (forward + backward), forward, backward


def units_with_context(k: int) -> list[Unit]:
    units = []
    for i, (h, r) in enumerate(zip(HYPS, REFS)):
        ctx = tuple(REFS[max(0, i - k):i])
        units.append(Unit(mt=h, ref=r, mt_context=ctx, ref_context=ctx))
    return units


# -- the score is Prism, computed independently -------------------------------------------------------
@pytest.mark.parametrize("k", [0, 2])
def test_score_equals_independent_computation(tiny_mbart, loaded, k):
    model, tok = loaded
    units = units_with_context(k)[:12]
    out = backbone(tiny_mbart).score(units)
    assert out.truncated == [False] * len(units)
    assert out.counters == {"context_sentences_dropped": 0, "current_truncated": 0}
    for u, got in zip(units, out.scores):
        want = prism_by_hand(model, tok, "de_DE", u.ref_context, u.ref, u.mt_context, u.mt)[0]
        assert got == pytest.approx(want, abs=1e-6)
    assert len({round(s, 4) for s in out.scores}) > len(units) // 2  # scores really differ


def test_context_changes_the_score_and_k0_is_sentence_level(tiny_mbart):
    bb = backbone(tiny_mbart)
    with_ctx = bb.score(units_with_context(2)[2:8]).scores
    plain = bb.score([Unit(mt=h, ref=r) for h, r in zip(HYPS[2:8], REFS[2:8])]).scores
    k0 = bb.score(units_with_context(0)[2:8]).scores
    assert k0 == pytest.approx(plain, abs=1e-9)
    assert all(abs(a - b) > 1e-6 for a, b in zip(with_ctx, plain))


@pytest.mark.parametrize("directions", ["ref-hyp", "hyp-ref"])
def test_single_direction(tiny_mbart, loaded, directions):
    model, tok = loaded
    units = units_with_context(2)[3:7]
    out = backbone(tiny_mbart, directions=directions).score(units)
    for u, got in zip(units, out.scores):
        _, fwd, bwd = prism_by_hand(model, tok, "de_DE", u.ref_context, u.ref, u.mt_context, u.mt)
        assert got == pytest.approx(fwd if directions == "ref-hyp" else bwd, abs=1e-6)


@pytest.mark.parametrize("k", [0, 2])
def test_released_code_positions(tiny_mbart, loaded, k):
    """scored=released-code: the token before the current sentence and its tokens, no EOS."""
    model, tok = loaded
    units = units_with_context(k)[1:6]
    out = backbone(tiny_mbart, scored="released-code").score(units)
    default = backbone(tiny_mbart).score(units)
    for u, got, other in zip(units, out.scores, default.scores):
        want = prism_by_hand(model, tok, "de_DE", u.ref_context, u.ref, u.mt_context, u.mt,
                             scored="released-code")[0]
        assert got == pytest.approx(want, abs=1e-6)
        assert abs(got - other) > 1e-6


def test_target_language_code_on_both_sides(tiny_mbart, loaded):
    """-l en-de and -l fr-de give the same numbers (only the target's code is used); en-fr differs."""
    model, tok = loaded
    units = units_with_context(1)[4:7]
    de = backbone(tiny_mbart, lang="en-de").score(units).scores
    assert backbone(tiny_mbart, lang="fr-de").score(units).scores == pytest.approx(de, abs=1e-9)
    fr = backbone(tiny_mbart, lang="en-fr").score(units).scores
    for u, got in zip(units, fr):
        want = prism_by_hand(model, tok, "fr_XX", u.ref_context, u.ref, u.mt_context, u.mt)[0]
        assert got == pytest.approx(want, abs=1e-6)
    assert all(abs(a - b) > 1e-6 for a, b in zip(de, fr))


def test_empty_sentences_score_their_eos(tiny_mbart, loaded):
    model, tok = loaded
    units = [Unit(mt="", ref=REFS[0]),
             Unit(mt="", ref=REFS[2], mt_context=(REFS[1],), ref_context=(REFS[1],))]
    out = backbone(tiny_mbart).score(units)
    for u, got in zip(units, out.scores):
        want = prism_by_hand(model, tok, "de_DE", u.ref_context, u.ref, u.mt_context, u.mt)[0]
        assert got == pytest.approx(want, abs=1e-6) and math.isfinite(got)


# -- batching and determinism ----------------------------------------------------------------------
def test_batch_size_and_order_do_not_change_scores(tiny_mbart):
    units = units_with_context(2)
    one = backbone(tiny_mbart, batch_size=1).score(units).scores
    eight = backbone(tiny_mbart, batch_size=8).score(units).scores
    assert eight == pytest.approx(one, abs=1e-5)
    perm = list(reversed(range(len(units))))
    shuffled = backbone(tiny_mbart, batch_size=8).score([units[i] for i in perm]).scores
    assert [shuffled[perm.index(i)] for i in range(len(units))] == pytest.approx(eight, abs=1e-5)
    again = backbone(tiny_mbart, batch_size=8).score(units).scores
    assert again == eight  # deterministic


def test_builder_is_deterministic(tmp_path, tiny_mbart):
    same = build_tiny_mbart(tmp_path / "a", seed=0)
    other = build_tiny_mbart(tmp_path / "b", seed=3)
    assert fingerprint(same, use_cache=False) == fingerprint(tiny_mbart, use_cache=False)
    assert fingerprint(other, use_cache=False) != fingerprint(tiny_mbart, use_cache=False)
    from transformers import MBart50TokenizerFast

    fast = MBart50TokenizerFast.from_pretrained(str(same), src_lang="de_DE")
    from transformers import MBart50Tokenizer

    slow = MBart50Tokenizer.from_pretrained(str(same), src_lang="de_DE")
    for s in SENTS[:10]:
        assert fast(s)["input_ids"] == slow(s)["input_ids"]


# -- the length rule -------------------------------------------------------------------------------
def test_oldest_context_dropped_first_current_never_cut(short_mbart):
    from transformers import MBart50Tokenizer, MBartForConditionalGeneration

    model = MBartForConditionalGeneration.from_pretrained(str(short_mbart)).eval()
    tok = MBart50Tokenizer.from_pretrained(str(short_mbart), src_lang="de_DE", tgt_lang="de_DE")
    short = [s for s in SENTS if 9 <= len(tok(s)["input_ids"]) <= 12]
    ctx = tuple(short[:3])
    ref, mt = short[3], short[4]

    def size(context, current):
        return len(tok(" </s> ".join([*context, current]))["input_ids"])

    # by hand: how many of the oldest sentences must go so that both sides fit 32 tokens
    drop = next(d for d in range(4) if max(size(ctx[d:], ref), size(ctx[d:], mt)) <= 32)
    assert 0 < drop < 3, "the test needs a context that only partly fits"
    unit = Unit(mt=mt, ref=ref, mt_context=ctx, ref_context=ctx)
    out = backbone(short_mbart).score([unit])
    assert out.truncated == [False]
    assert out.counters == {"context_sentences_dropped": drop, "current_truncated": 0}
    want = prism_by_hand(model, tok, "de_DE", ctx[drop:], ref, ctx[drop:], mt)[0]
    assert out.scores[0] == pytest.approx(want, abs=1e-6)


def test_current_sentence_too_long_is_cut_and_counted(short_mbart):
    from transformers import MBart50Tokenizer, MBartForConditionalGeneration

    model = MBartForConditionalGeneration.from_pretrained(str(short_mbart)).eval()
    tok = MBart50Tokenizer.from_pretrained(str(short_mbart))
    long_ref = " ".join(SENTS[:6])
    assert len(tok(long_ref)["input_ids"]) > 32
    fits = [s for s in SENTS if len(tok(s)["input_ids"]) <= 12]
    mt = fits[0]
    unit = Unit(mt=mt, ref=long_ref, mt_context=(fits[1],), ref_context=(fits[1],))
    out = backbone(short_mbart).score([unit, Unit(mt=mt, ref=fits[2])])
    assert out.truncated == [True, False]
    cut = len(tok(long_ref, add_special_tokens=False)["input_ids"]) - (32 - 2)  # limit less <lang> ... </s>
    assert out.counters == {"context_sentences_dropped": 1, "current_truncated": 1, "tokens_cut": cut}
    assert out.unit_counters[0]["tokens_cut"] == cut and "tokens_cut" not in out.unit_counters[1]
    want = prism_by_hand(model, tok, "de_DE", (), long_ref, (), mt, limit=32)[0]
    assert out.scores[0] == pytest.approx(want, abs=1e-6)


# -- capabilities, signature, errors -------------------------------------------------------------------
def test_capabilities_fingerprint_and_signature_fields(tiny_mbart):
    bb = backbone(tiny_mbart, lang="zh-en")
    assert bb.capabilities == {REFERENCE, FORCE_DECODE, CURRENT_SENTENCE}
    assert bb.fingerprint() == fingerprint(tiny_mbart)
    fields = {f.key: f for f in bb.signature_fields()}
    assert fields["lang"].value == "zh-en" and fields["lang"].is_param
    assert fields["codes"].value == "en_XX/en_XX" and not fields["codes"].is_param
    assert fields["directions"].value == "both" and fields["scored"].value == "current+eos"
    assert fields["norm"].value == "mean-logprob"
    assert fields["fingerprint"].value == fingerprint(tiny_mbart)
    assert {"transformers", "torch", "sentencepiece"} <= set(fields)


@pytest.mark.parametrize("lang,code", [("en-de", "de_DE"), ("de-en", "en_XX"), ("en-zh", "zh_CN"),
                                       ("en-ja", "ja_XX"), ("de-sl", "sl_SI"), ("en-de_DE", "de_DE")])
def test_language_codes(tiny_mbart, lang, code):
    assert backbone(tiny_mbart, lang=lang).code == code


def test_language_errors(tiny_mbart):
    from docmetrics_backbones.prism.backbone import PrismBackbone

    with pytest.raises(SpecError, match=r"-l/--lang src-tgt"):
        PrismBackbone(str(tiny_mbart), device="cpu")
    with pytest.raises(SpecError, match=r"'xx' is not one of mBART-50's languages; known: af \(af_ZA\)"):
        backbone(tiny_mbart, lang="en-xx")
    with pytest.raises(SpecError, match="src-tgt"):
        backbone(tiny_mbart, lang="ende")


def test_missing_reference_is_a_user_error(tiny_mbart):
    with pytest.raises(UserError, match="no ref; pass the reference with -r"):
        backbone(tiny_mbart).score([Unit(mt="a", src="b")])


def test_fp16_on_cpu_is_refused(tiny_mbart):
    with pytest.raises(UserError, match="precision=fp16 needs a CUDA GPU"):
        backbone(tiny_mbart, precision="fp16").load()


def test_offline_hub_id_fails_with_advice():
    bb = backbone("facebook/mbart-large-50-not-cached-anywhere")
    with pytest.raises(ModelError) as err:
        bb.load()
    msg = str(err.value)
    assert msg.startswith("MBart model 'facebook/mbart-large-50-not-cached-anywhere' was not found: it is not a "
                          "local directory, it is not in the local Hugging Face cache (")
    assert "downloads are switched off" in msg and "machine with network" in msg
    assert "model=/path/to/model-dir (config.json, the weights and sentencepiece.bpe.model)" in msg
    assert "huggingface-cli download facebook/mbart-large-50-not-cached-anywhere" in msg


def test_not_an_mbart_model(tmp_path):
    from transformers import BertConfig

    BertConfig(vocab_size=10, hidden_size=8, num_hidden_layers=1, num_attention_heads=1,
               intermediate_size=8).save_pretrained(str(tmp_path))
    with pytest.raises(ModelError, match="not an MBart model"):
        backbone(tmp_path).load()
    with pytest.raises(ModelError, match="does not exist"):
        backbone(tmp_path / "nowhere" / "x").load()
