"""Corpus BLEU, chrF and TER as docmetrics aggregations: sacrebleu's score of summed statistics.

A corpus score of sacrebleu is no mean of segment scores: it is a function of the segments'
sufficient statistics summed over the corpus (n-gram matches and counts and lengths for BLEU,
character and word n-gram counts for chrF, edits and reference lengths for TER).  Each segment's
statistics travel as its unit's ``stats`` (one aggregation group per statistic), so the group sums the
template, the document scores and every resample of a significance test add up are exactly the
summed statistics, and :class:`CorpusStatistics` turns them into the score with sacrebleu's own
``_compute_score_from_stats``.

The score depends on options (BLEU's smoothing, chrF's orders and beta), and an aggregation is found
again by its name alone (``Result.aggregation``): :func:`corpus_aggregation` makes one subclass per
configuration, named after it (``sacrebleu-bleu(smooth_method=exp,smooth_value=none)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from docmetrics.algorithms.aggregation import Aggregation

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FAMILIES", "CorpusStatistics", "corpus_aggregation", "make_sacrebleu", "stat_names"]

#: The sacrebleu metric class of each family.
FAMILIES = {"bleu": "BLEU", "chrf": "CHRF", "ter": "TER"}


def make_sacrebleu(family: str, options: Mapping[str, Any]) -> Any:
    """A sacrebleu metric object (``sacrebleu.metrics.BLEU`` / ``CHRF`` / ``TER``) with ``options``."""
    import sacrebleu.metrics

    return getattr(sacrebleu.metrics, FAMILIES[family])(**options)


def stat_names(family: str, options: Mapping[str, Any]) -> list[str]:
    """The names of a family's per-segment statistics, in sacrebleu's order."""
    if family == "bleu":
        order = int(options.get("max_ngram_order", 4))
        return (["hyp_len", "ref_len"] + [f"correct{n}" for n in range(1, order + 1)]
                + [f"total{n}" for n in range(1, order + 1)])
    if family == "chrf":
        kinds = [f"char{n}" for n in range(1, int(options.get("char_order", 6)) + 1)]
        kinds += [f"word{n}" for n in range(1, int(options.get("word_order", 0)) + 1)]
        return [f"{k}_{part}" for k in kinds for part in ("hyp", "ref", "match")]
    if family == "ter":
        return ["edits", "ref_len"]
    raise ValueError(f"unknown sacrebleu family {family!r}; known: {', '.join(FAMILIES)}")


class CorpusStatistics(Aggregation):
    """sacrebleu's corpus score of the summed per-segment statistics (one group per statistic, in
    sacrebleu's order); NaN where nothing was scored.  Abstract: :func:`corpus_aggregation` makes the
    subclass of a configuration."""

    label: ClassVar[str] = "sacrebleu corpus score of its summed segment statistics"
    #: ``"bleu"``, ``"chrf"`` or ``"ter"``.
    family: ClassVar[str] = ""
    #: The options the score depends on (sorted ``(key, value)`` pairs).
    options: ClassVar[tuple[tuple[str, Any], ...]] = ()
    #: Statistics per segment.
    n_stats: ClassVar[int] = 0
    _scorer: ClassVar[Any] = None

    @classmethod
    def scorer(cls) -> Any:
        """The sacrebleu object computing the score (built once per configuration)."""
        if cls._scorer is None:
            cls._scorer = make_sacrebleu(cls.family, dict(cls.options))
        return cls._scorer

    def from_stats(self, stats: list[float]) -> float:
        """The score of one vector of summed statistics (integers stay integers, as in sacrebleu)."""
        values = [int(v) if float(v).is_integer() else float(v) for v in stats]
        return float(self.scorer()._compute_score_from_stats(values).score)

    def combine(self, num: np.ndarray, den: np.ndarray) -> np.ndarray:
        import numpy as np

        if num.shape[-1] != self.n_stats:
            raise ValueError(f"{self.name}: {num.shape[-1]} statistics given, {self.n_stats} expected")
        rows = num.reshape(-1, self.n_stats)
        scored = den.reshape(-1, self.n_stats).sum(axis=1) > 0
        out = np.array([self.from_stats(list(r)) if ok else np.nan for r, ok in zip(rows, scored)], dtype=float)
        return out.reshape(num.shape[:-1])


_BY_CONFIG: dict[tuple[str, tuple[tuple[str, Any], ...]], type[CorpusStatistics]] = {}


def corpus_aggregation(family: str, options: Mapping[str, Any]) -> CorpusStatistics:
    """The aggregation of a configuration (only the options that turn statistics into a score)."""
    key = (family, tuple(sorted(options.items())))
    cls = _BY_CONFIG.get(key)
    if cls is None:
        text = ",".join(f"{k}={'none' if v is None else v}" for k, v in key[1])
        name = f"sacrebleu-{family}({text})" if text else f"sacrebleu-{family}"
        cls = type(f"Corpus{FAMILIES[family]}", (CorpusStatistics,), {
            "name": name, "family": family, "options": key[1], "n_stats": len(stat_names(family, options)),
            "_scorer": None, "__module__": __name__,
        })
        _BY_CONFIG[key] = cls
    return cls()
