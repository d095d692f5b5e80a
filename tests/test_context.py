"""The context functions, checked against hand-built contexts."""

import pytest

from docmetrics.algorithms.context import fit_context, join_with_context, previous_sentences
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

    def words(text):
        return len(text.split()) + 2  # <s> ... </s>

    fitted = fit_context(("one two three", "four five"), "six seven", " | ", words, 9)
    assert fitted.context == ("four five",) and fitted.dropped == 1 and not fitted.current_too_long
    fitted = fit_context(("a",), "b " * 20, " | ", words, 9)
    assert fitted.context == () and fitted.dropped == 1 and fitted.current_too_long
    fitted = fit_context(("a", "b"), "c", " | ", words, 100)
    assert fitted.context == ("a", "b") and fitted.dropped == 0
