"""Bad input, one row per case: exit status 2, one message naming the culprit, no traceback, and
no model loaded: every row runs with a toy backbone that fails if it is asked to load or to score."""

from __future__ import annotations

import re

import pytest
from plugin_fixtures import toy_dist  # noqa: F401

import docmetrics
from docmetrics.cli import main
from docmetrics.values.errors import SpecError

pytestmark = pytest.mark.usefixtures("toy_dist")

SPEC = "slide:w=2,s=1,backbone=toy"


@pytest.fixture()
def files(tmp_path):
    out = {}
    for name, text in {
        "h.txt": "a b\nc d\ne f\n",
        "s.txt": "x y\nz w\nv u\n",
        "ids.txt": "d1\nd1\nd2\n",
        "null.jsonl": '{"doc_id": "d", "src": "a", "mt": "ok"}\n{"doc_id": "d", "src": "b", "mt": null}\n',
        "true.jsonl": '{"doc_id": "d", "src": "a", "mt": true}\n',
        "number.jsonl": '{"doc_id": "d", "src": 3, "mt": "x"}\n',
        "dup.jsonl": '{"doc_id": "d", "src": "a", "mt": "x", "mt": "y"}\n',
        "human.tsv": "system\tscore\nh.txt\t1.5\n",
        "human-no-score.tsv": "system\tfluency\nh.txt\t1.5\n",
        "human-bad-number.tsv": "system\tscore\nh.txt\tgood\n",
        "bigid.txt": "d1\n" + "x" * 1_000_000 + " \nd2\n",
        "blank.jsonl": '{"doc_id": "d1", "src": "a", "mt": "x"}\n\n\n{"doc_id": "d2 ", "src": "b", "mt": "y"}\n',
    }.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        out[name] = str(tmp_path / name)
    out["dir"] = str(tmp_path)
    return out


@pytest.fixture(autouse=True)
def no_model(toy_dist, monkeypatch):
    """The toy backbone fails the test if a row reaches its model (load or score)."""
    from docmetrics_toy import ToyBackbone

    def loaded(*args, **kwargs):
        raise AssertionError("a model was loaded before the bad input was refused")

    monkeypatch.setattr(ToyBackbone, "load", loaded)
    monkeypatch.setattr(ToyBackbone, "score", loaded)


