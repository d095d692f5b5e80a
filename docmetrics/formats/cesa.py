"""WMT26's human evaluation, contrastive ESA (cESA), as docmetrics reads it: a documented stand-in.

WMT26 collected its judgements with the Pearmut tool's "Contrastive Error Span Annotation" protocol, an
annotator scoring several systems' translations of one document side by side (0-100, with error spans).  The
release (wmt-conference/wmt26-general-mt, README at 1fa5211) does not publish the layout of those annotations:
its ``annotations.json`` link is "TODO" and the data is loaded into Pearmut.  So this format is a stand-in in the
release's own terms, one JSON object a line, one line per judgement of one system's translation of one document::

    {"doc_id": "wmt26_###_news_###_eng_Latn_###_ces_Latn_###_12", "system": "GPT 5.5", "score": 84,
     "errors": [{"start_i": 10, "end_i": 17, "severity": "minor"}], "annotator": "a1"}

``doc_id``   the document, as the release's test file writes it (``SET_###_DOMAIN_###_SRCLANG_###_TGTLANG_###_DOC``);
             its language pair is ``SRCLANG-TGTLANG`` as the WMT26 reader names it (``eng_Latn-ces_Latn``)
``system``   the system, as ``data/systems/<system>.jsonl`` names it
``score``    the cESA score, a number from 0 to 100 (higher is better)
``errors``   optional: the error spans, each ``{"start_i", "end_i", "severity"}`` (character offsets in the
             system's ``hypothesis``, its paragraphs joined by a newline, ``0 <= start_i <= end_i``; severity
             ``minor`` or ``major``), as WMT25's ESA release writes a span
``annotator`` optional: who judged (a string); kept, not used

A (document, system) judged more than once keeps each score as an annotation of that item (human clusters read
them as waves); the system score is the mean over documents of each document's mean, as WMT26's
``02-analyze_results.py`` averages its items.  :func:`read_evalset` gives the judgements (one item a document,
its domain from ``doc_id``) and the system scores; with ``test_file=`` (the release's ``data/wmt26-genmt.jsonl``)
and ``systems=`` (``data/systems``), also the texts, read by :mod:`docmetrics.formats.wmt26`, so that metrics can
be scored and meta-evaluated at the system level, and the error spans (:func:`gold_spans`) judge span predictions.
Every mistake is an InputError naming the file, the line and the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..values.errors import InputError, shown
from ..values.io import read_lines
from ..values.jsonl import field_error, json_lines, string_field
from .base import EvalSet, HumanFormat, Span, SpanGold, SpanItem, first_json, match_pair, one_pair, span_objects
from .human_tsv import HumanScores
from .judgements import exact_mean, from_rows
from .wmt26 import SEP, iso_pair, read_wmt26

__all__ = ["SEVERITIES", "CesaJudgement", "read_cesa", "is_cesa", "read_evalset", "gold_spans", "FORMAT"]

#: The severities a cESA error span takes.
SEVERITIES = ("minor", "major")
_LINE = "one JSON object with doc_id, system, score (0-100) and errors (a cESA judgement)"


@dataclass(frozen=True)
class CesaJudgement:
    """One line: a system's translation of a document judged; ``pair``, ``domain``: from ``doc_id``."""

    doc_id: str
    pair: str
    domain: str
    system: str
    score: float
    errors: tuple[Span, ...] | None
    annotator: str | None
    line: int


def _doc_id(obj: Mapping[str, Any], where: str) -> tuple[str, str, str]:
    """(doc_id, its language pair, its domain)."""
    doc_id = string_field(obj, "doc_id", where, "every line names its document as the WMT26 test file does",
                          empty=False)
    parts = doc_id.split(SEP, 4)
    if len(parts) != 5 or not all(p.strip() == p and p for p in parts):
        raise InputError(f"{where}, field doc_id: {shown(doc_id)} is not SET{SEP}DOMAIN{SEP}SRCLANG{SEP}TGTLANG{SEP}"
                         f"DOC, as the WMT26 test file writes a document's id")
    return doc_id, f"{parts[2]}-{parts[3]}", parts[1]


