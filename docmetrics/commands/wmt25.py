"""The WMT25 metrics task's files on the command line: ``--wmt25-tsv FILE`` (the test TSV as the data to
score: systems, documents, segments, references of one language pair and set) and ``--write-submission
FILE`` (a submission in the task's format from any one metric, live or stored, with its signature in
``FILE.signature``): ``docmetrics.read_human`` and ``docmetrics.judging.wmt25_submission``."""

from __future__ import annotations

from typing import Any, Sequence

from ..judging import Submission, human_format
from ..values.errors import UserError
from .conflicts import NEEDS_FOR, WITH, Conflicts, Option, Source, replaced_by
from .messages import note
from .options import Options

__all__ = ["WMT25", "check_args", "signature_output", "write"]

#: --wmt25-tsv: the usual input's files it replaces, the options that only mean something with it, those that mean
#: nothing with it.
WMT25 = Source("wmt25_tsv", replaced_by("--wmt25-tsv", "the sources, outputs, references and documents",
                                        ("genmt", "mtme", "human")),
               Conflicts("--wmt25-tsv FILE", NEEDS_FOR, (
                   Option("write_submission", "--write-submission", "writes the lines of the task's test TSV"),
                   Option("wmt25_set", "--wmt25-set", "picks a set of the task's test TSV",
                          default=human_format("wmt25-tsv").defaults["set_id"]))),
               Conflicts("--wmt25-tsv", WITH, (
                   Option("ci", "--ci", "run without --ci, or a paired test (--paired-bs)"),)))


def signature_output(opts: Options) -> tuple[tuple[str, str], ...]:
    """The second file --write-submission writes (FILE.signature), for the one check of every output."""
    path = getattr(opts, "write_submission", None)
    return ((path + Submission.SIGNATURE_SUFFIX, "--write-submission"),) if path else ()


def check_args(opts: Options) -> None:
    """The option combinations, before anything is read."""
    # --write-submission's file and FILE.signature are checked with every output (opts.check_outputs)
    if WMT25.check(opts) and opts.write_submission:
        named = [*opts.metrics, *(s for s in opts.stored or () if s != "all")]
        if len(named) > 1:
            raise UserError(f"--write-submission writes one metric's scores; {len(named)} given ({', '.join(named)}): "
                            "one -m SPEC, or one --scores FILE --stored NAME")


def write(opts: Options, data: Any, all_results: Sequence[tuple[str, list[Any]]]) -> None:
    """--write-submission: ``docmetrics.judging.wmt25_submission`` of the one metric's Results, and what it wrote
    said."""
    from ..judging import wmt25_submission

    if len(all_results) != 1:
        raise UserError(f"--write-submission writes one metric's scores; {len(all_results)} were scored")
    spec, results = all_results[0]
    try:
        done = wmt25_submission(opts.write_submission, results, data, spec)
    except UserError as exc:
        raise UserError(f"--write-submission{':' if 'path' not in exc.params else ''} {exc}") from None
    lost = f", {done.missing} without a score (NaN)" if done.missing else ""
    note(opts, f"wrote {done.path} ({done.lines} lines{lost}" + ("; negated: lower is better)" if done.negated
                                                                else ")"))
    note(opts, f"wrote {done.signature_path} (the signature: the task's readers take no comment line)")
