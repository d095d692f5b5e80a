"""Checks of the judging API's parameters that take a path or several names: one string is one name (never its
characters), and a value of another type is a :class:`~docmetrics.values.errors.SpecError` naming the parameter
and what it takes."""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping

from ..values.errors import SpecError

__all__ = ["name_list", "path_param", "one_name", "results_param"]


def name_list(value: Any, param: str, caller: str) -> tuple[str, ...] | None:
    """``value`` of the parameter ``param`` of ``caller`` as a tuple of names: a list (tuple, set) of strings, or
    one string as one name (``levels="segment"`` is ``("segment",)``); None stays None."""
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise SpecError(f"{caller}: {param}= takes a name or a list of names, not {type(value).__name__} "
                        f"{value!r:.60}", params=(param,))
    out = tuple(value)
    bad = next((v for v in out if not isinstance(v, str)), None)
    if bad is not None:
        raise SpecError(f"{caller}: {param}= takes a name or a list of names; {bad!r:.60} is {type(bad).__name__}, "
                        "not a name", params=(param,))
    return out


def path_param(value: Any, param: str, caller: str, *, many: bool = True) -> str | list[str]:
    """``value`` of the parameter ``param`` of ``caller`` as a path (a str or os.PathLike) or, with ``many``, a list
    of paths; bytes, numbers and the rest are a SpecError saying what it takes."""
    takes = "a path (str or pathlib.Path)" + (" or a list of paths" if many else "")
    if isinstance(value, str) or (isinstance(value, os.PathLike) and isinstance(os.fspath(value), str)):
        return os.fspath(value)
    if isinstance(value, (bytes, bytearray, os.PathLike)):
        raise SpecError(f"{caller}: {param}= takes {takes}, not bytes {value!r:.60}; decode it "
                        "(os.fsdecode)", params=(param,))
    if isinstance(value, (list, tuple)) and many:
        bad = next((v for v in value if not isinstance(v, (str, os.PathLike))), None)
        if bad is None:
            return [path_param(v, param, caller) for v in value]  # type: ignore[misc]
        raise SpecError(f"{caller}: {param}= takes {takes}; {bad!r:.60} is {type(bad).__name__}", params=(param,))
    raise SpecError(f"{caller}: {param}= takes {takes}, not {type(value).__name__} {value!r:.60}", params=(param,))


def one_name(value: Any, param: str, caller: str) -> str | None:
    """``value`` of the parameter ``param`` of ``caller``, which takes one name (or None)."""
    if value is None or isinstance(value, str):
        return value
    raise SpecError(f"{caller}: {param}= takes one name (a str), not {type(value).__name__} {value!r:.60}",
                    params=(param,))


def results_param(value: Any, param: str, caller: str) -> list[Any]:
    """``value`` of the parameter ``param`` of ``caller``, which takes one metric's Results (one per system)."""
    from ..values.result import Result

    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise SpecError(f"{caller}: {param}= takes one metric's Results, one per system (what "
                        f"docmetrics.load(...).compute gives), not {type(value).__name__}", params=(param,))
    out = list(value)
    bad = next((v for v in out if not isinstance(v, Result)), None)
    if bad is not None:
        raise SpecError(f"{caller}: {param}= takes one metric's Results, one per system; {bad!r:.60} is "
                        f"{type(bad).__name__}, not a Result", params=(param,))
    return out
