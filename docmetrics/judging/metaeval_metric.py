"""One metric's meta-evaluation: :class:`MetaEval`, its agreement with the humans on one language pair, every
statistic by its name in the registry (:mod:`docmetrics.judging.statistics`), and its JSON object in both layouts;
a :class:`~docmetrics.judging.metaevaluation.MetaEvaluation` holds one per metric judged."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..stats.base import EPSILON_RULE
from ..values.errors import SpecError
from ..values.units import as_score
from . import statistics as stats
from .doc_level import DOC_STATISTICS, DocEval

__all__ = ["MetaEval", "UNIT_LEVEL"]

#: the names of docmetrics' own statistics and MTME's (read without a look into the plugins)
_NAMES = frozenset(s.name for s in (*stats.BUILTIN, *stats.MTME))
#: ``seg_level_name`` of a metric whose units span several segments (with ``unit_level``)
UNIT_LEVEL = "unit (mean of its segments' human scores)"


@dataclass
class MetaEval:
    """One metric's agreement with the humans on one test set (see the module docstring).

    ``systems``, ``metric_scores`` and ``human_scores`` are parallel: the human names in sorted order
    (:func:`~docmetrics.judging.evaluate.evaluate_wmt`), or the systems as given
    (:func:`~docmetrics.judging.meta_evaluate` against HumanScores).  ``values`` holds every statistic
    computed, by its name in the registry (:mod:`docmetrics.judging.statistics`; docmetrics' own and the
    plugins'): None where it is undefined or does not apply, with the reason in ``notes`` under the same
    name; the document level is ``document``.  The statistics are also attributes (``e.pearson``,
    ``e.seg_acc_eq``, ...: views of ``values``); read any of them, by any of its names, with :meth:`get`.
    Beside the statistics, what they count: ``agree``/``pairs`` (pairwise accuracy), ``spa_items``,
    ``seg_epsilon``/``seg_groups``/``seg_pairs`` (acc_eq), ``seg_n`` and ``seg_level_name`` (what the
    segment-level statistics pair up: "segment", or :data:`UNIT_LEVEL`; None without them).
    """

    metric: str
    spec: str
    signature: str
    systems: list[str]
    metric_scores: list[float]
    human_scores: list[float]
    #: every statistic computed: name -> value (None: undefined or not applicable, see ``notes``)
    values: dict[str, float | None] = field(default_factory=dict)
    #: why a statistic has no value: name -> reason
    notes: dict[str, str] = field(default_factory=dict)
    agree: int = 0
    pairs: int = 0
    spa_items: str | None = None
    seg_epsilon: float | None = None
    seg_groups: int | None = None
    seg_pairs: int | None = None
    seg_n: int | None = None
    seg_level_name: str | None = None
    #: set when the calibrated epsilon ties every pair (acc_eq is then the share of human ties)
    acc_eq_note: str | None = None
    left_out: list[str] = field(default_factory=list)
    #: system-level Pairwise Difference Pearson was asked for (``values["pdp"]``)
    with_pdp: bool = False
    #: the document level, when asked for
    document: DocEval | None = None
    #: False where the metric scores errors: its scores were judged negated (every statistic reads higher
    #: as better), ``metric_scores`` are its own
    higher_is_better: bool = True
    #: The signature of the unit scores the segment level judged, where it is not :attr:`signature`
    #: (BLEU's sentence scores: eff:yes); None otherwise
    unit_signature: str | None = None

    @property
    def spa_note(self) -> str | None:
        """Why SPA has no value."""
        return self.notes.get("spa")

    @spa_note.setter
    def spa_note(self, text: str | None) -> None:
        self._set_note("spa", text)

    @property
    def seg_note(self) -> str | None:
        """Why the segment level (acc_eq, and the segment correlations without a reason of their own)
        has no value."""
        return self.notes.get("seg_acc_eq")

    @seg_note.setter
    def seg_note(self, text: str | None) -> None:
        self._set_note("seg_acc_eq", text)

    def _set_note(self, name: str, text: str | None) -> None:
        if text is None:
            self.notes.pop(name, None)
        else:
            self.notes[name] = text

    def _name(self, stat: str) -> str:
        """The registry's name of ``stat`` (any alias resolved); an unknown name is an InputError naming those there
        are."""
        return stat if stat in self.values or stat in self.notes or stat in _NAMES else stats.get(stat).name

    def get(self, stat: str) -> float | None:
        """A statistic by any of its names (see :mod:`docmetrics.judging.statistics`); None where it
        does not apply, is not computed here or is undefined (NaN); an unknown name is an InputError naming those
        there are."""
        name = self._name(stat)
        if name in DOC_STATISTICS:
            return None if self.document is None else self.document.get(name)
        return as_score(self.values.get(name))

    def note(self, stat: str) -> str | None:
        """Why ``stat`` has no value (None where it has one, or where nothing was said)."""
        name = self._name(stat)
        if name in DOC_STATISTICS:
            return "no document level" if self.document is None else self.document.note
        return self.notes.get(name)

    def note_lines(self, label: int | str, segment: str = "segment level") -> list[str]:
        """The notes under a table on this metric (``[label]``): why it has no SPA, why no ``segment`` level
        (acc_eq), and acc_eq's note on ties."""
        missing = (("SPA", self.spa_note), (segment, self.seg_note))
        lines = [f"[{label}] no {what}: {why}" for what, why in missing if why]
        return lines + ([f"[{label}] acc_eq: {self.acc_eq_note}"] if self.acc_eq_note else [])

    def plugin_statistics(self) -> list[str]:
        """The names of the statistics computed here by their own ``compute`` (a plugin's, or an entry of
        the registry that brings one), in the order they were computed: each is a key of the JSON layouts
        and a column of the tables after the statistics laid out by name."""
        return [name for name in self.values if name not in _LAID_OUT]

    def _system_level(self) -> dict[str, Any]:
        return {
            "systems": self.systems,
            "metric_scores": self.metric_scores,
            **({} if self.higher_is_better else {"higher_is_better": False}),
            "human_scores": self.human_scores,
            "pearson": as_score(self.pearson),
            "spearman": as_score(self.spearman),
            "kendall": as_score(self.kendall),
            "accuracy": as_score(self.accuracy),
            "agreeing_pairs": self.agree,
            "pairs": self.pairs,
        }

    def to_dict(self, layout: str = "human") -> dict[str, Any]:
        """JSON-ready.  ``layout="human"``: the object of ``--human -f json`` and of every point of a sweep: the
        system level, then, where segment-level human scores were given, the segment level, acc_eq and SPA;
        ``layout="mtme"``: the object of ``--mtme -f json`` (and ``docmetrics metaeval``): a ``system`` and a
        ``segment`` object (and, when asked for, ``pdp`` in ``system`` and a ``document`` object)."""
        if layout == "mtme":
            return self._wmt_dict()
        if layout != "human":
            raise SpecError(f"layout={layout!r}: human or mtme", params=("layout",))
        d: dict[str, Any] = {
            "metric": self.metric,
            "spec": self.spec,
            "signature": self.signature,
            "n_systems": len(self.systems),
            **self._system_level(),
            "left_out": self.left_out,
        }
        if self.seg_level_name is not None:
            d.update(
                {
                    "seg_kendall": as_score(self.seg_kendall),
                    "seg_items": self.seg_n,
                    "seg_level": self.seg_level_name,
                    "seg_pearson": as_score(self.seg_pearson),
                    "acc_eq": as_score(self.seg_acc_eq),
                    "epsilon": self.seg_epsilon,
                    "epsilon_rule": EPSILON_RULE,
                    "acc_eq_items": self.seg_groups,
                    "acc_eq_pairs": self.seg_pairs,
                    "seg_note": self.seg_note,
                    **({"acc_eq_note": self.acc_eq_note} if self.acc_eq_note else {}),
                    "spa": as_score(self.spa),
                    "spa_items": self.spa_items,
                    "spa_note": self.spa_note,
                    **({"unit_signature": self.unit_signature} if self.unit_signature else {}),
                }
            )
        self._extras(d)
        return d

    def _extras(self, d: dict[str, Any]) -> None:
        """The opt-in keys: ``pdp`` and ``document`` (absent unless asked for), and each plugin
        statistic (with ``NAME_note`` where it has none)."""
        if self.with_pdp:
            d["pdp"] = as_score(self.pdp)
        if self.document is not None:
            d["document"] = self.document.to_dict()
        self._plugin_values(d)

    def _plugin_values(self, d: dict[str, Any]) -> None:
        for name in self.plugin_statistics():
            value = self.values[name]
            d[name] = as_score(value)
            if name in self.notes:
                d[f"{name}_note"] = self.notes[name]

    def _wmt_dict(self) -> dict[str, Any]:
        d = {
            "metric": self.metric,
            "signature": self.signature,
            "system": {
                **self._system_level(),
                "accuracy_mtme": as_score(self.accuracy),
                "agreeing_pairs_mtme": self.agree,
                "pairs_mtme": self.pairs,
                "spa": as_score(self.spa),
                "spa_items": self.spa_items,
                "spa_note": self.spa_note,
            },
            "segment": None if self.seg_note is not None and self.seg_acc_eq is None else {
                "acc_eq": as_score(self.seg_acc_eq),
                "epsilon": self.seg_epsilon,
                "epsilon_rule": EPSILON_RULE,
                "items": self.seg_groups,
                "pairs": self.seg_pairs,
                "pearson": as_score(self.seg_pearson),
                "kendall": as_score(self.seg_kendall),
                "n": self.seg_n,
                **({"acc_eq_note": self.acc_eq_note} if self.acc_eq_note else {}),
                **({"unit_signature": self.unit_signature} if self.unit_signature else {}),
            },
            "segment_note": self.seg_note,
        }
        if self.with_pdp:
            d["system"]["pdp"] = as_score(self.pdp)  # type: ignore[index]
        if self.document is not None:
            d["document"] = self.document.to_dict()
        self._plugin_values(d)
        return d


def _statistic_view(name: str) -> property:
    def fget(self: MetaEval) -> float | None:
        return self.values.get(name)

    def fset(self: MetaEval, value: float | None) -> None:
        self.values[name] = value

    return property(fget, fset, doc=f"``values[{name!r}]``: {stats.get(name, plugins=False).title}")


#: the statistics this module computes and the JSON layouts name one by one
_LAID_OUT = frozenset(s.name for s in stats.BUILTIN if s.compute is None)
for _name in ("pearson", "spearman", "kendall", "accuracy", "spa", "seg_acc_eq", "seg_pearson", "seg_kendall", "pdp"):
    setattr(MetaEval, _name, _statistic_view(_name))
del _name
