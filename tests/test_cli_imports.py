"""The command line is a shell over the public library (issue 46): ``docmetrics/cli`` and ``docmetrics/commands``
import from docmetrics its public surface and each other, and nothing else (:data:`LIMIT` other names: none).
Checked on the source (ast), so lazy imports count too.

The issue's bound is :data:`GOAL` (10) names; at the start of the one-path work there were 175.  The limit only
goes down: a command that needs something of the library imports it from the public surface, and the library
exports it there (documented in docs/api.md)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: what a notebook imports: the command line may import these freely
PUBLIC = {"docmetrics", "docmetrics.judging", "docmetrics.api", "docmetrics.values.errors",
          "docmetrics.plugin.registry", "docmetrics.values.versions"}
OWN = ("docmetrics.cli", "docmetrics.commands")
#: the issue's bound on names beyond the public surface
GOAL = 10
#: the names the command line imports beyond it (a ceiling, never raised)
LIMIT = 0


def imported_names(path: Path, source: str | None = None) -> list[tuple[str, int]]:
    """(module.name, line) for every docmetrics name ``path`` (or ``source`` as if it were there) imports,
    relative imports made absolute."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8") if source is None else source)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                module = ".".join(package[: len(package) - node.level + 1] + ([module] if module else []))
            out += [(f"{module}.{a.name}", node.lineno) for a in node.names if module.startswith("docmetrics")]
        elif isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.startswith("docmetrics")]
    return out


def beyond_public() -> dict[str, list[str]]:
    """Each imported name outside the public surface -> where it is imported (file:line)."""
    found: dict[str, list[str]] = {}
    for package in OWN:
        for path in sorted((ROOT / Path(*package.split("."))).rglob("*.py")):
            for name, line in imported_names(path):
                module = name.rpartition(".")[0]
                if module in PUBLIC or name in PUBLIC or name.startswith(OWN) or module.startswith(OWN):
                    continue
                found.setdefault(name, []).append(f"{path.relative_to(ROOT)}:{line}")
    return found


def test_the_command_line_imports_no_more_internal_names_than_the_limit():
    found = beyond_public()
    assert len(found) <= LIMIT, "\n".join(f"{name}  ({', '.join(where)})" for name, where in sorted(found.items()))


def test_the_check_sees_an_internal_import():
    """The walker resolves relative imports: a command importing an internal module is counted."""
    probe = ROOT / "docmetrics" / "commands" / "probe.py"
    source = "from ..judging.spans import judge\nfrom ..judging import read_human\nimport docmetrics.stats\n"
    assert imported_names(probe, source) == [("docmetrics.judging.spans.judge", 1),
                                             ("docmetrics.judging.read_human", 2), ("docmetrics.stats", 3)]
