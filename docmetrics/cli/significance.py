"""The command line's options of :mod:`docmetrics.commands.significance`."""

from __future__ import annotations

import argparse

from ..judging import (
    DEFAULT_CI_LEVEL,
    DEFAULT_N,
    DEFAULT_SEED,
    MAX_N,
)


def parse_seed(text: str) -> int | None:
    if text.strip().lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed must be an integer or 'none', not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"--seed must be >= 0, not {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``docmetrics`` for paired tests (sacrebleu's names)."""
    g = parser.add_argument_group(
        "significance (paired tests: the baseline is --baseline NAME, else the first system) and confidence "
        "intervals")
    x = g.add_mutually_exclusive_group()
    x.add_argument(
        "--paired-bs",
        "-pbs",
        action="store_true",
        help="paired bootstrap resampling of whole documents (score, mean +- 95%% CI, p-value)",
    )
    x.add_argument(
        "--paired-ar",
        "-par",
        action="store_true",
        help="paired approximate randomization, swapping whole documents (score, p-value)",
    )
    g.add_argument(
        "--baseline",
        metavar="NAME",
        help="the system the paired test compares every other with (a -i file as given or shown, or a system "
        "of --genmt / the stored scores); default: the first system",
    )
    g.add_argument(
        "--paired-bs-n",
        "-pbsn",
        type=int,
        default=DEFAULT_N["bs"],
        metavar="N",
        help="bootstrap resamples (default: %(default)s)",
    )
    g.add_argument(
        "--paired-ar-n",
        "-parn",
        type=int,
        default=DEFAULT_N["ar"],
        metavar="N",
        help="randomization trials (default: %(default)s)",
    )
    g.add_argument(
        "--seed",
        type=parse_seed,
        default=DEFAULT_SEED,
        metavar="INT",
        help="seed of the resampling (default: %(default)s; 'none': not reproducible)",
    )
    g.add_argument(
        "--ci",
        "--confidence",
        "-ci",
        action="store_true",
        help="a bootstrap confidence interval of every system score, resampling whole documents "
        "(sacrebleu's --confidence); not with a paired test, whose bootstrap gives one",
    )
    g.add_argument(
        "--ci-n",
        "--confidence-n",
        "-cin",
        type=int,
        default=DEFAULT_N["bs"],
        metavar="N",
        help=f"resamples of --ci (default: %(default)s; at most {MAX_N})",
    )
    g.add_argument(
        "--ci-level",
        type=float,
        default=DEFAULT_CI_LEVEL,
        metavar="P",
        help="coverage of --ci, between 0 and 1 (default: %(default)s)",
    )

