"""The WMT25/26 General MT (GenMT) JSONL: segments, system outputs, references and ESA human scores.

Two layouts are read, as the public code that writes and reads them has them
(wmt-conference/wmt25-general-mt ``humeval/01-prepare_waves.py`` and ``humeval/04-collect_humeval.py``):

* **segment lines** (``wmt25-genmt-humeval.jsonl``): one JSON object per segment (a paragraph of a
  document) with ``doc_id``, ``src_text`` (the source segment), ``tgt_text`` ({system: its output,
  ``refA``: the reference where there is one}) and optionally ``scores`` ({system: its human judgement});
  the same lines without ``scores`` are the plain GenMT data to score.
* **document lines** (``wmt25-genmt.jsonl``): one object per document with ``refs`` ({``refA``:
  {``ref``: text}}, possibly empty); ``src_text``, the reference and the optional ``tgt_text``
  ({system: whole document}) are split into segments at blank lines (``"\\n\\n"``), as the collector
  splits them.  Document lines carry no human scores.

``doc_id`` is ``LP_#_DOMAIN_#_DOC`` (e.g. ``en-ko_KR_#_news_#_doc12``); a segment line may carry the
segment's number as a fourth part (``..._#_DOC_#_3``, what the collector writes), and a document's
segments are then ordered by it; without it they are in file order.  The language pair keeps its
locale suffix (``en-ko_KR``, ``cs-de_DE``, ``en-sr_Cyrl_RS``); its target language is the part before
the first underscore (``ko``).

A human judgement (``scores[system]``) is read by :mod:`docmetrics.formats.esa` (its shapes, scores and spans).

Everything a user can get wrong is an :class:`~docmetrics.values.errors.InputError` naming the file,
the line and the field; nothing here prints or loads a model.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..values.errors import InputError, shown
from ..values.io import read_lines
from ..values.jsonl import field_error, json_lines, string_field
from ..values.testset import TestSet
from .base import SPAN_SEVERITIES, EvalSet, HumanFormat, SpanGold, SpanItem, bare_pair, first_json, match_pair, one_pair
from .esa import WMT26_ERROR_FREE_THRESHOLD, Judgement, read_judgement
from .human_tsv import HumanScores
from .judgements import exact_mean, from_genmt

__all__ = ["REFERENCE", "GenmtDocument", "GenmtSegment", "GenmtPair", "GenmtData", "read_genmt", "target_language",
           "esa_scores", "gold_spans"]

#: The key of the reference among ``tgt_text`` (a human post-edit in WMT25/26).
REFERENCE = "refA"
#: The separator of the parts of a GenMT doc id.
SEP = "_#_"
_PAIR = re.compile(r"^([A-Za-z]{2,3})(?:_[A-Za-z0-9]+)*-([A-Za-z]{2,3})(?:_[A-Za-z0-9]+)*$")



def target_language(pair: str) -> str:
    """``"en-sr_Cyrl_RS"`` -> ``"sr"``: the target side before its first underscore, lower case."""
    return bare_pair(pair).split("-")[1]


@dataclass(frozen=True)
class GenmtSegment:
    """A segment of a language pair: its document, its 1-based position there, the line it was read
    from (a document line gives all its segments its own line), its source text, and the ``doc_id`` of
    that line as written (``LP_#_DOMAIN_#_DOC_#_LINE`` in the humeval release: what span predictions name)."""

    doc_id: str
    position: int
    line: int
    source: str
    line_id: str = ""


@dataclass(frozen=True)
class GenmtDocument:
    """A document of a language pair: segments ``start .. end - 1`` of the pair (0-based)."""

    doc_id: str
    domain: str
    start: int
    end: int

    def __len__(self) -> int:
        return self.end - self.start


@dataclass
class GenmtPair:
    """One language pair of a GenMT file: documents and segments in order, every output per segment
    (systems and the reference, ``outputs[name][i]`` for segment ``i``; None where the file gives none:
    only possible for the reference), and the human judgements (``human[system][i]``, None where
    the segment was not judged)."""

    path: str
    name: str
    documents: list[GenmtDocument]
    segments: list[GenmtSegment]
    outputs: dict[str, list[str | None]]
    human: dict[str, list[Judgement | None]] = field(default_factory=dict)

    @property
    def source_language(self) -> str:
        return self.lang.split("-")[0]

    @property
    def target_language(self) -> str:
        return self.lang.split("-")[1]

    @property
    def lang(self) -> str:
        """``src-tgt`` without locales (``en-ko``), what ``-l`` and a metric's ``lang=`` take."""
        return bare_pair(self.name)

    @property
    def systems(self) -> list[str]:
        """The system names (every output but the reference), in the order of first appearance."""
        return [name for name in self.outputs if name != REFERENCE]

    @property
    def domains(self) -> list[str]:
        return list(dict.fromkeys(d.domain for d in self.documents))

    @property
    def reference(self) -> list[str] | None:
        """The reference (``refA``) of every segment, or None unless every segment has one."""
        ref = self.outputs.get(REFERENCE)
        if ref is None or any(r is None for r in ref):
            return None
        return [r for r in ref if r is not None]

    @property
    def sources(self) -> list[str]:
        return [s.source for s in self.segments]

    @property
    def doc_ids(self) -> list[str]:
        """The doc id of every segment (line-parallel with :attr:`sources`)."""
        return [s.doc_id for s in self.segments]

    def select(self, domains: Sequence[str] | None = None) -> GenmtPair:
        """This pair restricted to the documents of ``domains`` (all when None); an unknown domain is
        an InputError naming the file and the domains there are."""
        if domains is None:
            return self
        known = self.domains
        if not domains:
            raise InputError(f"{self.path}: no domain given for language pair {self.name}; it has "
                             f"{', '.join(known)}", params=("domains",))
        unknown = [d for d in domains if d not in known]
        if unknown:
            raise InputError(f"{self.path}: language pair {self.name} has no domain "
                             f"{', '.join(map(repr, unknown))} (field doc_id, its second part); it has "
                             f"{', '.join(known)}", params=("domains",))
        wanted = set(domains)
        keep = [d for d in self.documents if d.domain in wanted]
        index = [i for d in keep for i in range(d.start, d.end)]
        docs, start = [], 0
        for d in keep:
            docs.append(GenmtDocument(d.doc_id, d.domain, start, start + len(d)))
            start += len(d)
        return GenmtPair(self.path, self.name, docs, [self.segments[i] for i in index],
                         {k: [v[i] for i in index] for k, v in self.outputs.items()},
                         {k: [v[i] for i in index] for k, v in self.human.items()})

    def testset(self, systems: Sequence[str] | None = None, *, reference: bool = False,
                include_reference: bool = False) -> TestSet:
        """The pair as a :class:`~docmetrics.values.testset.TestSet`: every system (or ``systems``),
        the source, the doc ids and, with ``reference``, the reference (an InputError naming the first
        line without one when a segment lacks it).  ``include_reference`` also scores the reference
        as a system named ``refA`` (as WMT25 had it judged)."""
        names = self._systems(systems)
        if include_reference and REFERENCE not in names:
            self._reference_or_error()
            names.append(REFERENCE)
        if not names:
            raise InputError(f"{self.path}: language pair {self.name} has no system output (field tgt_text); "
                             "give a file whose lines have tgt_text")
        ref = self._reference_or_error() if reference else None
        where = f"{self.path} ({self.name})"
        label = {"source": f"{where} src_text", "reference": f"{where} tgt_text.{REFERENCE}",
                 "doc ids": f"{where} doc_id"}
        label.update({n: f"{where} tgt_text.{n}" for n in names})
        return TestSet({n: [t if t is not None else "" for t in self.outputs[n]] for n in names},
                       self.sources, ref, self.doc_ids, names=label, lp=self.name)

    def human_scores(self, systems: Sequence[str] | None = None) -> dict[str, list[float | None]]:
        """``system -> [ESA score or None per segment]`` (in segment order: the human scores
        :func:`docmetrics.judging.evaluate.evaluate_wmt` takes as ``human_seg``); systems
        without any judgement are left out."""
        out: dict[str, list[float | None]] = {}
        for name in self._systems(systems, reference_too=True):
            judged = self.human.get(name)
            if judged is not None and any(j is not None and j.score is not None for j in judged):
                out[name] = [j.score if j is not None else None for j in judged]
        return out

    def error_free(self, threshold: float = WMT26_ERROR_FREE_THRESHOLD,
                   score_only_threshold: float = 100.0) -> dict[str, list[bool | None]]:
        """``system -> [gold error-free flag or None per segment]`` (:meth:`Judgement.error_free`), for every judged
        output (the reference's too)."""
        return {name: [j.error_free(threshold, score_only_threshold) if j is not None else None for j in
                       self.human[name]] for name in [*self.systems, REFERENCE] if name in self.human}

    def _systems(self, systems: Sequence[str] | None, reference_too: bool = False) -> list[str]:
        if systems is None:
            return self.systems + ([REFERENCE] if reference_too and REFERENCE in self.outputs else [])
        unknown = [s for s in systems if s not in self.outputs]
        if unknown:
            raise InputError(f"{self.path}: language pair {self.name} has no system "
                             f"{', '.join(map(repr, unknown))} (field tgt_text); it has "
                             f"{', '.join(self.outputs) or 'none'}", params=("systems",))
        return list(dict.fromkeys(systems))

    def _reference_or_error(self) -> list[str]:
        ref = self.outputs.get(REFERENCE)
        if ref is None:
            raise InputError(f"{self.path}: language pair {self.name} has no reference (field "
                             f"tgt_text.{REFERENCE}); use a reference-free metric", params=("reference",))
        missing = next((i for i, r in enumerate(ref) if r is None), None)
        if missing is not None:
            seg = self.segments[missing]
            raise InputError(f"{self.path}, line {seg.line}, field tgt_text.{REFERENCE}: segment {seg.position} "
                             f"of document {shown(seg.doc_id)} has no reference, but {sum(r is not None for r in ref)} "
                             f"of the {len(ref)} segments of {self.name} have one; a reference-based metric "
                             "needs it for every segment", params=("reference",))
        return [r for r in ref if r is not None]


@dataclass
class GenmtData:
    """A GenMT file read: its language pairs in the order of first appearance, and what the reader
    found odd but read (``warnings``: for the caller to show)."""

    path: str
    pairs: dict[str, GenmtPair]
    warnings: list[str] = field(default_factory=list)

    def language_pairs(self) -> list[str]:
        return list(self.pairs)

    def pair(self, name: str) -> GenmtPair:
        """The language pair ``name``: as in the file (``en-ko_KR``), or without locales (``en-ko``)
        where that names one pair.  An unknown or ambiguous name is an InputError listing the pairs."""
        wanted = name.strip().lower()
        return self.pairs[match_pair(name, list(self.pairs), self.path, "field doc_id, its first part",
                                     lambda p: p.lower() == wanted or self.pairs[p].lang == wanted)]


def esa_scores(pair: GenmtPair, *, include_reference: bool = False) -> HumanScores | None:
    """The pair's ESA scores as the meta-evaluation reads human scores: per (system, segment) the mean of its
    annotations, keyed by (doc id, position in the document), a system's score the exact mean of its judged
    segments; the reference (``refA``) among the systems, marked human, with ``include_reference``; every judged
    output's error spans (the reference's too), where it has some.  None where no system of the pair has a score."""
    scores = pair.human_scores(pair.systems + ([REFERENCE] if include_reference else []))
    if not scores:
        return None
    keys = [(seg.doc_id, str(seg.position)) for seg in pair.segments]
    segments = {name: {k: float(v) for k, v in zip(keys, row) if v is not None} for name, row in scores.items()}
    positions = {k: int(k[1]) for k in keys}
    system = {name: exact_mean(list(v.values())) for name, v in segments.items() if v}
    humans = {REFERENCE} if include_reference and REFERENCE in system else set()
    spans = {name: {k: list(j.errors) for k, j in zip(keys, row) if j is not None and j.errors}
             for name, row in pair.human.items()}
    return HumanScores(pair.path, "ESA", system, segments, positions, humans,
                       spans={name: by_key for name, by_key in spans.items() if by_key})


# -- reading ---------------------------------------------------------------------------------------------
@dataclass
class _Row:
    """One segment as read, before its pair is assembled."""

    line: int
    pair: str
    domain: str
    doc: str
    number: int | None
    source: str
    outputs: dict[str, str]
    human: dict[str, Judgement]
    #: the line's doc_id as written
    line_id: str = ""


#: What a line of a GenMT file holds (the messages of :func:`~docmetrics.values.jsonl.json_lines`).
GENMT_LINE = "one JSON object with doc_id, src_text, tgt_text (a GenMT segment or document)"


def read_genmt(path: str | os.PathLike[str]) -> GenmtData:
    """Read a GenMT JSONL file (either layout, see the module docstring); InputError naming the file,
    line and field on anything malformed."""
    name = str(path)
    rows: list[_Row] = []
    for i, where, obj in json_lines(name, read_lines(path), GENMT_LINE):
        rows.extend(_document_rows(obj, where, i) if "refs" in obj else [_segment_row(obj, where, i)])
    if not rows:
        raise InputError(f"{name}: no line with a segment; a GenMT file has one JSON object per line")
    found: list[str] = []
    return GenmtData(name, _assemble(name, rows, found), found)


def _parse_doc_id(obj: Mapping[str, Any], where: str, segment_number: bool) -> tuple[str, str, str, int | None]:
    """(pair, domain, document id ``LP_#_DOMAIN_#_DOC``, segment number or None)."""
    doc_id = string_field(obj, "doc_id", where, "give LP_#_DOMAIN_#_DOC, e.g. en-de_DE_#_news_#_doc1", number=True)
    parts = doc_id.split(SEP)
    most = 4 if segment_number else 3
    if not 3 <= len(parts) <= most or not all(p.strip() == p and p for p in parts):
        shape = "LP_#_DOMAIN_#_DOC or LP_#_DOMAIN_#_DOC_#_SEGMENT" if segment_number else "LP_#_DOMAIN_#_DOC"
        raise InputError(f"{where}, field doc_id: {shown(doc_id)} is not {shape} (parts joined by '{SEP}', none "
                         "empty or padded), e.g. en-de_DE_#_news_#_doc1")
    if not _PAIR.match(parts[0]):
        raise InputError(f"{where}, field doc_id: {shown(doc_id)} does not start with a language pair such as "
                         "en-de_DE or en-sr_Cyrl_RS")
    number = None
    if len(parts) == 4:
        if not parts[3].isdigit():
            raise InputError(f"{where}, field doc_id: the segment number {shown(parts[3])} of {shown(doc_id)} is not a "
                             "non-negative integer")
        number = int(parts[3])
    return parts[0], parts[1], SEP.join(parts[:3]), number


def _segment_row(obj: Mapping[str, Any], where: str, line: int) -> _Row:
    pair, domain, doc, number = _parse_doc_id(obj, where, segment_number=True)
    source = string_field(obj, "src_text", where, "every line needs the source segment (src_text)")
    outputs = _outputs(obj, where)
    scores = obj.get("scores")
    human: dict[str, Judgement] = {}
    if scores is not None:
        if not isinstance(scores, dict):
            raise field_error(where, "scores", obj, 'give {"SYSTEM": {"human": ESA score, "errors": [...]}, ...}',
                              kind="an object")
        for system, raw in scores.items():
            if system not in outputs:
                raise InputError(f"{where}, field scores.{system}: system {shown(system)} has human scores but no "
                                 f"output in tgt_text (which has {', '.join(outputs) or 'none'})")
            judged = read_judgement(raw, f"{where}, field scores.{system}", line, outputs[system])
            if judged is not None:
                human[system] = judged
    return _Row(line, pair, domain, doc, number, source, outputs, human, str(obj["doc_id"]))


def _outputs(obj: Mapping[str, Any], where: str) -> dict[str, str]:
    """The line's tgt_text: system -> its translation."""
    value = obj.get("tgt_text")
    if not isinstance(value, dict):
        raise field_error(where, "tgt_text", obj, 'every line needs the outputs as {"SYSTEM": "translation", ...} '
                          "(refA: the reference)", kind="an object")
    for system, text in value.items():
        if not system.strip():
            raise InputError(f"{where}, field tgt_text: a system with an empty name")
        if not isinstance(text, str):
            raise InputError(f"{where}, field tgt_text.{system}: {json.dumps(text)[:60]} is not a string "
                             '(an empty translation is "")')
    return dict(value)


def _document_rows(obj: Mapping[str, Any], where: str, line: int) -> list[_Row]:
    """A document line of the plain GenMT release: its segments (split at blank lines)."""
    pair, domain, doc, _ = _parse_doc_id(obj, where, segment_number=False)
    if "scores" in obj:
        raise InputError(f"{where}, field scores: a document line (one with refs) has no per-segment human "
                         "scores; human scores come in segment lines (wmt25-genmt-humeval.jsonl)")
    source = string_field(obj, "src_text", where, "every line needs the source document (src_text)").split("\n\n")
    refs = obj["refs"]
    if not isinstance(refs, dict):
        raise field_error(where, "refs", obj, 'give {"refA": {"ref": "..."}} (or {} without a reference)',
                          kind="an object")
    texts: dict[str, str] = {}
    for key, value in refs.items():
        if not isinstance(value, dict) or not isinstance(value.get("ref"), str):
            raise InputError(f"{where}, field refs.{key}.ref: missing or not a string")
        if key == REFERENCE:
            texts[REFERENCE] = value["ref"]
    if "tgt_text" in obj:
        texts.update({k: v for k, v in _outputs(obj, where).items() if k != REFERENCE})
    split = {k: v.split("\n\n") for k, v in texts.items()}
    for key, parts in split.items():
        if len(parts) != len(source):
            field_name = f"refs.{REFERENCE}.ref" if key == REFERENCE else f"tgt_text.{key}"
            raise InputError(f"{where}, field {field_name}: {len(parts)} segments (paragraphs split at blank "
                             f"lines), but src_text has {len(source)}; every output needs one per source segment")
    return [_Row(line, pair, domain, doc, k, src, {name: parts[k] for name, parts in split.items()}, {},
                 str(obj["doc_id"]))
            for k, src in enumerate(source)]


def _assemble(path: str, rows: list[_Row], found: list[str]) -> dict[str, GenmtPair]:
    """Group rows into pairs and documents (documents in order of first appearance, segments by their
    number where the doc ids carry one, else in file order) and check that every system has an output
    for every segment of its pair.  A document whose lines reappear after another document's is read
    as one document, and said in ``found``."""
    by_pair: dict[str, dict[str, list[_Row]]] = {}
    last: dict[str, str] = {}
    for row in rows:
        docs = by_pair.setdefault(row.pair, {})
        if row.doc in docs and last[row.pair] != row.doc:
            order = "by its segment numbers" if row.number is not None else "in file order"
            found.append(f"{path}, line {row.line}: document {shown(row.doc)} reappears after document "
                         f"{shown(last[row.pair])}; its lines are read as one document ({order}), not as a new one")
        docs.setdefault(row.doc, []).append(row)
        last[row.pair] = row.doc
    pairs: dict[str, GenmtPair] = {}
    for pair, docs in by_pair.items():
        ordered: list[_Row] = []
        documents: list[GenmtDocument] = []
        for doc, segs in docs.items():
            numbered = [r.number is not None for r in segs]
            if any(numbered) and not all(numbered):
                bad = segs[numbered.index(not numbered[0])]
                raise InputError(f"{path}, line {bad.line}, field doc_id: document {shown(doc)} has segment numbers "
                                 "on some lines only; give every line of a document its number, or none")
            if all(numbered):
                seen: dict[int, int] = {}
                for r in segs:
                    if r.number in seen:
                        raise InputError(f"{path}, line {r.line}, field doc_id: segment {r.number} of document "
                                         f"{shown(doc)} is given twice (also line {seen[r.number]})")
                    seen[r.number] = r.line  # type: ignore[index]
                segs = sorted(segs, key=lambda r: r.number)  # type: ignore[arg-type,return-value]
            documents.append(GenmtDocument(doc, segs[0].domain, len(ordered), len(ordered) + len(segs)))
            ordered.extend(segs)
        names = list(dict.fromkeys(n for r in ordered for n in r.outputs))
        for name in names:
            if name == REFERENCE:
                continue  # a reference may be missing for some documents: refused only where it is needed
            have = sum(name in r.outputs for r in ordered)
            if have != len(ordered):
                first = next(r for r in ordered if name not in r.outputs)
                raise InputError(
                    f"{path}, line {first.line}, field tgt_text: system {shown(name)} has no output for this segment "
                    f"of {shown(first.doc)}; it has {have} segments of {pair} where the pair has {len(ordered)}: "
                    "every system needs one output per segment")
        segments, position, current = [], 0, None
        for r in ordered:
            position = position + 1 if r.doc == current else 1
            current = r.doc
            segments.append(GenmtSegment(r.doc, position, r.line, r.source, r.line_id))
        outputs = {n: [r.outputs.get(n) for r in ordered] for n in names}
        human = {n: [r.human.get(n) for r in ordered] for n in names
                 if any(n in r.human for r in ordered)}
        pairs[pair] = GenmtPair(path, pair, documents, segments, outputs, human)
    return pairs


# -- the format ---------------------------------------------------------------------------------------------
def is_genmt(path: str) -> bool:
    """A JSONL file whose first line has ``doc_id`` and ``src_text`` and no ``src_lang`` (WMT26's)."""
    obj = first_json(path)
    return {"doc_id", "src_text"} <= set(obj) and "src_lang" not in obj


def read_evalset(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    """One language pair of a GenMT file: its test set (``domains``: those selected; ``include_reference``: the
    reference scored as a system; ``reference``: ``refA``, insisted on), ESA scores, judgements and (through the
    registry) error spans."""
    data = read_genmt(path)
    one_pair(path, data.language_pairs(), lp)
    return _evalset(data, path, lp if lp is not None else data.language_pairs()[0], options)


def read_pairs(path: str, lps: Sequence[str] | None, options: Mapping[str, Any]) -> list[EvalSet]:
    """The language pairs ``lps`` (None: every one) of a GenMT file read once, each as :func:`read_evalset`."""
    data = read_genmt(path)
    return [_evalset(data, path, lp, options) for lp in (lps or data.language_pairs())]


def _evalset(data: GenmtData, path: str, lp: str, options: Mapping[str, Any]) -> EvalSet:
    full = data.pair(lp)
    pair = full.select(options.get("domains"))
    include = bool(options.get("include_reference", False))
    if include and REFERENCE not in pair.outputs:
        raise InputError(f"{path}: no reference ({REFERENCE}) for {pair.name} to score as a system "
                         "(include_reference=True)", params=("include_reference",))
    reference = options.get("reference")
    if reference is not None and reference != REFERENCE:
        raise InputError(f"{path}: no reference {shown(reference)}; a GenMT file carries one reference per segment, "
                         f"{REFERENCE}", params=("reference",))
    testset = pair.testset(reference=bool(reference) or pair.reference is not None, include_reference=include)
    notes = list(data.warnings)
    if REFERENCE in pair.human and not include:  # the reference judged as a system, not scored as one
        judged = sum(j is not None and j.score is not None for j in pair.human[REFERENCE])
        notes.append(f"{REFERENCE} (the reference) was judged as a system in {path} ({judged} segments of "
                     f"{pair.name}); it is not scored as one, since reference-based metrics score against it: "
                     "include_reference=True scores it too (reference-free metrics only)")
    return EvalSet(path, "genmt", pair.name, testset, esa_scores(pair, include_reference=include),
                   notes=tuple(notes), raw=pair, make_judgements=lambda: from_genmt(pair), domains=tuple(full.domains))


def gold_spans(data: EvalSet) -> SpanGold:
    """The human error spans of a GenMT EvalSet (its pair, maybe restricted to some domains; ``data.domains``
    names them all), one annotation per item: an item judged by several annotators is left out (their spans
    come merged), as WMT25's dev set takes an item's first annotation.  A prediction line names an item by its
    ``doc_id`` as the file writes it (with ``segment``, its position, where doc ids carry no segment number)."""
    pair: GenmtPair = data.raw
    counts = Counter(seg.line_id for seg in pair.segments)
    items: dict[tuple[str, ...], SpanItem] = {}
    positions, lines = {}, []
    for i, seg in enumerate(pair.segments):
        line_id = seg.line_id
        key_id = positions[(seg.doc_id, seg.position)] = (line_id if counts[line_id] == 1 else
                                                          f"{seg.doc_id}#{seg.position}")
        lines.append((key_id,))
        for system, texts in pair.outputs.items():
            judged = pair.human.get(system, [None] * len(pair.segments))[i]
            name = f"system {system!r}, doc_id {line_id!r}" + (f", segment {seg.position}" if counts[line_id] > 1
                                                               else "")
            why, gold = "", None
            if judged is None:
                why = "items not judged by the humans"
            elif judged.errors is None:
                why = "items judged without span annotation"
            elif len(judged.scores) > 1:
                why = "items judged by several annotators (their spans come merged: no one annotation to compare)"
            else:
                gold = judged.errors
                bad = next((e for e in gold if e.severity not in SPAN_SEVERITIES), None)
                if bad is not None:  # the official scorer stops on it
                    raise InputError(f"{pair.path}, line {judged.line}, field scores.{system}: an error span of "
                                     f"severity {bad.severity!r}, which the span scorer does not know "
                                     f"({', '.join(SPAN_SEVERITIES)})")
            items[(system, key_id)] = SpanItem(system, name, len(texts[i] or ""), gold, why)
    if not any(item.gold is not None for item in items.values()):
        raise InputError(f"{pair.path}: language pair {pair.name} has no human error spans (field scores, its "
                         "errors); span judging needs the humeval file")
    selected, every = pair.domains, data.domains or pair.domains

    def locate(obj: Mapping[str, Any], system: str, values: list[str], where: str, skipped: Any) -> list[str] | None:
        """A prediction line's ``doc_id`` (with ``segment``, its position, where doc ids carry no segment number);
        None for a line of another language pair or of a domain not selected (counted)."""
        parts = values[0].split(SEP)
        doc = SEP.join(parts[:3])
        if len(parts) >= 3 and parts[0] not in (pair.name, pair.lang):
            skipped[f"lines of other language pairs than {pair.name}"] += 1
            return None
        if len(parts) >= 3 and parts[1] in every and parts[1] not in selected:
            skipped["lines of domains not selected"] += 1
            return None
        if "segment" in obj:
            pos = obj["segment"]
            if isinstance(pos, bool) or not isinstance(pos, int):
                raise InputError(f"{where}, field segment: {json.dumps(pos)[:40]} is not a 1-based position")
            if (doc, pos) not in positions:
                raise InputError(f"{where}, field segment: document {doc!r} of {pair.path} has no segment {pos}")
            return [positions[(doc, pos)]]
        if len(parts) == 3 and (system, values[0]) not in items and any(k[0] == doc for k in positions):
            raise InputError(f"{where}, field segment: missing; the lines of {pair.path} name documents, not "
                             "segments: give the segment's 1-based position in its document (segment)")
        return values

    return SpanGold(pair.path, pair.name, ("doc_id",), items,
                    f"the ESA error spans of {pair.path} ({pair.name}, field scores: one annotation per item)",
                    [], lines, locate)


FORMAT = HumanFormat("genmt", "the WMT24/25 GenMT/ESA JSONL as released", is_genmt, read_evalset,
                     ("domains", "include_reference", "reference"), precedence=30, choices={"reference": (REFERENCE,)},
                     spans=gold_spans, read_pairs=read_pairs)
