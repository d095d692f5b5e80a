"""``rank --rule wmt26`` (docmetrics.judging.clusters) against a transcription of WMT26's
``humeval/02-analyze_results.py`` (wmt-conference/wmt26-general-mt at 1fa5211) written here: per item the
mean of its annotations, systems sorted by their mean item score, ``ttest_rel``/``ttest_ind`` with
``nan_policy="omit"``, a cluster where every system above differs from every system below, a local mark
where only the adjacent pair does.  On random data (ties, missing items, a twin system), on the command
line, and on the WMT24 ESA release where ../shared has it."""

from __future__ import annotations

import collections
import json
import math
import statistics
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from cli_fixtures import run_cli
from test_human_clusters import SCORES, genmt_file, make

from docmetrics.formats.judgements import from_genmt, from_rows
from docmetrics.judging import human_clusters

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def script(data_model_item):
    """02-analyze_results.py's per-language loop, transcribed: ``data_model_item`` is model -> item id ->
    its annotation scores (models in the order the annotations name them).  Returns the sorted models with
    their mean and the script's cluster mark (yes_cluster, yes_local, nothing)."""
    def is_significantly_better(scores_a, scores_b):
        _, p_value1 = scipy.stats.ttest_rel(scores_a, scores_b, nan_policy="omit")
        _, p_value2 = scipy.stats.ttest_ind(scores_a, scores_b, nan_policy="omit")
        return p_value1 < 0.05 or p_value2 < 0.05

    item_ids = list({i for items in data_model_item.values() for i in items})
    avg = {model: [float(statistics.mean(data_model_item[model][i])) if i in data_model_item[model]
                   else float("nan") for i in item_ids] for model in data_model_item}
    flat = list(avg.items())
    flat.sort(key=lambda x: statistics.mean([v for v in x[1] if not np.isnan(v)]), reverse=True)
    out = []
    for model_i, (model, scores) in enumerate(flat):
        if model_i < len(flat) - 1:
            local = is_significantly_better(tuple(flat[model_i][1]), tuple(flat[model_i + 1][1]))
            glob = all(is_significantly_better(tuple(flat[up][1]), tuple(flat[down][1]))
                       for up in range(0, model_i + 1) for down in range(model_i + 1, len(flat)))
        mark = ("nothing" if model_i == len(flat) - 1 else "yes_cluster" if glob else
                "yes_local" if local else "nothing")
        out.append((model, statistics.mean([v for v in scores if not np.isnan(v)]), mark))
    return out


def annotations(rows):
    """``make``'s rows (per item a tuple of wave scores, None: not judged) as the script's dict."""
    return {s: {f"item{i}": [x for x in cell if x is not None] for i, cell in enumerate(row)
                if any(x is not None for x in cell)} for s, row in rows.items()}


MARK = {"yes_cluster": "cluster", "yes_local": "local", "nothing": "none"}


def check(got, expected):
    assert [s.system for s in got.systems] == [m for m, _, _ in expected]
    assert [s.mark for s in got.systems] == [MARK[k] for _, _, k in expected]
    assert [s.score for s in got.systems] == [float(x) for _, x, _ in expected]
    clusters, current = [], []
    for model, _, mark in expected:
        current.append(model)
        if mark == "yes_cluster":
            clusters.append(current)
            current = []
    assert got.clusters() == clusters + [current]


