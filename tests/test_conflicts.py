"""The options-conflict tables of the command line (docmetrics.commands.conflicts): every row names an option of
``docmetrics`` by its attribute and as it is written, and a table tells its first given option in its form."""

from __future__ import annotations

import argparse

import pytest

from docmetrics.cli.args import typed
from docmetrics.cli.parser import build_parser
from docmetrics.commands import genmt, human, mtme, spans, wmt25, wmt26
from docmetrics.commands.conflicts import CANNOT, NEEDS, Conflicts, Option
from docmetrics.commands.options import flag_of
from docmetrics.values.errors import UserError

#: attributes an action sets beside its dest (-r/--reference's References: the first file in ``reference``)
ALSO_SET = {"reference": "references"}
TABLES = {
    **{f"{source.attr}.{part}": getattr(source, part) for source in (mtme.MTME, genmt.GENMT, wmt25.WMT25, wmt26.WMT26)
       for part in ("replaces", "needs", "refuses")},
    "spans.NOT_WITH": spans.NOT_WITH,
    "human.HUMAN_ONLY": human.HUMAN_ONLY, "human.PAIRED": human.PAIRED, "human.REFUSED": human.REFUSED,
}


@pytest.mark.parametrize("name", TABLES)
def test_every_row_is_an_option_of_docmetrics_as_written(name):
    parser = build_parser()
    flags = {s: a.dest for a in parser._actions for s in a.option_strings}
    opts = typed(parser, parser.parse_args([]))
    for row in TABLES[name].rows:
        for flag in (row.flag or flag_of(opts, row.attr)).split("/"):
            assert flags.get(flag) == ALSO_SET.get(row.attr, row.attr), (name, row)
        assert parser.get_default(ALSO_SET.get(row.attr, row.attr)) in (None, False, [], row.default), (name, row)


def test_the_first_given_option_is_told_in_the_tables_form():
    table = Conflicts("--src", CANNOT, (Option("a", "-a", "do x"), Option("b", "--b", "do y", default="d")))
    table.check(argparse.Namespace(a=None, b="d"))  # nothing given: a default is not given
    with pytest.raises(UserError, match="^--b cannot be combined with --src: do y$"):
        table.check(argparse.Namespace(a=[], b="e"))
    with pytest.raises(UserError, match="^-a cannot be combined with --src: do x$"):
        table.check(argparse.Namespace(a=["f"], b="e"))
    needs = Conflicts("--src FILE", NEEDS, table.rows).without("a")
    with pytest.raises(UserError, match="^--b needs --src FILE$"):
        needs.check(argparse.Namespace(a=["f"], b="e"))


def test_a_data_source_is_checked_by_its_one_description():
    """:class:`Source`: with its file, what it replaces (told with the file) or refuses; without it, what needs it."""
    from docmetrics.commands.conflicts import WITH, Source

    source = Source("src", Conflicts("--src", "{option}: {file}", (Option("a", "-a"),)),
                    Conflicts("--src FILE", NEEDS, (Option("n", "--n"),)),
                    Conflicts("--src", WITH, (Option("r", "--r", "drop it"),)))
    assert source.check(argparse.Namespace(src=None, a=["x"], r=True, n=None)) is False  # theirs without it
    with pytest.raises(UserError, match="^--n needs --src FILE$"):
        source.check(argparse.Namespace(src=None, a=None, r=None, n="y"))
    with pytest.raises(UserError, match="^-a: f.txt$"):
        source.check(argparse.Namespace(src="f.txt", a=["x"], r=True, n="y"))
    with pytest.raises(UserError, match="^--r with --src: drop it$"):
        source.check(argparse.Namespace(src="f.txt", a=None, r=True, n=None))
    assert source.check(argparse.Namespace(src="f.txt", a=None, r=None, n="y")) is True
