"""An OpenAI-compatible chat-completions endpoint (``vllm serve``, hosted APIs): the standard library only.

One request per prompt: ``POST {endpoint}/chat/completions`` with ``model``, ``messages``, ``temperature``
0, ``top_p`` 1, ``n`` 1, ``seed``, ``max_tokens`` and, for expected scores, ``logprobs: true`` and
``top_logprobs: k`` (the first answer token's k most likely tokens).  The key, where one is needed, is
read from the environment variable ``api_key_env=`` names and sent as ``Authorization: Bearer``; it goes
into no signature and no cache.  Any failure (an HTTP error status, a time-out, a refused or dropped
connection, an answer that is not the protocol's JSON) is an :class:`EndpointError` naming the endpoint
and what happened: the run stops with exit status 2, and what was scored before is in the score cache.

Three limits keep a server from taking more than it was given:

* no redirect is followed (a 3xx answer is an error naming where it pointed): a redirect would resend the
  request, and the key, to another host, and the signature names ``endpoint=``, so the server that answers
  must be the one it names;
* ``timeout=`` is a deadline for the whole request (connecting, sending, the headers and the whole body),
  not for each read: a server that sends one byte a second is cut off when it has passed;
* the reply is read up to :func:`reply_limit` bytes (a chat completion of ``max_tokens`` tokens is far
  smaller); a longer one is an error, not parsed.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import urllib.error
import urllib.request
from typing import Any

from docmetrics.values.errors import UserError

__all__ = ["Endpoint", "EndpointError", "reply_limit"]


class EndpointError(UserError):
    """The endpoint could not answer."""


def reply_limit(max_tokens: int, top_logprobs: int = 0) -> int:
    """The most bytes read of one reply: 1 MiB, and 4 KiB more per token asked (with its logprobs)."""
    return (1 << 20) + max_tokens * (4096 + 256 * top_logprobs)


class _Deadline:
    """Shuts the request's sockets down once ``seconds`` have passed since it began."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket | None) -> None:
        if sock is None:
            return
        with self._lock:
            self._socks.append(sock)
            if not self.expired:
                return
        self._shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            socks = list(self._socks)
        for sock in socks:
            self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def cancel(self) -> None:
        self._timer.cancel()


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """urllib's opener (proxies from the environment, HTTPS) whose connections the deadline can cut and
    which follows no redirect."""

    def watched(base: type[http.client.HTTPConnection]) -> type[http.client.HTTPConnection]:
        class Watched(base):  # type: ignore[valid-type,misc]
            def connect(self) -> None:
                super().connect()
                deadline.watch(self.sock)
        return Watched

    class Http(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> Any:
            return self.do_open(watched(http.client.HTTPConnection), req)

    class Https(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> Any:
            return self.do_open(watched(http.client.HTTPSConnection), req, context=self._context)

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None  # the 3xx reaches the caller as an HTTPError

    return urllib.request.build_opener(Http(), Https(), NoRedirect())


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
        data = self._post("/chat/completions", body, reply_limit(max_tokens, top_logprobs))
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

    def _post(self, path: str, body: dict[str, Any], limit: int) -> Any:
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode("utf-8"), method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {self.key}"} if self.key else {})})
        where = f"endpoint {self.url}"
        late = (f"{where} did not finish answering within {self.timeout:g} s (timeout= limits the whole request); "
                "is the server overloaded or the model still loading?")
        deadline = _Deadline(self.timeout)
        try:
            with _opener(deadline).open(req, timeout=self.timeout) as resp:
                raw = _read(resp, limit, deadline)
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                target = exc.headers.get("Location") if exc.headers else None
                raise EndpointError(f"{where} answered HTTP {exc.code} ({exc.reason}), a redirect"
                                    + (f" to {str(target)[:200]}" if target else "")
                                    + "; docmetrics follows no redirect (it would send the request"
                                    + (" and the key" if self.key else "") + " to a server the signature does not "
                                    "name): give the server's own base URL as endpoint=") from None
            detail = exc.read()[:200].decode("utf-8", "replace").strip()
            raise EndpointError(f"{where} answered HTTP {exc.code} ({exc.reason}) to a chat request for model "
                                f"'{self.model}'" + (f": {detail}" if detail else "")) from None
        except _TooLong:
            raise EndpointError(f"{where} sent more than {limit} bytes in reply to a chat request of at most "
                                f"{body['max_tokens']} tokens; is endpoint= an OpenAI-compatible server?") from None
        except (socket.timeout, TimeoutError):
            raise EndpointError(late) from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, (socket.timeout, TimeoutError)) or deadline.expired:
                raise EndpointError(late) from None
            raise EndpointError(f"{where} cannot be reached ({reason}); is the server running, and is the URL "
                                "its OpenAI-compatible base (e.g. http://localhost:8000/v1)?") from None
        except (http.client.HTTPException, ConnectionError, OSError) as exc:
            if deadline.expired:
                raise EndpointError(late) from None
            raise EndpointError(f"{where} dropped the connection ({type(exc).__name__}: {exc})") from None
        finally:
            deadline.cancel()
        if deadline.expired:
            raise EndpointError(late)
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
            raise EndpointError(f"{where} answered with something that is not JSON: {raw[:120]!r}") from None


class _TooLong(Exception):
    pass


def _read(resp: Any, limit: int, deadline: _Deadline) -> bytes:
    """The reply's body, at most ``limit`` bytes (more: :class:`_TooLong`), read in pieces as they come."""
    length = resp.headers.get("Content-Length")
    if length and length.strip().isdigit() and int(length) > limit:
        raise _TooLong
    parts: list[bytes] = []
    size = 0
    while True:
        piece = resp.read1(65536)
        if not piece:
            if deadline.expired:
                raise TimeoutError
            return b"".join(parts)
        size += len(piece)
        if size > limit:
            raise _TooLong
        parts.append(piece)
