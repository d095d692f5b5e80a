"""Doc-BERTScore, as Vernikos, Thompson, Mathur and Federico (2022) define it (§3.1, §4).

For every sentence, the previous k sentences of the same document's REFERENCE are prepended to both
the hypothesis sentence and the reference sentence (joined with the encoder's separator token); the
encoder embeds the whole sequence, and only the current sentence's tokens are scored with BERTScore's
greedy matching.  The system score is the mean over sentences.  With k=0 it is sentence-level
BERTScore, so ``doc-bertscore:k=0`` is the sentence-level baseline.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar, ContextManager

from docmetrics.plugin.backbone import CURRENT_SENTENCE, REFERENCE, TOKEN_MATCHING, TakesIdfCorpus
from docmetrics.plugin.metric import Metric
from docmetrics.values.errors import CapabilityError
from docmetrics.values.params import Param
from docmetrics.values.testset import TestSet
from docmetrics.values.units import UnitPlan

HYP_CONTEXTS = ("ref", "mt")


class DocBertScoreMetric(Metric):
    name: ClassVar[str] = "doc-bertscore"
    description: ClassVar[str] = (
        "Doc-BERTScore: BERTScore of each sentence with the previous k reference sentences as context"
    )
    citation: ClassVar[str] = (
        "Giorgos Vernikos, Brian Thompson, Prashant Mathur and Marcello Federico. 2022. Embarrassingly "
        "Easy Document-Level MT Metrics: How to Convert Any Pretrained Metric Into a Document-Level "
        "Metric. WMT 2022. BERTScore: Tianyi Zhang, Varsha Kishore, Felix Wu, Kilian Q. Weinberger and "
        "Yoav Artzi. 2020. BERTScore: Evaluating Text Generation with BERT. ICLR 2020."
    )
    details: ClassVar[str] = """\
Context (paper, section 3.1 and 4): for sentence i of a document, the previous k sentences of the SAME
document's reference (fewer at the start of a document: the first sentence gets none, the second one;
the paper's "valid context") are prepended to BOTH the hypothesis sentence and the reference sentence,
joined with the encoder's separator token:  [CLS] r(i-2) [SEP] r(i-1) [SEP] sentence_i [SEP]  for BERT,
<s> r(i-2) </s> r(i-1) </s> sentence_i </s>  for RoBERTa / XLM-R.  The encoder embeds the whole sequence
(at the backbone's layer); only the current sentence's tokens are scored.  The system score is the mean
of the sentence scores (F1 by default; score=precision|recall on the backbone); a document's score is
the mean over its sentences.

Modes (mode=, a parameter of the bertscore backbone):
  published  what the paper's released code does (default): context tokens weigh 0 but stay in the
             similarity matrix, so a current hypothesis token may be matched (greedily, by cosine) to
             a context token of the reference side, and vice versa.
  strict     context token embeddings (and their separators) are removed before matching: current
             tokens are matched only against the other side's current sentence (plus the sequence's
             special tokens, as in sentence-level BERTScore).
idf=yes (backbone): idf statistics come from the test set's reference sentences (one per segment, as
bert-score computes them from its refs), and the current tokens keep their idf weights in both modes.
The published code turned the weights into 0/1 in document mode (a token counted iff its idf is
non-zero), i.e. it ignored idf; docmetrics does not.

Edge cases: k=0 is sentence-level BERTScore (bert_score.score, to 1e-6); so is the first sentence of
every document.  Context comes from the reference even for the hypothesis (the paper's choice; the
section 6.1 / Table 3 ablation is hyp_context=mt: the hypothesis gets its own previous sentences, the
reference keeps reference context).  When context + sentence exceed the encoder's maximum length the
oldest context sentences are dropped first (reported as "context sentences dropped"); a sentence that
alone is too long is cut as bert-score cuts it and counted as truncated.  An empty sentence (MT or
reference) scores 0, as in bert-score, and is counted ("empty sentences")."""
    params: ClassVar[tuple[Param, ...]] = (
        Param("k", int, 2, "previous reference sentences used as context (0: sentence-level BERTScore)",
              minimum=0),
        Param("hyp_context", str, "ref", "whose previous sentences the hypothesis gets: ref (the "
              "paper) or mt (its Table 3 ablation)", choices=HYP_CONTEXTS, short="hc",
              signature_key="hyp-context", aliases=("context",), value_aliases=(("hyp", "mt"),)),
    )
    default_backbone: ClassVar[str | None] = "bertscore"
    default_model: ClassVar[str | None] = None
    needs: ClassVar[tuple[frozenset[str], ...]] = (frozenset({REFERENCE, CURRENT_SENTENCE, TOKEN_MATCHING}),)

    def reads_neighbours(self) -> bool:
        return bool(self.p["k"] > 0)

    def check_inputs(self, testset: TestSet) -> None:
        try:
            self.check_backbone()
        except CapabilityError as exc:
            raise CapabilityError(f"{exc}; Doc-BERTScore needs BERTScore's greedy token matching and its "
                                  "context modes: use backbone=bertscore") from None
        self.require(testset, reference=True, why="Doc-BERTScore compares the MT with the reference")

    def scoring_scope(self, testset: TestSet) -> ContextManager[Any]:
        # idf statistics (idf=yes) come from the test set's references, one per segment
        if isinstance(self.backbone, TakesIdfCorpus) and testset.references is not None:
            return self.backbone.idf_from(testset.references)
        return contextlib.nullcontext()

    def units(self, testset: TestSet) -> UnitPlan:
        assert testset.references is not None
        return self.context_plan(testset, self.p["k"], source=False, reference=True,
                                 hypothesis_context_from_reference=self.p["hyp_context"] == "ref")
