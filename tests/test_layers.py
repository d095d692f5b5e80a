"""The core's layers: each module imports only from its own layer or the layers below it, there is
no import cycle, nothing but the CLI imports the CLI, the core imports no model library, no plugin
imports another plugin, and no private name is used across modules.  Checked on the source (ast), so
lazy imports inside functions count too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "docmetrics"
PLUGINS = ROOT / "plugins"

#: Layers, bottom first.  A module's layer is its subpackage (docmetrics.api is its own layer).
LAYERS = ["values", "formats", "stats", "algorithms", "plugin", "runtime", "api", "report", "judging", "commands", "cli"]
#: torch is not among them: Backbone.checked_device/place (the device contract every backbone shares)
#: import it inside the method, when a backbone loads a model.
MODEL_LIBRARIES = {"comet", "transformers", "sentencepiece", "bert_score", "sentence_transformers",
                   "pytorch_lightning", "lightning", "tokenizers"}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, root: Path) -> list[tuple[str, list[str], int]]:
    """(absolute module, imported names, line) for every import in the file."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names = [a.name for a in node.names]
            out.append((mod, names, node.lineno))
            # "from . import x": x may be a module
            out += [(f"{mod}.{n}", [], node.lineno) for n in names]
    return out


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "docmetrics" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def core_files() -> list[Path]:
    return sorted(p for p in CORE.rglob("*.py"))


def existing(module: str) -> bool:
    rel = Path(*module.split("."))
    return (ROOT / rel).with_suffix(".py").exists() or (ROOT / rel / "__init__.py").exists()


def test_every_core_module_is_in_a_layer():
    loose = [module_name(p, ROOT) for p in core_files()
             if layer_of(module_name(p, ROOT)) is None and p.name not in ("__init__.py", "__main__.py")]
    assert loose == []


def test_each_layer_imports_only_from_itself_and_below():
    bad = []
    for path in core_files():
        me = module_name(path, ROOT)
        mine = layer_of(me)
        if mine is None:
            continue  # docmetrics/__init__ (the public API) and __main__ sit on top
        for mod, names, line in imports(path, ROOT):
            theirs = layer_of(mod)
            if theirs is not None and LAYERS.index(theirs) > LAYERS.index(mine):
                bad.append(f"{path.relative_to(ROOT)}:{line} ({mine}) imports {mod} ({theirs})")
            if mod == "docmetrics" and not all(existing(f"docmetrics.{n}") for n in names):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports the top-level package (the public API)")
    assert bad == []


def test_no_import_cycle_between_core_modules():
    graph: dict[str, set[str]] = {}
    for path in core_files():
        me = module_name(path, ROOT)
        graph[me] = {m for m, _, _ in imports(path, ROOT) if m.startswith("docmetrics.") and existing(m) and m != me}
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, ()):
            if m.endswith("__init__") or graph.get(m) is None:
                continue
            if state.get(m) == 1:
                cycles.append(stack[stack.index(m):] + [m])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state and n.count(".") >= 2:  # package __init__ re-exports are not cycles
            visit(n)
    cycles = [c for c in cycles if all(x.count(".") >= 2 for x in c)]
    assert cycles == []


def test_nothing_but_the_cli_imports_the_cli():
    bad = []
    for root, files in ((ROOT, core_files()), (PLUGINS, sorted(PLUGINS.rglob("*.py")))):
        for path in files:
            me = module_name(path, root)
            if me.startswith("docmetrics.cli") or me == "docmetrics.__main__":
                continue
            if me.startswith("docmetrics_tools.") and me.endswith(".cli"):
                continue  # a tool plugin's command-line front is part of the CLI
            bad += [f"{path.relative_to(ROOT)}:{line}" for m, _, line in imports(path, root)
                    if m.startswith("docmetrics.cli")]
    assert bad == []


def test_the_core_imports_no_model_library():
    bad = []
    for path in core_files():
        for mod, _, line in imports(path, ROOT):
            if mod.split(".")[0] in MODEL_LIBRARIES:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {mod}")
    assert bad == []


@pytest.mark.parametrize("plugin", sorted(p.parent for p in PLUGINS.glob("docmetrics_*/*/__init__.py")),
                         ids=lambda p: f"{p.parent.name}.{p.name}")
def test_no_plugin_imports_another_plugin(plugin):
    me = module_name(plugin, PLUGINS)
    bad = []
    for path in sorted(plugin.rglob("*.py")):
        for mod, _, line in imports(path, PLUGINS):
            top = mod.split(".")[0]
            if top.startswith("docmetrics_") and mod.count(".") >= 1 and not mod.startswith(me):
                if mod.startswith("docmetrics_backbones.tiny") and me.startswith("docmetrics_backbones."):
                    continue  # shared tiny-model helpers, not a plugin
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {mod}")
    assert bad == []


