"""Error-span F1 (WMT25 metrics subtask 2, WMT26 subtask 1): docmetrics.algorithms.spans against hand counts
and against a re-implementation, written here, of wmt-conference/wmt25-mteval's
scripts/scoring/task2/scoring_esa.py (get_counts, get_char_f1, the average over language pairs) in its own
structure: a count per character and severity class, a loop over the characters; then ``--spans`` on the
command line (a tiny GenMT file and a raw MQM file written here) and its bad-input rows."""

from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest
from cli_fixtures import run_cli as run

from docmetrics.algorithms.spans import Span, SpanCounts, item_counts, macro, micro

S = Span


# -- the official scorer's logic, rewritten (not imported: the script is not a package) -------------------
def ref_counts(errors, len_hyp):
    major, minor = np.zeros(len_hyp), np.zeros(len_hyp)
    for er in errors:
        if er["start"] == "missing" or er["severity"] == "undecided":
            continue
        target = major if er["severity"] in ("major", "critical") else minor if er["severity"] == "minor" else None
        if target is None:
            raise ValueError(er["severity"])
        target[int(er["start"]):int(er["end"])] += 1
    return major, minor


def ref_prf(tp, gold, pred):
    p = tp / pred if pred else 1.0
    r = tp / gold if gold else 1.0
    return p, r, (2 * p * r) / (p + r) if p + r else 0.0


def ref_char_f1(lengths, golds, preds, partial_credit=0.5):
    tp, total_gold, total_pred = 0, 0, 0
    for gold, pred, n in zip(golds, preds, lengths):
        g_maj, g_min = ref_counts(gold, n)
        p_maj, p_min = ref_counts(pred, n)
        total_gold += g_maj.sum() + g_min.sum()
        total_pred += p_maj.sum() + p_min.sum()
        for gM, pM, gm, pm in zip(g_maj, p_maj, g_min, p_min):
            tp += min(gM, pM)
            tp += min(gm, pm)
            g_left = max(0, gM - pM) + max(0, gm - pm)
            p_left = max(0, pM - gM) + max(0, pm - gm)
            tp += min(g_left, p_left) * partial_credit
    return ref_prf(tp, total_gold, total_pred)


def as_dicts(spans):
    return [{"start": "missing" if s.start is None else s.start, "end": "missing" if s.end is None else s.end,
             "severity": s.severity} for s in spans]


# -- hand counts --------------------------------------------------------------------------------------------
HAND = [
    # (name, length, gold, pred, (precision, recall, f1))
    ("exact match", 10, [S(2, 6, "major")], [S(2, 6, "major")], (1.0, 1.0, 1.0)),
    ("critical is major", 10, [S(2, 6, "critical")], [S(2, 6, "major")], (1.0, 1.0, 1.0)),
    # 3 of the 4 predicted characters are gold, 3 of the 6 gold characters predicted
    ("partial overlap", 10, [S(0, 6, "minor")], [S(3, 7, "minor")], (3 / 4, 3 / 6, 2 * 0.75 * 0.5 / 1.25)),
    ("wrong severity = half credit", 10, [S(0, 4, "major")], [S(0, 4, "minor")], (0.5, 0.5, 0.5)),
    ("no error on either side", 10, [], [], (1.0, 1.0, 1.0)),
    ("prediction without gold error", 10, [], [S(1, 3, "minor")], (0.0, 1.0, 0.0)),
    ("gold error missed", 10, [S(1, 3, "minor")], [], (1.0, 0.0, 0.0)),
    ("omissions left out", 10, [S(None, None, "major"), S(0, 2, "minor")], [S(None, None, "minor"), S(0, 2, "minor")],
     (1.0, 1.0, 1.0)),
    ("only an omission predicted: nothing predicted", 10, [S(0, 2, "minor")], [S(None, None, "major")],
     (1.0, 0.0, 0.0)),
    ("undecided left out", 10, [S(0, 2, "undecided")], [S(5, 7, "undecided")], (1.0, 1.0, 1.0)),
    # overlapping gold spans count a character twice: 4 gold characters, 2 predicted, all matched
    ("overlap counts twice", 10, [S(0, 2, "minor"), S(0, 2, "minor")], [S(0, 2, "minor")], (1.0, 0.5, 2 / 3)),
    ("empty span covers nothing", 10, [S(4, 4, "major")], [], (1.0, 1.0, 1.0)),
    # 2 characters full (major), 2 characters across classes (gold minor, predicted major): 2 + 1 of 4
    ("mixed", 8, [S(0, 2, "major"), S(2, 4, "minor")], [S(0, 4, "major")], (0.75, 0.75, 0.75)),
]


