"""Paired-test and confidence-interval options of ``docmetrics`` (sacrebleu's names) and the tables they
print."""

from __future__ import annotations

import io
import os
from dataclasses import replace
from typing import Any

from ..api import Result
from ..judging import (
    ALPHA,
    DEFAULT_CI_LEVEL,
    DEFAULT_N,
    MAX_N,
    TEST_NAMES,
    ConfidenceInterval,
    PairedResult,
    PairedTest,
)
from ..values.errors import UserError
from .common import width
from .format import column, metric_labels, num, table
from .messages import warn
from .options import Options
from .output import Output


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
    n = opts.paired_bs_n if test == "bs" else opts.paired_ar_n
    if n < 1 or n > MAX_N:
        raise UserError(f"--paired-{test}-n must be from 1 to {MAX_N} (resamples kept in memory), not {n}")
    if getattr(opts, "genmt", None) or getattr(opts, "wmt25_tsv", None) or (getattr(opts, "scores", None)
                                                                          and not opts.input):
        return  # the systems of the GenMT file or the stored scores, counted once they are read
    if not opts.input or len(opts.input) < 2:
        raise UserError(
            f"--paired-{test} compares systems with the first one (the baseline): give at "
            "least two system files with -i"
        )


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
    if not 1 <= opts.ci_n <= MAX_N:
        raise UserError(f"--ci-n must be from 1 to {MAX_N} (resamples kept in memory), not {opts.ci_n}")
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


def format_ci(ci: ConfidenceInterval, width: int) -> str:
    """``[low, high]`` of one interval."""
    return f"[{num(ci.low, width)}, {num(ci.high, width)}]"


def describe_ci(cis: list[list[ConfidenceInterval]], labels: bool) -> str:
    """The line under a table of intervals: level, method, resamples, seed and documents."""
    first = cis[0][0]
    docs = []
    for k, per_metric in enumerate(cis):
        ci = per_metric[0]
        count = (f"{ci.documents} documents" if ci.documents == ci.documents_total else
                 f"{ci.documents} of {ci.documents_total} documents (the others have no scored unit)")
        docs.append((f"[{k + 1}] " if labels else "") + count)
    seed = "no seed" if first.seed is None else f"seed {first.seed}"
    return (f"{100 * first.level:g}% confidence intervals [low, high]: bootstrap over whole documents "
            f"({first.n} resamples, {seed}): {', '.join(docs)}\n")


def format_cell(row: PairedResult, width: int) -> str:
    text = num(row.score, width)
    if row.mean is not None and row.ci is not None:
        text += f" ({num(row.mean, width)} ± {num(row.ci, width)})"
    if row.p_value is not None:
        text += f" (p = {row.p_value:.4f})" + ("*" if row.p_value < ALPHA else "")
    return text


def paired_output(all_results: list[tuple[str, list[Result]]], opts: Options) -> Output:
    """Run the requested test on every metric (:func:`docmetrics.judging.compare_systems`, the --baseline
    system first; its warnings printed once): sacrebleu's table, or JSON."""
    from ..judging import compare_systems  # numpy: not at --help

    test = requested(opts)
    assert test is not None
    n = opts.paired_bs_n if test == "bs" else opts.paired_ar_n
    baseline = getattr(opts, "baseline", None)
    tests = [(spec, compare_systems(results, test=test, n=n, seed=opts.seed, baseline=baseline))
             for spec, results in all_results]
    for text in dict.fromkeys(w for _, t in tests for w in t.warnings):
        warn(text)
    return Output(data=lambda: paired_data(tests, opts.short),
                  text=lambda: paired_text(tests, all_results, opts, test, n))


def paired_data(tests: list[tuple[str, PairedTest]], short: bool) -> list[dict]:
    """``-f json``: one object per system and metric, its test's parameters and signature beside it."""
    data = []
    for spec, t in tests:
        for row in t.rows:
            d = row.to_dict()
            d.update(
                {
                    "metric": t.metric,
                    "spec": spec,
                    "test": t.test,
                    "n": t.n,
                    "seed": t.seed,
                    "documents": len(t.doc_ids),
                    "exact": t.exact,
                    "signature": t.signature_text(short=short),
                }
            )
            data.append(d)
    return data


def paired_text(tests: list[tuple[str, PairedTest]], all_results: list[tuple[str, list[Result]]],
                opts: Options, test: str, n: int) -> str:
    """sacrebleu's table: the baseline first, each cell the score (and with --paired-bs the bootstrap mean
    and CI) and p-value, then how the test was run and each metric's signature."""
    out = io.StringIO()
    widths = [width(opts, results[0]) if results else opts.width for _, results in all_results]  # as the score table
    names = [row.system for row in tests[0][1].rows]
    labels = metric_labels([spec for spec, _ in tests], [t.metric for _, t in tests])
    headers = ["System"] + [column(label, k + 1) for k, label in enumerate(labels)]
    rows = []
    for i, name in enumerate(names):
        rows.append(
            [("Baseline: " if i == 0 else "") + name] + [format_cell(t.rows[i], w) for (_, t), w in zip(tests, widths)]
        )
    out.write(table(headers, rows, align="r" + "l" * len(tests)))  # sacrebleu's layout: names right-aligned
    out.write("\n")
    n_docs = len(tests[0][1].doc_ids)
    what = "resamples" if test == "bs" else "trials"
    if tests[0][1].exact:
        msg = (f"{TEST_NAMES[test].capitalize()} test, exact: all {tests[0][1].n} swaps of {n_docs} documents "
               f"(no more than the {n} trials asked)")
    else:
        msg = f"{TEST_NAMES[test].capitalize()} test with {n} {what} over {n_docs} documents"
    out.write("-" * len(msg) + "\n" + msg + "\n" + "-" * len(msg) + "\n")
    how = "resampled" if test == "bs" else "swapped"
    out.write(
        f" - Each system is compared with the baseline, {names[0]}; whole documents are {how}\n"
        "   (their units are not independent), and the scores come from the units already scored.\n"
    )
    if test == "bs":
        out.write("   Each cell: the system score, then (μ ± 95% CI): the bootstrap mean and the half-width of\n"
                  "   its 95% confidence interval.\n")
    out.write(
        " - Null hypothesis: the system and the baseline are produced by the same process; the\n"
        "   p-value estimates the chance of an absolute difference at least as large as observed.\n"
        f" - p < {ALPHA} is marked with '*': the difference is unlikely to be due to chance.  It does\n"
        "   not say which system is better, only that they differ.\n\n"
    )
    out.write("Signatures:\n")
    for k, (_, t) in enumerate(tests):
        out.write(f"[{k + 1}] {t.signature_text(short=opts.short)}\n")
    return out.getvalue()
