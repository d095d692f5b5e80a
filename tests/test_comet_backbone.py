"""The comet backbone on tiny offline COMET models, checked against unbabel-comet itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from docmetrics_backbones.comet.backbone import CometBackbone
from docmetrics_backbones.comet.testing import build_tiny_comet, sample_sentences

from docmetrics import fingerprint
from docmetrics.plugin.backbone import CURRENT_SENTENCE, QE, REFERENCE, Unit
from docmetrics.values.errors import CapabilityError, ModelError, SpecError, UserError

KINDS = ("unified", "unified-ref", "regression", "referenceless")


def _units(n: int = 24, seed: int = 11) -> list[Unit]:
    """Units whose sources have distinct lengths, so that length-sorting is unambiguous and our
    batches are exactly CometModel.predict's batches."""
    s = sample_sentences(6 * n, seed=seed)
    units, seen = [], set()
    for i in range(0, len(s) - 2, 3):
        if len(s[i]) not in seen:
            seen.add(len(s[i]))
            units.append(Unit(mt=s[i + 1], src=s[i], ref=s[i + 2]))
    return units[:n]


UNITS = _units()


@pytest.fixture(scope="module")
def dirs(tiny_kiwi_dir, tiny_comet_da_dir, tiny_comet_qe_dir, tmp_path_factory):
    unified_ref = build_tiny_comet(tmp_path_factory.mktemp("tiny-unified-ref"), kind="unified-ref")
    return {"unified": tiny_kiwi_dir, "unified-ref": unified_ref,
            "regression": tiny_comet_da_dir, "referenceless": tiny_comet_qe_dir}


@pytest.fixture(scope="module")
def backbones(dirs):
    out = {}
    for kind, d in dirs.items():
        bb = CometBackbone(str(d), device="cpu", quiet=True)
        bb.load()
        out[kind] = bb
    return out


def _comet_model(d: Path):
    import comet

    return comet.load_from_checkpoint(str(d / "checkpoints" / "model.ckpt"))


def _samples(units):
    return [{k: getattr(u, k) for k in ("src", "mt", "ref") if getattr(u, k) is not None}
            for u in units]


# -- the class and its import ------------------------------------------------------------------
def test_import_is_light():
    code = (
        "import sys, docmetrics_backbones.comet, docmetrics_backbones.comet.backbone; "
        "assert docmetrics_backbones.comet.CometBackbone is docmetrics_backbones.comet.backbone.CometBackbone; "
        "print(','.join(m for m in ('torch', 'comet', 'transformers') if m in sys.modules))"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "plugins")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env)
    assert out.stdout.strip() == ""


def test_class_attributes():
    assert CometBackbone.name == "comet"
    assert CometBackbone.default_model == "Unbabel/wmt22-cometkiwi-da"
    assert "\n" not in CometBackbone.description and CometBackbone.description
    assert CometBackbone.libraries == (("unbabel-comet", "comet"), ("transformers", "tf"),
                                       ("torch", "torch"))
    assert CometBackbone().model == "Unbabel/wmt22-cometkiwi-da"
    assert CometBackbone("Unbabel/wmt22-comet-da").model_name() == "Unbabel/wmt22-comet-da"
    assert CometBackbone("./some/dir").model_name() == "./some/dir"


# -- scores against unbabel-comet ---------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_scores_equal_comet_predict(kind, backbones, dirs):
    out = backbones[kind].score(UNITS)
    expected = _comet_model(dirs[kind]).predict(
        _samples(UNITS), batch_size=16, gpus=0, progress_bar=False).scores
    assert len(out.scores) == len(UNITS) == len(out.truncated)
    assert out.scores == pytest.approx(expected, abs=1e-6)
    assert not any(out.truncated)


