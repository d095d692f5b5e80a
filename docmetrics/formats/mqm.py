"""Raw MQM ratings as google/wmt-mqm-human-evaluation publishes them (``mqm_ted_ende.tsv``,
``mqm_newstest2020_ende.tsv``, the WMT23 side-by-side files), read into segment penalties and error spans.

One line per error a rater marked (or one ``No-error`` line for a segment the rater found clean), tab
separated, with a header: ``system doc doc_id seg_id rater source target category severity`` and maybe
more columns after them (``comment``, ``metadata``).  ``doc`` names the document, ``doc_id`` is the
segment's 1-based position in it (mt-metrics-eval's converters/score_mqm.py reads it so), ``seg_id`` the
segment's id in the test set.  The WMT23 side-by-side files call these two ``docSegId`` and ``globalSegId``.
The error's span is marked ``<v>...</v>`` in the target (or in the source, for an omission).

The penalty of a segment is computed as score_mqm.py computes it: each error weighs by the most specific of
:data:`WEIGHTS` that matches ``severity/category`` (case-insensitive; Major 5, Minor 1, Minor
Fluency/Punctuation 0.1, Major Non-translation! 25, anything else 0), summed per rater, averaged over the
raters who rated the segment.  Lower is better.

As a judged-data format (:data:`FORMAT`, ``mqm``): the rated translations as a test set, the penalties (negated)
as human scores (:func:`mqm_scores`, what :mod:`docmetrics.formats.human_tsv` also gives for such a file) and the
first rater's error spans as the gold (:func:`gold_spans`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..values.errors import InputError, shown
from ..values.io import read_lines
from ..values.testset import TestSet
from .base import SPAN_SEVERITIES, EvalSet, HumanFormat, Span, SpanGold, SpanItem, tsv_header
from .judgements import HumanScores, exact_mean

__all__ = ["MQM_COLUMNS", "MQM_COLUMN", "WEIGHTS", "SEVERITIES", "MqmSpan", "MqmSegment", "MqmRatings",
           "is_mqm_header", "error_weight", "strip_marks", "is_human_name", "read_mqm", "mqm_scores", "gold_spans",
           "FORMAT"]

#: the columns every raw MQM file has (after :data:`ALIASES`), in the order the files give them
MQM_COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity")
#: the WMT23 side-by-side files' names for doc_id (position in the document) and seg_id
ALIASES = {"docSegId": "doc_id", "globalSegId": "seg_id"}
#: score_mqm.py's default weights: "severity[/category[/subcategory]]" -> weight, the most specific match wins
WEIGHTS = {"major": 5.0, "minor": 1.0, "neutral": 0.0, "major/non-translation!": 25.0,
           "minor/fluency/punctuation": 0.1}
#: the severities the published files use (lower case); HOTW-test marks the WMT23 attention checks (weight 0)
SEVERITIES = ("major", "minor", "neutral", "no-error", "hotw-test")

OPEN, CLOSE = "<v>", "</v>"
# how the organisers name a human translation rated as a system: ref, refB, ref-A, ref.A, Human-A.0
_HUMAN = re.compile(r"(?:ref|Ref|REF|human|Human|HUMAN)(?:[-_.A-Z0-9]|$)")


@dataclass(frozen=True)
class MqmSpan:
    """One error a rater marked: ``start``/``end`` are 0-based character offsets into the segment's
    ``target`` (``side`` "target") or ``source`` (``side`` "source", an omission) with the marks stripped;
    both None where no span is marked.  ``text``: the line's own text of that side, where it differs from
    the segment's (raters saw different texts on a few lines: a trailing space in WMT23, an extra quote in
    newstest2020); the offsets index it then."""

    rater: str
    severity: str
    category: str
    start: int | None
    end: int | None
    side: str | None
    text: str | None = None

    def marked(self, segment: MqmSegment) -> str | None:
        """The characters the span marks (None without a span)."""
        if self.side is None or self.start is None or self.end is None:
            return None
        text = self.text if self.text is not None else getattr(segment, self.side)
        return text[self.start:self.end]


@dataclass
class MqmSegment:
    """One system's segment: its texts (marks stripped), each rater's penalty and the errors' spans."""

    system: str
    doc: str
    seg_id: str
    doc_pos: int
    source: str
    target: str
    #: rater -> the sum of the weights of the rater's errors (0 for a No-error line)
    raters: dict[str, float] = field(default_factory=dict)
    spans: list[MqmSpan] = field(default_factory=list)

    @property
    def penalty(self) -> float:
        """The MQM penalty: the raters' penalties averaged (lower is better)."""
        return sum(self.raters.values()) / len(self.raters)


