"""The judging commands print exactly what they printed when their goldens were written (issue 38, item 2):
stdout, stderr and the exit status of ~30 commands (text and ``-f json``) on small fixtures built here from
the test modules' own data (test_judging_api's GenMT rows, test_mtme's tiny MTME root, test_span_f1's spans):
``--human``, ``--genmt`` at every level (``--seg-level``, ``--doc-level``, ``--pdp``, ``--level seg|doc``) with
``--error-free``, ``--mtme``, ``metaeval``, ``rank`` with each rule and with ``-m``, ``--spans``, ``sweep``,
``report`` (the page's embedded data) and the paired tests.  chrF and BLEU only: no model, no torch, every
command run in this process (tests/cli_fixtures.run_cli) from inside the fixture folder, so every path printed
is the relative one typed and nothing about the temporary folder needs normalising.

Normalised, and only this: the versions of docmetrics and of the libraries that print theirs (``|v:0.3.0``,
``sacrebleu:2.6.0``, ``p-values by scipy 1.17.1``, JSON's ``"scipy": "1.17.1"``, the sweep's ``"version"``, the
report's ``"docmetrics": "0.3.0"``) read ``*``, so a release or a library upgrade is not a change of output.

Numbers: every other character must be the same, and a number with a decimal point or an exponent equal to
its golden within a relative ``REL_TOL`` = 1e-9 (absolute 1e-12 near 0); integers exactly.  chrF/BLEU are exact
arithmetic and the statistics are seeded, but a float's last digit may still depend on the machine (issue 45:
``pearson_item`` 0.9000345652501404 here, ...403 there, from the order in which a BLAS dot product sums); 1e-9
is far below the 4 digits the text prints and far above those last-bit differences, so a real change of a
statistic still fails.  The statistics sum in a machine-independent order (math.fsum, numpy's pairwise sums)
where they can, so the tolerance is a guard, not a licence.

A deliberate change of output regenerates the goldens, in the commit that makes the change:
``DOCMETRICS_REGEN_GOLDEN=1 pytest tests/test_golden_cli.py`` (then read ``git diff tests/golden/cli``)."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from test_judging_api import ESA, REFS, SYSTEMS, genmt_rows
from test_mtme import build_tiny
from test_span_f1 import PRED, genmt_file, pred_file

GOLDEN = Path(__file__).resolve().parent / "golden" / "cli"
REGEN = os.environ.get("DOCMETRICS_REGEN_GOLDEN") == "1"

_VERSIONS = [
    (re.compile(r"\|v:[0-9][^|\s\"]*"), "|v:*"),
    (re.compile(r"\b(sacrebleu|scipy|numpy|torch|transformers):[0-9][^|\s\"]*"), r"\1:*"),
    (re.compile(r"\bby scipy [0-9][^\s)]*"), "by scipy *"),
    (re.compile(r"(\"(?:docmetrics|version|sacrebleu|scipy|numpy)\": )\"[0-9][^\"]*\""), r'\1"*"'),
]


def normalised(text: str) -> str:
    for pattern, replacement in _VERSIONS:
        text = pattern.sub(replacement, text)
    return text


def write(path: Path, lines: list[str]) -> None:
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """Every input of the commands, under their short names."""
    root = tmp_path_factory.mktemp("golden-cli")
    write(root / "genmt.jsonl", [json.dumps(r, ensure_ascii=False) for r in genmt_rows() + genmt_rows("en-cs_CZ")])
    for name, lines in SYSTEMS.items():
        write(root / f"{name}.txt", lines)
    write(root / "ref.txt", REFS)
    write(root / "src.txt", [f"Quelle Satz {i}." for i in range(8)])
    write(root / "ids.txt", ["d1"] * 4 + ["d2"] * 4)
    write(root / "human.tsv", ["system\tdoc_id\tseg_id\tscore"] + [
        f"{s}.txt\t{'d1' if i < 4 else 'd2'}\t{i % 4 + 1}\t{v}" for s in ESA for i, v in enumerate(ESA[s])])
    write(root / "human_sys.tsv", ["system\tscore"] + [f"{s}.txt\t{sum(v) / len(v)}" for s, v in ESA.items()])
    build_tiny(root / "mtme")
    build_tiny(root / "mtme", lp="zh-en")
    spans = root / "spans"
    spans.mkdir()
    genmt_file(spans)
    pred_file(spans, PRED)
    return root


HYPS = [f"{s}.txt" for s in SYSTEMS]
TEXTS = ["-i", *HYPS, "-r", "ref.txt", "-s", "src.txt", "--doc-ids", "ids.txt"]
GENMT = ["--genmt", "genmt.jsonl", "-l", "en-de"]
MTME = ["--mtme", "mtme", "-t", "toy", "--ref", "refA"]
PAIRED = ["-m", "chrf", "bleu", "-i", "sysA.txt", "sysB.txt", "sysD.txt", "-r", "ref.txt", "--doc-ids", "ids.txt"]
SPANS = ["--genmt", "spans/humeval.jsonl", "--spans", "spans/pred.jsonl"]

#: name -> argv; each is run as typed and, where ``json`` is in its name, with -f json appended by the entry itself
COMMANDS: dict[str, list[str]] = {
    "human-system": ["-m", "chrf", "bleu", *TEXTS, "--human", "human_sys.tsv"],
    "human-segment": ["-m", "chrf", "bleu", *TEXTS, "--human", "human.tsv", "--seg-level"],
    "human-segment-json": ["-m", "chrf", "bleu", *TEXTS, "--human", "human.tsv", "--seg-level", "-f", "json"],
    "human-doc-level": ["-m", "chrf", *TEXTS, "--human", "human.tsv", "--seg-level", "--doc-level", "--pdp"],
    "genmt": [*GENMT, "-m", "chrf", "bleu"],
    "genmt-json": [*GENMT, "-m", "chrf", "bleu", "-f", "json"],
    "genmt-doc-level": [*GENMT, "-m", "chrf", "bleu", "--seg-level", "--doc-level", "--pdp"],
    "genmt-doc-level-json": [*GENMT, "-m", "chrf", "bleu", "--seg-level", "--doc-level", "--pdp", "-f", "json"],
    "genmt-error-free": [*GENMT, "-m", "chrf", "bleu", "--error-free"],
    "genmt-error-free-json": [*GENMT, "-m", "chrf", "bleu", "--error-free", "-f", "json"],
    "genmt-error-free-threshold": [*GENMT, "-m", "chrf", "--error-free", "60", "--doc-level"],
    "genmt-level-seg": [*GENMT, "-m", "chrf", "--level", "seg"],
    "genmt-level-doc": [*GENMT, "-m", "chrf", "--level", "doc"],
    "genmt-domains": [*GENMT, "-m", "chrf", "--domains", "news"],
    "mtme": [*MTME, "-l", "en-de", "-m", "chrf", "bleu", "--resamples", "20"],
    "mtme-json": [*MTME, "-l", "en-de", "-m", "chrf", "bleu", "--resamples", "20", "-f", "json"],
    "metaeval": ["metaeval", *MTME, "-l", "en-de,zh-en", "-m", "chrf", "bleu", "--resamples", "20"],
    "metaeval-json": ["metaeval", *MTME, "-l", "en-de,zh-en", "-m", "chrf", "bleu", "--resamples", "20", "-f", "json"],
    "rank-wmt24": ["rank", *GENMT, "--rule", "wmt24"],
    "rank-wmt25": ["rank", *GENMT, "--rule", "wmt25"],
    "rank-wmt25-json": ["rank", *GENMT, "--rule", "wmt25", "-f", "json"],
    "rank-wmt25-adjacent": ["rank", *GENMT, "--rule", "wmt25-adjacent"],
    "rank-wmt26": ["rank", *GENMT, "--rule", "wmt26"],
    "rank-wmt26-json": ["rank", *GENMT, "--rule", "wmt26", "-f", "json"],
    "rank-metrics": ["rank", "-m", "chrf", "bleu", *GENMT],
    "rank-metrics-json": ["rank", "-m", "chrf", "bleu", *GENMT, "-f", "json"],
    "rank-human-tsv": ["rank", "--human", "human.tsv", "--rule", "wmt24"],
    "spans": SPANS,
    "spans-json": [*SPANS, "-f", "json"],
    "sweep": ["sweep", "-m", "chrf", "--grid", "char_order=4..6", *TEXTS, "--human", "human_sys.tsv"],
    "sweep-json": ["sweep", "-m", "chrf", "--grid", "char_order=4..6", *TEXTS, "--human", "human_sys.tsv",
                   "-f", "json"],
    "paired-bs": [*PAIRED, "--paired-bs", "--paired-bs-n", "200"],
    "paired-bs-json": [*PAIRED, "--paired-bs", "--paired-bs-n", "200", "-f", "json"],
    "paired-ar": [*PAIRED, "--paired-ar", "--paired-ar-n", "200"],
    "paired-ar-json": [*PAIRED, "--paired-ar", "--paired-ar-n", "200", "-f", "json"],
    "ci": [*PAIRED, "--ci", "--ci-n", "200"],
}


def printed(code: object, out: str, err: str) -> str:
    return f"exit status: {code}\n--- stdout\n{out}--- stderr\n{err}"


def check(name: str, produced: str) -> None:
    produced = normalised(produced)
    path = GOLDEN / f"{name}.txt"
    if REGEN:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(produced, encoding="utf-8")
        return
    assert path.exists(), f"{path} missing: DOCMETRICS_REGEN_GOLDEN=1 pytest tests/test_golden_cli.py"
    golden = path.read_text(encoding="utf-8")
    if produced == golden:
        return
    assert not differences(produced, golden), (f"{name}: the output changed (a deliberate change: "
                                               f"DOCMETRICS_REGEN_GOLDEN=1): {differences(produced, golden)[:5]}")


#: a golden's floats agree to this relative tolerance (module docstring); ABS_TOL near zero
REL_TOL = 1e-9
ABS_TOL = 1e-12
_FLOAT = re.compile(r"(?<![\w.])-?(?:\d+\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)(?![\w.])")


def differences(produced: str, golden: str) -> list[str]:
    """What differs between two outputs beyond ``REL_TOL`` on floats: the text between the floats must be the
    same, each float within the tolerance of its golden (empty: the same output)."""
    p_text, g_text = _FLOAT.split(produced), _FLOAT.split(golden)
    if p_text != g_text:
        at = next((i for i, (a, b) in enumerate(zip(produced, golden)) if a != b), min(len(produced), len(golden)))
        return [f"text differs at character {at}: {produced[max(0, at - 40):at + 40]!r} != "
                f"{golden[max(0, at - 40):at + 40]!r}"]
    return [f"{a} != {b}" for a, b in zip(_FLOAT.findall(produced), _FLOAT.findall(golden))
            if not math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=ABS_TOL)]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_command_prints_its_golden(folder, monkeypatch, capsys, name):
    monkeypatch.chdir(folder)
    check(name, printed(*run_cli(capsys, *COMMANDS[name])))


def embedded(page: Path) -> str:
    if not page.exists():
        return "(no page)\n"
    m = re.search(r'<script type="application/json" id="docmetrics-data">(.*?)</script>',
                  page.read_text(encoding="utf-8"), re.S)
    assert m, f"{page}: no embedded data"
    return json.dumps(json.loads(m.group(1)), indent=1, ensure_ascii=False, sort_keys=True) + "\n"


@pytest.mark.parametrize("name,argv", [
    ("report-genmt", [*GENMT, "-m", "chrf", "bleu", "--error-free", "-f", "json", "-o", "out.json",
                      "--report", "page.html"]),
    ("report-paired", [*PAIRED, "--paired-bs", "--paired-bs-n", "200", "-f", "json", "-o", "out.json",
                       "--report", "page.html"]),
    ("report-mtme", [*MTME, "-l", "en-de", "-m", "chrf", "--resamples", "20", "-f", "json", "-o", "out.json",
                     "--report", "page.html"]),
    ("report-spans", [*SPANS, "-f", "json", "-o", "out.json", "--report", "page.html"]),
])
def test_the_report_embeds_its_golden_data(folder, monkeypatch, capsys, name, argv):
    """The page a command writes (its embedded data: no timestamp is in it), then the page ``docmetrics report``
    rebuilds from the saved JSON (``report`` does not read ``--spans -f json`` today: pinned as it is)."""
    monkeypatch.chdir(folder)
    for left in ("out.json", "page.html", "again.html"):
        (folder / left).unlink(missing_ok=True)
    code, out, err = run_cli(capsys, *argv)
    produced = printed(code, out, err) + "--- page\n" + embedded(folder / "page.html")
    code, out, err = run_cli(capsys, "report", "out.json", "-o", "again.html")
    check(name, produced + printed(code, out, err) + "--- page\n" + embedded(folder / "again.html"))


def golden_stdout(name: str) -> str:
    text = (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")
    return text.split("--- stdout\n", 1)[1].split("--- stderr\n", 1)[0]


@pytest.mark.parametrize("name,levels,human", [
    ("genmt", None, None),
    ("human-system", None, "human_sys.tsv"),
    ("human-segment", ("system", "segment"), "human.tsv"),
    ("human-doc-level", ("system", "segment", "document"), "human.tsv"),
])
def test_the_library_prints_what_the_command_prints(folder, monkeypatch, name, levels, human):
    """``MetaEvaluation.to_text()`` (issue 38, item 2) is the command's stdout, golden and all."""
    import docmetrics

    monkeypatch.chdir(folder)
    if human is None:
        data = docmetrics.read_human("genmt.jsonl", lp="en-de")
        testset = data.testset
    else:
        data = docmetrics.read_human(human)
        testset = docmetrics.read_testset(HYPS, "src.txt", "ref.txt", "ids.txt")
    specs = COMMANDS[name][COMMANDS[name].index("-m") + 1:]
    specs = specs[:next((i for i, a in enumerate(specs) if a.startswith("-")), len(specs))]
    results = {spec: docmetrics.load(spec).compute(testset) for spec in specs}
    ev = docmetrics.meta_evaluate(results, data, testset=testset, levels=levels)
    assert normalised(ev.to_text()) == golden_stdout(name)
