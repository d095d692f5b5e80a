"""The ``docmetrics`` command: a thin layer over the library API.  Its entry point: subcommands and tool
plugins by name, else the options (:mod:`.parser`) and a run (:mod:`.run`).

``--help``, ``--list`` and ``--version`` import no plugin and no torch.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shlex
import sys
from typing import Any, Sequence

from ..commands.common import cache_file
from ..commands.run import run
from ..values.errors import UserError
from .args import typed
from .errors import guarded
from .habits import parse_args, reference_advice
from .parser import build_parser

#: Subcommands built in: ``docmetrics sweep ...``, each the ``main(argv)`` of its module (or ``MODULE:FUNCTION``);
#: tools (``docmetrics vat ...``) come from plugins registered under the entry-point group ``docmetrics.tools`` (a
#: callable ``main(argv) -> int``).
SUBCOMMANDS = {"sweep": "docmetrics.cli.sweep", "metaeval": "docmetrics.cli.metaeval", "rank": "docmetrics.cli.rank",
               "report": "docmetrics.cli.report", "sample": "docmetrics.cli.sample", "mbr": "docmetrics.cli.mbr",
               "rerank": "docmetrics.cli.mbr:main_rerank"}
TOOLS_GROUP = "docmetrics.tools"


def _subcommand(name: str) -> Any:
    """The ``main(argv)`` of a subcommand or tool plugin named ``name``, or None."""
    if name in SUBCOMMANDS:
        import importlib

        module, _, function = SUBCOMMANDS[name].partition(":")
        return getattr(importlib.import_module(module), function or "main")
    from ..plugin import registry

    if registry.split_name(name)[0] in registry.names("tool"):
        return registry.load("tool", name)  # a broken tool is a PluginError naming its distribution
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and not argv[0].startswith("-"):
        try:
            sub = _subcommand(argv[0])
        except UserError as exc:
            print(f"docmetrics: error: {exc}", file=sys.stderr)
            return exc.exit_code
        if sub is not None:
            return int(sub(argv[1:]) or 0)
        refs = list(itertools.takewhile(lambda a: not a.startswith("-") and os.path.isfile(a), argv))
        if refs:  # sacrebleu's positional references: docmetrics ref.txt -i hyp.txt -m bleu
            print(f"docmetrics: error: {reference_advice([*argv[len(refs):], '-r', *refs])}", file=sys.stderr)
            return 2
        from ..plugin import registry

        known = sorted(set(SUBCOMMANDS) | set(registry.names("tool")))
        print(f"docmetrics: error: unknown subcommand {argv[0]!r}; available: {', '.join(known)} (tools register "
              f"under the entry-point group {TOOLS_GROUP}); options start with '-' (see docmetrics --help)",
              file=sys.stderr)
        return 2
    parser = build_parser()
    args = parse_args(parser, argv)
    return guarded("docmetrics", args.debug, lambda: run(typed(parser, args)),
                   interrupted=lambda: kept(args, argv))




def kept(args: argparse.Namespace, argv: Sequence[str]) -> str:
    """After Ctrl-C: what the score cache kept and the command that resumes, or that --cache would have."""
    path = cache_file(args.cache)  # without --cache: $DOCMETRICS_SCORE_CACHE's, as the session read it
    if path is None:
        return ("no score cache was on, so the scores computed so far are lost; with --cache, the same command "
                "run again resumes where it stopped")
    return (f"the score cache {path} keeps every chunk scored before the interruption; the same command resumes "
            f"from it: docmetrics {shlex.join(argv)}")
