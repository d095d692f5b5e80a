"""A griffe extension for the API page: the docstrings' Sphinx roles (:class:`~docmetrics.x.Y`, :func:`f`,
:mod:`m`, :data:`D`, :meth:`C.m`, :attr:`a`, :exc:`E`) become Markdown code, as Sphinx would show them (``~``:
the last part of the name only), so that mkdocstrings renders them instead of printing the raw role."""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const|ref|term):`([^`]+)`")


def plain(text: str) -> str:
    """``text`` with every Sphinx role written as Markdown code."""
    def code(m: re.Match[str]) -> str:
        target = " ".join(m.group(1).split())  # a role may wrap onto the next line
        label, angle = re.fullmatch(r"(.*?)\s*(?:<(.+)>)?", target, re.S).groups()
        if angle:  # :class:`the text <module.Name>`
            return f"`{label}`" if label else f"`{angle}`"
        if target.startswith("~"):
            target = target[1:].rsplit(".", 1)[-1]
        return f"`{target}`"

    return ROLE.sub(code, text)


class SphinxRoles(Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)
