"""One scoring loop, one report of each scored metric: plain files, a GenMT file and MTME data say the
same things of the same systems (a run that differs from the signature it was given in, the coverage
line, the units cut at the model's maximum length) and ``--max-truncated`` stops each with exit 2.
The toy backbone (no model) marks a unit truncated when its MT is over 80 characters; the counts below
are taken from the texts."""

from __future__ import annotations

import json

import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401
from test_mtme import DOCS, REF_A, SRC, build_tiny

import docmetrics
from docmetrics.judging.score_systems import Scored, ScoringObserver, score_metrics
from docmetrics.values.signature import parse_signature
from docmetrics.values.testset import TestSet

pytestmark = pytest.mark.usefixtures("toy_dist")

QE = "slide:w=1,s=1,backbone=toy"  # one unit per segment
LONG = "A very long hypothesis sentence that goes on and on well past the toy backbone's eighty characters."
SYSTEMS = {
    "sysA": ["A B C", "D E X", "G H", "I J K L", "M", "O P Q"],
    "sysB": [LONG, "D E", "G H Z", LONG + " Twice.", "M N", "O P"],
    "sysC": ["X", "D", "G", "I K", "N", "P"],
}
HUMAN = {"sysA": [0, -1, 0, 0, -5, 0], "sysB": [-1, -5, -1, -6, 0, -1], "sysC": [-25, -10, -3, -25, -5, -10]}
DOC_IDS = [doc.split()[1] for doc in DOCS]  # d1 x3, d2 x3
#: sacrebleu's signature of BLEU with two references and another version: the run has one and its own
SACREBLEU = "BLEU|#:2|c:mixed|e:no|tok:13a|s:exp|v:1.0.0"