@dataclass
class MqmRatings:
    """A raw MQM file read: (system, doc, seg_id) -> segment, in the order of first appearance."""

    path: str
    segments: dict[tuple[str, str, str], MqmSegment]
    #: (line, column) of each text whose ``<v>`` is never closed (its span runs to the end of the text)
    unclosed: list[tuple[int, str]] = field(default_factory=list)

    def unclosed_note(self) -> str | None:
        """A warning for the texts whose ``<v>`` is never closed, naming the first; None without any."""
        if not self.unclosed:
            return None
        line, column = self.unclosed[0]
        more = f" and {len(self.unclosed) - 1} more" if len(self.unclosed) > 1 else ""
        return (f"{self.path}, line {line}, column {column}{more}: a <v> is never closed; the error span is read "
                "to the end of the text (as score_mqm.py reads it): close it with </v> where it ends")

    def systems(self) -> list[str]:
        """The systems rated (human references among them), in the order the file first names them."""
        return list(dict.fromkeys(system for system, _, _ in self.segments))

    def segment_keys(self) -> list[tuple[str, str]]:
        """Every ``(doc, seg_id)`` some system was rated on, in test-set order: the documents in the order
        the file first names them, a document's segments by their position in it (``doc_id``)."""
        docs: dict[str, int] = {}
        order: dict[tuple[str, str], tuple[int, int, int]] = {}
        for (_, doc, seg_id), seg in self.segments.items():
            order.setdefault((doc, seg_id), (docs.setdefault(doc, len(docs)), seg.doc_pos, len(order)))
        return sorted(order, key=order.__getitem__)

    def unrated(self, system: str) -> list[tuple[str, str]]:
        """The ``(doc, seg_id)`` of :meth:`segment_keys` that ``system`` was not rated on."""
        return [k for k in self.segment_keys() if (system, *k) not in self.segments]

    def reference_choices(self) -> str:
        """The systems a reference may be chosen from, for a message: the human references it rates (ref...,
        Human-...), else any system."""
        found = [s for s in self.systems() if is_human_name(s)]
        return (f"one of {self.path}'s human references ({', '.join(found)})" if found else
                f"a system of {self.path} (none is named as a human reference: ref..., Human-...)")

    def testset(self, reference: str | None = None) -> TestSet:
        """The rated translations as a test set, one line per :meth:`segment_keys` (its ``doc`` the doc
        id): every system but ``reference``, whose targets are then the references (an InputError where
        it was not rated on a segment), the source of each segment as its first line gives it.  A
        segment a system was not rated on is an empty translation of that system (every system has
        every line), which no rating judges."""
        keys = self.segment_keys()
        sources: dict[tuple[str, str], str] = {}
        for (_, doc, seg_id), seg in self.segments.items():
            sources.setdefault((doc, seg_id), seg.source)
        systems = [s for s in self.systems() if s != reference]
        if not systems:
            raise InputError(f"{self.path}: no system is rated but the reference {reference}; nothing to score")
        refs = None
        if reference is not None:
            missing = self.unrated(reference)
            if missing:
                complete = [s for s in self.systems() if is_human_name(s) and not self.unrated(s)]
                raise InputError(f"{self.path}: {reference} is not rated on {len(missing)} of {len(keys)} segments "
                                 f"(e.g. doc {shown(missing[0][0])}, seg_id {shown(missing[0][1])}), which would "
                                 f"have no reference; give a reference rated on every segment"
                                 f"{' (' + ', '.join(complete) + ')' if complete else ''} or score with a "
                                 "reference-free metric", params=("reference",))
            refs = [self.segments[(reference, *k)].target for k in keys]
        outputs = {s: [self.segments[(s, *k)].target if (s, *k) in self.segments else "" for k in keys]
                   for s in systems}
        names = {"source": f"{self.path} source", "doc ids": f"{self.path} doc",
                 **{s: f"{self.path} target of {s}" for s in systems}}
        if reference is not None:
            names["reference"] = f"{self.path} target of {reference}"
        return TestSet(outputs, [sources[k] for k in keys], refs, [doc for doc, _ in keys], names=names)


