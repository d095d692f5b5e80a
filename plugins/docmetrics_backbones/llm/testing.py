"""A tiny chat LLM built offline, for tests and for plugin authors (the ``llm`` backbone).

:func:`build_tiny_llm` writes one Hugging Face directory, laid out as a chat model is published::

    <dir>/config.json, model.safetensors, generation_config.json      (LlamaForCausalLM)
    <dir>/tokenizer.json, tokenizer_config.json (with its chat_template), special_tokens_map.json

The tokenizer is a byte-level BPE trained on :func:`docmetrics_backbones.tiny.sample_sentences` and the
shipped prompts, with the integers 0..100 as single tokens (as Llama 3's tokenizer writes numbers up to
three digits) and ChatML's special tokens (``<|im_start|>``, ``<|im_end|>``: the end of a turn and the
EOS, ``<|endoftext|>``: padding) with a ChatML chat template (as Qwen's).  The model is a randomly
initialised Llama (hidden 32, 2 layers, 4 heads, 2 key-value heads, 4096 positions).  The same seed
gives the same files; the answers mean nothing.

:func:`openai_server` serves a model (or any function of the messages) through the OpenAI
chat-completions protocol on a loopback port, for tests of ``endpoint=``.

Importing this module is cheap: torch, tokenizers and transformers are imported inside the functions.
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

from docmetrics.plugin.models import quiet_libraries

__all__ = ["build_tiny_llm", "CHATML_TEMPLATE", "openai_server", "model_answerer"]

#: ChatML, as Qwen's tokenizers carry it.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def build_tiny_llm(out_dir: str | os.PathLike[str], seed: int = 0, *, chat_template: bool = True,
                   vocab_size: int = 600, hidden: int = 32, layers: int = 2) -> Path:
    """Write a tiny random chat LLM (a Llama with a ChatML tokenizer) into ``out_dir``; returns it.

    ``chat_template=False`` leaves the template out (the backbone then refuses the model unless
    ``chat_template=FILE`` is given).  Weights are drawn from ``seed``."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    from ..tiny import sample_sentences
    from .prompts import builtin_prompts

    root = Path(out_dir)
    root.mkdir(parents=True, exist_ok=True)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    texts = sample_sentences() + [p.read_text(encoding="utf-8") for p in builtin_prompts().values()]
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(texts, trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False))
    with quiet_libraries():
        tok = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                      bos_token=None, unk_token=None)
        tok.add_tokens([str(n) for n in range(101)])  # numbers as single tokens, as Llama 3's
        if chat_template:
            tok.chat_template = CHATML_TEMPLATE
        tok.save_pretrained(str(root))
        config = LlamaConfig(
            vocab_size=len(tok), hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=layers,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096, rms_norm_eps=1e-6,
            initializer_range=0.2, tie_word_embeddings=False, eos_token_id=tok.eos_token_id,
            pad_token_id=tok.pad_token_id, bos_token_id=None)
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config).eval()
        model.save_pretrained(str(root), safe_serialization=True)
        GenerationConfig(eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                         do_sample=False).save_pretrained(str(root))
    return root


