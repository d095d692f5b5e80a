"""A chat template (Jinja, as transformers' ``apply_chat_template`` reads it) rendered in a sandbox with limits.

A chat template comes from a file the user names (``chat_template=FILE``) or from a checkpoint's tokenizer,
so it is code from someone else.  It is rendered as transformers renders it (Jinja's immutable sandbox,
``trim_blocks``, ``lstrip_blocks``, ``loopcontrols``, ``raise_exception``, ``tojson``, ``strftime_now``, the
tokenizer's special tokens as variables), with what transformers leaves open closed:

* no ``include``, ``import`` or ``extends``: a chat template is one self-contained text;
* every loop step and every call counts; a rendering stops after :data:`MAX_STEPS` of them or
  :data:`MAX_SECONDS` seconds (a nested ``range(100000)`` stops at once, not after hours);
* ``*`` and ``**`` cannot build a string, list or number larger than :data:`MAX_SIZE`, and the text
  rendered stops at :data:`MAX_SIZE` characters;
* the file is at most :data:`MAX_FILE_BYTES` and a regular file (``/dev/zero`` is refused, not read).

Every failure is a :class:`~docmetrics.values.errors.ModelError` naming the template (the file, or the
tokenizer it came from) and what it did; nothing of Jinja's or Python's reaches the user as a traceback.
"""

from __future__ import annotations

import json
import os
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Iterator

from docmetrics.values.errors import ModelError

__all__ = ["ChatTemplate", "read_template", "MAX_STEPS", "MAX_SECONDS", "MAX_SIZE", "MAX_FILE_BYTES"]

MAX_STEPS = 1_000_000
MAX_SECONDS = 10.0
MAX_SIZE = 4 << 20
MAX_FILE_BYTES = 1 << 20
_ADVICE = "a chat template only lays out the messages"


class _Stop(Exception):
    """A limit was reached while rendering."""


def read_template(path: str | os.PathLike[str]) -> str:
    """The text of a chat-template file, refused (ValueError, the reason) unless it is a regular UTF-8 file of
    at most MAX_FILE_BYTES bytes; OSError where it cannot be opened."""
    file = Path(path).expanduser()
    if not file.is_file():
        if file.exists():
            raise ValueError("not a regular file (a chat template is a Jinja text file)")
        raise FileNotFoundError("no such file")
    with open(file, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"larger than {MAX_FILE_BYTES >> 20} MiB (a chat template is a few KB of Jinja)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _environment(budget: _Budget) -> Any:
    import jinja2
    from jinja2 import nodes
    from jinja2.ext import Extension
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class Generation(Extension):  # transformers' {% generation %} marks assistant text; here it only renders
        tags = {"generation"}

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

        def _body(self, caller: Any) -> str:
            return str(caller())

    class Limited(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset(["*", "**"])

        def _parse(self, source: str, name: str | None, filename: str | None) -> Any:
            tree = super()._parse(source, name, filename)
            for loop in tree.find_all(nodes.For):  # every loop's items are counted: for x in (_steps(...))
                loop.iter = nodes.Call(nodes.Name("__dm_steps", "load"), [loop.iter], [], None, None
                                       ).set_lineno(loop.lineno)
            tree.set_environment(self)
            return tree

        def call(self, context: Any, obj: Any, *args: Any, **kwargs: Any) -> Any:
            budget.step()
            return super().call(context, obj, *args, **kwargs)

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            if operator == "*" and isinstance(right, (str, list, tuple)):
                left, right = right, left
            if operator == "*" and isinstance(left, (str, list, tuple)) and isinstance(right, int):
                if len(left) * max(right, 0) > MAX_SIZE:
                    raise _Stop(f"it builds a sequence of {len(left)} x {right} items with '*'; {_ADVICE}")
            elif operator == "**" and isinstance(left, (int, float)) and isinstance(right, (int, float)):
                if abs(right) > 64 and abs(left) > 1:
                    raise _Stop(f"it computes {left} ** {right}; {_ADVICE}")
            return super().call_binop(context, operator, left, right)

    def raise_exception(message: str) -> None:
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
               sort_keys: bool = False) -> str:
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = Limited(trim_blocks=True, lstrip_blocks=True, extensions=[Generation, "jinja2.ext.loopcontrols"],
                  loader=jinja2.DictLoader({}))
    env.filters["tojson"] = tojson
    env.globals.update(raise_exception=raise_exception, strftime_now=lambda f: datetime.now().strftime(f),
                       __dm_steps=budget.items)
    return env


class _Budget:
    def __init__(self) -> None:
        self.steps = 0
        self.until = 0.0

    def start(self) -> None:
        self.steps = 0
        self.until = time.monotonic() + MAX_SECONDS

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Stop(f"it ran more than {MAX_STEPS:,} loop steps and calls; {_ADVICE}")
        if not self.steps % 1024 and time.monotonic() > self.until:
            raise _Stop(f"it ran for more than {MAX_SECONDS:g} s; {_ADVICE}")

    def items(self, iterable: Iterable[Any]) -> Iterator[Any]:
        for item in iterable:
            self.step()
            yield item


class ChatTemplate:
    """A compiled chat template; ``where`` names it in every message (``chat_template=t.jinja``, or the
    tokenizer it came from)."""

    def __init__(self, text: str, where: str) -> None:
        import jinja2

        self.where = where
        self._budget = _Budget()
        self._env = _environment(self._budget)
        try:
            self._template = self._env.from_string(text)
        except jinja2.TemplateSyntaxError as exc:
            raise ModelError(f"{where}, line {exc.lineno}: not a Jinja template ({exc.message})",
                             params=("chat_template",)) from None
        except Exception as exc:  # noqa: BLE001 - whatever the compiler makes of someone else's code
            raise ModelError(f"{where}: cannot be compiled ({_what(exc)})", params=("chat_template",)) from None

    def render(self, messages: list[dict[str, str]], variables: dict[str, Any] | None = None) -> str:
        """The conversation as the template writes it, with the generation prompt."""
        import jinja2

        self._budget.start()
        parts: list[str] = []
        size = 0
        try:
            for piece in self._template.generate(messages=messages, tools=None, documents=None,
                                                 add_generation_prompt=True, **(variables or {})):
                size += len(piece)
                if size > MAX_SIZE:
                    raise _Stop(f"it wrote more than {MAX_SIZE >> 20} MiB of text; {_ADVICE}")
                if time.monotonic() > self._budget.until:
                    raise _Stop(f"it ran for more than {MAX_SECONDS:g} s; {_ADVICE}")
                parts.append(piece)
        except _Stop as exc:
            raise ModelError(f"{self.where}: stopped: {exc}", params=("chat_template",)) from None
        except jinja2.TemplateNotFound as exc:
            raise ModelError(f"{self.where}: includes, imports or extends {exc.name!r}; a chat template must be one "
                             "self-contained text (none of them is allowed)", params=("chat_template",)) from None
        except jinja2.sandbox.SecurityError as exc:
            raise ModelError(f"{self.where}: refused by the sandbox ({exc}); a chat template reads the messages "
                             "and writes text, nothing else", params=("chat_template",)) from None
        except jinja2.TemplateError as exc:  # raise_exception(...) in the template, or a runtime error of Jinja's
            raise ModelError(f"{self.where}: gave an error while writing the conversation ({_what(exc)})",
                             params=("chat_template",)) from None
        except Exception as exc:  # noqa: BLE001 - TypeError, RecursionError, OverflowError ... of someone else's code
            raise ModelError(f"{self.where}: failed while writing the conversation ({_what(exc)})",
                             params=("chat_template",)) from None
        return "".join(parts)


def _what(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__
