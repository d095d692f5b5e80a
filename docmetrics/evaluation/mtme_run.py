"""Scoring mt-metrics-eval (MTME) data: :func:`run_mtme` reads each language pair of a test set and builds
its test set (:func:`~docmetrics.evaluation.mtme.load_mtme`), loads every metric with the caller's loader,
scores every system (:func:`~docmetrics.evaluation.scoring.score_metrics`, the loop every run scores
with) and writes MTME score files (:func:`~docmetrics.evaluation.mtme_write.write_mtme_scores`): what
``docmetrics --mtme`` and ``docmetrics metaeval`` run before they meta-evaluate the metrics with the library's
``docmetrics.meta_evaluate`` (the one MTME meta-evaluation).

Every language pair is read before any metric is loaded, and every metric is loaded (and checked
against the references in use) before anything is scored, so a bad file, a bad spec or a metric that
takes one reference given several stops the run before a model works.  Nothing here parses arguments or
prints: the caller hears of the run through an :class:`MtmeObserver`, and stops it by raising there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from ..plugin.backbone import REFERENCE
from ..plugin.metric import Metric
from ..values.errors import InputError
from ..values.result import Result
from ..values.signature import ParsedSignature
from ..values.testset import TestSet
from .metaeval import WmtEval
from .mtme import MtmeTestSet, load_mtme
from .mtme_write import WrittenScores, mtme_metric_name, write_mtme_scores
from .scoring import Scored, ScoringObserver, score_metrics

__all__ = ["NO_HUMAN_SCORES", "ONE_SYSTEM", "MtmeMetric", "MtmeRun", "MtmeObserver", "uses_reference", "run_mtme"]

#: why a language pair is scored only (:attr:`MtmeRun.why_no_metaeval`)
NO_HUMAN_SCORES = "no human scores"
ONE_SYSTEM = "one system"


@dataclass
class MtmeMetric:
    """A metric of the run, loaded, with the NAME and REF of its score files (``NAME-REF.LEVEL.score``;
    empty when no file is written)."""

    spec: str
    metric: Metric
    name: str = ""
    ref: str = ""


@dataclass
class MtmeRun:
    """One language pair: its data, what was scored and written, and the meta-evaluation (set by the caller)."""

    lp: str
    data: MtmeTestSet
    testset: TestSet
    #: spec -> its results, one per system
    results: dict[str, list[Result]] = field(default_factory=dict)
    written: list[WrittenScores] = field(default_factory=list)
    evaluation: WmtEval | None = None

    @property
    def why_no_metaeval(self) -> str | None:
        """Why the language pair is scored only (:data:`NO_HUMAN_SCORES`, :data:`ONE_SYSTEM`); None when
        it is meta-evaluated too."""
        if self.data.human_name is None:
            return NO_HUMAN_SCORES
        if len(self.testset.systems) < 2:
            return ONE_SYSTEM
        return None

    @property
    def missing(self) -> dict[str, list[int]]:
        """The files scored (systems, source, reference) with lines that read ``[No translation
        supplied]`` (scored as empty): path -> 0-based lines."""
        scored = set(self.testset.names.values())
        return {path: lines for path, lines in sorted(self.data.missing.items()) if path in scored}


class MtmeObserver:
    """What the caller of :func:`run_mtme` hears while it runs; each method does nothing here."""

    def opened(self, run: MtmeRun) -> None:
        """A language pair was read (no metric is loaded yet)."""

    def loaded(self, run: MtmeRun, metrics: Sequence[MtmeMetric]) -> None:
        """Every metric of a language pair was loaded (nothing is scored yet)."""

    def scoring(self, run: MtmeRun, metric: MtmeMetric) -> None:
        """A metric is about to score every system of a language pair."""

    def scored(self, run: MtmeRun, metric: MtmeMetric, scored: Scored, written: WrittenScores | None) -> None:
        """A metric scored every system (its results and how the run compares with the signature it was
        given in: ``scored``), and its score files were written."""


class _PairScoring(ScoringObserver):
    """The scoring of one language pair: each metric's results kept in the run, its MTME score files
    written under ``out_root`` (NAME from ``metric_names``, else the signature of the run itself), the
    caller's observer told."""

    def __init__(self, run: MtmeRun, metrics: Sequence[MtmeMetric], observer: MtmeObserver, testset: str,
                 out_root: str | None, metric_names: Sequence[str] | None) -> None:
        self.run, self.metrics, self.observer = run, metrics, observer
        self.testset, self.out_root, self.metric_names = testset, out_root, metric_names

    def scoring(self, index: int, spec: str, metric: Metric) -> None:
        self.observer.scoring(self.run, self.metrics[index])

    def scored(self, scored: Scored) -> None:
        run, m, results, out_root = self.run, self.metrics[scored.index], scored.results, self.out_root
        run.results[m.spec] = results
        written = None
        if out_root is not None and not self.metric_names and results:
            # the signature of the run itself: sacrebleu's nrefs:N is known once the references are read
            m.name = mtme_metric_name(results[0].signature.format(short=True))
        if out_root is not None:
            try:
                written = write_mtme_scores(out_root, self.testset, run.lp, m.name, m.ref, results,
                                            n_segments=run.data.n_segments, doc_ids=run.data.doc_names)
            except OSError as exc:
                raise InputError(f"{out_root}: cannot write {exc.filename} ({exc.strerror})") from None
            run.written.append(written)
        self.observer.scored(run, m, scored, written)


