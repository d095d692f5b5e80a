"""Doc-Prism end to end on a tiny random mBART-50, against an independent computation.

The reference here builds each segment's context by hand (the previous k reference sentences of the
same document), joins it with " </s> " as the paper's code does, runs the model with ``labels`` and
averages the log-probabilities of the current sentence's tokens and EOS, in both directions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_fixtures import run_cli as run

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")

from docmetrics_backbones.prism.testing import build_tiny_mbart, mbart_sample_sentences  # noqa: E402

import docmetrics  # noqa: E402

_S = mbart_sample_sentences(40, seed=23)
REF = _S[0:10]
HYP_A = _S[10:20]
HYP_B = _S[20:30]
IDS = ["d1"] * 4 + ["d2"] + ["d3"] * 5
STARTS = {0, 4, 5}  # first line of each document


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Tiny models run fastest on one thread, and a second OpenMP thread on a busy machine makes
    every small operation wait for it (10x slower); restored afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def tiny_mbart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_mbart(tmp_path_factory.mktemp("tiny-mbart-doc"), seed=0)


@pytest.fixture(scope="module")
def loaded(tiny_mbart: Path):
    from transformers import MBart50Tokenizer, MBartForConditionalGeneration

    model = MBartForConditionalGeneration.from_pretrained(str(tiny_mbart)).eval()
    tok = MBart50Tokenizer.from_pretrained(str(tiny_mbart), src_lang="de_DE", tgt_lang="de_DE")
    return model, tok


def one_direction(model, tok, x: str, y: str, y_current: str) -> float:
    """Mean log p of y_current's tokens and the EOS, force-decoding the joined string y given x."""
    enc = tok(x, text_target=y)
    labels = enc["labels"]
    n = len(tok(y_current, add_special_tokens=False)["input_ids"])
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([enc["input_ids"]]), labels=torch.tensor([labels])).logits[0]
    logp = torch.log_softmax(logits.double(), dim=-1)
    picked = [float(logp[t, labels[t]]) for t in range(len(labels) - n - 1, len(labels))]
    return sum(picked) / len(picked)


def doc_prism_by_hand(model, tok, hyp, k, context="ref"):
    """Per-segment Doc-Prism scores with hand-built contexts."""
    doc_start = {}
    for i, d in enumerate(IDS):
        doc_start.setdefault(d, i)
    scores = []
    for i in range(len(hyp)):
        first = max(doc_start[IDS[i]], i - k)
        c_r = REF[first:i]
        c_h = hyp[first:i] if context == "hyp" else c_r
        r = " </s> ".join([*c_r, REF[i]])
        h = " </s> ".join([*c_h, hyp[i]])
        forward = one_direction(model, tok, r, h, hyp[i])
        backward = one_direction(model, tok, h, r, REF[i])
        scores.append(0.5 * (forward + backward))
    return scores


def metric(tiny_mbart, spec="", **kw):
    text = f"doc-prism:model={tiny_mbart}" + (f",{spec}" if spec else "")
    return docmetrics.load(text, device="cpu", defaults={"lang": "en-de"}, **kw)


@pytest.mark.parametrize("k", [0, 2])
def test_doc_prism_equals_hand_computation(tiny_mbart, loaded, k):
    model, tok = loaded
    systems = {"A": HYP_A, "B": HYP_B}
    results = metric(tiny_mbart, f"k={k}").score_systems(systems, references=REF, doc_ids=IDS)
    for name, hyp in (("A", HYP_A), ("B", HYP_B)):
        res = results[name]
        want = doc_prism_by_hand(model, tok, hyp, k)
        assert [u.score for u in res.units] == pytest.approx(want, abs=1e-6)
        assert [(u.start, u.end) for u in res.units] == [(i, i + 1) for i in range(10)]
        assert res.score == pytest.approx(sum(want) / len(want), abs=1e-6)
        assert [d.doc_id for d in res.docs] == ["d1", "d2", "d3"]
        assert res.docs[2].score == pytest.approx(sum(want[5:]) / 5, abs=1e-6)
        assert res.coverage.segments_scored == res.coverage.segments_total == 10
        assert res.coverage.counters == {"context_sentences_dropped": 0, "current_truncated": 0}
    assert results["A"].score != pytest.approx(results["B"].score, abs=1e-4)


def test_first_sentence_of_each_document_is_sentence_level(tiny_mbart):
    k2 = metric(tiny_mbart, "k=2").score(HYP_A, references=REF, doc_ids=IDS)
    k0 = metric(tiny_mbart, "k=0").score(HYP_A, references=REF, doc_ids=IDS)
    for i, (a, b) in enumerate(zip(k2.units, k0.units)):
        if i in STARTS:
            assert a.score == pytest.approx(b.score, abs=1e-6)
        else:
            assert abs(a.score - b.score) > 1e-6


def test_hypothesis_context_ablation(tiny_mbart, loaded):
    model, tok = loaded
    res = metric(tiny_mbart, "k=2,context=hyp").score(HYP_B, references=REF, doc_ids=IDS)
    want = doc_prism_by_hand(model, tok, HYP_B, 2, "hyp")
    assert [u.score for u in res.units] == pytest.approx(want, abs=1e-6)