@pytest.mark.parametrize("kind", ("unified", "regression"))
def test_each_distinct_text_is_tokenized_once(kind, backbones, monkeypatch):
    """One tokenization per distinct text gives lengths, batches, truncation flags and the input
    tensors (COMET's prepare_sample would tokenize every batch again)."""
    bb = backbones[kind]
    bb.load()
    tok = bb._model.encoder.tokenizer
    calls: list[list[str]] = []
    original = type(tok).__call__

    def counting(self, text, *args, **kwargs):
        calls.append(list(text) if isinstance(text, list) else [text])
        return original(self, text, *args, **kwargs)

    monkeypatch.setattr(type(tok), "__call__", counting)
    monkeypatch.setattr(bb, "batch_size", 2)  # several batches
    bb.score(UNITS + UNITS)
    texts = [t for c in calls for t in c]
    assert len(texts) == len(set(texts))
    distinct = {t for u in UNITS for t in (u.mt, u.src, u.ref) if t is not None}
    assert set(texts) <= distinct


@pytest.mark.parametrize("kind", ("unified", "regression"))
@pytest.mark.parametrize("budget", (1, 40, 10_000))
def test_token_budget_does_not_change_scores(kind, budget, backbones, monkeypatch):
    bb = backbones[kind]
    monkeypatch.setattr(bb, "batch_size", None)
    reference = bb.score(UNITS).scores
    monkeypatch.setattr(bb, "max_tokens", budget)
    assert bb.score(UNITS).scores == pytest.approx(reference, abs=1e-6)


@pytest.mark.parametrize("kind", ("unified", "regression"))
def test_batch_size_does_not_change_scores(kind, backbones, monkeypatch):
    bb = backbones[kind]
    monkeypatch.setattr(bb, "batch_size", 1)
    one = bb.score(UNITS).scores
    monkeypatch.setattr(bb, "batch_size", 7)
    seven = bb.score(UNITS).scores
    assert one == pytest.approx(seven, abs=1e-5)


def test_identical_units_scored_once_and_order_restored(backbones, monkeypatch):
    bb = backbones["unified"]
    model = bb._model
    seen: list[int] = []
    original = model.predict_step

    def counting(inputs, *args, **kwargs):
        seen.append(int(inputs[-1]["input_ids"].shape[0]))
        return original(inputs, *args, **kwargs)

    monkeypatch.setattr(model, "predict_step", counting)
    units = UNITS[:6] + UNITS[:6] + UNITS[2:4]
    out = bb.score(units)
    assert sum(seen) == 6
    assert out.scores[:6] == out.scores[6:12]
    assert out.scores[12:] == out.scores[2:4]

    rev = bb.score(units[::-1])
    assert rev.scores[::-1] == pytest.approx(out.scores, abs=1e-6)
    singles = [bb.score([u]).scores[0] for u in UNITS[:6]]
    assert singles == pytest.approx(out.scores[:6], abs=1e-5)


def test_empty_input(backbones):
    out = backbones["unified"].score([])
    assert out.scores == [] and out.truncated == []


# -- what each model can do ---------------------------------------------------------------------
@pytest.mark.parametrize("kind, caps, needs_ref", [
    ("unified", {QE}, False),
    ("unified-ref", {QE, REFERENCE}, False),
    ("regression", {REFERENCE, CURRENT_SENTENCE}, True),
    ("referenceless", {QE, CURRENT_SENTENCE}, False),
])
def test_capabilities(kind, caps, needs_ref, backbones):
    assert backbones[kind].capabilities == frozenset(caps)
    assert backbones[kind].requires_reference is needs_ref


@pytest.mark.parametrize("kind, unit, word", [
    ("regression", Unit(mt="Das Haus.", src="The house."), "ref"),
    ("unified", Unit(mt="Das Haus.", ref="The house."), "src"),
    ("referenceless", Unit(mt="Das Haus."), "src"),
    ("unified-ref", Unit(mt="Das Haus."), "source or a reference"),
])
def test_missing_inputs_are_user_errors(kind, unit, word, backbones):
    with pytest.raises(UserError, match=word) as e:
        backbones[kind].score([Unit(mt="x", src="y", ref="z"), unit])
    assert "unit 1" in str(e.value)