ROWS = [
    # (id, argv with {file} placeholders, what the message must name)
    ("width-negative", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "-w", "-1"], "-w -1"),
    ("width-text", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "-w", "x"], "-w takes a whole number"),
    ("jsonl-mt-null", ["-m", SPEC, "-i", "{null.jsonl}"],
     "null.jsonl, line 2, field mt: null is not a string; every line needs the system output"),
    ("jsonl-mt-true", ["-m", SPEC, "-i", "{true.jsonl}"], "true.jsonl, line 1, field mt: true is not a string"),
    ("jsonl-src-number", ["-m", SPEC, "-i", "{number.jsonl}"], "number.jsonl, line 1, field src: 3 is not a string"),
    ("jsonl-duplicate-key", ["-m", SPEC, "-i", "{dup.jsonl}"], "dup.jsonl, line 1, field mt: given twice in the object"),
    ("paired-bs-n-huge", ["-m", SPEC, "-i", "{h.txt}", "{h.txt}", "-s", "{s.txt}", "--doc-ids", "{ids.txt}",
                          "--paired-bs", "--paired-bs-n", "10000000000"], "--paired-bs-n must be from 1 to 1000000"),
    ("paired-ar-n-zero", ["-m", SPEC, "-i", "{h.txt}", "{h.txt}", "-s", "{s.txt}", "--doc-ids", "{ids.txt}",
                          "--paired-ar", "--paired-ar-n", "0"], "--paired-ar-n must be from 1 to"),
    # everything the run will read or write, and every number, is checked before a model loads
    ("human-missing", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--human", "{dir}/nope.tsv"],
     "nope.tsv: no such file"),
    ("human-no-score-column", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--human", "{human-no-score.tsv}"],
     "human-no-score.tsv: which column holds the human score?"),
    ("human-column-absent", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--human", "{human.tsv}",
                             "--human-column", "mqm"], "human.tsv: no column 'mqm'"),
    ("human-not-a-number", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--human", "{human-bad-number.tsv}"],
     "human-bad-number.tsv, line 2"),
    ("output-under-a-file", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "-o", "{h.txt}/out.tsv"],
     "h.txt is a file, not a directory"),
    ("output-missing-directory", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "-o", "{dir}/nope/out.tsv"],
     "-o {dir}/nope/out.tsv: no such directory {dir}/nope"),
    ("output-is-a-directory", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "-o", "{dir}"], "is a directory"),
    ("output-is-an-input", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "-o", "{s.txt}"],
     "-o {s.txt}: is the file -s names ({s.txt}), which this command reads; it would be written over"),
    # issue 37: one check for every output path (--report wrote its page over the hypotheses, exit 0)
    ("report-is-the-hypothesis", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--report", "{h.txt}"],
     "--report {h.txt}: is the file -i names ({h.txt}), which this command reads; it would be written over: give "
     "--report another file name"),
    ("report-is-the-doc-ids", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--doc-ids", "{ids.txt}", "--report",
                               "{ids.txt}"], "--report {ids.txt}: is the file --doc-ids names"),
    ("report-is-the-human-file", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--human", "{human.tsv}", "--report",
                                  "{human.tsv}"], "--report {human.tsv}: is the file --human names"),
    ("report-is-the-output", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "-o", "{dir}/x.tsv", "--report",
                              "{dir}/x.tsv"], "--report {dir}/x.tsv: is the file -o names ({dir}/x.tsv), which this "
                                              "command also writes"),
    ("report-is-a-scores-file", ["--scores", "{human.tsv}", "--report", "{human.tsv}"],
     "--report {human.tsv}: is the file --scores names"),
    ("dump-alignment-missing-directory", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--dump-alignment",
                                          "{dir}/nope/align.jsonl"], "--dump-alignment {dir}/nope/align.jsonl: no such"),
    ("dump-alignment-is-the-output", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "-o", "{dir}/x.tsv",
                                      "--dump-alignment", "{dir}/x.tsv"], "--dump-alignment {dir}/x.tsv: is the file -o names"),
    ("ci-n-zero", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--ci", "--ci-n", "0"],
     "--ci-n must be from 1 to 1000000"),
    ("ci-level-percent", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--ci", "--ci-level", "95"],
     "--ci-level must be between 0 and 1 (e.g. 0.95), not 95"),
    ("ci-n-without-ci", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--ci-n", "50"], "--ci-n sets up --ci"),
    ("ci-with-paired-test", ["-m", SPEC, "-i", "{h.txt}", "{h.txt}", "-s", "{s.txt}", "--ci", "--paired-bs"],
     "--ci with --paired-bs"),
    ("level-json-with-paired-test-no-output", ["-m", SPEC, "-i", "{h.txt}", "{h.txt}", "-s", "{s.txt}", "--doc-ids",
                                               "{ids.txt}", "--paired-ar", "--level", "doc", "-f", "json"],
     "write the table with -o FILE"),
    # issue 37: a huge doc id is quoted in part, with its length (before: 1 MB on stderr); JSONL's line is the
    # file's (before: the object's number, blank lines not counted)
    ("doc-id-huge", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "--doc-ids", "{bigid.txt}"],
     "{bigid.txt}, line 2: the doc id '" + "x" * 80 + "'… (1,000,001 characters) has leading or trailing whitespace"),
    ("jsonl-doc-id-line-after-blank-lines", ["-m", SPEC, "-i", "{blank.jsonl}"],
     "{blank.jsonl} (doc_id), line 4: the doc id 'd2 ' has leading or trailing whitespace"),
    # issue 37: --baseline NAME, checked before any model loads
    ("baseline-unknown", ["-m", SPEC, "-i", "{h.txt}", "{s.txt}", "-s", "{s.txt}", "--doc-ids", "{ids.txt}",
                          "--paired-bs", "--baseline", "nope.txt"],
     "--baseline nope.txt: no system has that name; the systems are h.txt, s.txt"),
    ("baseline-without-a-test", ["-m", SPEC, "-i", "{h.txt}", "{s.txt}", "-s", "{s.txt}", "--baseline", "{h.txt}"],
     "--baseline {h.txt} names the baseline of a paired test: add --paired-bs or --paired-ar"),
    # issue 45: a signature's plugins field (the third-party distributions that computed it)
    ("signature-plugins-not-dist-at-version", ["-m", "slide|w:2|s:1|partial:drop|backbone:toy|plugins:docmetrics-toy|"
                                               "v:0.3.0", "-i", "{h.txt}", "-s", "{s.txt}"],
     "signature field plugins: 'docmetrics-toy' is not DISTRIBUTION@VERSION (e.g. plugins:my-dist@1.0"),
    ("signature-plugins-not-installed", ["-m", "slide|w:2|s:1|partial:drop|backbone:ghost|plugins:ghost-dist@1.0|"
                                         "v:0.3.0", "-i", "{h.txt}", "-s", "{s.txt}"],
     "the signature's field plugins names ghost-dist 1.0, which is not installed: pip install 'ghost-dist==1.0'"),
]


def run(args):
    """``main(args)``'s exit status, whether it returns it or argparse raises SystemExit."""
    try:
        return main(args)
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize("argv,culprit", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_bad_input_exits_2_naming_the_culprit(argv, culprit, files, capsys):
    def fill(text):
        return re.sub(r"\{([^{}]+)\}", lambda m: files[m.group(1)], text)

    code = run([fill(a) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert fill(culprit) in err and "Traceback" not in err and err.count("\n") == 1
    assert len(err) < 2000  # one pointed line: no value from the input echoed whole


@pytest.mark.parametrize("spec", [None, 3, ["slide"]], ids=["none", "int", "list"])
def test_the_api_refuses_a_spec_that_is_not_text(spec):
    with pytest.raises(SpecError, match="give a metric spec as a string"):
        docmetrics.load(spec)  # type: ignore[arg-type]
