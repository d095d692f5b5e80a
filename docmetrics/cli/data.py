"""``--data PATH`` (with ``--data-format NAME`` and ``--data-option KEY=VALUE``): judged data in any format of the
human-data registry (:mod:`docmetrics.judging.formats`, entry-point group ``docmetrics.human_formats``), read by
:func:`docmetrics.read_human`; what the commands do with it is :mod:`docmetrics.commands.data`."""

from __future__ import annotations

import argparse

ALIASES = "--genmt, --mtme, --wmt25-tsv, --wmt26 and --human"


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(f"judged data in any registered format (read by docmetrics.read_human; {ALIASES} are "
                             "aliases for their formats)")
    g.add_argument("--data", metavar="PATH",
                   help="judged data: a file or directory of any human-data format, recognised from the file "
                        "(docmetrics --list names the formats, plugins' included)")
    g.add_argument("--data-format", metavar="NAME", help="with --data: its format, by name (default: recognised)")
    g.add_argument("--data-option", nargs="+", action="extend", metavar="KEY=VALUE",
                   help="with --data: an option of its format (e.g. column=mqm, testset=wmt24); repeat the key for "
                        "a list; a number is passed as a number, true/false as a bool")