def is_mqm_header(header: list[str]) -> bool:
    """Whether a TSV header is a raw MQM file's (see the module docstring)."""
    return set(MQM_COLUMNS) <= {ALIASES.get(h, h) for h in header}


def error_weight(severity: str, category: str) -> float:
    """The weight of one error, as score_mqm.py's ``Score``: the most specific ``severity/category``
    prefix found in :data:`WEIGHTS`, else 0."""
    items = [severity.lower()] + category.lower().split("/")
    while items:
        weight = WEIGHTS.get("/".join(items))
        if weight is not None:
            return weight
        items.pop()
    return 0.0


def strip_marks(text: str) -> tuple[str, int | None, int | None]:
    """The text without ``<v>``/``</v>`` and the span they mark (None, None without a mark).

    Several marks give the span from the first ``<v>`` to the last ``</v>``; a ``<v>`` never closed runs
    to the end of the text (two lines of the TED files end so).  Raises ValueError for a ``</v>`` that
    closes nothing."""
    if OPEN not in text and CLOSE not in text:
        return text, None, None
    out: list[str] = []
    start = end = None
    depth = 0
    k = 0
    length = 0
    while k < len(text):
        if text.startswith(OPEN, k):
            if start is None:
                start = length
            depth += 1
            k += len(OPEN)
        elif text.startswith(CLOSE, k):
            if depth == 0:
                raise ValueError(f"a {CLOSE} at character {k} closes no {OPEN}")
            depth -= 1
            end = length
            k += len(CLOSE)
        else:
            out.append(text[k])
            length += 1
            k += 1
    if depth:
        end = length
    return "".join(out), start, end


def is_human_name(system: str) -> bool:
    """Whether a system's name says it is a human translation (ref, refB, ref-A, Human-A.0)."""
    return bool(_HUMAN.match(system))


def _unquote(text: str) -> str:
    """A text the file wrote in CSV quotes (newstest2020: ``"... a ""serious"" proposal."``) without them;
    any other text as it is (score_mqm.py reads the texts unquoted, but they do not change a score)."""
    if len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1].replace('""', ""):
        return text[1:-1].replace('""', '"')
    return text


def _bad(path: str, lineno: int, column: str, what: str) -> InputError:
    """The error for a bad field: one line naming the file, line and column."""
    return InputError(f"{path}, line {lineno}, column {column}: {what}")


