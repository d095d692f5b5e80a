"""MTME score files, human and metric: ``SYS SCORE`` a line (``DOMAIN SYS SCORE`` at domain level), at a level
of :data:`LEVELS`, read with every count and name checked; the names of the files
(``human-scores/LP.NAME.LEVEL.score``, ``metric-scores/LP/NAME-REF.LEVEL.score``) parsed as MTME splits them; and
a metric score file read as a stored metric (:func:`read_mtme_stored`)."""

from __future__ import annotations

import os
from typing import Mapping, Optional, Sequence

from ..values.errors import InputError, shown
from ..values.io import read_lines
from .stored_metric import STORED_LEVELS, StoredMetric, choose_direction, file_fingerprint, parse_score

__all__ = ["LEVELS", "STORED_LEVELS", "Score", "read_score_file", "parse_human_filename", "parse_metric_filename",
           "score_file_level", "read_documents", "read_mtme_stored"]

LEVELS = ("sys", "domain", "doc", "seg")
Score = Optional[float]


def _parse_score(text: str, where: str, nan_is_missing: bool = True) -> Score:
    if text == "None":
        return None
    value = parse_score(text, where, "write None", nan_is_missing=True)
    if value is None and not nan_is_missing:
        raise InputError(f"{where}, field SCORE: {shown(text)} is not a number; write None where a score is missing")
    return value


def read_score_file(
    path: str,
    level: str,
    *,
    n_items: int | None = None,
    systems: Sequence[str] | None = None,
    domains: Sequence[str] | None = None,
    nan_is_missing: bool = True,
    lines: dict[str, list[int]] | None = None,
) -> dict[str, list[Score]]:
    """Read an MTME score file (human or metric): system -> scores.

    ``n_items``: how many scores each system must have (documents or segments; 1 at sys level);
    ``systems``: the known systems (others are an error); ``domains``: the domain order (domain level);
    ``None`` is a missing score, and so is NaN unless ``nan_is_missing`` is False; ``lines``: filled with each
    system's line numbers.
    """
    if level not in LEVELS:
        raise InputError(f"{path}: unknown level {shown(level)}; one of {', '.join(LEVELS)}")
    if level == "domain" and domains is None:
        raise InputError(f"{path}: domain-level scores need the domain names")
    known = set(systems) if systems is not None else None
    dom_index = {d: k for k, d in enumerate(domains or [])}
    fields = 3 if level == "domain" else 2
    expected = "DOMAIN SYSTEM SCORE" if level == "domain" else "SYSTEM<TAB>SCORE"
    scores: dict[str, list[Score]] = {}
    last_line: dict[str, int] = {}
    for lineno, line in enumerate(read_lines(path), 1):
        parts = line.split()
        where = f"{path}, line {lineno}"
        if len(parts) != fields:
            raise InputError(f"{where}: expected {fields} fields ({expected}), found {len(parts)}")
        name = parts[-2]
        if known is not None and name not in known:
            raise InputError(f"{where}: unknown system {shown(name)}; it has no file in system-outputs")
        value = _parse_score(parts[-1], where, nan_is_missing)
        last_line[name] = lineno
        if lines is not None:
            lines.setdefault(name, []).append(lineno)
        if level == "domain":
            if parts[0] not in dom_index:
                raise InputError(f"{where}: unknown domain {shown(parts[0])} (domains: {', '.join(dom_index)})")
            row = scores.setdefault(name, [None] * len(dom_index))
            row[dom_index[parts[0]]] = value
        elif level == "sys":
            if name in scores:
                raise InputError(f"{where}: system {shown(name)} appears twice; a sys-level file has one line "
                                 f"per system")
            scores[name] = [value]
        else:
            scores.setdefault(name, []).append(value)
    if n_items is not None and level in ("doc", "seg"):
        unit = "document" if level == "doc" else "segment"
        for name, vals in scores.items():
            if len(vals) != n_items:
                raise InputError(
                    f"{path}, line {last_line[name]}: system {shown(name)} has {len(vals)} scores; "
                    f"expected {n_items} (one per {unit}, in order)"
                )
    return scores


