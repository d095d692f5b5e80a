"""Choosing among candidate translations with a metric, per document or per segment: minimum-Bayes-risk
(MBR) decoding, each candidate scored against the others as pseudo-references (``comet-mbr``'s computation, at
any unit), and reranking, each candidate scored by a QE metric or against a true reference (an oracle).

The N x N utility matrix is ONE scoring pass of the metric: a test set whose systems are the candidates and
whose documents are repeated once per pseudo-reference (block ``j`` has candidate ``j`` as its reference), so
a backbone that embeds each distinct text once (COMET's estimators, BERTScore) embeds N candidates per unit,
not N^2.  Nothing here imports torch, parses arguments or prints.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence, Union

from ..api import load
from ..plugin.metric import Metric
from ..runtime.session import Session
from ..values.errors import InputError, SpecError
from ..values.result import Result
from ..values.testset import TestSet

__all__ = ["mbr", "rerank", "CandidateSelection", "UnitChoice", "UNITS", "TIES"]

#: --unit: one choice per document (a document's candidate is one system's translation of it), per paragraph
#: (a maximal run of lines of one document with the same paragraph id: ``paragraph_ids``) or per segment.
UNITS = ("document", "paragraph", "segment")
#: How ties are broken, as the results state it.
TIES = "first candidate in the given order"

Candidates = Union[TestSet, Mapping[str, Sequence[str]], Sequence[Sequence[str]]]


@dataclass(frozen=True)
class UnitChoice:
    """The choice in one unit (a document, or a segment): each candidate's utility (None where pruned away),
    the chosen candidate's index, and on request the pairwise matrix ``matrix[i][j]``: candidate i scored with
    candidate j as its reference (None on the diagonal and where pruned)."""

    doc_id: str
    start: int  # first line, 0-based, of the whole input
    end: int
    utilities: list[float | None]
    chosen: int
    matrix: list[list[float | None]] | None = None
    reference_scores: list[float] | None = None  # every candidate against the true reference (mbr with -r)
    paragraph_id: str | None = None  # unit="paragraph": the paragraph's id (from paragraph_ids)

    @property
    def label(self) -> str:
        """How the text output names the unit: its doc id, and ``#PARAGRAPH`` per paragraph."""
        return self.doc_id if self.paragraph_id is None else f"{self.doc_id}#{self.paragraph_id}"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"doc_id": self.doc_id}
        if self.paragraph_id is not None:
            d["paragraph_id"] = self.paragraph_id
        d.update({"first_line": self.start + 1, "last_line": self.end, "utilities": self.utilities,
                  "chosen": self.chosen})
        if self.reference_scores is not None:
            d["reference_scores"] = self.reference_scores
        if self.matrix is not None:
            d["matrix"] = self.matrix
        return d


@dataclass(frozen=True)
class CandidateSelection:
    """What :func:`mbr` or :func:`rerank` chose: one :class:`UnitChoice` per unit, and the chosen lines."""

    method: str  # "mbr" or "rerank"
    metric: str
    spec: str
    signature: str
    candidates: list[str]
    unit: str
    higher_is_better: bool
    units: list[UnitChoice]
    lines: list[str]
    prune_signature: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def chosen(self) -> list[int]:
        return [u.chosen for u in self.units]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "method": self.method, "metric": self.metric, "spec": self.spec, "signature": self.signature,
            "candidates": self.candidates, "unit": self.unit, "higher_is_better": self.higher_is_better,
            "ties": TIES, "utility": "mean" if self.method == "mbr" else "score",
            "chosen_counts": self.counts(), "units": [u.to_dict() for u in self.units],
        }
        if self.prune_signature is not None:
            d["prune_signature"] = self.prune_signature
        return d

    def counts(self) -> dict[str, int]:
        """How many units chose each candidate."""
        return {name: sum(u.chosen == k for u in self.units) for k, name in enumerate(self.candidates)}

    def to_text(self) -> str:
        what = "expected utility (mean over the other candidates as references)" if self.method == "mbr" else "score"
        best = "highest" if self.higher_is_better else "lowest (lower is better)"
        out = [f"{self.method}: {len(self.units)} {self.unit}(s), {len(self.candidates)} candidates; the {best} "
               f"{what} wins, ties to the {TIES}", f"signature: {self.signature}"]
        if self.prune_signature:
            out.append(f"pruned by: {self.prune_signature}")
        width = max(len(n) for n in self.candidates)
        for name, n in self.counts().items():
            out.append(f"  {name:<{width}}  chosen in {n} of {len(self.units)}")
        out.append("unit\tlines\tchosen\t" + ("utility" if self.method == "mbr" else "score"))
        for u in self.units:
            lines = f"{u.start + 1}-{u.end}" if u.end - u.start > 1 else str(u.end)
            out.append(f"{u.label}\t{lines}\t{self.candidates[u.chosen]}\t{u.utilities[u.chosen]:.4f}")
        return "\n".join(out + self.notes) + "\n"


