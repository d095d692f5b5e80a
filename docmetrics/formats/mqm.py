"""The raw MQM TSV as a judged-data format (google/wmt-mqm-human-evaluation: one line per error, ``<v>`` spans):
its recogniser, its reader to an EvalSet and its gold error spans.  The file itself is read by
:mod:`docmetrics.formats.mqm_tsv` (ratings, texts) and :mod:`docmetrics.formats.human_tsv` (the MQM penalties as
human scores)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..values.errors import InputError, shown
from .base import SPAN_SEVERITIES, EvalSet, HumanFormat, Span, SpanGold, SpanItem, tsv_header
from .human_tsv import mqm_scores
from .mqm_tsv import MqmRatings, is_mqm_header, read_mqm


# -- the format ---------------------------------------------------------------------------------------------
def is_mqm(path: str) -> bool:
    """A TSV whose header is a raw MQM file's."""
    header = tsv_header(path)
    return bool(header) and is_mqm_header(header)


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


FORMAT = HumanFormat("mqm", "a raw MQM TSV (one line per error)", is_mqm, read_evalset, ("reference",),
                     "testset, human (MQM penalties, negated), judgements, spans", precedence=60, spans=gold_spans)
