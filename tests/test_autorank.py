"""AutoRank (WMT25's definition) and the stored-scores readers it ranks from.

The definition is checked on data the tests make (ties, a lower-is-better metric, missing segments, one
system, two systems, a zero spread) against an independent computation written here with numpy; each
reader on tiny files written here with every shape WMT25's real files have (checked over the real files
by a script: every line has exactly language_pair, domain, document_id and metric_scores; a file holds 1
to 31 language pairs; the documents of a pair are in the same order in every system's file; every metric
of a line scores the same number of segments, never 0; scores are ints (GEMBA-ESA) or floats; nulls occur
(GEMBA-ESA-CMDA only), also as the only score of a one-segment document; MetricX is <= 0 everywhere, with
a few exact 0; chrF++ is there for two pairs only, for every system; files end with a newline); bad input
through the command line, one row each: exit 2 and one line naming the file, the line and the field.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_fixtures import run_cli

from docmetrics.formats.mtme_scores import read_mtme_stored
from docmetrics.formats.stored import read_score_tsv, read_wmt25_scores
from docmetrics.formats.stored_metric import to_results
from docmetrics.judging import read_stored
from docmetrics.judging.ranking import EPS, autorank, linear_ranks, rank_stored, robust_scale
from docmetrics.judging.ranking_presets import WMT25
from docmetrics.values.errors import InputError
from docmetrics.values.testset import TestSet


# -- an independent AutoRank ------------------------------------------------------------------------------
def independent(segments: dict[str, dict[str, list[float | None]]], higher: dict[str, bool]) -> dict[str, float]:
    """metric -> system -> segment scores (None missing) -> system -> AutoRank, written from main.tex."""
    metrics = list(segments)
    systems = list(segments[metrics[0]])
    z = []
    for m in metrics:
        x = np.array([np.mean([v for v in segments[m][s] if v is not None]) for s in systems])
        x = x if higher[m] else -x
        d = max(EPS, np.percentile(x, 100) - np.percentile(x, 25))
        z.append((x - np.median(x)) / d)
    mean = np.mean(z, axis=0)
    if mean.max() == mean.min():
        return dict.fromkeys(systems, 1.0)
    ranks = 1 + (len(systems) - 1) * (mean.max() - mean) / (mean.max() - mean.min())
    return dict(zip(systems, ranks.tolist()))


def write_tsv(path, segments, doc_ids):
    metrics = list(segments)
    lines = ["\t".join(["system", "doc_id", *metrics])]
    for s in segments[metrics[0]]:
        for i, doc in enumerate(doc_ids):
            cells = ["" if segments[m][s][i] is None else repr(segments[m][s][i]) for m in metrics]
            lines.append("\t".join([s, doc, *cells]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def made_data(n_systems: int, seed: int, ties: bool = False):
    rng = np.random.default_rng(seed)
    doc_ids = ["d1"] * 3 + ["d2"] * 2 + ["d3"]
    systems = [f"sys{k}" for k in range(n_systems)]
    segs = {
        "chrF": {s: rng.uniform(20, 60, 6).round(2).tolist() for s in systems},
        "GEMBA": {s: rng.integers(0, 101, 6).astype(float).tolist() for s in systems},
        "MetricX-24": {s: rng.uniform(0, 25, 6).round(3).tolist() for s in systems},  # lower is better
    }
    if n_systems > 2:
        segs["GEMBA"][systems[1]][2] = None  # missing segments
        segs["MetricX-24"][systems[2]][5] = None  # a document's only segment
    if ties and n_systems > 3:
        for m in segs:
            segs[m][systems[3]] = list(segs[m][systems[0]])
    return segs, doc_ids


@pytest.mark.parametrize("n_systems,seed,ties", [(1, 0, False), (2, 1, False), (5, 2, False), (7, 3, True),
                                                 (12, 4, True)])
def test_autorank_equals_an_independent_computation(tmp_path, n_systems, seed, ties):
    segs, doc_ids = made_data(n_systems, seed, ties)
    metrics = read_score_tsv(str(write_tsv(tmp_path / "s.tsv", segs, doc_ids)), "en-de")
    assert metrics["MetricX-24"].higher_is_better is False and metrics["MetricX-24"].direction == "name"
    result = rank_stored(list(metrics.values()), lp="en-de")
    want = independent(segs, {"chrF": True, "GEMBA": True, "MetricX-24": False})
    got = {r.system: r.autorank for r in result.systems}
    assert got == pytest.approx(want, abs=1e-9)
    assert [r.autorank for r in result.systems] == sorted(r.autorank for r in result.systems)
    assert min(got.values()) == 1.0 and max(got.values()) == pytest.approx(n_systems if n_systems > 1 else 1)
    if ties:
        assert got["sys3"] == got["sys0"]
    for r in result.systems:  # each metric's own values: the mean over the available segments, never 0 for None
        for m in segs:
            assert r.scores[m] == pytest.approx(np.mean([v for v in segs[m][r.system] if v is not None]))


def test_a_lower_is_better_metric_ranks_as_its_negation_stored_as_higher_is_better():
    scores = {"bleu": {"a": 30.0, "b": 25.0, "c": 28.0, "d": 10.0}, "ter": {"a": 50.0, "b": 60.0, "c": 40.0, "d": 90.0}}
    lower = autorank(scores, {"bleu": True, "ter": False})
    negated = autorank({"bleu": scores["bleu"], "ter": {s: -v for s, v in scores["ter"].items()}})
    assert [(r.system, r.autorank) for r in lower.systems] == [(r.system, r.autorank) for r in negated.systems]
    assert lower.systems[0].scores["ter"] > 0  # the table keeps the metric's own values


@pytest.mark.parametrize("values,want", [
    ([1.0, 2.0, 3.0, 4.0, 5.0], None),
    ([1.0, 1.0, 1.0, 1.0, 0.0], None),  # Q100 == Q25: the spread is eps
    ([7.0], [0.0]),
    ([3.0, 3.0], [0.0, 0.0]),
])
def test_robust_scale(values, want):
    x = np.array(values)
    expected = (x - np.median(x)) / max(EPS, np.percentile(x, 100) - np.percentile(x, 25))
    assert robust_scale(values).tolist() == pytest.approx(expected.tolist() if want is None else want)
    assert robust_scale([values, values]).tolist() == [robust_scale(values).tolist()] * 2  # each row apart


def test_linear_ranks_best_one_worst_n_all_tied_one():
    assert linear_ranks([0.5, -1.0, 0.0]) == pytest.approx([1.0, 3.0, 1 + 2 * 0.5 / 1.5])
    assert linear_ranks([2.0, 2.0, 2.0]).tolist() == [1.0, 1.0, 1.0]
    assert linear_ranks([0.3]).tolist() == [1.0]
    assert np.isnan(linear_ranks([[0.3, 0.2], [0.1, np.nan]])[1]).all()  # a resample with a NaN has no ranks


def test_wmt25_preset_metric_sets():
    assert WMT25.metrics_for("en-ar_EG") == ("CometKiwi-XL", "GEMBA-ESA-CMDA", "GEMBA-ESA-GPT4.1",
                                             "MetricX-24-Hybrid-XL", "XCOMET-XL")
    assert "CometKiwi-XL" not in WMT25.metrics_for("en-it_IT")
    assert WMT25.metrics_for("en-mas_KE") == ("chrF++",)


# -- readers on files of every real shape ---------------------------------------------------------------------
def wmt25_line(lp, domain, doc, **scores):
    return json.dumps({"language_pair": lp, "domain": domain, "document_id": doc, "metric_scores": scores})


@pytest.fixture
def wmt25_files(tmp_path):
    """Two systems; A has two pairs (one with chrF++), B only the first; ints, floats, nulls, a null-only
    one-segment document, MetricX <= 0 with an exact 0."""
    a = tmp_path / "sysA.jsonl"
    a.write_text("\n".join([
        wmt25_line("en-ko_KR", "news", "n1", **{"GEMBA": [80, None, 70], "MetricX-24-Hybrid-XL": [-1.5, 0.0, -3.0]}),
        wmt25_line("en-bho_IN", "speech", "s1", **{"GEMBA": [50], "MetricX-24-Hybrid-XL": [-9.0], "chrF++": [31.5]}),
        wmt25_line("en-ko_KR", "speech", "v1", **{"GEMBA": [None], "MetricX-24-Hybrid-XL": [-2.0]}),
    ]) + "\n")
    b = tmp_path / "sysB.jsonl"
    b.write_text("\n".join([
        wmt25_line("en-ko_KR", "news", "n1", **{"GEMBA": [60, 65, 90], "MetricX-24-Hybrid-XL": [-4.0, -2.5, -1.0]}),
        wmt25_line("en-ko_KR", "speech", "v1", **{"GEMBA": [75], "MetricX-24-Hybrid-XL": [-0.5]}),
    ]) + "\n")
    return a, b


def test_wmt25_reader(wmt25_files):
    a, b = wmt25_files
    pairs = read_wmt25_scores([str(a), str(b)])
    assert list(pairs) == ["en-ko_KR", "en-bho_IN"]
    ko = pairs["en-ko_KR"]
    assert list(ko) == ["GEMBA", "MetricX-24-Hybrid-XL"]
    g = ko["GEMBA"]
    assert g.scores == {"sysA": [80.0, None, 70.0, None], "sysB": [60.0, 65.0, 90.0, 75.0]}
    assert g.doc_ids == ["n1", "n1", "n1", "v1"] and g.lines["sysA"] == [1, 1, 1, 3]
    assert g.missing() == {"sysA": 2}
    assert g.system_scores() == {"sysA": 75.0, "sysB": 72.5}
    mx = ko["MetricX-24-Hybrid-XL"]
    assert (mx.higher_is_better, mx.direction) == (True, "name, stored negated")
    assert len(g.fingerprint) == 10 and g.fingerprint == mx.fingerprint
    assert list(pairs["en-bho_IN"]) == ["GEMBA", "MetricX-24-Hybrid-XL", "chrF++"]
    assert pairs["en-bho_IN"]["chrF++"].systems == ["sysA"]
    b.write_text(b.read_text().replace("90", "91"))
    assert read_wmt25_scores([str(a), str(b)])["en-ko_KR"]["GEMBA"].fingerprint != g.fingerprint


def test_to_results(wmt25_files):
    g = read_wmt25_scores([str(p) for p in wmt25_files])["en-ko_KR"]["GEMBA"]
    results = {r.system: r for r in to_results(g)}
    a = results["sysA"]
    assert a.score == 75.0 and a.metric == "GEMBA" and a.higher_is_better
    assert [(u.doc_id, u.start, u.score) for u in a.units] == [("n1", 0, 80.0), ("n1", 2, 70.0)]
    assert [(d.doc_id, d.score, d.units) for d in a.docs] == [("n1", 75.0, 2), ("v1", None, 0)]
    assert a.coverage.segments_scored == 2 and a.coverage.counters == {"missing scores": 2}
    assert a.signature.format().startswith(f"stored|name:GEMBA|format:wmt25-jsonl|level:seg|file:{g.fingerprint}|")
    ts = TestSet({"sysB": ["x"] * 4, "sysA": ["y"] * 4}, doc_ids=["n1", "n1", "n1", "v1"])
    assert [r.system for r in to_results(g, ts)] == ["sysB", "sysA"]
    with pytest.raises(InputError, match="differ from the test set"):
        to_results(g, ["n1", "n1", "v1", "v1"])


def test_tsv_reader_missing_cells_and_direction(tmp_path):
    p = tmp_path / "scores.tsv"
    p.write_text("system\tdoc_id\tMetricX\tchrF\nA\td1\t3.5\t40\nA\td1\t\t41\nA\td2\t1.0\tNone\n"
                 "B\td1\t2.0\t30\nB\td1\t4.0\t31\nB\td2\t5.0\t32\n")
    m = read_score_tsv(str(p), "en-de")
    assert m["MetricX"].scores["A"] == [3.5, None, 1.0] and m["MetricX"].higher_is_better is False
    assert m["chrF"].missing() == {"A": 1} and m["chrF"].doc_ids == ["d1", "d1", "d2"]
    assert read_score_tsv(str(p), None, {"MetricX": True})["MetricX"].direction == "declared"


def test_mtme_reader(tmp_path):
    lp_dir = tmp_path / "wmt24" / "metric-scores" / "en-de"
    lp_dir.mkdir(parents=True)
    (tmp_path / "wmt24" / "documents").mkdir()
    (tmp_path / "wmt24" / "documents" / "en-de.docs").write_text("news d1\nnews d1\nsocial d2\n")
    seg = lp_dir / "MetricX-24-refA.seg.score"
    seg.write_text("A\t-1.0\nA\tNone\nA\t-2.0\nB\t-3.0\nB\t-0.5\nB\t-1.0\n")
    (lp_dir / "MetricX-24-refA.sys.score").write_text("A\t-1.5\nB\t-1.5\n")
    m = read_mtme_stored(str(seg))
    assert (m.name, m.lp, m.level, m.doc_ids) == ("MetricX-24-refA", "en-de", "seg", ["d1", "d1", "d2"])
    assert m.scores["A"] == [-1.0, None, -2.0] and m.higher_is_better and m.fmt == "mtme"
    stored = read_stored([str(p) for p in sorted(lp_dir.iterdir())])
    assert stored.pairs["en-de"]["MetricX-24-refA"].level == "seg" and len(stored.notes) == 1


# -- the command line ----------------------------------------------------------------------------------------
def test_rank_json(capsys, wmt25_files):
    code, out, err = run_cli(capsys, "rank", "--scores", *wmt25_files, "-l", "en-ko", "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["lp"] == "en-ko_KR"
    assert [s["system"] for s in data["systems"]] == ["sysA", "sysB"] or [s["system"] for s in data["systems"]] == [
        "sysB", "sysA"]
    for s in data["systems"]:
        assert set(s) >= {"system", "autorank", "scores"} and set(s["scores"]) == {"GEMBA", "MetricX-24-Hybrid-XL"}
    assert {s["system"]: s["scores"]["GEMBA"] for s in data["systems"]} == {"sysA": 75.0, "sysB": 72.5}
    code, out, err = run_cli(capsys, "rank", "--scores", *wmt25_files, "-l", "en-bho_IN", "--preset", "wmt25")
    assert code == 0, err
    assert "chrF++ [1]" in out and "GEMBA" not in out.split("\n")[1]


def test_rank_text_all_pairs(capsys, wmt25_files):
    code, out, err = run_cli(capsys, "rank", "--scores", *wmt25_files)
    assert code == 0, err
    assert out.count("AutoRank en-") == 2 and "stored|name:GEMBA" in out
    assert "GEMBA: 2 of 8 seg-level scores missing" in err


def _jsonl(tmp_path, a_lines, b_lines=None):
    a, b = tmp_path / "A.jsonl", tmp_path / "B.jsonl"
    a.write_text("\n".join(a_lines) + "\n")
    b.write_text("\n".join(b_lines if b_lines is not None else
                           [wmt25_line("en-de_DE", "news", "d1", m=[1, 2]), wmt25_line("en-de_DE", "news", "d2", m=[3])])
                 + "\n")
    return [a, b]


GOOD_A = [wmt25_line("en-de_DE", "news", "d1", m=[1, 2]), wmt25_line("en-de_DE", "news", "d2", m=[3])]
BAD = [
    # (id, files(tmp_path), extra args, what the message names)
    ("nan", lambda t: _jsonl(t, [GOOD_A[0], '{"language_pair": "en-de_DE", "domain": "news", "document_id": "d2", '
                                            '"metric_scores": {"m": [NaN]}}']),
     [], ["A.jsonl, line 2", "metric_scores.m[0]", "finite"]),
    ("text", lambda t: _jsonl(t, [GOOD_A[0], wmt25_line("en-de_DE", "news", "d2", m=["0.5"])]),
     [], ["A.jsonl, line 2", "metric_scores.m[0]", "not a number"]),
    ("metric-for-some-systems", lambda t: _jsonl(t, [GOOD_A[0], wmt25_line("en-de_DE", "news", "d2", m=[3], x=[1])]),
     [], ["A.jsonl, line 2", "field metric_scores", "scores of x"]),
    ("segment-count", lambda t: _jsonl(t, GOOD_A, [wmt25_line("en-de_DE", "news", "d1", m=[1, 2, 3]),
                                                   wmt25_line("en-de_DE", "news", "d2", m=[3])]),
     [], ["B.jsonl, line 1", "field metric_scores", "3 segment scores"]),
    ("missing-document", lambda t: _jsonl(t, GOOD_A, [wmt25_line("en-de_DE", "news", "d1", m=[1, 2])]),
     [], ["B.jsonl", "document 'd2'", "A.jsonl, line 2", "field document_id"]),
    ("other-document", lambda t: _jsonl(t, GOOD_A, [GOOD_A[0], wmt25_line("en-de_DE", "news", "d9", m=[3])]),
     [], ["B.jsonl, line 2", "field document_id", "'d9'"]),
    ("metrics-differ-in-length", lambda t: _jsonl(t, [GOOD_A[0], wmt25_line("en-de_DE", "news", "d2", m=[3], x=[1, 2])]),
     [], ["A.jsonl, line 2", "metric_scores.x", "2 segment scores"]),
    ("unknown-pair", lambda t: _jsonl(t, GOOD_A), ["-l", "en-fr"], ["no language pair 'en-fr'", "language_pair",
                                                                     "en-de_DE"]),
    ("bad-pair", lambda t: _jsonl(t, [wmt25_line("english-german", "news", "d1", m=[1, 2])]),
     [], ["A.jsonl, line 1", "field language_pair"]),
    ("not-json", lambda t: _jsonl(t, ["{oops"]), [], ["A.jsonl, line 1", "not valid JSON"]),
    ("no-field", lambda t: _jsonl(t, ['{"language_pair": "en-de_DE"}']), [], ["A.jsonl, line 1, field domain: missing (fields: language_pair)"]),
    ("metricx-both-signs", lambda t: _jsonl(t, [wmt25_line("en-de_DE", "news", "d1", **{"MetricX-24": [1, 2]})],
                                            [wmt25_line("en-de_DE", "news", "d1", **{"MetricX-24": [-1, -2]})]),
     [], ["A.jsonl, line 1, field MetricX-24", "B.jsonl, line 1", "--direction MetricX-24=lower"]),
    ("tsv-nan", lambda t: [_write(t / "s.tsv", "system\tdoc_id\tm\nA\td1\tnan\n")], [],
     ["s.tsv, line 2, field m", "'nan'"]),
    ("tsv-text", lambda t: [_write(t / "s.tsv", "system\tdoc_id\tm\nA\td1\tgood\n")], [],
     ["s.tsv, line 2, field m", "'good'"]),
    ("tsv-segments", lambda t: [_write(t / "s.tsv", "system\tdoc_id\tm\nA\td1\t1\nA\td1\t2\nB\td1\t3\n")], [],
     ["s.tsv, line 4, field doc_id", "system 'B'", "(1 segment)"]),
    ("tsv-fields", lambda t: [_write(t / "s.tsv", "system\tdoc_id\tm\nA\td1\n")], [], ["s.tsv, line 2", "2 fields"]),
    ("tsv-header", lambda t: [_write(t / "s.tsv", "sys\tdoc\tm\nA\td1\t1\n")], [], ["s.tsv, line 1", "header"]),
    ("mtme-nan", lambda t: [_write(t / "m" / "en-de" / "X-refA.seg.score", "A\tnan\n")], [],
     ["X-refA.seg.score, line 1, field SCORE"]),
    ("sources-disagree", lambda t: [*_jsonl(t, GOOD_A), _write(t / "s.tsv", "system\tdoc_id\tz\nA\td1\t1\nA\td1\t2\n"
                                                                            "A\td2\t3\n")],
     ["-l", "en-de_DE"], ["B.jsonl, line 1, field m", "system 'B'", "s.tsv) has none"]),
]


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("files,args,needles", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, files, args, needles):
    code, out, err = run_cli(capsys, "rank", "--scores", *files(tmp_path), *args)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("docmetrics rank: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_missing_scores_are_never_read_as_zero(tmp_path):
    p = _write(tmp_path / "s.tsv", "system\tdoc_id\tm\nA\td1\t4\nA\td1\t\nB\td1\t3\nB\td1\t0\n")
    m = read_score_tsv(str(p), "en-de")["m"]
    assert m.system_scores() == {"A": 4.0, "B": 1.5} and m.missing() == {"A": 1}
    assert [r.system for r in rank_stored([m]).systems] == ["A", "B"]