# -- the public calls ---------------------------------------------------------------------------------------
def mbr(metric: str | Metric, candidates: Candidates, *, sources: Sequence[str] | None = None,
        references: Sequence[str] | None = None, doc_ids: Sequence[str] | None = None, unit: str = "document",
        paragraph_ids: Sequence[str] | None = None, matrix: bool = False, prune_top_k: int | None = None,
        prune_metric: str | Metric | None = None, session: Session | None = None) -> CandidateSelection:
    """MBR decoding: in each unit, the candidate whose mean score against every other candidate (as the
    reference) is best, in the direction of the metric's Result (MetricX: lowest).  ``candidates``: a mapping
    name -> lines, a list of line lists, or a :class:`TestSet` whose systems are the candidates (N >= 2,
    line-parallel with ``sources``).  ``references``: a true reference, scored beside (``reference_scores``),
    never used to choose.  ``unit="paragraph"`` with ``paragraph_ids`` (one id per line): a paragraph is a
    maximal run of lines of one document with the same id, scored as a document of its own.
    ``prune_top_k`` with a QE ``prune_metric``: only the K best candidates of each unit by QE enter MBR
    (``comet-mbr --rerank_top_k K --qe_model``)."""
    with _session(session) as session:
        units = _units(_testset(candidates, sources, references, doc_ids), unit, paragraph_ids)
        return _mbr(metric, units, matrix, prune_top_k, prune_metric, session)


@dataclass(frozen=True)
class _Units:
    """The units to choose in: ``spans`` (doc id, first line, end line) and each one's paragraph id (None but
    per paragraph); ``scored``: the test set as the metric scores it, ``by``: ``document`` or ``segment`` (per
    paragraph, ``scored`` has one document per paragraph, scored as documents)."""

    testset: TestSet
    unit: str
    spans: list[tuple[str, int, int]]
    paragraphs: list[str | None]
    scored: TestSet
    by: str


def _mbr(metric: str | Metric, units: _Units, matrix: bool, prune_top_k: int | None,
         prune_metric: str | Metric | None, session: Session) -> CandidateSelection:
    scorer = metric if isinstance(metric, Metric) else load(metric, session=session)
    testset, spans, unit = units.scored, units.spans, units.unit
    names = list(testset.systems)
    _at_least_two(testset, "mbr")
    if not _uses_reference(scorer, testset):
        raise SpecError(f"mbr: {scorer.name} scores without a reference (a QE metric), so the other candidates "
                        "cannot serve as references; use a reference-based metric (e.g. chrf, doc-comet with a "
                        "COMET-DA model), or rank the candidates by QE with rerank")
    slots = [list(range(len(names))) for _ in spans]
    prune_signature = None
    if prune_top_k is not None or prune_metric is not None:
        slots, prune_signature = _pruned(units, prune_top_k, prune_metric, session)
    k = len(slots[0])
    truth = testset.references
    results = _score_blocks(scorer, testset, spans, slots)
    higher = results[0].higher_is_better
    scores = [_unit_scores(r, spans, k + (truth is not None), units.by, scorer.spec()) for r in results]
    chosen_units = []
    for u, (doc_id, a, b) in enumerate(spans):
        m: list[list[float | None]] = [[None] * len(names) for _ in names]
        for i in range(k):
            for j in range(k):
                if i != j:
                    m[slots[u][i]][slots[u][j]] = scores[i][j][u]
        utilities: list[float | None] = [None] * len(names)
        for i in range(k):
            row = [scores[i][j][u] for j in range(k) if j != i]
            utilities[slots[u][i]] = math.fsum(row) / len(row)
        ref_scores: list[float | None] | None = None
        if truth is not None:  # a pruned candidate, or one the metric gave no score: None
            ref_scores = [None] * len(names)
            for i in range(k):
                ref_scores[slots[u][i]] = None if math.isnan(scores[i][k][u]) else scores[i][k][u]
        chosen_units.append(UnitChoice(doc_id, a, b, utilities, best(utilities, higher),
                                       m if matrix else None, ref_scores, units.paragraphs[u]))
    signature = f"{results[0].signature}|mbr|n:{len(names)}|unit:{unit}|utility:mean"
    if prune_top_k is not None:
        signature += f"|prune-top-k:{k}"
    return _selection("mbr", scorer, results[0], units.testset, unit, chosen_units, signature, prune_signature)