def test_unified_ref_scores_without_reference(backbones, dirs):
    units = [Unit(mt=u.mt, src=u.src) for u in UNITS[:5]]
    out = backbones["unified-ref"].score(units)
    expected = _comet_model(dirs["unified-ref"]).predict(
        _samples(units), batch_size=16, gpus=0, progress_bar=False).scores
    assert out.scores == pytest.approx(expected, abs=1e-6)


# -- model resolution and loading ------------------------------------------------------------------
@pytest.mark.parametrize("hub_id, gated", [
    ("Unbabel/wmt22-cometkiwi-da", True),
    ("Unbabel/XCOMET-XL", True),
    ("Unbabel/wmt22-comet-da", False),
])
def test_offline_hub_id_fails_fast_with_advice(hub_id, gated):
    start = time.monotonic()
    with pytest.raises(ModelError) as e:
        CometBackbone(hub_id).load()
    assert time.monotonic() - start < 10
    msg = str(e.value)
    assert hub_id in msg and "model=/path/to/local/checkpoint-dir" in msg
    assert "\n" not in msg
    if gated:
        assert "licence" in msg and "huggingface-cli login" in msg
        assert f"https://huggingface.co/{hub_id}" in msg
    with pytest.raises(ModelError):
        CometBackbone(hub_id).fingerprint()


@pytest.mark.parametrize("name", ["wmt21-comet-mqm", "wmt21-comet-qe-mqm"])
def test_offline_legacy_name_points_to_comets_own_cache(name):
    """Legacy names (no owner) are not hub ids: comet downloads them from Unbabel's S3 bucket
    into ~/.cache/torch/unbabel_comet/<name>; the message says so."""
    with pytest.raises(ModelError) as e:
        CometBackbone(name).load()
    msg = str(e.value)
    assert f"'{name}'" in msg and "legacy" in msg and "\n" not in msg
    assert str(Path("torch", "unbabel_comet", name)) in msg
    assert "model=/path/to/local/checkpoint-dir" in msg


@pytest.mark.parametrize("given", ["{tmp}/no-such-model", "./no/such/dir", "{tmp}/x.ckpt"])
def test_nonexistent_path(given, tmp_path):
    path = given.format(tmp=tmp_path)
    with pytest.raises(ModelError, match="does not exist") as e:
        CometBackbone(path).load()
    assert path in str(e.value)


def test_directory_without_checkpoint(tmp_path):
    with pytest.raises(ModelError, match="checkpoints/model.ckpt"):
        CometBackbone(str(tmp_path)).load()


def test_ckpt_file_and_directory_give_the_same_model(dirs, backbones):
    bb = CometBackbone(str(dirs["referenceless"] / "checkpoints" / "model.ckpt"), quiet=True)
    assert bb.score(UNITS[:4]).scores == backbones["referenceless"].score(UNITS[:4]).scores


def test_moved_model_still_loads(tmp_path):
    first = build_tiny_comet(tmp_path / "a", kind="unified", seed=3)
    before = CometBackbone(str(first), quiet=True).score(UNITS[:5]).scores
    moved = Path(shutil.move(str(first), str(tmp_path / "b")))
    assert not (tmp_path / "a" / "encoder").exists()  # the stored pretrained_model is stale
    after = CometBackbone(str(moved), quiet=True).score(UNITS[:5]).scores
    assert after == before

    shutil.rmtree(moved / "encoder")
    with pytest.raises(ModelError, match="pretrained_model"):
        CometBackbone(str(moved)).load()


def test_load_is_idempotent_and_silent(dirs, capfd):
    bb = CometBackbone(str(dirs["regression"]), device="cpu")
    bb.load()
    model = bb._model
    bb.load()
    assert bb._model is model
    bb.score(UNITS[:3])
    out, err = capfd.readouterr()
    assert out == ""
    assert "Encoder model frozen" not in err and "Lightning" not in err


