"""Plugin discovery through entry points, robust to broken and conflicting third-party packages.

Groups: ``docmetrics.metrics``, ``docmetrics.backbones``, ``docmetrics.segmenters``, ``docmetrics.tools``,
``docmetrics.statistics``, ``docmetrics.human_formats`` and ``docmetrics.cluster_rules``.
Listing reads installed metadata only (``importlib.metadata``, one entry per distribution, so every
plugin is credited to the distribution that registers it) and imports no plugin module; a plugin is
imported when it is used.

* A plugin whose optional dependencies are missing (entry point declared with an extra, e.g.
  ``comet = docmetrics_backbones.comet.backbone:CometBackbone [comet]``) is listed as unavailable with
  the pip command that brings them.
* A broken plugin never breaks the others: a malformed entry point (``bad = not a module path!!``), a
  module that is not installed, one that raises (or calls ``sys.exit()``) while being imported, or an
  object of the wrong kind (a metric that is not a :class:`~docmetrics.plugin.metric.Metric`) is a
  :class:`~docmetrics.values.errors.PluginError` naming the plugin and its distribution when it is
  used, and is listed as broken.
* First party first: where a third-party distribution registers a name that docmetrics itself
  provides (``slide``), docmetrics' plugin is used and the other is listed as a conflict (a warning,
  once, names both distributions).  ``NAME@DIST`` picks a distribution's plugin explicitly
  (``slide@my-dist``), and is how two third-party plugins of the same name are told apart.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import importlib.util
import inspect
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..values.errors import DocMetricsWarning, PluginError, UserError
from ..values.signature import DIST_NAME, PLUGIN_NAME

GROUPS = {
    "metric": "docmetrics.metrics",
    "backbone": "docmetrics.backbones",
    "segmenter": "docmetrics.segmenters",
    "tool": "docmetrics.tools",
    "statistic": "docmetrics.statistics",
    "human_format": "docmetrics.human_formats",
    "cluster_rule": "docmetrics.cluster_rules",
}
#: The distribution whose plugins are first party: they win every name conflict.
FIRST_PARTY = "docmetrics"
#: What a plugin of each kind must be: (module, class) of the base class it subclasses.
BASES = {
    "metric": ("docmetrics.plugin.metric", "Metric"),
    "backbone": ("docmetrics.plugin.backbone", "Backbone"),
    "segmenter": ("docmetrics.plugin.segmenter", "Segmenter"),
}
#: What a plugin of each kind that registers a value (not a class) must be an instance of: (module, class, the
#: name a plugin author imports it by).
VALUES = {
    "human_format": ("docmetrics.formats.base", "HumanFormat", "docmetrics.judging.HumanFormat"),
    "cluster_rule": ("docmetrics.judging.rules", "ClusterRule", "docmetrics.judging.rules.ClusterRule"),
    "statistic": ("docmetrics.judging.statistics", "Statistic", "docmetrics.judging.statistics.Statistic"),
}
#: ``module[:attr] [extras]`` as entry points write a target (PyPA entry-point specification).
_IDENT = r"[^\W\d]\w*"
_TARGET = re.compile(
    rf"^(?P<module>{_IDENT}(?:\.{_IDENT})*)\s*(?::\s*(?P<attr>{_IDENT}(?:\.{_IDENT})*))?\s*"
    r"(?:\[(?P<extras>[^\[\]]*)\])?\s*$"
)


class PluginConflictWarning(DocMetricsWarning):
    """Two distributions register the same plugin name; the first-party one is used."""


def normalize_dist(name: str) -> str:
    """A distribution name as pip compares them (PEP 503): ``My_Dist`` == ``my-dist``."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class PluginInfo:
    """What the registry knows about one entry point without importing it.

    ``problem``: why it cannot be used at all (malformed entry point, module not installed, unusable
    name), "" when none is known.  ``conflict``: why a bare ``name`` does not reach it (another
    distribution registers the same name), "" when it does; ``NAME@DIST`` (:attr:`qualified_name`)
    always does.
    """

    kind: str
    name: str
    target: str
    distribution: str | None
    dist_version: str | None
    extras: list[str]
    missing: list[str] = field(default_factory=list)
    problem: str = ""
    conflict: str = ""

    @property
    def available(self) -> bool:
        """True when it can be imported as far as metadata tells (no problem, no missing extra)."""
        return not self.missing and not self.problem

    @property
    def first_party(self) -> bool:
        return self.distribution is not None and normalize_dist(self.distribution) == FIRST_PARTY

    @property
    def qualified_name(self) -> str:
        """``name@distribution``: names this plugin whatever else registers ``name``."""
        return f"{self.name}@{self.distribution}" if self.distribution else self.name

    @property
    def listed_name(self) -> str:
        """The name to type for it: the bare name, or the qualified one where the bare name goes elsewhere."""
        return self.qualified_name if self.conflict else self.name

    @property
    def origin(self) -> str:
        """``distribution 'foo 1.2'`` (or where it was found when no distribution is known)."""
        if self.distribution:
            version = f" {self.dist_version}" if self.dist_version else ""
            return f"distribution '{self.distribution}{version}'"
        return f"entry point '{self.target}'"

    def describe(self) -> str:
        """``backbone 'x' from distribution 'foo 1.2'``: how errors name a plugin."""
        return f"{self.kind} '{self.name}' from {self.origin}"

    @property
    def description(self) -> str:
        """What it is, in one line read from its source without importing it (``--list`` imports no plugin);
        "" where the source gives none (:mod:`docmetrics.plugin.descriptions`)."""
        from .descriptions import DESCRIBED_BY, static_description

        return static_description(self.target, DESCRIBED_BY.get(self.kind))

    @property
    def install_hint(self) -> str:
        dist = self.distribution or "docmetrics"
        if self.extras:
            return f'pip install "{dist}[{",".join(self.extras)}]"'
        return f"pip install {' '.join(self.missing) or dist}"


