"""Document context for context-aware metrics (Vernikos et al., 2022): pure functions, no model.

For sentence i of a document, the context is the previous k sentences *of the same document*, from a
side the metric chooses (its rule, not the caller's guess): the first sentence of a document gets no
context, the second gets one sentence, and so on up to k.  Backbones join context and current sentence
with their own separator token and score only the current sentence.

Used by Doc-COMET, Doc-COMET-QE, Doc-BERTScore and Doc-Prism.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from ..values.testset import Document


def previous_sentences(
    sentences: Sequence[str], documents: Sequence[Document], k: int
) -> list[tuple[str, ...]]:
    """For every segment, the previous ``k`` sentences of its own document (oldest first).

    ``sentences`` is line-parallel with the test set (the side that gives context); ``documents``
    gives the document boundaries.  ``k=0`` gives empty contexts everywhere.
    """
    if k < 0:
        raise ValueError("k must be >= 0")
    out: list[tuple[str, ...]] = [()] * len(sentences)
    for doc in documents:
        for i in range(doc.start, doc.end):
            out[i] = tuple(sentences[max(doc.start, i - k):i]) if k else ()
    return out


def hypothesis_contexts(
    systems: Mapping[str, Sequence[str]], documents: Sequence[Document], k: int,
    reference_context: list[tuple[str, ...]] | None,
) -> dict[str, list[tuple[str, ...]]]:
    """Each system's hypothesis contexts: ``reference_context`` for every system when it is given
    (Vernikos et al.'s rule: the hypothesis gets the reference's previous sentences), else each
    system's own previous ``k`` sentences (their Table 3 ablation; Doc-COMET-QE's rule)."""
    if reference_context is not None:
        return {name: reference_context for name in systems}
    return {name: previous_sentences(hyp, documents, k) for name, hyp in systems.items()}


def join_with_context(context: Sequence[str], current: str, separator: str) -> str:
    """``"ctx1 SEP ctx2 SEP current"`` (``separator`` includes its spaces, e.g. ``" </s> "``)."""
    return separator.join([*context, current])


@dataclass(frozen=True)
class FittedContext:
    """How much context fits a model's maximum length (the current sentence is never cut here)."""

    #: How many of the oldest context sentences are dropped to fit.
    dropped: int
    #: True when the current sentence alone (plus special tokens) exceeds the limit.
    current_too_long: bool


def fit_context(
    context_lengths: Sequence[int],
    current_length: int,
    max_length: int,
    *,
    separator_length: int = 1,
    overhead: int = 0,
) -> FittedContext:
    """Drop the oldest context sentences until the input fits, on token counts.

    The input is ``[special tokens] c1 SEP c2 SEP ... current [special tokens]``: its length is
    ``overhead + sum(kept context lengths) + separator_length * len(kept) + current_length``, with
    ``overhead`` the special tokens and each sentence counted without them.  Drops the fewest
    oldest sentences that make it ``<= max_length``.  Never cuts the current sentence: if it alone
    is too long, all context is dropped and ``current_too_long`` is set (the backbone then cuts it
    as its model would, and counts it).  The one rule of comet, bertscore and prism.
    """
    lengths = list(context_lengths)
    total = overhead + current_length + sum(lengths) + separator_length * len(lengths)
    for dropped in range(len(lengths) + 1):
        if total <= max_length:
            return FittedContext(dropped, False)
        if dropped < len(lengths):
            total -= lengths[dropped] + separator_length
    return FittedContext(len(lengths), True)
