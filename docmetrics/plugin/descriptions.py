"""A plugin's one-line description read from its source, without importing it (``--list`` imports no
plugin: a broken or heavy one must not stop the listing).

The description is the class's ``description`` attribute where it is a literal string, else the first
line of the class's (or function's, for a tool's ``main``) docstring, else of its module's docstring;
a name re-exported by a package (``from .metric import SlideMetric``) is followed to its module.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

__all__ = ["static_description", "DESCRIBED_BY"]

#: Where a plugin of a kind is an object made by a call (``RULE = ClusterRule("alpha", "what it does", f)``):
#: the keyword and position of the argument that describes it.
DESCRIBED_BY = {"human_format": ("title", 1), "cluster_rule": ("definition", 1), "statistic": ("title", 2)}


def static_description(target: str, argument: tuple[str, int] | None = None) -> str:
    """The description of the plugin at ``target`` (``package.module:Name``), or "" where its source
    cannot be read or says none.  ``argument``: where the object is made by a call at module level
    (``FORMAT = HumanFormat("toyh", "a toy human-score file", ...)``), the keyword and the position of the
    argument that describes it (``("title", 1)``), read where it is a literal string."""
    module, _, attr = target.split("[", 1)[0].partition(":")  # an entry point's extras: [comet]
    try:
        return _describe(module.strip(), attr.strip(), depth=0, argument=argument)
    except (OSError, SyntaxError, ValueError, ImportError, UnicodeDecodeError):
        return ""


def _source(module: str) -> tuple[Path, bool] | None:
    """The source file of ``module`` and whether it is a package's ``__init__.py``; only the top-level
    package is looked up (``find_spec`` of a submodule would import its parents)."""
    top, *rest = module.split(".")
    spec = importlib.util.find_spec(top)
    if spec is None:
        return None
    if not rest:
        return (Path(spec.origin), spec.submodule_search_locations is not None) if spec.origin else None
    folders = [Path(p) for p in spec.submodule_search_locations or ()]
    for folder in folders:
        path = folder.joinpath(*rest)
        if (path / "__init__.py").is_file():
            return path / "__init__.py", True
        if path.with_suffix(".py").is_file():
            return path.with_suffix(".py"), False
    return None


def _call_argument(node: ast.AST, attr: str, argument: tuple[str, int]) -> str | None:
    """The literal string ``argument`` names in ``attr = Call(...)`` at module level; None where ``node`` is
    not that assignment or the argument is no literal string."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == attr and isinstance(node.value, ast.Call)):
        return None
    keyword, position = argument
    given = next((k.value for k in node.value.keywords if k.arg == keyword), None)
    if given is None and len(node.value.args) > position:
        given = node.value.args[position]
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return " ".join(given.value.split())
    return None


def _describe(module: str, attr: str, depth: int, argument: tuple[str, int] | None = None) -> str:
    found = _source(module)
    if found is None or depth > 3:
        return ""
    path, is_package = found
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if argument is not None:
        for node in tree.body:
            text = _call_argument(node, attr, argument)
            if text:
                return text
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == attr:
            return _class_description(node) or _first_line(ast.get_docstring(tree))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == attr:
            return _first_line(ast.get_docstring(node)) or _first_line(ast.get_docstring(tree))
    for node in tree.body:  # re-exported: from .metric import SlideMetric
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == attr for a in node.names):
            name = next(a.name for a in node.names if (a.asname or a.name) == attr)
            base = module.split(".") if is_package else module.split(".")[:-1]
            if node.level:
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            return _describe(target, name, depth + 1, argument)
    return _first_line(ast.get_docstring(tree))


def _class_description(node: ast.ClassDef) -> str:
    for item in node.body:
        target = item.targets[0] if isinstance(item, ast.Assign) and len(item.targets) == 1 else (
            item.target if isinstance(item, ast.AnnAssign) else None)
        value = getattr(item, "value", None)
        if isinstance(target, ast.Name) and target.id == "description" and value is not None:
            try:
                text = ast.literal_eval(value)
            except ValueError:
                return ""
            return " ".join(str(text).split())
    return _first_line(ast.get_docstring(node))


def _first_line(doc: str | None) -> str:
    """The docstring's first sentence-line, without reST markup."""
    if not doc:
        return ""
    line = doc.strip().splitlines()[0].strip()
    return line.replace("``", "")