def rerank(metric: str | Metric, candidates: Candidates, *, sources: Sequence[str] | None = None,
           references: Sequence[str] | None = None, doc_ids: Sequence[str] | None = None, unit: str = "document",
           paragraph_ids: Sequence[str] | None = None, session: Session | None = None) -> CandidateSelection:
    """Reranking: in each unit, the candidate with the best score, by a QE metric (no ``references``) or by a
    reference-based metric against ``references`` (an oracle); the direction is the Result's, ties go to the
    first candidate.  ``unit`` and ``paragraph_ids`` as for :func:`mbr`."""
    with _session(session) as session:
        units = _units(_testset(candidates, sources, references, doc_ids), unit, paragraph_ids)
        return _rerank(metric, units, session)


def _rerank(metric: str | Metric, units: _Units, session: Session) -> CandidateSelection:
    scorer = metric if isinstance(metric, Metric) else load(metric, session=session)
    testset, spans, unit = units.scored, units.spans, units.unit
    _at_least_two(testset, "rerank")
    if testset.references is None and _needs_reference(scorer, testset):
        raise SpecError(f"rerank: {scorer.name} is reference-based and no reference was given: give the "
                        "reference (references=FILE) for an oracle rerank, or use a QE metric (e.g. slide "
                        "with CometKiwi, doc-comet-qe)", params=("references",))
    if testset.references is not None and not _uses_reference(scorer, testset):
        ref = testset.names.get("reference", "the reference")
        raise SpecError(f"rerank: {scorer.name} is a QE metric and does not read the reference {ref}; drop "
                        "references= to rerank by QE, or use a reference-based metric for an "
                        "oracle rerank", params=("references",))
    results = scorer.compute(testset)
    per = [_unit_scores(r, spans, 1, units.by, scorer.spec())[0] for r in results]
    higher = results[0].higher_is_better
    chosen_units = []
    for u, (doc_id, a, b) in enumerate(spans):
        utilities: list[float | None] = [per[i][u] for i in range(len(results))]
        chosen_units.append(UnitChoice(doc_id, a, b, utilities, best(utilities, higher),
                                       paragraph_id=units.paragraphs[u]))
    oracle = "yes" if testset.references is not None else "no"
    signature = f"{results[0].signature}|rerank|n:{len(results)}|unit:{unit}|oracle:{oracle}"
    return _selection("rerank", scorer, results[0], units.testset, unit, chosen_units, signature, None)


def best(utilities: Sequence[float | None], higher_is_better: bool) -> int:
    """The index of the best utility (None: not a candidate here) in the given direction; ties go to the first."""
    found = -1
    for k, value in enumerate(utilities):
        if value is None or math.isnan(value):
            continue
        if found < 0 or (value > utilities[found] if higher_is_better else value < utilities[found]):  # type: ignore[operator]
            found = k
    if found < 0:
        raise InputError("no candidate has a score in this unit; check the inputs (empty lines?)")
    return found


# -- the pieces -----------------------------------------------------------------------------------------------
def _session(session: Session | None) -> contextlib.AbstractContextManager[Session]:
    """``session``, or one of the call's own (no score cache), closed at the end."""
    return contextlib.nullcontext(session) if session is not None else Session(cache=None)


def _testset(candidates: Candidates, sources: Sequence[str] | None, references: Sequence[str] | None,
             doc_ids: Sequence[str] | None) -> TestSet:
    if isinstance(candidates, TestSet):
        if sources is not None or references is not None or doc_ids is not None:
            raise InputError("give sources, references and doc ids inside the TestSet of candidates, not beside it",
                             params=("sources", "references", "doc_ids"))
        if len(candidates.all_references) > 1:
            raise InputError(f"{len(candidates.all_references)} references given: mbr and rerank take one "
                             "(score each in its own run)")
        return candidates
    if isinstance(candidates, Mapping):
        systems = {str(k): list(v) for k, v in candidates.items()}
    else:
        systems = {f"candidate {k}": list(v) for k, v in enumerate(candidates)}
    return TestSet.from_lists(systems, sources, references, doc_ids)


