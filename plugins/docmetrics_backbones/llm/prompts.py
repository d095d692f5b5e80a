"""Judge prompts as citable, versioned files, and what fills them in.  Pure: the standard library only.

A prompt file (``prompts/gemba-da.txt`` is one) is a header of ``# key: value`` lines, then chat
messages, each opened by a line ``@@ system``, ``@@ user`` or ``@@ assistant``::

    # name: gemba-da
    # version: 1
    # rule: number            number | last-number | mqm   (how an answer becomes a score: parse.py)
    # range: 0-100            the scores a number rule accepts (mqm: -25..0, fixed)
    # cite: ...               who defined it
    @@ context                (optional) how {context} is written: {context_source}, {context_translation}
    ...
    @@ system
    ...
    @@ user
    {source_lang} source: ... {source_seg} ... {target_lang} translation: ... {target_seg}
    @@ step
    @@ user                   (optional) a second conversation whose {answer} is the first one's answer,
    ... {answer} ...          scored by the rule (GEMBA-ESA: spans first, then the score)

Placeholders: ``{source_lang}``, ``{target_lang}`` (language names), ``{source_seg}``, ``{target_seg}``,
``{reference_seg}`` (makes the prompt reference-based), ``{context}`` (the previous segments, written by
the ``@@ context`` section; empty for a unit without context) and, in a second step, ``{answer}``.  Only
these names are replaced; any other ``{name}`` is an error, so a typo is caught before a model loads.
The fingerprint is a SHA-256 of the file's bytes: it goes into every signature.

Third parties add a prompt by a file (``prompt=PATH``) or by an entry point in the group
``docmetrics.llm_prompts`` whose object is the path of such a file (a ``str`` or ``Path``, or a callable
returning one).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from docmetrics.values.errors import SpecError, UserError

__all__ = ["Prompt", "Message", "RULES", "PLACEHOLDERS", "ENTRY_POINT_GROUP", "load_prompt", "builtin_prompts",
           "language_name", "LANGUAGE_NAMES", "render_context"]

#: How an answer becomes a score (see :mod:`.parse`).
RULES = ("number", "last-number", "mqm")
PLACEHOLDERS = ("source_lang", "target_lang", "source_seg", "target_seg", "reference_seg", "context", "answer")
ENTRY_POINT_GROUP = "docmetrics.llm_prompts"
_HERE = Path(__file__).resolve().parent / "prompts"
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_ROLES = ("system", "user", "assistant")

#: English names of the languages WMT has evaluated (ISO 639-1/3 codes), as a prompt writes them.
LANGUAGE_NAMES = {
    "ar": "Arabic", "bg": "Bulgarian", "bho": "Bhojpuri", "bn": "Bengali", "ca": "Catalan", "cs": "Czech",
    "da": "Danish", "de": "German", "el": "Greek", "en": "English", "es": "Spanish", "et": "Estonian",
    "fa": "Persian", "fi": "Finnish", "fil": "Filipino", "fr": "French", "gu": "Gujarati", "ha": "Hausa",
    "he": "Hebrew", "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian", "id": "Indonesian", "is": "Icelandic",
    "it": "Italian", "ja": "Japanese", "kk": "Kazakh", "km": "Khmer", "ko": "Korean", "lt": "Lithuanian",
    "lv": "Latvian", "mas": "Maasai", "mr": "Marathi", "ms": "Malay", "nl": "Dutch", "no": "Norwegian",
    "pl": "Polish", "ps": "Pashto", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sk": "Slovak",
    "sl": "Slovenian", "sr": "Serbian", "sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "th": "Thai",
    "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese", "xh": "Xhosa", "yo": "Yoruba",
    "zh": "Chinese", "zu": "Zulu",
}


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class Prompt:
    """A parsed prompt file: its header, its one or two conversations and its fingerprint."""

    name: str
    version: str
    rule: str
    low: float
    high: float
    cite: str
    steps: tuple[tuple[Message, ...], ...]
    context: str | None
    fingerprint: str
    path: str
    header: dict[str, str] = field(default_factory=dict)

    @property
    def reference_based(self) -> bool:
        return any("{reference_seg}" in m.content for step in self.steps for m in step)

    @property
    def shows_context(self) -> bool:
        return any("{context}" in m.content for step in self.steps for m in step)

    def messages(self, step: int, values: dict[str, str]) -> list[dict[str, str]]:
        """Step ``step``'s conversation with the placeholders filled in (only the known names)."""
        def fill(text: str) -> str:
            return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)

        return [{"role": m.role, "content": fill(m.content)} for m in self.steps[step]]


def render_context(prompt: Prompt, source: tuple[str, ...], translation: tuple[str, ...],
                   values: dict[str, str]) -> str:
    """``{context}``: the ``@@ context`` section filled with the previous segments (one a line), or ''."""
    if not source and not translation or prompt.context is None:
        return ""
    filled = dict(values, context_source="\n".join(source), context_translation="\n".join(translation))
    return _PLACEHOLDER.sub(lambda m: filled.get(m.group(1), m.group(0)), prompt.context)


def language_name(code: str, names: dict[str, str]) -> str:
    """The name a prompt writes for language ``code`` (``names`` first: the names= parameter)."""
    if code in names:
        return names[code]
    base = code.split("_")[0].lower()
    if base in names:
        return names[base]
    if base in LANGUAGE_NAMES:
        return LANGUAGE_NAMES[base]
    raise SpecError(f"backbone 'llm': the prompt cannot name language '{code}' (known: "
                    f"{', '.join(sorted(LANGUAGE_NAMES))}); name it with names={base}:Name", params=("names",))


