"""What a COMET model is given: the fields of each unit, its context joined and fitted, and the tensors.

Context (``Unit.*_context``) is honoured by models with average pooling, with the semantics of
COMET's ``enable_context()``: the context sentences and the current one are joined with the
tokenizer's separator (``"ctx1 </s> ctx2 </s> current"``) and only the current sentence's tokens
are pooled.  When the joined text is too long for the encoder, the oldest context sentences are
dropped so that the current sentence is never cut because of its context (counted per unit: see
:mod:`.truncation`).  A current sentence that alone exceeds the limit is cut as COMET cuts it (after
all its context is dropped).

The tensors are built from one tokenization of each text, as ``encoder.prepare_sample`` builds them:
one input per field for a RegressionMetric or ReferencelessRegression, one joint sequence
(``<s> mt </s></s> src </s>``) for a UnifiedMetric, COMET's own ``prepare_sample`` for one that tags
words.  torch is imported only when tensors are built.
"""

from __future__ import annotations

from typing import Any, Sequence

from docmetrics.algorithms.context import fit_context, join_with_context
from docmetrics.plugin.backbone import CURRENT_SENTENCE, Unit
from docmetrics.values.errors import CapabilityError, UserError

from .truncation import joint_tokens_cut

__all__ = ["CometInputs", "fields_of", "to_device"]


def fields_of(unit: Unit, index: int, kind: str, segments: tuple[str, ...], qe: bool | None,
              model: Any) -> tuple[str, ...]:
    """The fields of ``unit`` a model of this kind and these input segments is given, in COMET's order
    (``qe``: the backbone's parameter, None unset; ``model`` names it in messages); errors for missing
    ones."""
    has_src, has_ref = unit.src is not None, unit.ref is not None
    where = f"COMET model '{model}'"
    if kind == "unified" and "src" in segments and "ref" in segments:
        has_ref = has_ref and qe is not True
        if qe is False and not has_ref:
            raise UserError(f"{where} is given the reference (qe=no), but unit {index} has none; give "
                            "references (-r), or drop qe=no to score without them")
        if not (has_src or has_ref):
            raise UserError(
                f"{where} needs a source or a reference, but unit {index} has neither"
            )
        return ("src",) * has_src + ("mt",) + ("ref",) * has_ref
    needs_src = "src" in segments
    needs_ref = "ref" in segments
    if needs_src and not has_src:
        raise UserError(f"{where} needs the source sentence (src), but unit {index} has none")
    if needs_ref and not has_ref:
        raise UserError(
            f"{where} is reference-based and needs a reference (ref), but unit {index} has "
            "none; give references, or use a QE model such as Unbabel/wmt22-cometkiwi-da"
        )
    return ("src",) * needs_src + ("mt",) + ("ref",) * needs_ref


def to_device(obj: Any, device: str) -> Any:
    """``obj`` (a tensor, or dicts, lists and tuples of them) moved to ``device``."""
    if device == "cpu":
        return obj
    if hasattr(obj, "to") and hasattr(obj, "dtype"):
        return obj.to(device)
    if isinstance(obj, dict):
        return type(obj)({k: to_device(v, device) for k, v in obj.items()})
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device) for v in obj)
    return obj


