"""Which reference and which human scores are "standard" for an MTME test set and language pair, and which
systems are outliers: not in the data directory, MTME keeps it in ``meta_info.DATA``.  :data:`STANDARDS`
repeats the entries of the MQM-judged language pairs of WMT21 and WMT22 and every entry of wmt23,
wmt23.sent, wmt24, wmt24pp and wmt25 (DA, ESA and post-edit references included), with their outlier
systems."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

__all__ = ["Standard", "STANDARDS"]


@dataclass(frozen=True)
class Standard:
    """MTME's meta-information for a language pair: the standard reference, the standard human
    scores per level, and the outlier systems."""

    ref: str
    gold: Mapping[str, str]
    outliers: frozenset[str] = frozenset()


def _mqm(ref: str, levels: Sequence[str] = ("sys", "seg"), outliers: Sequence[str] = ()) -> Standard:
    return Standard(ref, {lv: "mqm" for lv in levels}, frozenset(outliers))


_WMT22 = ("sys", "domain", "seg")
#: from mt_metrics_eval/meta_info.py (DATA), the MQM-judged language pairs up to WMT22
_UP_TO_WMT22: dict[tuple[str, str], Standard] = {
    ("wmt21.news", "en-de"): _mqm("refC"),
    ("wmt21.news", "en-ru"): _mqm("refA"),
    ("wmt21.news", "zh-en"): _mqm("refB"),
    ("wmt21.tedtalks", "en-de"): _mqm("refA"),
    ("wmt21.tedtalks", "en-ru"): _mqm("refA"),
    ("wmt21.tedtalks", "zh-en"): _mqm("refB"),
    ("wmt22", "en-de"): _mqm("refA", _WMT22, ("M2M100_1.2B-B4",)),
    ("wmt22", "en-ru"): _mqm("refA", _WMT22),
    ("wmt22", "zh-en"): _mqm("refA", _WMT22),
    ("wmt23", "en-de"): _mqm("refA", _WMT22, ("synthetic_ref",)),
    ("wmt23", "he-en"): _mqm("refB", _WMT22),
    ("wmt23", "zh-en"): _mqm("refA", _WMT22, ("synthetic_ref",)),
    ("wmt24", "en-de"): _mqm("refB", _WMT22, ("MSLC",)),
    ("wmt24", "en-es"): _mqm("refA", _WMT22, ("MSLC",)),
    ("wmt24", "ja-zh"): _mqm("refA", _WMT22, ("MSLC",)),
}


def _gold(ref: str, name: str | None, levels: Sequence[str] = _WMT22, outliers: Sequence[str] = ()) -> Standard:
    """A standard with gold ``name`` at ``levels`` (no gold at all when name is None)."""
    return Standard(ref, {lv: name for lv in levels} if name else {}, frozenset(outliers))


# The rest of MTME's meta_info.DATA for wmt23, wmt23.sent, wmt24, wmt24pp and wmt25 (checked against
# google-research/mt-metrics-eval at 68a481a, 2026-04-23): WMT23_DA's gold is 'da-sqm' at sys, domain and
# seg; en-he, en-ru, en-uk, ru-en and uk-en have std_gold={} (no standard gold); WMT24_ESA's gold is 'esa';
# WMT24PP has std_ref 'posteditA' (en-de_DE: 'posteditB', en-is_IS: 'refA') and std_gold={}; WMT25 is
# 'mqm' (en-ko_KR, ja-zh_CN) or 'esa-human1' (WMT25_ESA), std_ref 'refA', no outliers.
def _recent_standards() -> dict[tuple[str, str], Standard]:
    """WMT23-25 entries of MTME's meta_info.DATA (see the comment above)."""
    out = {("wmt23.sent", "en-de"): _mqm("refA", _WMT22)}
    for lp in ("cs-uk", "de-en", "en-cs", "en-ja", "en-zh", "ja-en"):
        out[("wmt23", lp)] = _gold("refA", "da-sqm")
    out[("wmt23", "en-he")] = _gold("refB", None)
    for lp in ("en-ru", "en-uk", "ru-en", "uk-en"):
        out[("wmt23", lp)] = _gold("refA", None)
    for lp in ("cs-uk", "en-cs", "en-hi", "en-is", "en-ja", "en-ru", "en-uk", "en-zh"):
        out[("wmt24", lp)] = _gold("refA", "esa")
    wmt24pp_ref = {"en-de_DE": "posteditB", "en-is_IS": "refA"}
    for lp in (
        "en-ar_EG en-ar_SA en-bg_BG en-bn_IN en-ca_ES en-cs_CZ en-da_DK en-de_DE en-el_GR en-es_MX en-et_EE "
        "en-fa_IR en-fi_FI en-fil_PH en-fr_CA en-fr_FR en-gu_IN en-he_IL en-hi_IN en-hr_HR en-hu_HU en-id_ID "
        "en-is_IS en-it_IT en-ja_JP en-kn_IN en-ko_KR en-lt_LT en-lv_LV en-ml_IN en-mr_IN en-nl_NL en-no_NO "
        "en-pa_IN en-pl_PL en-pt_BR en-pt_PT en-ro_RO en-ru_RU en-sk_SK en-sl_SI en-sr_RS en-sv_SE en-sw_KE "
        "en-sw_TZ en-ta_IN en-te_IN en-th_TH en-tr_TR en-uk_UA en-ur_PK en-vi_VN en-zh_CN en-zh_TW en-zu_ZA"
    ).split():
        out[("wmt24pp", lp)] = _gold(wmt24pp_ref.get(lp, "posteditA"), None)
    for lp in ("ja-zh_CN", "en-ko_KR"):
        out[("wmt25", lp)] = _gold("refA", "mqm")
    for lp in (
        "cs-de_DE cs-uk_UA en-ar_EG en-bho_IN en-zh_CN en-cs_CZ en-et_EE en-is_IS en-it_IT en-ja_JP en-mas_KE "
        "en-ru_RU en-sr_Cyrl_RS en-uk_UA"
    ).split():
        out[("wmt25", lp)] = _gold("refA", "esa-human1")
    return out


#: every language pair's standard (reference, gold per level, outliers), by (test set, language pair)
STANDARDS: dict[tuple[str, str], Standard] = {**_UP_TO_WMT22, **_recent_standards()}

