"""One meta-evaluation path and one renderer (issue 46, slice "metaeval"): ``--mtme`` and ``docmetrics metaeval``
print a language pair of :func:`docmetrics.judging.run_mtme` through the public ``mtme_run_text`` /
``mtme_run_dict`` (the meta-evaluation's own ``to_text`` / ``to_dict``, with the score files written); a sweep's
point is ``meta_evaluate`` of its one metric; ``--average`` is checked by the public ``average_statistics``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_fixtures import run_cli as run

import docmetrics
from docmetrics import judging
from docmetrics.values.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
MTME = ROOT / "docmetrics" / "data" / "mtme"
SPECS = ("chrf", "bleu")


def runs(out_root=None, lps=("en-de",)):
    return judging.run_mtme(str(MTME), "wmt21.tedtalks", list(lps), list(SPECS),
                            lambda spec, lp: docmetrics.load(spec, defaults={"lang": lp}),
                            out_root=None if out_root is None else str(out_root))


def judged(run, **options):
    run.evaluation = judging.meta_evaluate(run.results, run.evalset(), **options)
    return run


def test_a_run_prints_as_the_command_prints_it_with_the_files_it_wrote(tmp_path, capsys):
    out = tmp_path / "scores"
    run_ = judged(runs(out)[0], significance=30)
    code, printed, err = run(capsys, "-m", *SPECS, "--mtme", MTME, "-t", "wmt21.tedtalks", "-l", "en-de", "-q",
                             "--resamples", "30", "--write-mtme", out)
    assert code == 0, err
    assert judging.mtme_run_text(run_) == printed
    # the meta-evaluation's own text, the score files said before the signatures
    assert printed == run_.evaluation.to_text(written=run_.written)
    assert run_.evaluation.to_text() == printed.replace(
        "".join(f"[{k}] MTME scores: {line}\n" for k, line in enumerate(_files(printed), 1)), "")
    code, as_json, err = run(capsys, "-m", *SPECS, "--mtme", MTME, "-t", "wmt21.tedtalks", "-l", "en-de", "-q",
                             "--resamples", "30", "--write-mtme", out, "-f", "json")
    assert code == 0, err
    mine = json.loads(json.dumps(judging.mtme_run_dict(run_)))
    assert mine == json.loads(as_json) and [w["metric"] for w in mine["written"]] == [w.metric for w in run_.written]


def _files(text: str) -> list[str]:
    return [line.split("MTME scores: ", 1)[1] for line in text.splitlines() if "MTME scores: " in line]


def test_rank_by_and_explain_are_the_text_options_of_mtme_data():
    ev = judged(runs()[0], significance=0).evaluation
    by_pearson = ev.to_text(rank_by="pearson")
    assert "Sorted by pearson:" in by_pearson and "Sorted by spa:" in ev.to_text()
    assert "acc_eq: pairwise accuracy" in ev.to_text() and "acc_eq: pairwise accuracy" not in ev.to_text(
        explain=False)


def test_a_run_without_a_meta_evaluation_prints_its_scores(tmp_path):
    run_ = runs(tmp_path / "out")[0]  # not judged: its system scores, each metric's own decimals
    text = judging.mtme_run_text(run_)
    assert text.startswith("wmt21.tedtalks en-de: 6 systems, 24 segments, 3 documents; reference refA; "
                           "no meta-evaluation\nSystem")
    assert "chrf [1]" in text and "bleu [2]" in text and "[2] MTME scores: " in text
    chrf = run_.results["chrf"][0]
    assert f"{chrf.score:.{chrf.decimals or 4}f}" in text and f"{chrf.score:.2f}" in judging.mtme_run_text(run_, 2)
    d = judging.mtme_run_dict(run_)
    assert d["scores"][0]["score"] == chrf.score and d["root"] == str(MTME) and len(d["written"]) == 2


def test_a_sweep_point_is_meta_evaluate_of_its_metric():
    data = docmetrics.read_human(MTME / "wmt21.tedtalks", lp="en-de")
    swept = judging.sweep("chrf", ["beta=1,3"], data.testset, human=data.human, seg_level=True)
    for point in swept.points:  # the MTME data's segment scores as a --human file's, on its test set
        alone = judging.meta_evaluate({point.spec: docmetrics.load(point.spec).compute(data.testset)}, data.human,
                                      testset=data.testset, levels=("system", "segment"), significance=0)
        assert json.dumps(point.metaeval.to_dict()) == json.dumps(alone.metric(0).to_dict())


def test_the_statistics_of_an_average_are_checked_before_scoring():
    assert judging.average_statistics(["pearson", "seg_acc_eq"]) == ("pearson", "seg_acc_eq")
    with pytest.raises(InputError, match="pdp .*needs --pdp or --doc-level"):
        judging.average_statistics(["pdp"], pdp=False, document=False)
    assert judging.average_statistics(["pdp"], pdp=True, document=False) == ("pdp",)
    with pytest.raises(InputError, match="doc_spa .*needs --doc-level"):
        judging.average_statistics(["doc_spa"], pdp=True, document=False)
    with pytest.raises(InputError, match="named twice"):
        judging.average_statistics(["pearson", "pearson"])
    with pytest.raises(InputError):
        judging.average_statistics(["no-such-statistic"])


@pytest.mark.parametrize("command", [[], ["metaeval"]])
def test_an_unknown_stat_stops_an_mtme_run_before_anything_is_scored(capsys, command):
    code, out, err = run(capsys, *command, "-m", "chrf", "--mtme", MTME, "-t", "wmt21.tedtalks", "-l", "en-de",
                         "--stat", "nope")
    assert code == 2 and out == "" and "--stat nope: unknown statistic 'nope'" in err
    assert "coverage" not in err and err.count("\n") == 1, err  # nothing scored, one line