def parse_human_filename(path: str, lp: str) -> tuple[str, str]:
    """``LP.NAME.LEVEL.score`` -> (NAME, LEVEL); NAME may contain dots (``round2.mqm.merged``)."""
    toks = os.path.basename(path).split(".")
    if len(toks) < 4 or toks[-1] != "score" or toks[0] != lp:
        raise InputError(f"{path}: a human score file is named LP.NAME.LEVEL.score (e.g. {lp}.mqm.seg.score)")
    level = toks[-2]
    if level not in LEVELS:
        raise InputError(f"{path}: unknown level {shown(level)} in the file name; one of {', '.join(LEVELS)}")
    return ".".join(toks[1:-2]), level


def score_file_level(path: str) -> str | None:
    """The LEVEL of a file named as an MTME score file (``*.LEVEL.score``, LEVEL one of :data:`LEVELS`), else None."""
    parts = os.path.basename(path).rsplit(".", 2)
    return parts[1] if len(parts) == 3 and parts[2] == "score" and parts[1] in LEVELS else None


def parse_metric_filename(path: str) -> tuple[str, str, str]:
    """``NAME-REF.LEVEL.score`` -> (NAME, REF, LEVEL), as MTME splits it."""
    base = os.path.basename(path)
    parts = base.rsplit(".", 2)
    if len(parts) != 3 or parts[2] != "score" or parts[1] not in LEVELS or "-" not in parts[0]:
        raise InputError(f"{path}: a metric score file is named NAME-REF.LEVEL.score (LEVEL: {', '.join(LEVELS)})")
    name, ref = parts[0].rsplit("-", 1)
    if not name or not ref:
        raise InputError(f"{path}: a metric score file is named NAME-REF.LEVEL.score")
    return name, ref, parts[1]


def read_documents(path: str) -> tuple[list[str], list[str]]:
    """``documents/LP.docs``: one ``DOMAIN DOCNAME`` a line, parallel to the source -> (domains, document names)."""
    domains, doc_ids = [], []
    for lineno, line in enumerate(read_lines(path), 1):
        parts = line.split()
        if len(parts) < 2:
            raise InputError(f"{path}, line {lineno}: expected 'DOMAIN DOCNAME', found {shown(line)}")
        domains.append(parts[0])
        doc_ids.append(parts[1])
    return domains, doc_ids


def read_mtme_stored(path: str, declared: Mapping[str, bool] | None = None) -> StoredMetric:
    """One MTME metric score file ``.../metric-scores/LP/NAME-REF.LEVEL.score`` (seg, doc or sys level) as
    a :class:`StoredMetric` named ``NAME-REF``; ``None`` is a missing score (MTME's way), NaN an error."""
    name, ref, level = parse_metric_filename(path)
    if level not in STORED_LEVELS:
        raise InputError(f"{path}: {level}-level scores are not read as a stored metric; give the "
                         f"{', '.join(STORED_LEVELS)}-level file")
    lp_dir = os.path.dirname(os.path.abspath(path))
    lp = os.path.basename(lp_dir)
    docs_path = os.path.join(os.path.dirname(os.path.dirname(lp_dir)), "documents", f"{lp}.docs")
    doc_ids: list[str] | None = None
    if os.path.isfile(docs_path) and level in ("seg", "doc"):
        names = read_documents(docs_path)[1]
        doc_ids = names if level == "seg" else list(dict.fromkeys(names))
    lines: dict[str, list[int]] = {}
    n_items = 1 if level == "sys" else (len(doc_ids) if doc_ids is not None else None)
    scores = read_score_file(path, level, n_items=n_items, nan_is_missing=False, lines=lines)
    if not scores:
        raise InputError(f"{path}: no scores (one line SYSTEM<TAB>SCORE per system and item)")
    sizes = {s: len(v) for s, v in scores.items()}
    first = next(iter(sizes))
    for s, k in sizes.items():
        if k != sizes[first]:
            raise InputError(f"{path}, line {lines[s][-1]}: system {shown(s)} has {k} scores, system "
                             f"{shown(first)} has "
                             f"{sizes[first]}; every system has one score per item, in order")
    metric = f"{name}-{ref}"
    files = {s: path for s in scores}
    higher, how = choose_direction(metric, scores, lines, files, declared)
    return StoredMetric(metric, lp, dict(scores), lines, files, file_fingerprint([path]), "mtme", higher, how,
                        level, doc_ids)