def _at_least_two(testset: TestSet, who: str) -> None:
    if len(testset.systems) < 2:
        given = ", ".join(testset.describe(n) for n in testset.systems)
        raise InputError(f"{who} chooses among candidates and 1 was given ({given}): give N >= 2 candidates, "
                         "line-parallel with the source (candidates=A.txt B.txt ...)", params=("candidates",))


def _units(testset: TestSet, unit: str, paragraph_ids: Sequence[str] | None) -> _Units:
    """The units of ``testset`` for ``unit``; per paragraph, the test set as scored has one document per
    paragraph (its id: the paragraph's index, so the metric sees each paragraph as a document of its own)."""
    if unit not in UNITS:
        raise SpecError(f"unit={unit!r}: choose one of {', '.join(UNITS)}", params=("unit",))
    if unit != "paragraph":
        if paragraph_ids is not None:
            raise SpecError(f"paragraph_ids= given with unit={unit}: paragraph ids only say where the units of "
                            "unit=paragraph are; give unit=paragraph, or drop paragraph_ids=",
                            params=("paragraph_ids", "unit"))
        if unit == "document":
            spans = [(d.doc_id, d.start, d.end) for d in testset.documents]
        else:
            spans = [(d.doc_id, i, i + 1) for d in testset.documents for i in range(d.start, d.end)]
        return _Units(testset, unit, spans, [None] * len(spans), testset, unit)
    where = testset.names.get("paragraph ids", "paragraph_ids")
    if paragraph_ids is None:
        raise SpecError("unit=paragraph needs paragraph_ids=FILE: the id of each line's paragraph, line-parallel "
                        "with the candidates (a new paragraph starts where the id changes within a document)",
                        params=("unit", "paragraph_ids"))
    if isinstance(paragraph_ids, str) or not all(isinstance(p, str) for p in paragraph_ids):
        raise InputError(f"{where}: give a list of strings, one paragraph id per line", params=("paragraph_ids",))
    ids = list(paragraph_ids)
    n = testset.n_segments
    if len(ids) != n:
        raise InputError(f"{where}: {len(ids)} paragraph ids for {n} lines of candidates; give one paragraph id "
                         "per line, line-parallel with the candidates (like the doc ids)", params=("paragraph_ids",))
    spans: list[tuple[str, int, int]] = []
    paragraphs: list[str | None] = []
    for d in testset.documents:
        seen: set[str] = set()
        start = d.start
        for i in range(d.start, d.end + 1):
            if i < d.end and not ids[i].strip():
                raise InputError(f"{where}, line {testset.line_of(i)}: empty paragraph id; every line needs the "
                                 "id of its paragraph", params=("paragraph_ids",))
            if i == d.end or ids[i] != ids[start]:
                if ids[start] in seen:
                    raise InputError(f"{where}, line {testset.line_of(start)}: paragraph {ids[start]!r} of "
                                     f"document {d.doc_id!r} reappears after another paragraph; a paragraph's "
                                     "lines must be consecutive (give the second run its own id)",
                                     params=("paragraph_ids",))
                seen.add(ids[start])
                spans.append((d.doc_id, start, i))
                paragraphs.append(ids[start])
                start = i
    per_paragraph = [str(k) for k, (_, a, b) in enumerate(spans) for _ in range(a, b)]
    with warnings.catch_warnings():  # the candidates' own warnings were given when they were read
        warnings.simplefilter("ignore")
        scored = TestSet(dict(testset.systems), testset.sources, testset.references, per_paragraph,
                         names=dict(testset.names), line_numbers=testset.line_numbers, lp=testset.lp)
    return _Units(testset, "paragraph", spans, paragraphs, scored, "document")


def _without_references(testset: TestSet) -> TestSet:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TestSet(dict(testset.systems), testset.sources, None, testset.doc_ids, names=dict(testset.names))


def _needs_reference(metric: Metric, testset: TestSet) -> bool:
    """Whether ``metric`` refuses to score ``testset`` without its reference (its own check, before any scoring)."""
    try:
        metric.check_inputs(_without_references(testset))
    except InputError as exc:
        if "references" in exc.params:  # Metric.require(reference=True)
            return True
        raise
    return False


def _uses_reference(metric: Metric, testset: TestSet) -> bool:
    """Whether ``metric`` reads a reference: it needs one, or its backbone scores against one."""
    return _needs_reference(metric, testset) or metric.reference_based()


