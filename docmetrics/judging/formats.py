"""Human-data formats as a registry: every form of judging data docmetrics reads, each a frozen
:class:`~docmetrics.formats.base.HumanFormat` (its name, what it is, how to recognise a file of it, how to read
one, its options), and :func:`read_human`, which recognises a file's format (or takes the one named) and reads
one language pair of it into an :class:`~docmetrics.formats.base.EvalSet`.

docmetrics' own formats are the modules of :mod:`docmetrics.formats` that define ``FORMAT`` (one module a form:
``genmt``, ``wmt26``, ``wmt25_tsv``, ``mqm``, ``human_tsv``, ``stored``, ...), tried in the order of their
``precedence``.  :func:`human_formats` lists them with what each reads.

A format a third party adds is a :class:`HumanFormat` registered under the entry-point group
``docmetrics.human_formats`` (``mine = my_pkg.formats:FORMAT``); it is tried after docmetrics' own, and a file
may always be read with ``format="NAME"``.  Nothing here prints or loads a model; every reader checks what it
reads before anything is scored, raising an :class:`~docmetrics.values.errors.InputError` naming the file.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import os
import pkgutil
from typing import Any, Sequence

from .. import formats as _package
from ..formats.base import EvalSet, HumanFormat, PathLike, json_fault
from ..values.errors import InputError, SpecError, shown
from .params import name_list, one_name, path_param

__all__ = ["HumanFormat", "EvalSet", "builtin", "human_formats", "human_format", "detect", "read_human",
           "read_human_pairs", "PathLike"]


def _modules() -> tuple[HumanFormat, ...]:
    """The ``FORMAT`` of every module of docmetrics.formats that defines one."""
    found = []
    for info in pkgutil.iter_modules(_package.__path__):
        fmt = getattr(importlib.import_module(f"{_package.__name__}.{info.name}"), "FORMAT", None)
        if isinstance(fmt, HumanFormat):
            found.append(fmt)
    return tuple(found)


def builtin() -> tuple[HumanFormat, ...]:
    """docmetrics' own formats, in the order a file is tried against them."""
    return tuple(sorted(_modules(), key=lambda f: (f.precedence, f.name)))


# -- the registry ---------------------------------------------------------------------------------------------
def _plugins(problems: list[str] | None = None) -> list[HumanFormat]:
    """The formats installed distributions register (entry-point group ``docmetrics.human_formats``).  A broken
    one raises its PluginError, or, given ``problems``, is left out and its error appended there."""
    from ..plugin import registry
    from ..values.errors import PluginError

    taken = {f.name for f in builtin()}
    out = []
    for name in registry.names("human_format"):
        try:
            fmt = registry.load("human_format", name)
            if fmt.name in taken:
                raise PluginError(f"human-data format {shown(name)} (a plugin): its name {shown(fmt.name)} is "
                                  f"taken; a plugin "
                                  "format takes a name of its own")
        except PluginError as exc:
            if problems is None:
                raise
            problems.append(str(exc))
            continue
        taken.add(fmt.name)
        out.append(fmt)
    return out


def human_formats(*, plugins: bool = True, problems: list[str] | None = None) -> list[HumanFormat]:
    """Every format: docmetrics' own, then the plugins' (read from installed metadata now; a broken plugin
    raises its PluginError, or with ``problems`` is left out and said there)."""
    return list(builtin()) + (_plugins(problems) if plugins else [])


def human_format(name: str) -> HumanFormat:
    """The registered format called ``name`` (its options, their defaults and choices): docmetrics' own without
    reading any plugin, else a plugin's; a SpecError naming every format there is."""
    from ..plugin import registry

    own = next((f for f in builtin() if f.name == name), None)
    if own is not None:
        return own
    found = human_formats(problems=[])
    for f in found:
        if f.name == name:
            return f
    if name in registry.names("human_format"):
        human_formats()  # a broken plugin of that name: its own error
    raise SpecError(f"unknown human-data format {shown(name)}; one of {', '.join(f.name for f in found)}",
                    params=("format",))


