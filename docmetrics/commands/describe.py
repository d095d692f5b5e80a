"""``docmetrics --describe NAME``: parameters, needs and citation of a metric, backbone or preset;
``docmetrics --list``: every plugin with the distribution that provides it, broken and conflicting
ones included."""

from __future__ import annotations

import inspect
import textwrap
from typing import Callable, TextIO

from ..api import Param, presets
from ..plugin import registry
from ..values.errors import PluginError


def _param_rows(params: tuple[Param, ...]) -> list[str]:
    rows = []
    for p in params:
        default = p.format(p.default) if p.default is not None else "(see below)"
        rows.append(f"  {p.name:<12} {p.type.__name__:<6} default {default:<12} {p.allowed()}")
        if p.help:
            rows.append(f"  {'':<12} {p.help}")
        others = [n for n in p.names() if n != p.name]
        if others:
            rows.append(f"  {'':<12} also spelled: {', '.join(others)} (the signature prints {p.long_key})")
    return rows


def describe(name: str) -> str:
    """The text of ``--describe NAME`` (NAME may be ``name@distribution``)."""
    bare, _ = registry.split_name(name)
    preset = presets.get(name)
    if preset is not None and bare not in registry.names("metric"):
        lines = [f"preset {preset.name} = {preset.spec}"]
        if bare in registry.names("backbone"):  # -m comet is the preset; backbone=comet the backbone
            dist = registry.info("backbone", bare).distribution
            lines.append(f"({name} is also a backbone: docmetrics --describe {name}@{dist} describes it)")
        if preset.citation:
            lines += ["", "Citation:", textwrap.indent(textwrap.fill(preset.citation, 96), "  ")]
        if preset.notes:
            lines += ["", "Notes:", textwrap.indent(textwrap.fill(preset.notes, 96), "  ")]
        lines += ["", describe(preset.spec.split(":", 1)[0])]
        return "\n".join(lines)
    kinds = (("metric", _describe_metric), ("backbone", _describe_backbone), ("tool", _describe_tool))
    for kind, render in kinds:
        if bare in registry.names(kind):
            return _guarded(kind, name, render)
    known = [n for kind, _ in kinds for n in registry.names(kind)] + sorted(presets.presets())
    raise PluginError(f"unknown name '{name}'; known: {', '.join(known)}")