def _score(obj: Mapping[str, Any], where: str) -> float:
    value = obj.get("score")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise field_error(where, "score", obj, "every line gives the cESA score, 0 to 100", kind="a number")
    if not 0 <= value <= 100:
        raise InputError(f"{where}, field score: {value} is outside 0..100, cESA's scale")
    return float(value)


def _errors(obj: Mapping[str, Any], where: str) -> tuple[Span, ...] | None:
    raw = obj.get("errors")
    if raw is None:
        return None
    out = []
    for at, span in span_objects(raw, f"{where}, field errors"):
        start, end, severity = span.get("start_i"), span.get("end_i"), span.get("severity")
        if any(isinstance(v, bool) or not isinstance(v, int) for v in (start, end)) or not 0 <= start <= end:
            raise InputError(f"{at}: start_i {shown(start)}, end_i {shown(end)} are not character offsets "
                             "0 <= start_i <= end_i")
        if severity not in SEVERITIES:
            raise InputError(f"{at}, severity: {shown(severity)} is not one of {', '.join(SEVERITIES)}")
        out.append(Span(start, end, severity))
    return tuple(out)


def read_cesa(path: str) -> list[CesaJudgement]:
    """Every judgement of a cESA file, checked (see the module docstring)."""
    out = []
    for i, where, obj in json_lines(path, read_lines(path), _LINE):
        doc_id, pair, domain = _doc_id(obj, where)
        system = string_field(obj, "system", where, "every line names its system as data/systems/<system>.jsonl "
                              "does", empty=False)
        annotator = string_field(obj, "annotator", where, "an annotator is named by a string", null=True) \
            if "annotator" in obj else None
        out.append(CesaJudgement(doc_id, pair, domain, system, _score(obj, where), _errors(obj, where), annotator, i))
    if not out:
        raise InputError(f"{path}: no judgement; a cESA file has one JSON object per line ({_LINE})")
    return out


@dataclass
class CesaPair:
    """One language pair of a cESA file: its documents in order of first judgement and, per system and
    document, the scores given."""

    path: str
    name: str
    judgements: list[CesaJudgement]
    documents: dict[str, str] = field(default_factory=dict)  # doc_id -> domain
    scores: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # system -> doc_id -> scores

    def __post_init__(self) -> None:
        for j in self.judgements:
            self.documents.setdefault(j.doc_id, j.domain)
            self.scores.setdefault(j.system, {}).setdefault(j.doc_id, []).append(j.score)

    def system_scores(self) -> dict[str, float]:
        """Per system, the mean over its documents of each document's mean score."""
        return {s: exact_mean([exact_mean(v) for v in docs.values()]) for s, docs in self.scores.items()}

    def judgements_by_document(self) -> HumanScores:
        rows = {s: [docs.get(d) for d in self.documents] for s, docs in self.scores.items()}
        return from_rows(rows, list(self.documents.values()), source=self.path, lp=self.name)


# -- the format ---------------------------------------------------------------------------------------------
def is_cesa(path: str) -> bool:
    """A JSONL file whose first line has ``doc_id``, ``system`` and ``score`` and no texts."""
    obj = first_json(path)
    return {"doc_id", "system", "score"} <= set(obj) and "src_text" not in obj and "hypothesis" not in obj


