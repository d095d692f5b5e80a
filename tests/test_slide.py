"""SLIDE on tiny COMET models, checked against an independent computation: windows built by hand and
the COMET model called directly through unbabel-comet's own predict()."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from docmetrics_backbones.comet.testing import sample_sentences

import docmetrics

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21_ted_ende"

_S = sample_sentences(60, seed=3)
SRC = _S[:20]
HYPS = {"A": _S[20:40], "B": _S[40:60], "C": _S[20:30] + _S[50:60]}
REF = sample_sentences(20, seed=9)
# documents of 1, 2, 3, 6 and 8 sentences
IDS = ["a"] + ["b"] * 2 + ["c"] * 3 + ["d"] * 6 + ["e"] * 8


def hand_windows(ids, w, s, policy):
    """Windows per document, built without docmetrics: (start, end) test-set lines."""
    docs, start = [], 0
    for i in range(1, len(ids) + 1):
        if i == len(ids) or ids[i] != ids[start]:
            docs.append((start, i))
            start = i
    out = []
    for a, b in docs:
        pos, last_end = a, a
        while pos + w <= b:
            out.append((pos, pos + w, False))
            last_end = pos + w
            pos += s
        if policy != "drop" and last_end < b:
            out.append((last_end, b, True))
    return out


@pytest.fixture(scope="module")
def comet_models(tiny_kiwi_dir, tiny_comet_da_dir):
    from comet import load_from_checkpoint

    return {
        "kiwi": load_from_checkpoint(str(tiny_kiwi_dir / "checkpoints" / "model.ckpt")),
        "da": load_from_checkpoint(str(tiny_comet_da_dir / "checkpoints" / "model.ckpt")),
    }


def comet_direct(model, samples):
    return list(model.predict(samples, batch_size=8, gpus=0, progress_bar=False).scores)


@pytest.mark.parametrize("w,s,policy", [(2, 1, "drop"), (3, 3, "drop"), (4, 2, "keep"), (4, 2, "weighted"),
                                        (6, 6, "drop"), (1, 1, "drop")])
def test_slide_equals_direct_comet(tiny_kiwi_dir, comet_models, w, s, policy):
    metric = docmetrics.load(f"slide:w={w},s={s},partial={policy},model={tiny_kiwi_dir}")
    results = metric.score_systems(HYPS, sources=SRC, doc_ids=IDS)
    wins = hand_windows(IDS, w, s, policy)
    for name, hyp in HYPS.items():
        samples = [{"src": " ".join(SRC[a:b]), "mt": " ".join(hyp[a:b])} for a, b, _ in wins]
        scores = comet_direct(comet_models["kiwi"], samples)
        weights = [(b - a) if policy == "weighted" else 1 for a, b, _ in wins]
        expected = sum(x * k for x, k in zip(scores, weights)) / sum(weights)
        r = results[name]
        assert r.score == pytest.approx(expected, abs=1e-6)
        assert [(u.start, u.end, u.partial) for u in r.units] == wins
        assert [u.score for u in r.units] == pytest.approx(scores, abs=1e-6)
        covered = set().union(*(range(a, b) for a, b, _ in wins))
        assert r.coverage.segments_scored == len(covered) and r.coverage.units == len(wins)


def test_slide_reference_based_uses_reference_windows(tiny_comet_da_dir, comet_models):
    metric = docmetrics.load(f"slide:w=3,s=1,model={tiny_comet_da_dir}")
    r = metric.score(HYPS["A"], sources=SRC, references=REF, doc_ids=IDS)
    wins = hand_windows(IDS, 3, 1, "drop")
    samples = [{"src": " ".join(SRC[a:b]), "mt": " ".join(HYPS["A"][a:b]), "ref": " ".join(REF[a:b])}
               for a, b, _ in wins]
    scores = comet_direct(comet_models["da"], samples)
    assert r.score == pytest.approx(sum(scores) / len(scores), abs=1e-6)
    with pytest.raises(docmetrics.InputError, match="needs a reference: pass it with references="):
        metric.score(HYPS["A"], sources=SRC, doc_ids=IDS)


def test_truncated_chunks_counted(tiny_kiwi_dir):
    long_src = [" ".join([SRC[0]] * 40)] * 4
    long_mt = [" ".join([HYPS["A"][0]] * 40)] * 4
    metric = docmetrics.load(f"slide:w=2,s=2,model={tiny_kiwi_dir}")
    r = metric.score(long_mt, sources=long_src, doc_ids=["x"] * 4)
    assert r.coverage.units == 2 and r.coverage.units_truncated == 2
    assert all(u.truncated for u in r.units)
    r2 = metric.score(HYPS["A"][:4], sources=SRC[:4], doc_ids=["x"] * 4)
    assert r2.coverage.units_truncated == 0


def test_signature_fields(tiny_kiwi_dir):
    metric = docmetrics.load(f"slide:w=6,s=6,model={tiny_kiwi_dir}")
    sig = metric.score(HYPS["A"], sources=SRC, doc_ids=IDS).signature
    d = sig.as_dict()
    assert sig.metric == "slide"
    assert (d["w"], d["s"], d["partial"], d["backbone"], d["model"]) == ("6", "6", "drop", "comet", str(tiny_kiwi_dir))
    assert len(d["fingerprint"]) == 10 and d["precision"] == "fp32"
    assert d["unbabel-comet"] == "2.2.7" and d["torch"].startswith("2.") and d["transformers"] != "none"
    assert d["version"] == docmetrics.__version__


def test_cli_end_to_end_and_signature_round_trip(tiny_kiwi_dir, tmp_path, capsys):
    def put(name, lines):
        (tmp_path / name).write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return str(tmp_path / name)

    files = [put("src.txt", SRC), put("A.txt", HYPS["A"]), put("B.txt", HYPS["B"]), put("ids.txt", IDS)]
    base = ["-i", files[1], files[2], "-s", files[0], "--doc-ids", files[3], "-f", "json", "-q"]
    # the command itself, in a process of its own: nothing but the JSON reaches its stdout
    proc = subprocess.run([sys.executable, "-m", "docmetrics", "-m", f"slide:w=2,s=1,model={tiny_kiwi_dir}",
                           *base], capture_output=True, text=True, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lstrip().startswith("[")  # no banners on stdout
    first = json.loads(proc.stdout)
    # the round trips, in this process (each fresh process would load torch and COMET again)
    for short in (False, True):
        sig = first[0]["signature"] if not short else None
        if short:
            code, out, err = run_cli(capsys, "-m", f"slide:w=2,s=1,model={tiny_kiwi_dir}", *base, "-sh")
            assert code == 0, err
            sig = json.loads(out)[0]["signature"]
            assert "|m:" in sig and "|fp:" in sig
        code, out, err = run_cli(capsys, "-m", sig, *base)
        assert code == 0, err
        assert "differs" not in err
        assert [d["score"] for d in json.loads(out)] == [d["score"] for d in first]


def test_offline_hub_model_is_a_clear_error(tmp_path):
    src = tmp_path / "s.txt"
    src.write_text("a\nb\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "docmetrics", "-m", "slide:w=1,s=1", "-i", str(src), "-s", str(src)],
                          capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"), timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "Unbabel/wmt22-cometkiwi-da" in proc.stderr and "licence" in proc.stderr.lower()


@pytest.mark.skipif(not (SHARED / "segments.tsv").exists(), reason="../shared data not present")
def test_shared_wmt21_windows_and_coverage(tmp_path):
    """On the real TED test set (5 talks: 140, 31, 129, 70, 159 sentences) with the toy backbone."""
    sys.path.insert(0, str(Path(__file__).parent / "benchmarks"))
    import wmt_data
    from plugin_fixtures import install_toy

    from docmetrics.plugin import registry

    root = install_toy(tmp_path / "site")
    sys.path.insert(0, str(root))
    registry.refresh()
    try:
        data = wmt_data.load(SHARED)
        metric = docmetrics.load("slide:w=6,s=6,backbone=toy")
        results = metric.score_systems(data["systems"], sources=data["src"], doc_ids=data["doc_ids"])
        sizes = [140, 31, 129, 70, 159]
        r = next(iter(results.values()))
        assert r.coverage.units == sum(n // 6 for n in sizes)
        assert r.coverage.segments_scored == sum(6 * (n // 6) for n in sizes)
        assert r.coverage.segments_total == 529 and len(results) == 13
    finally:
        sys.path.remove(str(root))
        registry.refresh()


def test_cuda_without_gpu_is_a_user_error(tiny_kiwi_dir):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    metric = docmetrics.load(f"slide:w=1,s=1,model={tiny_kiwi_dir}", device="cuda")
    with pytest.raises(docmetrics.UserError, match="device=cuda: .*use device=cpu or device=auto"):
        metric.score(HYPS["A"][:2], sources=SRC[:2])
    with pytest.raises(docmetrics.UserError, match="precision=fp16 needs a CUDA GPU"):
        docmetrics.load(f"slide:w=1,s=1,model={tiny_kiwi_dir},precision=fp16", device="cpu").score(
            HYPS["A"][:2], sources=SRC[:2])
