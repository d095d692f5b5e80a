"""MTME's side of judging: scoring mt-metrics-eval data and writing MTME score files.

* :func:`run_mtme` reads each language pair of a test set
  (:func:`~docmetrics.formats.mtme.load_mtme`), loads every metric with the caller's loader, scores every
  system (:func:`~docmetrics.judging.score_systems.score_metrics`, the loop every run scores with) and writes the
  metrics' score files (:func:`write_mtme_scores`): what ``docmetrics --mtme`` and ``docmetrics metaeval`` run
  before they meta-evaluate the metrics with :func:`~docmetrics.judging.meta_evaluate` (the one MTME
  meta-evaluation).  Every language pair is read before any metric is loaded, and every metric is loaded (and
  checked against the references in use) before anything is scored, so a bad file, a bad spec or a metric that
  takes one reference given several stops the run before a model works.  Nothing here parses arguments or
  prints: the caller hears of the run through an :class:`MtmeObserver`, and stops it by raising there.
* :func:`write_mtme_scores` writes one metric's Results as ``metric-scores/LP/NAME-REF.{sys,doc,seg}.score``,
  higher better as MTME reads every score; :func:`read_mtme_dir` reads such files of a directory back as stored
  metrics (what ``--mtme ROOT --stored NAME`` judges beside the live ones).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..formats.base import EvalSet
from ..formats.mtme import MtmeTestSet, load_mtme, mtme_evalset
from ..formats.mtme_scores import parse_metric_filename, score_file_level
from ..formats.stored import choose_stored, read_stored
from ..formats.stored_metric import STORED_LEVELS, Directions, StoredMetric, StoredScorer
from ..plugin.backbone import REFERENCE
from ..plugin.metric import Metric
from ..values.errors import InputError, shown
from ..values.result import Result
from ..values.signature import ParsedSignature
from ..values.testset import TestSet
from .metaevaluation import MetaEvaluation
from .score_systems import Scored, ScoringObserver, score_metrics

__all__ = ["NO_HUMAN_SCORES", "ONE_SYSTEM", "MtmeMetric", "MtmeRun", "MtmeObserver", "uses_reference", "run_mtme",
           "mtme_metric_name", "WrittenScores", "write_mtme_scores", "read_mtme_dir"]


# -- scoring a test set --------------------------------------------------------------------------------------
#: why a language pair is scored only (:attr:`MtmeRun.why_no_metaeval`)
NO_HUMAN_SCORES = "no human scores"
ONE_SYSTEM = "one system"
#: the longest file name most file systems take (bytes)
MAX_FILE_NAME = 255


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
    evaluation: MetaEvaluation | None = None
    #: the human scores asked for (None: MTME's standard ones)
    human_name: str | None = None

    def evalset(self) -> EvalSet:
        """The language pair as :func:`~docmetrics.judging.read_human` reads it (its systems those scored): what
        :func:`~docmetrics.judging.meta_evaluate` judges the run's results against."""
        return mtme_evalset(self.data, self.testset, self.human_name)

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

    name = data.human_name  # load_mtme's choice: the one asked for, else the standard one
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


