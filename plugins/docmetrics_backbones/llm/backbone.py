"""The ``llm`` backbone: an LLM judge (GEMBA-DA, GEMBA-MQM, GEMBA-ESA, or a prompt file of your own) on a
causal LM from a local checkpoint (transformers, CPU or GPU) or behind an OpenAI-compatible endpoint.

A unit is judged by a prompt (:mod:`.prompts`): its conversation, filled with the language names, the
source, the translation (the unit's MT: one segment, a SLIDE window or an ASD chunk), the reference
where the prompt asks for one, and, for a unit with context (``doc-comet-qe:k=2,backbone=llm``), the
previous segments of the document shown before the one judged.  The chat template is the tokenizer's
(a model without one is refused unless ``chat_template=FILE`` gives one).  Decoding is greedy and
deterministic; ``seed=`` is recorded and sent to an endpoint.

How an answer becomes a score (``score=``):

* ``parse``: greedy answer, read by the prompt's rule (:mod:`.parse`: GEMBA's number, WMT25's last
  number, GEMBA-MQM's weighted errors).  An answer without a score is *unparsed*: counted per unit
  (``answers_unparsed``, reported per system), given the worst score of the range, and the run is
  refused once more than ``max_unparsed`` of the units scored so far are unparsed;
* ``constrained``: greedy, but only tokens that continue a valid score are allowed: every answer is an
  integer score of the prompt's range (local models only);
* ``expected``: sum p(t) value(t) / sum p(t) over the tokens t that are each a whole score at the answer
  position (one forward pass; continuous, fewer ties); an endpoint gives the first token's
  ``top_logprobs``, so only the scores among those k count.

A two-step prompt (GEMBA-ESA) answers the first step greedily (the error spans), then scores the second,
which shows that answer, by ``score=``.  The errors a GEMBA-MQM answer or an ESA first step lists become
:class:`~docmetrics.values.units.UnitSpan` (character offsets in the unit's MT text, :func:`.parse.map_spans`;
quotes not found counted as ``spans_unmatched``).  The answer text is kept in the unit's record
(``UnitRecord.answer``: the score cache stores it, ``--level chunk -f json`` shows it); a two-step answer
is ``STEP1\\n@@ score\\nSTEP2``.

Length: the prompt and ``max_new_tokens`` must fit the model's window (``max_position_embeddings``);
context segments are dropped oldest first to fit (``context_segments_dropped``), and a unit that does
not fit without context is an error naming it (nothing of the segment judged is ever cut, so no unit
is flagged truncated).  An answer cut at ``max_new_tokens`` is counted (``answers_cut``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

from docmetrics.plugin.backbone import CURRENT_SENTENCE, QE, REFERENCE, Backbone, BackboneOutput, SigField, Unit
from docmetrics.plugin.models import find_model, fingerprint, quiet_libraries
from docmetrics.values.errors import SpecError, UserError
from docmetrics.values.langpair import check_langpair, parse_langpair
from docmetrics.values.params import Param
from docmetrics.values.units import UnitRecord, UnitSpan

from .chat_template import ChatTemplate, read_template
from .parse import error_lines, map_spans, parse_answer
from .prompts import Prompt, language_name, load_prompt, render_context

__all__ = ["LlmBackbone", "SCORE_RULES"]

SCORE_RULES = ("parse", "constrained", "expected")
_UNPARSED, _UNMATCHED, _CUT, _DROPPED = "answers_unparsed", "spans_unmatched", "answers_cut", "context_segments_dropped"
_STEP = "\n@@ score\n"
_LAYOUT = "config.json, the weights and the tokenizer files (with a chat template)"


def _names(value: Any) -> str | None:
    for part in filter(None, str(value).split("+")):
        code, sep, name = part.partition(":")
        if not sep or not code.strip() or not name.strip():
            return "give CODE:Name pairs joined by '+', e.g. names=ar_EG:Egyptian Arabic+en:English"
    return None


def _endpoint(value: Any) -> str | None:
    """An endpoint is an http(s) URL with a host: anything else (file:, ftp:, a bare path) would be handed
    to urllib, which reads files and other schemes as readily as a server."""
    from urllib.parse import urlsplit

    try:
        url = urlsplit(str(value))
        host = url.hostname
    except ValueError as exc:
        return f"it is not a URL ({exc}); give the server's base URL, e.g. endpoint=http://HOST:8000/v1"
    if url.scheme.lower() not in ("http", "https"):
        scheme = f"scheme {url.scheme!r}" if url.scheme else "no scheme"
        return (f"{scheme}: an endpoint is an http:// or https:// URL (an OpenAI-compatible server), e.g. "
                "endpoint=http://HOST:8000/v1")
    if not host:
        return "no host: give the server's base URL, e.g. endpoint=http://HOST:8000/v1"
    return None


def _download(hub_id: str) -> str:
    from huggingface_hub import snapshot_download

    with quiet_libraries():
        return snapshot_download(hub_id, allow_patterns=["*.json", "*.safetensors", "*.model", "*.jinja", "*.txt",
                                                         "tokenizer*"])


class LlmBackbone(Backbone):
    """An LLM judge: a prompt file (GEMBA-DA, GEMBA-MQM, GEMBA-ESA, yours) on a causal LM or an endpoint.

    model: a local checkpoint directory or hub id (with endpoint=: the model's name on the server).
    prompt: gemba-da, gemba-mqm, gemba-esa, gemba-esa-wmt25, an entry point of docmetrics.llm_prompts,
    or a prompt file.  score: parse, constrained or expected.  lang: the pair (-l).

    Tom Kocmi and Christian Federmann. 2023. Large Language Models Are State-of-the-Art Evaluators of
    Translation Quality. EAMT.  Tom Kocmi and Christian Federmann. 2023. GEMBA-MQM: Detecting Translation
    Quality Error Spans with GPT-4. WMT.  Tom Kocmi et al. 2024. Error Span Annotation. WMT.
    """

    name = "llm"
    description = "LLM judge (GEMBA-DA/MQM/ESA prompts) on a local causal LM or an OpenAI-compatible endpoint"
    default_model = None
    libraries = (("transformers", "tf"), ("torch", "torch"))
    sample_models = {"tiny-llm": "a chat LM (Llama with a ChatML template and the integers 0-100 as tokens), "
                                 "like Qwen2.5-7B-Instruct"}
    params = (
        Param("prompt", str, "gemba-da", "the judge's prompt: gemba-da, gemba-mqm, gemba-esa, gemba-esa-wmt25, "
              "an entry point of docmetrics.llm_prompts, or a prompt FILE", short="pt"),
        Param("score", str, "constrained", "how an answer becomes a score: parse (the prompt's rule on the "
              "greedy answer), constrained (only tokens of a valid score allowed), expected "
              "(probability-weighted mean of the score tokens)", choices=SCORE_RULES, short="sc"),
        Param("lang", str, None, "language pair src-tgt (set by -l): the names the prompt writes",
              check=check_langpair),
        Param("names", str, "", "language names for codes the prompt cannot name: CODE:Name joined by '+'",
              check=_names, short="nm"),
        Param("endpoint", str, None, "an OpenAI-compatible base URL, http:// or https:// (vllm serve: "
              "http://HOST:8000/v1); model= is then the served model's name", short="ep", check=_endpoint),
        Param("chat_template", str, None, "a Jinja chat-template file, for a model whose tokenizer has none",
              short="ct"),
        Param("max_new_tokens", int, 512, "the most tokens an answer may have (the rest is cut, counted)",
              minimum=1, short="mnt"),
        Param("seed", int, 0, "recorded, and sent to an endpoint (decoding is greedy)", short="seed"),
        Param("top_logprobs", int, 20, "score=expected on an endpoint: how many of the first token's most "
              "likely tokens it returns", minimum=1, short="tlp"),
        Param("max_unparsed", float, 0.05, "score=parse: refuse the run once more than this share of the units "
              "scored have answers without a score", minimum=0.0, maximum=1.0, short="mu"),
        Param("timeout", float, 600.0, "seconds an endpoint's whole answer may take (a deadline per request)",
              minimum=0.001, in_signature=False),
        Param("api_key_env", str, "OPENAI_API_KEY", "the environment variable holding an endpoint's key",
              in_signature=False),
    )

    @classmethod
    def write_sample_model(cls, name: str, out_dir: str) -> str:
        from .testing import build_tiny_llm

        build_tiny_llm(out_dir, seed=0)
        return f"model={out_dir}"

    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        if model is None and not kwargs.get("model"):
            raise SpecError("backbone 'llm': no model given; pass model=DIR (a local checkpoint of a chat LLM) "
                            "or endpoint=URL,model=NAME (the model's name on the server)", params=("model",))
        super().__init__(model, **kwargs)
        self.prompt: Prompt = load_prompt(str(self.p["prompt"]))
        rule = self.p["score"]
        if self.prompt.rule == "mqm" and rule != "parse":
            raise SpecError(f"backbone 'llm': prompt {self.prompt.name} answers with a list of errors (rule mqm), "
                            f"which score={rule} cannot write; use score=parse", params=("score",))
        if self.p["endpoint"] and rule == "constrained":
            raise SpecError("backbone 'llm': score=constrained needs the model's logits, which an endpoint does not "
                            "give; use score=parse or score=expected (with logprobs) with endpoint=",
                            params=("score",))
        self.template: str | None = None
        self.chat: ChatTemplate | None = None
        if self.p["chat_template"]:
            path = Path(str(self.p["chat_template"])).expanduser()
            try:
                self.template = read_template(path)
            except (OSError, ValueError) as exc:
                why = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
                raise SpecError(f"chat_template={path}: cannot be read ({why})", params=("chat_template",)) from None
            if not self.p["endpoint"]:  # an endpoint's server writes the conversation itself
                self.chat = ChatTemplate(self.template, f"chat_template={path}")
        self.names = dict(p.split(":", 1) for p in filter(None, str(self.p["names"]).split("+")))
        self._dir: Path | None = None
        self._lm: Any = None
        self._endpoint: Any = None
        self._seen = 0
        self._unparsed = 0

    # -- what it can do -------------------------------------------------------------------------
    @property
    def capabilities(self) -> frozenset[str]:
        """QE or REFERENCE by the prompt ({reference_seg}); CURRENT_SENTENCE where it shows {context}."""
        caps = {REFERENCE if self.prompt.reference_based else QE}
        if self.prompt.shows_context:
            caps.add(CURRENT_SENTENCE)
        return frozenset(caps)

    def why_not(self, capability: str) -> str:
        if capability == CURRENT_SENTENCE:
            return f"its prompt {self.prompt.name} has no {{context}} placeholder to show the previous segments"
        if capability == REFERENCE:
            return f"its prompt {self.prompt.name} shows no reference ({{reference_seg}})"
        if capability == QE:
            return f"its prompt {self.prompt.name} needs the reference ({{reference_seg}})"
        return super().why_not(capability)

    def model_dir(self) -> Path:
        if self._dir is None:
            self._dir = find_model(str(self.model), kind="causal LM", layout=_LAYOUT, download=_download,
                                   example="/path/to/Qwen2.5-7B-Instruct")
        return self._dir

    def fingerprint(self) -> str:
        if self.p["endpoint"]:
            return "endpoint"  # the weights behind a server cannot be hashed from here
        given = Path(str(self.model)).expanduser()
        return fingerprint(given if given.is_dir() else self.model_dir())  # the layout is checked on load

    def extra_signature_fields(self) -> list[SigField]:
        """Its parameters, then the prompt's fingerprint and version, its score rule and the decoding."""
        decoding = {"parse": "greedy", "constrained": "greedy-constrained", "expected": "next-token-probs"}
        return super().extra_signature_fields() + [
            SigField("prompt_fingerprint", "pfp", self.prompt.fingerprint, is_param=False),
            SigField("prompt_version", "pv", self.prompt.version, is_param=False),
            SigField("rule", "rule", self.prompt.rule, is_param=False),
            SigField("decoding", "dec", decoding[self.p["score"]], is_param=False),
            SigField("chat_template_fingerprint", "ctfp", _short_hash(self.template), is_param=False),
        ]

    def cache_state(self) -> dict[str, str]:
        return {"prompt_fingerprint": self.prompt.fingerprint, "chat_template": _short_hash(self.template),
                "endpoint_model": str(self.model) if self.p["endpoint"] else ""}

    # -- loading ---------------------------------------------------------------------------------
    def load(self) -> None:
        if self._lm is not None or self._endpoint is not None:
            return
        if self.p["endpoint"]:
            from .endpoint import Endpoint

            self._endpoint = Endpoint(str(self.p["endpoint"]), str(self.model), timeout=float(self.p["timeout"]),
                                      seed=int(self.p["seed"]), api_key_env=str(self.p["api_key_env"]))
            return
        from .local import LocalModel

        device = self.checked_device()
        import torch

        torch.manual_seed(int(self.p["seed"]))
        self._lm = LocalModel(self.model_dir(), str(self.model), device, self.chat, self.place)

    # -- units to prompts ----------------------------------------------------------------------------
    def _values(self, unit: Unit, index: int) -> dict[str, str]:
        lang = self.p["lang"]
        if not lang:
            raise UserError("backbone 'llm': the prompt names the languages; give the pair with -l SRC-TGT (or "
                            "lang=)", params=("lang",))
        pair = parse_langpair(str(lang))
        if unit.src is None:
            raise UserError(f"backbone 'llm': unit {index} has no source; pass it with -s/--source")
        if self.prompt.reference_based and unit.ref is None:
            raise UserError(f"backbone 'llm': prompt {self.prompt.name} shows the reference, but unit {index} has "
                            "none; pass it with -r/--reference")
        return {"source_lang": language_name(pair.source.code, self.names),
                "target_lang": language_name(pair.target.code, self.names),
                "source_seg": unit.src, "target_seg": unit.mt, "reference_seg": unit.ref or "", "context": ""}

    def _fit(self, step: int, unit: Unit, values: dict[str, str], index: int) -> tuple[Any, int]:
        """The step's encoded prompt (ids for a local model, messages for an endpoint) with as much of the
        unit's context as fits, and how many context segments were dropped."""
        src_ctx, mt_ctx = unit.src_context, unit.mt_context or unit.ref_context
        if (src_ctx or mt_ctx) and not self.prompt.shows_context:
            raise UserError(f"backbone 'llm': prompt {self.prompt.name} has no {{context}} placeholder, so it cannot "
                            "show the previous segments; use k=0 or a prompt with {context}")
        n = max(len(src_ctx), len(mt_ctx))
        for drop in range(n + 1):
            keep = n - drop
            vals = dict(values, context=render_context(self.prompt, src_ctx[len(src_ctx) - keep:] if keep else (),
                                                       mt_ctx[len(mt_ctx) - keep:] if keep else (), values))
            messages = self.prompt.messages(step, vals)
            if self._lm is None:
                return messages, drop
            ids = self._lm.encode(messages)
            if len(ids) + self._answer_tokens(step) <= self._lm.window:
                return ids, drop
        raise UserError(f"backbone 'llm': unit {index} needs {len(ids)} prompt tokens and {self._answer_tokens(step)} "
                        f"for the answer, more than model '{self.model}' takes ({self._lm.window} positions); score "
                        "shorter units (smaller SLIDE windows) or lower max_new_tokens=")

    def _answer_tokens(self, step: int) -> int:
        last = step == len(self.prompt.steps) - 1
        if last and self.p["score"] == "expected":
            return 1
        if last and self.p["score"] == "constrained":
            return len(str(int(self.prompt.high))) + 1
        return int(self.p["max_new_tokens"])

    # -- scoring ------------------------------------------------------------------------------------
    def score(self, units: Sequence[Unit]) -> BackboneOutput:
        units = list(units)
        if not units:
            return BackboneOutput(scores=[], truncated=[], unit_counters=[])
        self.load()
        values = [self._values(u, i) for i, u in enumerate(units)]
        answers: list[list[str]] = [[] for _ in units]
        cut = [0] * len(units)
        dropped = [0] * len(units)
        scores: list[float | None] = [None] * len(units)
        last = len(self.prompt.steps) - 1
        for step in range(last + 1):
            prompts = []
            for i, u in enumerate(units):
                if step:
                    values[i]["answer"] = answers[i][0]
                prompt, drop = self._fit(step, u, values[i], i)
                prompts.append(prompt)
                dropped[i] = max(dropped[i], drop)
            how = self.p["score"] if step == last else "parse"
            got = self._run(prompts, how, self._answer_tokens(step))
            for i, (text, was_cut, value) in enumerate(got):
                answers[i].append(text)
                cut[i] += int(was_cut)
                if step == last:
                    scores[i] = value
        records = []
        for i, u in enumerate(units):
            final = answers[i][-1]
            parsed = parse_answer(self.prompt.rule, final, self.prompt.low, self.prompt.high)
            score = scores[i] if scores[i] is not None else parsed.score
            errors = parsed.errors if self.prompt.rule == "mqm" else error_lines(answers[i][0])[0] if last else ()
            spans, unmatched = map_spans(errors, u.mt)
            counters = {k: v for k, v in ((_UNPARSED, int(score is None)), (_UNMATCHED, unmatched), (_CUT, cut[i]),
                                          (_DROPPED, dropped[i])) if v}
            self._seen += 1
            self._unparsed += int(score is None)
            records.append(UnitRecord(
                self.prompt.low if score is None else float(score), False, counters,
                tuple(UnitSpan(a, b, sev) for a, b, sev in spans), _STEP.join(answers[i])))
        if self._unparsed and self._unparsed > self.p["max_unparsed"] * self._seen:
            example = next(r.answer for r in records if r.counters and _UNPARSED in r.counters) if any(
                r.counters and _UNPARSED in r.counters for r in records) else ""
            raise UserError(f"backbone 'llm': {self._unparsed} of {self._seen} answers scored so far give no score "
                            f"under prompt {self.prompt.name}'s rule '{self.prompt.rule}' (more than max_unparsed="
                            f"{self.p['max_unparsed']:g}), e.g. {example[:120]!r}; use score=constrained or "
                            "score=expected, a stronger model, or raise max_unparsed=", params=("max_unparsed",))
        return BackboneOutput.from_records(records)

    def _run(self, prompts: list[Any], how: str, max_new: int) -> list[tuple[str, bool, float | None]]:
        """(answer text, cut, score or None to parse) per prompt, in the order given."""
        low, high = self.prompt.low, self.prompt.high
        if self._endpoint is not None:
            out = []
            for messages in prompts:
                if how == "expected":
                    _, _, top = self._endpoint.chat(messages, 1, int(self.p["top_logprobs"]))
                    probs = {}
                    for item in top:
                        t = str(item.get("token", ""))
                        if t.strip().isdigit() and t in (t.strip(), " " + t.strip()) and low <= int(t) <= high:
                            probs[float(int(t))] = probs.get(float(int(t)), 0.0) + math.exp(float(item["logprob"]))
                    out.append(_expected(probs, len(top)))
                else:
                    text, cut, _ = self._endpoint.chat(messages, max_new)
                    out.append((text, cut, None))
            return out
        lm = self._lm
        result: list[Any] = [None] * len(prompts)
        cuda = lm.device == "cuda"
        batches = self.batches([len(p) for p in prompts], default_tokens=65536 if cuda else 16384)
        if how == "expected":
            values = lm.score_tokens(low, high)
            ids = list(values)
            for batch in batches:
                probs = lm.next_token_probs([prompts[j] for j in batch])
                for r, j in enumerate(batch):
                    by_value: dict[float, float] = {}
                    for t in ids:
                        by_value[values[t]] = by_value.get(values[t], 0.0) + float(probs[r, t])
                    result[j] = _expected(by_value, None)
            return result
        allowed = lm.constraint(low, high) if how == "constrained" else None
        for batch in batches:
            for j, (text, cut) in zip(batch, lm.generate([prompts[j] for j in batch], max_new, allowed)):
                value = float(int(text.strip())) if allowed is not None else None
                result[j] = (text, cut and allowed is None, value)
        return result


def _expected(probs: dict[float, float], offered: int | None) -> tuple[str, bool, float | None]:
    """The expected score of {value: probability} and the answer text that says how it was formed."""
    mass = sum(probs.values())
    if mass <= 0:
        seen = f"the {offered} tokens the endpoint returned" if offered is not None else "the vocabulary"
        return f"expected: no score token among {seen}", False, None
    value = sum(v * p for v, p in probs.items()) / mass
    top = sorted(probs.items(), key=lambda kv: -kv[1])[:5]
    return (f"expected {value:.4f} (mass {mass:.4f} on {len(probs)} scores; top "
            + ", ".join(f"{v:g}:{p:.4f}" for v, p in top) + ")", False, value)


def _short_hash(text: str | None) -> str:
    import hashlib

    return "tokenizer" if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
