"""``--data PATH``: judged data in any registered format, through the public library only.  The data is read by
:func:`docmetrics.read_human`; the main command runs it as its aliases (``--genmt``, ``--wmt25-tsv``, ``--wmt26``)
run, in :func:`docmetrics.commands.run.judged_run` (what it takes: :data:`WITH`); ``metaeval`` scores each ``-m``
with ``load(spec).compute(data.testset)`` and prints :func:`docmetrics.meta_evaluate`'s result.  ``rank`` reads its
data here too (:func:`read_pairs`), ``--data`` or its aliases ``--genmt``, ``--human``, ``--mtme`` and ``--wmt26``
(:data:`RANK_ALIASES`), and ranks it in :mod:`.human_clusters` and :mod:`.rank_live`.  With ``--data`` the aliases
conflict."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence, TextIO

from ..values.errors import SpecError, UserError
from .common import data_options
from .options import Options, flag_of
from .output import Output, write

__all__ = ["requested", "read", "read_pairs", "run_metaeval"]

#: The aliases of --data: each option's field and flag.
ALIASES = (("genmt", "--genmt"), ("mtme", "--mtme"), ("wmt25_tsv", "--wmt25-tsv"), ("wmt26", "--wmt26"),
           ("human", "--human"))
#: What --data combines with, per command (every other option given is refused, never ignored; SHOWN: the output
#: options and the fields no option sets).
DATA = {"data", "data_format", "data_option"}
SHOWN = {"quiet", "debug", "argv", "format", "short", "width", "width_given", "verbose", "stdin_implicit",
         "sacrebleu_signatures"}
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
        "report": DATA | {"quiet", "debug", "argv", "files", "output", "title", "lang"}}
#: rank's aliases of --data: (field, flag, format, {the format's option: the field that gives it})
RANK_ALIASES = (("genmt", "--genmt", "genmt", {}),
                ("human", "--human", "human-tsv", {"column": "human_column", "lower_is_better": "lower_is_better"}),
                ("mtme", "--mtme", "mtme", {"testset": "testset", "ref": "ref", "human_name": "gold"}),
                ("wmt26", "--wmt26", "wmt26", {"systems": "wmt26_systems", "references": "wmt26_ref",
                                               "source": "wmt26_source"}))


def requested(opts: Options) -> bool:
    return bool(getattr(opts, "data", None))


def check(opts: Options, command: str) -> None:
    """--data without its aliases, and only with the options it honours (a SpecError naming the one refused);
    --data-format and --data-option only with --data."""
    if not requested(opts):
        for name in ("data_format", "data_option"):
            if getattr(opts, name, None):
                raise SpecError(f"{flag_of(opts, name)} needs --data PATH (the judged data it reads)")
        return
    given = [flag for attr, flag in ALIASES if getattr(opts, attr, None)]
    if given:
        raise SpecError(f"--data and {given[0]}: give the judged data once (--data PATH, or its alias {given[0]}; "
                        "with --data name a format with --data-format)")
    defaults = type(opts)()
    for f in dataclasses.fields(opts):
        if f.name not in WITH[command] and getattr(opts, f.name) != getattr(defaults, f.name):
            taken = sorted({flag_of(opts, n) for n in WITH[command] - SHOWN - DATA})
            raise SpecError(f"--data does not take {flag_of(opts, f.name)} here; it takes {', '.join(taken)} and the "
                            "output options (or use the alias of a built-in format)")


def read(opts: Options, lp: str | None, who: str) -> Any:
    """``docmetrics.read_human(--data, format=--data-format, lp=lp, **--data-option)`` (:func:`read_pairs` of one
    pair), its errors worded as the options; the reader's notes said on stderr (-q: not)."""
    return read_pairs(opts, [lp], who)[0]


