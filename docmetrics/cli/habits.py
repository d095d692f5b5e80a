"""Options people type by habit (from sacrebleu, COMET): one line of advice and exit status 2 instead of
argparse's usage dump."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Callable, Collection, NoReturn, Sequence

from ..commands.specs import reference_advice

__all__ = ["HABITS", "SPEC_HABITS", "Parser", "parse_args", "advice", "habit_in", "reference_advice"]


def _gpus(known: Collection[str]) -> str:
    more = ("; several GPUs: --workers N" if "--workers" in known
            else "; docmetrics runs on one device (pick the GPU with CUDA_VISIBLE_DEVICES)")
    return f"choose where models run with --device auto|cpu|cuda (auto: cuda if available){more}"


#: option (as typed, before any '=') -> the advice, or a function of the parser's options giving it (a short and a
#: long form of one option: one advice)
HABITS: dict[str, str | Callable[[Collection[str]], str]] = {
    **dict.fromkeys(("--gpus", "--gpu"), _gpus),
    "--cuda": "use --device cuda",
    "--cpu": "use --device cpu",
    "--batch_size": "use --batch-size N (with a dash)",
    "--model": "the model belongs to the metric spec: -m doc-comet:model=Unbabel/wmt22-comet-da "
               "(a hub id or a local directory); every metric can have its own",
    "--to_json": "use -f json, and -o FILE to write it to a file",
    "--only_system": "use -b/--score-only",
    "--echo": "docmetrics echoes no input; --level doc|chunk|seg writes a table of per-document, "
              "per-unit or per-segment scores with their doc ids (-o FILE)",
    **dict.fromkeys(("--sentence-level", "-sl"), "use --level seg (per-segment scores, for metrics that score one "
                    "segment per unit; bleu, chrf, ter: each segment's sentence score), -o FILE to write them"),
    **dict.fromkeys(("--download", "--test-set"), "docmetrics downloads no test set; give files with "
                    "-i/-s/-r/--doc-ids, or an mt-metrics-eval directory with --mtme ROOT -t TESTSET -l LP"),
    "--language-pair": "use -l SRC-TGT (e.g. -l en-de)",
    **dict.fromkeys(("--origlang", "-ol"), "docmetrics splits no test set by original language; filter the files "
                    "(-i/-s/-r/--doc-ids) first"),
    "--subset": "docmetrics selects no subset of a test set; filter the files (-i/-s/-r/--doc-ids) first",
    **dict.fromkeys(("--num-refs", "-nr"), "give each reference as its own file: -r ref1.txt ref2.txt (for a file of "
                    "tab-separated references: cut -f1 refs.tsv > ref1.txt; cut -f2 refs.tsv > ref2.txt)"),
    **dict.fromkeys(("--encoding", "-e"), "docmetrics reads UTF-8; convert the files first (iconv -f ENCODING -t "
                    "UTF-8)"),
    "--force": "docmetrics does not refuse tokenized input, so there is nothing to force (bleu:tokenize=none "
               "scores it as it is)",
    **dict.fromkeys(("--detail", "-d"), "per-document and per-segment scores: --level doc|seg (-o FILE); no split "
                    "by original language"),
    **dict.fromkeys(("--paired-jobs", "-j"), "the paired tests reuse the scores and run in one process; --workers N "
                    "runs the models in N processes"),
    **dict.fromkeys(("--no-color", "-nc"), "docmetrics prints no colours"),
    **dict.fromkeys(("--citation", "--cite"), "docmetrics --describe NAME prints a metric's citation (and --describe "
                    "PRESET a preset's)"),
    "--enable-context": "Doc-COMET is its own metric: -m doc-comet:k=2,model=Unbabel/wmt22-comet-da (the previous "
                        "2 sentences as context, the paper's), and -m comet is plain COMET-22",
    "--num_workers": "use --workers N (with a dash)",
    "--model_storage_path": "models are read from the Hugging Face cache (HF_HOME) or given as a directory: "
                            "-m comet:model=/path/to/checkpoint",
    "--disable_cache": "docmetrics keeps no score cache unless asked for (--cache [PATH])",
    "--plot": "plots are drawn by docmetrics sweep --plot PNG (a heatmap over a parameter grid) and docmetrics "
              "metaeval --plot PNG (metrics on MTME data); see their --help",
}

#: sacrebleu's options that are parameters of a metric spec here: option -> (the spec, with {v} for the
#: value the option was given; whether the option takes a value)
SPEC_HABITS: dict[str, tuple[str, bool]] = {
    **dict.fromkeys(("-tok", "--tokenize"), ("bleu:tokenize={v}", True)),
    **dict.fromkeys(("-lc", "--lowercase"), ("bleu:lowercase=yes (chrf:lowercase=yes; TER ignores case unless "
                                             "ter:case_sensitive=yes)", False)),
    "--smooth-method": ("bleu:smooth_method={v}", True),
    **dict.fromkeys(("-sv", "--smooth-value"), ("bleu:smooth_method=floor,smooth_value={v}", True)),
    "-c": ("chrf:char_order=6,word_order=2 (chrF++); docmetrics --describe chrf lists them all", False),
    **dict.fromkeys(("-cc", "--chrf-char-order"), ("chrf:char_order={v}", True)),
    **dict.fromkeys(("-cw", "--chrf-word-order"), ("chrf:word_order={v}", True)),
    "--chrf-beta": ("chrf:beta={v}", True),
    "--chrf-whitespace": ("chrf:whitespace=yes", False),
    "--chrf-lowercase": ("chrf:lowercase=yes", False),
    "--chrf-eps-smoothing": ("chrf:eps_smoothing=yes", False),
    "--ter-case-sensitive": ("ter:case_sensitive=yes", False),
    "--ter-asian-support": ("ter:asian_support=yes", False),
    "--ter-no-punct": ("ter:no_punct=yes", False),
    "--ter-normalized": ("ter:normalized=yes", False),
}


def spec_advice(name: str, value: str | None) -> str:
    """The line for a sacrebleu option that is a parameter of the metric spec here."""
    spec, takes_value = SPEC_HABITS[name]
    example = spec.format(v=value if value is not None and not value.startswith("-") else "VALUE")
    return (f"{name} is not a docmetrics option: sacrebleu's metric options are parameters of the metric spec "
            f"here: -m {example}")


def advice(option: str, known: Collection[str]) -> str | None:
    """One line for an option the parser does not know, or None where nothing better than argparse's
    message can be said."""
    name = option.split("=", 1)[0]
    if name in SPEC_HABITS:
        return spec_advice(name, option.split("=", 1)[1] if "=" in option else None)
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


def habit_in(argv: Sequence[str], known: Collection[str]) -> str | None:
    """The advice for the first option of ``argv`` typed by habit (sacrebleu's, COMET's) that the parser
    does not know, or None.  Read before argparse, which would take ``-tok intl`` as ``-t ok`` and
    ``-lc`` as ``-l c``."""
    for i, token in enumerate(argv):
        if token == "--":
            break
        name = token.split("=", 1)[0]
        if name in known or not name.startswith("-") or (name not in HABITS and name not in SPEC_HABITS):
            continue
        if name in SPEC_HABITS and "=" not in token:
            following = argv[i + 1] if i + 1 < len(argv) and SPEC_HABITS[name][1] else None
            return spec_advice(name, following)
        return advice(token, known)
    return None


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str] | None, *,
               command: str | None = None) -> argparse.Namespace:
    """``parser.parse_args(argv)``, except that an option typed by habit (sacrebleu's, COMET's) or an
    unknown option gets one line of advice (exit 2).  ``args.argv`` is the command as typed (``command``, a
    subcommand's name, then ``argv``; a report names it), a default of the parse: nothing is set afterwards."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser.set_defaults(argv=[command, *argv] if command else argv)
    known = {s for action in parser._actions for s in action.option_strings}
    text = habit_in(argv, known)
    if text is not None:
        print(f"{parser.prog}: error: {text}", file=sys.stderr)
        raise SystemExit(2)
    args, extras = parser.parse_known_args(argv)
    if extras:
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
