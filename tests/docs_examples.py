"""The examples of the README and the docs pages (issue 39): every ``docmetrics`` command of a ``bash``,
``console`` or ``shell`` fence and every ``python`` fence, with where it is and whether it must fail.

An example must fail (exit 2, one clear line, no traceback) where its fence's info string holds
``expected-failure`` or its command ends with the comment ``# exits 2``.  A command that names a file under
``../shared`` is left to tests/test_readme_real_data.py (it skips where ../shared is absent).  A ``python`` fence
whose first line is ``# NAME/...py`` is a plugin's module (tests/test_readme.py installs those); the other Python
fences of a page run in order, in one namespace, as a notebook's cells do."""

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

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _commands(body: str, console: bool) -> list[tuple[int, str]]:
    """(line offset, command) for each docmetrics command of a shell block, and each ``python -c`` (a setup step,
such as building a tiny model)."""
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
        if line.strip().startswith(("docmetrics ", "python -c ")) or line.strip() == "docmetrics":
            out.append((start, line.strip()))
    return out


def examples(pages: list[Path] = PAGES) -> list[Example]:
    found = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        rel = page.relative_to(ROOT).as_posix()
        for m in FENCE.finditer(text):
            info, body = m.group(1).strip(), m.group(2)
            lang = info.split()[0] if info else ""
            first = text.count("\n", 0, m.start()) + 2  # the fence's first content line
            fails = "expected-failure" in info
            if lang in SHELLS:
                for offset, command in _commands(body, lang == "console"):
                    if "../shared" in command:
                        continue
                    found.append(Example(rel, first + offset, "command", command,
                                         fails or command.rstrip().endswith("# exits 2")))
            elif lang == "python" and not re.match(r"#\s*[\w./-]+\.py\s*$", body.splitlines()[0] if body else ""):
                found.append(Example(rel, first, "python", body, fails))
    return found
