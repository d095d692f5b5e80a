"""Human clusters (docmetrics.judging.clusters, ``docmetrics rank --genmt/--human/--mtme``): each
rule against an independent computation with scipy written here, on data made here (ties, missing
segments, two waves, two and six systems, a system equal to another); the command line on a tiny GenMT
file, with the agreement of a stored metric; bad input exits 2 with one line; and the WMT24 ESA release
(en-cs) where ../shared has it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from cli_fixtures import run_cli

from docmetrics.formats.judgements import from_genmt, from_rows
from docmetrics.judging import cluster_agreement, human_clusters
from docmetrics.values.errors import InputError, SpecError

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
ALPHA = 0.05


# -- data made here -------------------------------------------------------------------------------------------
def make(n_systems, n_items=80, seed=0, *, twin=False, waves=2, missing=0.2):
    """system -> per item a tuple of wave scores (None: the wave did not judge it), and item domains.
    Scores are small integers (many ties and zero differences); system k is better by k/3 on average;
    ``twin``: the last system copies the first."""
    rng = np.random.default_rng(seed)
    rows = {}
    for k in range(n_systems - (1 if twin else 0)):
        row = []
        for _ in range(n_items):
            cell = tuple(None if rng.random() < missing else float(rng.integers(0, 6) + (k * rng.random() > 0.5))
                         for _ in range(waves))
            row.append(cell)
        rows[f"sys{k}"] = row
    if twin:
        rows[f"sys{n_systems - 1}"] = list(rows["sys0"])
    domains = ["news" if i % 3 else "social" for i in range(n_items)]
    return rows, domains


def judgements(rows, domains):
    return from_rows(rows, domains)


# -- independent computations ----------------------------------------------------------------------------------
def wilcoxon(d, alternative):
    if not d:
        return math.nan
    return scipy.stats.wilcoxon(d, alternative=alternative).pvalue


def wmt25_by_hand(rows, adjacent):
    """05-compute_clusters.py rewritten: waves flattened item-major, nanmean, one-sided Wilcoxon; rank
    ranges from the nearest significant system above and below; a cut where no range crosses it."""
    flat = {s: np.array([np.nan if cell[w] is None else cell[w] for cell in row for w in range(2)])
            for s, row in rows.items()}
    names = list(flat)
    means = np.array([np.nanmean(flat[s]) for s in names])
    order = [names[i] for i in np.argsort(-means, kind="stable")]

    def sig(a, b):
        ok = ~(np.isnan(flat[a]) | np.isnan(flat[b]))
        return wilcoxon(list(flat[a][ok] - flat[b][ok]), "greater") < ALPHA

    n = len(order)
    if adjacent:
        cuts = [p for p in range(1, n) if sig(order[p - 1], order[p])]
        ranks = None
    else:
        ranks = []
        for i, a in enumerate(order):
            above = [j for j in range(i) if sig(order[j], a)]
            below = [j for j in range(i + 1, n) if sig(a, order[j])]
            ranks.append((max(above) + 2 if above else 1, min(below) if below else n))
        cuts = [p for p in range(1, n) if max(r[1] for r in ranks[:p]) <= p and min(r[0] for r in ranks[p:]) > p]
    return order, split(order, cuts), ranks


def wmt24_by_hand(rows, domains):
    """calculate_clusters.py rewritten: the item mean over waves, the macro mean over domains, two-sided
    Wilcoxon per domain combined with scipy's Stouffer; a cut where every system above differs from every
    system below; ranks from wins and losses."""
    item = {s: np.array([np.mean([x for x in c if x is not None]) if any(x is not None for x in c) else np.nan
                         for c in row]) for s, row in rows.items()}
    dom = np.array(domains)
    names = list(item)
    means = np.array([np.mean([np.nanmean(item[s][dom == d]) for d in dict.fromkeys(domains)
                               if (~np.isnan(item[s][dom == d])).any()]) for s in names])
    order = [names[i] for i in np.argsort(-means, kind="stable")]
    mean = dict(zip(names, means))

    def p(a, b):
        ok = ~(np.isnan(item[a]) | np.isnan(item[b]))
        ps = [wilcoxon(list(item[a][ok & (dom == d)] - item[b][ok & (dom == d)]), "two-sided")
              for d in dict.fromkeys(dom[ok])]
        return scipy.stats.combine_pvalues(ps, method="stouffer").pvalue if ps else math.nan

    pv = {(a, b): p(a, b) for a in order for b in order if a != b}
    n = len(order)
    cuts = [c for c in range(1, n) if all(not pv[(order[i], order[j])] > ALPHA for i in range(c) for j in range(c, n))]
    ranks = []
    for a in order:
        won = [b for b in order if b != a and pv[(a, b)] < ALPHA and mean[a] > mean[b]]
        lost = [b for b in order if b != a and pv[(a, b)] < ALPHA and not mean[a] > mean[b]]
        ranks.append((len(lost) + 1, n - len(won)))
    return order, split(order, cuts), ranks, pv


def split(order, cuts):
    bounds = [0, *cuts, len(order)]
    return [order[a:b] for a, b in zip(bounds, bounds[1:])]


# (systems, seed, a twin, items): 20 items give domains of 13 pairs or fewer, where scipy >= 1.15's
# method="auto" runs an exact permutation test in the presence of ties (slow: one case only)
CASES = [(2, 0, False, 20), (2, 3, True, 80), (6, 1, False, 80), (6, 2, True, 80), (6, 5, False, 80),
         (4, 7, True, 80)]


@pytest.mark.parametrize("n,seed,twin,items", CASES)
@pytest.mark.parametrize("rule", ["wmt25", "wmt25-adjacent"])
def test_wmt25_rules_equal_scipy_by_hand(n, seed, twin, items, rule):
    rows, domains = make(n, items, seed=seed, twin=twin)
    got = human_clusters(judgements(rows, domains), rule)
    order, clusters, ranks = wmt25_by_hand(rows, adjacent=rule.endswith("adjacent"))
    assert [s.system for s in got.systems] == order
    assert got.clusters() == clusters
    assert [s.ranks for s in got.systems] == (ranks if ranks else [None] * n)
    for s in got.systems:
        values = [x for c in rows[s.system] for x in c if x is not None]
        assert s.score == pytest.approx(np.mean(values), abs=1e-12)


@pytest.mark.parametrize("n,seed,twin,items", CASES)
def test_wmt24_rule_equals_scipy_by_hand(n, seed, twin, items):
    rows, domains = make(n, items, seed=seed, twin=twin)
    got = human_clusters(judgements(rows, domains), "wmt24")
    order, clusters, ranks, pv = wmt24_by_hand(rows, domains)
    assert [s.system for s in got.systems] == order
    assert got.clusters() == clusters
    assert [s.ranks for s in got.systems] == ranks
    for t in got.tests:
        assert t.p == pytest.approx(pv[(t.better, t.worse)], rel=1e-9, abs=1e-12, nan_ok=True)


def test_a_system_equal_to_another_is_never_separated_from_it():
    rows, domains = make(6, seed=2, twin=True)
    for rule in ("wmt25", "wmt25-adjacent", "wmt24"):
        cluster = human_clusters(judgements(rows, domains), rule).cluster_of()
        assert cluster["sys0"] == cluster["sys5"], rule


def test_missing_waves_are_dropped_pairwise_and_the_mean_is_over_annotations():
    # A: item 0 in both waves, item 1 in wave 1; B: item 0 in wave 1, item 1 in wave 2 only
    data = from_rows({"A": [(90, 70), (80,)], "B": [(60,), (None, 50)]})
    r = human_clusters(data, "wmt25-adjacent")
    assert [(s.system, s.score, s.annotations) for s in r.systems] == [("A", 80.0, 3), ("B", 55.0, 2)]
    assert r.tests[0].pairs == 1  # wave with wave: only item 0's wave 1 has both sides
    r24 = human_clusters(data, "wmt24")
    assert [s.score for s in r24.systems] == [80.0, 55.0]  # item means (80, 80) and (60, 50)
    assert r24.tests[0].pairs == 2


def test_agreement_counts_pairs_in_different_clusters_only():
    rows, domains = make(6, seed=5)
    r = human_clusters(judgements(rows, domains), "wmt25-adjacent")
    cluster = r.cluster_of()
    assert r.n_clusters >= 2
    metric = {s.system: -k for k, s in enumerate(r.systems)}  # orders as the humans do
    first = next(k for k, s in enumerate(r.systems) if s.cluster == 2)
    metric[r.systems[first].system] = metric[r.systems[first - 1].system]  # but ties two across a cut
    [a] = cluster_agreement(r, {"m": metric})
    pairs = [(x, y) for x in cluster for y in cluster if cluster[x] < cluster[y]]
    assert (a.pairs, a.ties, a.agree, a.disagree) == (len(pairs), 1, len(pairs) - 1, 0)
    [flipped] = cluster_agreement(r, {"m": {k: -v for k, v in metric.items()}}, higher_is_better={"m": False})
    assert (flipped.agree, flipped.ties) == (a.agree, a.ties)
    [partial] = cluster_agreement(r, {"m": {s: v for s, v in metric.items() if s != "sys0"}})
    assert partial.left_out == ["sys0"]


def test_bad_calls_raise():
    with pytest.raises(InputError, match="at least two systems"):
        from_rows({"A": [1.0, 2.0], "B": [None, None]})
    rows, domains = make(2)
    with pytest.raises(SpecError, match="unknown cluster rule 'wmt23'"):
        human_clusters(judgements(rows, domains), "wmt23")


# -- the command line ------------------------------------------------------------------------------------------
SCORES = {  # system -> ESA per segment (list: two annotations, None: not judged)
    "good": [95, [90, 94], 92, 96, 91, 93, 97, 90],
    "fine": [94, 91, 93, [95, 92], 90, 94, 86, None],
    "poor": [40, 55, 35, 50, 45, 38, 52, 41],
    "refA": [70, 72, 75, 71, 69, 74, 73, 70],
}
DOCS = [("news", "d1")] * 4 + [("social", "d2")] * 4


def genmt_file(tmp_path, scores=SCORES, pair="en-de_DE"):
    rows = []
    for i, (domain, doc) in enumerate(DOCS):
        judged = {}
        for s, v in scores.items():
            x = v[i]
            if x is not None:
                judged[s] = [{"score": y} for y in x] if isinstance(x, list) else {"human": x}
        rows.append({"doc_id": f"{pair}_#_{domain}_#_{doc}", "src_text": f"Source {i}.",
                     "tgt_text": {s: f"Output {s} {i}." for s in scores}, "scores": judged})
    path = tmp_path / "humeval.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_cli_text_json_and_agreement(tmp_path, capsys):
    path = genmt_file(tmp_path)
    code, out, err = run_cli(capsys, "rank", "--genmt", path, "-l", "en-de_DE", "--rule", "wmt25-adjacent")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Human clusters en-de_DE: 4 systems, 3 clusters, rule wmt25-adjacent")
    assert [ln.split()[1] for ln in lines[3:] if ln.strip() and not ln.startswith("-") and ln.split()[0].isdigit()] \
        == ["good", "fine", "refA", "poor"]
    code, out, err = run_cli(capsys, "rank", "--genmt", path, "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["ranking"]["rule"] == "wmt25" and data["agreement"] == []
    assert data["ranking"]["clusters"] == [["good", "fine"], ["refA"], ["poor"]]
    by_hand = wmt25_by_hand({s: [tuple(x) + (None,) * (2 - len(x)) if isinstance(x, list) else (x, None)
                                 for x in v] for s, v in SCORES.items()}, adjacent=False)
    assert data["ranking"]["clusters"] == by_hand[1]
    assert [s["ranks"] for s in data["ranking"]["systems"]] == [list(r) for r in by_hand[2]]
    # a stored metric (TSV, one segment a line) that swaps refA and poor and ties good and fine
    tsv = tmp_path / "m.tsv"
    metric = {"good": 0.8, "fine": 0.8, "poor": 0.7, "refA": 0.6}
    tsv.write_text("system\tdoc_id\tm\n" + "".join(f"{s}\t{d}\t{metric[s]}\n" for s in SCORES for _, d in DOCS))
    code, out, err = run_cli(capsys, "rank", "--genmt", path, "-l", "en-de_DE", "--scores", tsv, "-f", "json")
    assert code == 0, err
    (agree,) = json.loads(out)["agreement"]
    # pairs across clusters: good>refA, good>poor, fine>refA, fine>poor (agree), refA>poor (disagree)
    assert (agree["pairs"], agree["agree"], agree["ties"], agree["disagree"]) == (5, 4, 0, 1)
    assert agree["share"] == pytest.approx(0.8)
    code, out, err = run_cli(capsys, "rank", "--genmt", path, "-l", "en-de_DE", "--scores", tsv)
    assert code == 0 and "Agreement with the human clusters" in out and "0.8000" in out


def test_cli_human_tsv_and_mtme(tmp_path, capsys):
    tsv = tmp_path / "human.tsv"
    tsv.write_text("system\tdoc_id\tseg_id\tscore\n" + "".join(
        f"{s}\td{i // 4}\t{i}\t{v if not isinstance(v, list) else v[0]}\n"
        for s, row in SCORES.items() for i, v in enumerate(row) if v is not None))
    code, out, err = run_cli(capsys, "rank", "--human", tsv, "--rule", "wmt24", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["ranking"]["systems"][0]["system"] in ("good", "fine")
    from test_mtme import build_tiny

    build_tiny(tmp_path / "mtme")
    code, out, err = run_cli(capsys, "rank", "--mtme", tmp_path / "mtme", "-t", "toy", "-l", "en-de", "-f", "json")
    assert code == 0, err
    data = json.loads(out)["ranking"]
    assert data["systems"][-1]["system"] == "sysC" and data["source"].endswith("en-de.mqm.seg.score")


def _write(path, text):
    path.write_text(text)
    return path


BAD = [
    ("one-system", lambda t: ["--genmt", genmt_file(t, {"good": SCORES["good"]})], ["humeval.jsonl",
                                                                                     "at least two systems"]),
    ("system-level", lambda t: ["--human", _write(t / "h.tsv", "system\tscore\nA\t1\nB\t2\n")],
     ["h.tsv", "segment scores"]),
    ("unknown-rule", lambda t: ["--genmt", genmt_file(t), "--rule", "wmt23"], ["--rule", "wmt23"]),
    ("rule-alone", lambda t: ["--rule", "wmt24"], ["--rule needs --genmt or --human or --mtme"]),
    ("nothing", lambda t: [], ["--scores", "--genmt"]),
    ("two-sources", lambda t: ["--genmt", genmt_file(t), "--human", "x.tsv"], ["--genmt and --human"]),
    ("mtme-no-testset", lambda t: ["--mtme", t, "-l", "en-de"], ["-t"]),
    ("testset-alone", lambda t: ["--genmt", genmt_file(t), "-t", "wmt24"], ["-t needs --mtme"]),
    ("unknown-pair", lambda t: ["--genmt", genmt_file(t), "-l", "en-fr"], ["humeval.jsonl", "en-fr"]),
    ("unscored", lambda t: ["--genmt", genmt_file(t, {s: [None] * 8 for s in SCORES})], ["humeval.jsonl"]),
]


@pytest.mark.parametrize("args,needles", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, args, needles):
    code, out, err = run_cli(capsys, "rank", *args(tmp_path))
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("docmetrics rank: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# -- real data -------------------------------------------------------------------------------------------------
WMT24_ESA = SHARED / "wmt24_esa" / "wmt24-esa-encs-enhi.jsonl"


@pytest.mark.skipif(not WMT24_ESA.exists(), reason="../shared/data/wmt24_esa not here")
def test_wmt24_esa_en_cs_clusters(capsys):
    from docmetrics.formats.genmt import read_genmt

    data = from_genmt(read_genmt(WMT24_ESA).pair("en-cs"))
    assert len(data.systems) == 16 and "refA" in data.systems
    for rule in ("wmt25", "wmt25-adjacent", "wmt24"):
        r = human_clusters(data, rule)
        with capsys.disabled():
            print(f"\nen-cs {rule}: " + " | ".join(", ".join(c) for c in r.clusters()))
        scores = [s.score for s in r.systems]
        assert scores == sorted(scores, reverse=True) and 2 <= r.n_clusters < 16
        assert r.systems[-1].system in ("IKUN-C", "Llama3-70B") and r.cluster_of()["IKUN-C"] == r.n_clusters
