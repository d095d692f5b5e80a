"""The examples of the README and the docs pages (issue 39): every ``docmetrics`` command of a ``bash``,
``console`` or ``shell`` fence and every ``python`` fence, with where it is and whether it must fail.

An example must fail (exit 2, one clear line, no traceback) where its fence's info string holds
``expected-failure`` or its command ends with the comment ``# exits 2``.  A command that names a file under
``../shared`` is left to tests/test_readme_real_data.py (it skips where ../shared is absent).  A ``python`` fence
whose first line is ``# NAME/...py`` is a plugin's module (tests/test_readme.py installs those); the other Python
fences of a page run in order, in one namespace, as a notebook's cells do.

An example's shown output is the ``text`` fence right after its shell fence (nothing but blank lines between;
it belongs to the fence's last command), or in a ``console`` fence the lines after its ``$ `` line.  A ``text``
fence after prose is an illustration (say, a real model's output) and is not compared."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
SHELLS = ("bash", "console", "shell", "sh", "")  # a bare fence of commands counts too


@dataclass(frozen=True)
class Example:
    page: str          # relative to the repository root
    line: int          # the first line of the example (1-based)
    kind: str          # "command" or "python"
    text: str          # the command (continuations joined) or the Python block
    fails: bool        # must exit 2 with one clear message
    output: str | None = None   # what the page shows it prints, if it shows anything
    output_info: str = ""       # the output fence's info string (``approximate``: numbers within a tolerance)

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _commands(body: str, console: bool) -> list[tuple[int, str, str | None]]:
    """(line offset, command, shown output) for each docmetrics command of a shell block, and each ``python -c``
(a setup step); the output only in a console block (the lines up to the next ``$ ``)."""
    out, lines, k = [], body.splitlines(), 0
    while k < len(lines):
        start, line = k, lines[k]
        k += 1
        if console:
            if not line.startswith("$ "):
                continue
            line = line[2:]
        while line.rstrip().endswith("\\") and k < len(lines):
            line = line.rstrip()[:-1] + " " + lines[k].strip()
            k += 1
        shown = None
        if console:
            end = k
            while end < len(lines) and not lines[end].startswith("$ "):
                end += 1
            shown = "\n".join(lines[k:end]) if any(x.strip() for x in lines[k:end]) else None
        if line.strip().startswith(("docmetrics ", "python -c ")) or line.strip() == "docmetrics":
            out.append((start, line.strip(), shown))
    return out


def examples(pages: list[Path] = PAGES) -> list[Example]:
    found = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        rel = page.relative_to(ROOT).as_posix()
        fences = list(FENCE.finditer(text))
        for i, m in enumerate(fences):
            info, body = m.group(1).strip(), m.group(2)
            lang = info.split()[0] if info else ""
            first = text.count("\n", 0, m.start()) + 2  # the fence's first content line
            fails = "expected-failure" in info
            after = fences[i + 1] if i + 1 < len(fences) else None
            shown = (after.group(2), after.group(1).strip()) if (
                after and lang != "console" and not text[m.end():after.start()].strip()
                and (after.group(1).split() or [""])[0] == "text") else None
            if lang in SHELLS:
                commands = _commands(body, lang == "console")
                for n, (offset, command, output) in enumerate(commands):
                    if "../shared" in command:
                        continue
                    if shown and n == len(commands) - 1:
                        output, output_info = shown
                    else:
                        output_info = info
                    found.append(Example(rel, first + offset, "command", command,
                                         fails or command.rstrip().endswith("# exits 2"), output, output_info))
            elif lang == "python" and not re.match(r"#\s*[\w./-]+\.py\s*$", body.splitlines()[0] if body else ""):
                found.append(Example(rel, first, "python", body, fails))
    return found
