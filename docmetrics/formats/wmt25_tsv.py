"""The WMT25 metrics shared task's test TSV and its submissions (wmt-conference/wmt25-mteval).

**The test set** (``scripts/testset/testset_jsonl_to_tsv_task2.py`` and its earlier versions write it; the
scoring script ``scripts/scoring/task2/scoring_esa.py`` reads it with ``pandas.read_csv(sep="\\t",
keep_default_na=False)``): a header line of :data:`TSV_FIELDS` (``doc_id, segment_id, source_lang,
target_lang, set_id, system_id, source_segment, hypothesis_segment, reference_segment, domain_name,
method``), then one line per system and segment.  Texts are trimmed, with tabs made spaces and each newline
written as a literal ``\\n``; a field holding a quote is quoted as Python's csv writer quotes
(``QUOTE_MINIMAL``), so it is read here with Python's csv reader as the task's own reading examples do.  A
missing reference is an empty field or ``NaN`` (both versions of the script).  ``set_id`` is
``official`` for the test set proper (the scorer keeps only it), a challenge set's name otherwise;
``segment_id`` numbers the segments of a language pair.

**A submission** (``predictions.tsv``): the same columns, one line per line of the test set, plus the score
column :data:`SCORE_FIELD` (``overall``: what ``scripts/analysis/20-collect_humeval_metrics.py`` reads from
every segment-level task-1 submission) and, for the span subtask, :data:`SPAN_FIELDS`: space-separated
character offsets into ``hypothesis_segment`` as the file writes it (escaped) and severities, or
``no-error`` (``get_error_list`` of the scorer).  The task's readers take the first line as the header and
know no comment lines, so the metric's signature goes to a sidecar ``FILE.signature``.

Everything a user can get wrong is an :class:`~docmetrics.values.errors.InputError` naming the file, the
line and the field; nothing here prints or loads a model.
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Sequence

from ..values.errors import InputError, shown
from ..values.testset import TestSet
from .base import EvalSet, HumanFormat, one_pair, tsv_header
from .stored import find_pair

__all__ = ["TSV_FIELDS", "SCORE_FIELD", "SPAN_FIELDS", "OFFICIAL", "Wmt25Tsv", "Wmt25Pair", "read_wmt25_tsv",
           "unescape", "escaped_offset", "write_submission", "SIGNATURE_SUFFIX", "Submission",
           "wmt25_submission"]

TSV_FIELDS = ("doc_id", "segment_id", "source_lang", "target_lang", "set_id", "system_id", "source_segment",
              "hypothesis_segment", "reference_segment", "domain_name", "method")
SCORE_FIELD = "overall"
SPAN_FIELDS = ("start_indices", "end_indices", "error_types")
OFFICIAL = "official"
SIGNATURE_SUFFIX = ".signature"
#: How the test set writes a missing reference (besides an empty field).
_MISSING = ("", "NaN")
#: What the scorer reads as a segment without errors.
NO_ERROR = "no-error"


def unescape(text: str) -> str:
    """A TSV text as a metric reads it: each literal ``\\n`` a newline again."""
    return text.replace("\\n", "\n")


def escaped_offset(text: str, index: int) -> int:
    """Offset ``index`` of the unescaped ``text`` as an offset into its escaped form (the file's
    ``hypothesis_segment``, where each newline is two characters)."""
    return index + text.count("\n", 0, index)


@dataclass
class Wmt25Pair:
    """One language pair and set of the test TSV: its test set (texts unescaped) and, per system and
    segment, the index of its line among :attr:`Wmt25Tsv.rows`."""

    lp: str
    set_id: str
    testset: TestSet
    rows: dict[str, list[int]]
    notes: list[str] = field(default_factory=list)
    #: The file's lines (what a submission for the pair writes back).
    tsv: Wmt25Tsv | None = field(default=None, repr=False, compare=False)


@dataclass
class Wmt25Tsv:
    """The lines of a test TSV: ``header`` (its fields, in order), ``rows`` (field -> value, as written)
    and ``lines`` (each row's line in the file)."""

    path: str
    header: list[str]
    rows: list[dict[str, str]]
    lines: list[int]

    def pairs(self, set_id: str = OFFICIAL) -> list[str]:
        return list(dict.fromkeys(_lp(r) for r in self.rows if r["set_id"] == set_id))

    def pair(self, wanted: str | None, set_id: str = OFFICIAL) -> Wmt25Pair:
        """The language pair ``wanted`` (``en-ko_KR``, or ``en-ko`` where that names one; None: the only
        one) of the set ``set_id`` as a test set: every system has the same documents and segments, with
        the same sources and references."""
        have = self.pairs(set_id)
        if not have:
            sets = sorted({r["set_id"] for r in self.rows})
            raise InputError(f"{self.path}: no line with set_id {shown(set_id)} (field set_id; the file has "
                             f"{', '.join(sets) or 'no lines'})")
        one_pair(self.path, have, wanted)
        return _build(self, have[0] if wanted is None else find_pair(wanted, have, self.path), set_id)


def _lp(row: Mapping[str, str]) -> str:
    return f"{row['source_lang']}-{row['target_lang']}"


def read_wmt25_tsv(path: str | os.PathLike[str]) -> Wmt25Tsv:
    """Every line of a WMT25 metrics test TSV (see the module docstring), checked field by field."""
    path = os.fspath(path)
    try:
        f = open(path, newline="", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from None
    rows: list[dict[str, str]] = []
    lines: list[int] = []
    with f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        try:
            header = next(reader, None)
            if header is None:
                raise InputError(f"{path}: empty file; the first line is the header ({', '.join(TSV_FIELDS)})")
            lacking = [k for k in TSV_FIELDS if k not in header]
            if lacking:
                raise InputError(f"{path}, line 1: no field {shown(lacking[0])} in the header (found "
                                 f"{', '.join(header)}); WMT25's test TSV has {', '.join(TSV_FIELDS)}")
            start = reader.line_num + 1
            for parts in reader:
                where = f"{path}, line {start}"
                if not parts or parts == [""]:
                    start = reader.line_num + 1
                    continue
                if len(parts) != len(header):
                    raise InputError(f"{where}: {len(parts)} fields, the header has {len(header)} (a tab inside a "
                                     "text, or a quote that opens a field and does not close it)")
                row = dict(zip(header, parts))
                for key in ("doc_id", "segment_id", "source_lang", "target_lang", "set_id", "system_id"):
                    if not row[key].strip():
                        raise InputError(f"{where}, field {key}: empty; every line names it")
                rows.append(row)
                lines.append(start)
                start = reader.line_num + 1
        except csv.Error as exc:
            raise InputError(f"{path}, line {reader.line_num}: {exc}") from None
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    return Wmt25Tsv(path, header, rows, lines)


def _build(data: Wmt25Tsv, lp: str, set_id: str) -> Wmt25Pair:
    path = data.path
    by_system: dict[str, list[int]] = {}
    for k, row in enumerate(data.rows):
        if row["set_id"] == set_id and _lp(row) == lp:
            by_system.setdefault(row["system_id"], []).append(k)
    first = next(iter(by_system))
    order = [(data.rows[k]["doc_id"], data.rows[k]["segment_id"]) for k in by_system[first]]
    index = {key: i for i, key in enumerate(order)}
    for i, key in enumerate(order):
        if index[key] != i:
            k = by_system[first][i]
            raise InputError(f"{path}, line {data.lines[k]}, field segment_id: segment {key[1]} of document "
                             f"{shown(key[0])} of system {shown(first)} appears twice")
    seen: dict[str, int] = {}
    for i, (doc, _) in enumerate(order):
        if doc in seen and order[i - 1][0] != doc:
            k = by_system[first][i]
            raise InputError(f"{path}, line {data.lines[k]}, field doc_id: document {shown(doc)} reappears after "
                             "another document; a document's segments are consecutive")
        seen.setdefault(doc, i)
    rows: dict[str, list[int]] = {}
    for system, ks in by_system.items():
        placed: list[int | None] = [None] * len(order)
        for k in ks:
            row = data.rows[k]
            where = f"{path}, line {data.lines[k]}"
            i = index.get((row["doc_id"], row["segment_id"]))
            if i is None:
                raise InputError(f"{where}, field segment_id: segment {row['segment_id']} of document "
                                 f"{shown(row['doc_id'])} ({system}) is not one of system {shown(first)}'s; "
                                 f"every system "
                                 f"of {lp} has the same segments")
            if placed[i] is not None:
                raise InputError(f"{where}, field segment_id: segment {row['segment_id']} of document "
                                 f"{shown(row['doc_id'])} of system {shown(system)} appears twice (first at line "
                                 f"{data.lines[placed[i]]})")
            placed[i] = k
            ref = data.rows[by_system[first][i]]
            for key in ("source_segment", "reference_segment", "domain_name"):
                if row[key] != ref[key]:
                    raise InputError(f"{where}, field {key}: differs from line {data.lines[by_system[first][i]]} "
                                     f"(system {shown(first)}) for segment {row['segment_id']} of document "
                                     f"{shown(row['doc_id'])}; every system has the same {key}")
        if None in placed:
            i = placed.index(None)
            raise InputError(f"{path}, field segment_id: system {shown(system)} of {lp} has no line for segment "
                             f"{order[i][1]} of document {shown(order[i][0])} (line {data.lines[by_system[first][i]]} "
                             f"for {shown(first)}); every system has every segment")
        rows[system] = [k for k in placed if k is not None]
    firsts = [data.rows[k] for k in rows[first]]
    sources = [unescape(r["source_segment"]) for r in firsts]
    refs = [r["reference_segment"] for r in firsts]
    missing = [i for i, r in enumerate(refs) if r.strip() in _MISSING]
    notes = []
    references: list[str] | None = [unescape(r) for r in refs]
    if missing:
        references = None
        if len(missing) < len(refs):
            k = rows[first][missing[0]]
            notes.append(f"{path}: {len(missing)} of {len(refs)} segments of {lp} have no reference (field "
                         f"reference_segment, first at line {data.lines[k]}); scored without references")
    systems = {s: [unescape(data.rows[k]["hypothesis_segment"]) for k in ks] for s, ks in rows.items()}
    names = {s: f"{path} ({s})" for s in systems}
    testset = TestSet(systems, sources, references, [doc for doc, _ in order], names=names, lp=lp)
    return Wmt25Pair(lp, set_id, testset, rows, notes, data)


def _number(x: float | None) -> str:
    return "NaN" if x is None or math.isnan(x) else repr(float(x))


def write_submission(path: str, data: Wmt25Tsv, pair: Wmt25Pair, scores: Mapping[str, Sequence[float | None]],
                     signature: str, spans: Mapping[str, Sequence[Sequence[tuple[int, int, str]]]] | None = None,
                     about: Sequence[str] = ()) -> str:
    """Write a submission for ``pair`` to ``path``: the test set's lines of the pair (file order, fields
    as written) with :data:`SCORE_FIELD` (``scores[system][segment]``, NaN where None) and, with
    ``spans`` (system -> per segment (start, end, severity) in the unescaped hypothesis), the span
    columns; the signature and ``about`` lines go to ``path + .signature``, which is returned."""
    fields = list(TSV_FIELDS) + [SCORE_FIELD] + (list(SPAN_FIELDS) if spans is not None else [])
    out_rows: dict[int, list[str]] = {}
    for system, ks in pair.rows.items():
        for i, k in enumerate(ks):
            row = data.rows[k]
            cells = [row[f] for f in TSV_FIELDS] + [_number(scores[system][i])]
            if spans is not None:
                hyp = unescape(row["hypothesis_segment"])
                found = sorted(spans.get(system, [[]] * len(ks))[i])
                if found:
                    cells += [" ".join(str(escaped_offset(hyp, s)) for s, _, _ in found),
                              " ".join(str(escaped_offset(hyp, e)) for _, e, _ in found),
                              " ".join(sev for _, _, sev in found)]
                else:
                    cells += ["", "", NO_ERROR]
            out_rows[k] = cells
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, delimiter="\t", quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
        writer.writerow(fields)
        for k in sorted(out_rows):
            writer.writerow(out_rows[k])
    side = path + SIGNATURE_SUFFIX
    with open(side, "w", encoding="utf-8") as f:
        f.write(signature + "\n")
        for line in about:
            f.write(line + "\n")
    return side


@dataclass(frozen=True)
class Submission:
    """What :func:`wmt25_submission` wrote: ``path`` (the TSV), ``signature_path`` (``path.signature``: the
    metric's signature and how the scores were written), ``lines`` written, ``missing`` (segments without a
    score, written NaN) and ``negated`` (a lower-is-better metric's scores written negated)."""

    path: str
    signature_path: str
    lines: int
    missing: int
    negated: bool
    #: the column of the scores, and what the signature's file adds to the submission's name
    SCORE_FIELD: ClassVar[str] = SCORE_FIELD
    SIGNATURE_SUFFIX: ClassVar[str] = SIGNATURE_SUFFIX


def wmt25_submission(path: str, results: Sequence[Any], data: EvalSet, spec: str | None = None) -> Submission:
    """Write one metric's segment scores on a WMT25 test TSV (``data``: ``read_human(TSV, lp=...)``; ``results``:
    the metric's Results on ``data.testset``, one unit per segment) as a submission in the task's format to
    ``path``: the TSV's lines of the pair with the score column ``overall``, oriented (a lower-is-better metric's
    scores negated, as the task reads higher as better), NaN for a segment without a score; the signature goes to
    ``path.signature`` (the task's readers take no comment line).  ``spec``: how the metric is named there
    (default: its signature).  A metric whose units span several segments is an InputError: the task scores
    segments.

    >>> data = read_human("mteval-task2.tsv", lp="en-de_DE")                            # doctest: +SKIP
    >>> wmt25_submission("predictions.tsv", load("chrf").compute(data.testset), data)   # doctest: +SKIP
    """
    pair: Any = getattr(data, "raw", None)
    if not isinstance(pair, Wmt25Pair) or pair.tsv is None:
        raise InputError(f"{getattr(data, 'source', data)}: a submission writes the lines of the WMT25 test TSV; "
                         "give what read_human reads from it", params=("data",))
    results = list(results)
    spec = spec or (results[0].signature.format() if results else "the metric")
    n = pair.testset.n_segments
    scores: dict[str, list[float | None]] = {}
    for r in results:
        wide = r.wide_unit()
        if wide is not None:
            raise InputError(f"{spec} scores units of several segments (e.g. lines {wide.start + 1}-{wide.end} of "
                             f"document {wide.doc_id!r}), so it has no segment scores; the task scores segments: "
                             "use a metric scoring one segment per unit (slide:w=1,s=1)", params=("results",))
        row: list[float | None] = [None] * n
        for u in r.oriented().units:
            row[u.start] = u.score
        scores[r.system] = row
    missing = sum(v is None for row in scores.values() for v in row)
    negated = not all(r.higher_is_better for r in results)
    signature = results[0].signature.format() if results else spec
    about = [f"# {SCORE_FIELD}: {spec}, one score per segment of {pair.lp} (set_id {pair.set_id}) from "
             f"{pair.tsv.path}"]
    if negated:
        about.append(f"# lower is better for this metric: {SCORE_FIELD} holds its scores negated (higher is better)")
    if missing:
        about.append(f"# {missing} segment(s) without a score: NaN")
    try:
        side = write_submission(path, pair.tsv, pair, scores, signature, about=about)
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror})", params=("path",)) from None
    return Submission(path, side, sum(len(v) for v in scores.values()), missing, negated)


# -- the format ---------------------------------------------------------------------------------------------
def is_wmt25_tsv(path: str) -> bool:
    """A TSV whose header has every field of the WMT25 metrics task's test file."""
    return set(TSV_FIELDS) <= set(tsv_header(path))


def read_evalset(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    """One language pair (and ``set_id``, default the official one) of the test TSV, as a test set."""
    pair = read_wmt25_tsv(path).pair(lp, options.get("set_id", OFFICIAL))
    return EvalSet(path, "wmt25-tsv", pair.lp, pair.testset, notes=tuple(pair.notes), raw=pair)


FORMAT = HumanFormat("wmt25-tsv", "the WMT25 metrics task's test TSV", is_wmt25_tsv, read_evalset, ("set_id",),
                     precedence=50, defaults={"set_id": OFFICIAL})
