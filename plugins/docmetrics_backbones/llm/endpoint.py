"""An OpenAI-compatible chat-completions endpoint (``vllm serve``, hosted APIs): the standard library only.

One request per prompt: ``POST {endpoint}/chat/completions`` with ``model``, ``messages``, ``temperature``
0, ``top_p`` 1, ``n`` 1, ``seed``, ``max_tokens`` and, for expected scores, ``logprobs: true`` and
``top_logprobs: k`` (the first answer token's k most likely tokens).  The key, where one is needed, is
read from the environment variable ``api_key_env=`` names and sent as ``Authorization: Bearer``; it goes
into no signature and no cache.  Any failure (an HTTP error status, a time-out, a refused or dropped
connection, an answer that is not the protocol's JSON) is an :class:`EndpointError` naming the endpoint
and what happened: the run stops with exit status 2, and what was scored before is in the score cache.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import urllib.error
import urllib.request
from typing import Any

from docmetrics.values.errors import UserError

__all__ = ["Endpoint", "EndpointError"]


class EndpointError(UserError):
    """The endpoint could not answer."""


class Endpoint:
    def __init__(self, url: str, model: str, *, timeout: float, seed: int, api_key_env: str) -> None:
        self.url = url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self.seed = seed
        self.key = os.environ.get(api_key_env, "") if api_key_env else ""

    def chat(self, messages: list[dict[str, str]], max_tokens: int, top_logprobs: int = 0) -> tuple[str, bool, Any]:
        """(the answer text, whether it was cut at max_tokens, the first token's top logprobs or None)."""
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0, "top_p": 1, "n": 1,
                                "seed": self.seed, "max_tokens": max_tokens}
        if top_logprobs:
            body.update(logprobs=True, top_logprobs=top_logprobs)
        data = self._post("/chat/completions", body)
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"] or ""
            cut = choice.get("finish_reason") == "length"
            first = None
            if top_logprobs:
                content = (choice.get("logprobs") or {}).get("content") or []
                first = content[0].get("top_logprobs") if content else None
                if not first:
                    raise EndpointError(f"endpoint {self.url} gave no logprobs for model '{self.model}' "
                                        "(score=expected needs logprobs and top_logprobs); use score=parse, or a "
                                        "server that gives them (vllm serve does, up to its --max-logprobs)")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise EndpointError(f"endpoint {self.url} answered, but not with a chat completion "
                                f"(choices[0].message.content): {json.dumps(data)[:200]}") from None
        return str(text), bool(cut), first

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode("utf-8"), method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {self.key}"} if self.key else {})})
        where = f"endpoint {self.url}"
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:200].decode("utf-8", "replace").strip()
            raise EndpointError(f"{where} answered HTTP {exc.code} ({exc.reason}) to a chat request for model "
                                f"'{self.model}'" + (f": {detail}" if detail else "")) from None
        except (socket.timeout, TimeoutError):
            raise EndpointError(f"{where} did not answer within {self.timeout:g} s (timeout=); is the server "
                                "overloaded or the model still loading?") from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise EndpointError(f"{where} did not answer within {self.timeout:g} s (timeout=)") from None
            raise EndpointError(f"{where} cannot be reached ({reason}); is the server running, and is the URL "
                                "its OpenAI-compatible base (e.g. http://localhost:8000/v1)?") from None
        except (http.client.HTTPException, ConnectionError, OSError) as exc:
            raise EndpointError(f"{where} dropped the connection ({type(exc).__name__}: {exc})") from None
        try:
            return json.loads(raw)
        except ValueError:
            raise EndpointError(f"{where} answered with something that is not JSON: {raw[:120]!r}") from None
