"""The one input loader of the command line: -i/-s/-r/--doc-ids text files or JSONL, --doc-per-line."""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from ..api import TestSet, read_testset
from ..values.errors import InputError, UserError
from .messages import warn
from .options import Options

__all__ = ["load_testset", "check_stdin", "once_each"]


def check_stdin(opts: Options, who: str = "docmetrics") -> Options:
    """No -i: the one system's output comes from stdin (as sacrebleu reads it), unless stdin is a
    terminal (nothing piped in: an error, not a wait); the options then read it (``stdin_implicit``).
    Stdin ('-') can be read by one option only."""
    if not opts.input:
        if sys.stdin is None or sys.stdin.isatty():
            raise UserError(f"give the system output with -i HYP [HYP ...], or pipe one system in: "
                            f"cat hyp.txt | {who} -m SPEC -s src.txt --doc-ids ids.txt (stdin is a terminal)")
        opts = replace(opts, input=["-"], stdin_implicit=True)  # said if stdin turns out empty
    named = (("-s", opts.source), ("--doc-ids", opts.doc_ids), ("--human", getattr(opts, "human", None)))
    references = getattr(opts, "references", None) or [opts.reference]
    readers = (["-i"] * opts.input.count("-") + ["-r"] * references.count("-")
               + [opt for opt, value in named if value == "-"])
    if len(readers) > 1:
        raise UserError(f"{' and '.join(readers)} all read stdin ('-'), which can be read once; give files "
                        "for all but one")
    return opts


def load_testset(opts: Options, who: str = "docmetrics", documents: bool = True) -> TestSet:
    """The test set the input options describe, with its warnings printed (that there are no doc ids
    only where ``documents`` matter: a metric reads neighbouring segments)."""
    inputs = once_each(opts.input or [], "-i", who)
    references = (once_each(opts.references, "-r", who) if getattr(opts, "references", None)
                  else opts.reference)
    try:
        testset = read_testset(inputs, opts.source, references, opts.doc_ids, jsonl=opts.jsonl)
    except InputError as exc:
        if getattr(opts, "stdin_implicit", False) and ("stdin: 0 lines" in str(exc) or "stdin has no" in str(exc)):
            raise InputError(f"{exc}; no -i was given, so the system output was read from stdin, which was empty: "
                             "give it with -i HYP [HYP ...], or pipe it in") from None
        raise
    if getattr(opts, "doc_per_line", False):
        testset = doc_per_line(testset)
    show_warnings(testset, who)
    if testset.doc_ids is None and documents:
        warn("no doc ids (--doc-ids): the whole input is scored as ONE document", who)
    lang = getattr(opts, "lang", None)
    if isinstance(lang, str) and lang:
        testset.lp = lang  # -l: the pair these files are in, as a test set read by read_human carries its own
    return testset


def show_warnings(testset: TestSet, who: str = "docmetrics") -> None:
    """What the test set found odd in its text (a system whose every line is empty, empty reference lines), on
    stderr: every command path that reads a test set (-i, --genmt, --wmt25-tsv, --wmt26) says it the same way."""
    for text in testset.warnings:
        warn(text, who)


def once_each(files: list[str], option: str, who: str = "docmetrics", *, paths: bool = True) -> list[str]:
    """``files`` with each file once, in the order first given (a file named twice, also by another path,
    is one system or reference), and a warning naming the repeats; ``paths=False``: names compared as
    given (references named with --ref)."""
    first: dict[str, str] = {}
    count: dict[str, int] = {}
    for f in files:
        key = f if f == "-" or not paths else os.path.realpath(f)
        first.setdefault(key, f)
        count[key] = count.get(key, 0) + 1
    repeated = [first[k] for k, n in count.items() if n > 1]
    if repeated:
        warn(f"{option}: {', '.join(repeated)} given twice: used once", who)
    return list(first.values())


def doc_per_line(testset: TestSet) -> TestSet:
    """--doc-per-line: every line (JSONL object) is its own document, named by its doc id or its
    1-based line number."""
    ids = testset.doc_ids
    if ids is None:
        ids = [str(i + 1) for i in range(testset.n_segments)]
    for i in range(1, len(ids)):
        if ids[i] == ids[i - 1]:
            raise UserError(
                f"--doc-per-line: lines {i} and {i + 1} of {testset.describe('doc ids')} have the same "
                f"doc id {ids[i]!r}; with --doc-per-line every line is its own document: give distinct "
                "ids, or drop --doc-per-line to join lines that share an id into one document"
            )
    return TestSet(testset.systems, testset.sources, testset.references, list(ids), names=testset.names,
                   other_references=testset.other_references, lp=testset.lp)
