"""Human judgements from a TSV file (``--human``): system-level or segment-level scores, read and checked.

The file has a header: ``system`` and a score column (system level), or ``system``, ``doc_id``,
``seg_id`` (and optionally ``doc_pos``) and a score column (segment level; the system score is then the
mean over the system's scored segments, as MQM system scores are).  Higher must mean better;
``lower_is_better`` negates (for MQM penalties).  An ``is_human`` column marks human "systems" (e.g. a
reference rated as a system), which can be excluded.  A segment sits at position ``doc_pos`` of its
document (1-based), or, without that column, at the rank of its ``seg_id`` there.

A raw MQM file as google/wmt-mqm-human-evaluation publishes it (one line per error, ``<v>`` marks; see
:mod:`docmetrics.formats.mqm`) is recognised by its header and read as MQM penalties per segment, lower
is better (so negated, as ``lower_is_better`` does), with its error spans; its ``doc`` column gives the
document, ``doc_id`` the position in it, and systems named ref.../Human-... count as human.

Everything a user can get wrong is an :class:`~docmetrics.values.errors.InputError` naming the file, the line
and the column; matching the file's systems to those scored and placing its segments on a test set's lines
is :mod:`docmetrics.judging.human_match`'s.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..values.errors import InputError, shown
from ..values.io import read_lines
from .base import EvalSet, HumanFormat, tsv_header
from .judgements import HumanScores, exact_mean
from .mqm import MQM_COLUMN, is_mqm_header, mqm_scores, read_mqm
from .stored_metric import parse_score

__all__ = ["SCORE_COLUMNS", "HumanScores", "load_human"]

SCORE_COLUMNS = ("score", "human", "human_score", "mqm_score", "mqm_score_mean", "z", "raw")
MISSING = {"", "na", "nan", "none", "null", "-"}


def _float(text: str, where: str) -> float | None:
    if text.strip().lower() in MISSING:
        return None
    return parse_score(text, where, f"leave the entry empty (or {'/'.join(sorted(MISSING - {''}))})",
                       nan_is_missing=True, bounded=False)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def load_human(path: str, column: str | None = None, lower_is_better: bool = False) -> HumanScores:
    """Read human scores (see the module docstring for the formats)."""
    raw = read_lines(path)
    lines = [ln for ln in raw if ln.strip()]
    if not lines:
        raise InputError(f"{path}: empty; expected a TSV with system and score columns")
    first = lines[0].split("\t")
    if raw[0].strip() and is_mqm_header([h.strip() for h in first]):
        if column not in (None, MQM_COLUMN):
            raise InputError(f"{path}: a raw MQM file (one line per error) has one score, the penalty computed from "
                             f"its errors ({MQM_COLUMN}), not a column {shown(column)}: drop --human-column")
        return mqm_scores(read_mqm(path, raw))
    if len(first) in (2, 4) and _is_number(first[-1]) and column is None:
        header = ["system", "score"] if len(first) == 2 else ["system", "doc_id", "seg_id", "score"]
        body = list(enumerate(lines, 1))
    else:
        header = [h.strip() for h in first]
        body = list(enumerate(lines[1:], 2))
    cols = {h: k for k, h in enumerate(header)}
    if "system" not in cols:
        raise InputError(
            f"{path}, line 1: no 'system' column (columns: {', '.join(header)}); the first line "
            "must be a header such as 'system<TAB>score'"
        )
    if column is None:
        column = next((c for c in SCORE_COLUMNS if c in cols), None)
        if column is None:
            raise InputError(
                f"{path}: which column holds the human score? none of {', '.join(SCORE_COLUMNS)} "
                f"is present (columns: {', '.join(header)}); name it with --human-column"
            )
    elif column not in cols:
        raise InputError(f"{path}: no column {shown(column)} (columns: {', '.join(header)})")
    seg_level = "doc_id" in cols and "seg_id" in cols
    sign = -1.0 if lower_is_better else 1.0
    system: dict[str, float] = {}
    seen: set[str] = set()
    segments: dict[str, dict[tuple[str, str], float]] = {}
    doc_pos: dict[tuple[str, str], int] = {}
    humans: set[str] = set()
    for lineno, line in body:
        parts = line.split("\t")
        if len(parts) < len(header):
            raise InputError(f"{path}, line {lineno}: {len(parts)} fields, the header has {len(header)}")
        name = parts[cols["system"]]
        where = f"{path}, line {lineno}, column {column}"
        value = _float(parts[cols[column]], where)
        if "is_human" in cols and parts[cols["is_human"]].strip().lower() in ("1", "true", "yes"):
            humans.add(name)
        if seg_level:
            key = (parts[cols["doc_id"]], parts[cols["seg_id"]])
            if "doc_pos" in cols:
                pos = _float(parts[cols["doc_pos"]], f"{path}, line {lineno}, column doc_pos")
                if pos is None or pos < 1 or not float(pos).is_integer():
                    raise InputError(f"{path}, line {lineno}: doc_pos must be a 1-based integer")
                if doc_pos.setdefault(key, int(pos)) != int(pos):
                    raise InputError(
                        f"{path}, line {lineno}: segment {key} has doc_pos {int(pos)} here "
                        f"and {doc_pos[key]} on another line"
                    )
            mine = segments.setdefault(name, {})
            if key in mine:
                raise InputError(f"{path}, line {lineno}: system {shown(name)} has segment {key} twice")
            if value is not None:
                mine[key] = sign * value
        else:
            if name in seen:
                raise InputError(f"{path}, line {lineno}: system {shown(name)} appears twice")
            seen.add(name)
            if value is not None:
                system[name] = sign * value
    if seg_level:
        system.update({name: exact_mean(list(scores.values())) for name, scores in segments.items() if scores})
        positions = doc_pos or _rank_positions(segments)
    else:
        positions = {}
    if not system:
        raise InputError(f"{path}: no human score in column {shown(column)}")
    # systems listed without any score are reported as such by evaluate() (no human score)
    return HumanScores(path, column, system, segments, positions, humans, lower_is_better=lower_is_better)


def _rank_positions(segments: dict[str, dict[tuple[str, str], float]]) -> dict[tuple[str, str], int]:
    """Without doc_pos: a segment's position in its document is the rank of its seg_id there."""
    keys = {k for seg in segments.values() for k in seg}
    by_doc: dict[str, list[str]] = {}
    for doc, seg in keys:
        by_doc.setdefault(doc, []).append(seg)
    out = {}
    for doc, segs in by_doc.items():
        numeric = all(_is_number(s) for s in segs)
        for k, s in enumerate(sorted(segs, key=float if numeric else str), 1):
            out[(doc, s)] = k
    return out


# -- the format ---------------------------------------------------------------------------------------------
def is_human_tsv(path: str) -> bool:
    """A TSV with a ``system`` column, or without a header: 2 or 4 fields, the last a number."""
    header = tsv_header(path)
    return "system" in header or (len(header) in (2, 4) and _is_number(header[-1]))


def read_evalset(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    """A TSV of human scores (``column``: the score column; ``lower_is_better``)."""
    human = load_human(path, options.get("column"), bool(options.get("lower_is_better", False)))
    return EvalSet(path, "human-tsv", lp, None, human, notes=tuple(human.warnings), raw=human)


FORMAT = HumanFormat("human-tsv", "a TSV of human scores (system[, doc_id, seg_id], score)", is_human_tsv,
                     read_evalset, ("column", "lower_is_better"), precedence=70)
