"""Stored scores, the judged-data format ``stored``: a metric whose units are already scored, read from the
files people publish, each file kind by its name:

* ``*.jsonl``: **WMT25's automatic scores** (wmt-conference/wmt25-general-mt ``data/automatic_scores/SYSTEM.jsonl``),
  one file per system, named after it; one JSON object per document with ``language_pair`` (``en-ko_KR``),
  ``domain``, ``document_id`` and ``metric_scores`` ({metric: [one score per segment, ``null`` where missing]}); a
  file may hold any number of language pairs;
* ``NAME-REF.{seg,doc,sys}.score``: **MTME's metric score files**, their language pair the folder they lie in
  (``ROOT/TESTSET/metric-scores/LP/``), their documents those of ``ROOT/TESTSET/documents/LP.docs`` where it
  exists (:func:`~docmetrics.formats.mtme_scores.read_mtme_stored`);
* anything else: **a TSV** of one segment per line: a header ``system<TAB>doc_id<TAB>METRIC[<TAB>METRIC...]``
  naming each score column, then ``SYSTEM<TAB>DOC_ID<TAB>SCORE...``; a system's lines in test-set order (a
  document's segments consecutive); an empty cell or ``None`` is a missing score.

:func:`read_stored` reads any mix of them into :class:`StoredScores` (every language pair of the files; its
:meth:`~StoredScores.evalset` gives one pair as the :class:`~docmetrics.formats.base.EvalSet` that
``read_human(..., format="stored")`` gives, :data:`FORMAT`).  Each file gives
:class:`~docmetrics.formats.stored_metric.StoredMetric` values (with their Results and the metric a judging run
scores: :mod:`docmetrics.formats.stored_metric`).

Everything a user can get wrong (systems, documents or segment counts that do not match, a metric with
scores for some systems only, NaN or text where a number belongs, a language pair that is not one or not
in the files) is an :class:`~docmetrics.values.errors.InputError` naming the file, the line and the
field; nothing here prints.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..values.errors import InputError, SpecError, shown
from ..values.io import read_lines
from ..values.jsonl import field_error, json_lines, string_field
from ..values.langpair import parse_langpair
from ..values.testset import runs
from .base import EvalSet, HumanFormat, bare_pair, first_json, match_pair, one_pair, tsv_header
from .mtme_scores import read_mtme_stored, score_file_level
from .stored_metric import (
    STORED_LEVELS,
    Directions,
    StoredMetric,
    check_magnitude,
    choose_direction,
    declared_directions,
    file_fingerprint,
    majority,
    parse_score,
)

__all__ = ["FORMAT", "StoredScores", "read_stored", "choose_stored", "NO_PAIR", "read_wmt25_scores", "read_score_tsv",
           "find_pair", "WMT25_FIELDS"]

#: The language pair of scores whose files name none (a TSV read without a pair).
NO_PAIR = ""
#: How a missing score is written in a TSV cell (besides an empty cell).
_MISSING_TEXT = ("", "None")
#: The fields of a line of WMT25's automatic-scores JSONL.
WMT25_FIELDS = ("language_pair", "domain", "document_id", "metric_scores")
#: What a line of WMT25's automatic scores holds (the messages of :func:`~docmetrics.values.jsonl.json_lines`).
WMT25_LINE = f"one JSON object with {', '.join(WMT25_FIELDS)} (a document's automatic scores)"


def _segments(n: int) -> str:
    return f"{n} segment{'' if n == 1 else 's'}"


def _cell(text: str, where: str) -> float | None:
    """A TSV score: a finite number, or None for an empty cell or ``None``."""
    text = text.strip()
    return None if text in _MISSING_TEXT else parse_score(text, where, "leave the cell empty (or write None)")


def find_pair(wanted: str, have: Sequence[str], where: str) -> str:
    """The language pair among ``have`` that ``wanted`` names: as written (``en-ko_KR``) or without its
    locales (``en-ko``) where that names one; an InputError listing the pairs otherwise."""
    if wanted in have:
        return wanted
    try:
        lp = parse_langpair(wanted)
    except SpecError as exc:
        raise InputError(f"-l {wanted}: {exc}", params=("lp",)) from None
    bare = f"{lp.src}-{lp.tgt}"
    # a pair written without locales names the pair with them and the other way round (-l en-de_DE and a TSV's
    # en-de; -l en-de and a release's en-de_DE), where that names one
    return match_pair(wanted, have, where, "field language_pair",
                      lambda p: p == lp.code or p.lower() == wanted.lower(),
                      lambda p: bare_pair(p) == bare and (lp.code == bare or p == bare), has="the files have")


# -- every file kind, every language pair -------------------------------------------------------------------


@dataclass
class StoredScores:
    """Stored metrics read from files (:func:`read_stored`): lp -> metric name -> :class:`StoredMetric` (lp
    :data:`NO_PAIR` for a TSV read without a language pair), what was read but not kept (``notes``) and where
    (``source``: the first file, and how many more)."""

    pairs: dict[str, dict[str, StoredMetric]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    source: str = ""

    def language_pairs(self) -> list[str]:
        return [lp for lp in self.pairs if lp != NO_PAIR]

    def pair(self, wanted: str, where: str | None = None) -> tuple[str, dict[str, StoredMetric]]:
        """(the pair's name as the files write it, its metrics): ``wanted`` as written or without its
        locales (``en-ko`` for ``en-ko_KR``), an InputError naming ``where`` and listing the pairs otherwise."""
        have = self.language_pairs()
        if not have and NO_PAIR in self.pairs:
            return wanted, self.pairs[NO_PAIR]
        name = find_pair(wanted, have, where or self.source)
        return name, {**self.pairs.get(NO_PAIR, {}), **self.pairs[name]}

    def evalset(self, lp: str | None = None, *,
                metrics: Sequence[str] | Callable[[str], Sequence[str]] | None = None) -> EvalSet:
        """One language pair as the EvalSet ``read_human(..., format="stored")`` gives: ``lp`` as the files
        write it or without its locales (None: the only pair, or the pair-less TSV's); ``metrics``: the names
        to keep (as :func:`choose_stored` takes them; None or ``all``: every one), or a function of the pair's
        name giving them (an AutoRank preset's ``metrics_for``).  Its notes are the pair's."""
        if lp is not None:
            name, found = self.pair(lp)
        else:
            have = self.language_pairs()
            one_pair(self.source, have, lp)
            name = have[0] if have else NO_PAIR
            found = self.pairs[name]
        wanted = metrics(name) if callable(metrics) else [metrics] if isinstance(metrics, str) else metrics
        chosen = choose_stored(list(found), wanted, name, self.source)
        return EvalSet(self.source, "stored", name or None, None, stored={n: found[n] for n in chosen},
                       notes=tuple(n for n in self.notes if f"({name})" in n), raw=self)

    def add(self, metric: StoredMetric) -> None:
        lp = metric.lp if metric.lp is not None else NO_PAIR
        metrics = self.pairs.setdefault(lp, {})
        old = metrics.get(metric.name)
        if old is None:
            metrics[metric.name] = metric
            return
        if old.level == metric.level:
            raise InputError(f"{metric.file_of(metric.systems[0])}: metric {shown(metric.name)} of "
                             f"{lp or 'the scores'} "
                             f"again (also in {old.file_of(old.systems[0])}); give each metric once")
        keep, drop = sorted((old, metric), key=lambda m: STORED_LEVELS.index(m.level))
        moved = {drop.level: drop, **drop.coarser}
        again = [lv for lv in moved if lv in keep.coarser]
        if again:
            raise InputError(f"{metric.file_of(metric.systems[0])}: {again[0]}-level scores of metric "
                             f"{shown(metric.name)} of {lp or 'the scores'} again; give each file once")
        drop.coarser = {}
        keep.coarser.update(moved)
        keep.fingerprint = file_fingerprint(list(dict.fromkeys(
            m.file_of(m.systems[0]) for m in (keep, *keep.coarser.values()))))
        metrics[metric.name] = keep
        self.notes.append(f"{metric.name} ({lp}): AutoRank reads its {keep.level}-level scores (the mean over "
                          f"them), not its {drop.level}-level ones ({drop.file_of(drop.systems[0])}); judging "
                          "reads both")


def read_stored(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *, lp: str | None = None,
                directions: Directions = None) -> StoredScores:
    """Every stored metric of ``paths``, of every language pair (the file kinds of the module docstring, in any
    mix); ``lp``: the language pair of TSV files, which name none; ``directions``: the direction of metrics
    whose name does not say it, ``{name: higher_is_better}`` or ``["NAME=higher", "NAME=lower"]`` (a SpecError
    for other text; an InputError for a name none of the files has)."""
    files = [os.fspath(paths)] if isinstance(paths, (str, os.PathLike)) else [os.fspath(p) for p in paths]
    if not files:
        raise InputError("no scores file given")
    declared = declared_directions(directions)
    out = StoredScores(source=files[0] if len(files) == 1 else f"{files[0]} (and {len(files) - 1} more)")
    jsonl = [p for p in files if p.endswith(".jsonl")]
    if jsonl:
        for metrics in read_wmt25_scores(jsonl, declared).values():
            for m in metrics.values():
                out.add(m)
    for path in files:
        if path.endswith(".jsonl"):
            continue
        if score_file_level(path) is not None:
            out.add(read_mtme_stored(path, declared))
        else:
            for m in read_score_tsv(path, lp, declared).values():
                out.add(m)
    names = sorted({name for metrics in out.pairs.values() for name in metrics})
    for name, higher in declared.items():  # a direction naming no stored metric would be ignored
        if name not in names:
            raise InputError(f"direction {name}={'higher' if higher else 'lower'}: {out.source} has no stored metric "
                             f"{name!r} (its metrics: {', '.join(names[:12])}{' ...' if len(names) > 12 else ''}); "
                             "give one of those names", params=("directions",))
    return out


def choose_stored(names: Sequence[str], wanted: Sequence[str] | None, lp: str, where: str) -> list[str]:
    """The metric names ``wanted`` picks out of ``names`` (every one for None, empty or ``all``): as the
    files name them, or MTME's NAME without its -REF where one reference gives it; an InputError naming
    ``where`` otherwise."""
    if not wanted or list(wanted) == ["all"]:
        return list(names)
    out: list[str] = []
    for name in wanted:
        close = [name] if name in names else [m for m in names if m.startswith(name + "-")
                                               and "-" not in m[len(name) + 1:]]
        if len(close) > 1:
            raise InputError(f"{where}: --stored {name} names {', '.join(close)} for {lp or 'these scores'}; "
                             "give one as NAME-REF")
        if not close:
            raise InputError(f"{where}: no metric {shown(name)} for {lp or 'these scores'}; the files have "
                             f"{', '.join(names) or 'none'}")
        out += [c for c in close if c not in out]
    return out


def _recognise(path: str) -> bool:
    if score_file_level(path) is not None:
        return True
    header = tsv_header(path)  # a TSV of stored scores: system, doc_id, a column per metric, no seg_id
    if len(header) >= 3 and header[:2] == ["system", "doc_id"] and "seg_id" not in header:
        return True
    return {"language_pair", "document_id"} <= set(first_json(path))


def _read(path: str | Sequence[str], lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    return read_stored(path, lp=lp, directions=options.get("directions")).evalset(lp, metrics=options.get("metrics"))


#: The judged-data format of stored scores (``read_human(paths, format="stored", lp=..., directions=...,
#: metrics=...)``): one language pair of :func:`read_stored`, :meth:`StoredScores.evalset`.
FORMAT = HumanFormat("stored", "stored scores: WMT25 automatic-scores JSONL, MTME *.score files, a TSV",
                     _recognise, _read, ("directions", "metrics"), precedence=40)


# -- WMT25 automatic-scores JSONL ----------------------------------------------------------------------------
def _number(value: Any, where: str) -> float | None:
    """A JSON score: a finite number, or None for ``null``; an InputError for anything else."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: {json.dumps(value)} is not a number; a score is a number, or null where "
                         "it is missing")
    value = float(value)
    if not math.isfinite(value):
        raise InputError(f"{where}: {value} is not a finite number; write null where a score is missing")
    return check_magnitude(value, f"{value:g}", where, "write null")


@dataclass
class _Doc:
    doc_id: str
    domain: str
    line: int
    scores: dict[str, list[float | None]]

    @property
    def size(self) -> int:
        return len(next(iter(self.scores.values())))


def _read_wmt25_file(path: str) -> dict[str, list[_Doc]]:
    """lp -> the documents of one system's file, in file order."""
    out: dict[str, list[_Doc]] = {}
    seen: dict[tuple[str, str], int] = {}
    for lineno, where, obj in json_lines(path, read_lines(path), WMT25_LINE):
        need = f"a line of WMT25's automatic scores has {', '.join(WMT25_FIELDS)}"
        missing = [k for k in WMT25_FIELDS if k not in obj]
        if missing:
            raise field_error(where, missing[0], obj, need)
        for key in ("language_pair", "domain", "document_id"):
            string_field(obj, key, where, need, empty=False)
        lp = obj["language_pair"]
        try:
            parse_langpair(lp)
        except SpecError as exc:
            raise InputError(f"{where}, field language_pair: {exc}") from None
        doc = obj["document_id"]
        if (lp, doc) in seen:
            raise InputError(f"{where}, field document_id: document {shown(doc)} of {lp} appears again (first at line "
                             f"{seen[lp, doc]}); a file has one line per document")
        seen[lp, doc] = lineno
        ms = obj["metric_scores"]
        if not isinstance(ms, dict) or not ms:
            raise InputError(f"{where}, field metric_scores: expected an object {{metric: [scores]}} with at least "
                             "one metric")
        scores: dict[str, list[float | None]] = {}
        for name, vals in ms.items():
            f = f"{where}, field metric_scores.{name}"
            if not isinstance(vals, list) or not vals:
                raise InputError(f"{f}: expected a non-empty list of segment scores (null where missing)")
            scores[name] = [_number(v, f"{f}[{i}]") for i, v in enumerate(vals)]
        sizes = {n: len(v) for n, v in scores.items()}
        if len(set(sizes.values())) > 1:
            first = next(iter(sizes))
            other = next(n for n in sizes if sizes[n] != sizes[first])
            raise InputError(f"{where}, field metric_scores.{other}: {sizes[other]} segment scores, but "
                             f"{first} has {sizes[first]}; every metric scores each segment of the document")
        out.setdefault(lp, []).append(_Doc(doc, obj["domain"], lineno, scores))
    return out


def read_wmt25_scores(paths: Sequence[str], declared: Mapping[str, bool] | None = None
                      ) -> dict[str, dict[str, StoredMetric]]:
    """WMT25's automatic-scores files (one per system, named ``SYSTEM.jsonl``): lp -> metric ->
    :class:`StoredMetric`, language pairs and metrics in the order of first appearance, documents in the first
    system's order.  ``declared``: metric -> higher_is_better, where the name alone would not say (see
    :func:`choose_direction`).

    Per language pair every system must have the same documents, each with the same number of segments,
    and the same metrics; a system may lack a language pair altogether (it did not take part)."""
    if not paths:
        raise InputError("no scores file given")
    names: dict[str, str] = {}
    for path in paths:
        name = os.path.basename(path).rsplit(".", 1)[0]
        if name in names:
            raise InputError(f"{path}: system {shown(name)} again (also {names[name]}); WMT25's automatic scores "
                             f"are one "
                             "file per system, named after it")
        names[name] = path
    read = {name: _read_wmt25_file(path) for name, path in names.items()}
    lps = list(dict.fromkeys(lp for per in read.values() for lp in per))
    out: dict[str, dict[str, StoredMetric]] = {}
    for lp in lps:
        out[lp] = _wmt25_pair(lp, {s: per[lp] for s, per in read.items() if lp in per}, names, declared)
    return out


def _wmt25_pair(lp: str, docs: dict[str, list[_Doc]], files: dict[str, str],
                declared: Mapping[str, bool] | None) -> dict[str, StoredMetric]:
    first = majority({s: frozenset((d.doc_id, d.size) for d in ds) for s, ds in docs.items()})
    ref_docs = docs[first]
    order = [d.doc_id for d in ref_docs]
    ref_by_id = {d.doc_id: d for d in ref_docs}
    metrics = list(ref_docs[0].scores)
    ref_file = files[first]
    scores: dict[str, dict[str, list[float | None]]] = {m: {} for m in metrics}
    lines: dict[str, list[int]] = {}
    for system, sys_docs in docs.items():
        path = files[system]
        by_id = {d.doc_id: d for d in sys_docs}
        for d in sys_docs:
            where = f"{path}, line {d.line}"
            ref = ref_by_id.get(d.doc_id)
            if ref is None:
                raise InputError(f"{where}, field document_id: document {shown(d.doc_id)} of {lp} is not in {ref_file} "
                                 f"({first}); every system has the same documents")
            if d.size != ref.size:
                raise InputError(f"{where}, field metric_scores: {d.size} segment scores for document "
                                 f"{shown(d.doc_id)} of {lp}, but {ref_file}, line {ref.line} has {ref.size}; every "
                                 "system has the same segments")
            if d.domain != ref.domain:
                raise InputError(f"{where}, field domain: {shown(d.domain)} for document {shown(d.doc_id)} of "
                                 f"{lp}, but "
                                 f"{ref_file}, line {ref.line} has {shown(ref.domain)}")
            extra = [m for m in d.scores if m not in scores]
            lacking = [m for m in metrics if m not in d.scores]
            if extra or lacking:
                what = (f"scores of {extra[0]}, which {ref_file}, line {ref_docs[0].line} lacks" if extra
                        else f"no scores of {lacking[0]}, which {ref_file}, line {ref_docs[0].line} has")
                raise InputError(f"{where}, field metric_scores: {what} for {lp}; every system and document of a "
                                 "language pair has the same metrics")
        absent = [doc for doc in order if doc not in by_id]
        if absent:
            raise InputError(f"{path}: no line for document {shown(absent[0])} of {lp} (field document_id), which "
                             f"{ref_file}, line {ref_by_id[absent[0]].line} has; every system has the same "
                             "documents")
        for m in metrics:
            scores[m][system] = [v for doc in order for v in by_id[doc].scores[m]]
        lines[system] = [by_id[doc].line for doc in order for _ in range(by_id[doc].size)]
    doc_ids = [doc for doc in order for _ in range(ref_by_id[doc].size)]
    used = {s: files[s] for s in docs}
    fp = file_fingerprint([used[s] for s in sorted(used)])
    out: dict[str, StoredMetric] = {}
    for m in metrics:
        higher, how = choose_direction(m, scores[m], lines, used, declared)
        out[m] = StoredMetric(m, lp, scores[m], lines, used, fp, "wmt25-jsonl", higher, how, "seg", doc_ids)
    return out


# -- TSV ---------------------------------------------------------------------------------------------------
def read_score_tsv(path: str, lp: str | None = None,
                   declared: Mapping[str, bool] | None = None) -> dict[str, StoredMetric]:
    """A TSV of segment scores (see the module docstring): metric -> :class:`StoredMetric` (language pair
    ``lp``: the file does not say).  Every system must have the same documents with the same number of
    segments, in the same order."""
    rows = read_lines(path)
    if not rows:
        raise InputError(f"{path}: empty file; the first line is a header system<TAB>doc_id<TAB>METRIC")
    header = rows[0].split("\t")
    if len(header) < 3 or header[0] != "system" or header[1] != "doc_id" or not all(h.strip() for h in header[2:]):
        raise InputError(f"{path}, line 1: the header must be system<TAB>doc_id<TAB>METRIC[<TAB>METRIC...] (each "
                         f"score column named), found {shown(rows[0])}")
    metrics = header[2:]
    twice = sorted({m for m in metrics if metrics.count(m) > 1})
    if twice:
        raise InputError(f"{path}, line 1: column {shown(twice[0])} appears twice in the header")
    scores: dict[str, dict[str, list[float | None]]] = {m: {} for m in metrics}
    lines: dict[str, list[int]] = {}
    docs: dict[str, list[str]] = {}
    for lineno, row in enumerate(rows[1:], 2):
        if not row.strip():
            continue
        parts = row.split("\t")
        where = f"{path}, line {lineno}"
        if len(parts) != len(header):
            raise InputError(f"{where}: {len(parts)} fields, the header has {len(header)} "
                             f"({', '.join(header)})")
        system, doc = parts[0].strip(), parts[1].strip()
        if not system:
            raise InputError(f"{where}, field system: empty; every line names its system")
        if not doc:
            raise InputError(f"{where}, field doc_id: empty; every line names its document")
        ids = docs.setdefault(system, [])
        if ids and ids[-1] != doc and doc in ids:
            raise InputError(f"{where}, field doc_id: document {shown(doc)} of system {shown(system)} reappears after "
                             "another document; a document's segments are consecutive")
        ids.append(doc)
        lines.setdefault(system, []).append(lineno)
        for m, text in zip(metrics, parts[2:]):
            scores[m].setdefault(system, []).append(_cell(text, f"{where}, field {m}"))
    if not docs:
        raise InputError(f"{path}: no scores after the header")
    first = majority({system: tuple(runs(ids)) for system, ids in docs.items()})
    ref = runs(docs[first])
    agree = sum(runs(ids) == ref for ids in docs.values()) - 1
    others = f" (and {agree} other system{'s' if agree != 1 else ''})" if agree else ""
    for system, ids in docs.items():
        mine = runs(ids)
        if mine == ref:
            continue
        for k, ((d, s, e), (rd, rs, re_)) in enumerate(zip(mine, ref)):
            if d != rd or e - s != re_ - rs:
                raise InputError(f"{path}, line {lines[system][s]}, field doc_id: system {shown(system)} has document "
                                 f"{shown(d)} ({_segments(e - s)}) as its document {k + 1}, where system {shown(first)}"
                                 f"{others} has {shown(rd)} ({_segments(re_ - rs)}, line {lines[first][rs]}); every "
                                 "system has the same documents and segments in the same order")
        line = lines[system][-1]
        raise InputError(f"{path}, line {line}, field doc_id: system {shown(system)} has {len(mine)} documents, "
                         f"system {shown(first)}{others} has {len(ref)}; every system has the same documents")
    fp = file_fingerprint([path])
    files = {s: path for s in docs}
    out: dict[str, StoredMetric] = {}
    for m in metrics:
        higher, how = choose_direction(m, scores[m], lines, files, declared)
        out[m] = StoredMetric(m, lp, scores[m], lines, files, fp, "tsv", higher, how, "seg", list(docs[first]))
    return out