def test_half_precision_needs_a_gpu(dirs):
    for precision in ("fp16", "bf16"):
        with pytest.raises(UserError, match="precision") as e:
            CometBackbone(str(dirs["unified"]), precision=precision, device="cpu").load()
        assert not isinstance(e.value, SpecError)


def test_fingerprint(dirs, tmp_path):
    bb = CometBackbone(str(dirs["unified"]))
    fp = bb.fingerprint()
    assert bb._model is None  # no loading needed
    assert fp == bb.fingerprint() == fingerprint(dirs["unified"] / "checkpoints" / "model.ckpt")
    other = build_tiny_comet(tmp_path / "kiwi-seed1", kind="unified", seed=1)
    assert CometBackbone(str(other)).fingerprint() != fp
    fields = {f.key: f for f in bb.signature_fields()}
    assert fields["backbone"].value == "comet" and fields["fingerprint"].value == fp
    assert fields["model"].value == str(dirs["unified"])


# -- truncation ---------------------------------------------------------------------------------
LONG = " ".join(sample_sentences(60, seed=4))  # well over 512 tokens


@pytest.mark.parametrize("kind", KINDS)
def test_long_inputs_are_flagged(kind, backbones):
    short = Unit(mt="Das Haus ist alt.", src="The house is old.", ref="Das Haus ist alt.")
    units = [short, Unit(mt=short.mt, src=LONG, ref=short.ref),
             Unit(mt=LONG, src=short.src, ref=short.ref),
             Unit(mt=short.mt, src=short.src, ref=LONG)]
    out = backbones[kind].score(units)
    uses_ref = kind in ("regression", "unified-ref")
    assert out.truncated == [False, True, True, uses_ref]


def _grow(tok, limit: int, fixed: str, first: bool) -> str:
    """The longest prefix of LONG whose joint encoding with ``fixed`` has at most ``limit`` tokens."""
    words = LONG.split()
    text = ""
    for k in range(1, len(words)):
        cand = " ".join(words[:k])
        pair = (cand, fixed) if first else (fixed, cand)
        if len(tok(*pair)["input_ids"]) > limit:
            return text
        text = cand
    raise AssertionError("LONG too short")


@pytest.fixture(scope="module")
def small_dirs(tmp_path_factory):
    """Tiny models whose encoder takes 32 positions (COMET: max_positions = 34 - 2)."""
    root = tmp_path_factory.mktemp("small")
    return {kind: build_tiny_comet(root / kind, kind=kind, max_position_embeddings=34)
            for kind in ("unified", "regression")}


def test_unified_truncation_boundary(small_dirs):
    """CometKiwi cuts the joint <s> mt </s></s> src </s> at max_positions (32) tokens, from the
    right: the source's tail goes first.  Text beyond the cut cannot change the score."""
    bb = CometBackbone(str(small_dirs["unified"]), quiet=True)
    bb.load()
    tok = bb._model.encoder.tokenizer
    mt = "Das Haus ist alt."
    src_fit = _grow(tok, 32, mt, first=False)  # independent path: the tokenizer's pair encoding
    assert len(tok(mt, src_fit)["input_ids"]) <= 32
    src_over = src_fit + " " + LONG.split()[len(src_fit.split())]
    src_far = src_over + " and many more words after the cut"
    out = bb.score([Unit(mt=mt, src=src_fit), Unit(mt=mt, src=src_over), Unit(mt=mt, src=src_far)])
    assert out.truncated == [False, True, True]
    # tokens cut: the full joint encoding (the tokenizer's pair) minus the 32 kept
    cut = [len(tok(mt, src)["input_ids"]) - 32 for src in (src_over, src_far)]
    assert cut[0] >= 1 and cut[1] > cut[0]
    assert out.unit_counters == [{}, {"tokens_cut": cut[0]}, {"tokens_cut": cut[1]}]
    assert out.counters == {"tokens_cut": sum(cut)}
    assert out.scores[1] == pytest.approx(out.scores[2], abs=1e-6)  # the same 32 tokens were scored
    assert out.scores[0] != pytest.approx(out.scores[1], abs=1e-6)


