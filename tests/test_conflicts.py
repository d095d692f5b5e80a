"""The options-conflict tables of the command line (docmetrics.commands.conflicts): every row names an option of
``docmetrics`` by its attribute and as it is written, and a table tells its first given option in its form."""

from __future__ import annotations

import argparse

import pytest

from docmetrics.cli.args import typed
from docmetrics.cli.parser import build_parser
from docmetrics.commands import genmt, human, mtme, stored, wmt25, wmt26
from docmetrics.commands.conflicts import CANNOT, NEEDS, Conflicts, Option
from docmetrics.commands.options import flag_of
from docmetrics.values.errors import UserError

#: attributes an action sets beside its dest (-r/--reference's References: the first file in ``reference``)
ALSO_SET = {"reference": "references"}
TABLES = {
    "mtme.MTME_ONLY": mtme.MTME_ONLY, "mtme.REPLACED": mtme.REPLACED,
    "genmt.INPUTS": genmt.INPUTS, "genmt.REFUSED": genmt.REFUSED, "genmt.GENMT_ONLY": genmt.GENMT_ONLY,
    "wmt25.INPUTS": wmt25.INPUTS, "wmt25.REFUSED": wmt25.REFUSED, "wmt25.WMT25_ONLY": wmt25.WMT25_ONLY,
    "stored.STORED_ONLY": stored.STORED_ONLY, "stored.FILES_NEEDED": stored.FILES_NEEDED,
    "stored.WITHOUT_OUTPUTS": stored.WITHOUT_OUTPUTS, "stored.IN_MTME": stored.IN_MTME,
    "human.HUMAN_ONLY": human.HUMAN_ONLY, "human.PAIRED": human.PAIRED, "human.REFUSED": human.REFUSED,
    "wmt26.INPUTS": wmt26.INPUTS, "wmt26.WMT26_ONLY": wmt26.WMT26_ONLY,
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
