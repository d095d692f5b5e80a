"""Python = shell for the main command's score tables (issue 46): what ``docmetrics -m ... -i ...`` prints on stdout
(the system scores as text, ``-b``, ``-f json``, the ``--level doc|chunk|seg`` TSV, with ``--ci``, ``-sh``, ``-w``) is
what :class:`docmetrics.judging.Scores` of the same results writes, byte for byte, on the shipped quickstart data
(three documents, two systems: ``docmetrics/data/quickstart``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from plugin_fixtures import toy_dist  # noqa: F401

import docmetrics
from docmetrics.judging import Scores

QUICKSTART = Path(__file__).resolve().parents[1] / "docmetrics" / "data" / "quickstart"
SYSTEMS = [str(QUICKSTART / f"sys{s}.txt") for s in "AB"]
FILES = ["-r", str(QUICKSTART / "ref.txt"), "-s", str(QUICKSTART / "src.txt"), "--doc-ids",
         str(QUICKSTART / "docids.txt")]
SPECS = ["chrf", "bleu"]


def scores(systems: list[str], ci: bool = False) -> Scores:
    """The Python call: the quickstart's test set, chrF and BLEU, and each system's interval where asked."""
    testset = docmetrics.read_testset(systems, FILES[3], FILES[1], FILES[5])
    results = [(spec, docmetrics.load(spec).compute(testset)) for spec in SPECS]
    intervals = [docmetrics.confidence_intervals(rs, n=50) for _, rs in results] if ci else None
    return Scores(results, testset, intervals)


def shell(capsys: pytest.CaptureFixture[str], systems: list[str], *options: str) -> str:
    code, out, err = run_cli(capsys, "-m", *SPECS, "-i", *systems, *FILES, *options)
    assert code == 0, err
    return out


#: name -> (systems, the command's options, with --ci, the Python call on the Scores)
ROWS = {
    "table": (SYSTEMS, [], False, lambda s: s.to_text()),
    "one-system": (SYSTEMS[:1], [], False, lambda s: s.to_text()),
    "score-only": (SYSTEMS, ["-b"], False, lambda s: s.to_text(score_only=True)),
    "score-only-one-system": (SYSTEMS[:1], ["-b"], False, lambda s: s.to_text(score_only=True)),
    "short-width": (SYSTEMS, ["-sh", "-w", "2"], False, lambda s: s.to_text(short=True, width=2)),
    "json": (SYSTEMS, ["-f", "json"], False, lambda s: json.dumps(s.to_dict(), indent=1, ensure_ascii=False) + "\n"),
    "ci": (SYSTEMS, ["--ci", "--ci-n", "50"], True, lambda s: s.to_text()),
    "ci-one-system": (SYSTEMS[:1], ["--ci", "--ci-n", "50", "-w", "3"], True, lambda s: s.to_text(width=3)),
    "ci-json": (SYSTEMS, ["--ci", "--ci-n", "50", "-f", "json"], True,
                lambda s: json.dumps(s.to_dict(), indent=1, ensure_ascii=False) + "\n"),
    "level-doc": (SYSTEMS, ["--level", "doc"], False, lambda s: s.to_tsv("doc")),
    "level-chunk": (SYSTEMS, ["--level", "chunk"], False, lambda s: s.to_tsv("chunk")),
    "level-seg": (SYSTEMS, ["--level", "seg"], False, lambda s: s.to_tsv("seg")),
    "level-seg-width": (SYSTEMS, ["--level", "seg", "-w", "3"], False, lambda s: s.to_tsv("seg", width=3)),
    "level-chunk-json": (SYSTEMS, ["--level", "chunk", "-f", "json", "-sh"], False,
                         lambda s: json.dumps(s.to_dict("chunk", short=True), indent=1, ensure_ascii=False) + "\n"),
}


@pytest.mark.parametrize("name", list(ROWS))
def test_the_command_prints_what_scores_writes(capsys, name):
    systems, options, ci, call = ROWS[name]
    assert shell(capsys, systems, *options) == call(scores(systems, ci))


def test_the_level_tables_score_text_is_the_table_with_the_unit_signatures(capsys, tmp_path):
    """With -o FILE the TSV goes to the file and the system scores (BLEU's segment-score signature under
    them at --level seg) to stdout: ``to_text(level="seg")``."""
    out = shell(capsys, SYSTEMS, "--level", "seg", "-o", str(tmp_path / "seg.tsv"))
    s = scores(SYSTEMS)
    assert out == s.to_text(level="seg") and "[2] segment scores: bleu|" in out
    assert (tmp_path / "seg.tsv").read_text(encoding="utf-8") == s.to_tsv("seg")


def test_a_mapping_of_results_and_bad_levels():
    s = scores(SYSTEMS[:1])
    assert Scores(dict(s.metrics), s.testset).to_text() == s.to_text()
    with pytest.raises(docmetrics.SpecError, match="level='system': the system scores are to_text's"):
        s.to_tsv("system")
    with pytest.raises(docmetrics.SpecError, match="level='segment': one of system, doc, chunk, seg"):
        s.to_dict("segment")


def test_windows_have_no_segment_table(toy_dist, capsys):
    """A metric scoring windows of two segments: its chunk TSV has a row per window (first and last line), and
    level seg is refused, from Python as ``level=seg`` and from the command as ``--level seg``."""
    spec = "slide:w=2,s=1,backbone=toy"
    testset = docmetrics.read_testset(SYSTEMS, FILES[3], FILES[1], FILES[5])
    s = Scores([(spec, docmetrics.load(spec).compute(testset))], testset)
    rows = [line.split("\t") for line in s.to_tsv("chunk").splitlines()]
    assert rows[0] == list(Scores.COLUMNS["chunk"]) and len(rows) == 1 + 2 * (3 + 4 + 3)  # windows per document
    assert rows[1][3:7] == ["weather", "1", "1", "2"] and rows[4][3:7] == ["museum", "1", "5", "6"]
    with pytest.raises(docmetrics.SpecError, match=f"level=seg: {spec} scores units of several segments"):
        s.to_tsv("seg")
    code, out, err = run_cli(capsys, "-m", spec, "-i", *SYSTEMS, *FILES, "--level", "seg")
    assert code == 2 and f"--level seg: {spec} scores units of several segments" in err and "--level chunk" in err
    code, out, err = run_cli(capsys, "-m", spec, "-i", *SYSTEMS, *FILES, "--level", "chunk")
    assert code == 0 and out == s.to_tsv("chunk"), err
