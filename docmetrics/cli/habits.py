"""Options people type by habit (from sacrebleu, COMET): one line of advice and exit status 2 instead of
argparse's usage dump."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Callable, Collection, NoReturn, Sequence

__all__ = ["HABITS", "Parser", "parse_args", "advice"]


def _gpus(known: Collection[str]) -> str:
    more = ("; several GPUs: --workers N" if "--workers" in known
            else "; docmetrics runs on one device (pick the GPU with CUDA_VISIBLE_DEVICES)")
    return f"choose where models run with --device auto|cpu|cuda (auto: cuda if available){more}"


#: option (as typed, before any '=') -> the advice, or a function of the parser's options giving it
HABITS: dict[str, str | Callable[[Collection[str]], str]] = {
    "--gpus": _gpus,
    "--gpu": _gpus,
    "--cuda": "use --device cuda",
    "--cpu": "use --device cpu",
    "--batch_size": "use --batch-size N (with a dash)",
    "--model": "the model belongs to the metric spec: -m doc-comet:model=Unbabel/wmt22-comet-da "
               "(a hub id or a local directory); every metric can have its own",
    "--to_json": "use -f json, and -o FILE to write it to a file",
    "--only_system": "use -b/--score-only",
    "--echo": "docmetrics echoes no input; --level doc|chunk|seg writes a table of per-document, "
              "per-unit or per-segment scores with their doc ids (-o FILE)",
    "--sentence-level": "use --level seg (per-segment scores, for metrics that score one segment per unit)",
    "--download": "docmetrics downloads no test set; give files with -i/-s/-r/--doc-ids, or an "
                  "mt-metrics-eval directory with --mtme ROOT -t TESTSET -l LP",
}


def advice(option: str, known: Collection[str]) -> str | None:
    """One line for an option the parser does not know, or None where nothing better than argparse's
    message can be said."""
    name = option.split("=", 1)[0]
    habit = HABITS.get(name)
    if habit is not None:
        text = habit if isinstance(habit, str) else habit(known)
        return f"{name} is not a docmetrics option: {text}"
    dashed = name.replace("_", "-")
    if dashed != name and dashed in known:
        return f"{name} is not an option: use {dashed} (with dashes)"
    close = difflib.get_close_matches(name, [k for k in known if k.startswith("--")], n=1, cutoff=0.75)
    if close:
        return f"{name} is not an option; did you mean {close[0]}? (see --help)"
    return None


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (what is wrong and where to look), not the usage."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, except that an unknown option gets one line of advice (exit 2)."""
    args, extras = parser.parse_known_args(argv)
    if extras:
        known = {s for action in parser._actions for s in action.option_strings}
        options = [x for x in extras if x.startswith("-") and len(x) > 1]
        for option in options:
            text = advice(option, known)
            if text is not None:
                print(f"{parser.prog}: error: {text}", file=sys.stderr)
                raise SystemExit(2)
        what = options or extras
        print(f"{parser.prog}: error: unrecognized argument{'s' if len(what) > 1 else ''}: {' '.join(what)} "
              f"(see {parser.prog} --help)", file=sys.stderr)
        raise SystemExit(2)
    return args