def spread(n, items, seed, missing, twin=False):
    """Systems far apart or close, some noisy: per item one or two annotations on WMT's 0-100 scale in
    steps of 5 (ties), None where not judged; ``twin``: the last system copies the first."""
    rng = np.random.default_rng(seed)
    rows = {}
    for k in range(n - twin):
        base, noise = rng.integers(40, 90), rng.choice([2, 10, 30])
        rows[f"sys{k}"] = [tuple(None if rng.random() < missing else
                                 float(np.clip(round(base + noise * rng.standard_normal()) // 5 * 5, 0, 100))
                                 for _ in range(rng.integers(1, 3))) for _ in range(items)]
    if twin:
        rows[f"sys{n - 1}"] = list(rows["sys0"])
    return rows


# make(systems, items, seed, twin, missing): small integers 0-6, close systems; spread(...) as above
CASES = [("make", 2, 20, 0, False, 0.2), ("make", 6, 80, 2, True, 0.2), ("make", 8, 30, 4, False, 0.5),
         ("make", 5, 6, 11, False, 0.7), ("spread", 6, 40, 1, False, 0.2), ("spread", 8, 30, 2, False, 0.4),
         ("spread", 10, 20, 3, False, 0.5), ("spread", 5, 60, 4, False, 0.1), ("spread", 12, 15, 5, False, 0.3),
         ("spread", 4, 10, 6, True, 0.6)]


def rows_of(kind, n, items, seed, twin, missing):
    if kind == "make":
        return make(n, items, seed=seed, twin=twin, missing=missing)[0]
    return spread(n, items, seed, missing, twin)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}x{c[2]}-s{c[3]}" for c in CASES])
def test_wmt26_equals_the_script(case):
    rows = rows_of(*case)
    got = human_clusters(from_rows(rows), "wmt26")
    check(got, script(annotations(rows)))
    assert got.rule == "wmt26" and all(s.ranks is None for s in got.systems)


def test_the_cases_reach_every_mark():
    marks = collections.Counter()
    for case in CASES:
        marks.update(s.mark for s in human_clusters(from_rows(rows_of(*case)), "wmt26").systems)
    assert marks["cluster"] and marks["local"] and marks["none"], marks


def test_hand_made_local_mark_and_a_nan_p_value():
    # A > B > C; B and C differ on every item (both tests significant), A is so noisy that it differs from
    # neither: one local mark after B, one cluster.  D copies C: the paired test has no variance (NaN
    # p-value, not significant), the independent one p = 1
    data = from_rows({
        "A": [100, 0, 100, 0, 100, 0, 100, 100],
        "B": [60, 61, 59, 60, 62, 58, 60, 60],
        "C": [50, 50, 51, 50, 49, 50, 50, 50],
        "D": [50, 50, 51, 50, 49, 50, 50, 50],
    })
    r = human_clusters(data, "wmt26")
    assert [(s.system, s.mark) for s in r.systems] == [("A", "none"), ("B", "local"), ("C", "none"),
                                                       ("D", "none")]
    assert r.clusters() == [["A", "B", "C", "D"]]
    tests = {(t.better, t.worse): t for t in r.tests}
    bc, cd = tests[("B", "C")], tests[("C", "D")]
    b, c = [60, 61, 59, 60, 62, 58, 60, 60], [50, 50, 51, 50, 49, 50, 50, 50]
    assert dict(bc.by_test) == {"ttest_rel": scipy.stats.ttest_rel(b, c).pvalue,
                                "ttest_ind": scipy.stats.ttest_ind(b, c).pvalue}
    assert bc.significant and bc.p == min(dict(bc.by_test).values())
    assert math.isnan(dict(cd.by_test)["ttest_rel"]) and cd.p == 1.0 and not cd.significant
    assert cd.to_dict()["p_by_test"] == {"ttest_rel": None, "ttest_ind": 1.0}


def test_a_pair_separated_only_by_the_paired_test_and_missing_items():
    # B is A minus 1..2 on every item: paired p tiny, independent p large; C judged on two items only
    a = [50.0, 90.0, 10.0, 70.0, 30.0, 60.0, 40.0, 80.0]
    b = [x - 1 - (i % 2) for i, x in enumerate(a)]
    data = from_rows({"A": a, "B": b, "C": [None] * 6 + [5.0, 6.0]})
    r = human_clusters(data, "wmt26")
    ab = next(t for t in r.tests if (t.better, t.worse) == ("A", "B"))
    rel, ind = dict(ab.by_test).values()
    assert rel < 0.05 < ind and ab.significant and ab.pairs == 8
    check(r, script({"A": {i: [x] for i, x in enumerate(a)}, "B": {i: [x] for i, x in enumerate(b)},
                     "C": {6: [5.0], 7: [6.0]}}))


def test_cli_text_and_json(tmp_path, capsys):
    path = genmt_file(tmp_path)
    code, out, err = run_cli(capsys, "rank", "--genmt", path, "-l", "en-de_DE", "--rule", "wmt26", "-f", "json")
    assert code == 0, err
    data = json.loads(out)["ranking"]
    expected = script({s: {i: (x if isinstance(x, list) else [x]) for i, x in enumerate(v) if x is not None}
                       for s, v in SCORES.items()})
    assert [s["system"] for s in data["systems"]] == [m for m, _, _ in expected]
    assert [s["mark"] for s in data["systems"]] == [MARK[k] for _, _, k in expected]
    assert data["rule"] == "wmt26" and set(data["tests"][0]["p_by_test"]) == {"ttest_rel", "ttest_ind"}
    code, out, err = run_cli(capsys, "rank", "--genmt", path, "-l", "en-de_DE", "--rule", "wmt26")
    assert code == 0, err
    assert out.startswith("Human clusters en-de_DE: 4 systems, ") and "rule wmt26 (WMT26 02-analyze" in out


def test_cli_draws_local_marks_dotted(tmp_path, capsys):
    tsv = tmp_path / "h.tsv"
    rows = {"A": [100, 0, 100, 0, 100, 0, 100, 100], "B": [60, 61, 59, 60, 62, 58, 60, 60],
            "C": [50, 51, 49, 50, 52, 48, 50, 50]}
    tsv.write_text("system\tdoc_id\tseg_id\tscore\n" + "".join(
        f"{s}\td\t{i}\t{v}\n" for s, row in rows.items() for i, v in enumerate(row)))
    code, out, err = run_cli(capsys, "rank", "--human", tsv, "--rule", "wmt26")
    assert code == 0, err
    lines = out.splitlines()
    body = [ln for ln in lines[3:] if ln and not ln.startswith("from ")]
    assert body[2].startswith("...") and body[1].split()[1] == "B" and body[3].split()[1] == "C"
    assert any("dotted line" in ln for ln in lines)


WMT24_ESA = SHARED / "wmt24_esa" / "wmt24-esa-encs-enhi.jsonl"


@pytest.mark.skipif(not WMT24_ESA.exists(), reason="../shared/data/wmt24_esa not here")
@pytest.mark.parametrize("lp", ["en-cs", "en-hi"])
def test_wmt24_esa_file_equals_the_script(lp):
    from docmetrics.formats.genmt import read_genmt

    raw: dict[str, dict[int, list[float]]] = collections.defaultdict(dict)
    with open(WMT24_ESA, encoding="utf-8") as f:
        for i, line in enumerate(f):
            row = json.loads(line)
            if row["doc_id"].split("_#_")[0] == lp:
                for model, anns in (row.get("scores") or {}).items():
                    got = [a["score"] for a in anns if a.get("score") is not None]
                    if got:
                        raw[model][i] = got
    r = human_clusters(from_genmt(read_genmt(WMT24_ESA).pair(lp)), "wmt26")
    check(r, script(dict(raw)))
    assert len(r.systems) == {"en-cs": 16, "en-hi": 11}[lp]