def test_no_private_name_is_used_across_modules():
    bad = []
    for root, files in ((ROOT, core_files()), (PLUGINS, sorted(PLUGINS.rglob("*.py")))):
        for path in files:
            me = module_name(path, root)
            for mod, names, line in imports(path, root):
                if not (mod.startswith("docmetrics") and mod != me):
                    continue
                private = [n for n in names if n.startswith("_") and not n.startswith("__")]
                if private or any(part.startswith("_") and not part.startswith("__") for part in mod.split(".")):
                    bad.append(f"{path.relative_to(ROOT)}:{line} uses {mod} {private}")
    assert bad == []


# -- no process-wide mutable state (the runtime is one object passed to whatever scores) ----------------------
#: Module-level containers that may change, each with the reason it is not a run's state.
ALLOWED_STATE = {
    ("docmetrics.algorithms.aggregation", "_BY_NAME"): "a class registry filled as classes are defined",
}
#: functools.cache memos, each with the reason: facts about the installed packages, not a run's state.
ALLOWED_MEMOS = {
    ("docmetrics.plugin.registry", "_index"): "installed entry points (registry.refresh() forgets them)",
    ("docmetrics.plugin.registry", "_missing_for"): "installed requirements (registry.refresh() forgets them)",
    ("docmetrics.values.versions", "dist_version"): "installed versions",
}
MUTABLE_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "Counter", "deque", "WeakKeyDictionary",
                 "WeakValueDictionary", "WeakSet"}
MUTATORS = {"append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem", "clear", "remove",
            "discard", "sort", "reverse", "__setitem__"}


def _call_name(node: ast.AST) -> str:
    func = node.func if isinstance(node, ast.Call) else None
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _module_containers(tree: ast.Module) -> dict[str, int]:
    """Names bound at module level to a mutable container (a literal, a comprehension or a call of a
    container type), with their lines."""
    found = {}
    for node in tree.body:
        targets, value = ([], None)
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        mutable = isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
            isinstance(value, ast.Call) and _call_name(value) in MUTABLE_CALLS)
        for t in targets:
            if mutable and isinstance(t, ast.Name):
                found[t.id] = node.lineno
    return found


def _mutations(tree: ast.AST, names: set[str]) -> list[tuple[str, int]]:
    """(name, line) wherever code changes a container bound to one of ``names`` (item stores and
    deletes, augmented assignment, mutating method calls)."""
    out = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for t in targets:
            base = t.value if isinstance(t, ast.Subscript) else t if isinstance(node, ast.AugAssign) else None
            if isinstance(base, ast.Name) and base.id in names:
                out.append((base.id, node.lineno))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id in names:
                out.append((owner.id, node.lineno))
    return out


def test_no_process_wide_mutable_state_in_the_core():
    """No ``global``, no ``atexit``, no module-level container that code changes (an "active" cache or
    engine, a pool, a warn-once set), no memo but those of installed-package facts: what a run needs
    is passed to it (docmetrics.Session)."""
    bad = []
    for path in core_files():
        me = module_name(path, ROOT)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                bad.append(f"{me}:{node.lineno}: global {', '.join(node.names)}")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if "atexit" in mods:
                    bad.append(f"{me}:{node.lineno}: imports atexit")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for dec in node.decorator_list:
                    name = ast.unparse(dec)
                    if name.split("(")[0] in ("functools.cache", "cache", "functools.lru_cache", "lru_cache"):
                        if (me, node.name) not in ALLOWED_MEMOS:
                            bad.append(f"{me}:{node.lineno}: {node.name} is memoised process-wide (@{name})")
        containers = {n: line for n, line in _module_containers(tree).items() if (me, n) not in ALLOWED_STATE}
        for name, line in _mutations(tree, set(containers)):
            bad.append(f"{me}:{line}: changes the module-level {name} (line {containers[name]})")
    assert bad == []


def test_the_state_check_sees_what_it_forbids():
    source = """
import atexit
_ACTIVE = {}
_SEEN = set()
CONSTANT = {"a": 1}
def f():
    global _X
    _ACTIVE["k"] = 1
    _SEEN.add(2)
    return CONSTANT["a"]
"""
    tree = ast.parse(source)
    assert set(_module_containers(tree)) == {"_ACTIVE", "_SEEN", "CONSTANT"}
    assert sorted(n for n, _ in _mutations(tree, set(_module_containers(tree)))) == ["_ACTIVE", "_SEEN"]
    assert any(isinstance(n, ast.Global) for n in ast.walk(tree))


# -- plugins use only the public API ---------------------------------------------------------------------------
#: What metric, backbone and segmenter plugins may import from docmetrics: the top-level package and the
#: layers below the runtime (value types, pure algorithms, plugin contracts and the plugin-author helpers).
PUBLIC_FOR_PLUGINS = ("values", "algorithms", "plugin")


@pytest.mark.parametrize("folder", ["docmetrics_metrics", "docmetrics_backbones", "docmetrics_segmenters"])
def test_plugins_import_only_the_public_api(folder):
    bad = []
    for path in sorted((PLUGINS / folder).rglob("*.py")):
        for mod, _, line in imports(path, PLUGINS):
            parts = mod.split(".")
            if parts[0] == "docmetrics" and len(parts) > 1 and parts[1] not in PUBLIC_FOR_PLUGINS:
                bad.append(f"{path.relative_to(PLUGINS)}:{line}: imports {mod}")
    assert bad == []