# -- discovery (metadata only) ------------------------------------------------------------------------
def refresh() -> None:
    """Forget what was discovered and loaded (after installing a plugin in the same process, e.g. in
    tests)."""
    _index.cache_clear()
    _missing_for.cache_clear()


def installed_version(dist: str) -> str | None:
    """The version of distribution ``dist`` installed now, as its metadata gives it (a local part such as
    ``+cu121`` kept), or None where it is not installed."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _distributions() -> Iterator[importlib.metadata.Distribution]:
    """Installed distributions, each once (the first on sys.path wins, as for imports)."""
    seen: set[str] = set()
    for dist in importlib.metadata.distributions():
        try:
            name = dist.metadata["Name"]
        except Exception:  # noqa: BLE001 - unreadable metadata: skip the distribution, keep listing
            continue
        key = normalize_dist(name) if name else f"?{id(dist)}"
        if key in seen:
            continue
        seen.add(key)
        yield dist


def _target_problem(kind: str, name: str, target: str) -> str:
    if not _TARGET.match(target):
        return (f"its entry point '{name} = {target}' is not of the form module:attribute [extra]; "
                "the distribution must fix it (or be uninstalled)")
    if kind in ("metric", "backbone") and not re.fullmatch(PLUGIN_NAME, name):
        return (f"'{name}' cannot be used as a {kind} name (letters, digits and _ . - only, starting "
                "with a letter); the distribution must rename it")
    top = target.split(":", 1)[0].strip().split(".", 1)[0]
    try:
        found = importlib.util.find_spec(top) is not None  # finds, does not import
    except (ImportError, ValueError):
        found = False
    if not found:
        return f"its module '{top}' is not installed (entry point '{name} = {target}')"
    return ""


@functools.cache
def _index() -> dict[str, list[PluginInfo]]:
    """kind -> every entry point of the kind, each credited to its distribution, checked and with
    conflicts marked; sorted by name, the first-party one first."""
    found: dict[str, list[PluginInfo]] = {kind: [] for kind in GROUPS}
    kind_of = {group: kind for kind, group in GROUPS.items()}
    for dist in _distributions():
        try:
            eps = list(dist.entry_points)
            dist_name = dist.metadata["Name"] or None
            version = dist.version
        except Exception:  # noqa: BLE001 - a distribution with unreadable metadata cannot break listing
            continue
        seen: set[tuple[str, str]] = set()
        for ep in eps:
            kind = kind_of.get(ep.group)
            if kind is None or (kind, ep.name) in seen:
                continue
            seen.add((kind, ep.name))
            target = str(ep.value)
            problem = _target_problem(kind, ep.name, target)
            match = _TARGET.match(target)
            extras = re.findall(r"[\w.-]+", match.group("extras") or "") if match else []
            missing = list(_missing_for(dist_name, tuple(extras))) if dist_name and not problem else []
            found[kind].append(PluginInfo(kind, ep.name, target, dist_name, version, extras, missing, problem))
    for infos in found.values():
        infos.sort(key=lambda p: (p.name, not p.first_party, normalize_dist(p.distribution or "")))
        by_name: dict[str, list[PluginInfo]] = {}
        for p in infos:
            by_name.setdefault(p.name, []).append(p)
        for name, same in by_name.items():
            if len(same) < 2:
                continue
            if same[0].first_party:
                for p in same[1:]:
                    p.conflict = (f"ignored: {same[0].origin} (first party) provides '{name}'; name "
                                  f"{p.qualified_name} to use this one")
            else:
                others = ", ".join(p.qualified_name for p in same)
                for p in same:
                    p.conflict = f"ambiguous: {len(same)} distributions register '{name}'; name one: {others}"
    return found


@functools.cache
def _missing_for(dist_name: str, extras: tuple[str, ...]) -> tuple[str, ...]:
    """Requirements of ``dist_name[extras]`` that are not installed (by metadata, no imports)."""
    if not extras:
        return ()
    try:
        requires = importlib.metadata.distribution(dist_name).requires or []
    except importlib.metadata.PackageNotFoundError:
        return ()
    from packaging.requirements import Requirement

    missing = []
    for text in requires:
        try:
            req = Requirement(text)
            if req.marker is None or not any(req.marker.evaluate({"extra": e}) for e in extras):
                continue
            if req.marker.evaluate({"extra": ""}):
                continue  # not specific to the extra
        except Exception:  # noqa: BLE001 - a malformed requirement of another package is not ours to judge
            continue
        try:
            importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(req.name)
    return tuple(missing)


def plugins(kind: str) -> list[PluginInfo]:
    """Every entry point of ``kind`` ('metric', 'backbone', 'segmenter', 'tool'), sorted by name: the
    usable ones, the broken ones (:attr:`PluginInfo.problem`) and those a conflict hides
    (:attr:`PluginInfo.conflict`)."""
    return list(_index()[kind])


def names(kind: str) -> list[str]:
    """The names registered for ``kind`` (each once, broken ones included: using one says why)."""
    return sorted({p.name for p in plugins(kind)})


def split_name(name: str) -> tuple[str, str | None]:
    """``'slide@my-dist'`` -> ``('slide', 'my-dist')``; ``'slide'`` -> ``('slide', None)``."""
    bare, at, dist = name.partition("@")
    return bare, (dist if at else None)


def info(kind: str, name: str) -> PluginInfo:
    """The plugin ``name`` (or ``name@distribution``) of ``kind`` stands for; PluginError naming the
    alternatives when there is none or it is ambiguous."""
    bare, dist = split_name(name)
    same = [p for p in plugins(kind) if p.name == bare]
    if not same:
        import difflib

        known = names(kind)
        close = difflib.get_close_matches(bare, known, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise PluginError(f"unknown {kind} '{bare}'{hint}; available: {', '.join(known) or '(none installed)'}")
    if dist is not None:
        if not re.fullmatch(DIST_NAME, dist):
            raise PluginError(f"{kind} '{name}': '{dist}' is not a distribution name; write NAME@DISTRIBUTION, "
                              f"one of: {', '.join(p.qualified_name for p in same)}")
        for p in same:
            if p.distribution and normalize_dist(p.distribution) == normalize_dist(dist):
                return p
        raise PluginError(f"no distribution '{dist}' registers {kind} '{bare}'; registered by: "
                          f"{', '.join(p.qualified_name for p in same)}")
    chosen = same[0]
    if chosen.conflict:  # two third-party distributions, neither first party
        raise PluginError(f"{kind} '{bare}' is {chosen.conflict}")
    return chosen


def _warn_conflict(used: PluginInfo, ignored: PluginInfo) -> None:
    # Python's warning filters show it once per place ("default" action): no set of our own to keep
    warnings.warn(PluginConflictWarning(
        f"{ignored.kind} '{ignored.name}' is registered by {ignored.origin} and by {used.origin}; "
        f"using the first party's (name {ignored.qualified_name} to use the other)"), stacklevel=3)


# -- loading ------------------------------------------------------------------------------------------
#: The attribute a loaded plugin object carries: what the registry knows of it (for :func:`describe_plugin`).
ORIGIN_ATTRIBUTE = "__docmetrics_plugin__"


def load(kind: str, name: str) -> Any:
    """Import and return the plugin object (a class; a function for tools) registered as ``name`` (or
    ``name@distribution``), checked to be of the right kind.  Anything that goes wrong is a
    :class:`PluginError` naming the plugin and its distribution."""
    meta = info(kind, name)
    if split_name(name)[1] is None:
        for other in plugins(kind):
            if other.name == meta.name and other is not meta:
                _warn_conflict(meta, other)
    where = meta.describe()
    if meta.problem:
        raise PluginError(f"{where} is broken: {meta.problem}")
    if meta.missing:
        raise PluginError(f"{where} needs {', '.join(meta.missing)}, which is not installed; "
                          f"run: {meta.install_hint}")
    obj = _import_checked(meta)
    if isinstance(obj, type):
        own = vars(obj).get("name", "")  # its own, not one inherited from the plugin it subclasses
        if meta.conflict and own in ("", meta.name):
            obj.name = meta.qualified_name  # signatures then name the distribution and parse back to it
        elif not own:
            obj.name = meta.name  # a third-party class that did not name itself takes its entry-point name
    if ORIGIN_ATTRIBUTE not in getattr(obj, "__dict__", {}):  # several names: named by its first registration
        with contextlib.suppress(AttributeError, TypeError):  # a plain object: described by its module
            setattr(obj, ORIGIN_ATTRIBUTE, meta)
    return obj


def _import_checked(meta: PluginInfo) -> Any:
    where = f"{meta.describe()} ({meta.target})"
    try:
        obj = importlib.metadata.EntryPoint(meta.name, meta.target, GROUPS[meta.kind]).load()
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except ImportError as exc:
        raise PluginError(f"{where} could not be imported: {exc}. Is its optional dependency installed? "
                          "(docmetrics --list shows the pip command)") from exc
    except SystemExit as exc:
        raise PluginError(f"{where} could not be loaded: importing it called sys.exit({exc.code!r}); "
                          f"report it to the maintainers of {meta.distribution or 'the plugin'}") from exc
    except AttributeError as exc:
        raise PluginError(f"{where} could not be loaded: its module has no such object ({exc})") from exc
    except BaseException as exc:  # noqa: BLE001 - any failure of a plugin's import is the plugin's
        raise PluginError(f"{where} could not be loaded: {exc} ({type(exc).__name__} while importing it)") \
            from exc
    problem = kind_problem(meta.kind, obj)
    if problem:
        raise PluginError(f"{where} {problem}")
    return obj


def _is_subclass_of(obj: Any, module: str, qualname: str) -> bool:
    """``issubclass(obj, module.qualname)``, read from the MRO (the registry imports no plugin contract)."""
    return isinstance(obj, type) and any(
        c.__module__ == module and c.__qualname__ == qualname for c in obj.__mro__)


def kind_problem(kind: str, obj: Any) -> str:
    """Why ``obj`` cannot be a plugin of ``kind`` (a phrase, "" when it can)."""
    what = f"the class {obj.__qualname__}" if isinstance(obj, type) else \
        f"the function {getattr(obj, '__qualname__', obj)}" if callable(obj) else f"a {type(obj).__name__}"
    if kind == "tool":
        return "" if callable(obj) and not isinstance(obj, type) else f"is {what}, not a function main(argv) -> int"
    if kind in VALUES:
        module, qualname, public = VALUES[kind]
        return "" if _is_subclass_of(type(obj), module, qualname) else f"is {what}, not a {public}"
    module, qualname = BASES[kind]
    if kind == "segmenter":
        return "" if callable(getattr(obj, "split", None)) else \
            f"is {what}, which has no split(text, lang) method; a segmenter subclasses {module}.{qualname}"
    if not _is_subclass_of(obj, module, qualname):
        return f"is {what}, not a subclass of docmetrics.{qualname}; a {kind} plugin registers its {qualname} subclass"
    abstract = sorted(getattr(obj, "__abstractmethods__", ()))
    if abstract:
        return f"does not implement {', '.join(abstract)} (abstract in docmetrics.{qualname})"
    return ""


def describe_plugin(obj: Any) -> str:
    """How errors name a plugin: ``"backbone 'x' from distribution 'foo 1.2'"``, for a plugin class or
    instance (a backbone, metric, segmenter, tool) or a :class:`PluginInfo`.  Objects the registry did not
    load are named by their kind, name and module."""
    if isinstance(obj, PluginInfo):
        return obj.describe()
    cls = obj if isinstance(obj, type) else type(obj)
    for c in getattr(cls, "__mro__", (cls,)):
        meta = _origin(c)
        if meta is not None:
            name = getattr(obj, "name", "") or meta.name
            return f"{meta.kind} '{name}' from {meta.origin}"
    if not isinstance(obj, type):
        meta = _origin(obj)  # a function (tool)
        if meta is not None:
            return meta.describe()
    kind = next((k for k, (m, q) in BASES.items() if _is_subclass_of(cls, m, q)), "plugin")
    name = getattr(obj, "name", "") or getattr(cls, "__qualname__", "?")
    return f"{kind} '{name}' (module {getattr(cls, '__module__', '?')})"


def _origin(obj: Any) -> PluginInfo | None:
    """What the registry recorded on ``obj`` itself when it loaded it (not inherited from a base)."""
    meta = getattr(obj, "__dict__", {}).get(ORIGIN_ATTRIBUTE)
    return meta if isinstance(meta, PluginInfo) else None


def origin_of(obj: Any) -> PluginInfo | None:
    """The entry point a plugin (a class, an instance of one, or a function) was registered by: what the
    registry recorded on its own class when it loaded it, else the entry point whose target is that class
    (read from metadata; nothing imported).  None for an object no installed distribution registers (a
    class defined in a script); a subclass is never credited to the distribution of its base.  A
    :class:`PluginInfo` (from :func:`info`) is its own answer."""
    if isinstance(obj, PluginInfo):
        return obj
    own = obj if isinstance(obj, type) or inspect.isroutine(obj) else type(obj)  # a class, a tool's function
    meta = _origin(own)
    if meta is not None:
        return meta
    module, qualname = getattr(own, "__module__", None), getattr(own, "__qualname__", None)
    if not module or not qualname:
        return None
    for infos in _index().values():
        for p in infos:
            match = _TARGET.match(p.target)
            if match and match.group("module") == module and match.group("attr") == qualname:
                return p
    return None


def check(kind: str, name: str) -> str:
    """Load plugin ``name`` of ``kind`` (importing it and what it imports) and say what is wrong with
    it: "" when nothing is."""
    try:
        load(kind, name)
    except PluginError as exc:
        return str(exc)
    return ""


@contextlib.contextmanager
def plugin_fault(plugin: Any, doing: str) -> Iterator[None]:
    """The one wrapper around a call into a plugin: a user's mistake the plugin reports
    (:class:`~docmetrics.values.errors.UserError`) and Ctrl-C pass through; anything else it raises is a
    :class:`~docmetrics.values.errors.PluginError` naming the plugin and its distribution, what it was
    doing (``"in score() on 12 units"``) and the exception's first line.  Running out of memory is the
    same error, saying which settings lower the memory a backbone needs."""
    try:
        yield
    except (KeyboardInterrupt, GeneratorExit, UserError):
        raise
    except MemoryError as exc:
        raise PluginError(f"{describe_plugin(plugin)} ran out of memory {doing}; lower the token budget "
                          "(max_tokens) or the batch size (batch_size), or use a smaller model") from exc
    except BaseException as exc:  # noqa: BLE001 - a plugin's bug: name the plugin, not a traceback
        text = str(exc).strip().splitlines()
        raise PluginError(f"{describe_plugin(plugin)} failed {doing}: {type(exc).__name__}"
                          + (f": {text[0][:300]}" if text else "") + " (--debug shows the traceback)") from exc
