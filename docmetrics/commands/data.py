"""``--data PATH``: judged data in any registered format, through the public library only, and its aliases
``--genmt``, ``--mtme``, ``--wmt25-tsv``, ``--wmt26`` and ``--human`` (:data:`ALIASES`): every command reads its judged
data here (:func:`read_pairs`, by :func:`docmetrics.judging.read_human_pairs`).  The main command runs it in
:func:`docmetrics.commands.run.judged_run` (what --data takes: :data:`WITH`); ``metaeval`` scores each ``-m`` with
``load(spec).compute(data.testset)`` and prints :func:`docmetrics.meta_evaluate`'s result; ``rank`` ranks it in
:mod:`.rank`.  With ``--data`` the aliases conflict."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Sequence, TextIO

from ..values.errors import SpecError, UserError
from .messages import note, warn
from .options import Options, flag_of
from .output import Output, write

__all__ = ["requested", "check", "data_options", "read", "read_judged", "read_pairs", "run_metaeval", "texts",
           "worded"]

#: The aliases of --data, read by one path (:func:`read_pairs`): each option's field, the registry's format it
#: names, that format's options from the command's (None or []: not passed) and how the command words the
#: library's names in what the reader says (:func:`worded`).
ALIASES = (
    ("genmt", "genmt", lambda o: {"domains": getattr(o, "domains", None),
                                  "include_reference": getattr(o, "include_human", False) or None,
                                  "reference": o.ref[0] if o.ref else None},  # refA: genmt.check_args
     (("include_reference=True", "--include-human"),)),
    ("mtme", "mtme", lambda o: {"testset": o.testset, "ref": o.ref, "human_name": getattr(o, "gold", None)},
     (("ref= ", "--ref "),)),
    ("wmt25_tsv", "wmt25-tsv", lambda o: {"set_id": o.wmt25_set}, ()),
    ("wmt26", "wmt26", lambda o: {"systems": o.wmt26_systems, "references": o.wmt26_ref, "source": o.wmt26_source},
     ()),
    ("human", "human-tsv", lambda o: {"column": o.human_column, "lower_is_better": getattr(o, "lower_is_better", None)},
     ()),
)
#: What --data combines with, per command (every other option given is refused, never ignored; SHOWN: the output
#: options; a field no option sets, such as ``argv``, is the command line's own and never refused).
DATA = {"data", "data_format", "data_option"}
SHOWN = {"quiet", "debug", "format", "short", "width", "verbose"}
MODEL = {"device", "batch_size", "max_tokens", "precision", "cache", "workers", "engine", "ray_address"}
WITH = {"rank": DATA | SHOWN | MODEL | {"lp", "rule", "metrics", "scores", "stored", "preset", "direction", "paired_bs",
                                       "paired_bs_n", "seed"},
        # what --genmt, --wmt25-tsv and --wmt26 take beside their own options (commands/run.judged_run)
        "main": DATA | SHOWN | MODEL | {"metrics", "lang", "report", "level", "output", "dump_alignment", "score_only",
                                        "max_truncated", "scores", "stored", "direction", "paired_bs", "paired_ar",
                                        "baseline", "paired_bs_n", "paired_ar_n", "seed", "ci", "ci_n", "ci_level",
                                        "exclude_systems", "no_human_systems", "seg_level", "doc_level", "pdp",
                                        "resamples", "metric_test", "statistics", "spans"},
        "metaeval": DATA | SHOWN | {"metrics", "lps", "device", "batch_size", "max_tokens", "precision", "cache",
                                    "seed", "resamples"},
        "report": DATA | {"quiet", "debug", "files", "output", "title", "lang"}}


def requested(opts: Options) -> bool:
    return bool(getattr(opts, "data", None))


def check(opts: Options, command: str) -> None:
    """--data without its aliases, only with the options it honours (a SpecError naming the one refused) and, for
    the main command and metaeval, with metrics to judge; --data-format and --data-option only with --data."""
    if not requested(opts):
        for name in ("data_format", "data_option"):
            if getattr(opts, name, None):
                raise SpecError(f"{flag_of(opts, name)} needs --data PATH (the judged data it reads)")
        return
    given = [flag_of(opts, row[0]) for row in ALIASES if getattr(opts, row[0], None)]
    if given:
        raise SpecError(f"--data and {given[0]}: give the judged data once (--data PATH, or its alias {given[0]}; "
                        "with --data name a format with --data-format)")
    defaults, flags = type(opts)(), type(opts).flags
    for f in dataclasses.fields(opts):
        if f.name in flags and f.name not in WITH[command] and getattr(opts, f.name) != getattr(defaults, f.name):
            taken = sorted({flag_of(opts, n) for n in WITH[command] - SHOWN - DATA})
            raise SpecError(f"--data does not take {flag_of(opts, f.name)} here; it takes {', '.join(taken)} and the "
                            "output options (or use the alias of a built-in format)")
    judges = [getattr(opts, name, None) for name in ("metrics", "scores", "stored")]  # the main command's, metaeval's
    if command in ("main", "metaeval") and not any(judges) and getattr(opts, "spans", None) is None:
        raise SpecError(f"--data {opts.data}: give the metrics to judge with -m SPEC...")


def _value(text: str) -> Any:
    """A --data-option value: a number as a number, true/false (yes/no) as a bool, else the text."""
    if text.strip().lower() in ("true", "yes", "false", "no"):
        return text.strip().lower() in ("true", "yes")
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def data_options(given: Sequence[str] | None) -> dict[str, Any]:
    """--data-option KEY=VALUE...: ``{key: value}`` (a number as a number, true/false as a bool; a key repeated:
    a list)."""
    out: dict[str, Any] = {}
    for item in given or ():
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise SpecError(f"--data-option {item!r}: give KEY=VALUE (e.g. --data-option column=mqm)")
        key = key.strip()
        if key in out:
            out[key] = [*(out[key] if isinstance(out[key], list) else [out[key]]), _value(value)]
        else:
            out[key] = _value(value)
    return out


#: How the command line words the library's parameters (``docmetrics.read_human``'s errors and notes).
WORDS = ((r"\bformat='([^']*)'", r"--data-format \1"), (r"^read_human: ", "--data-option: "),
         (r"name one with lp=", "pick one with -l"), (r"\blp=", "-l"))


def worded(text: str, flags: Sequence[tuple[str, str]] = ()) -> str:
    """``text`` (a library error or note) with the library's names as the command line's options: :data:`WORDS`,
    then each (library text, flag) of ``flags`` (e.g. ``("include_reference=True", "--include-human")``)."""
    for pattern, flag in (*WORDS, *((re.escape(name), flag) for name, flag in flags)):
        text = re.sub(pattern, flag, text)
    return text


def read_judged(path: Any, lps: Sequence[str | None], *, format: str | None = None,
                flags: Sequence[tuple[str, str]] = (), **options: Any) -> list[Any]:
    """``docmetrics.judging.read_human_pairs(path, lps=, format=, **options)`` (an option None or []: not passed;
    ``lps`` empty: every pair of the file, read once; ``[None]``: the file's one, as ``read_human`` reads it), its
    errors and notes :func:`worded` with ``flags``; the notes are not said."""
    import docmetrics.judging

    try:
        found = docmetrics.judging.read_human_pairs(path, lps=list(lps) or None, format=format,
                                                   **{k: v for k, v in options.items() if v is not None and v != []})
    except UserError as exc:
        raise type(exc)(worded(str(exc), flags), params=exc.params) from None
    return [dataclasses.replace(data, notes=tuple(worded(n, flags) for n in data.notes)) for data in found]


def source(opts: Options) -> tuple[str, str, str | None, dict[str, Any]]:
    """The judged data a command reads: (path, the option that names it, the format or None to recognise it, the
    format's options): --data with --data-format and --data-option, or an alias (:data:`ALIASES`) with its own
    options."""
    if getattr(opts, "data", None):
        return opts.data, "--data", opts.data_format, data_options(opts.data_option)
    attr, fmt, given, _ = _alias(opts)
    return getattr(opts, attr), flag_of(opts, attr), fmt, given(opts)


def _alias(opts: Options) -> tuple[Any, ...]:
    """The row of :data:`ALIASES` whose option ``opts`` gives."""
    return next(row for row in ALIASES if getattr(opts, row[0], None))


def read_pairs(opts: Options, lps: Sequence[str | None], who: str, *, notes: bool = True) -> list[Any]:
    """:func:`read_judged` of :func:`source` (``lps``: -l; none: every pair of the file, read once), its errors worded
    as the options; each pair's notes said on stderr, -q: not (``notes``: where its test set is scored; they say what
    the reader made of it)."""
    path, flag, fmt, given = source(opts)
    found = read_judged(path, lps, format=fmt, flags=() if flag == "--data" else _alias(opts)[3], **given)
    for data in found if notes else ():
        for text in data.notes:  # a segment that reappears out of place: a warning
            warn(text, who) if "reappears" in text else note(opts, text, who)
    return found


def read(opts: Options, lp: str | None, who: str = "docmetrics", *, notes: bool = True) -> Any:
    """:func:`read_pairs` of the one pair ``lp`` (None: the file's one), read and checked before any model loads."""
    return read_pairs(opts, [lp], who, notes=notes)[0]


def texts(opts: Options, data: Any) -> Any:
    """The test set of judged data, to score with -m (a format of human scores only: a SpecError naming it)."""
    if data.testset is None:
        path, flag, _, _ = source(opts)
        raise SpecError(f"{flag} {path}: a {data.format} file carries no texts to score with -m; give a format that "
                        "carries the test set's texts")
    return data.testset


def run_metaeval(opts: Options, out: TextIO) -> int:
    """``docmetrics metaeval -m SPEC... --data PATH [-l LP,LP...]``: per language pair (default: every pair of the
    file; the file read once), ``meta_evaluate(results, read_human(...), significance=--resamples, seed=--seed)``,
    printed one after another, each under its pair's name (JSON: ``{"data": PATH, "lps": [{"lp": LP, "metrics":
    to_dict()}, ...]}``); each -m is ``load(spec).compute(data.testset)`` in the command's session (its model
    options and score cache)."""
    import docmetrics

    from .common import session_scope
    from .specs import language_pairs

    check(opts, "metaeval")
    found = read_pairs(opts, language_pairs([opts.lps], spaces=False) if opts.lps else [], "docmetrics metaeval")
    testsets = [texts(opts, data) for data in found]  # before any model loads
    with session_scope(opts, cache=opts.cache) as session:
        metrics = [(spec, docmetrics.load(spec, session=session)) for spec in opts.metrics]
        evs = [(data.lp, docmetrics.meta_evaluate([(spec, m.compute(testset)) for spec, m in metrics], data,
                                                  significance=opts.resamples, seed=opts.seed))
               for data, testset in zip(found, testsets)]
    write(Output(data=lambda: {"data": opts.data, "lps": [{"lp": lp, "metrics": ev.to_dict()} for lp, ev in evs]},
                 text=lambda: "\n".join(f"{lp or opts.data}:\n{ev.to_text(opts.width)}" for lp, ev in evs)), opts, out)
    return 0
