"""SLIDE, exactly as Raunak, Kocmi and Post (2024) define it.

For each document, a window of w sentences starts at the first sentence and advances by s (s <= w),
never crossing a document boundary.  The window's source sentences are joined with one space, its MT
sentences likewise, and the pair is sent to an unmodified QE model (CometKiwi by default) as one
unit.  The system score is the mean over all chunks of the test set.
"""

from __future__ import annotations

from typing import ClassVar

from docmetrics.algorithms.windows import PARTIAL_POLICIES, slide_windows
from docmetrics.plugin.backbone import QE, REFERENCE, Unit
from docmetrics.plugin.metric import Metric
from docmetrics.values.errors import InputError, SpecError
from docmetrics.values.params import Param
from docmetrics.values.result import Coverage, DocScore, Result, UnitScore
from docmetrics.values.testset import TestSet

JOINER = " "


class SlideMetric(Metric):
    name: ClassVar[str] = "slide"
    description: ClassVar[str] = (
        "SLIDE: windows of w sentences at stride s, each chunk scored as one unit by a QE model"
    )
    citation: ClassVar[str] = (
        "Vikas Raunak, Tom Kocmi and Matt Post. 2024. SLIDE: Reference-free Evaluation for Machine "
        "Translation using a Sliding Document Window. NAACL 2024 (short papers). "
        "WMT23 submission: Raunak, Kocmi and Post. 2023. The SLIDE metric submission to the WMT 2023 "
        "metrics task."
    )
    details: ClassVar[str] = """\
Windows: full windows start at sentences 0, s, 2s, ... of each document while start + w <= the
document's length; windows never cross a document boundary (a new document starts wherever the doc id
changes).  A chunk's source sentences are joined with one space, its MT sentences likewise (and its
reference sentences, when the backbone is reference-based, e.g. wmt22-comet-da as in the paper's
Figure 2), and the chunk is scored as ONE unit by the backbone.  Identical chunks (same source, MT
and reference text, in any system) are scored once.

Partial chunks (partial=):
  drop      the paper's default (Section 2, WMT23 submission): a document shorter than w, and the
            remainder of a document (the sentences after the end of its last full window), are not
            scored; the system score is the plain mean over full chunks.
  keep      Appendix A.1, Figure 4(a): a document shorter than w becomes one chunk holding the whole
            document; a remainder becomes one chunk holding exactly the sentences no full window
            covers (from the end of the last full window to the end of the document).  Every chunk
            weighs 1 in the mean.
  weighted  Appendix A.1, Figure 4(b): the same chunks as keep, each chunk's score multiplied by
            its number of sentences; the system score is sum(n_i * score_i) / sum(n_i), a weighted
            mean that keeps the model's scale (the paper's "multiplying ... prior to averaging").
Example (paper's Figure 1, w=4, s=2): a 3-sentence document gives no chunk under drop and one chunk
[1-3] otherwise; a 7-sentence document gives [1-4], [3-6] and, under keep/weighted, the remainder [7].

Reported: coverage (sentences inside at least one scored chunk / all sentences), the number of
chunks, and how many chunks were cut at the model's maximum input length (the paper's Table 3:
with w >= 6 many CometKiwi chunks exceed 512 tokens).  Per-document scores are the (weighted) mean of
the document's chunks; a document with no chunk has no score."""
    params: ClassVar[tuple[Param, ...]] = (
        Param("w", int, 6, "window: sentences per chunk", minimum=1),
        Param("s", int, 6, "stride: sentences the window advances (s <= w)", minimum=1),
        Param("partial", str, "drop", "what to do with documents shorter than w and remainders",
              choices=PARTIAL_POLICIES, short="p"),
    )
    default_backbone: ClassVar[str | None] = "comet"
    default_model: ClassVar[str | None] = "Unbabel/wmt22-cometkiwi-da"
    needs: ClassVar[tuple[frozenset[str], ...]] = (frozenset({QE}), frozenset({REFERENCE}))

    def validate(self) -> None:
        if self.p["s"] > self.p["w"]:
            raise SpecError(
                f"slide: parameter 's' ({self.p['s']}) must be <= 'w' ({self.p['w']}); "
                "the stride cannot skip sentences"
            )

    def compute(self, testset: TestSet) -> list[Result]:
        caps = self.check_backbone()
        use_ref = QE not in caps  # a reference-based backbone (e.g. wmt22-comet-da)
        self.require(testset, source=True, reference=use_ref,
                     why="the backbone's model is reference-based" if use_ref else "")
        w, s, policy = self.p["w"], self.p["s"], self.p["partial"]
        assert testset.sources is not None
        src = testset.sources
        ref = testset.references

        # chunks per document, shared by every system
        chunks: list[tuple[str, int, int, bool]] = []  # (doc_id, start, end, partial), test-set lines
        doc_chunks: list[range] = []  # which chunks belong to each document
        for doc in testset.documents:
            first = len(chunks)
            for win in slide_windows(len(doc), w, s, policy):
                chunks.append((doc.doc_id, doc.start + win.start, doc.start + win.end, win.partial))
            doc_chunks.append(range(first, len(chunks)))
        if not chunks:
            longest = max(len(d) for d in testset.documents)
            raise InputError(
                f"slide: no chunk to score: every document is shorter than w={w} (the longest has "
                f"{longest} sentences); use a smaller w, or partial=keep to score short documents whole"
            )

        def join(lines: list[str], a: int, b: int) -> str:
            return JOINER.join(lines[a:b])

        units: list[Unit] = []
        for hyp in testset.systems.values():
            for _, a, b, _ in chunks:
                units.append(Unit(
                    mt=join(hyp, a, b), src=join(src, a, b),
                    ref=join(ref, a, b) if use_ref and ref is not None else None,
                ))
        out = self.score_units(units)

        covered = [False] * testset.n_segments
        for _, a, b, _ in chunks:
            for i in range(a, b):
                covered[i] = True
        seg_scored = sum(covered)
        signature = self.signature()
        params = self.param_values()
        results = []
        for k, system in enumerate(testset.systems):
            unit_scores: list[UnitScore] = []
            for j, (doc_id, a, b, partial) in enumerate(chunks):
                idx = k * len(chunks) + j
                weight = float(b - a) if policy == "weighted" else 1.0
                unit_scores.append(UnitScore(doc_id, a, b, float(out.scores[idx]), weight,
                                             bool(out.truncated[idx]), partial))
            score = _weighted_mean(unit_scores)
            docs = []
            for doc, span in zip(testset.documents, doc_chunks):
                mine = unit_scores[span.start:span.stop]
                docs.append(DocScore(doc.doc_id, _weighted_mean(mine) if mine else None, len(mine)))
            coverage = Coverage(
                segments_total=testset.n_segments, segments_scored=seg_scored, units=len(chunks),
                units_truncated=sum(u.truncated for u in unit_scores),
                documents_total=len(testset.documents),
                documents_scored=sum(d.units > 0 for d in docs),
            )
            results.append(Result(system, self.name, score, signature, params, unit_scores, docs, coverage))
        return results


def _weighted_mean(units: list[UnitScore]) -> float:
    total = sum(u.weight for u in units)
    if total == 0:
        return float("nan")
    return sum(u.score * u.weight for u in units) / total
