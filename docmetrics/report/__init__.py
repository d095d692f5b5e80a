"""The report: one self-contained HTML page from saved ``-f json`` output or a command's results.

A leaf beside the CLI: it reads JSON and value types, scores nothing, and nothing but the judging API's
:func:`~docmetrics.judging.write_report` imports it (``docmetrics report RESULTS.json -o FILE.html``, ``--report
FILE.html``).  :mod:`.data` builds the page's data, :mod:`.page` writes the page (template, CSS and JavaScript
in ``templates/``).
"""

from .data import LAYOUTS, LayoutError, TooDeep, compact_result, detect, parse, payload, read, texts
from .page import render, write

__all__ = ["LAYOUTS", "LayoutError", "TooDeep", "compact_result", "detect", "parse", "payload", "read", "render",
           "texts", "write"]
