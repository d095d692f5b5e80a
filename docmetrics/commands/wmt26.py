"""The WMT26 General MT release on the command line: ``--wmt26 TESTFILE --wmt26-systems DIR|FILE...``
scores one language pair's systems document by document (:mod:`docmetrics.formats.wmt26`): a document is
one segment per paragraph where every text has the source's paragraph count, else one segment (use
``asd:unit=segment`` to realign it), and a note says which documents are held whole and why."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

from ..formats.wmt26 import DocumentPlan, Wmt26Pair, read_wmt26
from ..values.errors import InputError, UserError
from ..values.testset import TestSet
from .conflicts import NEEDS_FOR, Conflicts, Option
from .messages import note
from .options import RunOptions

__all__ = ["references_from_release", "requested", "check_args", "prepare", "plan_notes", "read_pairs", "pair_testset",
           "check_systems_given", "check_no_reference_files", "REFERENCE_ADVICE"]

#: How a reference of the release is chosen (where -r is given, or a metric needs a reference).
REFERENCE_ADVICE = "name one of the test file's references with --wmt26-ref NAME (e.g. --wmt26-ref refA)"
#: Options that the release replaces.
INPUTS = Conflicts("--wmt26", "--wmt26 reads the sources, outputs, references and documents from {file}: drop "
                   "{option}{instead}", tuple(Option(attr, flag, instead) for attr, flag, instead in (
                       ("input", "-i", ""), ("source", "-s", ""), ("references", "-r", f" and {REFERENCE_ADVICE}"),
                       ("doc_ids", "--doc-ids", ""), ("jsonl", "--jsonl", ""), ("doc_per_line", "--doc-per-line", ""),
                       ("genmt", "--genmt", ""), ("mtme", "--mtme", ""), ("human", "--human", ""),
                       ("wmt25_tsv", "--wmt25-tsv", ""))))
#: Options that only mean something with the release.
WMT26_ONLY = Conflicts("--wmt26 TESTFILE", NEEDS_FOR, (
    Option("wmt26_systems", "--wmt26-systems", "names the system files"),
    Option("wmt26_ref", "--wmt26-ref", "names references of the test file"),
    Option("wmt26_source", "--wmt26-source", "picks the test file's source field", default="src_text")))


@contextlib.contextmanager
def references_from_release(opts: Any, pairs: Sequence[Wmt26Pair] = ()) -> Iterator[None]:
    """A metric that needs a reference where no --wmt26-ref is given: its error names --wmt26-ref and the
    test file's references (not -r, which --wmt26 refuses)."""
    try:
        yield
    except InputError as exc:
        if "references" not in exc.params or not requested(opts) or opts.wmt26_ref:
            raise
        who = str(exc).split(" needs a reference", 1)[0] if " needs a reference" in str(exc) else "a metric"
        names = list(dict.fromkeys(n for p in pairs for n in p.reference_names))
        there = f"its references: {', '.join(names) or 'none'}" if pairs else "e.g. --wmt26-ref refA"
        raise InputError(f"{who} needs a reference: --wmt26 takes it from {opts.wmt26}: name one with --wmt26-ref "
                         f"NAME ({there})") from None


def requested(opts: RunOptions) -> bool:
    return bool(getattr(opts, "wmt26", None))


def check_args(opts: RunOptions) -> None:
    """The option combinations, before anything is read."""
    if not requested(opts):
        WMT26_ONLY.check(opts)
        return
    INPUTS.check(opts, file=opts.wmt26)
    check_systems_given(opts)


def check_no_reference_files(opts: Any) -> None:
    """-r with --wmt26 (rank's check; the main command's is :data:`INPUTS`): the release's references are
    named with --wmt26-ref."""
    if requested(opts):
        INPUTS.without(*(row.attr for row in INPUTS.rows if row.attr != "references")).check(opts, file=opts.wmt26)


def check_systems_given(opts: RunOptions) -> None:
    """--wmt26 needs --wmt26-systems (the main command's and rank's check)."""
    if not opts.wmt26_systems:
        raise UserError(f"--wmt26 {opts.wmt26}: give the system files with --wmt26-systems DIR (data/systems) or "
                        "NAME.jsonl...")


def prepare(opts: RunOptions) -> tuple[Wmt26Pair, TestSet, list[DocumentPlan]]:
    """The pair (``-l``; the only one where the files hold one), its test set and how each document is
    held, read before any model loads; ``pair.lang`` is the pair's ISO 639-1 form (``en-is``), the
    metrics' lang."""
    pairs = read_pairs(opts.wmt26, opts.wmt26_systems, opts.lang, opts.wmt26_source)
    if opts.lang is None and len(pairs) > 1:
        raise UserError(f"--wmt26 {opts.wmt26}: {len(pairs)} language pairs ({', '.join(p.name for p in pairs)}); "
                        "name one with -l")
    pair = pairs[0]
    testset, plans, notes = pair_testset(pair, opts.wmt26_ref or ())
    for text in notes:
        note(opts, text)
    return pair, testset, plans


def read_pairs(testfile: str, paths: list[str], lp: str | None, source: str) -> list[Wmt26Pair]:
    """The release's pairs (``lp``: that one; None: every pair) of ``testfile`` with the system files
    ``paths`` (one folder, or NAME.jsonl files)."""
    systems = paths[0] if len(paths) == 1 and not paths[0].endswith(".jsonl") else paths
    return list(read_wmt26(testfile, systems, lp=lp, source=source).pairs.values())


def pair_testset(pair: Wmt26Pair, references: tuple[str, ...] | list[str]) -> tuple[TestSet, list[DocumentPlan],
                                                                                      list[str]]:
    """A pair's test set (systems that translated every document), how each document is held, and the
    notes: the systems left out, then :func:`plan_notes`."""
    notes = []
    for system in pair.systems:
        skipped = pair.skipped(system)
        if skipped:
            notes.append(f"{pair.name}: {system} left out: it translated {len(pair.hypotheses[system])} of the "
                         f"{len(pair.documents)} documents (first skipped: {skipped[0]})")
    testset, plans = pair.testset(references=references)
    return testset, plans, notes + plan_notes(pair, plans)


def plan_notes(pair: Wmt26Pair, plans: list[DocumentPlan]) -> list[str]:
    """One line for the pair (documents by paragraphs, documents whole, markup repaired), then one per
    document held whole, saying whose paragraph count differs."""
    whole = [p for p in plans if p.unit == "document"]
    faults = sum(sum(r["faults"].values()) for r in pair.summary())
    lines = [f"{pair.name}: {len(plans)} documents, {len(plans) - len(whole)} as their paragraphs "
             f"({sum(p.paragraphs for p in plans if p.unit == 'paragraph')} segments), {len(whole)} whole (a "
             "paragraph count differs: score those with asd:unit=segment to realign them)"
             + (f"; {faults} <p> mark fault(s) in the hypotheses read and repaired" if faults else "")]
    lines += [f"{pair.name}: {p.describe()}" for p in whole]
    return lines
