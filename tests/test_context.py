"""The context functions, checked against hand-built contexts."""

import pytest

from docmetrics.algorithms.context import FittedContext, fit_context, join_with_context, previous_sentences
from docmetrics.values.testset import TestSet


def docs(ids):
    return TestSet({"h": ["x"] * len(ids)}, doc_ids=ids).documents


def test_previous_sentences_respects_documents():
    sents = ["a1", "a2", "a3", "a4", "b1", "b2", "c1"]
    ids = ["a"] * 4 + ["b"] * 2 + ["c"]
    ctx = previous_sentences(sents, docs(ids), 2)
    assert ctx == [(), ("a1",), ("a1", "a2"), ("a2", "a3"), (), ("b1",), ()]
    assert previous_sentences(sents, docs(ids), 0) == [()] * 7
    assert previous_sentences(sents, docs(ids), 9)[3] == ("a1", "a2", "a3")
    with pytest.raises(ValueError):
        previous_sentences(sents, docs(ids), -1)


def test_join_and_fit():
    assert join_with_context(("c1", "c2"), "cur", " </s> ") == "c1 </s> c2 </s> cur"
    assert join_with_context((), "cur", " </s> ") == "cur"

    # lengths in tokens without special tokens; 2 special tokens (<s> ... </s>), separators of 1 token
    fitted = fit_context([3, 2], 2, 9, overhead=2)  # 2 + 3 + 1 + 2 + 1 + 2 = 11 > 9: drop the oldest
    assert fitted == FittedContext(1, False)
    fitted = fit_context([1], 20, 9, overhead=2)  # the current sentence alone is too long
    assert fitted == FittedContext(1, True)
    assert fit_context([1, 1], 1, 100, overhead=2) == FittedContext(0, False)
    assert fit_context([], 7, 9, overhead=2) == FittedContext(0, False)
    assert fit_context([], 8, 9, overhead=2) == FittedContext(0, True)
    # a separator of several tokens (e.g. " | " as three pieces)
    assert fit_context([1, 1], 1, 7, separator_length=3, overhead=0) == FittedContext(1, False)


def test_fit_context_drops_the_fewest_sentences_by_brute_force():
    import itertools

    for lengths in itertools.product([0, 1, 3, 6], repeat=3):
        for current in (0, 2, 9):
            for limit in range(0, 25, 3):
                got = fit_context(lengths, current, limit, separator_length=1, overhead=2)
                fits = [d for d in range(4) if 2 + current + sum(lengths[d:]) + (3 - d) <= limit]
                assert got == (FittedContext(fits[0], False) if fits else FittedContext(3, True))


def test_hypothesis_contexts_are_the_references_or_each_systems_own():
    from docmetrics.algorithms.context import hypothesis_contexts
    from docmetrics.values.testset import Document

    documents = [Document("a", 0, 2), Document("b", 2, 3)]
    systems = {"S": ["s1", "s2", "s3"], "T": ["t1", "t2", "t3"]}
    ref_ctx = [(), ("r1",), ()]
    assert hypothesis_contexts(systems, documents, 2, ref_ctx) == {"S": ref_ctx, "T": ref_ctx}
    assert hypothesis_contexts(systems, documents, 2, None) == {"S": [(), ("s1",), ()], "T": [(), ("t1",), ()]}