@pytest.fixture()
def data(tmp_path, monkeypatch):
    """The same three systems as plain files (named sysA, sysB, sysC), a GenMT file and an MTME directory."""
    def lines(path, texts):
        path.write_text("".join(x + "\n" for x in texts), encoding="utf-8")

    for name, texts in SYSTEMS.items():
        lines(tmp_path / name, texts)
    lines(tmp_path / "src.txt", SRC)
    lines(tmp_path / "ref.txt", REF_A)
    lines(tmp_path / "ids.txt", DOC_IDS)
    rows = [{"doc_id": f"en-de_DE_#_news_#_{DOC_IDS[i]}", "src_text": SRC[i],
             "tgt_text": {**{s: SYSTEMS[s][i] for s in SYSTEMS}, "refA": REF_A[i]},
             "scores": {s: {"human": 100 + HUMAN[s][i], "errors": []} for s in SYSTEMS}} for i in range(len(SRC))]
    (tmp_path / "genmt.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    build_tiny(tmp_path / "mtme", seg={s: [str(v) for v in vals] for s, vals in HUMAN.items()}, outputs=SYSTEMS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# (id, the command after -m SPEC..., what names a metric in its reports)
RUNS = [
    ("plain", ["-i", *SYSTEMS, "-s", "src.txt", "-r", "ref.txt", "--doc-ids", "ids.txt"], ""),
    ("genmt", ["--genmt", "genmt.jsonl", "-l", "en-de_DE"], ""),
    ("mtme", ["--mtme", "mtme", "-t", "toy", "-l", "en-de", "--ref", "refA", "--resamples", "0"], "[en-de] "),
]


def tampered() -> tuple[str, str]:
    """The toy's signature with another fingerprint, and the difference a run of it must name."""
    text = docmetrics.load(QE).signature().format()
    own = dict(parse_signature(text).items)["fingerprint"]
    return (text.replace(f"|fingerprint:{own}|", "|fingerprint:old0|"),
            f"fingerprint: signature has 'old0', this run has {own!r}")


def cut(system: str) -> str:
    n = sum(len(x) > 80 for x in SYSTEMS[system])
    return f"{n} of {len(SYSTEMS[system])} units ({100 * n / len(SYSTEMS[system]):.1f}%)"


def coverage(system: str) -> str:
    n = len(SYSTEMS[system])
    return f"{n} units, coverage {n}/{n} segments (100.0%), {sum(len(x) > 80 for x in SYSTEMS[system])} truncated"


@pytest.mark.parametrize("argv,prefix", [r[1:] for r in RUNS], ids=[r[0] for r in RUNS])
def test_every_run_reports_signature_coverage_and_truncation_alike(data, capsys, argv, prefix):
    spec, differs = tampered()
    code, out, err = run(capsys, "-m", spec, SACREBLEU, *argv)
    assert code == 0 and out, err
    assert f"docmetrics: warning: this run differs from the signature it was given in: {differs}\n" in err
    assert ("docmetrics: warning: this run differs from the signature it was given in: nrefs: signature has '2', "
            "this run has '1'; sacrebleu: signature has '1.0.0'") in err
    # one coverage line per metric: what most systems share, then each system that differs
    assert (f"docmetrics: {prefix}slide [2 of 3 systems]: {coverage('sysA')}; sysB: {coverage('sysB')} "
            "(-v: one line per system)\n") in err
    assert f"docmetrics: {prefix}bleu [each of 3 systems]: 6 units, coverage 6/6 segments (100.0%) (-v:" in err
    assert (f"docmetrics: warning: {prefix}slide: units were cut at the model's maximum input length in 1 of 3 "
            f"systems (sysB: {cut('sysB')}), so their scores miss the end of the input; use a model that takes "
            "longer inputs") in err
    assert err.count("units were cut") == 1 and err.count("differs from the signature") == 2
    # -v: one line per system
    code, out, err = run(capsys, "-m", QE, *argv, "-v")
    assert code == 0, err
    for system in SYSTEMS:
        assert f"docmetrics: {prefix}slide [{system}]: {coverage(system)}\n" in err
    assert "differs from the signature" not in err


@pytest.mark.parametrize("argv,prefix", [r[1:] for r in RUNS], ids=[r[0] for r in RUNS])
def test_max_truncated_stops_every_run(data, capsys, argv, prefix):
    code, out, err = run(capsys, "-m", QE, *argv, "--max-truncated", "0.25")
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.splitlines()[-1] == (
        f"docmetrics: error: {prefix}slide: units were cut at the model's maximum input length in 1 of 3 systems "
        f"(sysB: {cut('sysB')}), so their scores miss the end of the input; use a model that takes longer inputs "
        "(each window is one segment already; a segment of several sentences, e.g. a paragraph, is scored whole, "
        "uncut, by asd:unit=segment) (more than --max-truncated 0.25)")
    code, out, err = run(capsys, "-m", QE, *argv, "--max-truncated", "0.5")  # 33.3% is within 50%
    assert code == 0 and out and "units were cut" in err, err


def test_score_metrics_tells_the_observer_and_compares_with_the_signature_asked_for():
    """The loop itself: in order, before and after each metric, the results the metric computes alone,
    and the differences from the signature (the metric's own, else the caller's by index)."""
    testset = TestSet.from_lists(SYSTEMS, sources=SRC, references=[REF_A], doc_ids=DOC_IDS)
    spec, differs = tampered()
    heard = []

    class Ear(ScoringObserver):
        def scoring(self, index, spec, metric):
            heard.append(("scoring", index, spec))

        def scored(self, scored: Scored):
            heard.append(("scored", scored.index, scored.spec))

    bleu = docmetrics.load("bleu")
    metrics = [(spec, docmetrics.load(spec)), ("bleu", bleu), (QE, docmetrics.load(QE))]
    asked = {1: parse_signature("bleu|nrefs:2"), 2: parse_signature(docmetrics.load(QE).signature().format())}
    scored = score_metrics(testset, metrics, requested=asked, observer=Ear())
    assert heard == [("scoring", 0, spec), ("scored", 0, spec), ("scoring", 1, "bleu"), ("scored", 1, "bleu"),
                     ("scoring", 2, QE), ("scored", 2, QE)]
    alone = docmetrics.load(QE).compute(testset)
    assert [(r.system, r.score) for r in scored[2].results] == [(r.system, r.score) for r in alone]
    assert [r.system for r in scored[0].results] == list(SYSTEMS)
    assert scored[0].differences == [differs] and scored[0].requested is metrics[0][1].requested_signature
    assert scored[1].differences == ["nrefs: signature has '2', this run has '1'"]
    assert scored[2].differences == [] and scored[2].requested is asked[2]

    class Stop(ScoringObserver):
        def scored(self, scored):
            raise RuntimeError(f"stop after {scored.spec}")

    class Never:
        requested_signature = None

        def compute(self, testset):
            raise AssertionError("scored after the observer stopped the run")

    with pytest.raises(RuntimeError, match="stop after bleu"):
        score_metrics(testset, [("bleu", bleu), ("never", Never())], observer=Stop())
