"""Error-span judging (WMT25 metrics task 2, WMT26 subtask 1): span predictions from a JSONL file against the
human spans of a judged-data file (its format's gold, :class:`~docmetrics.formats.base.SpanGold`: a GenMT
file's ESA ``errors``, a raw MQM file's ``<v>`` marks), scored by
:mod:`docmetrics.algorithms.spans` per system and over every item, as WMT25's ``scoring_esa.py`` scores a
language pair.

A prediction file has one JSON object per line, one line per item (one system's translation of one segment):
``system`` (or ``system_id``), the segment's key as the human file names it (GenMT: ``doc_id`` as the line
writes it, plus ``segment``, its 1-based position in the document, where doc ids carry no segment number;
MQM: ``doc`` and ``seg_id``), and the errors, either as GenMT writes them
(``"errors": [{"start_i": 4, "end_i": 9, "severity": "minor"}]``; an omission ``"missing"`` for both
offsets) or as WMT25's task-2 submissions write them (``start_indices``, ``end_indices``,
``error_types``: space-separated, ``no-error`` for none).  Every mistake is an InputError naming the file,
the line and the field.  A metric's own spans (XCOMET's, per segment: :func:`metric_predictions`) are
judged the same way (:func:`judge_predicted`), on the file's test set (a line's item: ``SpanGold.lines``).
Nothing here prints: :func:`spans_text` and :func:`spans_dict` give the table and the JSON of the judgements.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..algorithms.spans import PARTIAL_CREDIT, SpanCounts, item_counts, micro
from ..formats.base import SKIPPED_SEVERITIES, SPAN_SEVERITIES, Span, SpanGold, SpanItem, span_objects
from ..formats.esa import OMISSION
from ..formats.wmt25_tsv import NO_ERROR
from ..values.errors import InputError, UserError
from ..values.io import read_lines
from ..values.jsonl import json_lines, string_field
from .text import num, table

if TYPE_CHECKING:
    from ..values.result import Result

__all__ = ["SpanJudgement", "read_predictions", "metric_predictions", "judge_predicted",
           "gives_no_spans", "check_gives_spans", "SPAN_METRICS", "spans_dict", "spans_text"]

#: The presets whose metric gives error spans per segment, as an error names them.
SPAN_METRICS = "xcomet-qe, xcomet (with a reference), gemba-mqm, gemba-esa (LLM judges)"


@dataclass
class SpanJudgement:
    """A predictor (a file) judged: the counts over every compared item and per system, the spans
    compared, and what was left out (reason -> how many)."""

    predictor: str
    overall: SpanCounts
    systems: dict[str, SpanCounts]
    spans: dict[str, int]
    left_out: dict[str, int]
    #: The signature of the metric whose own spans these are (None: a file's).
    signature: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"predictor": self.predictor, "overall": self.overall.to_dict(),
             "systems": {name: c.to_dict() for name, c in self.systems.items()},
             "spans": self.spans, "left_out": self.left_out}
        if self.signature is not None:
            d["signature"] = self.signature
        return d


def _key(obj: Mapping[str, Any], gold: SpanGold, where: str, skipped: Counter[str]) -> tuple[str, ...] | None:
    """The item a line names, or None for a line of data the gold does not hold (counted: ``SpanGold.locate``)."""
    system = string_field(obj, "system_id" if "system" not in obj and "system_id" in obj else "system", where,
                          "every line names its system (system or system_id)", empty=False)
    values = [string_field(obj, name, where, f"every line names its segment ({', '.join(gold.fields)}) as "
                           f"{gold.path} does", empty=False, number=True) for name in gold.fields]
    if gold.locate is not None:
        located = gold.locate(obj, system, values, where, skipped)
        if located is None:
            return None
        values = located
    key = (system, *values)
    if key not in gold.items:
        systems = sorted({k[0] for k in gold.items})
        if system not in systems:
            raise InputError(f"{where}, field system: {system!r} has no output in {gold.path}"
                             f"{' for ' + gold.pair if gold.pair else ''}; its systems: {', '.join(systems)}")
        named = ", ".join(f"{n} {v!r}" for n, v in zip(gold.fields, values))
        raise InputError(f"{where}, field {gold.fields[-1]}: {named} is no segment of {gold.path}"
                         f"{' (' + gold.pair + ')' if gold.pair else ''}; the items must match the test set")
    return key


def _offset(value: Any, where: str) -> int | None:
    if value == OMISSION:
        return None
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: {json.dumps(value)[:40]} is not a character offset (an integer), nor "
                         f'"{OMISSION}" (an omission)')
    return value


def _span(start: Any, end: Any, severity: Any, where: str, item: SpanItem) -> Span:
    s, e = _offset(start, f"{where}.start_i"), _offset(end, f"{where}.end_i")
    if (s is None) != (e is None):
        raise InputError(f"{where}: {OMISSION!r} on one side only; an omission has both offsets {OMISSION!r}")
    if severity not in SPAN_SEVERITIES:
        raise InputError(f"{where}.severity: unknown severity {json.dumps(severity)[:40]}; the span scorer knows "
                         f"{', '.join(SPAN_SEVERITIES)} (lower case)")
    if s is not None and e is not None and not 0 <= s <= e <= item.length:
        raise InputError(f"{where}: the span {s}-{e} is outside its segment ({item.name}: {item.length} "
                         "characters); offsets count characters of the translation from 0, end excluded")
    return Span(s, e, severity)


def _errors(obj: Mapping[str, Any], where: str, item: SpanItem) -> tuple[Span, ...]:
    if "errors" in obj:
        out = []
        for at, e in span_objects(obj["errors"], f"{where}, field errors"):
            for name in ("start_i", "end_i", "severity"):
                if name not in e and name.split("_")[0] not in e:
                    raise InputError(f"{at}.{name}: missing")
            out.append(_span(e.get("start_i", e.get("start")), e.get("end_i", e.get("end")), e["severity"], at, item))
        return tuple(out)
    wmt25 = ("start_indices", "end_indices", "error_types")
    if not all(name in obj for name in wmt25):
        missing = next(name for name in wmt25 if name not in obj)
        raise InputError(f"{where}, field {'errors' if not any(n in obj for n in wmt25) else missing}: missing; give "
                         '"errors": [{"start_i", "end_i", "severity"}, ...] or WMT25\'s start_indices, '
                         "end_indices and error_types")
    for name in wmt25:
        if not isinstance(obj[name], str):
            raise InputError(f"{where}, field {name}: {json.dumps(obj[name])[:40]} is not a string of "
                             "space-separated values")
    if obj["error_types"].strip() == NO_ERROR:
        return ()
    columns = [obj[name].split(" ") for name in wmt25]
    if len({len(c) for c in columns}) != 1 or not all(v for c in columns for v in c):
        raise InputError(f"{where}, field error_types: {len(columns[2])} error types for {len(columns[0])} start and "
                         f"{len(columns[1])} end indices (or an empty one); give one of each per error, separated "
                         "by single spaces")
    return tuple(_span(s, e, t, f"{where}, field error_types[{k}]", item)
                 for k, (s, e, t) in enumerate(zip(*columns)))


def read_predictions(path: str, gold: SpanGold) -> tuple[dict[tuple[str, ...], tuple[int, tuple[Span, ...]]],
                                                          Counter[str]]:
    """Each item's predicted spans (with the line they were read from), and the lines skipped (of other
    language pairs or domains)."""
    out: dict[tuple[str, ...], tuple[int, tuple[Span, ...]]] = {}
    skipped: Counter[str] = Counter()
    what = f"one JSON object with system, {', '.join(gold.fields)} and errors (an item's predicted error spans)"
    for i, where, obj in json_lines(path, read_lines(path), what):
        key = _key(obj, gold, where, skipped)
        if key is None:
            continue
        if key in out:
            raise InputError(f"{where}, field {gold.fields[-1]}: {gold.items[key].name} is predicted twice (also "
                             f"line {out[key][0]}); give one line per item")
        out[key] = (i, _errors(obj, where, gold.items[key]))
    if not out:
        raise InputError(f"{path}: no prediction for {gold.pair or gold.path}"
                         f"{' (' + ', '.join(f'{n} {r}' for r, n in skipped.items()) + ')' if skipped else ''}")
    return out, skipped


def no_spans(name: str) -> UserError:
    """The error for ``-m NAME`` that gives no error spans per segment."""
    return UserError(f"-m {name} gives no error spans per segment (its backbone gives none, or its units span "
                     f"several segments without a mapping to them); use a metric that tags errors: {SPAN_METRICS}")


def gives_no_spans(metric: Any) -> bool:
    """Whether ``metric`` is known, before it scores, to give no error spans: no model (bleu, chrf, ter), or a
    backbone that says so (``gives_spans`` False: a COMET model without word-level tags); unknown: False."""
    backbone = getattr(metric, "backbone", None)
    return backbone is None or getattr(backbone, "gives_spans", None) is False


def check_gives_spans(name: str, metric: Any) -> None:
    """A UserError naming ``-m NAME`` where ``metric`` is known before it scores to give no error spans
    (:func:`gives_no_spans`), so that a span judgement refuses it before any metric scores."""
    if gives_no_spans(metric):
        raise no_spans(name)


def metric_predictions(results: Sequence[Result], gold: SpanGold, name: str
                       ) -> dict[tuple[str, ...], tuple[int, tuple[Span, ...]]]:
    """A metric's error spans as predictions: each result's spans per segment (``extras["segment_spans"]``,
    line -> spans, as SLIDE gives them, or else the spans of units of one segment each) keyed as ``gold``
    keys its items (``gold.lines[line]``: the key fields of the test set's line, beside the system).  A line
    the metric scored no unit of has no prediction.  ``name`` (the metric as the command line gave it)
    names the metric in errors (as -m): spans the scorer cannot read, or no spans at all."""
    out: dict[tuple[str, ...], tuple[int, tuple[Span, ...]]] = {}
    for r in results:
        per_line = r.extras.get("segment_spans")
        if per_line is None:
            if any(u.end - u.start != 1 for u in r.units) or not any(u.spans for u in r.units):
                raise no_spans(name)
            per_line = {u.start: u.spans for u in r.units}
        for line, spans in per_line.items():
            key = (r.system, *gold.lines[line])
            item = gold.items.get(key)
            if item is None:
                continue
            found = []
            for s in spans:
                if s.severity not in SPAN_SEVERITIES or not 0 <= s.start <= s.end <= item.length:
                    raise UserError(f"metric {name}: the error span {s.start}-{s.end} ({s.severity}) of {item.name} is "
                                    f"outside its {item.length} characters or of a severity the span scorer does not "
                                    f"know ({', '.join(SPAN_SEVERITIES)})")
                found.append(Span(s.start, s.end, s.severity))
            out[key] = (line + 1, tuple(found))
    return out


def judge_predicted(predictor: str, predicted: Mapping[tuple[str, ...], tuple[int, tuple[Span, ...]]],
                    gold: SpanGold, skipped: Mapping[str, int] | None = None, unpredicted: str | None = None
                    ) -> SpanJudgement:
    """``predicted`` (item -> (its line, its spans)) against ``gold``, per system and over all.  A judged item
    of a predicted system without a prediction is an InputError naming ``predictor``, or with
    ``unpredicted`` (why a metric may have none: a segment no unit covers) left out under that reason."""
    systems = list(dict.fromkeys(k[0] for k in predicted))
    missing = [k for k, item in gold.items.items() if k[0] in systems and item.gold is not None and k not in predicted]
    left_out: Counter[str] = Counter(skipped or {})
    if missing and unpredicted is None:
        raise InputError(f"{predictor}: no prediction for {len(missing)} judged item(s) of the systems it predicts, "
                         f"e.g. {gold.items[missing[0]].name}; give one line per item (\"errors\": [] for none)")
    if missing:
        left_out[unpredicted or ""] += len(missing)
    spans = {"gold": 0, "pred": 0}
    per_system: dict[str, list[SpanCounts]] = {s: [] for s in systems}
    for key, (_, pred) in predicted.items():
        item = gold.items[key]
        if item.gold is None:
            left_out[item.why] += 1
            continue
        left_out.update(item.dropped)
        for side, these in (("gold", item.gold), ("predicted", pred)):
            for s in these:
                if s.omission:
                    left_out[f"{side} omissions (no offsets)"] += 1
                elif s.severity in SKIPPED_SEVERITIES:
                    left_out[f"{side} spans of severity {s.severity}"] += 1
                else:
                    spans["gold" if side == "gold" else "pred"] += 1
        per_system[key[0]].append(item_counts(item.gold, pred, item.length))
    unpredicted = sorted({k[0] for k, item in gold.items.items() if item.gold is not None} - set(systems))
    if unpredicted:
        left_out[f"systems without predictions ({', '.join(unpredicted)})"] = len(unpredicted)
    counts = {s: micro(c) for s, c in per_system.items() if c}
    return SpanJudgement(predictor, micro(counts.values()), counts, spans, dict(left_out))


def spans_dict(found: Sequence[SpanJudgement], gold: SpanGold, notes: Sequence[str] = ()) -> dict[str, Any]:
    """The JSON of :func:`spans_text` (what ``docmetrics --spans -f json`` prints)."""
    return {"gold": gold.text, "partial_credit": PARTIAL_CREDIT, "notes": list(notes),
            "predictors": [j.to_dict() for j in found]}


def spans_text(found: Sequence[SpanJudgement], gold: SpanGold, width: int = 4, notes: Sequence[str] = ()) -> str:
    """The predictors' span judgements (:func:`~docmetrics.judging.span_f1`'s) against ``gold`` as a table
    (``width`` decimals), each one's counts, ``notes`` and how spans are scored: what ``docmetrics --spans`` prints.

    >>> print(spans_text([span_f1("predictions.jsonl", data)], data.spans))             # doctest: +SKIP
    """
    rows: list[list[str]] = []
    for j in found:
        for k, (system, c) in enumerate([("all", j.overall), *j.systems.items()]):
            s = c.scores()
            rows.append([j.predictor if k == 0 else "", system, str(c.items), num(s.precision, width),
                         num(s.recall, width), num(s.f1, width), str(c.gold), str(c.pred)])
    out = [f"Error spans (WMT25 subtask 2): {gold.text}\n",
           table(["Predictor", "System", "items", "precision", "recall", "F1", "gold chars", "pred chars"], rows),
           "\n"]
    for j in found:
        left = "; ".join(f"{why}: {n}" for why, n in j.left_out.items())
        out.append(f"{j.predictor}: {j.overall.items} items, {j.spans['gold']} gold and {j.spans['pred']} predicted "
                   f"spans compared; left out: {left or 'nothing'}.\n")
    out.extend(note + "\n" for note in notes)
    out.append(f"Character-level, as WMT25's scoring_esa.py: a character counts once per span covering it; full "
               f"credit within a severity class (major = major or critical; minor), {PARTIAL_CREDIT:g} across "
               "classes; summed over the items (micro); precision 1 with nothing predicted, recall 1 with no gold "
               "error.  Omissions (no offsets) and undecided spans are left out, as the official scorer leaves them "
               "out.\n")
    return "".join(out)
