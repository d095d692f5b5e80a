"""The argument groups every docmetrics command shares (input, model, output, the score cache), and the
parsed options as the command's typed value, derived from its parser (:func:`typed`)."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from ..judging import DEFAULT_N, DEFAULT_SEED

#: The fields no option sets, each with the option it goes with (a parser without that option lacks the field; None:
#: every parser) and its default: the command as typed (a report names it), whether -w was given (else each metric
#: prints its own decimals), whether the one system is read from stdin for want of -i, and for the index of each -m
#: given as sacrebleu's signature the options that signature names (read, not given).
DERIVED: dict[str, tuple[str | None, Any]] = {"argv": (None, None), "width_given": ("width", False),
                                              "stdin_implicit": ("input", False),
                                              "sacrebleu_signatures": ("metrics", {})}


def options_type(parser: argparse.ArgumentParser) -> type:
    """The command's options as a frozen dataclass: a field per option of ``parser``, named by its dest, with its
    default (a list default copied for each value), then the :data:`DERIVED` fields; ``flags``: the option as typed
    that sets each field (its one-letter form where it has one, e.g. ``-i``, else its first long form; a positional
    argument's metavar)."""
    defaults, flags = {}, {}
    for action in parser._actions:
        if action.default is argparse.SUPPRESS:  # --help, --version
            continue
        defaults[action.dest] = action.default
        strings = action.option_strings
        flags[action.dest] = next((s for s in strings if len(s) == 2), None) or next(
            (s for s in strings if s.startswith("--")), action.metavar or action.dest)
    defaults.update((name, value) for name, value in parser._defaults.items() if name not in DERIVED)
    defaults.update((name, value) for name, (option, value) in DERIVED.items() if option in (None, *defaults))
    fields = [(name, Any, dataclasses.field(default_factory=value.copy) if isinstance(value, (list, dict))
               else dataclasses.field(default=value)) for name, value in defaults.items()]
    command = "".join(word.title() for word in parser.prog.split()[1:]) or "Run"
    return dataclasses.make_dataclass(f"{command}Options", fields, namespace={"flags": flags}, frozen=True,
                                      kw_only=True)


def typed(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Any:
    """The options ``parser`` parsed into ``args`` as the command's typed value (:func:`options_type`); each list
    the value's own copy (a list option not given is the parser's default itself)."""
    cls = options_type(parser)
    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if hasattr(args, f.name)}
    return cls(**{name: list(v) if isinstance(v, list) else v for name, v in given.items()})


def add_input_arguments(
    p: argparse.ArgumentParser, *, required: bool = False, doc_per_line: bool = False
) -> argparse._ArgumentGroup:
    """The input options every docmetrics command shares (-i, -s, -r, --doc-ids, -l, --jsonl)."""
    g = p.add_argument_group("input")
    g.add_argument("-i", "--input", nargs="+", action="extend", metavar="HYP", required=required,
                   help="system output, one file per system (text, or .jsonl with doc_id/src/mt/ref); -i given "
                        "again adds systems")
    g.add_argument("-s", "--source", metavar="FILE", action=Once, help="source sentences, line-parallel")
    g.add_argument("-r", "--reference", nargs="+", action=References, dest="references", metavar="FILE",
                   help="reference translations, line-parallel; several references: -r ref1.txt ref2.txt (or -r "
                        "given again): sacrebleu's metrics use them all, a metric that takes one refuses several")
    p.set_defaults(reference=None)
    g.add_argument("--doc-ids", metavar="FILE", action=Once,
                   help="document id of each line; a new document starts where the id changes")
    g.add_argument("-l", "--lang", metavar="SRC-TGT",
                   help="language pair, e.g. en-de: for backbones with a lang parameter (model choice, "
                        "language codes) where the spec does not set lang=")
    g.add_argument("--jsonl", action="store_true",
                   help="read -i files as JSONL (one object per segment: doc_id, src, mt, ref) "
                        "whatever their extension")
    if doc_per_line:
        g.add_argument("--doc-per-line", action="store_true",
                       help="every line of -i/-s/-r (every JSONL object) is one whole document (for "
                            "metrics that segment documents, e.g. asd); named by --doc-ids or line number")
    return g


class Once(argparse.Action):
    """An option that takes one value: given twice with different values, an error naming both (argparse
    would keep the last without a word, as a second ``-r`` once did)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        before = getattr(namespace, self.dest, None)
        if before is not None and before != values:
            raise argparse.ArgumentError(self, f"given twice ({before}, {values}): it takes one file")
        setattr(namespace, self.dest, values)


class References(argparse.Action):
    """``-r FILE [FILE ...]``, repeatable: every file is kept, in order, in ``references`` (its dest; a repeated -r
    adds, never replaces); ``reference`` is the first (what commands that take one reference read)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        files = [*(getattr(namespace, "references", None) or []), *values]
        namespace.references = files
        namespace.reference = files[0]


def add_model_arguments(p: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """The model options every docmetrics command shares (--device, --batch-size, --precision)."""
    g = p.add_argument_group("model")
    g.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="where models run (default: auto = cuda if available)")
    g.add_argument("--batch-size", type=number("--batch-size"), metavar="N",
                   help="a fixed number of inputs per batch (default: batches by --max-tokens)")
    g.add_argument("--max-tokens", type=number("--max-tokens"), metavar="N",
                   help="padded tokens per batch; inputs are sorted by length and batched within this "
                        "budget (default: the backbone's for the device, e.g. comet 4096 on CPU, 32768 on GPU)")
    g.add_argument("--precision", choices=("fp32", "fp16", "bf16"),
                   help="default precision where a spec does not set precision= (fp32; fp16/bf16 need a GPU)")
    e = p.add_argument_group("engine")
    e.add_argument("--workers", type=number("--workers"), metavar="N",
                   help="N model replicas in N processes, units split into length-balanced chunks "
                        "(default: 1; with --device cuda one per visible GPU; with --engine ray one per CPU or GPU)")
    e.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local: this machine (default); ray: Ray actors, on a local Ray or a "
                        "cluster (--ray-address; needs the 'ray' extra)")
    e.add_argument("--ray-address", metavar="HOST:PORT",
                   help="the Ray cluster to join (default: start a local Ray)")
    return g


