"""Stored scores from any of the files people publish, by file kind: MTME score files (read with MTME's
own score-file parser), WMT25's automatic-scores JSONL and a TSV (:mod:`docmetrics.formats.stored`).

``*.jsonl`` files are WMT25's (one per system); ``NAME-REF.{seg,doc,sys}.score`` files are MTME's,
their language pair the folder they lie in (``ROOT/TESTSET/metric-scores/LP/``) and their documents
those of ``ROOT/TESTSET/documents/LP.docs`` where it exists; anything else is a TSV.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from ..formats.mtme_scores import STORED_LEVELS, read_mtme_stored, score_file_level
from ..formats.stored import (
    StoredMetric,
    check_order,
    file_fingerprint,
    find_pair,
    read_score_tsv,
    read_wmt25_scores,
    to_results,
)
from ..values.errors import InputError, shown
from ..values.result import Result
from ..values.testset import TestSet

__all__ = ["StoredScores", "StoredScorer", "read_stored", "choose_stored", "NO_PAIR"]

#: The language pair of scores whose file names none (a TSV read without -l).
NO_PAIR = ""
#: Finer levels first: where one metric is given at several, the finest is kept.
_FINEST = STORED_LEVELS


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
            raise InputError(f"{metric.file_of(metric.systems[0])}: metric {shown(metric.name)} of "
                             f"{lp or 'the scores'} "
                             f"again (also in {old.file_of(old.systems[0])}); give each metric once")
        keep, drop = sorted((old, metric), key=lambda m: _FINEST.index(m.level))
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
        if score_file_level(path) is not None:
            out.add(read_mtme_stored(path, declared))
        else:
            for m in read_score_tsv(path, lp, declared).values():
                out.add(m)
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


class StoredScorer:
    """A stored metric as the judging runs take a metric: a metric whose units are already scored.
    :meth:`compute` gives its Results on a test set (:func:`~docmetrics.formats.stored.to_results`);
    :meth:`check` does so ahead, so that a stored metric that does not fit the test set stops a run
    before any model loads.  It reads no reference, truncates nothing and names no model."""

    needs: tuple = ()
    requested_signature = None

    def __init__(self, metric: StoredMetric) -> None:
        self.metric = metric
        self._done: tuple[TestSet, list[Result]] | None = None

    @property
    def name(self) -> str:
        return self.metric.name

    def signature(self):  # noqa: ANN201 - a Signature, as Metric.signature
        return self.metric.signature()

    def check(self, testset: TestSet) -> list[Result]:
        """Its Results on ``testset``, kept for :meth:`compute`; an InputError where they do not fit."""
        check_order(self.metric, testset)
        self._done = (testset, to_results(self.metric, testset))
        return self._done[1]

    def compute(self, testset: TestSet) -> list[Result]:
        if self._done is not None and self._done[0] is testset:
            return self._done[1]
        return self.check(testset)

    def check_references(self, testset: TestSet) -> None:
        """Stored scores were computed already: any references of the run are not theirs to refuse."""

    def reads_neighbours(self) -> bool:
        return False

    def truncation_fix(self) -> str:
        return ""