def test_batch_size_does_not_change_scores(tiny_mbart):
    one = metric(tiny_mbart, "k=2", batch_size=1).score(HYP_A, references=REF, doc_ids=IDS)
    eight = metric(tiny_mbart, "k=2", batch_size=8).score(HYP_A, references=REF, doc_ids=IDS)
    assert [u.score for u in eight.units] == pytest.approx([u.score for u in one.units], abs=1e-5)


def test_truncation_is_counted_in_coverage(tmp_path_factory):
    short = build_tiny_mbart(tmp_path_factory.mktemp("short-mbart-doc"), seed=2, max_position_embeddings=40)
    from transformers import MBart50Tokenizer

    tok = MBart50Tokenizer.from_pretrained(str(short), src_lang="de_DE")
    long_sentence = " ".join(_S[30:36])
    assert len(tok(long_sentence)["input_ids"]) > 40
    fit = [s for s in _S if 6 <= len(tok(s)["input_ids"]) <= 12]
    ref = [fit[0], fit[1], long_sentence, fit[2]]
    hyp = [fit[3], fit[4], fit[5], fit[6]]
    res = metric(short, "k=2").score(hyp, references=ref, doc_ids=["x"] * 4)
    # line 3: the reference alone is too long: both context sentences dropped, current cut
    assert [u.truncated for u in res.units] == [False, False, True, False]
    assert res.coverage.units_truncated == 1
    counters = res.coverage.counters
    assert counters["current_truncated"] == 1 and counters["context_sentences_dropped"] >= 2
    assert "context sentences dropped" in res.coverage.summary()


# -- the command line -------------------------------------------------------------------------------
@pytest.fixture()
def files(tmp_path):
    def write(name, lines):
        p = tmp_path / name
        p.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return str(p)

    return {"ref": write("ref.txt", REF), "a": write("a.txt", HYP_A), "b": write("b.txt", HYP_B),
            "ids": write("ids.txt", IDS)}


def test_cli_signature_and_round_trip(tiny_mbart, loaded, files, capsys):
    model, tok = loaded
    args = ["-i", files["a"], "-r", files["ref"], "--doc-ids", files["ids"], "-w", "8"]
    code, out, err = run(capsys, "-m", f"doc-prism:model={tiny_mbart}", "-l", "en-de", *args)
    assert code == 0, err
    sig, _, rest = out.strip().partition(" = ")
    assert sig.startswith(f"doc-prism|k:2|context:ref|backbone:prism|model:{tiny_mbart}|fingerprint:")
    for part in ("|lang:en-de|", "|directions:both|", "|scored:current+eos|", "|codes:de_DE/de_DE|",
                 "|norm:mean-logprob|", "|precision:fp32|", "|transformers:", "|torch:"):
        assert part in sig
    want = doc_prism_by_hand(model, tok, HYP_A, 2)
    assert float(rest.split()[0]) == pytest.approx(sum(want) / len(want), abs=1e-6)
    # the signature alone (no -l) recomputes the same number, with no warning
    code2, out2, err2 = run(capsys, "-m", sig, *args)
    assert code2 == 0 and "warning" not in err2, err2
    assert out2.strip() == out.strip()
    code3, out3, _ = run(capsys, "-m", f"doc-prism:model={tiny_mbart},lang=en-de", *args, "-sh", "-f", "json")
    data = json.loads(out3)[0]
    assert data["params"]["k"] == 2 and data["params"]["lang"] == "en-de"
    assert data["coverage"]["context_sentences_dropped"] == 0
    assert data["score"] == pytest.approx(float(rest.split()[0]), abs=1e-7)


def _err(capsys, *argv):
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert "Traceback" not in err
    return err


def test_cli_errors(tiny_mbart, files, capsys):
    base = ["-i", files["a"], "--doc-ids", files["ids"]]
    err = _err(capsys, "-m", f"doc-prism:model={tiny_mbart}", *base, "-r", files["ref"])
    assert "-l/--lang src-tgt" in err
    err = _err(capsys, "-m", f"doc-prism:model={tiny_mbart}", *base, "-l", "en-de")
    assert "doc-prism needs a reference: pass it with -r/--reference" in err
    err = _err(capsys, "-m", f"doc-prism:model={tiny_mbart}", *base, "-r", files["ref"], "-l", "en-qq")
    assert "'qq' is not one of mBART-50's languages; known:" in err and "zh (zh_CN)" in err
    err = _err(capsys, "-m", "doc-prism:k=-1", *base, "-r", files["ref"], "-l", "en-de")
    assert "parameter 'k'" in err
    err = _err(capsys, "-m", "doc-prism", *base, "-r", files["ref"], "-l", "en-de")
    assert "facebook/mbart-large-50" in err and "machine with network" in err


def test_describe_states_scored_positions(capsys):
    code, out, _ = run(capsys, "--describe", "doc-prism")
    assert code == 0
    assert "Scored positions" in out and "NOT scored: the language code" in out
    assert "EOS" in out and "separator" in out and "k=0 is sentence-level Prism" in out
    assert "Vernikos" in out
