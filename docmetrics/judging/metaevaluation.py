"""The result of a meta-evaluation: :class:`MetaEvaluation`, metrics judged against human scores on one language
pair (what :func:`docmetrics.judging.meta_evaluate`, :func:`~docmetrics.judging.evaluate.evaluate_wmt`,
:func:`~docmetrics.judging.evaluate.evaluate_mtme` and :func:`~docmetrics.judging.metaeval_human.evaluate_human`
return), each metric's :class:`~docmetrics.judging.metaeval_metric.MetaEval` in it.  Its ``to_dict(layout)``
is the JSON every command prints (``human``: the list of ``--human`` / ``--genmt``; ``mtme``: the object of
``--mtme`` and ``docmetrics metaeval``), its ``to_text()`` the text (:mod:`docmetrics.judging.metaeval_text`).
Values are read by the statistics registry's names (:mod:`docmetrics.judging.statistics`); nothing here computes
a statistic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..values.errors import InputError, SpecError
from . import statistics as stats
from .comparisons import Comparison
from .labels import row_labels
from .metaeval_metric import MetaEval

__all__ = ["MetaEvaluation", "MetaEval", "LEVELS", "LAYOUTS"]

#: The levels of a meta-evaluation.
LEVELS = ("system", "segment", "document")
#: the prefix of a statistic's name at a level other than the system's
_PREFIX = {"segment": "seg_", "document": "doc_"}
#: the JSON layouts: ``--human`` / ``--genmt``'s list, ``--mtme``'s object
LAYOUTS = ("human", "mtme")


@dataclass
class MetaEvaluation:
    """Metrics judged against human scores on one language pair: the one result of a meta-evaluation.

    ``metrics``: each metric's name -> its :class:`MetaEval` (``LABEL [k]`` as the tables name it, ``chrf [1]``; on
    MTME data its spec), in the order given; ``comparisons``: statistic -> the PERM-BOTH comparison of the metrics
    and their clusters (with two metrics or more); ``systems``: those every metric was compared on, ``left_out``
    those left out of the comparisons and why; ``lp`` and ``human_name`` the language pair and the human scores
    (MTME's name; a file's path); ``n_segments`` where segment-level human scores were judged.  ``specs``: the specs
    the metrics were given under; ``human``: the human scores judged against (None for MTME data with system scores
    only); ``human_text``: what they are, in the text under the table; ``data``: the data read, where
    :func:`~docmetrics.judging.meta_evaluate` was given some (MTME data is printed as ``--mtme`` prints it);
    ``layout``: the JSON :meth:`to_dict` gives by default (``human`` where ``meta_evaluate`` made it, ``mtme``
    where the WMT computation of ``--mtme`` did)."""

    lp: str
    human_name: str | None
    systems: list[str]
    left_out: list[str]
    metrics: dict[str, MetaEval]
    comparisons: dict[str, Comparison]
    n_resamples: int
    seed: int | None
    n_permutations: int
    spa_seed: int
    alpha: float
    n_segments: int | None = None
    specs: tuple[str, ...] = ()
    human: Any = None
    human_text: str = ""
    data: Any = field(default=None, repr=False, compare=False)
    layout: str = "mtme"

    @property
    def mtme_data(self) -> Any:
        """The MTME data judged (its :class:`~docmetrics.formats.mtme.MtmeTestSet`: root, test set, references)
        where this is a meta-evaluation of what ``read_human`` reads of an MTME directory, else None.  Such an
        evaluation is shown as ``--mtme`` shows it: :meth:`to_text` its text, ``to_dict(layout="mtme")`` its
        object (where the data was read), :func:`~docmetrics.judging.write_report` that object."""
        data = self.data
        if data is None or data.format != "mtme" or data.raw is None or data.testset is None:
            return None
        return data.raw

    def metric(self, metric: str | int) -> MetaEval:
        """One metric's meta-evaluation, named by its label (``chrf [1]``; on MTME data the metrics are keyed by
        their specs), its spec (``chrf``), its metric's name, or its index (from 0, in the order given)."""
        return self.metrics[self._label(metric)]

    def _label(self, metric: str | int) -> str:
        labels = list(self.metrics)
        if isinstance(metric, int) and not isinstance(metric, bool):
            if not -len(labels) <= metric < len(labels):
                raise InputError(f"metric index {metric}: {len(labels)} metric(s) were judged", params=("metric",))
            return labels[metric]
        if metric in self.metrics:
            return metric
        # MTME data keys its metrics by spec, as --mtme does: its tables' ``LABEL [k]`` names them too
        for by in (list(self.specs), [e.metric for e in self.metrics.values()], row_labels(self.specs)):
            found = [label for label, name in zip(labels, by) if name == metric]
            if len(found) == 1:
                return found[0]
            if found:
                raise InputError(f"metric {metric!r} names {len(found)} metrics ({', '.join(found)}): give one of "
                                 "those labels", params=("metric",))
        raise InputError(f"no metric {metric!r} was judged; the metrics: {', '.join(labels)} (a label, a spec or "
                         "an index)", params=("metric",))

    def value(self, metric: str | int, statistic: str, level: str = "system") -> float | None:
        """A statistic of one metric: by any name or alias of the statistics registry (``pearson``,
        ``seg-kendall``, ``acc_eq``, a plugin's), at ``level``, where a name without a level is read
        (``kendall`` at level ``segment`` is ``seg_kendall``).  None where it does not apply or is undefined
        (:meth:`note` says why); a statistic of another level is a SpecError saying which level it is."""
        if level not in LEVELS:
            raise SpecError(f"level={level!r}: one of {', '.join(LEVELS)}", params=("level",))
        return self.metric(metric).get(self._statistic(statistic, level))

    def note(self, metric: str | int, statistic: str, level: str = "system") -> str | None:
        """Why :meth:`value` gives None (None where it gives a number or nothing was said)."""
        return self.metric(metric).note(self._statistic(statistic, level))

    @staticmethod
    def _statistic(statistic: str, level: str) -> str:
        found = stats.get(statistic)
        if found.level == level:
            return found.name
        if level in _PREFIX:
            for name in (_PREFIX[level] + found.name, _PREFIX[level] + statistic):
                try:
                    other = stats.get(name)
                except InputError:
                    continue
                if other.level == level:
                    return other.name
        raise SpecError(f"statistic {statistic!r} is a {found.level}-level statistic ({found.title}), not a "
                        f"{level}-level one: give level={found.level!r}", params=("level",))

    def clusters(self, statistic: str, level: str = "system") -> list[list[str]]:
        """The metrics' significance clusters on one compared statistic: lists of metric labels, best first
        (empty where the statistic was not compared: one metric, or no resamples)."""
        comparison = self.comparisons.get(self._statistic(statistic, level))
        if comparison is None:
            return []
        out: dict[int | None, list[str]] = {}
        for r in comparison.ranking:
            out.setdefault(r.rank, []).append(r.metric)
        return [out[k] for k in sorted(out, key=lambda k: (k is None, k or 0))]

    def cluster_of(self, metric: str | int) -> dict[str, int | None]:
        """statistic -> the metric's cluster there (1 = best), for every statistic compared where it has a value
        (None: compared, but no clusters could be formed)."""
        name = self._label(metric)
        return {stat: r.rank for stat, comp in self.comparisons.items() for r in comp.ranking if r.metric == name}

    @property
    def pvalues(self) -> dict[str, dict[str, dict[str, float]]]:
        """metric label -> statistic -> each metric it ranks above -> the PERM-BOTH p-value of "it is better" (the
        JSON's ``pvalues``; the other metric named by its spec, by its label where two metrics share a spec)."""
        specs = [e.spec for e in self.metrics.values()]
        named = {n: e.spec if specs.count(e.spec) == 1 else n for n, e in self.metrics.items()}
        out: dict[str, dict[str, dict[str, float]]] = {}
        for label in self.metrics:
            mine: dict[str, dict[str, float]] = {}
            for stat, comp in self.comparisons.items():
                worse = {named[b]: t.p_value for (a, b), t in comp.tests.items() if a == label}
                if worse:
                    mine[stat] = worse
            out[label] = mine
        return out

    def to_text(self, width: int = 4, *, rank_by: str = "spa", explain: bool = True,
                written: Sequence[Any] = ()) -> str:
        """The text ``docmetrics --human FILE`` / ``--genmt FILE ...`` prints on stdout (``-w width``): the table of
        statistics, what each is, the clusters, what was left out, the signatures; on MTME data what ``docmetrics
        --mtme ROOT -t TESTSET -l LP -m ...`` prints, the metrics sorted by ``rank_by`` (``--rank-by``), what the
        columns mean with ``explain`` (``docmetrics metaeval`` says it under its first language pair only), the
        score files of ``written`` (the :class:`~docmetrics.judging.WrittenScores` of a
        :func:`~docmetrics.judging.run_mtme`) before the signatures."""
        from .metaeval_text import metaeval_text, mtme_text, written_lines

        if self.mtme_data is not None:
            signatures = {spec: e.signature for spec, e in self.metrics.items()}
            return mtme_text(self, self.mtme_data, list(self.data.testset.systems), signatures, width=width,
                             rank_by=rank_by, explain=explain, written=written_lines(written, list(signatures)))
        human = self.human_text or (str(self.human.path) if self.human is not None else "")
        return metaeval_text(self, human=human, width=width)

    def to_dict(self, layout: str | None = None) -> Any:
        """JSON-ready: ``layout="human"`` the list ``docmetrics --human FILE`` / ``--genmt FILE ... -f json`` prints
        (each metric's :meth:`MetaEval.to_dict`; where metrics were compared, with its ``clusters``, ``pvalues``,
        ``perm_both`` and, with Williams' test, ``williams``: the statistics it compared); ``layout="mtme"`` the
        object ``--mtme`` prints for a language pair (on MTME data with where it was read: ``testset``, ``root``,
        ``reference``, ``references``); default: :attr:`layout`."""
        layout = self.layout if layout is None else layout
        if layout == "human":
            return self._human_dicts()
        if layout != "mtme":
            raise SpecError(f"layout={layout!r}: {' or '.join(LAYOUTS)}", params=("layout",))
        mtme = self.mtme_data
        read = {} if mtme is None else {"testset": mtme.testset, "lp": self.lp, "root": mtme.root,
                                        "reference": mtme.ref, "references": list(mtme.refs)}
        out = {
            **read,
            "lp": self.lp,
            "human": self.human_name,
            "n_systems": len(self.systems),
            "systems": self.systems,
            "left_out": self.left_out,
            "n_segments": self.n_segments,
            "metrics": [m.to_dict(layout="mtme") for m in self.metrics.values()],
            "comparisons": {k: c.to_dict() for k, c in self.comparisons.items()},
            "perm_both": {"n_resamples": self.n_resamples, "seed": self.seed, "alpha": self.alpha},
            "spa": {"n_permutations": self.n_permutations, "seed": self.spa_seed},
        }
        if self.specs and len(set(self.specs)) == len(self.specs):  # each metric named by its spec, as --mtme does
            out["comparisons"] = _renamed(out["comparisons"], dict(zip(self.metrics, self.specs)))
        return out

    def _human_dicts(self) -> list[dict[str, Any]]:
        pvalues = self.pvalues if self.comparisons else {}
        williams = [s for s, c in self.comparisons.items() if c.metric_test == "williams"]
        out = []
        for name, e in self.metrics.items():
            d = e.to_dict()
            if self.comparisons:
                d["clusters"] = self.cluster_of(name)
                d["pvalues"] = pvalues[name]
                d["perm_both"] = {"n_resamples": self.n_resamples, "seed": self.seed, "alpha": self.alpha}
                if williams:  # --metric-test williams: these statistics' clusters and p-values are Williams' test's
                    d["williams"] = williams
            out.append(d)
        return out


def _renamed(value: Any, names: Mapping[str, str]) -> Any:
    """``value`` (JSON-ready) with every string that is a key of ``names`` replaced by its value."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, dict):
        return {k: _renamed(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    return value