def test_regression_truncation_boundary(small_dirs):
    """COMET-DA cuts src, mt and ref separately at max_positions - 2 = 30 tokens each."""
    bb = CometBackbone(str(small_dirs["regression"]), quiet=True)
    bb.load()
    tok = bb._model.encoder.tokenizer
    words = LONG.split()
    fit = max((" ".join(words[:k]) for k in range(1, 40)
               if len(tok(" ".join(words[:k]))["input_ids"]) <= 30), key=len)
    over = " ".join(words[:len(fit.split()) + 1])
    out = bb.score([Unit(mt=fit, src="a", ref="b"), Unit(mt=over, src="a", ref="b"),
                    Unit(mt="a", src=over, ref="b"), Unit(mt="a", src="b", ref=over)])
    assert out.truncated == [False, True, True, True]
    cut = len(tok(over)["input_ids"]) - 30
    assert out.unit_counters == [{}] + [{"tokens_cut": cut}] * 3 and out.counters == {"tokens_cut": 3 * cut}
    both = bb.score([Unit(mt=LONG, src=over, ref="b")]).unit_counters  # summed over the unit's inputs
    assert both == [{"tokens_cut": len(tok(LONG)["input_ids"]) - 30 + cut}]


def test_cli_warning_counts_the_tokens_cut(small_dirs, tmp_path, capsys):
    """The CLI's truncation warning names the tokens cut, summed over the system's units."""
    from docmetrics.cli.main import main

    bb = CometBackbone(str(small_dirs["unified"]), quiet=True)
    bb.load()
    tok = bb._model.encoder.tokenizer
    mts, srcs = ["Das Haus ist alt.", "Es regnet."], ["The house is old.", LONG]
    (tmp_path / "mt.txt").write_text("\n".join(mts) + "\n", encoding="utf-8")
    (tmp_path / "src.txt").write_text("\n".join(srcs) + "\n", encoding="utf-8")
    code = main(["-m", f"slide:w=1,s=1,model={small_dirs['unified']}", "-i", str(tmp_path / "mt.txt"),
                 "-s", str(tmp_path / "src.txt"), "-b"])
    assert code == 0
    want = len(tok(mts[1], srcs[1])["input_ids"]) - 32
    assert f"1 of 2 units (50.0%) were cut at the model's maximum input length, {want} tokens cut" \
        in capsys.readouterr().err


# -- context (COMET's enable_context semantics) -------------------------------------------------------
def test_context_matches_comet_enable_context(backbones, dirs):
    bb = backbones["regression"]
    u = UNITS[5]
    ctx = Unit(mt=u.mt, src=u.src, ref=u.ref, src_context=(UNITS[3].src, UNITS[4].src),
               mt_context=(UNITS[4].ref,), ref_context=(UNITS[3].ref, UNITS[4].ref))
    out = bb.score([u, ctx])
    assert out.truncated == [False, False]
    assert out.counters == {"contexts_shortened": 0, "context_sentences_dropped": 0}

    model = _comet_model(dirs["regression"])
    model.enable_context()
    joined = {"src": " </s> ".join(ctx.src_context + (u.src,)),
              "mt": " </s> ".join(ctx.mt_context + (u.mt,)),
              "ref": " </s> ".join(ctx.ref_context + (u.ref,))}
    expected = model.predict([joined], batch_size=16, gpus=0, progress_bar=False).scores[0]
    assert out.scores[1] == pytest.approx(expected, abs=1e-6)
    assert out.scores[1] != pytest.approx(out.scores[0], abs=1e-4)  # the context matters


