"""Stored scores from any of the files people publish, by file kind: MTME score files (read with MTME's
own score-file parser), WMT25's automatic-scores JSONL and a TSV (:mod:`docmetrics.values.stored`).

``*.jsonl`` files are WMT25's (one per system); ``NAME-REF.{seg,doc,sys}.score`` files are MTME's,
their language pair the folder they lie in (``ROOT/TESTSET/metric-scores/LP/``) and their documents
those of ``ROOT/TESTSET/documents/LP.docs`` where it exists; anything else is a TSV.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from ..values.errors import InputError
from ..values.io import read_lines
from ..values.stored import (
    StoredMetric,
    choose_direction,
    file_fingerprint,
    find_pair,
    read_score_tsv,
    read_wmt25_scores,
)
from .mtme import LEVELS, parse_metric_filename, read_score_file

__all__ = ["StoredScores", "read_stored", "read_mtme_stored", "NO_PAIR"]

#: The language pair of scores whose file names none (a TSV read without -l).
NO_PAIR = ""
#: Finer levels first: where one metric is given at several, the finest is kept.
_FINEST = ("seg", "doc", "sys")


@dataclass
class StoredScores:
    """Stored metrics read from files: lp -> metric name -> :class:`StoredMetric` (lp :data:`NO_PAIR`
    for a TSV read without a language pair), and what was read but not kept (``notes``)."""

    pairs: dict[str, dict[str, StoredMetric]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def language_pairs(self) -> list[str]:
        return [lp for lp in self.pairs if lp != NO_PAIR]

    def pair(self, wanted: str, where: str) -> tuple[str, dict[str, StoredMetric]]:
        """(the pair's name as the files write it, its metrics): ``wanted`` as written or without its
        locales (``en-ko`` for ``en-ko_KR``), an InputError listing the pairs otherwise."""
        have = self.language_pairs()
        if not have and NO_PAIR in self.pairs:
            return wanted, self.pairs[NO_PAIR]
        name = find_pair(wanted, have, where)
        return name, {**self.pairs.get(NO_PAIR, {}), **self.pairs[name]}

    def add(self, metric: StoredMetric) -> None:
        lp = metric.lp if metric.lp is not None else NO_PAIR
        metrics = self.pairs.setdefault(lp, {})
        old = metrics.get(metric.name)
        if old is None:
            metrics[metric.name] = metric
            return
        if old.level == metric.level:
            raise InputError(f"{metric.file_of(metric.systems[0])}: metric {metric.name!r} of {lp or 'the scores'} "
                             f"again (also in {old.file_of(old.systems[0])}); give each metric once")
        keep, drop = sorted((old, metric), key=lambda m: _FINEST.index(m.level))
        metrics[metric.name] = keep
        self.notes.append(f"{metric.name} ({lp}): {drop.level}-level scores ({drop.file_of(drop.systems[0])}) not "
                          f"used; its {keep.level}-level scores are")


def read_mtme_stored(path: str, declared: Mapping[str, bool] | None = None) -> StoredMetric:
    """One MTME metric score file ``.../metric-scores/LP/NAME-REF.LEVEL.score`` (seg, doc or sys level) as
    a :class:`StoredMetric` named ``NAME-REF``; ``None`` is a missing score (MTME's way), NaN an error."""
    name, ref, level = parse_metric_filename(path)
    if level not in _FINEST:
        raise InputError(f"{path}: {level}-level scores are not read as a stored metric; give the "
                         f"{', '.join(_FINEST)}-level file")
    lp_dir = os.path.dirname(os.path.abspath(path))
    lp = os.path.basename(lp_dir)
    docs_path = os.path.join(os.path.dirname(os.path.dirname(lp_dir)), "documents", f"{lp}.docs")
    doc_ids: list[str] | None = None
    if os.path.isfile(docs_path) and level in ("seg", "doc"):
        names = []
        for lineno, line in enumerate(read_lines(docs_path), 1):
            parts = line.split()
            if len(parts) != 2:
                raise InputError(f"{docs_path}, line {lineno}: expected 'DOMAIN DOCNAME', found {line!r}")
            names.append(parts[1])
        doc_ids = names if level == "seg" else list(dict.fromkeys(names))
    lines: dict[str, list[int]] = {}
    for lineno, line in enumerate(read_lines(path), 1):
        parts = line.split()
        if len(parts) == 2:
            try:
                nan = math.isnan(float(parts[1]))
            except ValueError:
                nan = False
            if nan:
                raise InputError(f"{path}, line {lineno}, field SCORE: {parts[1]!r} is not a number; write None "
                                 "where a score is missing")
            lines.setdefault(parts[0], []).append(lineno)
    n_items = 1 if level == "sys" else (len(doc_ids) if doc_ids is not None else None)
    scores = read_score_file(path, level, n_items=n_items, allow_none=True)
    if not scores:
        raise InputError(f"{path}: no scores (one line SYSTEM<TAB>SCORE per system and item)")
    sizes = {s: len(v) for s, v in scores.items()}
    first = next(iter(sizes))
    for s, k in sizes.items():
        if k != sizes[first]:
            raise InputError(f"{path}, line {lines[s][-1]}: system {s!r} has {k} scores, system {first!r} has "
                             f"{sizes[first]}; every system has one score per item, in order")
    metric = f"{name}-{ref}"
    files = {s: path for s in scores}
    higher, how = choose_direction(metric, scores, lines, files, declared)
    return StoredMetric(metric, lp, dict(scores), lines, files, file_fingerprint([path]), "mtme", higher, how,
                        level, doc_ids)


def read_stored(paths: Sequence[str], *, lp: str | None = None,
                declared: Mapping[str, bool] | None = None) -> StoredScores:
    """Every stored metric of ``paths`` (see the module docstring); ``lp``: the language pair of TSV
    files, which do not name one; ``declared``: metric name -> higher_is_better."""
    if not paths:
        raise InputError("no scores file given")
    out = StoredScores()
    jsonl = [p for p in paths if p.endswith(".jsonl")]
    if jsonl:
        for metrics in read_wmt25_scores(jsonl, declared).values():
            for m in metrics.values():
                out.add(m)
    for path in paths:
        if path.endswith(".jsonl"):
            continue
        base = os.path.basename(path)
        if base.endswith(".score") and base.rsplit(".", 2)[-2:-1] and base.rsplit(".", 2)[-2] in LEVELS:
            out.add(read_mtme_stored(path, declared))
        else:
            for m in read_score_tsv(path, lp, declared).values():
                out.add(m)
    return out