def detect(path: PathLike | Sequence[PathLike]) -> HumanFormat:
    """The first format that recognises ``path`` (several paths: stored scores); an InputError naming the
    file and how to name its format where none does."""
    if not isinstance(path, (str, os.PathLike)):
        return human_format("stored")
    where = os.fspath(path)
    if not os.path.exists(where):
        raise InputError(f"{where}: no such file or directory")
    problems: list[str] = []
    found = human_formats(problems=problems)
    for f in found:
        if f.recognise(where):
            return f
    broken = f" (broken: {'; '.join(problems)})" if problems else ""
    fault = json_fault(where)
    if fault is not None:
        raise InputError(f"{fault}; so it is no form of judging data docmetrics recognises "
                         f"({', '.join(f.name for f in found)}){broken}: fix the line, or name its format, e.g. "
                         "format='genmt'", params=("format",))
    raise InputError(f"{where}: not a form of judging data docmetrics recognises ({', '.join(f.name for f in found)})"
                     f"{broken}; name its format, e.g. format='human-tsv', or install the plugin that reads it",
                     params=("format",))


def read_human(path: PathLike | Sequence[PathLike], *, lp: str | None = None, format: str | None = None,
               **options: Any) -> EvalSet:
    """One language pair of judging data, read from ``path`` in ``format`` (default: recognised from the file,
    :func:`detect`).

    ``lp``: the language pair (as the file names it, or without locales, ``en-cs`` for ``en-cs_CZ``, where that
    names one); needed where the file holds several.  ``options``: the format's own (``HumanFormat.options``;
    e.g. ``domains=["news"]`` for GenMT, ``column="mqm"`` for a TSV, ``testset="wmt24"`` for MTME,
    ``systems="DIR"`` for WMT26); an option the format does not take is a SpecError naming those it takes.

    >>> data = read_human("wmt24-esa.jsonl", lp="en-cs")         # doctest: +SKIP
    >>> data.testset.systems[:2], data.human.system["GPT-4"]     # doctest: +SKIP
    """
    lp = one_name(lp, "lp", "read_human")
    fmt, where = _format(path, format, options)
    return _finished(fmt, fmt.read(where, lp, options))


def read_human_pairs(path: PathLike | Sequence[PathLike], *, lps: Sequence[str] | None = None,
                     format: str | None = None, **options: Any) -> list[EvalSet]:
    """Several language pairs of judging data: each of ``lps`` (default: every pair a file of several holds, in
    its order; else the one :func:`read_human` reads), as :func:`read_human` reads it, from one reading of the
    file where its format reads several pairs at once (``HumanFormat.read_pairs``: GenMT, WMT26).

    >>> [data.lp for data in read_human_pairs("wmt24-esa.jsonl")]    # doctest: +SKIP
    ['en-cs_CZ', 'en-hi_IN']
    """
    if lps is not None:
        lps = [one_name(lp, "lp", "read_human") for lp in ([lps] if isinstance(lps, str) else lps)]
    fmt, where = _format(path, format, options)
    if fmt.read_pairs is not None and (lps is None or len(lps) > 1):
        found = fmt.read_pairs(where, lps, options)
    else:
        found = [fmt.read(where, lp, options) for lp in (lps or [None])]
    return [_finished(fmt, data) for data in found]


def _format(path: PathLike | Sequence[PathLike], format: str | None, options: dict[str, Any]
            ) -> tuple[HumanFormat, Any]:
    """The format to read ``path`` in (named, else recognised) and the path as it takes it; ``options`` checked
    against the format's (several names of one given as a string: a list)."""
    path = path_param(path, "path", "read_human")
    for key in ("domains", "references"):  # several names: one string is one name
        if key in options:
            options[key] = name_list(options[key], key, "read_human")
    fmt = human_format(format) if format is not None else detect(path)
    unknown = sorted(set(options) - set(fmt.options))
    if unknown:
        raise SpecError(f"read_human: format {shown(fmt.name)} takes no option {shown(unknown[0])}; its options: "
                        f"{', '.join(fmt.options) or 'none'}", params=tuple(unknown))
    return fmt, os.fspath(path) if isinstance(path, (str, os.PathLike)) else [os.fspath(p) for p in path]


def _finished(fmt: HumanFormat, found: EvalSet) -> EvalSet:
    """What the registry adds to a format's EvalSet: its gold spans where the format builds them, and the test
    set's language pair."""
    if fmt.spans is not None and found.make_spans is None:
        found = dataclasses.replace(found, make_spans=functools.partial(fmt.spans, found))
    if found.testset is not None and found.testset.lp is None and found.lp:
        found.testset.lp = found.lp  # the pair the file names or lp= gave: metrics score with it (Metric.for_langpair)
    return found