def _check_out(out_root: str | None, testset: str, lps: Sequence[str], specs: Sequence[str],
               metric_names: Sequence[str] | None) -> None:
    """``out_root`` and ``metric_names`` of :func:`run_mtme`, before anything is read: one name per spec, no two
    giving the same file name, and the score directories exist (or are made) and can be written."""
    if metric_names:
        if out_root is None:
            raise InputError("metric_names names the MTME score files: it needs out_root", params=("metric_names",))
        if len(metric_names) != len(specs):
            raise InputError(f"metric_names: {len(metric_names)} name(s) for {len(specs)} metric(s); give one name "
                             "per metric", params=("metric_names",))
        safe = [mtme_metric_name(n) for n in metric_names]
        if len(set(safe)) != len(safe):
            raise InputError(f"metric_names: two names give the same file name ({', '.join(safe)})",
                             params=("metric_names",))
    if out_root is None:
        return
    if os.path.exists(out_root) and not os.path.isdir(out_root):
        raise InputError(f"out_root {out_root}: not a directory", params=("out_root",))
    for lp in lps:
        d = os.path.join(out_root, testset, "metric-scores", lp)
        try:
            os.makedirs(d, exist_ok=True)
        except OSError as exc:
            raise InputError(f"out_root {out_root}: cannot create {d} ({exc.strerror})", params=("out_root",)) from None
        if not os.access(d, os.W_OK):
            raise InputError(f"out_root {out_root}: {d} is not writable", params=("out_root",))


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
    stored: Mapping[str, Mapping[str, StoredMetric]] | None = None,
) -> list[MtmeRun]:
    """Score ``specs`` on every language pair of ``lps`` of ``ROOT/TESTSET``.

    ``load(spec, lp)`` gives the metric of a spec for a language pair.  ``ref`` (a reference or
    several), ``human_name``, ``systems``, ``include_human`` and ``include_outliers`` choose as
    :func:`load_mtme` does; with several references a metric that takes one
    (:meth:`~docmetrics.plugin.metric.Metric.check_references`) stops the run before anything is scored.
    With ``out_root`` every metric's scores are written under ``OUT_ROOT/TESTSET/metric-scores/LP``
    (NAME: ``metric_names``, one per spec, or the short signature of its results made file-safe; REF: the
    references in use as MTME names them, :attr:`~docmetrics.formats.mtme.MtmeTestSet.ref`, ``src``
    for a metric that uses none).  A language pair with human scores and two systems or more can be
    meta-evaluated; the others are scored only (:attr:`MtmeRun.why_no_metaeval`).  ``doc_rule``: the
    document level is to be judged by that rule, so its gold is checked before any model loads.
    ``requested``: the signature the ``k``-th spec was given in where its metric holds none itself
    (sacrebleu's), as :func:`~docmetrics.judging.score_systems.score_metrics` takes it.  ``stored``: language
    pair -> spec -> a metric already scored (:func:`read_mtme_dir`'s), the metric of that spec (not loaded), each
    checked against the pair's test set as soon as it is read.  ``out_root`` and ``metric_names`` are checked
    before anything is read, and a file name longer than :data:`MAX_FILE_NAME` stops the run before anything
    is scored (errors name the parameter in ``params``).
    """
    _check_out(out_root, testset, lps, specs, metric_names)
    observer = observer or MtmeObserver()
    scorers = {lp: {spec: StoredScorer(m) for spec, m in ms.items()} for lp, ms in (stored or {}).items()}
    runs = []
    for lp in lps:
        data, built = load_mtme(root, testset, lp, ref=ref, human_name=human_name, systems=systems,
                                include_human=include_human, include_outliers=include_outliers)
        runs.append(MtmeRun(lp, data, built, human_name=human_name))
        if doc_rule is not None:
            check_doc_gold(data, list(built.systems), doc_rule)
        for scorer in scorers.get(lp, {}).values():  # a stored metric that does not fit stops the run here
            scorer.check(built)
        observer.opened(runs[-1])
    loaded = []
    for run in runs:
        metrics = []
        for k, spec in enumerate(specs):
            m = MtmeMetric(spec, scorers[run.lp][spec] if spec in scorers.get(run.lp, {}) else load(spec, run.lp))
            m.metric.check_references(run.testset)
            if out_root is not None:
                m.ref = run.data.ref if run.data.ref is not None and uses_reference(m.metric) else "src"
                m.name = mtme_metric_name(metric_names[k] if metric_names else m.metric.signature().format(short=True))
                longest = f"{m.name}-{m.ref}.seg.score"
                if len(longest.encode("utf-8")) > MAX_FILE_NAME:
                    raise InputError(f"{spec}: the MTME file name from its signature is {len(longest)} characters, "
                                     f"more than a file system takes ({MAX_FILE_NAME}); name the files with "
                                     "metric_names", params=("metric_names",))
            metrics.append(m)
        observer.loaded(run, metrics)
        loaded.append(metrics)
    for run, metrics in zip(runs, loaded):
        score_metrics(run.testset, [(m.spec, m.metric) for m in metrics], requested=requested,
                      observer=_PairScoring(run, metrics, observer, testset, out_root, metric_names))
    return runs


# -- the directory's own metric scores, as stored metrics -------------------------------------------------
def read_mtme_dir(root: str, testset: str, lp: str, wanted: Sequence[str] | None,
                  declared: Directions = None) -> list[StoredMetric]:
    """The stored metrics of an MTME directory's own ``ROOT/TESTSET/metric-scores/LP/`` that ``wanted``
    names (as :func:`~docmetrics.formats.stored.choose_stored`; every one for ``all``), each with its seg, doc
    and sys files; only the files of the metrics named are read."""
    folder = os.path.join(root, testset, "metric-scores", lp)
    if not os.path.isdir(folder):
        raise InputError(f"{folder}: no such directory; --stored reads the MTME directory's own metric scores "
                         f"(ROOT/TESTSET/metric-scores/LP/NAME-REF.{{seg,doc,sys}}.score)")
    files: dict[str, list[str]] = {}
    for base in sorted(os.listdir(folder)):
        if score_file_level(base) not in STORED_LEVELS:
            continue
        name, ref, _ = parse_metric_filename(base)
        files.setdefault(f"{name}-{ref}", []).append(os.path.join(folder, base))
    chosen = choose_stored(list(files), wanted, lp, folder)
    if not chosen:
        return []
    read = read_stored([p for name in chosen for p in files[name]], directions=declared)
    return list(read.pairs.get(lp, {}).values())


# -- writing score files ----------------------------------------------------------------------------------
def mtme_metric_name(name: str) -> str:
    """A metric name usable as NAME in NAME-REF.LEVEL.score: letters, digits and ``._+-`` kept,
    anything else (spaces, ``/``, ``:``, ``=``, ``,``) replaced by ``_``."""
    safe = re.sub(r"[^A-Za-z0-9._+-]+", "_", name).strip("._")
    return safe or "metric"


