"""The WMT26 General MT release on the command line: ``--wmt26 TESTFILE --wmt26-systems DIR|FILE...``
scores one language pair's systems document by document (:mod:`docmetrics.formats.wmt26`): a document is
one segment per paragraph where every text has the source's paragraph count, else one segment (use
``asd:unit=segment`` to realign it), and a note says which documents are held whole and why."""

from __future__ import annotations

import contextlib
from typing import Any, Sequence

from ..judging import human_format
from ..values.errors import UserError
from .common import naming_the_reference
from .conflicts import NEEDS_FOR, Conflicts, Option, Source, replaced_by
from .options import Options

__all__ = ["WMT26", "references_from_release", "check_args", "check_systems_given", "check_no_reference_files"]

#: --wmt26: the usual input's files it replaces, the options that only mean something with it.
WMT26 = Source("wmt26", replaced_by("--wmt26", "the sources, outputs, references and documents",
                                    ("genmt", "mtme", "human", "wmt25_tsv"),
                                    {"references": " and name one of the test file's references with --wmt26-ref "
                                                   "NAME (e.g. --wmt26-ref refA)"}),
               Conflicts("--wmt26 TESTFILE", NEEDS_FOR, (
                   Option("wmt26_systems", "--wmt26-systems", "names the system files"),
                   Option("wmt26_ref", "--wmt26-ref", "names references of the test file"),
                   Option("wmt26_source", "--wmt26-source", "picks the test file's source field",
                          default=human_format("wmt26").defaults["source"]))))


def references_from_release(opts: Any, pairs: Sequence[Any] = ()) -> contextlib.AbstractContextManager[None]:
    """A metric that needs a reference where no --wmt26-ref is given: its error names --wmt26-ref and the
    test file's references (those of ``pairs``, the EvalSets' ``raw``; not -r, which --wmt26 refuses)."""
    if not opts.wmt26 or opts.wmt26_ref:
        return contextlib.nullcontext()
    names = list(dict.fromkeys(n for p in pairs for n in p.reference_names))
    there = f"its references: {', '.join(names) or 'none'}" if pairs else "e.g. --wmt26-ref refA"
    return naming_the_reference(f"--wmt26 takes it from {opts.wmt26}", "--wmt26-ref", there)


def check_args(opts: Options) -> None:
    """The option combinations, before anything is read."""
    if WMT26.check(opts):
        check_systems_given(opts)


def check_no_reference_files(opts: Any) -> None:
    """-r with --wmt26 (rank's check; the main command's is :data:`WMT26`): the release's references are
    named with --wmt26-ref."""
    if opts.wmt26:
        rows = WMT26.replaces.rows
        WMT26.replaces.without(*(row.attr for row in rows if row.attr != "references")).check(opts, file=opts.wmt26)


def check_systems_given(opts: Options) -> None:
    """--wmt26 needs --wmt26-systems (the main command's and rank's check)."""
    if not opts.wmt26_systems:
        raise UserError(f"--wmt26 {opts.wmt26}: give the system files with --wmt26-systems DIR (data/systems) or "
                        "NAME.jsonl...")
