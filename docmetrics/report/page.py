"""The report page: one HTML file, its CSS, JavaScript and data inline, no network request.

The template and its static files lie beside this module (``templates/``); the page's
Content-Security-Policy forbids every fetch (``default-src 'none'``) and lets only the page's own script run
(its SHA-256 hash), so neither a stray link nor a text from the data can load or run anything.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from .data import embed

#: The most the page may add to its data (HTML, CSS and JavaScript), in bytes; tests/test_report.py checks it.
PAGE_BUDGET = 96 * 1024


def template(name: str) -> str:
    return resources.files(__package__).joinpath("templates", name).read_text(encoding="utf-8")


def script_hash(script: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


def render(payload: dict[str, Any]) -> str:
    """The page for ``payload`` (:func:`docmetrics.report.data.payload`)."""
    script = template("report.js")
    csp = (f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src '{script_hash(script)}'; "
           "base-uri 'none'; form-action 'none'")
    return Template(template("report.html")).substitute(
        title=html.escape(re.sub("[\ud800-\udfff]", "\ufffd", payload.get("title") or "docmetrics report")),
        csp=html.escape(csp),
        css=template("report.css"),
        data=embed(payload),
        script=script,
    )


def write(path: str | Path, payload: dict[str, Any]) -> int:
    """Write the page to ``path``; its size in bytes."""
    text = render(payload)
    data = text.encode("utf-8")
    Path(path).write_bytes(data)
    return len(data)
