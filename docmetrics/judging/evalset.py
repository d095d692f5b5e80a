"""What :func:`~docmetrics.judging.formats.read_human` returns: one language pair of human-judged (or
scorable) data, whatever file it came from, as mt-metrics-eval's ``EvalSet`` is one test set and pair."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from ..values.errors import InputError

if TYPE_CHECKING:
    from ..evaluation.human_clusters import HumanJudgements
    from ..evaluation.spans import SpanGold
    from ..formats.human_tsv import HumanScores
    from ..values.result import Result
    from ..formats.stored import StoredMetric
    from ..values.testset import TestSet

__all__ = ["EvalSet"]


@dataclass(frozen=True)
class EvalSet:
    """One language pair of judging data, read by a human-data format.

    ``source``: the file or directory read; ``format``: the name of the format that read it; ``lp``: the
    language pair as the file names it (None where the file names none and none was given).
    ``testset``: the :class:`~docmetrics.values.testset.TestSet` to score where the file carries the texts
    (GenMT, raw MQM, MTME, WMT25 TSV, WMT26), else None.  ``human``: the human scores the meta-evaluation
    reads (system and, where given, segment level), None where the file has none.  ``stored``: metric name ->
    :class:`~docmetrics.formats.stored.StoredMetric` for files of stored scores (:meth:`results` gives them as
    Results).  ``notes``: what the reader found odd but read, for the caller to show.  ``raw``: the reader's own
    object (``GenmtPair``, ``MqmRatings``, ``MtmeTestSet``, ``Wmt25Pair``, ``Wmt26Pair``, ``StoredScores``,
    ``HumanScores``), for what only that form has.

    :attr:`judgements` (the segment scores human clusters read: by default those of ``human``, where it has
    segment scores) and :attr:`spans` (the gold error spans) are built when first read; where the file has none,
    reading them is an :class:`~docmetrics.values.errors.InputError` saying why.
    """

    source: str
    format: str
    lp: str | None
    testset: TestSet | None = None
    human: HumanScores | None = None
    stored: dict[str, StoredMetric] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    raw: Any = field(default=None, repr=False)
    make_judgements: Callable[[], HumanJudgements] | None = field(default=None, repr=False, compare=False)
    make_spans: Callable[[], SpanGold] | None = field(default=None, repr=False, compare=False)

    @functools.cached_property
    def judgements(self) -> HumanJudgements:
        """The segment-level human scores of each system, as human clusters read them."""
        if self.make_judgements is None and self.human is not None and self.human.segment_level:
            from ..evaluation.human_clusters import HumanJudgements

            found = HumanJudgements.from_human(self.human)
            found.lp = self.lp
            return found
        if self.make_judgements is None:
            raise InputError(f"{self.source}: a {self.format} file holds no segment-level human scores; human "
                             "clusters need them")
        return self.make_judgements()

    @functools.cached_property
    def spans(self) -> SpanGold:
        """The human error spans (GenMT ESA errors, raw MQM marks) that span predictions are judged against."""
        if self.make_spans is None:
            raise InputError(f"{self.source}: a {self.format} file holds no human error spans; give a GenMT file "
                             "with ESA errors or a raw MQM file")
        return self.make_spans()

    @property
    def systems(self) -> list[str]:
        """The systems to score (the test set's), else those with a human score, else the stored ones'."""
        if self.testset is not None:
            return list(self.testset.systems)
        if self.human is not None:
            return list(self.human.system)
        return list(dict.fromkeys(s for m in self.stored.values() for s in m.systems))

    def results(self, names: list[str] | None = None) -> dict[str, list[Result]]:
        """The stored metrics (``names``, default all) as Results, one per system, in the test set's order
        where there is one: what :func:`~docmetrics.judging.metaeval.meta_evaluate` takes beside live ones."""
        from ..formats.stored import to_results

        chosen = list(self.stored) if names is None else names
        unknown = [n for n in chosen if n not in self.stored]
        if unknown:
            raise InputError(f"{self.source}: no stored metric {unknown[0]!r}; it has "
                             f"{', '.join(self.stored) or 'none'}")
        return {n: to_results(self.stored[n], self.testset) for n in chosen}
