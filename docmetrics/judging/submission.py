"""A submission to the WMT25 metrics task from one metric's Results on the task's test TSV:
:func:`wmt25_submission` (the file format: :mod:`docmetrics.formats.wmt25_tsv`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from ..values.errors import InputError

if TYPE_CHECKING:
    from ..formats.base import EvalSet
    from ..values.result import Result

__all__ = ["Submission", "wmt25_submission"]


@dataclass(frozen=True)
class Submission:
    """What :func:`wmt25_submission` wrote: ``path`` (the TSV), ``signature_path`` (``path.signature``: the
    metric's signature and how the scores were written), ``lines`` written, ``missing`` (segments without a
    score, written NaN) and ``negated`` (a lower-is-better metric's scores written negated)."""

    path: str
    signature_path: str
    lines: int
    missing: int
    negated: bool


def wmt25_submission(path: str, results: Sequence[Result], data: EvalSet, spec: str | None = None) -> Submission:
    """Write one metric's segment scores on a WMT25 test TSV (``data``: ``read_human(TSV, lp=...)``; ``results``:
    the metric's Results on ``data.testset``, one unit per segment) as a submission in the task's format to
    ``path``: the TSV's lines of the pair with the score column ``overall``, oriented (a lower-is-better metric's
    scores negated, as the task reads higher as better), NaN for a segment without a score; the signature goes to
    ``path.signature`` (the task's readers take no comment line).  ``spec``: how the metric is named there
    (default: its signature).  A metric whose units span several segments is an InputError: the task scores
    segments.

    >>> data = read_human("mteval-task2.tsv", lp="en-de_DE")                            # doctest: +SKIP
    >>> wmt25_submission("predictions.tsv", load("chrf").compute(data.testset), data)   # doctest: +SKIP
    """
    from ..formats.wmt25_tsv import SCORE_FIELD, Wmt25Pair, write_submission

    pair: Any = getattr(data, "raw", None)
    if not isinstance(pair, Wmt25Pair) or pair.tsv is None:
        raise InputError(f"{getattr(data, 'source', data)}: a submission writes the lines of the WMT25 test TSV; "
                         "give what read_human reads from it", params=("data",))
    results = list(results)
    spec = spec or (results[0].signature.format() if results else "the metric")
    n = pair.testset.n_segments
    scores: dict[str, list[float | None]] = {}
    for r in results:
        row: list[float | None] = [None] * n
        for u in r.oriented().units:
            if u.end - u.start != 1:
                raise InputError(f"{spec} scores units of several segments (e.g. lines {u.start + 1}-{u.end} of "
                                 f"document {u.doc_id!r}), so it has no segment scores; the task scores segments: "
                                 "use a metric scoring one segment per unit (slide:w=1,s=1)", params=("results",))
            row[u.start] = u.score
        scores[r.system] = row
    missing = sum(v is None for row in scores.values() for v in row)
    negated = not all(r.higher_is_better for r in results)
    signature = results[0].signature.format() if results else spec
    about = [f"# {SCORE_FIELD}: {spec}, one score per segment of {pair.lp} (set_id {pair.set_id}) from "
             f"{pair.tsv.path}"]
    if negated:
        about.append(f"# lower is better for this metric: {SCORE_FIELD} holds its scores negated (higher is better)")
    if missing:
        about.append(f"# {missing} segment(s) without a score: NaN")
    try:
        side = write_submission(path, pair.tsv, pair, scores, signature, about=about)
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror})", params=("path",)) from None
    return Submission(path, side, sum(len(v) for v in scores.values()), missing, negated)
