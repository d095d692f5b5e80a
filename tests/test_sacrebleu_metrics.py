"""bleu, chrf, ter and their document forms d-bleu, d-chrf, d-ter, checked against sacrebleu itself.

Every expected number is computed here with sacrebleu's own API (corpus_score, sentence_score) on
the same text: system scores, document scores, unit scores, document-level joins made here, and the
resampled scores of the paired tests (documents drawn, their segments scored by sacrebleu)."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

import docmetrics
from docmetrics.algorithms import aggregation
from docmetrics.cli import main
from docmetrics.judging import paired as significance
from docmetrics.values.errors import UserError

DATA = Path(docmetrics.__file__).parent / "data" / "quickstart"


def lines(name: str) -> list[str]:
    return (DATA / name).read_text(encoding="utf-8").splitlines()


def quickstart() -> dict:
    return {"systems": {"sysA": lines("sysA.txt"), "sysB": lines("sysB.txt")}, "ref": lines("ref.txt"),
            "ids": lines("docids.txt")}


def synthetic() -> dict:
    """12 documents of 1 to 4 sentences; the hypotheses drop, swap and replace words of the reference
    (one empty hypothesis, one of punctuation only, one tokenized period)."""
    rng = random.Random(7)
    words = ("the a cat dog house river sees finds near over old green quickly runs , . ; "
             "morning evening bread water").split()
    ref, ids = [], []
    for d in range(12):
        for _ in range(rng.randint(1, 4)):
            ref.append(" ".join(rng.choice(words) for _ in range(rng.randint(3, 14))).capitalize())
            ids.append(f"doc{d}")

    def noisy(p: float) -> list[str]:
        out = []
        for r in ref:
            ws = [w if rng.random() > p else rng.choice(words) for w in r.split() if rng.random() > p / 3]
            out.append(" ".join(ws))
        return out

    a, b = noisy(0.2), noisy(0.5)
    a[3], b[5], a[7] = "", "? !", a[7] + " ."
    return {"systems": {"A": a, "B": b}, "ref": ref, "ids": ids}


DATASETS = {"quickstart": quickstart, "synthetic": synthetic}

#: spec -> the sacrebleu object computing the same number at corpus level
CORPUS = {
    "bleu": lambda: BLEU(),
    "bleu:tokenize=intl,lowercase=true": lambda: BLEU(tokenize="intl", lowercase=True),
    "bleu:smooth_method=floor,smooth_value=0.3": lambda: BLEU(smooth_method="floor", smooth_value=0.3),
    "bleu:smooth_method=none,tokenize=char": lambda: BLEU(smooth_method="none", tokenize="char"),
    "chrf": lambda: CHRF(),
    "chrf:word_order=2": lambda: CHRF(word_order=2),  # chrF++
    "chrf:char_order=4,beta=1,lowercase=true,whitespace=true,eps_smoothing=true":
        lambda: CHRF(char_order=4, beta=1, lowercase=True, whitespace=True, eps_smoothing=True),
    "ter": lambda: TER(),
    "ter:normalized=true,no_punct=true,case_sensitive=true":
        lambda: TER(normalized=True, no_punct=True, case_sensitive=True),
}
#: the sacrebleu object of unit (sentence-level) scores: BLEU with effective order
SENTENCE = {
    "bleu": lambda: BLEU(effective_order=True),
    "bleu:tokenize=intl,lowercase=true": lambda: BLEU(tokenize="intl", lowercase=True, effective_order=True),
    "bleu:smooth_method=floor,smooth_value=0.3":
        lambda: BLEU(smooth_method="floor", smooth_value=0.3, effective_order=True),
    "bleu:smooth_method=none,tokenize=char":
        lambda: BLEU(smooth_method="none", tokenize="char", effective_order=True),
}


def documents(ids: list[str]) -> list[tuple[str, int, int]]:
    """(doc id, first line, end) of each run of equal ids."""
    out, pos = [], 0
    for doc_id, run in itertools.groupby(ids):
        n = len(list(run))
        out.append((doc_id, pos, pos + n))
        pos += n
    return out


def joined(texts: list[str], ids: list[str]) -> list[str]:
    return [" ".join(texts[a:b]) for _, a, b in documents(ids)]


def doc_spec(spec: str) -> str:
    return "d-" + spec


def score(spec: str, data: dict) -> dict:
    metric = docmetrics.load(spec)
    return metric.score_systems(data["systems"], references=data["ref"], doc_ids=data["ids"])


# -- numbers ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dataset", sorted(DATASETS))
@pytest.mark.parametrize("spec", sorted(CORPUS))
def test_system_document_and_unit_scores_are_sacrebleus(spec, dataset):
    data = DATASETS[dataset]()
    results = score(spec, data)
    sentence = (SENTENCE.get(spec) or CORPUS[spec])()
    docs = documents(data["ids"])
    for name, hyp in data["systems"].items():
        r = results[name]
        assert r.score == CORPUS[spec]().corpus_score(hyp, [data["ref"]]).score
        assert [d.score for d in r.docs] == [CORPUS[spec]().corpus_score(hyp[a:b], [data["ref"][a:b]]).score
                                             for _, a, b in docs]
        assert [(u.start, u.end) for u in r.units] == [(i, i + 1) for i in range(len(hyp))]
        assert [u.score for u in r.units] == [sentence.sentence_score(h, [ref]).score
                                              for h, ref in zip(hyp, data["ref"])]


@pytest.mark.parametrize("dataset", sorted(DATASETS))
@pytest.mark.parametrize("spec", ["bleu", "chrf", "chrf:word_order=2", "ter",
                                  "bleu:smooth_method=floor,smooth_value=0.3"])
def test_document_forms_score_documents_joined_with_one_space(spec, dataset):
    data = DATASETS[dataset]()
    results = score(doc_spec(spec), data)
    refs = joined(data["ref"], data["ids"])
    sentence = (SENTENCE.get(spec) or CORPUS[spec])()
    for name, hyp in data["systems"].items():
        r = results[name]
        hyps = joined(hyp, data["ids"])
        assert r.score == CORPUS[spec]().corpus_score(hyps, [refs]).score
        assert [d.score for d in r.docs] == [CORPUS[spec]().corpus_score([h], [[x]]).score for h, x in zip(hyps, refs)]
        assert [u.score for u in r.units] == [sentence.sentence_score(h, [x]).score for h, x in zip(hyps, refs)]
        assert [(u.doc_id, u.start, u.end) for u in r.units] == documents(data["ids"])


def test_the_score_of_summed_statistics_is_not_a_mean_of_sentence_scores():
    data = quickstart()
    r = score("bleu", data)["sysB"]
    mean = sum(u.score for u in r.units) / len(r.units)
    assert abs(r.score - mean) > 1  # corpus BLEU 18.3 against a sentence-BLEU mean far from it
    assert r.aggregation.startswith("sacrebleu-bleu(") and isinstance(aggregation.get(r.aggregation),
                                                                      aggregation.Aggregation)
    assert dict(r.units[0].stats)["ref_len"] == len(data["ref"][0].replace(".", " .").split())


def test_each_configuration_has_its_own_aggregation():
    exp, floor = docmetrics.load("bleu").aggregation, docmetrics.load("bleu:smooth_method=floor").aggregation
    assert exp != floor and exp.name != floor.name
    assert docmetrics.load("bleu:tokenize=intl").aggregation == exp  # tokenization: statistics, not the formula
    assert aggregation.get(floor.name) == floor


def test_a_hypothesis_scores_the_same_whatever_else_is_in_the_run():
    data = synthetic()
    for spec in ("bleu", "d-chrf", "ter"):
        both = score(spec, data)["A"]
        alone = docmetrics.load(spec).score(data["systems"]["A"], references=data["ref"], doc_ids=data["ids"])
        assert alone.score == both.score
        assert [u.to_dict() for u in alone.units] == [u.to_dict() for u in both.units]
        assert [d.to_dict() for d in alone.docs] == [d.to_dict() for d in both.docs]


# -- significance -------------------------------------------------------------------------------------
@pytest.mark.parametrize("test", ["bs", "ar"])
@pytest.mark.parametrize("spec", ["bleu", "d-bleu", "chrf:word_order=2", "d-chrf", "ter"])
def test_a_copy_has_the_same_score_and_p_1(spec, test):
    data = synthetic()
    data["systems"]["copy of A"] = list(data["systems"]["A"])
    results = list(score(spec, data).values())
    assert results[2].score == results[0].score
    paired = significance.paired_test(results, test, n=200)
    rows = {row.system: row for row in paired.rows}
    assert rows["copy of A"].p_value == 1.0
    assert rows["B"].p_value < 1.0


@pytest.mark.parametrize("spec", ["bleu", "d-bleu", "chrf", "d-chrf", "ter"])
def test_a_document_resample_is_sacrebleus_corpus_score_of_the_drawn_documents(spec):
    data = synthetic()
    r = score(spec, data)["B"]
    doc_ids = significance.doc_order([r])
    stats = significance.doc_stats(r, doc_ids)  # checks that the declared aggregation rebuilds r.score
    idx = significance.bootstrap_indices(len(doc_ids), 5, seed=3)
    resampled = significance.resampled_scores(stats, idx)
    base = spec.removeprefix("d-")
    docs = documents(data["ids"])
    hyp, ref = data["systems"]["B"], data["ref"]
    for row, got in zip(idx, resampled):
        if spec.startswith("d-"):
            hyps = [" ".join(hyp[docs[k][1]:docs[k][2]]) for k in row]
            refs = [" ".join(ref[docs[k][1]:docs[k][2]]) for k in row]
        else:
            hyps = [h for k in row for h in hyp[docs[k][1]:docs[k][2]]]
            refs = [x for k in row for x in ref[docs[k][1]:docs[k][2]]]
        assert got == pytest.approx(CORPUS[base]().corpus_score(hyps, [refs]).score, rel=1e-12, abs=1e-12)


def test_the_rebuild_check_refuses_a_score_that_is_not_the_corpus_score():
    r = score("bleu", synthetic())["A"]
    r.score = sum(u.score for u in r.units) / len(r.units)  # a mean of sentence BLEU: not what bleu reports
    with pytest.raises(UserError, match="is not the sacrebleu corpus score"):
        significance.doc_stats(r, significance.doc_order([r]))


# -- signatures ---------------------------------------------------------------------------------------
SIGNED = ["bleu:tokenize=intl,lowercase=true,smooth_method=add-k,smooth_value=2", "d-bleu",
          "chrf:word_order=2,eps_smoothing=true", "d-chrf:char_order=4,beta=3", "ter:normalized=true,asian_support=true",
          "d-ter:case_sensitive=true"]


@pytest.mark.parametrize("short", [False, True])
@pytest.mark.parametrize("spec", SIGNED)
def test_signature_round_trips_and_recomputes_the_number(spec, short):
    data = quickstart()
    metric = docmetrics.load(spec)
    text = metric.signature().format(short=short)
    again = docmetrics.load(text)
    assert again.signature().format(short=short) == text
    assert again.param_values() == metric.param_values()
    first = metric.score_systems(data["systems"], references=data["ref"], doc_ids=data["ids"])
    second = again.score_systems(data["systems"], references=data["ref"], doc_ids=data["ids"])
    assert {k: r.score for k, r in first.items()} == {k: r.score for k, r in second.items()}


@pytest.mark.parametrize("spec,sacre", [
    ("bleu:lowercase=true,smooth_method=floor", BLEU(lowercase=True, smooth_method="floor")),
    ("d-chrf:word_order=2", CHRF(word_order=2)),
    ("ter:no_punct=true", TER(no_punct=True)),
])
def test_signature_holds_each_of_sacrebleus_facts_once(spec, sacre):
    """Every field of sacrebleu's own signature is in ours once: as the parameter that gives it
    (tok:13a is tokenize:13a) or as itself (nrefs, BLEU's eff, TER's tok), and sacrebleu's signature
    given to -m is read back into the same parameters."""
    from docmetrics.values.sacrebleu_signature import read_sacrebleu_signature

    data = quickstart()
    name = sacre.corpus_score(data["systems"]["sysA"], [data["ref"]]).name  # sacrebleu knows nrefs after scoring
    metric = docmetrics.load(spec)
    ours = metric.signature()
    keys = [f.key for f in ours.fields]
    assert len(keys) == len(set(keys))
    for pair in sacre.get_signature().format().split("|"):
        key, value = pair.split(":", 1)
        if key == "version":
            assert f"|sacrebleu:{value}|" in ours.format()
        elif key in metric.folded:
            assert key not in keys and key in ours.folded  # a parameter says it; an old signature still compares
        else:
            assert f"|{key}:{value}|" in ours.format()
    again = docmetrics.load(read_sacrebleu_signature(f"{name}|" + sacre.get_signature().format()).spec)
    assert again.param_values() == metric.param_values()


# -- the command line ---------------------------------------------------------------------------------
def test_cli_quickstart_bleu_and_d_bleu(capsys):
    q = {k: str(DATA / f) for k, f in (("a", "sysA.txt"), ("b", "sysB.txt"), ("r", "ref.txt"), ("ids", "docids.txt"))}
    code = main(["-m", "bleu", "d-bleu", "-i", q["a"], q["b"], "-r", q["r"], "--doc-ids", q["ids"], "-f", "json",
                 "--level", "chunk", "-q"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    data = quickstart()
    refs = joined(data["ref"], data["ids"])
    for row in out:
        hyp = data["systems"]["sysA" if row["system"].endswith("sysA.txt") else "sysB"]
        if row["metric"] == "bleu":
            assert row["score"] == BLEU().corpus_score(hyp, [data["ref"]]).score
            assert len(row["units"]) == 13 and set(row["units"][0]["stats"]) >= {"hyp_len", "ref_len", "correct4"}
        else:
            assert row["score"] == BLEU().corpus_score(joined(hyp, data["ids"]), [refs]).score
            assert len(row["units"]) == 3
        assert row["signature"].startswith(row["metric"] + "|tokenize:13a|")
    assert {row["metric"] for row in out} == {"bleu", "d-bleu"} and len(out) == 4


SHORT_SEGMENTS = [  # (hypothesis, reference): short segments, where effective order changes sentence BLEU
    ("Tee bitte.", "Tee bitte."),
    ("Ja", "Ja"),
    ("Das Haus", "Das kleine Haus"),
    ("Ein Hund läuft im Park.", "Der Hund läuft im Park."),
    ("Nein danke", "Ja bitte"),
]


def _sacrebleu_from(signature: str) -> BLEU:
    """sacrebleu's BLEU set up from a docmetrics BLEU signature's fields alone."""
    f = dict(part.split(":", 1) for part in signature.split("|")[1:])
    return BLEU(tokenize=f["tokenize"], lowercase=f["lowercase"] == "yes", smooth_method=f["smooth_method"],
                smooth_value=None if f["smooth_value"] == "none" else float(f["smooth_value"]),
                effective_order=f["eff"] == "yes")


@pytest.mark.parametrize("level,extra", [("seg", []), ("chunk", []), ("seg", ["-sh"])])
def test_segment_bleu_is_reproduced_by_sacrebleu_from_the_printed_signature_alone(capsys, tmp_path, level, extra):
    """Issue 37: segment BLEU is sentence BLEU with effective order; before, every signature said eff:no
    (and "Tee bitte." against itself scored 100, which only effective_order=True gives)."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("".join(h + "\n" for h, _ in SHORT_SEGMENTS), encoding="utf-8")
    ref.write_text("".join(r + "\n" for _, r in SHORT_SEGMENTS), encoding="utf-8")
    code = main(["-m", "bleu", "-i", str(hyp), "-r", str(ref), "--level", level, "-w", "9", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith(("segment scores: ", "unit scores: "))]
    assert len(lines) == 1, err
    printed = lines[0].split(": ", 1)[1]
    if extra:  # -sh: the short signature says it too
        assert "|e:yes|" in printed and "|e:no|" in err
        return
    assert "|eff:yes|" in printed and "|eff:no|" in err  # the system score's signature stays corpus BLEU's
    scores = [float(row.split("\t")[-1]) for row in out.splitlines()[1:]]
    bleu = _sacrebleu_from(printed)
    assert scores == [round(bleu.sentence_score(h, [r]).score, 9) for h, r in SHORT_SEGMENTS]
    assert scores[0] == 100.0 and _sacrebleu_from(printed.replace("eff:yes", "eff:no")).sentence_score(
        *SHORT_SEGMENTS[0][:1], [SHORT_SEGMENTS[0][1]]).score < 100  # the eff field is what makes it 100


def test_segment_bleu_json_carries_the_unit_signature_and_reading_it_back_says_what_it_is(capsys, tmp_path):
    hyp, ref, human = tmp_path / "hyp.txt", tmp_path / "ref.txt", tmp_path / "human.tsv"
    hyp.write_text("".join(h + "\n" for h, _ in SHORT_SEGMENTS), encoding="utf-8")
    ref.write_text("".join(r + "\n" for _, r in SHORT_SEGMENTS), encoding="utf-8")
    assert main(["-m", "bleu", "chrf", "-i", str(hyp), "-r", str(ref), "--level", "seg", "-f", "json", "-q"]) == 0
    bleu, chrf = json.loads(capsys.readouterr().out)
    assert "|eff:no|" in bleu["signature"] and "|eff:yes|" in bleu["unit_signature"]
    assert [u["score"] for u in bleu["units"]] == [_sacrebleu_from(bleu["unit_signature"]).sentence_score(h, [r]).score
                                                   for h, r in SHORT_SEGMENTS]
    assert "unit_signature" not in chrf  # chrF's sentence scores are computed as its signature says
    # the signature of the segment scores given back to -m: said what it is, not a bare difference
    code = main(["-m", bleu["unit_signature"], "-i", str(hyp), "-r", str(ref)])
    err = capsys.readouterr().err
    assert code == 0 and "it is the signature of bleu's segment scores (eff:yes), which --level seg prints" in err
    # --human --seg-level judges the segment scores: the meta-evaluation names their signature too
    hyp2 = tmp_path / "hyp2.txt"
    hyp2.write_text("".join(r + "\n" for _, r in SHORT_SEGMENTS), encoding="utf-8")
    human.write_text("system\tdoc_id\tseg_id\tdoc_pos\tscore\n" + "".join(
        f"{name}\td\t{i}\t{i + 1}\t{v}\n" for name, bonus in (("hyp.txt", 0), ("hyp2.txt", 1))
        for i, v in enumerate(range(bonus, bonus + len(SHORT_SEGMENTS)))), encoding="utf-8")
    ids = tmp_path / "ids.txt"
    ids.write_text("d\n" * len(SHORT_SEGMENTS), encoding="utf-8")
    code = main(["-m", "bleu", "-i", str(hyp), str(hyp2), "-r", str(ref), "--doc-ids", str(ids), "--human", str(human),
                 "--seg-level", "-q"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "[1] segment scores: bleu|tokenize:13a|" in out and "|eff:yes|" in out.split("segment scores:")[1], out


def test_cli_paired_bootstrap_of_a_copy(capsys, tmp_path):
    a, r, ids = str(DATA / "sysA.txt"), str(DATA / "ref.txt"), str(DATA / "docids.txt")
    copy = tmp_path / "copy.txt"  # a file given twice is scored once (93ea8b4): a copy under another name
    copy.write_text((DATA / "sysA.txt").read_text(encoding="utf-8"), encoding="utf-8")
    code = main(["-m", "d-bleu", "-i", a, str(DATA / "sysB.txt"), str(copy), "-r", r, "--doc-ids", ids,
                 "--paired-bs", "-f", "json", "-q"])
    assert code == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["baseline"] for row in rows] == [True, False, False]
    assert rows[0]["score"] == rows[2]["score"] and rows[2]["p_value"] == 1.0 and rows[1]["p_value"] < 1.0


BAD = [
    # (id, argv, what the message must say)
    ("bleu-no-reference", ["-m", "bleu", "-i", "{h}", "--doc-ids", "{ids}"], "bleu needs a reference: pass it with -r"),
    ("chrf-no-reference", ["-m", "chrf", "-i", "{h}"], "chrf needs a reference: pass it with -r"),
    ("ter-no-reference", ["-m", "ter", "-i", "{h}"], "ter needs a reference: pass it with -r"),
    ("d-bleu-no-reference", ["-m", "d-bleu", "-i", "{h}", "--doc-ids", "{ids}"], "d-bleu needs a reference"),
    ("d-chrf-no-doc-ids", ["-m", "d-chrf", "-i", "{h}", "-r", "{r}"], "d-chrf scores each document as one segment: "
                                                                      "give the document boundaries with --doc-ids"),
    ("bleu-bad-tokenizer", ["-m", "bleu:tokenize=moses", "-i", "{h}", "-r", "{r}"], "parameter 'tokenize'"),
    ("bleu-smooth-value-with-exp", ["-m", "bleu:smooth_value=0.1", "-i", "{h}", "-r", "{r}"],
     "parameter 'smooth_value' applies to smooth_method=floor or add-k"),
    ("chrf-no-order", ["-m", "chrf:char_order=0,word_order=0", "-i", "{h}", "-r", "{r}"],
     "'char_order' and 'word_order' are both 0"),
    ("ter-model", ["-m", "ter:model=x", "-i", "{h}", "-r", "{r}"], "ter: unknown parameter 'model'; allowed: normalized"),
]


@pytest.mark.parametrize("argv,culprit", [row[1:] for row in BAD], ids=[row[0] for row in BAD])
def test_bad_input_exits_2_naming_the_culprit(argv, culprit, capsys):
    files = {"h": str(DATA / "sysA.txt"), "r": str(DATA / "ref.txt"), "ids": str(DATA / "docids.txt")}
    code = main([files[a[1:-1]] if a.startswith("{") else a for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert culprit in err and "Traceback" not in err
