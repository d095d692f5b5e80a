"""AutoRank's presets: a campaign's metric set per language pair (``wmt25``), by name in
:data:`AUTORANK_PRESETS`.  Plain values (no numpy), so that ``docmetrics rank --help`` can list them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

__all__ = ["RankPreset", "WMT25", "AUTORANK_PRESETS"]


@dataclass(frozen=True)
class RankPreset:
    """A campaign's metric set: ``metrics`` for every language pair but those in ``by_pair`` (lp ->
    metrics; the pair as the campaign writes it, with its locale)."""

    name: str
    description: str
    metrics: tuple[str, ...]
    by_pair: Mapping[str, tuple[str, ...]]

    def metrics_for(self, lp: str) -> tuple[str, ...]:
        return self.by_pair.get(lp, self.metrics)


_WMT25_ALL = ("CometKiwi-XL", "GEMBA-ESA-CMDA", "GEMBA-ESA-GPT4.1", "MetricX-24-Hybrid-XL", "XCOMET-XL")
#: WMT25's pairs without human references: CometKiwi-XL left out (MetricX and XCOMET run as QE there).
_WMT25_NO_REFERENCE = ("en-bn_BD", "en-de_DE", "en-el_GR", "en-fa_IR", "en-hi_IN", "en-id_ID", "en-it_IT", "en-kn_IN",
                       "en-lt_LT", "en-mr_IN", "en-ro_RO", "en-sr_Latn_RS", "en-sv_SE", "en-th_TH", "en-tr_TR",
                       "en-vi_VN")
#: WMT25's two lowest-resource pairs: chrF++ alone.
_WMT25_LOW_RESOURCE = ("en-bho_IN", "en-mas_KE")

WMT25 = RankPreset(
    "wmt25",
    "WMT25 General MT preliminary ranking: GEMBA-ESA (Command A, GPT-4.1), MetricX-24-Hybrid-XL, XCOMET-XL and "
    "CometKiwi-XL; CometKiwi-XL left out where there is no reference; chrF++ alone for en-bho_IN and en-mas_KE",
    _WMT25_ALL,
    {**{lp: tuple(m for m in _WMT25_ALL if m != "CometKiwi-XL") for lp in _WMT25_NO_REFERENCE},
     **{lp: ("chrF++",) for lp in _WMT25_LOW_RESOURCE}},
)
AUTORANK_PRESETS: dict[str, RankPreset] = {WMT25.name: WMT25}
