"""Installed versions of the libraries that compute a number (read from metadata; nothing imported)."""

from __future__ import annotations

import functools
import importlib.metadata

#: The version of docmetrics (recorded in every signature).
__version__ = "0.3.0"


@functools.cache
def dist_version(dist: str) -> str:
    """The installed version of distribution ``dist`` (local part dropped), or 'none'."""
    try:
        version = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "none"
    return version.split("+")[0]