def _guarded(kind: str, name: str, render: Callable[[str], str]) -> str:
    """``render(name)``; a plugin whose declarations cannot be shown (``params`` that are not Params, a tool whose
    module cannot be read, ...) is a PluginError naming it and its distribution."""
    try:
        return render(name)
    except (PluginError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - a third party's malformed class
        raise PluginError(f"{registry.describe_plugin(registry.info(kind, name))} cannot be described: {exc} "
                          f"({type(exc).__name__}); its class declarations are malformed") from exc


def _describe_metric(name: str) -> str:
    cls = registry.load("metric", name)
    lines = [f"metric {name}: {cls.description}", f"from {registry.info('metric', name).origin}", "",
             "Parameters:"]
    lines += _param_rows(cls.params)
    if cls.default_backbone:
        lines += ["", f"Backbone: {cls.default_backbone} (backbone=NAME picks another); "
                      f"default model: {cls.default_model or 'the backbone default'}"]
        lines += [f"Needs from the backbone: {cls.needs_text()}"]
        lines += [f"  {h}" for h in cls.needs_help()]
        try:
            bcls = registry.load("backbone", cls.default_backbone)
            lines += ["", f"Backbone parameters ({cls.default_backbone}), given in the same spec:"]
            lines += _param_rows(bcls.all_params())
        except PluginError as exc:
            lines += [f"  (backbone unavailable: {exc})"]
    if cls.details:
        lines += ["", "Definition:", textwrap.indent(cls.details, "  ")]
    if cls.citation:
        lines += ["", "Citation:", textwrap.indent(textwrap.fill(cls.citation, 96), "  ")]
    return "\n".join(lines)


def _describe_backbone(name: str) -> str:
    cls = registry.load("backbone", name)
    lines = [f"backbone {name}: {cls.description}", f"from {registry.info('backbone', name).origin}",
             f"default model: {cls.default_model}", "", "Parameters:"]
    lines += _param_rows(cls.all_params())
    doc = inspect.cleandoc(cls.__doc__ or "")
    if doc:
        lines += ["", textwrap.indent(doc, "  ")]
    return "\n".join(lines)


def _describe_tool(name: str) -> str:
    """A tool's description (its module's documentation, read without running it) and how to run it."""
    info = registry.info("tool", name)
    main = registry.load("tool", name)  # a broken tool is a PluginError naming its distribution
    module = inspect.getmodule(main)
    doc = inspect.cleandoc((module.__doc__ if module is not None else "") or main.__doc__ or "")
    lines = [f"tool {name}: {info.description}", f"from {info.origin}", "",
             f"Run: docmetrics {registry.split_name(name)[0]} --help (its options)"]
    if doc:
        lines += ["", textwrap.indent(doc, "  ")]
    return "\n".join(lines)


LIST_KINDS = (("metric", "Metrics"), ("backbone", "Backbones"), ("segmenter", "Segmenters"),
              ("tool", "Tools (docmetrics TOOL --help)"), ("statistic", "Meta-evaluation statistics (plugins)"),
              ("human_format", "Human-data formats (read_human(format=NAME); --human, rank --human)"),
              ("cluster_rule", "Cluster rules (human_clusters(rule=NAME); rank --rule NAME)"))
#: What --list says of a plugin whose source describes it nowhere.
NO_DESCRIPTION = "(no description: its source gives none)"


def _builtin_rows(kind: str) -> list[tuple[str, str, str]]:
    """docmetrics' own formats and rules, which are no entry points: (name, distribution, description)."""
    from ..judging import cluster_rules, human_formats
    from ..values.versions import __version__

    if kind == "human_format":
        return [(f.name, f"docmetrics {__version__}", f.title) for f in human_formats(plugins=False)]
    if kind == "cluster_rule":
        return [(r.name, f"docmetrics {__version__}", r.definition) for r in cluster_rules(plugins=False)]
    return []


def plugin_status(p: registry.PluginInfo, check: bool = False) -> str:
    """The STATUS column of ``--list`` for one entry point ("" when it is usable as far as is known;
    ``check``: import it to know)."""
    if p.problem:
        return f"broken: {p.problem}"
    if p.missing:
        return f"unavailable: needs {', '.join(p.missing)}; {p.install_hint}"
    problem = registry.check(p.kind, p.listed_name) if check else ""
    if problem:
        return f"broken: {problem}"
    return p.conflict


def write_list(out: TextIO, check: bool = False) -> int:
    """``docmetrics --list``: every metric, backbone, segmenter, tool, plugin statistic, human-data format and
    cluster rule with the distribution that provides it and what stands in its way (broken, unavailable, in
    conflict), then the presets.
    Reads metadata only and imports no plugin, unless ``check`` (``--check-plugins``) asks to import
    each one and report those that fail.  Returns the number of broken plugins."""
    conflicts = broken = 0
    for kind, title in LIST_KINDS:
        infos = registry.plugins(kind)
        rows: list[tuple[str, str, str]] = _builtin_rows(kind)
        if not infos and not rows and kind in ("segmenter", "tool", "statistic"):
            continue
        out.write(f"{title}:\n")
        if not infos and not rows:
            out.write("  (none installed)\n")
            continue
        for p in infos:
            dist = f"{p.distribution or '?'} {p.dist_version or ''}".strip()
            status = plugin_status(p, check)
            conflicts += bool(p.conflict)
            broken += status.startswith("broken")
            # what stands in its way, else what it is (read from its source: --list imports no plugin)
            rows.append((p.listed_name, dist,
                         status or p.description or NO_DESCRIPTION))
        width = max(26, *(len(r[0]) + 1 for r in rows))
        dwidth = max(24, *(len(r[1]) + 1 for r in rows))
        out.write(f"  {'NAME':<{width}} {'DISTRIBUTION':<{dwidth}} STATUS / DESCRIPTION\n")
        for name, dist, status in rows:
            out.write(f"  {name:<{width}} {dist:<{dwidth}} {status}".rstrip() + "\n")
    out.write("Presets:\n")
    for name, preset in sorted(presets.presets().items()):
        out.write(f"  {name:<26} = {preset.spec}\n")
    if conflicts:
        out.write("\nWhere two distributions register one name, docmetrics' own plugin is used; NAME@DISTRIBUTION "
                  "(e.g. -m slide@my-dist) picks another's.\n")
    if broken:
        out.write(f"\n{broken} broken plugin(s) listed: everything else works without them.\n")
    if not check:
        out.write("\nMore: docmetrics --describe NAME; docmetrics --check-plugins imports every plugin to find "
                  "those that fail when loaded\n")
    else:
        out.write("\nMore: docmetrics --describe NAME\n")
    return broken