def uses_reference(metric: Metric) -> bool:
    """Whether a metric scores against the reference: it does unless its backbone serves one of its
    reference-free alternatives of needs (the rule SLIDE and ASD follow: QE wins where a backbone can
    do both).  A metric without a backbone is taken to use the reference."""
    if not metric.needs:
        return True
    caps = metric.check_backbone()
    return not any(alt <= caps and REFERENCE not in alt for alt in metric.needs)


def check_doc_gold(data: MtmeTestSet, systems: Sequence[str], doc_rule: str) -> None:
    """The document-level gold of ``systems`` (those with human scores) is usable: every document is
    judged for all of them or for none (raises the error naming the file before any model loads)."""
    from .doc_level import doc_gold

    name = data.human_name or data.default_human_name("seg") or data.default_human_name("sys")
    if name is None:
        return
    doc = data.human_scores.get((name, "doc"))
    seg = data.human_scores.get((name, "seg"))
    source = doc if doc is not None else seg
    if source is None:
        return
    judged = [s for s in systems if s in source]
    kind = "doc" if doc is not None else "seg"
    doc_gold(judged, doc_ids=data.doc_ids, human_seg=seg, human_doc=doc, doc_names=data.doc_names, rule=doc_rule,
             human_file=data.paths.get(f"human:{name}.{kind}", name))


def run_mtme(
    root: str,
    testset: str,
    lps: Sequence[str],
    specs: Sequence[str],
    load: Callable[[str, str], Metric],
    *,
    ref: str | Sequence[str] | None = None,
    human_name: str | None = None,
    systems: Sequence[str] | None = None,
    include_human: bool = False,
    include_outliers: bool = False,
    out_root: str | None = None,
    metric_names: Sequence[str] | None = None,
    observer: MtmeObserver | None = None,
    doc_rule: str | None = None,
    requested: Mapping[int, ParsedSignature] | None = None,
) -> list[MtmeRun]:
    """Score ``specs`` on every language pair of ``lps`` of ``ROOT/TESTSET``.

    ``load(spec, lp)`` gives the metric of a spec for a language pair.  ``ref`` (a reference or
    several), ``human_name``, ``systems``, ``include_human`` and ``include_outliers`` choose as
    :func:`load_mtme` does; with several references a metric that takes one
    (:meth:`~docmetrics.plugin.metric.Metric.check_references`) stops the run before anything is scored.
    With ``out_root`` every metric's scores are written under ``OUT_ROOT/TESTSET/metric-scores/LP``
    (NAME: ``metric_names``, one per spec, or the short signature of its results made file-safe; REF: the
    references in use as MTME names them, :attr:`~docmetrics.evaluation.mtme.MtmeTestSet.ref`, ``src``
    for a metric that uses none).  A language pair with human scores and two systems or more can be
    meta-evaluated; the others are scored only (:attr:`MtmeRun.why_no_metaeval`).  ``doc_rule``: the
    document level is to be judged by that rule, so its gold is checked before any model loads.
    ``requested``: the signature the ``k``-th spec was given in where its metric holds none itself
    (sacrebleu's), as :func:`~docmetrics.evaluation.scoring.score_metrics` takes it.
    """
    observer = observer or MtmeObserver()
    runs = []
    for lp in lps:
        data, built = load_mtme(root, testset, lp, ref=ref, human_name=human_name, systems=systems,
                                include_human=include_human, include_outliers=include_outliers)
        runs.append(MtmeRun(lp, data, built))
        if doc_rule is not None:
            check_doc_gold(data, list(built.systems), doc_rule)
        observer.opened(runs[-1])
    loaded = []
    for run in runs:
        metrics = []
        for k, spec in enumerate(specs):
            m = MtmeMetric(spec, load(spec, run.lp))
            m.metric.check_references(run.testset)
            if out_root is not None:
                m.ref = run.data.ref if run.data.ref is not None and uses_reference(m.metric) else "src"
                m.name = mtme_metric_name(metric_names[k] if metric_names else m.metric.signature().format(short=True))
            metrics.append(m)
        observer.loaded(run, metrics)
        loaded.append(metrics)
    for run, metrics in zip(runs, loaded):
        score_metrics(run.testset, [(m.spec, m.metric) for m in metrics], requested=requested,
                      observer=_PairScoring(run, metrics, observer, testset, out_root, metric_names))
    return runs
