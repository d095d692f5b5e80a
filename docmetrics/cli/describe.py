"""``docmetrics --describe NAME``: parameters, needs and citation of a metric, backbone or preset."""

from __future__ import annotations

import inspect
import textwrap

from ..plugin import presets, registry
from ..values.errors import PluginError
from ..values.params import Param


def _param_rows(params: tuple[Param, ...]) -> list[str]:
    rows = []
    for p in params:
        default = p.format(p.default) if p.default is not None else "(see below)"
        rows.append(f"  {p.name:<10} {p.type.__name__:<6} default {default:<12} {p.allowed()}")
        if p.help:
            rows.append(f"  {'':<10} {p.help}")
    return rows


def describe(name: str) -> str:
    preset = presets.get(name)
    if preset is not None and name not in registry.names("metric"):
        lines = [f"preset {preset.name} = {preset.spec}"]
        if preset.citation:
            lines += ["", "Citation:", textwrap.indent(textwrap.fill(preset.citation, 96), "  ")]
        if preset.notes:
            lines += ["", "Notes:", textwrap.indent(textwrap.fill(preset.notes, 96), "  ")]
        lines += ["", describe(preset.spec.split(":", 1)[0])]
        return "\n".join(lines)
    if name in registry.names("metric"):
        return _describe_metric(name)
    if name in registry.names("backbone"):
        return _describe_backbone(name)
    known = registry.names("metric") + registry.names("backbone") + sorted(presets.presets())
    raise PluginError(f"unknown name '{name}'; known: {', '.join(known)}")


def _describe_metric(name: str) -> str:
    cls = registry.load("metric", name)
    lines = [f"metric {name}: {cls.description}", "", "Parameters:"]
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
    lines = [f"backbone {name}: {cls.description}", f"default model: {cls.default_model}", "",
             "Parameters:"]
    lines += _param_rows(cls.all_params())
    doc = inspect.cleandoc(cls.__doc__ or "")
    if doc:
        lines += ["", textwrap.indent(doc, "  ")]
    return "\n".join(lines)
