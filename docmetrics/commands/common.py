"""What the docmetrics commands share: the session their model options and score cache make, the check of every
file a command writes, and a judged data's reference named as its option names it.  Judged data is read in
:mod:`.data`."""

from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator

from ..api import same_file
from ..values.errors import InputError, UserError
from .messages import note
from .options import Options, flag_of

__all__ = ["check_output_file", "check_outputs", "naming_the_reference", "session_scope"]


@contextlib.contextmanager
def session_scope(opts: Options, cache: Any = None) -> Iterator[Any]:
    """The command's one :class:`~docmetrics.runtime.session.Session`: the engine ``--workers``/
    ``--engine``/``--ray-address`` ask for, the score cache ``cache`` (a path, "" for the default file,
    None for ``$DOCMETRICS_SCORE_CACHE``, False for none, or an open ScoreCache the caller closes), the
    model defaults (--device, --precision, --batch-size, --max-tokens, -q); workers, the cache it opened
    and every backbone closed at the end.  Cheap to enter: workers and Ray start on the first units to
    score."""
    from ..api import FROM_ENVIRONMENT, ScoreCache, Session, default_path, make_engine

    engine = make_engine(getattr(opts, "engine", "local"), workers=getattr(opts, "workers", None),
                                 device=getattr(opts, "device", "auto"),
                                 ray_address=getattr(opts, "ray_address", None),
                                 notify=lambda text: note(opts, f"--engine ray: {text}"))  # nothing with -q
    store = (FROM_ENVIRONMENT if cache is None else None if cache is False else cache
             if isinstance(cache, ScoreCache) else (cache or default_path()))
    try:
        session = Session(cache=store, engine=engine, device=getattr(opts, "device", "auto"),
                          precision=getattr(opts, "precision", None), batch_size=getattr(opts, "batch_size", None),
                          max_tokens=getattr(opts, "max_tokens", None), quiet=getattr(opts, "quiet", True))
    except BaseException:
        engine.close()
        raise
    with session:
        yield session


def cache_file(cache: str | None) -> str | None:
    """The score cache file a run uses: ``--cache``'s (a path, "" for the default file), else the one
    ``$DOCMETRICS_SCORE_CACHE`` names (None where it names none)."""
    from ..api import default_path, environment_path

    if cache is None:
        path = environment_path(os.environ)
        return None if path is None else str(path)
    return cache or str(default_path())


def width(opts: Options, result: Any) -> int:
    """The decimals to print ``result``'s score with: ``-w`` where given, else the metric's default."""
    if getattr(opts, "width_given", False):
        return int(opts.width)
    return int(getattr(result, "decimals", None) or opts.width)


def check_output_file(path: str, option: str, inputs: tuple[str | None, ...] = ()) -> None:
    """Refuse, before anything is scored, a file ``option`` could not write: a directory, one whose
    folder does not exist (or is a file), one that cannot be written, or one of the ``inputs``."""
    if os.path.isdir(path):
        raise UserError(f"{option} {path}: is a directory; give a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        up = folder
        while not os.path.exists(up) and os.path.dirname(up) != up:
            up = os.path.dirname(up)
        if os.path.exists(up) and not os.path.isdir(up):
            raise UserError(f"{option} {path}: {up} is a file, not a directory")
        raise UserError(f"{option} {path}: no such directory {folder}; create it first")
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        raise UserError(f"{option} {path}: not writable (permissions)")
    for other in inputs:
        if not other or other == "-":
            continue
        if same_file(path, other):
            raise UserError(f"{option} {path}: is also an input or output ({other}); it would be overwritten")


#: The options of ``docmetrics`` that name files it reads, and those that name files it writes.
INPUT_OPTIONS = ("input", "source", "references", "doc_ids", "human", "scores", "genmt", "wmt25_tsv", "spans", "wmt26",
                 "wmt26_systems", "candidates", "data")
OUTPUT_OPTIONS = ("output", "report", "dump_alignment", "write_submission")


def _files(opts: Options, options: tuple[str, ...]) -> list[tuple[str, str]]:
    found = []
    for attr in options:
        value = getattr(opts, attr, None)
        for path in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(path, str) and path and path != "-":
                found.append((path, flag_of(opts, attr)))
    return found


def check_outputs(opts: Options, extra: tuple[tuple[str, str], ...] = ()) -> None:
    """One check for every file the command writes (-o, --report, --dump-alignment, --write-submission and
    ``extra``: (path, option)), before anything is read or scored: each must be writable and none may be a
    file the command reads or another output (it would be written over)."""
    inputs = _files(opts, INPUT_OPTIONS)
    outputs = _files(opts, OUTPUT_OPTIONS) + list(extra)
    for k, (path, option) in enumerate(outputs):
        check_output_file(path, option)
        for other, flag in inputs + outputs[:k]:
            if same_file(path, other):
                role = "read" if (other, flag) in inputs else "written"
                raise UserError(f"{option} {path}: is the file {flag} names ({other}), which this command "
                                f"{'reads' if role == 'read' else 'also writes'}; it would be written over: give "
                                f"{option} another file name")


@contextlib.contextmanager
def naming_the_reference(what: str, option: str, there: str) -> Iterator[None]:
    """A metric that needs a reference where the judged data has none in use: its error (an InputError on
    ``references``, which names -r) says instead where the data takes one from (``what``), the option that names
    it and ``there`` (the data's references)."""
    try:
        yield
    except InputError as exc:
        if "references" not in exc.params:
            raise
        who = str(exc).split(" needs a reference", 1)[0] if " needs a reference" in str(exc) else "a metric"
        raise InputError(f"{who} needs a reference: {what}: name one with {option} NAME ({there})") from None
