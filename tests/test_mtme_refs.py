"""Several references on mt-metrics-eval data: ``--mtme ROOT ... --ref refA,refB`` (and ``docmetrics
metaeval``).  sacrebleu's metrics score against every reference in use, with sacrebleu's own numbers
(computed here with sacrebleu directly) and the numbers of the same metric on plain files with ``-r A B``;
the systems scored leave out every reference in use, as MTME's ``GetCorrelations`` leaves out its
``main_refs``; a metric that takes one reference refuses before anything is scored."""

import json

import pytest
import sacrebleu.metrics
from mtme_fixtures import read_back
from plugin_fixtures import toy_dist  # noqa: F401
from test_cli_mtme import run, tiny  # noqa: F401
from test_mtme import DOCS, REF_A, REF_B, build_tiny, write

from docmetrics.formats.mtme import load_mtme
from docmetrics.values.errors import InputError

pytestmark = pytest.mark.usefixtures("toy_dist")

REF = "slide:w=1,s=1,backbone=toy,model=toy-ref"  # reference-based, takes one reference
SACRE = {"bleu": lambda: sacrebleu.metrics.BLEU(), "chrf": lambda: sacrebleu.metrics.CHRF(),
         "ter": lambda: sacrebleu.metrics.TER()}
DOC_SPANS = [(0, 3), (3, 6)]


def outputs(root, lp="en-de"):
    """The systems' lines as MTME reads them ('[No translation supplied]' is an empty line)."""
    data, _ = load_mtme(root, "toy", lp, ref="refA")
    return data.system_outputs


