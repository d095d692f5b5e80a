"""The ``docmetrics`` command line: the only place that parses arguments and prints."""

from .main import main

__all__ = ["main"]
