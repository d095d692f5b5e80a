"""A run's scores as the main command writes them (:class:`Scores`): the system scores (a line per metric for one
system, a table for several, the scores alone), a TSV per document, unit (chunk) or segment, and JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..values.errors import SpecError
from ..values.result import Result
from ..values.testset import TestSet
from .labels import row_labels
from .paired import ConfidenceInterval
from .text import num, table

__all__ = ["Scores"]


@dataclass
class Scores:
    """Each metric's results on one test set, in order: ``(spec, [Result per system])`` pairs (``[(s.spec,
    s.results) for s in score_metrics(...)]``) or ``{spec: results}``, with each result's confidence interval
    where computed (``intervals``: per metric, per system; :func:`~docmetrics.judging.confidence_intervals` of
    each metric's results), written as the main command writes them: :meth:`to_text` (``-b``, ``-sh``, ``-w``),
    :meth:`to_tsv` (``--level doc|chunk|seg``) and :meth:`to_dict` (``-f json``).

    ``width`` (each method's): the decimals of every score; None: each metric's own (``Result.decimals``: BLEU
    1, as sacrebleu prints it), else 4."""

    metrics: Sequence[tuple[str, Sequence[Result]]]
    testset: TestSet
    intervals: Sequence[Sequence[ConfidenceInterval]] | None = None

    #: the levels: the system scores alone, or the scores per document, per unit (chunk) or per segment
    LEVELS = ("system", "doc", "chunk", "seg")
    #: the columns of :meth:`to_tsv` at each level
    COLUMNS = {
        "doc": ("system", "metric", "spec", "doc_id", "units", "score"),
        "chunk": ("system", "metric", "spec", "doc_id", "unit", "first_line", "last_line", "weight", "group",
                  "truncated", "partial", "score"),
        "seg": ("system", "metric", "spec", "doc_id", "seg", "line", "score"),
    }

    def __post_init__(self) -> None:
        if isinstance(self.metrics, Mapping):
            self.metrics = list(self.metrics.items())

    @staticmethod
    def check_level(level: str, spec: str = "", results: Sequence[Result] = ()) -> None:
        """Refuse (SpecError) a level that is not one of :data:`LEVELS`, and ``"seg"`` where the metric ``spec``
        scores units of several segments (windows, documents): it has no score per segment."""
        if level not in Scores.LEVELS:
            raise SpecError(f"level={level!r}: one of {', '.join(Scores.LEVELS)}", params=("level",))
        for r in results if level == "seg" else ():
            u = r.wide_unit()
            if u is not None:
                raise SpecError(
                    f"level=seg: {spec} scores units of several segments (e.g. lines {u.start + 1}-{u.end} of "
                    f"document {u.doc_id!r}), so it has no per-segment scores; level=chunk gives every unit "
                    "with its first and last line, level=doc every document", params=("level",))

    def to_text(self, *, short: bool = False, width: int | None = None, score_only: bool = False,
                level: str = "system") -> str:
        """The system scores: for one system a line per metric (its signature, score, interval, the metric's
        own detail and its coverage), for several a table (a row per system, a column ``LABEL [k]`` per metric)
        above each metric's signature ``[k]``; ``short``: the short signatures.  ``score_only``: the scores alone
        (one per line for one system, else ``SYSTEM<TAB>SCORE...`` per system).  At ``level`` ``"seg"`` or
        ``"chunk"`` a signature is followed by the unit scores' where theirs differs (BLEU's sentence scores:
        ``eff:yes``), so the :meth:`to_tsv` scores can be reproduced."""
        self.check_level(level)
        columns = [results for _, results in self.metrics]
        n_systems = len(columns[0]) if columns else 0
        if score_only:
            if n_systems == 1:
                return "".join(num(r.score, _width(r, width)) + "\n" for results in columns for r in results)
            return "".join("\t".join([row[0].system, *(num(r.score, _width(r, width)) for r in row)]) + "\n"
                           for row in zip(*columns))
        cis = self.intervals
        out = []
        if n_systems == 1:
            for k, results in enumerate(columns):
                r = results[0]
                detail = f" {r.detail['text']}" if r.detail.get("text") else ""
                extra = f" ({r.coverage.summary()})" if r.coverage is not None else ""
                ci = cis[k][0] if cis else None
                out.append(f"{r.signature.format(short=short)} = {_cell(r, ci, width)}{detail}{extra}\n")
                out.append(_unit_signature(r, short, level))
            return "".join(out) + (ConfidenceInterval.describe(cis) if cis else "")
        out += [self.table(width), "\n", ConfidenceInterval.describe(cis) if cis else ""]
        for k, results in enumerate(columns):
            out.append(f"[{k + 1}] {results[0].signature.format(short=short)}\n")
            out.append(_unit_signature(results[0], short, level, f"[{k + 1}] "))
        return "".join(out)

    def table(self, width: int | None = None) -> str:
        """The system scores as a table: a row per system, a column ``LABEL [k]`` per metric, each score with
        its interval where computed (what :meth:`to_text` prints for several systems, ``--mtme`` for data it
        does not meta-evaluate)."""
        cis = self.intervals
        headers = ["System", *row_labels([spec for spec, _ in self.metrics],
                                         [rs[0].metric if rs else spec for spec, rs in self.metrics])]
        rows = [[row[0].system, *(_cell(r, cis[k][i] if cis else None, width) for k, r in enumerate(row))]
                for i, row in enumerate(zip(*(results for _, results in self.metrics)))]
        return table(headers, rows)

    def to_dict(self, level: str = "system", *, short: bool = False) -> list[dict[str, Any]]:
        """One object per metric and system (:meth:`Result.to_dict` with its ``spec`` and, where computed, its
        ``ci``), with its documents (``level="doc"``) or its documents and units (``"chunk"``, ``"seg"``)."""
        for spec, results in self.metrics:
            self.check_level(level, spec, results)
        data = []
        for k, (spec, results) in enumerate(self.metrics):
            for i, r in enumerate(results):
                d = dict(r.to_dict(level={"chunk": "unit", "seg": "unit"}.get(level, level), short=short), spec=spec)
                if self.intervals:
                    d["ci"] = self.intervals[k][i].to_dict()
                data.append(d)
        return data

    def to_tsv(self, level: str, *, width: int | None = None) -> str:
        """The scores per document (``level="doc"``), unit (``"chunk"``) or segment (``"seg"``) as tab-separated
        values: a header (:data:`COLUMNS`), a row per system, metric and item (``pandas.read_csv(f, sep="\\t")``
        reads it; a tab or a line break inside a cell becomes a space).  ``unit`` counts a document's units and
        ``seg`` its segments, from 1; ``line``, ``first_line`` and ``last_line`` are the test set's, from 1."""
        if level == "system":
            raise SpecError("level='system': the system scores are to_text's; to_tsv writes level doc, chunk "
                            "or seg", params=("level",))
        for spec, results in self.metrics:
            self.check_level(level, spec, results)
        doc_of: dict[int, tuple[int, int]] = {}  # line -> (document number, its first line): ids may reappear
        for k, d in enumerate(self.testset.documents):
            for line in range(d.start, d.end):
                doc_of[line] = (k, d.start)
        rows: list[Sequence[str]] = [self.COLUMNS[level]]
        for spec, results in self.metrics:
            for r in results:
                key, w = [r.system, r.metric, spec], _width(r, width)
                if level == "doc":
                    rows += [key + [d.doc_id, str(d.units), num(d.score, w)] for d in r.docs]
                    continue
                seen: dict[int, int] = {}
                for u in r.units:
                    k, first = doc_of.get(u.start, (-1, 0))
                    seen[k] = seen.get(k, 0) + 1
                    if level == "seg":
                        rows.append(key + [u.doc_id, str(u.start - first + 1), str(u.start + 1), num(u.score, w)])
                    else:
                        rows.append(key + [u.doc_id, str(seen[k]), str(u.start + 1), str(u.end), f"{u.weight:g}",
                                           u.group, str(u.truncated).lower(), str(u.partial).lower(), num(u.score, w)])
        return "".join("\t".join(" ".join(c.split("\t")).replace("\r", " ").replace("\n", " ") for c in row) + "\n"
                       for row in rows)


def _width(result: Result, width: int | None) -> int:
    """The decimals of ``result``'s score: ``width`` where given, else the metric's own, else 4."""
    return width if width is not None else result.decimals or 4


def _cell(r: Result, ci: ConfidenceInterval | None, width: int | None) -> str:
    """A score (its decimals: :func:`_width`), with its interval where computed."""
    w = _width(r, width)
    return num(r.score, w) + (" " + ci.to_text(w) if ci is not None else "")


def _unit_signature(r: Result, short: bool, level: str, prefix: str = "") -> str:
    """At level seg|chunk, the line naming the signature of the unit scores where it is not the system score's."""
    if level not in ("seg", "chunk") or r.unit_signature is None:
        return ""
    return f"{prefix}{'segment' if level == 'seg' else 'unit'} scores: {r.unit_signature.format(short=short)}\n"