def _check_ref_name(ref: str) -> None:
    parts = ref.split(".")
    if not ref or any(not p or "-" in p or not re.fullmatch(r"[A-Za-z0-9_+]+", p) for p in parts):
        raise InputError(
            f"bad reference name {ref!r} for an MTME score file: a reference name (or several joined "
            "with '.') without '-', or 'src' for a metric that uses no reference"
        )


@dataclass
class WrittenScores:
    """What :func:`write_mtme_scores` wrote, and why a level was not written."""

    metric: str
    ref: str
    paths: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    #: True where the metric's lower scores are better: written negated, as MTME stores every score
    #: with higher better (its own MetricX files hold negated scores)
    negated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "ref": self.ref, "paths": self.paths, "skipped": self.skipped,
                **({"negated": True} if self.negated else {})}


def _fmt(x: float) -> str:
    return repr(float(x))


def _seg_lines(results: Sequence[Result], n_segments: int) -> tuple[list[str], str | None]:
    lines: list[str] = []
    for r in results:
        if r.wide_unit() is not None:
            return [], f"{r.metric} scores units of several segments (e.g. windows): no segment-level scores"
        per_line: dict[int, float] = {}
        for u in r.units:
            if u.start in per_line:
                return [], f"system {r.system!r} has two scores for segment {u.start + 1}"
            per_line[u.start] = u.score
        for i in range(n_segments):
            v = per_line.get(i)
            if v is None or math.isnan(v):
                return [], f"system {r.system!r} has no score for segment {i + 1}; MTME score files hold no gaps"
            lines.append(f"{r.system}\t{_fmt(v)}")
    return lines, None


def _doc_lines(results: Sequence[Result], doc_order: Sequence[str]) -> tuple[list[str], str | None]:
    lines: list[str] = []
    for r in results:
        scores: dict[str, float | None] = {}
        for ds in r.docs:
            if ds.doc_id in scores:
                return [], f"document {shown(ds.doc_id)} of system {r.system!r} is not one contiguous block"
            scores[ds.doc_id] = ds.score
        for doc in doc_order:
            v = scores.get(doc)
            if v is None or math.isnan(v):
                return [], f"system {r.system!r} has no score for document {shown(doc)}; MTME score files hold no gaps"
            lines.append(f"{r.system}\t{_fmt(v)}")
    return lines, None


def write_mtme_scores(
    out_root: str | os.PathLike[str],
    testset: str,
    lp: str,
    metric_name: str,
    ref_name: str,
    results: Sequence[Result],
    *,
    n_segments: int | None = None,
    doc_ids: Sequence[str] | None = None,
) -> WrittenScores:
    """Write one metric's results as ``OUT/TESTSET/metric-scores/LP/NAME-REF.{sys,doc,seg}.score``.

    One line ``SYSTEM<TAB>SCORE`` per system (sys), per system and document in document order (doc)
    and per system and segment in order (seg), systems in the order of ``results``.  The seg file is
    written when every unit is one segment and every segment has a score (``n_segments``: the test
    set's size, default: the results' coverage); the doc file when every document (``doc_ids``: the
    document order, default: the first result's) has a score.  A level not written is in
    :attr:`WrittenScores.skipped` with the reason.  MTME reads every score as higher-better: the scores of
    a metric whose lower scores are better are written negated (:attr:`WrittenScores.negated`).
    """
    if not results:
        raise InputError("no results to write")
    negated = not all(r.higher_is_better for r in results)
    results = [r.oriented() for r in results]
    _check_ref_name(ref_name)
    name = mtme_metric_name(metric_name)
    seen: set[str] = set()
    for r in results:
        if not r.system or any(ch.isspace() for ch in r.system):
            raise InputError(f"system name {r.system!r}: MTME score files need names without whitespace")
        if r.system in seen:
            raise InputError(f"system {r.system!r} appears twice in the results")
        seen.add(r.system)
        if math.isnan(r.score):
            raise InputError(f"system {r.system!r} has no {r.metric} score; MTME score files hold no gaps")
    out_dir = os.path.join(os.fspath(out_root), testset, "metric-scores", lp)
    os.makedirs(out_dir, exist_ok=True)
    written = WrittenScores(name, ref_name, negated=negated)
    by_level: dict[str, list[str]] = {"sys": [f"{r.system}\t{_fmt(r.score)}" for r in results]}

    if n_segments is None:
        cov = results[0].coverage
        last = max((u.end for r in results for u in r.units), default=0)
        n_segments = cov.segments_total if cov is not None else last
    order = list(doc_ids) if doc_ids is not None else [d.doc_id for d in results[0].docs]
    for level, (lines, why) in (
            ("seg", _seg_lines(results, n_segments) if n_segments else ([], "no segment count known: pass n_segments")),
            ("doc", _doc_lines(results, order) if order else ([], "no document scores"))):
        if why:
            written.skipped[level] = why
        else:
            by_level[level] = lines
    for level, lines in by_level.items():
        path = os.path.join(out_dir, f"{name}-{ref_name}.{level}.score")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        written.paths[level] = path
    return written
