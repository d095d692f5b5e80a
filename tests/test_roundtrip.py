"""Every registered metric and every preset: the signature (long and short form) parses back into a
metric with the same signature."""

from __future__ import annotations

import pytest

import docmetrics
from docmetrics.plugin import presets, registry
from docmetrics.values.signature import parse_signature


@pytest.fixture(scope="module")
def models(tiny_kiwi_dir, tiny_comet_da_dir, tiny_comet_qe_dir, tmp_path_factory):
    from docmetrics_backbones.metricx.testing import build_tiny_metricx
    from docmetrics_backbones.prism.testing import build_tiny_mbart

    metricx = build_tiny_metricx(tmp_path_factory.mktemp("metricx"))
    return {
        "kiwi": tiny_kiwi_dir, "da": tiny_comet_da_dir, "qe": tiny_comet_qe_dir,
        "mbart": build_tiny_mbart(tmp_path_factory.mktemp("mbart")),
        "metricx": metricx.model, "mt5_tokenizer": metricx.tokenizer,
    }


SPECS = {
    "slide": "slide:w=3,s=2,partial=weighted,model={kiwi}",
    "doc-comet": "doc-comet:k=1,hyp-context=mt,model={da}",
    "doc-comet-qe": "doc-comet-qe:k=3,model={qe}",
    "doc-prism": "doc-prism:k=1,model={mbart},lang=en-de",
    "asd": "asd:model={kiwi},aligner_model={kiwi},mode=full,chunks=1+2",
    "doc-bertscore": "doc-bertscore:k=1,model=minilm",
    "bleu": "bleu:tokenize=intl,smooth_method=floor,smooth_value=0.2",
    "d-bleu": "d-bleu:lowercase=true",
    "chrf": "chrf:word_order=2",
    "d-chrf": "d-chrf:char_order=4,eps_smoothing=true",
    "ter": "ter:normalized=true,case_sensitive=true",
    "d-ter": "d-ter:no_punct=true",
}


def test_every_metric_has_a_case():
    assert set(registry.names("metric")) <= set(SPECS)


@pytest.mark.parametrize("short", [False, True])
@pytest.mark.parametrize("name", sorted(SPECS))
def test_metric_signature_round_trip(models, name, short):
    if name not in registry.names("metric"):
        pytest.skip(f"{name} is not registered")
    metric = docmetrics.load(SPECS[name].format(**models))
    sig = metric.signature()
    text = sig.format(short=short)
    again = docmetrics.load(text)
    assert again.signature().format(short=short) == text
    assert again.param_values() == metric.param_values()
    parsed = parse_signature(text)
    assert parsed.metric == name and parsed.version == docmetrics.__version__


@pytest.mark.parametrize("name", sorted(presets.presets()))
def test_preset_round_trip(models, name):
    preset = presets.get(name)
    metric_name = preset.spec.split(":")[0]
    local = {"slide": models["kiwi"], "doc-comet": models["da"], "doc-comet-qe": models["qe"],
             "doc-bertscore": "minilm"}[metric_name]
    extra = ""
    if "backbone=metricx" in preset.spec:  # a MetricX checkpoint and, apart, its tokenizer
        local, extra = models["metricx"], f",tokenizer={models['mt5_tokenizer']}"
    metric = docmetrics.load(f"{name}:model={local}{extra}")
    if "model=" in preset.spec:
        spec = preset.spec.replace(preset.spec.split("model=")[1].split(",")[0], str(local))
        if extra:
            spec = spec.replace(spec.split("tokenizer=")[1].split(",")[0], str(models["mt5_tokenizer"]))
        base = docmetrics.load(spec)
    else:
        base = docmetrics.load(f"{preset.spec},model={local}")
    assert metric.signature().format() == base.signature().format()
    for short in (False, True):
        text = metric.signature().format(short=short)
        assert docmetrics.load(text).signature().format(short=short) == text