# -- the numbers -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("refs", [["refA", "refB"], ["refB", "refA"]])
def test_sacrebleu_metrics_score_against_both_references_as_sacrebleu_does(tiny, capsys, refs):
    root, out_dir = tiny / "data", tiny / "out"
    code, out, err = run(capsys, "-m", "bleu", "chrf", "ter", "--mtme", root, "-t", "toy", "-l", "en-de",
                         "--ref", ",".join(refs), "--include-human", "--write-mtme", out_dir, "--resamples", "0",
                         "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    # both references in use, both left out of the systems even with --include-human
    assert report["references"] == refs and report["reference"] == ".".join(refs)
    assert report["systems"] == ["sysA", "sysB", "sysC"]
    hyps = outputs(root)
    ref_lines = {"refA": REF_A, "refB": REF_B}
    ref_lists = [ref_lines[r] for r in refs]
    back = read_back(out_dir, "toy", "en-de")
    for k, metric in enumerate(report["metrics"]):
        family = metric["metric"]
        assert "|nrefs:2|" in metric["signature"]
        sacre = SACRE[family]()
        expected = [sacre.corpus_score(hyps[s], ref_lists).score for s in report["systems"]]
        assert metric["system"]["metric_scores"] == pytest.approx(expected, abs=1e-9)
        # the score files: NAME-refA.refB, the system and document scores sacrebleu's
        written = report["written"][k]
        assert written["ref"] == ".".join(refs) and "_2_" in written["metric"]  # the short signature's #:2
        sys_back = back[(written["metric"], ".".join(refs), "sys")]
        sign = -1 if family == "ter" else 1  # TER is an edit rate: MTME's files hold it negated, higher better
        assert written.get("negated", False) is (family == "ter")
        assert {s: v[0] for s, v in sys_back.items()} == pytest.approx({s: sign * x for s, x in
                                                                         zip(report["systems"], expected)})
        doc_back = back[(written["metric"], ".".join(refs), "doc")]
        for s in report["systems"]:
            docs = [sacre.corpus_score(hyps[s][a:b], [r[a:b] for r in ref_lists]).score for a, b in DOC_SPANS]
            assert doc_back[s] == pytest.approx([sign * x for x in docs], abs=1e-9)


def test_the_same_numbers_as_plain_files_with_two_references(tiny, capsys):
    """--mtme --ref refA,refB gives what -i ... -r refA.txt refB.txt gives on the same lines (the plain-file
    path of several references), at system, document and segment level."""
    root, out_dir, plain = tiny / "data", tiny / "out", tiny / "plain"
    hyps = outputs(root)
    for name, lines in (*hyps.items(), ("refA.ref", REF_A), ("refB.ref", REF_B), ("ids", [d for d in DOCS])):
        write(plain / f"{name}.txt", lines)
    systems = ["sysA", "sysB", "sysC"]
    code, out, err = run(capsys, "-m", "bleu", "-i", *[plain / f"{s}.txt" for s in systems], "-r",
                         plain / "refA.ref.txt", plain / "refB.ref.txt", "--doc-ids", plain / "ids.txt",
                         "--level", "seg", "-f", "json")
    assert code == 0, err
    by_file = {r["system"]: r for r in json.loads(out)}
    code, out, err = run(capsys, "-m", "bleu", "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refA,refB",
                         "--write-mtme", out_dir, "--resamples", "0", "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    [written] = report["written"]
    back = read_back(out_dir, "toy", "en-de")
    for s in systems:
        plain_result = next(r for name, r in by_file.items() if name.endswith(f"{s}.txt") or name == s)
        assert back[(written["metric"], "refA.refB", "sys")][s] == [pytest.approx(plain_result["score"], abs=1e-9)]
        assert back[(written["metric"], "refA.refB", "seg")][s] == pytest.approx(
            [u["score"] for u in plain_result["units"]], abs=1e-9)
        assert plain_result["signature"] == report["metrics"][0]["signature"]


def test_repeated_ref_accumulates_in_order(tiny, capsys):
    root = tiny / "data"
    code, out, err = run(capsys, "-m", "bleu", "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refB",
                         "--ref", "refA", "--resamples", "0")
    assert code == 0, err
    assert "references refB, refA" in out and "|nrefs:2|" in out
    assert "Not scored: refA (a reference in use), refB (a reference in use)" in out


def test_a_reference_not_in_use_stays_a_system_with_include_human(tiny, capsys):
    """MTME's GetCorrelations: sys_names - main_refs; with include_human refB is scored against refA."""
    root = tiny / "data"
    code, out, err = run(capsys, "-m", "bleu", "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refA",
                         "--include-human", "--resamples", "0", "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["references"] == ["refA"] and report["systems"] == ["refB", "sysA", "sysB", "sysC"]
    assert "|nrefs:1|" in report["metrics"][0]["signature"]
    expected = sacrebleu.metrics.BLEU().corpus_score(REF_B, [REF_A]).score
    assert report["metrics"][0]["system"]["metric_scores"][0] == pytest.approx(expected, abs=1e-9)


def test_metaeval_takes_several_references_on_every_language_pair(tiny, capsys):
    root = tiny / "data"
    code, out, err = run(capsys, "metaeval", "-m", "bleu", "--mtme", root, "-t", "toy", "-l", "en-de,zh-en",
                         "--ref", "refA,refB", "--resamples", "0", "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    hyps = outputs(root)
    expected = [sacrebleu.metrics.BLEU().corpus_score(hyps[s], [REF_A, REF_B]).score for s in ("sysA", "sysB", "sysC")]
    for lp in report["lps"]:
        assert lp["references"] == ["refA", "refB"] and lp["systems"] == ["sysA", "sysB", "sysC"]
        assert "|nrefs:2|" in lp["metrics"][0]["signature"]
        assert lp["metrics"][0]["system"]["metric_scores"] == pytest.approx(expected, abs=1e-9)


# -- refusals: exit 2, before anything is scored ------------------------------------------------------------------
@pytest.mark.parametrize("argv,present", [
    (["-m", "bleu", REF, "--ref", "refA,refB"],
     ["slide takes one reference, and 2 were given (", "en-de.refA.txt, ", "en-de.refB.txt)", "give one reference"]),
    (["-m", "bleu", "--ref", "refA,refZ"], ["no reference 'refZ' for en-de (references: refA, refB)"]),
    (["-m", "bleu", "--ref", "refA,"], ["--ref refA,: an empty reference name"]),
    (["-m", "bleu", "--ref", "refA,refB", "--systems", "sysA", "refB"],
     ["'refB' is a reference in use; it cannot be scored against itself"]),
    (["-m", "bleu", "-r", "x.txt", "y.txt"], ["-r cannot be combined with --mtme", "--ref refA,refB"]),
])
def test_refusals(tiny, capsys, argv, present):
    code, out, err = run(capsys, *argv, "--mtme", tiny / "data", "-t", "toy", "-l", "en-de")
    assert code == 2, err
    assert "Traceback" not in err and "systems x" not in err  # nothing was scored
    for text in present:
        assert text in err


def test_metaeval_refuses_a_metric_that_takes_one_reference(tiny, capsys):
    code, out, err = run(capsys, "metaeval", "-m", "bleu", REF, "--mtme", tiny / "data", "-t", "toy",
                         "-l", "en-de,zh-en", "--ref", "refA,refB")
    assert code == 2 and "slide takes one reference, and 2 were given" in err and "systems x" not in err


# -- the library ---------------------------------------------------------------------------------------------------
def test_load_mtme_keeps_every_reference_in_use(tmp_path):
    build_tiny(tmp_path)
    data, testset = load_mtme(tmp_path, "toy", "en-de", ref=["refB", "refA"], include_human=True)
    assert data.refs == ["refB", "refA"] and data.ref == "refB.refA"
    assert testset.all_references == [REF_B, REF_A] and testset.references == REF_B
    assert [n.rsplit("/", 1)[-1] for n in testset.reference_names()] == ["en-de.refB.txt", "en-de.refA.txt"]
    assert list(testset.systems) == ["sysA", "sysB", "sysC"]
    one, _ = load_mtme(tmp_path, "toy", "en-de", ref="refA")
    assert one.refs == ["refA"] and one.ref == "refA"
    with pytest.raises(InputError, match="refA named twice"):
        load_mtme(tmp_path, "toy", "en-de", ref=["refA", "refA"])


def test_every_reference_of_three_or_more_is_named_all_as_mtme_names_it(tmp_path):
    d = build_tiny(tmp_path)
    write(d / "references" / "en-de.refC.txt", REF_B)
    data, _ = load_mtme(tmp_path, "toy", "en-de", ref=["refA", "refB", "refC"])
    assert data.ref == "all"
    two, _ = load_mtme(tmp_path, "toy", "en-de", ref=["refA", "refC"])
    assert two.ref == "refA.refC"