def read_mqm(path: str, lines: list[str] | None = None) -> MqmRatings:
    """Read a raw MQM file (``lines``: its lines, if already read).  A malformed line, an unknown severity,
    a bad position or a stray ``</v>`` raises InputError naming the file, line and field."""
    if lines is None:
        lines = read_lines(path)
    header = [ALIASES.get(h.strip(), h.strip()) for h in lines[0].rstrip("\r").split("\t")] if lines else []
    if not is_mqm_header(header):
        raise InputError(f"{path}, line 1: not a raw MQM header; it needs the columns {', '.join(MQM_COLUMNS)}")
    col = {h: k for k, h in reversed(list(enumerate(header)))}
    need = max(col[c] for c in MQM_COLUMNS) + 1
    segments: dict[tuple[str, str, str], MqmSegment] = {}
    positions: dict[tuple[str, str], tuple[int, int]] = {}
    unclosed: list[tuple[int, str]] = []
    for lineno, line in enumerate(lines[1:], 2):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) < need or len(parts) > len(header):
            raise InputError(
                f"{path}, line {lineno}: {len(parts)} tab-separated fields, the header has {len(header)} "
                f"({', '.join(header)}); {'a field is missing' if len(parts) < need else 'a text holds a tab'}: "
                "each line needs one field per column, with no tab inside a text")
        row = {c: parts[col[c]] for c in MQM_COLUMNS}
        severity = row["severity"].strip().lower()
        if severity not in SEVERITIES:
            raise _bad(path, lineno, "severity", f"unknown severity {shown(row['severity'])}; the MQM files use "
                       "Major, Minor, Neutral, No-error and HOTW-test (any case): correct the line")
        for c in ("system", "doc", "seg_id", "rater"):
            if not row[c].strip():
                raise _bad(path, lineno, c, f"empty; every line names its {c}")
        text = row["doc_id"].strip()
        doc_pos = int(text) if text.isascii() and text.isdigit() else 0
        if doc_pos < 1:
            raise _bad(path, lineno, "doc_id", f"{shown(row['doc_id'])} is not a 1-based position in the document "
                       "(the column holds the segment's position in its document, as score_mqm.py reads it)")
        seg_key = (row["doc"], row["seg_id"])
        first = positions.setdefault(seg_key, (doc_pos, lineno))
        if first[0] != doc_pos:
            raise _bad(path, lineno, "doc_id", f"segment {row['seg_id']} of document {shown(row['doc'])} is at "
                       f"position {doc_pos} here and {first[0]} on line {first[1]}: one position per segment")
        texts = {}
        for side in ("source", "target"):
            try:
                texts[side] = strip_marks(_unquote(row[side]))
            except ValueError as exc:
                raise _bad(path, lineno, side, f"{exc}: mark an error span as <v>...</v>") from None
            if row[side].count(OPEN) > row[side].count(CLOSE):
                unclosed.append((lineno, side))
        seg = segments.get((row["system"], *seg_key))
        if seg is None:
            seg = segments[(row["system"], *seg_key)] = MqmSegment(
                row["system"], row["doc"], row["seg_id"], doc_pos, texts["source"][0], texts["target"][0])
        rater = row["rater"]
        seg.raters[rater] = seg.raters.get(rater, 0.0) + error_weight(severity, row["category"])
        if severity in ("no-error", "hotw-test"):
            continue  # a clean segment, or an attention check: no error
        side = "target" if texts["target"][1] is not None else "source" if texts["source"][1] is not None else None
        start, end = texts[side][1:] if side else (None, None)
        own = texts[side][0] if side and texts[side][0] != getattr(seg, side) else None
        seg.spans.append(MqmSpan(rater, severity, row["category"], start, end, side, own))
    if not segments:
        raise InputError(f"{path}: a header and no rating; a raw MQM file has one line per error")
    return MqmRatings(path, segments, unclosed)


#: the one score of a raw MQM file
MQM_COLUMN = "mqm_penalty"


