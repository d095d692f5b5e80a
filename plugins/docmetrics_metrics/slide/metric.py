"""SLIDE, exactly as Raunak, Kocmi and Post (2024) define it.

For each document, a window of w sentences starts at the first sentence and advances by s (s <= w),
never crossing a document boundary.  The window's source sentences are joined with one space, its MT
sentences likewise, and the pair is sent to an unmodified QE model (CometKiwi by default) as one
unit.  The system score is the mean over all chunks of the test set.
"""

from __future__ import annotations

from typing import Any, ClassVar

from docmetrics.algorithms.windows import PARTIAL_POLICIES, slide_windows
from docmetrics.plugin.backbone import QE, REFERENCE
from docmetrics.plugin.metric import Metric, Scorer
from docmetrics.values.errors import InputError, SpecError
from docmetrics.values.params import Param
from docmetrics.values.result import Result
from docmetrics.values.testset import TestSet
from docmetrics.values.units import ScoringUnit, Unit, UnitPlan

from .spans import first_window_spans, severity_counts

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
the document's chunks; a document with no chunk has no score.

Error spans (a backbone that gives them: XCOMET): each chunk's spans, in its joined MT text, are
given to the sentences they fall in (a span across the joining space is split, its pieces keep its
severity and confidence); where windows overlap (s < w) a sentence takes the spans of its first
window, the one that gives it the most preceding context, so each character is judged once.  -f json
gives them per sentence in detail.segment_spans (line, doc_id, seg, spans), the chunk's own in
units[].spans (--level chunk); the coverage line counts them per system and severity."""
    params: ClassVar[tuple[Param, ...]] = (
        Param("w", int, 6, "window: sentences per chunk", minimum=1),
        Param("s", int, 6, "stride: sentences the window advances (s <= w)", minimum=1),
        Param("partial", str, "drop", "what to do with documents shorter than w and remainders",
              choices=PARTIAL_POLICIES, short="p"),
    )
    default_backbone: ClassVar[str | None] = "comet"
    default_model: ClassVar[str | None] = "Unbabel/wmt22-cometkiwi-da"
    needs: ClassVar[tuple[frozenset[str], ...]] = (frozenset({QE}), frozenset({REFERENCE}))

    def reads_neighbours(self) -> bool:
        return bool(self.p["w"] > 1)

    def truncation_fix(self) -> str:
        if self.p["w"] == 1:
            return ("use a model that takes longer inputs (each window is one segment already; a segment of "
                    "several sentences, e.g. a paragraph, is scored whole, uncut, by asd:unit=segment)")
        return (f"use smaller windows (w={self.p['w']} sentences now; slide:w=1,s=1 scores one sentence at a "
                "time), or a model that takes longer inputs")

    def validate(self) -> None:
        if self.p["s"] > self.p["w"]:
            raise SpecError(
                f"slide: parameter 's' ({self.p['s']}) must be <= 'w' ({self.p['w']}); "
                "the stride cannot skip sentences"
            )

    def check_inputs(self, testset: TestSet) -> None:
        self.require(testset, source=True)  # before the backbone's capabilities load its model
        self.check_backbone()
        use_ref = self.reference_based()  # e.g. wmt22-comet-da
        self.require(testset, reference=use_ref, why="the backbone's model is reference-based" if use_ref else "")

    def units(self, testset: TestSet) -> UnitPlan:
        w, s, policy = self.p["w"], self.p["s"], self.p["partial"]
        src, ref = testset.sources, testset.references if self.reference_based() else None
        assert src is not None
        # the windows of every document, shared by every system: (doc, start, end, partial)
        chunks = [(d, doc.start + win.start, doc.start + win.end, win.partial)
                  for d, doc in enumerate(testset.documents)
                  for win in slide_windows(len(doc), w, s, policy)]
        if not chunks:
            longest = max(len(d) for d in testset.documents)
            raise InputError(
                f"slide: no chunk to score: every document is shorter than w={w} (the longest has "
                f"{longest} sentences); use a smaller w, or partial=keep to score short documents whole"
            )
        systems = {
            name: [
                ScoringUnit(
                    Unit(mt=JOINER.join(hyp[a:b]), src=JOINER.join(src[a:b]),
                         ref=JOINER.join(ref[a:b]) if ref is not None else None),
                    d, a, b, weight=float(b - a) if policy == "weighted" else 1.0, partial=partial,
                )
                for d, a, b, partial in chunks
            ]
            for name, hyp in testset.systems.items()
        }
        return UnitPlan(systems, [doc.doc_id for doc in testset.documents], testset.n_segments)

    def compute(self, testset: TestSet, scorer: Scorer | None = None) -> list[Result]:
        """The template's results, and where the backbone gives error spans, each system's per sentence
        (:func:`~.spans.first_window_spans`): ``extras["segment_spans"]`` (line -> spans, every scored
        sentence), ``detail["segment_spans"]`` (the sentences with spans, for JSON) and a coverage note."""
        results = super().compute(testset, scorer)
        if not (getattr(self.backbone, "gives_spans", False) or any(u.spans for r in results for u in r.units)):
            return results
        where = {line: (d.doc_id, line - d.start + 1) for d in testset.documents for line in range(d.start, d.end)}
        for r in results:
            hyp = testset.systems[r.system]
            found = first_window_spans(((u.start, u.end, u.spans) for u in r.units), [len(t) for t in hyp],
                                       len(JOINER))
            r.extras["segment_spans"] = found
            r.detail["segment_spans"] = [_segment_json(line, *where[line], spans)
                                         for line, spans in sorted(found.items()) if spans]
            if r.coverage is not None:
                counts = severity_counts(s for spans in found.values() for s in spans)
                r.coverage.notes.append(f"{sum(counts.values())} error spans ("
                                        + ", ".join(f"{n} {sev}" for sev, n in counts.items()) + ")")
        return results


def _segment_json(line: int, doc_id: str, seg: int, spans: Any) -> dict[str, Any]:
    return {"line": line + 1, "doc_id": doc_id, "seg": seg, "spans": [s.to_dict() for s in spans]}
