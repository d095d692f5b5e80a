"""``docmetrics --data PATH`` is its aliases' one path (issue 46, item 2): the main command runs ``--data`` in
``commands/run.judged_run`` as it runs ``--genmt``, ``--wmt25-tsv`` and ``--wmt26``, so ``--data`` gets what they get
(the --level tables, paired tests, --spans where the format has spans, --report).  Each golden command of the main
command on GenMT data, typed with ``--data`` instead of ``--genmt``, prints the golden's stdout; ``--data`` on a
format whose reader the aliases do not name (WMT26's cESA) gets the --level tables too; ``docmetrics report
--data`` goes through ``commands/report.run`` (``commands/data`` keeps no run of its own)."""

from __future__ import annotations

import json

import pytest
from cli_fixtures import run_cli
from test_formats_cesa import DATA, TEST_FILE, cesa  # noqa: F401  (the cESA fixture and the shipped release)
from test_golden_cli import COMMANDS, GOLDEN, differences, folder, normalised, printed  # noqa: F401

from docmetrics.commands import data as data_cmd

#: The main command's golden runs on GenMT data whose options --data takes (--domains, --error-free and
#: --include-human are --genmt's own: with --data they are refused, a --data-option of the format instead).
AS_DATA = [name for name, argv in COMMANDS.items() if "--genmt" in argv and argv[0] != "rank"
           and not {"--domains", "--error-free", "--include-human"} & set(argv)]


def stdout_of(text: str) -> str:
    return text.split("--- stdout\n", 1)[1].split("--- stderr\n", 1)[0]


def test_the_alias_commands_are_covered():
    assert {"genmt", "genmt-json", "genmt-level-seg", "genmt-level-doc", "spans", "spans-json"} <= set(AS_DATA)


@pytest.mark.parametrize("name", AS_DATA)
def test_data_prints_what_the_genmt_alias_prints(folder, monkeypatch, capsys, name):  # noqa: F811
    monkeypatch.chdir(folder)
    argv = ["--data" if a == "--genmt" else a for a in COMMANDS[name]]
    code, out, err = run_cli(capsys, *argv)
    produced = normalised(printed(code, out, err))
    golden = (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")
    assert code == 0, err
    assert not differences(stdout_of(produced), stdout_of(golden)), differences(stdout_of(produced), stdout_of(golden))


def test_data_takes_the_paired_test_and_the_level_tables_as_its_alias_does(folder, monkeypatch, capsys):  # noqa
    """The same code, stdout and message as the alias (a paired test on GenMT data is refused by both alike)."""
    monkeypatch.chdir(folder)
    for extra in (["--paired-bs", "--paired-bs-n", "50", "-f", "json"], ["--level", "seg", "-o", "seg.txt"],
                  ["--level", "doc", "-f", "json", "-o", "doc.json"]):
        code, out, err = run_cli(capsys, "-m", "chrf", "bleu", "--data", "genmt.jsonl", "-l", "en-de", *extra)
        table = (folder / extra[-1]).read_text(encoding="utf-8") if "-o" in extra else None
        alias = run_cli(capsys, "-m", "chrf", "bleu", "--genmt", "genmt.jsonl", "-l", "en-de", *extra)
        assert (code, out) == alias[:2], err
        assert "Traceback" not in err and err.count("error:") == alias[2].count("error:")
        if table is not None:
            assert code == 0 and table == (folder / extra[-1]).read_text(encoding="utf-8") and "sysA" in table


def test_data_of_a_format_no_alias_reads_gets_the_level_tables(cesa, capsys):  # noqa: F811
    """WMT26's cESA through --data: system scores only, so the system level alone is judged, and --level doc
    prints each document's scores (the tables the aliases print)."""
    texts = ["--data-option", f"test_file={TEST_FILE}", "--data-option", f"systems={DATA / 'systems'}",
             "--data-option", "references=refA"]
    code, out, err = run_cli(capsys, "-m", "chrf", "--data", cesa, "-l", "en-de", *texts, "-f", "json")
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["n_systems"] == 6 and row.get("seg_kendall") is None  # no segment scores: the system level only
    code, out, err = run_cli(capsys, "-m", "chrf", "--data", cesa, "-l", "en-de", *texts, "--level", "doc", "-o",
                             cesa.with_suffix(".txt"))
    assert code == 0, err
    table = cesa.with_suffix(".txt").read_text(encoding="utf-8")
    assert "Facebook-AI" in table and table.count("\n") > 6  # a row per (system, document)


def test_data_refuses_an_aliases_own_option_and_spans_without_gold(folder, monkeypatch, capsys):  # noqa: F811
    monkeypatch.chdir(folder)
    code, _, err = run_cli(capsys, "-m", "chrf", "--data", "genmt.jsonl", "-l", "en-de", "--domains", "news")
    assert code == 2 and "--data does not take --domains" in err
    code, _, err = run_cli(capsys, "--data", "human.tsv", "--spans", "spans/pred.jsonl")
    assert code == 2 and "no human error spans" in err and "Traceback" not in err


def test_commands_data_keeps_no_run_of_its_own_for_the_main_command_and_report():
    assert not hasattr(data_cmd, "run_main") and not hasattr(data_cmd, "run_report")