def mqm_scores(ratings: MqmRatings) -> HumanScores:
    """A raw MQM file's penalties (negated: lower is better), positions, human systems and spans."""
    segments: dict[str, dict[tuple[str, str], float]] = {}
    spans: dict[str, dict[tuple[str, str], list[MqmSpan]]] = {}
    positions: dict[tuple[str, str], int] = {}
    for seg in ratings.segments.values():
        key = (seg.doc, seg.seg_id)
        segments.setdefault(seg.system, {})[key] = -seg.penalty
        spans.setdefault(seg.system, {})[key] = seg.spans
        positions[key] = seg.doc_pos
    system = {name: exact_mean(list(scores.values())) for name, scores in segments.items()}
    humans = {name for name in system if is_human_name(name)}
    note = ratings.unclosed_note()
    return HumanScores(ratings.path, MQM_COLUMN, system, segments, positions, humans, lower_is_better=True,
                       raw_mqm=True, spans=spans, warnings=[note] if note else [])


# -- the format ---------------------------------------------------------------------------------------------
def is_mqm(path: str) -> bool:
    """A TSV whose header is a raw MQM file's."""
    return is_mqm_header(tsv_header(path))


def read_evalset(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    """A raw MQM file: its test set (``reference``: the system that is the reference: rated on every segment,
    not the only one), the MQM penalties (negated) as human scores and judgements, and its error spans."""
    ratings = read_mqm(path)
    human = mqm_scores(ratings)
    reference = _reference(ratings, options.get("reference"))
    return EvalSet(path, "mqm", lp, ratings.testset(reference), human, notes=tuple(human.warnings), raw=ratings)


def _reference(ratings: MqmRatings, given: str | Sequence[str] | None) -> str | None:
    """The one system ``reference=`` names (None: none); an InputError naming the systems to choose from."""
    if given is None:
        return None
    names = [given] if isinstance(given, str) else list(given)
    if len(names) != 1:
        raise InputError(f"{ratings.path}: a metric scores against one reference, not {len(names)}; give "
                         f"{ratings.reference_choices()}", params=("reference",))
    name = names[0]
    if name not in ratings.systems():
        raise InputError(f"{ratings.path} rates no system {name}; give {ratings.reference_choices()}",
                         params=("reference",))
    if ratings.systems() == [name]:
        raise InputError(f"{name} is the only system {ratings.path} rates, so no system would be judged; read it "
                         "without a reference and score with a reference-free metric", params=("reference",))
    return name


def gold_spans(data: EvalSet) -> SpanGold:
    """The error spans of a raw MQM file: each item's first rater's spans in the target (a span in the source
    marks an omission: no offsets in the translation), as WMT25's dev set takes an item's first annotation;
    Neutral errors are not errors.  A prediction line names an item by ``doc`` and ``seg_id``."""
    ratings: MqmRatings = data.raw
    several = 0
    items: dict[tuple[str, ...], SpanItem] = {}
    for (system, doc, seg_id), seg in ratings.segments.items():
        first = next(iter(seg.raters))
        several += len(seg.raters) > 1
        spans, dropped = [], []
        for s in seg.spans:
            if s.rater != first:
                continue
            if s.severity not in SPAN_SEVERITIES:  # Neutral: weight 0 in MQM, no error
                dropped.append(f"gold spans of severity {s.severity} (not an error)")
            elif s.side != "target" or s.start is None or s.end is None:
                spans.append(Span(None, None, s.severity))  # an omission (marked in the source) or no mark
            else:
                spans.append(Span(s.start, min(s.end, len(seg.target)), s.severity))
        items[(system, doc, seg_id)] = SpanItem(system, f"system {system!r}, doc {shown(doc)}, seg_id {seg_id!r}",
                                                len(seg.target), tuple(spans), dropped=tuple(dropped))
    return SpanGold(ratings.path, None, ("doc", "seg_id"), items,
                    f"the MQM error spans of {ratings.path} (one rater per item: the first in the file)",
                    [f"{several} of {len(items)} items have several raters: the first rater's spans are the gold, "
                     "as WMT25's dev set takes an item's first annotation"] if several else [],
                    ratings.segment_keys())


FORMAT = HumanFormat("mqm", "a raw MQM TSV (one line per error)", is_mqm, read_evalset, ("reference",), precedence=60,
                     spans=gold_spans)