def number(flag: str, kind: type = int, low: float = 1, high: float | None = None, takes: str = "a whole number >= 1",
           outside: str = "must be >= 1") -> Any:
    """An argparse type: a number of ``kind`` from ``low`` to ``high`` (default: a whole number >= 1) for ``flag``,
    its errors saying what it ``takes`` (not a number) and what it must be (``outside``: out of range, NaN
    included)."""
    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} takes {takes}, not {text!r}") from None
        if not (low <= value and (high is None or value <= high)):
            raise argparse.ArgumentTypeError(f"{flag} {text}: {outside}")
        return value

    return convert


def parse_seed(text: str) -> int | None:
    """An argparse type: ``--seed`` a whole number >= 0, or 'none' (not reproducible)."""
    if text.strip().lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed must be an integer or 'none', not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"--seed must be >= 0, not {value}")
    return value


def add_resampling_arguments(g: argparse._ArgumentGroup, *, ar: bool = False) -> None:
    """--paired-bs-n (with ``ar`` --paired-ar-n too) and --seed: the resampling of docmetrics' paired tests and of
    rank's AutoRank clusters."""
    g.add_argument("--paired-bs-n", "-pbsn", type=int, default=DEFAULT_N["bs"], metavar="N",
                   help="bootstrap resamples (default: %(default)s)")
    if ar:
        g.add_argument("--paired-ar-n", "-parn", type=int, default=DEFAULT_N["ar"], metavar="N",
                       help="randomization trials (default: %(default)s)")
    g.add_argument("--seed", type=parse_seed, default=DEFAULT_SEED, metavar="INT",
                   help="seed of the resampling (default: %(default)s; 'none': not reproducible)")


#: ``-w N``: a number of decimals from 0 to 17 (what a float64 can show).
decimals = number("-w", int, 0, 17, "a whole number of decimals", "the number of decimals must be from 0 to 17")


class Width(argparse.Action):
    """``-w N``, remembering that it was given (``width_given``): without it each metric prints its own
    default number of decimals (sacrebleu's metrics: sacrebleu's)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        namespace.width = values
        namespace.width_given = True


def add_output_arguments(g: argparse._ArgumentGroup) -> None:
    """Output options shared by every command (-f, -sh, -w, -q, --debug), into group ``g``."""
    g.add_argument("-f", "--format", choices=("text", "json"), default="text", help="output format")
    g.add_argument("-sh", "--short", action="store_true", help="print short signatures")
    g.add_argument("-w", "--width", type=decimals, default=4, metavar="N", action=Width,
                   help="decimals of printed scores (default 4; bleu, chrf, ter: 1, as sacrebleu prints them; 0 to 17)")
    g.add_argument("-q", "--quiet", action="store_true", help="no progress bars and no coverage notes")
    g.add_argument("-v", "--verbose", action="store_true",
                   help="coverage notes one line per system (default: one line per metric)")
    g.add_argument("--debug", action="store_true", help="show tracebacks and library warnings")


def add_cache_arguments(parser: argparse.ArgumentParser) -> None:
    """``--cache [PATH]`` for ``docmetrics`` (off unless given)."""
    parser.add_argument_group("score cache").add_argument(
        "--cache",
        nargs="?",
        const="",
        default=None,
        metavar="PATH",
        help="reuse backbone scores from a persistent cache (SQLite; default file: "
        "$DOCMETRICS_CACHE/scores.sqlite) and store new ones; also $DOCMETRICS_SCORE_CACHE=1|PATH",
    )

