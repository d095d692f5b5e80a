"""The WMT25 metrics task's files on the command line: ``--wmt25-tsv FILE`` (the test TSV as the data to
score: systems, documents, segments, references of one language pair and set) and ``--write-submission
FILE`` (a submission in the task's format from any one metric, live or stored, with its signature in
``FILE.signature``), :mod:`docmetrics.formats.wmt25_tsv`."""

from __future__ import annotations

from typing import Sequence

from ..formats.wmt25_tsv import (
    OFFICIAL,
    SCORE_FIELD,
    SIGNATURE_SUFFIX,
    Wmt25Pair,
    Wmt25Tsv,
    read_wmt25_tsv,
    write_submission,
)
from ..values.errors import UserError
from ..values.result import Result
from .conflicts import NEEDS_FOR, WITH, Conflicts, Option
from .messages import note
from .options import RunOptions

__all__ = ["requested", "check_args", "prepare", "write"]

#: Options that the TSV replaces.
INPUTS = Conflicts("--wmt25-tsv", "--wmt25-tsv reads the sources, outputs, references and documents from {file}: "
                   "drop {option}", tuple(Option(attr, flag) for attr, flag in (
                       ("input", "-i"), ("source", "-s"), ("references", "-r"), ("doc_ids", "--doc-ids"),
                       ("jsonl", "--jsonl"), ("doc_per_line", "--doc-per-line"), ("genmt", "--genmt"),
                       ("mtme", "--mtme"), ("human", "--human"))))
#: Options that mean nothing with the TSV.
REFUSED = Conflicts("--wmt25-tsv", WITH, (
    Option("ci", "--ci", "run without --ci, or a paired test (--paired-bs)"),))
#: Options that only mean something with the TSV.
WMT25_ONLY = Conflicts("--wmt25-tsv FILE", NEEDS_FOR, (
    Option("write_submission", "--write-submission", "writes the lines of the task's test TSV"),
    Option("wmt25_set", "--wmt25-set", "picks a set of the task's test TSV", default=OFFICIAL)))


def signature_output(opts: RunOptions) -> tuple[tuple[str, str], ...]:
    """The second file --write-submission writes (FILE.signature), for the one check of every output."""
    path = getattr(opts, "write_submission", None)
    return ((path + SIGNATURE_SUFFIX, "--write-submission"),) if path else ()


def requested(opts: RunOptions) -> bool:
    return bool(getattr(opts, "wmt25_tsv", None))


def check_args(opts: RunOptions) -> None:
    """The option combinations, before anything is read."""
    if not requested(opts):
        WMT25_ONLY.check(opts)
        return
    INPUTS.check(opts, file=opts.wmt25_tsv)
    REFUSED.check(opts)
    if opts.write_submission:  # the file and FILE.signature are checked with every output (opts.check_outputs)
        named = [*opts.metrics, *(s for s in opts.stored or () if s != "all")]
        if len(named) > 1:
            raise UserError(f"--write-submission writes one metric's scores; {len(named)} given ({', '.join(named)}): "
                            "one -m SPEC, or one --scores FILE --stored NAME")


def prepare(opts: RunOptions) -> tuple[Wmt25Tsv, Wmt25Pair]:
    """The TSV and its pair (the pair's name: ``pair.lp``), read and checked before any model loads."""
    data = read_wmt25_tsv(opts.wmt25_tsv)
    pair = data.pair(opts.lang, opts.wmt25_set)
    for text in pair.notes:
        note(opts, text)
    return data, pair


def write(opts: RunOptions, data: Wmt25Tsv, pair: Wmt25Pair,
          all_results: Sequence[tuple[str, list[Result]]]) -> None:
    """--write-submission: the one metric's segment scores, oriented (a lower-is-better metric's negated, as the
    task reads higher as better), each unit one segment."""
    if len(all_results) != 1:
        raise UserError(f"--write-submission writes one metric's scores; {len(all_results)} were scored")
    spec, results = all_results[0]
    n = pair.testset.n_segments
    scores: dict[str, list[float | None]] = {}
    for r in results:
        row: list[float | None] = [None] * n
        for u in r.oriented().units:
            if u.end - u.start != 1:
                raise UserError(f"--write-submission: {spec} scores units of several segments (e.g. lines "
                                f"{u.start + 1}-{u.end} of document {u.doc_id!r}), so it has no segment scores; "
                                "the task scores segments: use a metric scoring one segment per unit (slide:w=1,s=1)")
            row[u.start] = u.score
        scores[r.system] = row
    missing = sum(v is None for row in scores.values() for v in row)
    negated = not all(r.higher_is_better for r in results)
    signature = results[0].signature.format() if results else spec
    about = [f"# {SCORE_FIELD}: {spec}, one score per segment of {pair.lp} (set_id {pair.set_id}) from {data.path}"]
    if negated:
        about.append(f"# lower is better for this metric: {SCORE_FIELD} holds its scores negated (higher is better)")
    if missing:
        about.append(f"# {missing} segment(s) without a score: NaN")
    try:
        side = write_submission(opts.write_submission, data, pair, scores, signature, about=about)
    except OSError as exc:
        raise UserError(f"--write-submission {opts.write_submission}: cannot write ({exc.strerror})") from None
    lost = f", {missing} without a score (NaN)" if missing else ""
    note(opts, f"wrote {opts.write_submission} ({sum(len(v) for v in scores.values())} lines{lost}; negated: lower "
               f"is better)" if negated else f"wrote {opts.write_submission} "
               f"({sum(len(v) for v in scores.values())} lines{lost})")
    note(opts, f"wrote {side} (the signature: the task's readers take no comment line)")