def read_evalset(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    """One language pair of a cESA file: the system scores, the judgements (one item a document) and, with
    ``test_file`` and ``systems``, the texts of the judged systems that translated every document."""
    found = read_cesa(path)
    have = list(dict.fromkeys(j.pair for j in found))
    one_pair(path, have, lp)
    name = have[0] if lp is None else match_pair(lp, have, path, "field doc_id",
                                                 lambda p: lp.lower() in (p.lower(), iso_pair(p)))
    pair = CesaPair(path, name, [j for j in found if j.pair == name])
    human = HumanScores(path, "cesa", pair.system_scores())
    testset, notes = None, []
    if options.get("test_file") is not None or options.get("systems") is not None:
        testset, notes = _texts(pair, options)
    return EvalSet(path, "cesa", name, testset, human, notes=tuple(notes), raw=pair,
                   make_judgements=pair.judgements_by_document, domains=tuple(dict.fromkeys(pair.documents.values())))


def _texts(pair: CesaPair, options: Mapping[str, Any]) -> tuple[Any, list[str]]:
    test_file, systems = options.get("test_file"), options.get("systems")
    if test_file is None or not systems:
        raise InputError(f"{pair.path}: the texts of a cESA file are the WMT26 release's: give both "
                         "test_file=data/wmt26-genmt.jsonl and systems=data/systems", params=("test_file", "systems"))
    release = read_wmt26(test_file, systems, lp=pair.name, source=options.get("source", "src_text")).pair(pair.name)
    known = {d.doc_id for d in release.documents}
    stray = [j for j in pair.judgements if j.doc_id not in known]
    if stray:
        raise InputError(f"{pair.path}, line {stray[0].line}, field doc_id: document {shown(stray[0].doc_id)} is not "
                         f"in {test_file} ({pair.name}); judge the release's documents")
    judged = [s for s in pair.scores if s in release.complete_systems]
    left = [s for s in pair.scores if s not in judged]
    if not judged:
        raise InputError(f"{pair.path}: no judged system ({', '.join(pair.scores)}) has a system file in {systems} "
                         f"that translated every document of {pair.name}; name the systems as data/systems/"
                         "<system>.jsonl does", params=("systems",))
    testset, _ = release.testset(judged, references=tuple(options.get("references", ())))
    notes = [f"{pair.name}: judged systems without a complete system file left out of the texts: {', '.join(left)}"
             ] if left else []
    return testset, notes


def gold_spans(data: EvalSet) -> SpanGold:
    """The error spans of a cESA EvalSet read with its texts (``test_file=``, ``systems=``): an item is a system's
    translation of a document, its offsets into that translation with the paragraphs joined by a newline (as a
    test set holds a document it does not split); an item judged more than once takes its first judgement's
    spans, as WMT25's dev set takes an item's first annotation.  A prediction line names an item by ``system``
    and ``doc_id``; a metric's spans are keyed where every document is one line of the test set."""
    pair: CesaPair = data.raw
    if data.testset is None:
        raise InputError(f"{pair.path}: its error spans are offsets into the systems' translations: read it with "
                         "test_file= and systems= (the release's texts) to judge spans", params=("test_file",))
    ts = data.testset
    texts = {(s, d.doc_id): "\n".join(ts.systems[s][d.start:d.end]) for s in ts.systems for d in ts.documents}
    first: dict[tuple[str, str], CesaJudgement] = {}
    for j in pair.judgements:  # a system without the texts (left out, noted by the reader) has no item
        if (j.system, j.doc_id) in texts:
            first.setdefault((j.system, j.doc_id), j)
    several = sum(len(pair.scores[system][doc_id]) > 1 for system, doc_id in first)
    items: dict[tuple[str, ...], SpanItem] = {}
    for key, j in first.items():
        length = len(texts[key])
        wrong = next((e for e in j.errors or () if e.end > length), None)
        if wrong is not None:
            raise InputError(f"{pair.path}, line {j.line}, field errors: the span {wrong.start}-{wrong.end} ends past "
                             f"{j.system}'s translation of {j.doc_id} ({length} characters, its paragraphs joined "
                             "by a newline)")
        items[key] = SpanItem(j.system, f"system {j.system!r}, doc_id {j.doc_id!r}", length, j.errors,
                              "" if j.errors is not None else "items judged without error spans")
    whole = all(d.end - d.start == 1 for d in ts.documents)
    return SpanGold(pair.path, pair.name, ("doc_id",), items,
                    f"the cESA error spans of {pair.path} ({pair.name}: one judgement per item, a system's "
                    "translation of a document)",
                    [f"{several} of {len(items)} items are judged more than once: the first judgement's spans are the "
                     "gold"] if several else [],
                    [(doc_id,) for doc_id in ts.doc_ids] if whole else [])


FORMAT = HumanFormat("cesa", "WMT26's contrastive ESA judgements (a documented stand-in: one JSON line per "
                     "document and system)", is_cesa, read_evalset, ("test_file", "systems", "references", "source"),
                     precedence=35, spans=gold_spans)