@pytest.mark.parametrize("name,length,gold,pred,expected", HAND, ids=[h[0] for h in HAND])
def test_hand_counts(name, length, gold, pred, expected):
    got = item_counts(gold, pred, length).scores()
    assert (got.precision, got.recall, got.f1) == pytest.approx(expected, abs=1e-12)
    assert (got.precision, got.recall, got.f1) == ref_char_f1([length], [as_dicts(gold)], [as_dicts(pred)])


def test_micro_sums_characters_not_item_scores():
    # item 1: 10 gold chars all found; item 2: 2 gold chars, none found: micro recall 10/12, not (1 + 0) / 2
    c = micro([item_counts([S(0, 10, "minor")], [S(0, 10, "minor")], 10),
               item_counts([S(0, 2, "minor")], [], 10)])
    assert c == SpanCounts(full=10, partial=0, gold=12, pred=10, items=2)
    assert c.scores().recall == 10 / 12


def test_unknown_severity_and_outside_span_raise():
    with pytest.raises(ValueError, match="unknown severity"):
        item_counts([S(0, 1, "Major")], [], 5)
    with pytest.raises(ValueError, match="within"):
        item_counts([], [S(3, 9, "minor")], 5)


# -- against the official logic on random cases -------------------------------------------------------------
def random_spans(rng, length):
    out = []
    for _ in range(rng.choice([0, 0, 1, 2, 3, 5])):
        if rng.random() < 0.1:
            out.append(S(None, None, rng.choice(["major", "minor"])))
            continue
        a, b = sorted(rng.randint(0, length) for _ in range(2))
        out.append(S(a, b, rng.choice(["major", "minor", "minor", "critical", "undecided"])))
    return out


def test_equals_official_logic_on_200_random_cases():
    rng = random.Random(29)
    pair_scores, ref_pair_scores = [], []
    for case in range(200):
        lengths = [rng.randint(0, 40) for _ in range(rng.randint(1, 6))]
        golds = [random_spans(rng, n) for n in lengths]
        preds = [random_spans(rng, n) if rng.random() < 0.8 else list(g) for g, n in zip(golds, lengths)]
        counts = micro(item_counts(g, p, n) for g, p, n in zip(golds, preds, lengths))
        ours = counts.scores()
        theirs = ref_char_f1(lengths, [as_dicts(g) for g in golds], [as_dicts(p) for p in preds])
        assert (ours.precision, ours.recall, ours.f1) == theirs, case  # exactly: counts are integers
        credit = ref_char_f1(lengths, [as_dicts(g) for g in golds], [as_dicts(p) for p in preds], 0.3)
        other = counts.scores(0.3)
        assert (other.precision, other.recall, other.f1) == pytest.approx(credit, abs=1e-12)
        pair_scores.append(ours)
        ref_pair_scores.append(theirs)
    # the overall score: the mean of the pairs' precision, recall and F1 (np.mean over axis 0, as the script)
    average = macro(pair_scores)
    assert (average.precision, average.recall, average.f1) == tuple(np.mean(np.array(ref_pair_scores), axis=0))


# -- the command line ---------------------------------------------------------------------------------------
TEXTS = {"sysA": ["Das ist gut.", "Ein Hund."], "sysB": ["Das ist schlecht.", "Eine Katze."]}
GOLD = {("sysA", 0): [], ("sysA", 1): [{"start_i": 4, "end_i": 8, "severity": "major"}],
        ("sysB", 0): [{"start_i": 8, "end_i": 16, "severity": "minor"},
                      {"start_i": "missing", "end_i": "missing", "severity": "major"}],
        ("sysB", 1): []}


def genmt_file(tmp_path):
    path = tmp_path / "humeval.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for i in range(2):
            f.write(json.dumps({
                "doc_id": f"en-de_DE_#_news_#_d1_#_{i}", "src_text": f"Source {i}.",
                "tgt_text": {s: TEXTS[s][i] for s in TEXTS},
                "scores": {s: [{"score": 80, "errors": GOLD[(s, i)], "protocol": "ESA"}] for s in TEXTS}}) + "\n")
    return path


def pred_file(tmp_path, rows, name="pred.jsonl"):
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