def test_context_is_dropped_before_the_current_sentence_is_cut(small_dirs):
    bb = CometBackbone(str(small_dirs["regression"]), quiet=True)
    short = ("Das Haus ist alt.", "Der Hund ist klein.")
    long_ctx = " ".join(LONG.split()[:40])  # alone over 30 tokens
    units = [Unit(mt="Es ist kalt.", src="It is cold.", ref="Es ist kalt.",
                  mt_context=(long_ctx,) + short, src_context=short, ref_context=short)]
    out = bb.score(units)
    assert out.counters == {"contexts_shortened": 1, "context_sentences_dropped": 1}
    assert out.truncated == [False]
    kept = [Unit(mt="Es ist kalt.", src="It is cold.", ref="Es ist kalt.",
                 mt_context=short, src_context=short, ref_context=short)]
    assert bb.score(kept).scores == pytest.approx(out.scores, abs=1e-6)
    assert bb.score(kept).counters == {"contexts_shortened": 0, "context_sentences_dropped": 0}


def test_per_unit_counters_add_up_to_the_scored_counters(small_dirs, backbones):
    bb = CometBackbone(str(small_dirs["regression"]), quiet=True)
    short = ("Das Haus ist alt.", "Der Hund ist klein.")
    long_ctx = " ".join(LONG.split()[:40])
    units = [
        Unit(mt="Es ist kalt.", src="It is cold.", ref="Es ist kalt."),
        Unit(mt="Es ist kalt.", src="It is cold.", ref="Es ist kalt.", mt_context=short,
             src_context=short, ref_context=short),
        Unit(mt="Es ist kalt.", src="It is cold.", ref="Es ist kalt.",
             mt_context=(long_ctx,) + short, src_context=(long_ctx,), ref_context=short),
    ]
    per_unit = bb.score(units).unit_counters
    assert per_unit == [{"contexts_shortened": 0, "context_sentences_dropped": 0},
                        {"contexts_shortened": 0, "context_sentences_dropped": 0},
                        {"contexts_shortened": 1, "context_sentences_dropped": 2}]
    total = bb.score(units).counters
    assert total == {key: sum(c[key] for c in per_unit) for key in total}
    assert bb.score(units[:1]).unit_counters == [{}]  # no context anywhere: nothing to count
    assert bb.score([]).unit_counters == []
    with pytest.raises(CapabilityError):
        backbones["unified"].score([Unit(mt="a", src="b", src_context=("c",))])


def test_current_sentence_too_long_drops_all_context_and_is_flagged(small_dirs):
    """A current sentence over the limit on its own loses all its context and is then cut as COMET
    cuts it: flagged truncated, its context counted as dropped, scored as COMET scores it alone."""
    bb = CometBackbone(str(small_dirs["regression"]), quiet=True)
    long_mt = " ".join(LONG.split()[:40])  # alone over 30 tokens
    short = ("Das Haus ist alt.", "Der Hund ist klein.")
    unit = Unit(mt=long_mt, src="It is cold.", ref="Es ist kalt.",
                mt_context=short, src_context=short[:1], ref_context=short)
    out = bb.score([unit])
    assert out.truncated == [True]
    # mt loses both its context sentences; src and ref keep theirs; mt alone loses its tail
    bb.load()
    cut = len(bb._model.encoder.tokenizer(long_mt)["input_ids"]) - 30
    assert out.counters == {"contexts_shortened": 1, "context_sentences_dropped": 2, "tokens_cut": cut}
    bare = Unit(mt=long_mt, src="It is cold.", ref="Es ist kalt.",
                src_context=short[:1], ref_context=short)
    again = bb.score([bare])
    assert again.scores == pytest.approx(out.scores, abs=1e-6)
    assert again.truncated == [True]
    assert again.counters == {"contexts_shortened": 0, "context_sentences_dropped": 0, "tokens_cut": cut}