def model_answerer(model_dir: str | os.PathLike[str], max_new_tokens: int = 64) -> Callable[..., dict[str, Any]]:
    """A function ``(messages, max_tokens, logprobs, top_logprobs) -> {"content", "logprobs"}`` that
    answers greedily with the model in ``model_dir`` (what a vLLM server with temperature 0 does):
    the answer text and, where asked, OpenAI-style logprobs (token text, logprob, top_logprobs)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with quiet_libraries():
        tok = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(str(model_dir), local_files_only=True).eval()
    lock = threading.Lock()

    def answer(messages: list[dict[str, str]], max_tokens: int | None = None, logprobs: bool = False,
               top_logprobs: int = 0) -> dict[str, Any]:
        text = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        ids = tok(text, add_special_tokens=False, return_tensors="pt")["input_ids"]
        out_ids: list[int] = []
        items: list[dict[str, Any]] = []
        with lock, torch.inference_mode():
            past = None
            step_ids = ids
            for _ in range(max_tokens or max_new_tokens):
                res = model(input_ids=step_ids, past_key_values=past, use_cache=True)
                past = res.past_key_values
                logp = torch.log_softmax(res.logits[0, -1].float(), dim=-1)
                nxt = int(torch.argmax(logp))
                if logprobs:
                    top = torch.topk(logp, min(len(logp), max(1, top_logprobs)))
                    items.append({"token": tok.decode([nxt]), "logprob": float(logp[nxt]),
                                  "top_logprobs": [{"token": tok.decode([int(i)]), "logprob": float(v)}
                                                   for v, i in zip(top.values, top.indices)]})
                if nxt == tok.eos_token_id:
                    break
                out_ids.append(nxt)
                step_ids = torch.tensor([[nxt]])
        finish = "stop" if len(out_ids) < (max_tokens or max_new_tokens) else "length"
        return {"content": tok.decode(out_ids), "logprobs": items if logprobs else None, "finish_reason": finish}

    return answer


class openai_server:
    """A loopback HTTP server speaking OpenAI's chat-completions protocol (``POST /v1/chat/completions``,
    ``GET /v1/models``), answering with ``answer(messages, max_tokens, logprobs, top_logprobs)``.

    ``fail``: a function of the request number (1, 2, ...) that returns None (answer), ``"500"`` (answer
    HTTP 500), ``"hang"`` (never answer: the client times out), ``"drop"`` (close the connection
    without an answer), ``"302 URL"`` / ``"307 URL"`` (redirect there), ``"trickle"`` (send a reply one
    byte every 0.2 s, for ever) or ``"huge"`` (a 64 MiB reply).  Use as a context manager; ``url`` is the
    ``endpoint=`` value; ``requests`` counts the chat requests (GET or POST); ``keys`` holds each request's
    ``Authorization`` header (None where there was none); ``port``: 0 for any free one."""

    def __init__(self, answer: Callable[..., dict[str, Any]], model: str = "tiny",
                 fail: Callable[[int], str | None] | None = None, port: int = 0) -> None:
        self.answer, self.model, self.fail = answer, model, fail or (lambda n: None)
        self.requests = 0
        self.bodies: list[dict[str, Any]] = []
        self.keys: list[str | None] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.endswith("/chat/completions"):  # a POST redirected by 302 arrives as a GET
                    with outer._lock:
                        outer.requests += 1
                        outer.keys.append(self.headers.get("Authorization"))
                    return self._send(200, {"object": "chat.completion", "model": outer.model, "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": "90"}, "finish_reason": "stop"}]})
                self._send(200, {"object": "list", "data": [{"id": outer.model, "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                with outer._lock:
                    outer.requests += 1
                    n = outer.requests
                    outer.bodies.append(body)
                    outer.keys.append(self.headers.get("Authorization"))
                what = outer.fail(n)
                if what and what[:3] in ("301", "302", "303", "307", "308"):
                    self.send_response(int(what[:3]))
                    self.send_header("Location", what[4:])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if what == "trickle":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    while not outer._stop.wait(0.2):
                        try:
                            self.wfile.write(b" ")
                            self.wfile.flush()
                        except OSError:
                            return
                    return
                if what == "huge":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    try:
                        for _ in range(64):
                            self.wfile.write(b" " * (1 << 20))
                    except OSError:
                        pass
                    return
                if what == "500":
                    return self._send(500, {"error": {"message": "internal error", "code": 500}})
                if what == "hang":
                    outer._stop.wait(30)
                    return
                if what == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if body.get("model") != outer.model:
                    return self._send(404, {"error": {"message": f"model {body.get('model')} does not exist"}})
                got = outer.answer(body["messages"], body.get("max_tokens") or body.get("max_completion_tokens"),
                                   bool(body.get("logprobs")), int(body.get("top_logprobs") or 0))
                choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": got["content"]},
                                          "finish_reason": got.get("finish_reason", "stop")}
                if got.get("logprobs") is not None:
                    choice["logprobs"] = {"content": got["logprobs"]}
                self._send(200, {"id": f"cmpl-{n}", "object": "chat.completion", "model": outer.model,
                                 "choices": [choice]})

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> openai_server:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def __iter__(self) -> Iterator[Any]:  # pragma: no cover - not iterable
        raise TypeError("openai_server is a context manager")
