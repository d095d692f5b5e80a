"""The one parser of language pairs (docmetrics.values.langpair): MTME's locale-suffixed pairs and every
bad form, table-driven."""

from __future__ import annotations

import pytest

from docmetrics.values.errors import SpecError
from docmetrics.values.langpair import Language, check_langpair, parse_langpair


@pytest.mark.parametrize("text, src, tgt, code", [
    ("en-de", Language("en"), Language("de"), "en-de"),
    ("EN-DE", Language("en"), Language("de"), "en-de"),
    (" zh-en ", Language("zh"), Language("en"), "zh-en"),
    # wmt25 (MTME meta_info.py)
    ("en-ko_KR", Language("en"), Language("ko", None, "KR"), "en-ko_KR"),
    ("cs-de_DE", Language("cs"), Language("de", None, "DE"), "cs-de_DE"),
    ("en-sr_Cyrl_RS", Language("en"), Language("sr", "Cyrl", "RS"), "en-sr_Cyrl_RS"),
    ("en-bho_IN", Language("en"), Language("bho", None, "IN"), "en-bho_IN"),
    ("en-mas_KE", Language("en"), Language("mas", None, "KE"), "en-mas_KE"),
    # wmt24pp
    ("en-fil_PH", Language("en"), Language("fil", None, "PH"), "en-fil_PH"),
    # normalised case, a script alone, a numeric region, a suffixed source
    ("en-sr_cyrl_rs", Language("en"), Language("sr", "Cyrl", "RS"), "en-sr_Cyrl_RS"),
    ("en-zh_Hant", Language("en"), Language("zh", "Hant"), "en-zh_Hant"),
    ("en-es_419", Language("en"), Language("es", None, "419"), "en-es_419"),
    ("en_US-de_DE", Language("en", None, "US"), Language("de", None, "DE"), "en_US-de_DE"),
])
def test_parse(text, src, tgt, code):
    lp = parse_langpair(text)
    assert (lp.source, lp.target, lp.code, str(lp)) == (src, tgt, code, code)
    assert (lp.src, lp.tgt) == (src.language, tgt.language)
    assert check_langpair(text) is None


@pytest.mark.parametrize("text, says", [
    ("en", "not of the form"),
    ("en-de-fr", "not of the form"),
    ("en-ko-KR", "not of the form"),
    ("en-", "not of the form"),
    ("-de", "not of the form"),
    ("en_de", "not of the form"),
    ("english-german", "'english' is not a language code"),
    ("e-de", "'e' is not a language code"),
    ("en-ko_KOR", "'KOR' in 'ko_KOR' is neither a script"),
    ("en-ko_K1", "'K1' in 'ko_K1' is neither a script"),
    ("en-ko_", "'' in 'ko_' is neither a script"),
    ("en-sr_RS_Cyrl", "'RS' in 'sr_RS_Cyrl' is not a script"),
    ("en-sr_Cyrl_Serb", "'Serb' in 'sr_Cyrl_Serb' is not a region"),
    ("en-sr_Cyrl_RS_x", "3 '_' suffixes"),
    ("en-d3", "'d3' is not a language code"),
])
def test_bad(text, says):
    with pytest.raises(SpecError) as exc:
        parse_langpair(text)
    assert says in str(exc.value) and repr(text) in str(exc.value)
    assert "SRC-TGT" in str(exc.value) and "en-ko_KR" in str(exc.value)
    assert check_langpair(text) == str(exc.value)


# -- every place a pair is read takes MTME's locale-suffixed pairs ---------------------------------------
def test_asd_parse_lang():
    from docmetrics_metrics.asd.metric import parse_lang

    assert parse_lang("en-ko_KR") == ("en", "ko")
    assert parse_lang("en-sr_Cyrl_RS") == ("en", "sr")
    assert parse_lang("ja-zh_CN") == ("ja", "zh")
    assert parse_lang("auto") == (None, None)
    with pytest.raises(ValueError, match="'KOR' in 'ko_KOR'.*or auto"):
        parse_lang("en-ko_KOR")


def test_bertscore_lang():
    from docmetrics_backbones.bertscore.languages import check_lang, target_language

    assert [target_language(x) for x in ("en-ko_KR", "cs-de_DE", "en-sr_Cyrl_RS", "de", "zh_CN", "en-sci")] \
        == ["ko", "de", "sr", "de", "zh", "en-sci"]
    assert check_lang("en-ko_KR") is None and check_lang("ko_KR") is None
    assert "'KOR' in 'ko_KOR'" in check_lang("en-ko_KOR")


def test_bertscore_default_model_for_a_locale_pair():
    from docmetrics_backbones.bertscore.backbone import BertScoreBackbone

    assert BertScoreBackbone(None, lang="ja-zh_CN").model == "bert-base-chinese"  # bert-score's zh model
    assert BertScoreBackbone(None, lang="en-ko_KR").model == "bert-base-multilingual-cased"
    with pytest.raises(SpecError, match="parameter 'lang'.*'KOR' in 'ko_KOR'"):
        BertScoreBackbone(None, lang="en-ko_KOR")


@pytest.mark.parametrize("pair, code", [
    ("en-ko_KR", "ko_KR"), ("cs-de_DE", "de_DE"), ("ja-zh_CN", "zh_CN"), ("en-ja_JP", "ja_XX"),
    ("en-pt_BR", "pt_XX"), ("en-uk_UA", "uk_UA"), ("en-de", "de_DE"), ("en-de_DE", "de_DE"),
])
def test_prism_codes(pair, code):
    from docmetrics_backbones.prism.languages import check_pair, target_code

    assert target_code(pair) == code and check_pair(pair) is None


def test_prism_refuses():
    from docmetrics_backbones.prism.languages import check_pair

    assert "'sr_Cyrl_RS' is not one of mBART-50's languages" in check_pair("en-sr_Cyrl_RS")
    assert "not of the form src-tgt" in check_pair("en-ko-KR")
