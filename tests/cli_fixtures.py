"""Running the ``docmetrics`` command line inside a test: one runner for every test module."""

from __future__ import annotations

from typing import Any


def run_cli(capsys: Any, *argv: Any) -> tuple[int | str | None, str, str]:
    """``docmetrics ARGV`` in this process: its exit status (returned, or raised by argparse as
    SystemExit), stdout and stderr; the arguments are turned into strings (paths may be given)."""
    from docmetrics.cli import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
