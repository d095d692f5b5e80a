"""The result of a meta-evaluation: :class:`MetaEvaluation`, metrics judged against human scores on one language
pair (what :func:`docmetrics.judging.meta_evaluate`, :func:`~docmetrics.judging.evaluate.evaluate_wmt` and
:func:`~docmetrics.judging.evaluate.evaluate_mtme` return), each metric's
:class:`~docmetrics.judging.metaeval_metric.MetaEval` in it.  Its ``to_dict(layout)`` is the JSON every command
prints (``human``: the list of ``--human`` / ``--genmt``; ``mtme``: the object of ``--mtme`` and ``docmetrics
metaeval``), its ``to_text()`` the text, rendered here (:func:`metaeval_text`: ``--human`` / ``--genmt``'s;
:func:`mtme_text`: a language pair of MTME data, ``--mtme`` and ``docmetrics metaeval``'s).  Values are read by the
statistics registry's names (:mod:`docmetrics.judging.statistics`); nothing here computes a statistic."""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Collection, Mapping, Sequence

from ..stats.tasks import rank_order
from ..values.errors import InputError, SpecError
from . import statistics as stats
from .comparisons import Comparison
from .labels import namer, row_labels
from .metaeval_metric import MetaEval
from .stat_table import ranks, significance_lines, stat_table, untested_lines
from .statistics import LEVELS

if TYPE_CHECKING:
    from ..formats.mtme import MtmeTestSet

__all__ = ["MetaEvaluation", "MetaEval", "LEVELS", "LAYOUTS", "metaeval_text", "mtme_text",
           "spa_text", "ACC_EQ_TEXT", "DOC_TEXT", "PDP_TEXT"]

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
        return ranks(self.comparisons).get(self._label(metric), {})

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
        if self.mtme_data is not None:
            signatures = {spec: e.signature for spec, e in self.metrics.items()}
            return mtme_text(self, self.mtme_data, list(self.data.testset.systems), signatures, width=width,
                             rank_by=rank_by, explain=explain, written=written)
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


# -- the text: --human / --genmt's, and a language pair of MTME data's (--mtme, metaeval) ------------------------
#: what acc_eq is, in the notes under a table
ACC_EQ_TEXT = ("acc_eq: pairwise accuracy over the systems' segment scores per source segment, ties in the metric "
               "within epsilon (tie calibration), averaged over segments.")


#: what the system-level PDP column is, in the notes under a table
PDP_TEXT = "sys-pdp: system-level Pairwise Difference Pearson (MTME 2025)."
#: what the document-level columns are, in the notes under a table
DOC_TEXT = ("Document level: gold per (system, document); acc_eq grouped by document (each document compares the "
            "systems; tie calibration, epsilon); pearson/kendall over all (system, document) pairs; "
            "pearson-doc/kendall-doc: the mean of the per-document correlations (MTME average_by='item'); SPA with the "
            "documents as permutation items; pdp: Pairwise Difference Pearson of the systems' differences within each "
            "document.  " + PDP_TEXT)


def spa_text(n_permutations: int, seed: int) -> str:
    """What SPA is, in the notes under a table."""
    return (f"SPA: p-values of a paired permutation test on segment scores ({n_permutations} permutations, seed "
            f"{seed}) for the humans and the metric, 1 - mean |difference| over system pairs.")