def test_context_needs_average_pooling(backbones):
    unit = Unit(mt="Es ist kalt.", src="It is cold.", src_context=("Take your jacket.",))
    with pytest.raises(CapabilityError, match="average pooling"):
        backbones["unified"].score([unit])


def test_encoder_not_cached_offline(tmp_path):
    """A cached COMET checkpoint whose encoder (a hub id, e.g. microsoft/infoxlm-large for
    CometKiwi) is not cached: a ModelError naming the encoder, quickly."""
    import torch
    import yaml

    d = build_tiny_comet(tmp_path / "m", kind="unified")
    ckpt = d / "checkpoints" / "model.ckpt"
    data = torch.load(ckpt, map_location="cpu", weights_only=True)
    data["hyper_parameters"]["pretrained_model"] = "microsoft/infoxlm-large"
    torch.save(data, ckpt)
    hp = yaml.safe_load((d / "hparams.yaml").read_text())
    hp["pretrained_model"] = "microsoft/infoxlm-large"
    (d / "hparams.yaml").write_text(yaml.safe_dump(hp))
    start = time.monotonic()
    with pytest.raises(ModelError, match="microsoft/infoxlm-large") as e:
        CometBackbone(str(d)).load()
    assert time.monotonic() - start < 10
    assert "\n" not in str(e.value)


def test_encoder_directory_from_hparams_yaml(tmp_path):
    """Editing pretrained_model in hparams.yaml to a local directory takes effect."""
    import yaml

    d = build_tiny_comet(tmp_path / "m", kind="referenceless")
    before = CometBackbone(str(d), quiet=True).score(UNITS[:3]).scores
    (d / "encoder").rename(tmp_path / "elsewhere")
    hp = yaml.safe_load((d / "hparams.yaml").read_text())
    hp["pretrained_model"] = str(tmp_path / "elsewhere")
    (d / "hparams.yaml").write_text(yaml.safe_dump(hp))
    assert CometBackbone(str(d), quiet=True).score(UNITS[:3]).scores == before


