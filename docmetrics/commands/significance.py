"""Paired-test and confidence-interval options of ``docmetrics`` (sacrebleu's names) and the tables they
print."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from ..api import Result
from ..judging import DEFAULT_CI_LEVEL, DEFAULT_N, MAX_N, ConfidenceInterval, PairedTest
from ..values.errors import UserError
from .messages import warn
from .options import Options
from .output import Output, decimals


def requested(opts: Options) -> str | None:
    """'bs', 'ar' or None."""
    if getattr(opts, "paired_bs", False):
        return "bs"
    if getattr(opts, "paired_ar", False):
        return "ar"
    return None


def check_args(opts: Options) -> None:
    """Errors that need no scoring (before any model is loaded)."""
    check_ci_args(opts)
    test = requested(opts)
    if test is None:
        if getattr(opts, "baseline", None) is not None:
            raise UserError(f"--baseline {opts.baseline} names the baseline of a paired test: add --paired-bs or "
                            "--paired-ar (or drop --baseline)")
        return
    check_resamples(f"--paired-{test}-n", opts.paired_bs_n if test == "bs" else opts.paired_ar_n)
    if (getattr(opts, "genmt", None) or getattr(opts, "wmt25_tsv", None) or getattr(opts, "data", None)
            or (getattr(opts, "scores", None) and not opts.input)):
        return  # the systems of the judged data or the stored scores, counted once they are read
    if not opts.input or len(opts.input) < 2:
        raise UserError(
            f"--paired-{test} compares systems with the first one (the baseline): give at "
            "least two system files with -i"
        )


def check_resamples(flag: str, n: int) -> None:
    """The resamples or trials of ``flag`` from 1 to MAX_N: they are kept in memory."""
    if not 1 <= n <= MAX_N:
        raise UserError(f"{flag} must be from 1 to {MAX_N} (resamples kept in memory), not {n}")


def find_baseline(opts: Options, testset: Any) -> Options:
    """The options with --baseline NAME as the test set's system it names (by its name, the file it was read
    from, or the path as typed); before any scoring, an unknown NAME exits 2 listing the systems."""
    name = getattr(opts, "baseline", None)
    if name is None or not requested(opts):
        return opts
    wanted = {name, os.path.normpath(name)}
    found = [s for s in testset.systems if wanted & {s, testset.describe(s), os.path.normpath(s)}]
    if not found:
        shown = ", ".join(list(testset.systems)[:20])
        more = f", and {len(testset.systems) - 20} more" if len(testset.systems) > 20 else ""
        raise UserError(f"--baseline {name}: no system has that name; the systems are {shown}{more}")
    return replace(opts, baseline=found[0])


def check_ci_args(opts: Options) -> None:
    """--ci-n and --ci-level in range, and --ci where it has a meaning."""
    given = [opt for attr, opt, default in (("ci_n", "--ci-n", DEFAULT_N["bs"]),
                                            ("ci_level", "--ci-level", DEFAULT_CI_LEVEL))
             if getattr(opts, attr) != default]
    if given and not opts.ci:
        raise UserError(f"{given[0]} sets up --ci: add --ci")
    if not opts.ci:
        return
    check_resamples("--ci-n", opts.ci_n)
    if not 0 < opts.ci_level < 1:
        hint = f"; for {opts.ci_level:g}% give {opts.ci_level / 100:g}" if 1 < opts.ci_level < 100 else ""
        raise UserError(f"--ci-level must be between 0 and 1 (e.g. 0.95), not {opts.ci_level:g}{hint}")
    if requested(opts):
        raise UserError(f"--ci with --paired-{requested(opts)}: the paired test compares systems; its bootstrap "
                        "(--paired-bs) already gives every system's 95% CI; drop one of them")
    if opts.score_only:
        raise UserError("--ci with -b/--score-only: -b prints the scores alone; drop -b to see the intervals "
                        "(or use -f json)")


def confidence_intervals(
    all_results: list[tuple[str, list[Result]]], opts: Options
) -> list[list[ConfidenceInterval]]:
    """--ci: every system's interval, per metric; warnings printed once."""
    from ..judging import confidence_intervals as intervals  # numpy: not at --help

    cis = [intervals(results, n=opts.ci_n, seed=opts.seed, level=opts.ci_level) for _, results in all_results]
    for text in dict.fromkeys(w for per_metric in cis for ci in per_metric for w in ci.warnings):
        warn(text)
    return cis


def paired_output(all_results: list[tuple[str, list[Result]]], opts: Options) -> Output:
    """Run the requested test on every metric (:func:`docmetrics.judging.compare_systems`, the --baseline
    system first; its warnings printed once): sacrebleu's table (:meth:`PairedTest.table`), or JSON."""
    from ..judging import compare_systems  # numpy: not at --help

    test = requested(opts)
    assert test is not None
    n = opts.paired_bs_n if test == "bs" else opts.paired_ar_n
    baseline = getattr(opts, "baseline", None)
    tests = [compare_systems(results, test=test, n=n, seed=opts.seed, baseline=baseline) for _, results in all_results]
    for text in dict.fromkeys(w for t in tests for w in t.warnings):
        warn(text)
    specs = [spec for spec, _ in all_results]
    width = decimals(opts)
    return Output(data=lambda: [d for spec, t in zip(specs, tests) for d in t.to_dicts(spec, short=opts.short)],
                  text=lambda: PairedTest.table(tests, width, specs=specs, short=opts.short))