def metaeval_text(ev: MetaEvaluation, *, human: str, width: int = 4) -> str:
    """The meta-evaluation table (:mod:`docmetrics.judging.stat_table`) with ``width`` decimals, what the human
    scores are (``human``: :func:`~docmetrics.judging.describe_human`), how each statistic is computed, the
    clusters, what is left out, the signatures: what ``docmetrics --human`` / ``--genmt`` print."""
    evals = list(ev.metrics.values())
    segment = ev.n_segments is not None
    out = io.StringIO()
    out.write(stat_table(ev.metrics, ev.comparisons, width, segment=segment))
    out.write(f"\nHuman scores: {human}.  accuracy: pairwise system accuracy (Kocmi et al., 2021), pairs "
              "agreeing/all.\n")
    for line in significance_lines(ev.comparisons, len(evals), ev.n_resamples, ev.seed, ev.alpha):
        out.write(line + "\n")
    if any(e.seg_kendall is not None for e in evals):
        e0 = next(e for e in evals if e.seg_kendall is not None)
        out.write(f"seg-kendall: Kendall tau-b over pooled (system, {e0.seg_level_name}) pairs; seg-pearson: Pearson "
                  "over pooled (system, segment) pairs, for metrics with one unit per segment.\n")
    if any(e.seg_level_name is not None for e in evals):
        out.write(spa_text(ev.n_permutations, ev.spa_seed) + "\n" + ACC_EQ_TEXT + "\n")
        out.writelines(line + "\n" for k, e in enumerate(evals) for line in e.note_lines(k + 1, "acc_eq"))
    for name in dict.fromkeys(p for e in evals for p in e.plugin_statistics()):
        found = stats.get(name)
        whose = "mt-metrics-eval's, by docmetrics.stats" if found.opt_in else "a plugin statistic"
        out.write(f"{found.header}: {found.title} ({whose}).\n")
        for k, e in enumerate(evals):
            if name in e.notes:
                out.write(f"[{k + 1}] no {name}: {e.notes[name]}\n")
    docs = [e for e in evals if e.document is not None]
    if any(e.with_pdp for e in evals) and not docs:
        out.write(PDP_TEXT + "\n")
    if docs:
        out.write("\nDocument level\n" + stat_table(ev.metrics, ev.comparisons, width, segment=segment,
                                                     block="document") + "\n")
        out.write(f"Gold: {docs[0].document.gold}.  " + DOC_TEXT + "\n")  # type: ignore[union-attr]
        for k, e in enumerate(evals):
            if e.document is not None and e.document.note:
                out.write(f"[{k + 1}] document level: {e.document.note}\n")
    for k, e in enumerate(evals):
        if e.left_out:
            out.write(f"[{k + 1}] left out: {', '.join(e.left_out)}\n")
    for line in untested_lines(ev.comparisons):
        out.write(line + "\n")
    if ev.left_out and len(evals) > 1:
        out.write(f"Left out of the comparisons between metrics: {', '.join(ev.left_out)}\n")
    out.write("\nSignatures:\n")
    for k, e in enumerate(evals):
        out.write(f"[{k + 1}] {e.signature}\n")
        if e.unit_signature:
            out.write(f"[{k + 1}] segment scores: {e.unit_signature}\n")
    return out.getvalue()


# -- MTME: one language pair, as --mtme and docmetrics metaeval print it ------------------------------------------
def mtme_text(ev: MetaEvaluation | None, data: MtmeTestSet, systems: Sequence[str], signatures: Mapping[str, str], *,
              width: int = 4, rank_by: str = "spa", explain: bool = True, written: Sequence[Any] = (),
              scores_table: str = "") -> str:
    """One language pair of MTME data (``data``, its ``systems`` scored): the line naming the test set, then the
    meta-evaluation ``ev`` (:func:`_mtme_table`; None: not meta-evaluated, and ``scores_table``, the scores, in its
    place), the systems not scored and why, the score files a run wrote (``written``: its
    :class:`~docmetrics.judging.WrittenScores`, parallel to ``signatures``), and
    ``signatures`` (spec -> its signature, in the order given: the metrics' ``LABEL [k]``); ``rank_by``: the
    statistic the metrics are sorted by; ``explain``: say what the columns mean.  What ``docmetrics --mtme`` prints
    and ``MetaEvaluation.to_text()`` gives on MTME data."""
    labels = {spec: k + 1 for k, spec in enumerate(signatures)}
    refs = (f"references {', '.join(data.refs)}" if len(data.refs) > 1 else f"reference {data.ref or 'none'}")
    out = io.StringIO()
    out.write(f"{data.testset} {data.lp}: {len(systems)} systems, {data.n_segments} segments, "
              f"{len(data.docs)} documents; {refs}")
    if ev is None:
        out.write(("; no human scores\n" if data.human_name is None else "; no meta-evaluation\n") + scores_table)
    else:
        out.write(f"; human scores {ev.human_name}\n")
        out.write(_mtme_table(ev, width, labels, rank_by, systems, explain))
    not_scored = [f"{s} ({_why_not_scored(data, s)})" for s in sorted(data.system_outputs) if s not in systems]
    if not_scored:
        out.write(f"Not scored: {', '.join(not_scored)}\n")
    for k, w in enumerate(written[: len(signatures)]):  # each metric's MTME score files, [k] its label
        levels = ",".join(lv for lv in ("sys", "doc", "seg") if lv in w.paths)
        out.write(f"[{k + 1}] MTME scores: {os.path.dirname(w.paths['sys'])}/{w.metric}-{w.ref}.{{{levels}}}.score\n")
    out.write("\nSignatures:\n")
    for spec, signature in signatures.items():
        out.write(f"[{labels[spec]}] {signature}\n")
    return out.getvalue()