def _score_blocks(metric: Metric, testset: TestSet, spans: list[tuple[str, int, int]], slots: list[list[int]]
                  ) -> list[Result]:
    """One scoring pass: system i holds, in each unit, the candidate of slot i; block j of the documents has,
    in each unit, the candidate of slot j as reference (and a last block the true reference, where given)."""
    texts = list(testset.systems.values())
    blocks = [[s[j] for s in slots] for j in range(len(slots[0]))]
    n_lines = testset.n_segments

    def assemble(choice: Sequence[int]) -> list[str]:
        out = [""] * n_lines
        for (_, a, b), c in zip(spans, choice):
            out[a:b] = texts[c][a:b]
        return out

    ids = testset.doc_ids if testset.doc_ids is not None else [""] * n_lines
    truth = testset.references
    refs = [assemble(b) for b in blocks] + ([list(truth)] if truth is not None else [])
    systems = {f"slot {i}": assemble(b) * len(refs) for i, b in enumerate(blocks)}
    stacked_ids = [f"{j}|{d}" for j in range(len(refs)) for d in ids]  # block j's copy of each document
    src = testset.sources * len(refs) if testset.sources is not None else None
    with warnings.catch_warnings():  # the candidates' own warnings were given when they were read
        warnings.simplefilter("ignore")
        stacked = TestSet(systems, src, [line for r in refs for line in r], stacked_ids)
    if len(stacked.documents) != len(refs) * len(testset.documents):
        raise AssertionError("stacked documents do not line up with the test set's")
    return metric.compute(stacked)


def _unit_scores(result: Result, spans: list[tuple[str, int, int]], n_blocks: int, unit: str,
                 spec: str) -> list[list[float]]:
    """``scores[block][unit]`` of one system of the stacked test set."""
    n_units = len(spans)
    if unit == "document":
        docs = result.docs
        values = [d.score for d in docs]
        if any(v is None for v in values):
            missing = next(d.doc_id.split("|", 1)[-1] for d in docs if d.score is None)
            raise InputError(f"{spec}: document {missing!r} has no score (no unit to score in it), so its "
                             "candidates cannot be compared")
        return [[float(v) for v in values[j * n_units:(j + 1) * n_units]] for j in range(n_blocks)]  # type: ignore[arg-type]
    n_lines = spans[-1][2]
    wide = result.wide_unit()
    if wide is not None:
        raise SpecError(f"unit=segment: {spec} scores units of several segments (lines {wide.start % n_lines + 1}-"
                        f"{(wide.end - 1) % n_lines + 1}), so it has no per-segment scores; use unit=document "
                        "(per document), or a metric that scores one segment per unit (slide with w=1, doc-* "
                        "with any k)",
                        params=("unit",))
    by_line = {us.start: us.score for us in result.units}
    out = []
    for j in range(n_blocks):
        row = []
        for _, a, _ in spans:
            if j * n_lines + a not in by_line:
                raise InputError(f"{spec}: line {a + 1} has no score, so its candidates cannot be compared")
            row.append(by_line[j * n_lines + a])
        out.append(row)
    return out


def _pruned(units: _Units, k: int | None, qe: str | Metric | None,
            session: Session) -> tuple[list[list[int]], str]:
    """The K best candidates of each unit by the QE metric (in candidate order within the best K' scores:
    ties to the first), and that metric's signature."""
    if k is None or qe is None:
        raise SpecError("pruning needs both prune_top_k=K and prune_metric=QE_SPEC",
                        params=("prune_top_k", "prune_metric"))
    n = len(units.testset.systems)
    if not 2 <= k <= n:
        raise SpecError(f"prune_top_k={k}: keep from 2 to {n} (the number of candidates) per unit",
                        params=("prune_top_k",))
    ranked = _rerank(qe, replace(units, scored=_without_references(units.scored)), session)
    higher = ranked.higher_is_better
    slots = []
    for u in ranked.units:
        order = sorted(range(n), key=lambda c: (-(u.utilities[c] or 0.0) if higher else (u.utilities[c] or 0.0), c))
        slots.append(sorted(order[:k]))
    return slots, ranked.signature


def _selection(method: str, metric: Metric, first: Result, testset: TestSet, unit: str, units: list[UnitChoice],
               signature: str, prune_signature: str | None) -> CandidateSelection:
    texts = list(testset.systems.values())
    lines = [line for u in units for line in texts[u.chosen][u.start:u.end]]
    return CandidateSelection(method, metric.name, metric.spec(), signature,
                              [testset.names.get(n, n) for n in testset.systems], unit, first.higher_is_better, units,
                              lines, prune_signature)
