"""What bertscore embeds: each side of a unit as one sequence of token ids, and the tokens' idf weights.

A side (hypothesis or reference) is ``[specials] ctx1 SEP ctx2 SEP current [specials]``, tokenised as
bert-score's ``sent_encode`` tokenises and fitted to the model: the oldest context sentences are dropped
first (:func:`docmetrics.algorithms.context.fit_context`), and a current sentence that alone exceeds the
limit is cut from the right, as bert-score cuts it.  torch is not needed here; transformers is imported
when a text is tokenised.
"""

from __future__ import annotations

from typing import Any, Sequence

from docmetrics.algorithms.context import fit_context
from docmetrics.values.errors import UserError

__all__ = ["Side", "Encoder", "uniform_weights", "idf_weights"]


class Side:
    """One side (hypothesis or reference) of a unit, encoded: token ids and where the context is."""

    __slots__ = ("ids", "ctx", "cur", "dropped", "cut", "empty")

    def __init__(self, ids: tuple[int, ...], ctx: tuple[int, int], cur: tuple[int, int],
                 dropped: int, cut: int, empty: bool) -> None:
        self.ids = ids
        self.ctx = ctx  # [start, end) of the context tokens and their separators
        self.cur = cur  # [start, end) of the current sentence's tokens
        self.dropped = dropped
        self.cut = cut  # tokens of the current sentence cut at the model's maximum length
        self.empty = empty


class Encoder:
    """Encodes sides with bert-score's ``tokenizer`` for a model that takes ``limit`` tokens (special
    tokens included); ``model`` names it in messages."""

    def __init__(self, tokenizer: Any, limit: int, model: Any) -> None:
        self.tokenizer = tokenizer
        self.limit = limit
        self.model = model
        marker = -12345
        with_marker = tokenizer.build_inputs_with_special_tokens([marker])
        self.n_prefix = with_marker.index(marker)
        self.n_special = len(with_marker) - 1

    def content(self, text: str, memo: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
        """Token ids of ``text`` without special tokens and without truncation, as bert-score's
        ``sent_encode`` tokenises (strip; a prefix space for GPT-2 / RoBERTa tokenizers)."""
        ids = memo.get(text)
        if ids is None:
            from transformers import GPT2Tokenizer, RobertaTokenizer

            tok = self.tokenizer
            stripped = text.strip()
            if not stripped:
                ids = ()
            elif isinstance(tok, (GPT2Tokenizer, RobertaTokenizer)):
                ids = tuple(tok.encode(stripped, add_special_tokens=False, add_prefix_space=True))
            else:
                ids = tuple(tok.encode(stripped, add_special_tokens=False))
            memo[text] = ids
        return ids

    def encode(self, current: str, context: tuple[str, ...], memo: dict[str, tuple[int, ...]]) -> Side:
        """``[specials] ctx1 SEP ctx2 SEP current [specials]`` as ids, fitted to the model."""
        tok = self.tokenizer
        sep = tok.sep_token_id
        if context and sep is None:
            raise UserError(
                f"model '{self.model}' has no separator token, so it cannot take prepended context"
            )
        cur = self.content(current, memo)
        ctx_ids = [self.content(c, memo) for c in context]
        dropped = 0
        if context:
            dropped = fit_context([len(c) for c in ctx_ids], len(cur), self.limit,
                                  separator_length=1, overhead=self.n_special).dropped
            ctx_ids = ctx_ids[dropped:]
        room = max(self.limit - self.n_special, 0)
        cut = max(len(cur) - room, 0)
        cur = cur[:room]
        body: list[int] = []
        for c in ctx_ids:
            body += [*c, sep]
        ids = tuple(tok.build_inputs_with_special_tokens(body + list(cur)))
        start = self.n_prefix
        ctx = (start, start + len(body))
        return Side(ids, ctx, (ctx[1], ctx[1] + len(cur)), dropped, cut, not cur)


def uniform_weights(tokenizer: Any) -> Any:
    """The token weights without idf: 1, and 0 for the separator and CLS tokens (as bert-score's)."""
    from collections import defaultdict

    weights: Any = defaultdict(lambda: 1.0)
    weights[tokenizer.sep_token_id] = 0
    weights[tokenizer.cls_token_id] = 0
    return weights


def idf_weights(references: Sequence[str], tokenizer: Any) -> Any:
    """The idf weights of tokens in ``references`` (bert-score's ``get_idf_dict``)."""
    from bert_score.utils import get_idf_dict

    return get_idf_dict(list(references), tokenizer, nthreads=0)
