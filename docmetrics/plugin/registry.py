"""Plugin discovery through entry points (stevedore).

Groups: ``docmetrics.metrics``, ``docmetrics.backbones``, ``docmetrics.segmenters``.  Listing reads
entry-point metadata only and imports no plugin module; a plugin is imported when it is used.  A
plugin whose optional dependencies are missing (entry point declared with an extra, e.g.
``comet = docmetrics_backbones.comet.backbone:CometBackbone [comet]``) is listed as unavailable with the pip
command that brings them.
"""

from __future__ import annotations

import functools
import importlib.metadata
from dataclasses import dataclass, field
from typing import Any

from stevedore import ExtensionManager
from stevedore.driver import DriverManager

from ..values.errors import PluginError

GROUPS = {
    "metric": "docmetrics.metrics",
    "backbone": "docmetrics.backbones",
    "segmenter": "docmetrics.segmenters",
    "tool": "docmetrics.tools",
}


@dataclass
class PluginInfo:
    """What the registry knows about a plugin without importing it."""

    kind: str
    name: str
    target: str
    distribution: str | None
    dist_version: str | None
    extras: list[str]
    missing: list[str] = field(default_factory=list)

    @property
    def available(self) -> bool:
        return not self.missing

    @property
    def install_hint(self) -> str:
        dist = self.distribution or "docmetrics"
        if self.extras:
            return f'pip install "{dist}[{",".join(self.extras)}]"'
        return f"pip install {' '.join(self.missing) or dist}"


def entry_points(group: str) -> list[importlib.metadata.EntryPoint]:
    """Entry points of ``group`` as stevedore sees them (read, not loaded)."""
    manager = ExtensionManager.make_test_instance([], namespace=group)
    return list(manager.list_entry_points())


def refresh() -> None:
    """Forget cached entry points (after installing a plugin in the same process, e.g. in tests)."""
    for group in GROUPS.values():
        ExtensionManager.ENTRY_POINT_CACHE.pop(group, None)
    from stevedore import _cache

    _cache._c._internal.clear()
    _dist_index.cache_clear()
    _missing_for.cache_clear()


@functools.cache
def _dist_index() -> dict[tuple[str, str, str], tuple[str, str]]:
    """(group, name, value) -> (distribution name, version), from installed metadata (no imports)."""
    index: dict[tuple[str, str, str], tuple[str, str]] = {}
    for dist in importlib.metadata.distributions():
        try:
            eps = dist.entry_points
        except Exception:  # noqa: BLE001 - a broken distribution must not break listing
            continue
        for ep in eps:
            if ep.group in GROUPS.values():
                name = dist.metadata["Name"] or "?"
                index.setdefault((ep.group, ep.name, ep.value), (name, dist.version))
    return index


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
        req = Requirement(text)
        if req.marker is None or not any(req.marker.evaluate({"extra": e}) for e in extras):
            continue
        if req.marker.evaluate({"extra": ""}):
            continue  # not specific to the extra
        try:
            importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(req.name)
    return tuple(missing)


def plugins(kind: str) -> list[PluginInfo]:
    """Every plugin of ``kind`` ('metric', 'backbone', 'segmenter'), sorted by name."""
    group = GROUPS[kind]
    index = _dist_index()
    infos: dict[str, PluginInfo] = {}
    for ep in entry_points(group):
        if ep.name in infos:
            continue
        dist, version = index.get((group, ep.name, ep.value), (None, None))
        extras = list(ep.extras)
        missing = list(_missing_for(dist, tuple(extras))) if dist else []
        infos[ep.name] = PluginInfo(kind, ep.name, ep.value, dist, version, extras, missing)
    return [infos[k] for k in sorted(infos)]


def names(kind: str) -> list[str]:
    return [p.name for p in plugins(kind)]


def info(kind: str, name: str) -> PluginInfo:
    for p in plugins(kind):
        if p.name == name:
            return p
    import difflib

    known = names(kind)
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise PluginError(f"unknown {kind} '{name}'{hint}; available: {', '.join(known) or '(none installed)'}")


def load(kind: str, name: str) -> Any:
    """Import and return the plugin object (a class) registered as ``name``."""
    meta = info(kind, name)
    if meta.missing:
        raise PluginError(
            f"{kind} '{name}' needs {', '.join(meta.missing)}, which is not installed; "
            f"run: {meta.install_hint}"
        )
    try:
        manager = DriverManager(GROUPS[kind], name, invoke_on_load=False, on_load_failure_callback=_reraise)
    except PluginError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise PluginError(f"{kind} '{name}' ({meta.target}) could not be loaded: {exc}") from exc
    obj = manager.driver
    if isinstance(obj, type) and not getattr(obj, "name", ""):
        obj.name = name  # a third-party class that did not name itself takes its entry-point name
    return obj


def _reraise(manager: Any, ep: Any, exc: BaseException) -> None:
    if isinstance(exc, ImportError):
        raise PluginError(
            f"plugin '{ep.name}' ({ep.value}) could not be imported: {exc}. "
            "Is its optional dependency installed? (docmetrics --list shows the pip command)"
        ) from exc
    raise PluginError(f"plugin '{ep.name}' ({ep.value}) could not be loaded: {exc}") from exc