def builtin_prompts() -> dict[str, Path]:
    """The prompt files shipped with the plugin, by name."""
    return {p.stem: p for p in sorted(_HERE.glob("*.txt"))}


def _entry_point(name: str) -> Path | None:
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP) if hasattr(entry_points(), "select") else \
            entry_points().get(ENTRY_POINT_GROUP, ()):  # type: ignore[attr-defined]
        if ep.name == name:
            try:
                obj = ep.load()
                obj = obj() if callable(obj) else obj
            except Exception as exc:  # noqa: BLE001 - a broken plugin names itself
                raise UserError(f"prompt '{name}' (entry point {ep.value} in {ENTRY_POINT_GROUP}) cannot be "
                                f"loaded: {exc}") from None
            return Path(str(obj))
    return None


def load_prompt(given: str) -> Prompt:
    """The prompt named ``given``: a shipped one, an entry point's, or a file path."""
    shipped = builtin_prompts()
    path = shipped.get(given) or (None if "/" in given or given.endswith(".txt") else _entry_point(given))
    if path is None:
        path = Path(given).expanduser()
        if not path.is_file():
            raise SpecError(f"prompt={given}: not a shipped prompt ({', '.join(shipped)}), not an entry point in "
                            f"{ENTRY_POINT_GROUP}, and no such file", params=("prompt",))
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"prompt={given}: {path} cannot be read as UTF-8 text ({exc})", params=("prompt",)) from None
    return parse_prompt(text, str(path), hashlib.sha256(data).hexdigest()[:10])


def parse_prompt(text: str, where: str, fingerprint: str = "") -> Prompt:
    """Parse a prompt file's text; every mistake is a SpecError naming ``where`` and the line."""
    def bad(line: int, why: str) -> SpecError:
        return SpecError(f"prompt file {where}, line {line}: {why}", params=("prompt",))

    header: dict[str, str] = {}
    steps: list[list[Message]] = [[]]
    context: str | None = None
    role: str | None = None
    body: list[str] = []
    lines = text.split("\n")

    def close() -> None:
        nonlocal context
        content = "\n".join(body).strip("\n")
        if role == "context":
            context = content
        elif role is not None:
            steps[-1].append(Message(role, content))
        body.clear()

    for n, line in enumerate(lines, 1):
        if role is None and line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep:
                header[key.strip().lower()] = (header.get(key.strip().lower(), "") + " " + value.strip()).strip()
            continue
        if line.startswith("@@ ") or line.strip() == "@@":
            close()
            what = line[2:].strip().lower()
            if what == "step":
                if not steps[-1]:
                    raise bad(n, "'@@ step' before any message")
                if len(steps) == 2:
                    raise bad(n, "a prompt has at most two steps")
                steps.append([])
                role = None
                continue
            if what not in _ROLES + ("context",):
                raise bad(n, f"'@@ {what}': a section is @@ system, @@ user, @@ assistant, @@ context or @@ step")
            role = what
            continue
        if role is None:
            if line.strip():
                raise bad(n, "text before the first '@@ system' / '@@ user' line")
            continue
        body.append(line)
    close()
    for key in ("name", "version", "rule"):
        if key not in header:
            raise bad(1, f"the header has no '# {key}:' line")
    rule = header["rule"]
    if rule not in RULES:
        raise bad(1, f"rule '{rule}' is not one of {', '.join(RULES)}")
    if rule == "mqm":
        low, high = -25.0, 0.0
    else:
        m = re.fullmatch(r"\s*(-?\d+)\s*-\s*(-?\d+)\s*", header.get("range", ""))
        if not m or int(m.group(1)) >= int(m.group(2)) or int(m.group(1)) < 0:
            raise bad(1, "a number rule needs '# range: LOW-HIGH' (non-negative integers, LOW < HIGH), e.g. 0-100")
        low, high = float(m.group(1)), float(m.group(2))
    done = [tuple(s) for s in steps]
    for i, step in enumerate(done):
        if not step or step[-1].role != "user":
            raise bad(len(lines), f"step {i + 1} does not end with a '@@ user' message")
        for m in step:
            for name in _PLACEHOLDER.findall(m.content):
                if name not in PLACEHOLDERS:
                    raise bad(1, f"unknown placeholder {{{name}}}; the known ones: "
                                 + ", ".join("{" + p + "}" for p in PLACEHOLDERS))
        text_of_step = "\n".join(m.content for m in step)
        for need in ("source_seg", "target_seg", "source_lang", "target_lang"):
            if "{" + need + "}" not in text_of_step:
                seen = need.replace("_seg", "").replace("_lang", " language").replace("target", "translation")
                raise bad(1, f"step {i + 1} has no {{{need}}} placeholder: the judge would not see the {seen}")
        if i == 1 and "{answer}" not in text_of_step:
            raise bad(1, "step 2 has no {answer} placeholder (the first step's answer)")
        if i == 0 and "{answer}" in text_of_step:
            raise bad(1, "{answer} belongs to step 2 (the first step's answer)")
    if context is not None:
        for name in _PLACEHOLDER.findall(context):
            if name not in ("context_source", "context_translation", "source_lang", "target_lang"):
                raise bad(1, f"the @@ context section knows {{context_source}}, {{context_translation}}, "
                             f"{{source_lang}} and {{target_lang}}, not {{{name}}}")
    prompt = Prompt(header["name"], header["version"], rule, low, high, header.get("cite", ""), tuple(done),
                    context, fingerprint, where, header)
    if prompt.shows_context and context is None:
        raise bad(1, "{context} is used but there is no '@@ context' section saying how to write it")
    return prompt