PRED = [
    {"doc_id": "en-de_DE_#_news_#_d1_#_0", "system": "sysA", "errors": []},
    {"doc_id": "en-de_DE_#_news_#_d1_#_1", "system": "sysA", "errors": [{"start_i": 4, "end_i": 8, "severity": "minor"}]},
    # WMT25's submission fields: a span found with its severity, one wrong
    {"doc_id": "en-de_DE_#_news_#_d1_#_0", "system_id": "sysB", "start_indices": "8 0", "end_indices": "16 3",
     "error_types": "minor major"},
    {"doc_id": "en-de_DE_#_news_#_d1_#_1", "system": "sysB", "start_indices": "-1", "end_indices": "-1",
     "error_types": "no-error"},
]


def test_cli_genmt_spans(tmp_path, capsys):
    code, out, err = run(capsys, "--genmt", genmt_file(tmp_path), "--spans", pred_file(tmp_path, PRED))
    assert code == 0, err
    # sysA: 4 gold chars major, predicted minor: tp 2 of 4/4; sysB: 8 of 8 gold, 8 + 3 predicted
    rows = {line.split()[-7]: line.split()[-6:] for line in out.splitlines() if line.split()[-7:-6]
            and line.split()[-7] in ("all", "sysA", "sysB")}
    assert rows["sysA"] == ["2", "0.5000", "0.5000", "0.5000", "4", "4"]
    assert rows["sysB"] == ["2", "0.7273", "1.0000", "0.8421", "8", "11"]
    tp, gold, pred = 2 + 8, 12, 15
    p, r = tp / pred, tp / gold
    assert rows["all"] == ["4", f"{p:.4f}", f"{r:.4f}", f"{2 * p * r / (p + r):.4f}", "12", "15"]
    assert "Error spans (WMT25 subtask 2)" in out
    assert "gold omissions (no offsets): 1" in out and "2 gold and 3 predicted spans compared" in out
    code, out, err = run(capsys, "--genmt", genmt_file(tmp_path), "--spans", pred_file(tmp_path, PRED), "-f", "json")
    data = json.loads(out)
    [found] = data["predictors"]
    assert found["overall"]["items"] == 4 and found["overall"]["f1"] == pytest.approx(2 * p * r / (p + r))
    assert found["systems"]["sysA"]["partial_chars"] == 4 and found["left_out"] == {"gold omissions (no offsets)": 1}


def test_cli_genmt_spans_other_pair_lines_skipped(tmp_path, capsys):
    other = {"doc_id": "en-cs_CZ_#_news_#_d9_#_0", "system": "sysA", "errors": []}
    code, out, err = run(capsys, "--genmt", genmt_file(tmp_path), "--spans", pred_file(tmp_path, [*PRED, other]))
    assert code == 0, err
    assert "lines of other language pairs than en-de_DE: 1" in out


BAD = [
    # (name, the rows, what the one message says)
    ("not json", [*PRED[:3], "{oops"], "line 4: not valid JSON"),
    ("no system", [{k: v for k, v in PRED[0].items() if k != "system"}, *PRED[1:]], "line 1, field system: missing"),
    ("unknown system", [*PRED, {**PRED[0], "system": "sysZ"}], "line 5, field system: 'sysZ' has no output"),
    ("unknown segment", [*PRED, {**PRED[0], "doc_id": "en-de_DE_#_news_#_d1_#_7"}],
     "line 5, field doc_id: doc_id 'en-de_DE_#_news_#_d1_#_7' is no segment"),
    ("unknown domain", [*PRED, {**PRED[0], "doc_id": "en-de_DE_#_sport_#_d1_#_0"}], "line 5, field doc_id"),
    ("twice", [*PRED, PRED[0]], "line 5, field doc_id: system 'sysA', doc_id 'en-de_DE_#_news_#_d1_#_0' is predicted "
                                "twice (also line 1)"),
    ("missing item", PRED[1:], "no prediction for 1 judged item(s)"),
    ("span past the end", [PRED[0], {**PRED[1], "errors": [{"start_i": 4, "end_i": 10, "severity": "minor"}]},
                           *PRED[2:]], "line 2, field errors[0]: the span 4-10 is outside its segment"),
    ("negative offset", [PRED[0], {**PRED[1], "errors": [{"start_i": -1, "end_i": 3, "severity": "minor"}]},
                         *PRED[2:]], "line 2, field errors[0]: the span -1-3 is outside its segment"),
    ("start after end", [PRED[0], {**PRED[1], "errors": [{"start_i": 5, "end_i": 3, "severity": "minor"}]},
                         *PRED[2:]], "outside its segment"),
    ("unknown severity", [PRED[0], {**PRED[1], "errors": [{"start_i": 4, "end_i": 8, "severity": "Major"}]},
                          *PRED[2:]], "line 2, field errors[0].severity: unknown severity \"Major\""),
    ("not an offset", [PRED[0], {**PRED[1], "errors": [{"start_i": "x", "end_i": 8, "severity": "minor"}]},
                       *PRED[2:]], "line 2, field errors[0].start_i: \"x\" is not a character offset"),
    ("one-sided omission", [PRED[0], {**PRED[1], "errors": [{"start_i": "missing", "end_i": 8, "severity": "minor"}]},
                            *PRED[2:]], "'missing' on one side only"),
    ("no errors field", [PRED[0], {k: v for k, v in PRED[1].items() if k != "errors"}, *PRED[2:]],
     "line 2, field errors: missing"),
    ("wmt25 lengths differ", [*PRED[:2], {**PRED[2], "error_types": "minor"}, PRED[3]],
     "line 3, field error_types: 1 error types for 2 start"),
]