def _why_not_scored(data: MtmeTestSet, system: str) -> str:
    if system in data.refs:
        return "the reference in use" if len(data.refs) == 1 else "a reference in use"
    if system in data.human_systems:
        return "human translation; --include-human"
    if data.standard is not None and system in data.standard.outliers:
        return "outlier; --include-outliers"
    return "not in --systems"


def _mtme_doc_block(ev: MetaEvaluation, metrics: dict[str, MetaEval], labels: dict[str, str], width: int) -> str:
    """The document-level block, only when asked for (--doc-level)."""
    first = next((mw.document for mw in metrics.values() if mw.document is not None), None)
    if first is None:
        return ""
    left = f", {first.docs_left_out} without a judged segment left out" if first.docs_left_out else ""
    return (f"\nDocument level: {first.n_docs} documents{left}; gold: {first.gold}\n"
            + stat_table(metrics, ev.comparisons, width, segment=ev.n_segments is not None, labels=labels,
                         block="document"))


def _title(name: str) -> str:
    """A statistic's title as the registry gives it (a name it does not know: the name)."""
    try:
        return stats.get(name).title
    except InputError:
        return name


def _mtme_table(ev: MetaEvaluation, width: int, labels: Mapping[str, int], rank_by: str, scored: Collection[str] | None,
                explain: bool) -> str:
    """The table of statistics (:mod:`docmetrics.judging.stat_table`): the metrics sorted by ``rank_by`` (those
    without it last), each statistic with its significance cluster in parentheses, then what the columns
    mean, notes and the systems left out (of ``scored``, the systems scored, where given); ``explain``: say
    what the columns mean."""
    named = namer(labels)
    have = {m: v for m in ev.metrics if (v := ev.metrics[m].get(rank_by)) is not None}
    order = rank_order(have) + [m for m in ev.metrics if m not in have]
    metrics = {m: ev.metrics[m] for m in order}
    shown = {m: named(m) for m in order}
    text = (stat_table(metrics, ev.comparisons, width, segment=ev.n_segments is not None, labels=shown)
            + _mtme_doc_block(ev, metrics, shown, width))
    lines = [f"Sorted by {rank_by}: {_title(rank_by)}."]
    lines += significance_lines(ev.comparisons, len(ev.metrics), ev.n_resamples, ev.seed, ev.alpha, explain)
    if explain:
        lines.append(spa_text(ev.n_permutations, ev.spa_seed))
        lines.append(ACC_EQ_TEXT)
        lines.append("accuracy: pairwise system accuracy (pairs ordered as the humans order them / all pairs); "
                     "seg-pearson and seg-kendall over all (system, segment) pairs.")
        if any(mw.document is not None for mw in metrics.values()):
            lines.append(DOC_TEXT)
        elif any(mw.with_pdp for mw in metrics.values()):
            lines.append(PDP_TEXT)
    for m in order:
        mw = ev.metrics[m]
        if mw.document is not None and mw.document.note:
            lines.append(f"[{labels.get(m, '?')}] document level: {mw.document.note}")
        lines += mw.note_lines(labels.get(m, "?"))
        for p in mw.plugin_statistics():
            if p in mw.notes:
                lines.append(f"[{labels.get(m, '?')}] no {p}: {mw.notes[p]}")
    lines += untested_lines(ev.comparisons)
    left_out = [x for x in ev.left_out if scored is None or x.split(" (")[0] in scored]
    if left_out:
        lines.append(f"Left out of the meta-evaluation: {', '.join(left_out)}")
    return text + "\n" + "\n".join(lines) + "\n"
