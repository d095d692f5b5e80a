"""Readable judging output (issue 22, item 6), one row per finding: the paired-test warning names the
test that has few outcomes, every table names a metric as ``LABEL [k]``, ``-m``/``-i`` given again add,
a skipped PERM-BOTH test says what each metric scores, and acc_eq says when its epsilon ties every
pair.  Numbers behind the words are checked against independent computations."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from plugin_fixtures import toy_dist  # noqa: F401
from test_frictions import check_row, files, run  # noqa: F401  (test_frictions' fixture and runners)

from docmetrics import stats as ws
from docmetrics.judging import column, metric_labels

pytestmark = pytest.mark.usefixtures("toy_dist")

TOY = "slide:w=2,s=1,backbone=toy"
TWO = ["-i", "hyp.txt", "hypB.txt", "-s", "src.txt", "-r", "ref.txt", "--doc-ids", "ids.txt"]

# (id, argv, exit status, what stderr+stdout must contain, what they must not contain)
ROWS = [
    ("bootstrap-warning-names-the-bootstrap", ["-m", "bleu", *TWO, "--paired-bs", "-q"], 0,
     ["only 3 documents to resample", "the paired bootstrap has only C(5, 3) = 10 distinct resamples of 3 documents"],
     ["randomization", "swaps"]),
    ("randomization-warning-names-its-swaps", ["-m", "bleu", *TWO, "--paired-ar", "-q"], 0,
     ["only 3 documents to resample", "the paired randomization test has only 2^3 = 8 distinct swaps"],
     ["bootstrap has only"]),
    ("paired-header-as-the-plain-one", ["-m", TOY, *TWO, "--paired-bs", "-q"], 0,
     ["System  slide [1]\n", "(μ ± 95% CI): the bootstrap mean"], ["backbone=toy [1]", "[1] (μ ± 95% CI)"]),
    ("two-specs-of-one-metric-by-spec", ["-m", TOY, "slide:w=1,s=1,backbone=toy", *TWO, "--paired-ar", "-q"], 0,
     ["slide:w=2,s=1,backbone=toy [1]", "slide:w=1,s=1,backbone=toy [2]"], ["slide [1]"]),
    ("preset-by-its-name", ["-m", "cometkiwi:backbone=toy", "bleu", *TWO, "-q"], 0,
     ["cometkiwi [1]", "bleu [2]"], ["slide [1]"]),
    ("m-given-again-adds", ["-m", TOY, "-m", "bleu", *TWO, "-q"], 0, ["slide [1]", "bleu [2]"], []),
    ("i-given-again-adds", ["-m", "bleu", "-i", "hyp.txt", "-i", "hypB.txt", "-r", "ref.txt", "-q"], 0,
     ["hyp.txt ", "hypB.txt "], []),
    ("s-given-twice-is-refused", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-s", "src.txt", "-s", "ref.txt"],
     2, ["argument -s/--source: given twice (src.txt, ref.txt): it takes one file"], []),
    ("doc-ids-given-twice-is-refused", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--doc-ids", "ids.txt",
                                        "--doc-ids", "short.txt"], 2, ["--doc-ids: given twice (ids.txt, short.txt)"],
     []),
    ("the-same-file-twice-is-one", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--doc-ids", "ids.txt",
                                    "--doc-ids", "ids.txt", "-q"], 0, ["bleu|"], []),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_judging_output(files, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


def test_the_bootstrap_count_is_the_number_of_multisets():
    """C(2n-1, n): the distinct resamples with replacement of n documents, counted by enumeration."""
    from docmetrics.judging.paired import few_documents_warning

    for n in (2, 3, 4, 5):
        distinct = len({tuple(sorted(c)) for c in itertools.product(range(n), repeat=n)})
        assert f"= {distinct} distinct resamples of {n} documents" in few_documents_warning("m", "bs", n)
        assert f"2^{n} = {2 ** n} distinct swaps" in few_documents_warning("m", "ar", n)


def test_every_table_labels_a_metric_alike(files, capsys):
    """The plain table, the paired table and the meta-evaluation table give one metric one header."""
    heads = []
    for extra in ([], ["--paired-bs"], ["--paired-ar"]):
        code, out, err = run(capsys, "-m", TOY, "bleu", *TWO, "-q", *extra)
        assert code == 0, err
        heads.append(re.split(r"\s{2,}", out.splitlines()[0].strip())[1:])
    assert heads[0] == heads[1] == heads[2] == ["slide [1]", "bleu [2]"]


@pytest.mark.parametrize("specs,names,labels", [
    (["slide:w=2", "bleu"], None, ["slide", "bleu"]),
    (["slide:w=2", "slide:w=4"], None, ["slide:w=2", "slide:w=4"]),
    (["cometkiwi", "slide:w=1,s=1"], None, ["cometkiwi", "slide"]),
    (["slide@my-dist:w=2", "bleu"], None, ["slide@my-dist", "bleu"]),
    (["BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0", "chrf"], ["bleu", "chrf"],
     ["bleu", "chrf"]),
])
def test_metric_labels(specs, names, labels):
    assert metric_labels(specs, names) == labels
    assert column(labels[0], 1) == f"{labels[0]} [1]"


# -- acc_eq: an epsilon that ties every pair -------------------------------------------------------------------
def human_tie_share(human):
    """The mean over segments of the share of system pairs the humans tie: what acc_eq is when the metric
    ties every pair (a tied pair is correct exactly when the humans tie it), computed by hand."""
    shares = []
    for row in zip(*human.values()):
        pairs = list(itertools.combinations(row, 2))
        shares.append(sum(a == b for a, b in pairs) / len(pairs))
    return sum(shares) / len(shares)


def test_calibration_that_ties_every_pair_is_said():
    # the humans tie most pairs; where they do not, the metric orders the pair the other way, and its
    # largest difference is between two systems the humans tie: tying every pair is the best epsilon
    human = {"A": [0, 0, 0, -1], "B": [0, -5, 0, 0], "C": [0, 0, 0, 0]}
    metric = {"A": [0, 20, 30, 50], "B": [100, 30, 35, 40], "C": [50, 22, 33, 41]}
    res = ws.acc_eq(metric, human)
    assert res.ties_every_pair and res.metric_ties == res.n_pairs == 12
    assert res.max_difference == res.epsilon == pytest.approx(100.0)
    assert res.accuracy == pytest.approx(human_tie_share(human))
    note = res.ties_note()
    assert "ties every pair (12 pairs" in note and f"acc_eq {res.accuracy:.4f} is then the share" in note
    # a metric that orders pairs well keeps its own epsilon, and no note
    good = ws.acc_eq({"A": [1, 1, 1, 0], "B": [1, 0, 1, 1], "C": [1, 1, 1, 1]}, human)
    assert not good.ties_every_pair and good.ties_note() is None
    assert good.accuracy == pytest.approx(1.0)


def test_acc_eq_note_in_the_table_and_the_json(files, capsys):
    ids = ["d1", "d1", "d2", "d2", "d2", "d3"]
    seg = [1, 2, 1, 2, 3, 1]
    values = {"hyp.txt": [0, 0, 0, 0, -1, 0], "hypB.txt": [0, 0, -5, 0, 0, 0], "hypC.txt": [0, 0, 0, 0, 0, 0]}
    rows = ["system\tdoc_id\tseg_id\tscore"] + [f"{s}\t{d}\t{k}\t{x}" for s, v in values.items()
                                                for d, k, x in zip(ids, seg, v)]
    (files["dir"] / "ties.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (files["dir"] / "hypC.txt").write_text("".join(x + "\n" for x in files["hypB.txt"][::-1]), encoding="utf-8")
    argv = ["-m", "bleu", "-i", "hyp.txt", "hypB.txt", "hypC.txt", "-r", "ref.txt", "--doc-ids", "ids.txt",
            "--human", "ties.tsv", "--seg-level", "-q"]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert re.search(r"\[1\] acc_eq: the calibrated epsilon [\d.]+ ties every pair \(18 pairs", out), out
    code, out, err = run(capsys, *argv + ["-f", "json"])
    got = json.loads(out)[0]
    assert "ties every pair" in got["acc_eq_note"]
    human = {s: [float(x) for x in v] for s, v in values.items()}
    assert got["acc_eq"] == pytest.approx(human_tie_share(human))


# -- a skipped PERM-BOTH test says why ------------------------------------------------------------------------
def test_a_skipped_comparison_says_what_each_metric_scores(tmp_path, capsys):
    from test_mtme import build_tiny

    build_tiny(tmp_path)
    code, out, err = run(capsys, "--mtme", tmp_path, "-t", "toy", "-l", "en-de", "--ref", "refA", "-m", "bleu",
                                  "d-bleu", "slide:w=2,s=1,backbone=toy", "slide:w=3,s=1,backbone=toy", "-q",
                                  "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    skipped = (data[0] if isinstance(data, list) else data)["comparisons"]["spa"]["skipped"]
    text = json.dumps(skipped)
    assert "windows" not in text
    # d-bleu scores one unit per document (2 documents of 3 segments), bleu one unit per segment
    assert skipped["bleu vs d-bleu"] == (
        "no significance test: bleu scores 6 segments, d-bleu scores 2 units of 3 segments each; SPA's "
        "significance test swaps item scores between two metrics and needs the same items")
    pair = [k for k in skipped if "slide:w=2" in k and "slide:w=3" in k]
    assert len(pair) == 1, skipped
    assert "4 units of 2 segments each" in skipped[pair[0]] and "2 units of 3 segments each" in skipped[pair[0]]


def test_a_document_judged_for_some_systems_fails_before_any_scoring(files, capsys):
    """--doc-level: the document gold is built from the human scores before a metric runs (scoring would
    print each system's coverage note first)."""
    ids = ["d1", "d1", "d2", "d2", "d2", "d3"]
    seg = [1, 2, 1, 2, 3, 1]
    rows = ["system\tdoc_id\tseg_id\tscore"]
    for system in ("hyp.txt", "hypB.txt"):
        rows += [f"{system}\t{d}\t{k}\t{0.5}" for d, k in zip(ids, seg) if not (system == "hypB.txt" and d == "d2")]
    (files["dir"] / "partial.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")

    code, out, err = run(capsys, "-m", "bleu", *TWO, "--human", "partial.tsv", "--doc-level")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "partial.tsv: document 'd2' has human scores for 1 of 2 systems (none for 'hypB" in err