@pytest.mark.parametrize("name,rows,message", BAD, ids=[b[0] for b in BAD])
def test_cli_bad_predictions(tmp_path, capsys, name, rows, message):
    pred = pred_file(tmp_path, rows)
    code, out, err = run(capsys, "--genmt", genmt_file(tmp_path), "--spans", pred)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert str(pred) in err and message in err, err


def test_cli_spans_refuses_metrics_and_needs_gold(tmp_path, capsys):
    pred = pred_file(tmp_path, PRED)
    code, _, err = run(capsys, "--genmt", genmt_file(tmp_path), "--spans", pred, "-m", "bleu")
    # -m's own spans are judged, and a metric that gives none is refused once loaded, before it is scored
    assert code == 2 and "-m bleu gives no error spans per segment" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "--spans", pred)
    assert code == 2 and "--spans needs the human spans" in err


MQM_HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"


def test_cli_human_mqm_spans(tmp_path, capsys):
    mqm = tmp_path / "mqm.tsv"
    mqm.write_text(MQM_HEADER
                   + "sysA\tdoc1\t1\t1\trater1\tA cat.\tEine <v>Katze</v>.\tAccuracy/Mistranslation\tMajor\n"
                   + "sysA\tdoc1\t1\t1\trater1\tA cat.\tEine Katze.\tFluency/Punctuation\tNeutral\n"
                   + "sysA\tdoc1\t1\t1\trater2\tA cat.\t<v>Eine</v> Katze.\tFluency/Grammar\tMinor\n"
                   + "sysA\tdoc1\t2\t2\trater1\t<v>A dog.</v>\tHund.\tAccuracy/Omission\tMajor\n",
                   encoding="utf-8")
    pred = pred_file(tmp_path, [{"system": "sysA", "doc": "doc1", "seg_id": "1",
                                 "errors": [{"start_i": 5, "end_i": 10, "severity": "minor"}]},
                                {"system": "sysA", "doc": "doc1", "seg_id": 2, "errors": []}])
    code, out, err = run(capsys, "--human", mqm, "--spans", pred, "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    overall = data["predictors"][0]["overall"]
    # the first rater's span Katze (5-10, major) against a minor prediction: half credit
    assert (overall["gold_chars"], overall["pred_chars"], overall["partial_chars"]) == (5, 5, 5)
    assert overall["f1"] == 0.5
    assert data["predictors"][0]["left_out"] == {"gold spans of severity neutral (not an error)": 1,
                                                 "gold omissions (no offsets)": 1}
    assert "1 of 2 items have several raters" in data["notes"][0]


# -- the real WMT24 release (not in the repository: skipped without it) -------------------------------------
WMT24 = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "wmt24_esa",
                     "wmt24-esa-encs-enhi.jsonl")


@pytest.mark.skipif(not os.path.exists(WMT24), reason="../shared/data/wmt24_esa is not here")
def test_gold_as_prediction_gives_f1_one_on_wmt24_encs(tmp_path, capsys):
    rows = []
    with open(WMT24, encoding="utf-8") as f:
        for line in f:
            obj = json.loads(line)
            if obj["doc_id"].startswith("en-cs"):
                rows += [{"doc_id": obj["doc_id"], "system": s, "errors": a[0]["errors"]}
                         for s, a in obj["scores"].items()]
    code, out, err = run(capsys, "--genmt", WMT24, "-l", "en-cs", "--spans", pred_file(tmp_path, rows), "-f", "json")
    assert code == 0, err
    found = json.loads(out)["predictors"][0]
    assert (found["overall"]["precision"], found["overall"]["recall"], found["overall"]["f1"]) == (1.0, 1.0, 1.0)
    assert found["overall"]["gold_chars"] > 0 and found["left_out"]["gold omissions (no offsets)"] > 0
