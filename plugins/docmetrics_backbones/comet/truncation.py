"""What COMET's inputs lose to its encoder's maximum length, and the counters that report it.

COMET cuts inputs silently at its encoder's maximum length (RegressionMetric and
ReferencelessRegression cut each of src / mt / ref on its own; UnifiedMetric (CometKiwi) cuts the
joint ``<s> mt </s></s> src </s>`` sequence, losing the source's tail).  The comet backbone measures,
for every unit, whether COMET's input lost tokens and reports it in ``BackboneOutput.truncated``, and
how many in the unit's counter ``tokens_cut`` (summed over its inputs src / mt / ref; for a
UnifiedMetric, the tokens its joint sequence lost), with the total in ``BackboneOutput.counters``.

Whenever a unit carries context, the context dropped so that the current sentence fits is counted too:
``contexts_shortened`` (units whose context lost at least one sentence in at least one of their inputs)
and ``context_sentences_dropped`` (sentences dropped, summed over each unit's inputs src / mt / ref).
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["CONTEXT_COUNTER", "SHORTENED_COUNTER", "CUT_COUNTER", "joint_tokens_cut", "unit_counters"]

CONTEXT_COUNTER = "context_sentences_dropped"
SHORTENED_COUNTER = "contexts_shortened"
#: Input tokens a unit lost to the encoder's maximum length.
CUT_COUNTER = "tokens_cut"


def joint_tokens_cut(tokenizer: Any, full: dict[str, list[int]], inputs: Any) -> list[int]:
    """Per sample of a UnifiedMetric batch: how many tokens COMET's joint input lost, from the
    untruncated token counts of each field (``full``: field -> counts, special tokens included) and the
    prepared ``inputs``.  Compares the prepared sequence lengths with the untruncated token counts, so
    it follows whatever rule COMET applied."""
    fields = list(full)
    n_samples = len(full["mt"])
    # UnifiedMetric: one joint sequence in prepare_sample's order (mt, then src, then ref);
    # the last prepared input is the one with every segment.
    single = len(tokenizer.build_inputs_with_special_tokens([]))
    pair = len(tokenizer.build_inputs_with_special_tokens([], []))
    order = ["mt"] + [f for f in ("src", "ref") if f in fields]
    joint = [full["mt"][i] - single for i in range(n_samples)]
    for n, f in enumerate(order[1:]):
        joint = [
            (j if n == 0 else j - 2) + full[f][i] - single + pair
            for i, j in enumerate(joint)
        ]
    kept = inputs[-1]["attention_mask"].sum(dim=1).tolist()
    return [max(n - k, 0) for k, n in zip(kept, joint)]


def unit_counters(dropped: Sequence[int], cut: Sequence[int],
                  any_context: bool) -> tuple[dict[str, int], list[dict[str, int]]]:
    """The counters of a call and of each unit, from each unit's context sentences ``dropped`` and
    tokens ``cut`` (the context counters only where ``any_context``; ``tokens_cut`` where a unit lost
    tokens)."""
    counters = {}
    if any_context:
        counters = {SHORTENED_COUNTER: sum(n > 0 for n in dropped), CONTEXT_COUNTER: sum(dropped)}
    per_unit: list[dict[str, int]] = (
        [{SHORTENED_COUNTER: int(n > 0), CONTEXT_COUNTER: n} for n in dropped]
        if any_context else [{} for _ in cut])
    if any(cut):
        counters[CUT_COUNTER] = sum(cut)
        for c, n in zip(per_unit, cut):
            if n:
                c[CUT_COUNTER] = n
    return counters, per_unit
