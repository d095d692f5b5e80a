"""docmetrics_backbones.comet.testing: tiny models built offline, deterministically."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from docmetrics_backbones.comet.testing import COMET_KINDS, build_tiny_comet, build_tiny_xlmr, sample_sentences


def test_import_is_light():
    code = (
        "import sys, docmetrics_backbones.comet.testing; "
        "heavy = [m for m in ('torch', 'comet', 'transformers', 'sentencepiece') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == ""


def test_sample_sentences_deterministic_and_varied():
    a = sample_sentences(200, seed=1)
    assert a == sample_sentences(200, seed=1)
    assert a != sample_sentences(200, seed=2)
    assert len(a) == 200 and len(set(a)) > 190
    lengths = [len(s.split()) for s in a]
    assert min(lengths) <= 3 and max(lengths) >= 30
    assert sample_sentences() == sample_sentences(400, 0)
    assert any("ü" in s or "ß" in s or "ä" in s for s in a[1::2])  # German-like half


def test_build_tiny_xlmr_loads_offline(tmp_path):
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    d = build_tiny_xlmr(tmp_path / "xlmr", seed=0)
    tok = AutoTokenizer.from_pretrained(d)
    cfg = AutoConfig.from_pretrained(d)
    assert tok.is_fast and type(tok).__name__ == "XLMRobertaTokenizerFast"
    assert (cfg.model_type, cfg.hidden_size, cfg.num_hidden_layers) == ("xlm-roberta", 32, 2)
    assert (cfg.num_attention_heads, cfg.intermediate_size) == (2, 64)
    assert cfg.max_position_embeddings == 514 and cfg.initializer_range == pytest.approx(0.2)
    assert 200 <= len(tok) <= 500 and cfg.vocab_size == len(tok)
    ids = tok("Das Wetter ist kalt heute.", "The weather is cold today.")["input_ids"]
    assert ids[0] == tok.bos_token_id and ids.count(tok.sep_token_id) == 3
    assert tok.unk_token_id not in ids
    model = AutoModel.from_pretrained(d)
    assert model.config.hidden_size == 32

    again = build_tiny_xlmr(tmp_path / "xlmr2", seed=0)
    other = build_tiny_xlmr(tmp_path / "xlmr3", seed=1)
    for name in ("model.safetensors", "tokenizer.json", "sentencepiece.bpe.model"):
        assert (d / name).read_bytes() == (again / name).read_bytes(), name
    assert (d / "model.safetensors").read_bytes() != (other / "model.safetensors").read_bytes()


def _state(ckpt: Path) -> dict:
    import torch

    return torch.load(ckpt, map_location="cpu", weights_only=True)


def test_build_tiny_comet_deterministic(tiny_kiwi_dir, tmp_path):
    import torch

    same = build_tiny_comet(tmp_path / "same", kind="unified", seed=0)
    other = build_tiny_comet(tmp_path / "other", kind="unified", seed=1)
    a, b, c = (_state(d / "checkpoints" / "model.ckpt") for d in (tiny_kiwi_dir, same, other))
    assert a["state_dict"].keys() == b["state_dict"].keys()
    for k in a["state_dict"]:
        assert torch.equal(a["state_dict"][k], b["state_dict"][k]), k
    assert any(not torch.equal(a["state_dict"][k], c["state_dict"][k]) for k in a["state_dict"])
    # Rebuilding in the same place gives the same bytes.
    first = (same / "checkpoints" / "model.ckpt").read_bytes()
    build_tiny_comet(same, kind="unified", seed=0)
    assert (same / "checkpoints" / "model.ckpt").read_bytes() == first


@pytest.mark.parametrize("kind", sorted(COMET_KINDS))
def test_build_tiny_comet_layout_and_loading(kind, tiny_kiwi_dir, tiny_comet_da_dir,
                                             tiny_comet_qe_dir, tmp_path, monkeypatch):
    import comet
    import yaml

    d = {"unified": tiny_kiwi_dir, "regression": tiny_comet_da_dir,
         "referenceless": tiny_comet_qe_dir}.get(kind) or build_tiny_comet(tmp_path / kind, kind)
    size = sum(f.stat().st_size for f in d.rglob("*") if f.is_file())
    assert size < 2_000_000
    hparams = yaml.safe_load((d / "hparams.yaml").read_text())
    assert Path(hparams["pretrained_model"]) == d / "encoder"
    assert hparams["class_identifier"] == {
        "unified": "unified_metric", "unified-ref": "unified_metric", "xcomet": "xcomet_metric",
        "regression": "regression_metric",
        "referenceless": "referenceless_regression_metric"}[kind]

    monkeypatch.chdir(tmp_path)  # any working directory
    model = comet.load_from_checkpoint(str(d / "checkpoints" / "model.ckpt"))
    assert type(model).__name__ == {"unified": "UnifiedMetric", "unified-ref": "UnifiedMetric",
                                    "xcomet": "XCOMETMetric", "regression": "RegressionMetric",
                                    "referenceless": "ReferencelessRegression"}[kind]
    s = sample_sentences(90, seed=7)
    data = [{"src": s[i], "mt": s[i + 1], "ref": s[i + 2]} for i in range(0, 84, 3)]
    scores = model.predict(data, batch_size=16, gpus=0, progress_bar=False).scores
    assert statistics.pstdev(scores) > 1e-2  # a random tiny model must still discriminate


def test_different_seeds_give_different_scores(tiny_comet_qe_dir, tmp_path):
    import comet

    other = build_tiny_comet(tmp_path / "qe1", kind="referenceless", seed=1)
    data = [{"src": "Das Haus ist alt.", "mt": "The house is old."}]
    a = comet.load_from_checkpoint(str(tiny_comet_qe_dir / "checkpoints" / "model.ckpt"))
    b = comet.load_from_checkpoint(str(other / "checkpoints" / "model.ckpt"))
    sa = a.predict(data, gpus=0, progress_bar=False).scores[0]
    sb = b.predict(data, gpus=0, progress_bar=False).scores[0]
    assert abs(sa - sb) > 1e-4


def test_unknown_kind(tmp_path):
    with pytest.raises(ValueError, match="unified"):
        build_tiny_comet(tmp_path / "x", kind="ranking")
