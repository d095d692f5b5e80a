"""Human-data formats as a registry: every form of judging data docmetrics reads, each a frozen
:class:`HumanFormat` (its name, what it is, how to recognise a file of it, how to read one, its options), and
:func:`read_human`, which recognises a file's format (or takes the one named) and reads one language pair of it
into an :class:`~docmetrics.judging.evalset.EvalSet`.

The formats docmetrics defines (:data:`BUILTIN`, tried in this order when recognising a file):

``mtme``        an mt-metrics-eval directory (``ROOT`` with ``TESTSET/``, or ``ROOT/TESTSET``): texts and human scores
``wmt26``       the WMT26 GenMT release: the test file (``src_lang``, ``tgt_lang``, ``refs``) and the system files
``genmt``       the WMT24/25 GenMT/ESA JSONL as released (segment or document lines; ESA scores and error spans)
``stored``      stored metric scores: WMT25 automatic-scores ``*.jsonl``, MTME ``NAME-REF.{seg,doc,sys}.score``
``wmt25-tsv``   the WMT25 metrics task's test TSV (``doc_id``, ``segment_id``, ..., ``method``): texts to score
``mqm``         a raw MQM TSV as google/wmt-mqm-human-evaluation publishes it (one line per error, ``<v>`` spans)
``human-tsv``   a TSV of human scores: system (and doc_id, seg_id) and a score column

A format a third party adds is a :class:`HumanFormat` registered under the entry-point group
``docmetrics.human_formats`` (``cesa = my_pkg.formats:CESA``); it is tried after docmetrics' own, and a file
may always be read with ``format="NAME"``.  Nothing here prints or loads a model; every reader checks what it
reads before anything is scored, raising an :class:`~docmetrics.values.errors.InputError` naming the file.
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, Union

from ..values.errors import InputError, SpecError, shown
from ..values.jsonl import json_object
from .evalset import EvalSet
from .params import name_list, one_name, path_param

if TYPE_CHECKING:
    from ..values.testset import TestSet

__all__ = ["HumanFormat", "BUILTIN", "formats", "get", "names", "detect", "read_human", "mtme_evalset", "PathLike"]

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class HumanFormat:
    """One form of judging data.

    ``recognise(path)`` says whether ``path`` (a file or directory, read as little as it needs) is of this
    form; it never raises for a file of another form.  ``read(path, lp, options)`` reads the language pair
    ``lp`` (None: the only one, or the file's, where it names none) with ``options`` (only names listed in
    ``options`` reach it) and returns an :class:`EvalSet`.  ``gives``: what an EvalSet of it holds, in words."""

    name: str
    title: str
    recognise: Callable[[str], bool]
    read: Callable[[str, str | None, Mapping[str, Any]], EvalSet]
    options: tuple[str, ...] = ()
    gives: str = ""


# -- recognising files ----------------------------------------------------------------------------------------
def _first_line(path: str, limit: int = 1 << 20) -> str:
    """The first non-blank line of a text file ("" for a directory, an unreadable or an empty file)."""
    return _first_numbered_line(path, limit)[1]


def _first_numbered_line(path: str, limit: int = 1 << 20) -> tuple[int, str]:
    """(its number from 1, the text) of the first non-blank line of a text file ((0, "") where :func:`_first_line`
    gives "")."""
    if not os.path.isfile(path):
        return 0, ""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            read = 0
            for number, line in enumerate(f, 1):
                read += len(line)
                if line.strip():
                    return number, line.strip("\r\n").lstrip("\ufeff")
                if read > limit:
                    break
    except OSError:
        return 0, ""
    return 0, ""


def _first_json(path: str) -> dict[str, Any]:
    line = _first_line(path)
    if not line.startswith("{"):
        return {}
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        return {}
    return obj if isinstance(obj, dict) else {}


def _json_fault(path: str) -> str | None:
    """Why the first line of ``path``, where it looks like JSON (``{`` or ``[``), is no JSON object docmetrics
    reads (too deep, invalid, not an object), as ``PATH, line N: ...``; None otherwise."""
    number, line = _first_numbered_line(path)
    if not line.lstrip().startswith(("{", "[")):
        return None
    try:
        json_object(line, f"{path}, line {number}", "one JSON object (a segment, a document or a system's scores)")
    except InputError as exc:
        return str(exc)
    return None


def _header(path: str) -> list[str]:
    line = _first_line(path)
    return [h.strip() for h in line.split("\t")] if "\t" in line else []


def _mtme_root(path: str) -> tuple[str, str | None] | None:
    """(root, test set named by the path or None) for an MTME directory, else None."""
    if not os.path.isdir(path):
        return None
    if os.path.isdir(os.path.join(path, "system-outputs")) or os.path.isdir(os.path.join(path, "human-scores")):
        return os.path.dirname(os.path.abspath(path)), os.path.basename(os.path.abspath(path))
    if glob.glob(os.path.join(path, "*", "system-outputs")) or glob.glob(os.path.join(path, "*", "human-scores")):
        return path, None
    return None


def _is_wmt26(path: str) -> bool:
    obj = _first_json(path)
    return {"doc_id", "src_lang", "tgt_lang", "src_text"} <= set(obj)


def _is_genmt(path: str) -> bool:
    obj = _first_json(path)
    return {"doc_id", "src_text"} <= set(obj) and "src_lang" not in obj


def _is_stored(path: str) -> bool:
    from ..formats.mtme_scores import LEVELS

    base = os.path.basename(path)
    if base.endswith(".score") and base.count(".") >= 2 and base.rsplit(".", 2)[-2] in LEVELS:
        return True
    header = _header(path)  # a TSV of stored scores: system, doc_id, a column per metric, no seg_id
    if len(header) >= 3 and header[:2] == ["system", "doc_id"] and "seg_id" not in header:
        return True
    obj = _first_json(path)
    return {"language_pair", "document_id"} <= set(obj)


def _is_wmt25_tsv(path: str) -> bool:
    from ..formats.wmt25_tsv import TSV_FIELDS

    return set(TSV_FIELDS) <= set(_header(path))


def _is_mqm(path: str) -> bool:
    from ..formats.mqm_tsv import is_mqm_header

    header = _header(path)
    return bool(header) and is_mqm_header(header)


def _is_human_tsv(path: str) -> bool:
    header = _header(path)
    if not header:
        return False
    if "system" in header:
        return True
    try:
        float(header[-1])
    except ValueError:
        return False
    return len(header) in (2, 4)


# -- reading ------------------------------------------------------------------------------------------------
def _one_pair(path: str, have: Sequence[str], lp: str | None) -> None:
    if lp is None and len(have) > 1:
        raise InputError(f"{path} holds {len(have)} language pairs ({', '.join(have)}): name one with lp=",
                         params=("lp",))


def _read_genmt(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    from ..evaluation.human_clusters import HumanJudgements
    from ..evaluation.spans import genmt_gold
    from ..formats.genmt import REFERENCE, judged_testset, read_genmt

    data = read_genmt(path)
    _one_pair(path, data.language_pairs(), lp)
    full = data.pair(lp if lp is not None else data.language_pairs()[0])
    pair = full.select(options.get("domains"))
    include = bool(options.get("include_reference", False))
    if include and REFERENCE not in pair.outputs:
        raise InputError(f"{path}: no reference ({REFERENCE}) for {pair.name} to score as a system",
                         params=("include_reference",))
    testset, human, notes = judged_testset(pair, path, include_reference=include, option="include_reference=True",
                                           warnings=data.warnings)
    return EvalSet(path, "genmt", pair.name, testset, human,
                   notes=tuple(notes), raw=pair, make_judgements=lambda: HumanJudgements.from_genmt(pair),
                   make_spans=lambda: genmt_gold(pair, tuple(full.domains)))


def _read_mqm(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    from ..evaluation.human_clusters import HumanJudgements
    from ..evaluation.spans import mqm_gold
    from ..formats.human_tsv import load_human
    from ..formats.mqm_tsv import read_mqm

    ratings = read_mqm(path)
    human = load_human(path)
    reference = options.get("reference")
    if reference is not None and reference not in ratings.systems():
        raise InputError(f"{path}: rates no system {shown(reference)}; a reference is one of "
                         f"{', '.join(ratings.systems())}",
                         params=("reference",))
    testset = ratings.testset(reference)

    def judgements() -> HumanJudgements:
        found = HumanJudgements.from_human(human)
        found.lp = lp
        return found

    return EvalSet(path, "mqm", lp, testset, human, notes=tuple(getattr(human, "warnings", ()) or ()), raw=ratings,
                   make_judgements=judgements, make_spans=lambda: mqm_gold(ratings))


def _read_human_tsv(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    from ..evaluation.human_clusters import HumanJudgements
    from ..formats.human_tsv import load_human

    human = load_human(path, options.get("column"), bool(options.get("lower_is_better", False)))

    def judgements() -> HumanJudgements:
        found = HumanJudgements.from_human(human)
        found.lp = lp
        return found

    return EvalSet(path, "human-tsv", lp, None, human, notes=tuple(getattr(human, "warnings", ()) or ()), raw=human,
                   make_judgements=judgements if human.segment_level else None)


def _read_wmt25_tsv(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    from ..formats.wmt25_tsv import OFFICIAL, read_wmt25_tsv

    pair = read_wmt25_tsv(path).pair(lp, options.get("set_id", OFFICIAL))
    return EvalSet(path, "wmt25-tsv", pair.lp, pair.testset, notes=tuple(pair.notes), raw=pair)


def _read_wmt26(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    from ..formats.wmt26 import read_wmt26

    systems = options.get("systems")
    if not systems:
        raise InputError(f"{path}: the WMT26 test file holds no translations; give the system files with "
                         "systems=DIR or systems=[FILE, ...]", params=("systems",))
    data = read_wmt26(path, systems, lp=lp, source=options.get("source", "src_text"))
    _one_pair(path, list(data.pairs), lp)
    pair = next(iter(data.pairs.values()))
    testset, plans = pair.testset(references=tuple(options.get("references", ())))
    notes = [f"{pair.name}: {s} left out: it translated {len(pair.hypotheses[s])} of the {len(pair.documents)} "
             f"documents (first skipped: {pair.skipped(s)[0]})" for s in pair.systems if pair.skipped(s)]
    notes += [f"{pair.name}: {p.describe()}" for p in plans if p.unit == "document"]
    return EvalSet(path, "wmt26", pair.name, testset, notes=tuple(notes), raw=pair)


def _read_stored(path: str | Sequence[str], lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    from ..evaluation.stored import NO_PAIR, read_stored

    paths = [path] if isinstance(path, str) else [os.fspath(p) for p in path]
    stored = read_stored(paths, lp=lp, declared=options.get("directions"))
    where = paths[0] if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more)"
    have = stored.language_pairs()
    if lp is not None:
        name, metrics = stored.pair(lp, where)
    else:
        _one_pair(where, have, lp)
        name = have[0] if have else NO_PAIR
        metrics = stored.pairs[name]
    return EvalSet(where, "stored", name or None, None, stored=dict(metrics),
                   notes=tuple(n for n in stored.notes if not name or f"({name})" in n), raw=stored)


def _read_mtme(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    from ..evaluation.mtme import load_mtme

    found = _mtme_root(path)
    root, named = found if found is not None else (path, None)
    testset_name = options.get("testset") or named
    if not testset_name or lp is None:
        raise InputError(f"{path}: an MTME directory is read one test set and language pair at a time: give "
                         "testset=NAME (e.g. wmt24) and lp=", params=("testset", "lp"))
    data, testset = load_mtme(root, testset_name, lp, ref=options.get("ref"), human_name=options.get("human_name"),
                              include_human=bool(options.get("include_human", False)))
    return mtme_evalset(data, testset, options.get("human_name"))


def mtme_evalset(data: Any, testset: TestSet, human_name: str | None = None) -> EvalSet:
    """The EvalSet of one language pair of MTME data as :func:`~docmetrics.evaluation.mtme.load_mtme` read it
    (``data``, an MtmeTestSet, and the TestSet of the systems chosen; ``human_name``: the human scores asked for,
    None for MTME's standard ones): its human segment scores (and system scores, MTME's where it has them, else the
    mean of the segments) as HumanScores; what ``read_human`` of an MTME directory returns, and what
    ``docmetrics --mtme`` meta-evaluates."""
    from ..evaluation.human_clusters import HumanJudgements
    from ..formats.genmt import exact_mean
    from ..formats.human_tsv import HumanScores

    lp = data.lp
    seg_name = human_name or data.default_human_name("seg")
    human = None
    if seg_name is not None and (seg_name, "seg") in data.human_scores:
        positions: dict[tuple[str, str], int] = {}
        for d in testset.documents:
            for i in range(d.start, d.end):
                positions[(d.doc_id, str(i))] = i - d.start + 1
        keys = list(positions)
        segments = {s: {k: float(v) for k, v in zip(keys, row) if v is not None}
                    for s, row in data.human(seg_name, "seg").items()}
        sys_name = human_name or data.default_human_name("sys")
        given = data.human(sys_name, "sys") if sys_name and (sys_name, "sys") in data.human_scores else {}
        system = {s: float(given[s][0]) if s in given and given[s] and given[s][0] is not None
                  else exact_mean(list(v.values())) for s, v in segments.items() if v}
        human = HumanScores(f"{data.directory}/human-scores/{lp}.{seg_name}.seg.score", seg_name, system,
                            {s: v for s, v in segments.items() if v}, positions, set(data.human_systems))
    return EvalSet(os.path.join(data.root, data.testset), "mtme", data.lp, testset, human, raw=data,
                   make_judgements=lambda: HumanJudgements.from_mtme(data, human_name))


#: The formats docmetrics defines, in the order a file is tried against them.
BUILTIN: tuple[HumanFormat, ...] = (
    HumanFormat("mtme", "an mt-metrics-eval directory (ROOT or ROOT/TESTSET)", lambda p: _mtme_root(p) is not None,
                _read_mtme, ("testset", "ref", "human_name", "include_human"),
                "testset, human (segment and system scores), judgements"),
    HumanFormat("wmt26", "the WMT26 GenMT release (test file and system files)", _is_wmt26, _read_wmt26,
                ("systems", "references", "source"), "testset (documents as paragraphs or whole)"),
    HumanFormat("genmt", "the WMT24/25 GenMT/ESA JSONL as released", _is_genmt, _read_genmt,
                ("domains", "include_reference"), "testset, human (ESA), judgements, spans"),
    HumanFormat("stored", "stored scores: WMT25 automatic-scores JSONL, MTME *.score files, a TSV",
                _is_stored, _read_stored, ("directions",), "stored metrics (results())"),
    HumanFormat("wmt25-tsv", "the WMT25 metrics task's test TSV", _is_wmt25_tsv, _read_wmt25_tsv, ("set_id",),
                "testset"),
    HumanFormat("mqm", "a raw MQM TSV (one line per error)", _is_mqm, _read_mqm, ("reference",),
                "testset, human (MQM penalties, negated), judgements, spans"),
    HumanFormat("human-tsv", "a TSV of human scores (system[, doc_id, seg_id], score)", _is_human_tsv,
                _read_human_tsv, ("column", "lower_is_better"), "human, judgements (with segment scores)"),
)


# -- the registry ---------------------------------------------------------------------------------------------
def _plugins(problems: list[str] | None = None) -> list[HumanFormat]:
    """The formats installed distributions register (entry-point group ``docmetrics.human_formats``).  A broken
    one raises its PluginError, or, given ``problems``, is left out and its error appended there."""
    from ..plugin import registry
    from ..values.errors import PluginError

    taken = {f.name for f in BUILTIN}
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


def formats(*, plugins: bool = True, problems: list[str] | None = None) -> list[HumanFormat]:
    """Every format: docmetrics' own, then the plugins' (read from installed metadata now; a broken plugin
    raises its PluginError, or with ``problems`` is left out and said there)."""
    return list(BUILTIN) + (_plugins(problems) if plugins else [])


def names(*, plugins: bool = True) -> list[str]:
    return [f.name for f in formats(plugins=plugins)]


def get(name: str) -> HumanFormat:
    """The format called ``name``; a SpecError naming every format there is."""
    from ..plugin import registry

    found = formats(problems=[])
    for f in found:
        if f.name == name:
            return f
    if name in registry.names("human_format"):
        formats()  # a broken plugin of that name: its own error
    raise SpecError(f"unknown human-data format {shown(name)}; one of {', '.join(f.name for f in found)}",
                    params=("format",))


def detect(path: PathLike | Sequence[PathLike]) -> HumanFormat:
    """The first format that recognises ``path`` (several paths: stored scores); an InputError naming the
    file and how to name its format where none does."""
    if not isinstance(path, (str, os.PathLike)):
        return get("stored")
    where = os.fspath(path)
    if not os.path.exists(where):
        raise InputError(f"{where}: no such file or directory")
    problems: list[str] = []
    found = formats(problems=problems)
    for f in found:
        if f.recognise(where):
            return f
    broken = f" (broken: {'; '.join(problems)})" if problems else ""
    fault = _json_fault(where)
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
    path = path_param(path, "path", "read_human")
    lp = one_name(lp, "lp", "read_human")
    for key in ("domains", "references"):  # several names: one string is one name
        if key in options:
            options[key] = name_list(options[key], key, "read_human")
    fmt = get(format) if format is not None else detect(path)
    unknown = sorted(set(options) - set(fmt.options))
    if unknown:
        raise SpecError(f"read_human: format {shown(fmt.name)} takes no option {shown(unknown[0])}; its options: "
                        f"{', '.join(fmt.options) or 'none'}", params=tuple(unknown))
    where: Any = os.fspath(path) if isinstance(path, (str, os.PathLike)) else [os.fspath(p) for p in path]
    found = fmt.read(where, lp, options)
    if found.testset is not None and found.testset.lp is None and found.lp:
        found.testset.lp = found.lp  # the pair the file names or lp= gave: metrics score with it (Metric.for_langpair)
    return found