def source(opts: Options) -> tuple[str, str, str | None, dict[str, Any]]:
    """The judged data a command reads: (path, the option that names it, the format or None to recognise it, the
    format's options): --data with --data-format and --data-option, or (rank) an alias (:data:`RANK_ALIASES`) with
    its own options."""
    if opts.data:
        return opts.data, "--data", opts.data_format, data_options(opts.data_option)
    attr, flag, fmt, fields = next(row for row in RANK_ALIASES if getattr(opts, row[0], None))
    given = {key: getattr(opts, name) for key, name in fields.items()}
    return getattr(opts, attr), flag, fmt, {k: v for k, v in given.items() if v is not None and v != []}


def read_pairs(opts: Options, lps: Sequence[str | None], who: str, *, notes: bool = True) -> list[Any]:
    """``docmetrics.read_human_pairs(PATH, lps=-l, format=, **options)`` of :func:`source` (no -l: every pair of
    the file, read once; ``[None]``: the file's one, as ``read_human`` reads it), its errors worded as the options;
    each pair's notes said on stderr (``notes``: where its test set is scored; they say what the reader made of
    it)."""
    import docmetrics.judging

    from .common import say_notes, worded

    path, flag, fmt, given = source(opts)
    # an alias's options are the format's: the library's "ref= " is the command line's "--ref "
    fields = next((row[3] for row in RANK_ALIASES if row[1] == flag), {})
    flags = [(f"{key}= ", f"{flag_of(opts, field)} ") for key, field in fields.items()]
    try:
        found = docmetrics.judging.read_human_pairs(path, lps=list(lps) or None, format=fmt, **given)
    except UserError as exc:
        raise type(exc)(worded(str(exc), flags), params=exc.params) from None
    found = [dataclasses.replace(data, notes=tuple(worded(n, flags) for n in data.notes)) for data in found]
    for data in found if notes else ():
        say_notes(opts, data, who)
    return found


def _scored(opts: Options, data: Any) -> list[tuple[str, Any]]:
    """``(spec, load(spec, ...).compute(data.testset))`` for each -m, loaded with the command's model options."""
    import docmetrics

    if data.testset is None:
        raise SpecError(f"--data {opts.data}: a {data.format} file carries no texts to score with -m; give a format "
                        "that carries the test set's texts")
    cache: dict[str, Any] = {}  # --cache not given: the session reads $DOCMETRICS_SCORE_CACHE, as load() does
    if opts.cache is not None:
        from .common import cache_file

        cache = {"cache": cache_file(opts.cache)}
    return [(spec, docmetrics.load(spec, device=opts.device, batch_size=opts.batch_size, max_tokens=opts.max_tokens,
                                   precision=opts.precision, quiet=opts.quiet, **cache).compute(data.testset))
            for spec in opts.metrics]


def run_metaeval(opts: Options, out: TextIO) -> int:
    """``docmetrics metaeval -m SPEC... --data PATH [-l LP,LP...]``: per language pair (default: every pair of the
    file; the file read once), ``meta_evaluate(results, read_human(...), significance=--resamples, seed=--seed)``,
    printed one after another, each under its pair's name (JSON: ``{"data": PATH, "lps": [{"lp": LP, "metrics":
    to_dict()}, ...]}``)."""
    import docmetrics

    from .specs import language_pairs

    check(opts, "metaeval")
    assert opts.data is not None
    if not opts.metrics:
        raise SpecError(f"--data {opts.data}: give the metrics to judge with -m SPEC...")
    found = read_pairs(opts, language_pairs([opts.lps], spaces=False) if opts.lps else [], "docmetrics metaeval")
    evs = [(data.lp, docmetrics.meta_evaluate(_scored(opts, data), data, significance=opts.resamples, seed=opts.seed))
           for data in found]
    write(Output(data=lambda: {"data": opts.data, "lps": [{"lp": lp, "metrics": ev.to_dict()} for lp, ev in evs]},
                 text=lambda: "\n".join(f"{lp or opts.data}:\n{ev.to_text(opts.width)}" for lp, ev in evs)), opts, out)
    return 0