class CometInputs:
    """The inputs of one ``score()`` call to a loaded COMET model of ``kind`` with input ``segments``,
    on ``device``.

    Every text is tokenized once (:meth:`tokenize`): lengths, batches, truncation counts and the model's
    input tensors all come from that tokenization."""

    def __init__(self, model: Any, kind: str, segments: tuple[str, ...], device: str) -> None:
        self.model = model
        self.kind = kind
        self.segments = segments
        self.device = device
        #: Token ids of the texts of the call (text -> ids, special tokens, not cut).
        self.ids: dict[str, list[int]] = {}

    def tokenize(self, texts: Sequence[str]) -> None:
        """Token ids of each text not yet known, with special tokens and without truncation, in one
        batched tokenizer call (no length warnings)."""
        known = self.ids
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            tok = self.model.encoder.tokenizer
            for text, ids in zip(missing, tok(missing, verbose=False)["input_ids"]):
                known[text] = list(ids)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Token counts (special tokens included, nothing cut) of ``texts``."""
        self.tokenize(texts)
        return [len(self.ids[t]) for t in texts]

    def fit_contexts(self, items: Sequence[tuple[str, tuple[str, ...]]]) -> list[tuple[str, int]]:
        """For each ``(current, context)``: ``"ctx1 </s> ctx2 </s> current"`` with the oldest
        context sentences dropped until the text fits the encoder, and how many were dropped.

        The drop is :func:`docmetrics.algorithms.context.fit_context` on the token counts of the
        sentences (each distinct sentence tokenized once), then checked against COMET's own
        tokenization of the joined text, dropping one more while it is still too long.  The
        current sentence is never cut here: when it alone is too long, all its context is dropped
        and COMET cuts it (reported in ``truncated`` and ``tokens_cut``).
        """
        out: list[tuple[str, int]] = [(cur, 0) for cur, _ in items]
        todo = [j for j, (_, ctx) in enumerate(items) if ctx]
        if not todo:
            return out
        sep = f" {self.model.encoder.tokenizer.sep_token} "
        limit = self.model.encoder.max_positions - 2  # where COMET's encoders cut each input
        specials = 2  # <s> ... </s>: a sentence's count includes them
        sentences = list(dict.fromkeys(s for j in todo for s in (items[j][0], *items[j][1])))
        count = dict(zip(sentences, self.token_counts(sentences)))
        drop = {j: fit_context([count[c] - specials for c in items[j][1]], count[items[j][0]] - specials,
                               limit, separator_length=1, overhead=specials).dropped for j in todo}
        while todo:
            texts = [join_with_context(items[j][1][drop[j]:], items[j][0], sep) for j in todo]
            still: list[int] = []
            for j, text, n in zip(todo, texts, self.token_counts(texts)):
                if n <= limit or drop[j] >= len(items[j][1]):
                    out[j] = (text, drop[j])
                else:
                    drop[j] += 1
                    still.append(j)
            todo = still
        return out

    def prepare(self, units: Sequence[Unit], capabilities: frozenset[str], qe: bool | None,
                name: Any) -> tuple[list[dict[str, str]], list[bool], list[int], bool]:
        """Per unit: the texts COMET is given (field -> text, context joined and fitted), whether
        it carries context, and how many context sentences were dropped per input (summed);
        and whether any unit carries context.  Raises for missing fields and for context on a
        model that cannot pool the current sentence (``capabilities``: the backbone's; ``qe``: its
        parameter; ``name``: the model, in messages)."""
        any_context = False
        plans: list[tuple[tuple[str, ...], bool]] = []  # per unit: its fields, context on/off
        items: list[tuple[str, tuple[str, ...]]] = []   # per (unit, field): current, context
        for i, unit in enumerate(units):
            if not isinstance(unit.mt, str):
                raise UserError(f"unit {i}: mt must be a string, not {type(unit.mt).__name__}")
            fields = fields_of(unit, i, self.kind, self.segments, qe, name)
            contexts = {"src": unit.src_context, "mt": unit.mt_context, "ref": unit.ref_context}
            if any((unit.src_context, unit.mt_context, unit.ref_context)):
                any_context = True
                if CURRENT_SENTENCE not in capabilities:
                    raise CapabilityError(
                        f"COMET model '{name}' ({type(self.model).__name__}) cannot encode "
                        "context and score only the current sentence: that needs average pooling "
                        "(a RegressionMetric or ReferencelessRegression such as "
                        "Unbabel/wmt22-comet-da); score units without context (e.g. with slide)"
                    )
            plans.append((fields, any(contexts[f] for f in fields)))
            items += [(getattr(unit, f), tuple(contexts[f])) for f in fields]
        fitted = iter(self.fit_contexts(items))
        samples: list[dict[str, str]] = []
        dropped: list[int] = []
        for fields, _ in plans:
            sample: dict[str, str] = {}
            n_dropped = 0
            for f in fields:
                sample[f], n = next(fitted)
                n_dropped += n
            samples.append(sample)
            dropped.append(n_dropped)
        return samples, [use for _, use in plans], dropped, any_context

    def length(self, sample: dict[str, str]) -> int:
        """Tokens a sample takes in a batch (each input at most the encoder's limit)."""
        limit = self.model.encoder.max_positions - 2
        return sum(min(len(self.ids[t]), limit) for t in sample.values())

    def field_input(self, id_lists: list[list[int]]) -> tuple[dict[str, Any], list[int]]:
        """What ``encoder.prepare_sample`` gives for these texts (cut at ``max_positions - 2`` tokens
        keeping the closing special token, padded on the right), built from our token ids; and
        how many tokens each text lost."""
        import torch

        tok = self.model.encoder.tokenizer
        limit = self.model.encoder.max_positions - 2
        tail = len(tok.build_inputs_with_special_tokens([])) - 1  # special tokens after the text
        kept = [ids if len(ids) <= limit else ids[:limit - tail] + ids[len(ids) - tail:] for ids in id_lists]
        width = max(len(ids) for ids in kept)
        pad = tok.pad_token_id if tok.pad_token_id is not None else 0
        input_ids = torch.full((len(kept), width), pad, dtype=torch.long)
        mask = torch.zeros((len(kept), width), dtype=torch.long)
        for r, ids in enumerate(kept):
            input_ids[r, :len(ids)] = torch.tensor(ids, dtype=torch.long)
            mask[r, :len(ids)] = 1
        out: dict[str, Any] = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in getattr(tok, "model_input_names", ()):
            out["token_type_ids"] = torch.zeros_like(input_ids)
        return out, [max(len(ids) - limit, 0) for ids in id_lists]

    def batch(self, batch: list[dict[str, str]]) -> tuple[Any, list[int]]:
        """The model's inputs for a batch (on the device) and, per sample, how many tokens COMET's
        input lost (summed over its inputs)."""
        model = self.model
        fields = list(batch[0])
        if self.kind == "unified" and getattr(model, "word_level", False):
            inputs = model.prepare_sample(batch, stage="predict")  # word-level tagging: COMET's own
            return to_device(inputs, self.device), self._joint_cut(batch, inputs)
        per_field = {f: self.field_input([self.ids[s[f]] for s in batch]) for f in fields}
        if self.kind != "unified":
            inputs: Any = {f"{f}_{k}": v for f in fields for k, v in per_field[f][0].items()}
            cut = [sum(per_field[f][1][r] for f in fields) for r in range(len(batch))]
            return to_device(inputs, self.device), cut
        order = ["mt"] + [f for f in ("src", "ref") if f in fields and f in self.segments]
        joined = model.concat_inputs([per_field[f][0] for f in order], len(order) == 3)["inputs"]
        return to_device(joined, self.device), self._joint_cut(batch, joined)

    def _joint_cut(self, batch: list[dict[str, str]], inputs: Any) -> list[int]:
        full = {f: self.token_counts([s[f] for s in batch]) for f in batch[0]}
        return joint_tokens_cut(self.model.encoder.tokenizer, full, inputs)