# -- hyper-parameters without torch ------------------------------------------------------------------
class _Touch:
    """Pickles as a call of os.system: a checkpoint no reader may execute."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def test_stored_hparams_read_without_torch_equal_torch_load(dirs, tmp_path):
    """The checkpoint's hyper-parameters read from its zip's pickle equal torch.load(weights_only=True)'s;
    a file that is no zip (torch's legacy format) is read too; a pickle naming any other global is
    never executed and refused naming it (tests/test_hostile_checkpoints.py has the rest)."""
    import pickle
    import zipfile

    import torch
    from docmetrics_backbones.comet.checkpoint import stored_hparams

    for d in dirs.values():
        ckpt = d / "checkpoints" / "model.ckpt"
        expected = torch.load(str(ckpt), map_location="cpu", weights_only=True)["hyper_parameters"]
        assert stored_hparams(ckpt) == dict(expected)
    legacy = tmp_path / "legacy.ckpt"
    torch.save({"hyper_parameters": {"pool": "avg"}, "state_dict": {"w": torch.ones(2)}}, str(legacy),
               _use_new_zipfile_serialization=False)
    assert stored_hparams(legacy) == {"pool": "avg"}
    marker = tmp_path / "executed"
    hostile = tmp_path / "hostile.ckpt"
    with zipfile.ZipFile(hostile, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps({"hyper_parameters": {"pool": "avg"}, "x": _Touch(marker)}))
    with pytest.raises(ModelError, match=r"its pickle names (posix|nt)\.system"):
        stored_hparams(hostile)
    assert not marker.exists()


# -- bf16 (a GPU's precision; the casts are checked here on the CPU) ---------------------------------------------
@pytest.mark.parametrize("context", [False, True], ids=["segments", "doc-comet-context"])
def test_bf16_regression_model_scores(dirs, monkeypatch, context):
    """COMET's average pooling hands a bf16 model's estimator float32 embeddings, which COMET casts for fp16
    only; the first H200 run of bench_gpu.py failed on Doc-COMET k=2 in bf16 ("mat1 and mat2 must have the
    same dtype").  The backbone's heads cast their input: bf16 scores (on the CPU, where the backbone would
    refuse bf16, so its device check is bypassed) follow the fp32 ones within bf16's rounding."""
    torch = pytest.importorskip("torch")
    units = UNITS[:12]
    if context:
        units = [Unit(mt=u.mt, src=u.src, ref=u.ref, mt_context=(p.mt,), src_context=(p.src,), ref_context=(p.ref,))
                 for p, u in zip(UNITS, units[1:])]
    fp32 = CometBackbone(str(dirs["regression"]), device="cpu", quiet=True).score(units).scores
    bf16 = CometBackbone(str(dirs["regression"]), device="cpu", precision="bf16", quiet=True)
    monkeypatch.setattr(bf16, "checked_device", lambda: "cpu")
    got = bf16.score(units).scores
    assert next(bf16._model.estimator.parameters()).dtype == torch.bfloat16
    assert len(got) == len(fp32)
    assert max(abs(a - b) for a, b in zip(got, fp32)) < 0.05


def test_cast_head_inputs_is_what_makes_bf16_run(dirs):
    torch = pytest.importorskip("torch")
    from docmetrics_backbones.comet.backbone import cast_head_inputs

    model = _comet_model(dirs["regression"]).to(torch.bfloat16).eval()
    batch = model.prepare_sample(_samples(UNITS[:4]), stage="predict")
    with torch.inference_mode(), pytest.raises(RuntimeError, match="same dtype"):
        model.predict_step(batch)
    cast_head_inputs(model)
    cast_head_inputs(model)  # once is enough: a second call adds no second hook
    assert sum(len(m._forward_pre_hooks) for m in model.modules()) == 1
    with torch.inference_mode():
        assert model.predict_step(batch)["scores"].dtype == torch.bfloat16


@pytest.mark.parametrize("kind", ("regression", "referenceless"))
def test_each_distinct_text_is_encoded_once(kind, backbones, dirs, monkeypatch):
    """A model that encodes its fields apart embeds every distinct text once, however many units share it:
    three systems' units share the sources and references (with context too, as Doc-COMET's units do), and
    the encoder sees each distinct (text, context) once; the scores are COMET's predict() all the same."""
    bb = backbones[kind]
    seen: list[int] = []
    model = bb._model
    original = model.get_sentence_embedding

    def counting(input_ids, attention_mask, *args, **kwargs):
        seen.append(int(input_ids.shape[0]))
        return original(input_ids, attention_mask, *args, **kwargs)

    monkeypatch.setattr(model, "get_sentence_embedding", counting)
    base = UNITS[:8]
    systems = [[Unit(mt=f"{u.mt} {tag}".strip(), src=u.src, ref=u.ref) for u in base] for tag in ("", "x", "y z")]
    units = [u for system in systems for u in system]
    out = bb.score(units)
    fields = ("src", "mt", "ref") if kind == "regression" else ("src", "mt")
    assert sum(seen) == len({getattr(u, f) for u in units for f in fields})
    expected = _comet_model(dirs[kind]).predict(_samples(units), batch_size=16, gpus=0, progress_bar=False).scores
    assert out.scores == pytest.approx(expected, abs=1e-6)
    seen.clear()
    with_context = [Unit(mt=u.mt, src=u.src, ref=u.ref, mt_context=(p.mt,), src_context=(p.src,), ref_context=(p.ref,))
                    for system in systems for p, u in zip(system, system[1:])]
    bb.score(with_context)
    joined = {(f, "".join((*getattr(u, f"{f}_context"), getattr(u, f)))) for u in with_context for f in fields}
    assert sum(seen) == len(joined)
