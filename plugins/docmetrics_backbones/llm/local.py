"""A causal LM from a local checkpoint through transformers: greedy answers, constrained answers and
expected scores, in batches sorted by prompt length.  torch and transformers are imported here only.

* greedy: ``generate(do_sample=False)`` on left-padded batches, stopped at the end-of-turn token(s);
* constrained: the same, but at each step only tokens that continue a valid score (digits, canonical,
  inside [low, high]) or, once the digits so far are a score, the end of the turn, are allowed
  (``prefix_allowed_tokens_fn``): every answer is a score;
* expected: one forward pass over the prompt; the probabilities of the next token, kept on the tokens
  that are each a whole score of [low, high] (a number token, optionally after one space) and
  renormalised, weight their values: sum p(t) value(t) / sum p(t).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Sequence

from docmetrics.plugin.models import check_config_size, quiet_libraries
from docmetrics.values.errors import ModelError

from .chat_template import ChatTemplate

__all__ = ["LocalModel", "score_prefixes"]


def score_prefixes(low: float, high: float) -> tuple[frozenset[str], frozenset[str]]:
    """(every prefix of a canonical integer in [low, high], the integers themselves) as digit strings."""
    whole = {str(n) for n in range(int(low), int(high) + 1)}
    return frozenset(s[:i] for s in whole for i in range(1, len(s) + 1)), frozenset(whole)


class LocalModel:
    """The tokenizer and model of ``path``, loaded and checked; ``template``: a chat template (None: the
    tokenizer's own), rendered in a sandbox with limits (:mod:`.chat_template`)."""

    def __init__(self, path: Path, given: str, device: str, template: ChatTemplate | None,
                 place: Callable[[Any, str], Any]):
        config = self._config(path, given)
        with quiet_libraries():
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            try:
                tok = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
            except Exception as exc:  # noqa: BLE001
                raise ModelError(f"model '{given}': {path} has no tokenizer that loads ({_first(exc)})") from None
            own = getattr(tok, "chat_template", None)
            if isinstance(own, dict):  # several named templates: transformers takes "default"
                own = own.get("default")
            if template is None and own:
                template = ChatTemplate(str(own), f"the chat template of model '{given}' ({path}/"
                                                  "tokenizer_config.json or chat_template.jinja)")
            if template is None:
                raise ModelError(f"model '{given}': its tokenizer has no chat template (tokenizer_config.json "
                                 "chat_template or chat_template.jinja), so the judge's conversation cannot be "
                                 "written for it; give one with chat_template=FILE (a Jinja file, as "
                                 "transformers' apply_chat_template reads it)", params=("chat_template",))
            try:
                model = AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True,
                                                             torch_dtype=torch.float32)
            except Exception as exc:  # noqa: BLE001
                raise ModelError(f"cannot load the weights of model '{given}' from {path}: {_first(exc)}") from None
        place(model, device)
        self.tok, self.model, self.device, self.template = tok, model, device, template
        self._specials = {k: v for k, v in tok.special_tokens_map.items() if isinstance(v, str)}
        self.window = int(config.get("max_position_embeddings") or config.get("n_positions") or 4096)
        eos = model.generation_config.eos_token_id if model.generation_config is not None else None
        eos_ids = set(eos if isinstance(eos, list) else [] if eos is None else [eos])
        if tok.eos_token_id is not None:
            eos_ids.add(int(tok.eos_token_id))
        if not eos_ids:
            raise ModelError(f"model '{given}': neither its tokenizer nor its generation_config.json names an "
                             "end-of-sequence token, so an answer could not end")
        self.eos = sorted(eos_ids)
        self.pad = int(tok.pad_token_id if tok.pad_token_id is not None else self.eos[0])
        self._texts: list[str] | None = None

    @staticmethod
    def _config(path: Path, given: str) -> dict[str, Any]:
        """config.json, read without torch; a model that is no causal LM is refused here."""
        file = path / "config.json"
        try:
            config = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise ModelError(f"model '{given}': {file} cannot be read as JSON ({exc})") from None
        archs = config.get("architectures") or []
        from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

        kind = config.get("model_type")
        causal = any(a.endswith("ForCausalLM") or a.endswith("LMHeadModel") for a in archs)
        if kind not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES or (archs and not causal):
            raise ModelError(f"model '{given}': {file} says model_type {kind!r}"
                             + (f" ({', '.join(archs)})" if archs else "")
                             + ", which is not a causal (decoder-only) language model; the llm backbone runs "
                             "chat LLMs such as Qwen2.5-7B-Instruct or Llama-3.1-8B-Instruct")
        check_config_size(config, file, given)
        return config

    # -- prompts -------------------------------------------------------------------------------------
    def encode(self, messages: list[dict[str, str]]) -> list[int]:
        text = self.template.render(messages, self._specials)
        return list(self.tok(text, add_special_tokens=False)["input_ids"])

    def token_texts(self) -> list[str]:
        if self._texts is None:
            self._texts = [self.tok.decode([i]) for i in range(len(self.tok))]
        return self._texts

    # -- decoding ------------------------------------------------------------------------------------
    def _padded(self, rows: Sequence[Sequence[int]]) -> tuple[Any, Any]:
        import torch

        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), self.pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, r in enumerate(rows):  # left padding: every prompt ends at the last column
            ids[i, width - len(r):] = torch.tensor(list(r), dtype=torch.long)
            mask[i, width - len(r):] = 1
        return ids.to(self.device), mask.to(self.device)

    def generate(self, rows: Sequence[Sequence[int]], max_new_tokens: int,
                 allowed: Callable[[str], list[int]] | None = None) -> list[tuple[str, bool]]:
        """Greedy answers (text, cut at max_new_tokens) for one batch of prompt ids."""
        import torch

        ids, mask = self._padded(rows)
        width = ids.shape[1]
        kwargs: dict[str, Any] = {}
        if allowed is not None:
            def fn(batch_id: int, seq: Any) -> list[int]:
                return allowed(self.tok.decode(seq[width:].tolist(), skip_special_tokens=True))
            kwargs["prefix_allowed_tokens_fn"] = fn
        with torch.inference_mode(), quiet_libraries():
            out = self.model.generate(input_ids=ids, attention_mask=mask, do_sample=False, num_beams=1,
                                      max_new_tokens=max_new_tokens, eos_token_id=self.eos, pad_token_id=self.pad,
                                      temperature=None, top_p=None, top_k=None, **kwargs)
        answers = []
        for row in out[:, width:].tolist():
            ended = next((k for k, t in enumerate(row) if t in self.eos), None)
            body = row if ended is None else row[:ended]
            answers.append((self.tok.decode(body, skip_special_tokens=True), ended is None))
        return answers

    def constraint(self, low: float, high: float) -> Callable[[str], list[int]]:
        """The tokens allowed after the answer text so far: those that continue a valid score, and the
        end of the turn once the text is a score."""
        prefixes, whole = score_prefixes(low, high)
        digits = [(i, t) for i, t in enumerate(self.token_texts())
                  if t.strip().isdigit() and t.strip().isascii() and t in (t.strip(), " " + t.strip())]
        if not digits:
            raise ModelError("the tokenizer has no digit tokens: score=constrained cannot write a score")

        def allowed(so_far: str) -> list[int]:
            s = so_far.strip()
            ok = [i for i, t in digits if (not s or t == t.strip()) and s + t.strip() in prefixes]
            return ok + (self.eos if s in whole else [])

        return allowed

    def score_tokens(self, low: float, high: float) -> dict[int, float]:
        """Token id -> value for the tokens that are each a whole score (optionally after one space)."""
        _, whole = score_prefixes(low, high)
        found = {i: float(t.strip()) for i, t in enumerate(self.token_texts())
                 if t.strip() in whole and t in (t.strip(), " " + t.strip())}
        missing = sorted(whole - {str(int(v)) for v in found.values()}, key=int)
        if missing:
            raise ModelError(f"score=expected needs every score from {int(low)} to {int(high)} as one token, but "
                             f"this tokenizer writes {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''} in "
                             "several (digits one by one, as Qwen's, Mistral's and Gemma's do): use score=constrained "
                             "(or a model whose tokenizer writes numbers whole, as Llama 3's)", params=("score",))
        return found

    def next_token_probs(self, rows: Sequence[Sequence[int]]) -> Any:
        """The next-token probabilities (float64, on the CPU) after each prompt: one forward pass."""
        import torch

        ids, mask = self._padded(rows)
        position = (mask.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode():
            logits = self.model(input_ids=ids, attention_mask=mask, position_ids=position, use_cache=False).logits
        return torch.softmax(logits[:, -1].double(), dim=-1).cpu()


def _first(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
