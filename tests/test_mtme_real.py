"""mt-metrics-eval directories as MTME ships them (docmetrics.formats.mtme), shapes taken from real data.

MTME's data is a tarball, not in git.  A real MTME directory is committed in
https://github.com/florethsong/mtme-zh-mwe (Apache-2.0, commit 78ea1631): ``raw_wmt22/``, WMT22 zh-en as
mt-metrics-eval-v2 has it, with two folders renamed (``human-score_sd`` holds the sys/domain human scores,
``metric-scores/zh-en_all`` the metric scores).  Put back in MTME's layout (``ROOT/wmt22/{documents, sources,
references, system-outputs/zh-en, human-scores, metric-scores/zh-en}``), it reads with ``read_mtme`` and
``read_back`` (tests/mtme_fixtures.py) and scores with ``docmetrics -m chrf --mtme ROOT -t wmt22 -l zh-en`` (18 systems x 1875
segments judged; DLUT, NiuTrans, QUARTZ_TuneReranking and chrf_bestmbr left out: MQM None).  Its shapes, checked
by script over every file, each written into the fixture below:

- every score file tab-separated, ending with a newline, no blank line; ``SYS<TAB>SCORE`` (sys, seg) and
  ``DOMAIN<TAB>SYS<TAB>SCORE`` (domain); ``documents/zh-en.docs`` is ``DOMAIN<TAB>DOCNAME`` (4 domains, 256 docs);
- ``None`` in human scores at every level: mqm sys 4 of 20 lines, domain 16 of 80, seg 7,500 of 37,500 (the
  systems MQM did not judge are None throughout); wmt-z seg 16,680; no ``nan``; no None in metric scores;
- human score names with dashes (``wmt-appraise-z``, ``wmt-z``); human levels sys, domain, seg (no doc);
- metric files at seg level only, names split at the last dash: ``BLEURT-20-refA``, ``UniTE-ref-refA``,
  ``COMET-QE-src``, ``metricx_xl_DA_2019-refB``;
- references refA and refB, also in system-outputs (human translations); system names with dots and dashes
  (``M2M100_1.2B-B4``).

``DOCMETRICS_MTME_ROOT`` (a directory holding ``wmt22/`` so laid out) runs the same checks on the real data.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mtme_fixtures import read_back

from docmetrics.formats.mtme import read_mtme

REAL = os.environ.get("DOCMETRICS_MTME_ROOT")


def _layout(root: Path) -> Path:
    d = root / "wmt22"
    files = {
        "documents/zh-en.docs": "conversation\tc-doc1\nconversation\tc-doc1\necommerce\te-doc2\nnews\tn-doc3\n",
        "sources/zh-en.txt": "你好\n再见\n价格\n新闻\n",
        "references/zh-en.refA.txt": "Hello\nBye\nPrice\nNews\n",
        "references/zh-en.refB.txt": "Hi\nGoodbye\nCost\nReport\n",
        "system-outputs/zh-en/M2M100_1.2B-B4.txt": "Hello .\nBye\nPrice\nNews\n",
        "system-outputs/zh-en/DLUT.txt": "Hey\nBye\nPrice\nNew\n",
        "system-outputs/zh-en/refA.txt": "Hello\nBye\nPrice\nNews\n",
        "system-outputs/zh-en/refB.txt": "Hi\nGoodbye\nCost\nReport\n",
        "human-scores/zh-en.mqm.sys.score": "M2M100_1.2B-B4\t-6.8\nDLUT\tNone\nrefA\t-1.0\nrefB\t-0.5\n",
        "human-scores/zh-en.mqm.domain.score": "".join(
            f"{dom}\t{s}\t{v}\n" for s, v in (("M2M100_1.2B-B4", "-3.6"), ("DLUT", "None"), ("refA", "-1.0"),
                                                ("refB", "-0.5")) for dom in ("conversation", "ecommerce", "news")),
        "human-scores/zh-en.mqm.seg.score": "".join(
            f"{s}\t{v}\n" for s, vals in (("M2M100_1.2B-B4", ("-0.0", "-5.0", "-1.0", "-0.1")),
                                          ("DLUT", ("None",) * 4), ("refA", ("-0.0",) * 4),
                                          ("refB", ("-0.0", "-1.0", "None", "-0.0"))) for v in vals),
        "human-scores/zh-en.wmt-appraise-z.sys.score": "M2M100_1.2B-B4\t-0.3\nDLUT\t0.1\nrefA\tNone\nrefB\t0.2\n",
        "metric-scores/zh-en/BLEURT-20-refA.seg.score": "".join(
            f"{s}\t0.{k}\n" for s in ("M2M100_1.2B-B4", "DLUT", "refB") for k in range(4)),
        "metric-scores/zh-en/UniTE-ref-refA.seg.score": "".join(
            f"{s}\t0.{k}\n" for s in ("M2M100_1.2B-B4", "DLUT", "refB") for k in range(4)),
        "metric-scores/zh-en/COMET-QE-src.seg.score": "".join(
            f"{s}\t-0.{k}\n" for s in ("M2M100_1.2B-B4", "DLUT", "refA", "refB") for k in range(4)),
    }
    for name, text in files.items():
        path = d / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _check(root, n_systems, n_segments, n_docs, domains):
    ts = read_mtme(root, "wmt22", "zh-en")
    assert len(ts.system_outputs) == n_systems and ts.n_segments == n_segments and len(ts.doc_names) == n_docs
    assert list(ts.domain_names) == domains and sorted(ts.references) == ["refA", "refB"]
    assert {"refA", "refB"} <= set(ts.human_systems)
    assert {("mqm", "sys"), ("mqm", "domain"), ("mqm", "seg"), ("wmt-appraise-z", "sys")} <= set(ts.human_scores)
    assert ts.human_scores[("mqm", "sys")]["DLUT"] == [None]
    assert ts.human_scores[("mqm", "domain")]["DLUT"] == [None] * len(domains)
    assert ts.human_scores[("mqm", "seg")]["DLUT"] == [None] * n_segments
    metrics = read_back(root, "wmt22", "zh-en")
    assert {("BLEURT-20", "refA", "seg"), ("UniTE-ref", "refA", "seg"), ("COMET-QE", "src", "seg")} <= set(metrics)
    return ts, metrics


def test_fixture_with_the_real_shapes(tmp_path):
    ts, metrics = _check(_layout(tmp_path), 4, 4, 3, ["conversation", "ecommerce", "news"])
    assert ts.human_scores[("mqm", "seg")]["refB"] == [-0.0, -1.0, None, -0.0]
    assert metrics[("UniTE-ref", "refA", "seg")]["DLUT"] == [0.0, 0.1, 0.2, 0.3]


@pytest.mark.skipif(not REAL, reason="set DOCMETRICS_MTME_ROOT to a directory holding the real wmt22/ (see above)")
def test_real_wmt22_zh_en():
    ts, metrics = _check(REAL, 20, 1875, 256, ["conversation", "ecommerce", "news", "social"])
    assert sum(v is None for s in ts.human_scores[("mqm", "seg")].values() for v in s) == 7500
    assert len(metrics) == 52
