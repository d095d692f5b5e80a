"""The rest of judging as library calls, each a thin typed wrapper of the evaluation code the command line
runs: :func:`autorank` (WMT25's automatic ranking) and :func:`autorank_clusters` (its clusters by a paired
bootstrap over documents), :func:`span_f1` (error spans against human spans, as WMT25's
``scoring_esa.py``), :func:`compare_systems` (paired bootstrap / approximate randomization over documents) and
:func:`write_report` (the self-contained HTML page).  Nothing here prints."""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Any, Callable, ContextManager, Mapping, Sequence, Union

from ..formats.base import EvalSet, SpanGold
from ..formats.spans_tsv import read_spans_tsv
from ..stats.base import DEFAULT_SEED
from ..values.errors import InputError, SpecError, UserError
from ..values.result import Result
from ..values.testset import TestSet
from .metaeval import MetaEvaluation
from .paired import (
    DEFAULT_CI_LEVEL,
    DEFAULT_N,
    ConfidenceInterval,
    PairedTest,
    bootstrap_ci,
    paired_test,
)
from .params import name_list, one_name, path_param, results_param
from .ranking import EPS, AutoRank, rank_results, rank_stored
from .ranking import autorank as autorank_scores
from .ranking_presets import AUTORANK_PRESETS
from .spans import SpanJudgement, judge_predicted, metric_predictions, read_predictions
from .sweeps import Point, Sweep
from .sweeps import run as run_sweep

__all__ = ["autorank", "autorank_clusters", "AutoRank", "AUTORANK_PRESETS", "span_f1", "compare_systems",
           "confidence_intervals", "write_report", "read_spans_tsv", "sweep", "human_segments", "error_spans",
           "UNSCORED"]

#: Why a metric has no span prediction for an item: it scored no unit covering the segment.
UNSCORED = "items the metric scored no unit of (e.g. SLIDE's partial=drop)"


def autorank(scores: Mapping[str, Sequence[Result]] | Mapping[str, Mapping[str, float]] | EvalSet, *,
             lp: str | None = None, preset: str | None = None, eps: float = EPS,
             higher_is_better: Mapping[str, bool] | None = None) -> AutoRank:
    """WMT25's AutoRank: each metric's system scores robustly scaled, averaged with equal weights and mapped to
    1 (best) .. N (worst).  ``scores``: ``{metric: [Result per system]}`` (a metric whose units are segments
    ranks by the mean of its segment scores, as WMT25 does), ``{metric: {system: score}}`` (with
    ``higher_is_better``), or an EvalSet of stored scores (every stored metric).  ``.systems`` are best first;
    ``to_dict()`` is the JSON ``docmetrics rank -f json`` prints for a language pair.

    >>> autorank({"chrf": chrf_results, "bleu": bleu_results}).systems[0].system     # doctest: +SKIP
    """
    if isinstance(scores, EvalSet):
        if not scores.stored:
            raise InputError(f"{scores.source}: no stored scores to rank with (a {scores.format} file)")
        return rank_stored(list(scores.stored.values()), lp=lp or scores.lp, eps=eps, preset=preset)
    if not isinstance(scores, Mapping):
        raise InputError(f"autorank: scores= takes {{metric: [Result per system]}}, {{metric: {{system: score}}}} "
                         f"or an EvalSet of stored scores, not {type(scores).__name__}", params=("scores",))
    _check_forms(scores, "autorank")
    first = next(iter(scores.values()))
    if isinstance(first, Mapping):
        try:
            return autorank_scores(scores, higher_is_better, eps=eps, lp=lp, preset=preset)  # type: ignore[arg-type]
        except ValueError as exc:
            raise InputError(f"autorank: {exc}") from None
    return rank_results(scores, lp=lp, eps=eps, preset=preset)  # type: ignore[arg-type]


def autorank_clusters(scores: Mapping[str, Sequence[Result]] | EvalSet, *, ranking: AutoRank | None = None,
                      lp: str | None = None, preset: str | None = None, n: int = 1000,
                      seed: int | None = DEFAULT_SEED, alpha: float = 0.05) -> AutoRank:
    """AutoRank with clusters (docmetrics' own test; WMT25 defines none): the documents resampled with
    replacement ``n`` times (``seed``), the same resamples for every system and metric, each metric's system
    scores and AutoRank recomputed in each; a cluster ends between adjacent systems where the upper one ranks
    strictly better in more than ``1 - alpha`` of the resamples
    (:func:`docmetrics.judging.ranking.bootstrap_clusters`).  ``scores``: ``{metric: [Result per system]}``, or an
    EvalSet of stored segment scores (every stored metric).  ``ranking``: the AutoRank of those scores, where
    the caller has one (its ``metric_info`` and notes kept); default :func:`autorank` of them (for an EvalSet:
    of its stored metrics, each described as :func:`autorank` describes it).  Each system of the result has
    its ``cluster``; ``significance`` says how they were drawn, and a note where fewer than 10 documents were
    resampled.  ``to_dict()`` is the JSON ``docmetrics rank --paired-bs -f json`` prints.

    >>> autorank_clusters({"chrf": chrf_results, "bleu": bleu_results}, n=1000).systems[0].cluster  # doctest: +SKIP
    """
    from .paired import MAX_N, MIN_DOCUMENTS
    from .ranking import bootstrap_clusters

    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N:
        raise SpecError(f"autorank_clusters: n= takes the number of resamples, from 1 to {MAX_N}, not {n!r}",
                        params=("n",))
    named: Mapping[str, Sequence[Result]]
    if isinstance(scores, EvalSet):
        if not scores.stored:
            raise InputError(f"{scores.source}: no stored scores to rank with (a {scores.format} file)")
        named = scores.results()
        lp = lp or scores.lp
    elif isinstance(scores, Mapping):
        _check_forms(scores, "autorank_clusters")
        if isinstance(next(iter(scores.values())), Mapping):
            raise InputError("autorank_clusters: resampling documents needs each metric's Results (one per system, "
                             "with its segment scores), not {system: score}", params=("scores",))
        named = scores
    else:
        raise InputError(f"autorank_clusters: scores= takes {{metric: [Result per system]}} or an EvalSet of stored "
                         f"scores, not {type(scores).__name__}", params=("scores",))
    if ranking is None:  # an EvalSet's stored metrics described as autorank describes them
        ranking = autorank(scores, lp=lp, preset=preset)
    found = bootstrap_clusters(ranking, named, n=n, seed=seed, alpha=alpha)
    if found["documents"] < MIN_DOCUMENTS:
        ranking.notes.append(f"only {found['documents']} documents to resample (fewer than {MIN_DOCUMENTS}): the "
                             "clusters are coarse")
    return ranking


def _check_forms(scores: Mapping[str, Any], caller: str) -> None:
    """``scores`` of ``caller`` (:func:`autorank`, :func:`autorank_clusters`) name a metric or more, each given in
    one of its two forms, the same for every metric, and scoring at least one system; an InputError naming the
    metric otherwise."""
    if not scores:
        raise InputError(f"{caller}: no metric to rank with", params=("scores",))
    forms = "[Result per system] (what load(...).compute gives) or {system: score}"
    kinds = set()
    for name, value in scores.items():
        if isinstance(value, Mapping):
            kinds.add("mapping")
        elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
            kinds.add("results")
            wrong = next((v for v in value if not isinstance(v, Result)), None)
            if wrong is not None:
                raise InputError(f"{caller}: metric {name!r}: {type(wrong).__name__} {wrong!r:.60} is not a Result; "
                                 f"give each metric {forms}", params=("scores",))
        else:
            raise InputError(f"{caller}: metric {name!r}: a {type(value).__name__}; give each metric {forms}",
                             params=("scores",))
        if not value:
            raise InputError(f"{caller}: metric {name!r} scores no system (an empty {type(value).__name__}); give "
                             f"each metric {forms}, one score for every system", params=("scores",))
    if len(kinds) > 1:
        raise InputError(f"{caller}: some metrics are given as Results and others as {{system: score}}; give every "
                         "metric in the same form", params=("scores",))


def span_f1(predicted: str | os.PathLike[str] | Sequence[Result], gold: EvalSet | SpanGold, *,
            name: str | None = None) -> SpanJudgement:
    """Error-span predictions against the human spans of ``gold`` (what read_human returns for a file whose
    format has them: GenMT, raw MQM, cESA with its texts; or its ``.spans``): character-level precision, recall
    and F1 per system and over every item (micro), half credit across severity classes, as WMT25's
    ``scoring_esa.py``.  ``predicted``: a JSONL file of predictions (one line per system and segment), or a
    metric's Results on the EvalSet's test set (its spans per segment, keyed by ``gold.lines`` and judged on the
    test set's systems; ``name`` names it).  ``.overall.scores()`` gives precision, recall and F1; ``to_dict()``
    the command's JSON row.

    >>> span_f1("predictions.jsonl", read_human("genmt.jsonl", lp="en-cs")).overall.scores().f1   # doctest: +SKIP
    """
    if not isinstance(gold, (EvalSet, SpanGold)):
        raise TypeError(f"span_f1: gold= takes what read_human returns (or a SpanGold), not {type(gold).__name__}")
    spans = gold.spans if isinstance(gold, EvalSet) else gold
    if isinstance(predicted, (str, os.PathLike, bytes, bytearray)):
        path = path_param(predicted, "predicted", "span_f1", many=False)
        found, skipped = read_predictions(path, spans)  # every judged item of a predicted system: one line each
        return judge_predicted(path, found, spans, skipped)
    results = results_param(predicted, "predicted", "span_f1")
    if not results:
        raise InputError("span_f1: no Results to judge")
    if not spans.lines:
        raise InputError(f"span_f1: the gold spans of {spans.path} name no item per line of a test set "
                         "(SpanGold.lines): a metric's spans cannot be matched to them", params=("gold",))
    if isinstance(gold, EvalSet) and gold.testset is not None:
        spans = spans.of(gold.testset.systems)  # not the reference a metric scores against
    label = name or results[0].metric
    judged = judge_predicted(label, metric_predictions(results, spans, label), spans, unpredicted=UNSCORED)
    judged.signature = results[0].signature.format()
    return judged


def compare_systems(results: Sequence[Result], *, test: str = "bs", n: int | None = None,
                    seed: int | None = DEFAULT_SEED, baseline: str | None = None) -> PairedTest:
    """A paired test of one metric's Results (one per system) against a baseline (``baseline``: a system's
    name; default the first): ``test="bs"`` paired bootstrap resampling documents, ``"ar"`` approximate
    randomization swapping documents (exact where 2^documents <= ``n``), ``n`` trials (default: 1000 / 10000),
    ``seed``.  Each row of ``.rows`` is a system against the baseline with its p-value.

    >>> compare_systems(docmetrics.load("chrf").compute(testset), test="ar").rows[0].p_value   # doctest: +SKIP
    """
    ordered = results_param(results, "results", "compare_systems")
    baseline = one_name(baseline, "baseline", "compare_systems")
    if baseline is not None:
        names = [r.system for r in ordered]
        if baseline not in names:
            raise InputError(f"compare_systems: no system {baseline!r} among the results ({', '.join(names)})",
                             params=("baseline",))
        ordered.sort(key=lambda r: r.system != baseline)
    return paired_test(ordered, test, n, seed)


def confidence_intervals(results: Sequence[Result], *, n: int = DEFAULT_N["bs"], seed: int | None = DEFAULT_SEED,
                         level: float = DEFAULT_CI_LEVEL) -> list[ConfidenceInterval]:
    """Each system's bootstrap confidence interval (sacrebleu's ``--confidence``, resampling whole documents;
    what ``--ci`` prints): ``n`` resamples, ``seed``, ``level`` between 0 and 1.  Each has ``low``, ``high``,
    ``mean``, its ``warnings`` (few documents) and ``to_dict()``, the ``ci`` of ``-f json``.

    >>> confidence_intervals(docmetrics.load("chrf").compute(testset))[0].low   # doctest: +SKIP
    """
    return [bootstrap_ci(r, n, seed, level) for r in results_param(results, "results", "confidence_intervals")]


def sweep(metric: str, grid: Sequence[str], testset: TestSet, *, human: Any = None, stat: str = "accuracy",
          seg_level: bool = False, doc_level: str | None = None, pdp: bool = False, exclude: Sequence[str] = (),
          exclude_humans: bool = False, lang: str | None = None, cache: str | os.PathLike[str] | bool | None = None,
          cache_chunk: int | None = None, session: Callable[[Any], ContextManager[Any]] | None = None,
          short: bool = False, on_point: Callable[[int, Point], None] | None = None) -> Sweep:
    """``metric`` (a base spec) scored at every point of ``grid`` (``["w=1..10", "s=1..w"]``: one KEY=VALUES
    per parameter, a range ``A..B`` whose end may name an earlier key, or ``v1,v2,...``) on ``testset``, and
    with ``human`` (the human scores: what read_human returns, or a HumanScores) meta-evaluated at each point
    (``stat``: the statistic the heatmap shows; a segment statistic needs ``seg_level``).  A point the metric
    refuses is skipped, not fatal.  The points share one score cache, so a unit scored for one point is not
    scored again: ``cache`` None a temporary file deleted at the end, a path (or True: the default file) a
    persistent one an interrupted sweep resumes from, False none; ``cache_chunk`` units committed at a time.
    ``session(cache)`` opens the Session the points score in (default ``docmetrics.Session(cache=cache)``);
    ``on_point(k, point)`` follows the progress.  ``.points``; ``.heatmap()``; ``to_dict()`` the JSON
    ``docmetrics sweep -o`` writes.

    >>> sweep("chrf", ["char_order=4..6"], testset, human=read_human("human.tsv")).heatmap()   # doctest: +SKIP
    """
    from .. import api
    from ..formats.human_tsv import HumanScores
    from ..runtime.cache import DEFAULT_CHUNK, ScoreCache, default_path

    metric, grid = one_name(metric, "metric", "sweep"), name_list(grid, "grid", "sweep")  # "w=1..3": one parameter
    if not isinstance(testset, TestSet):
        raise SpecError(f"sweep: testset= takes a TestSet (read_testset, read_human(...).testset), not "
                        f"{type(testset).__name__}", params=("testset",))
    human = human.human if isinstance(human, EvalSet) else human
    if human is not None and not isinstance(human, HumanScores):
        raise SpecError(f"sweep: human= takes what read_human returns (or its .human), not {type(human).__name__}",
                        params=("human",))
    planned = Sweep.plan(metric or "", grid or (), stat=stat, seg_level=seg_level, doc_level=doc_level, pdp=pdp)
    with contextlib.ExitStack() as stack:
        store = None
        if cache is not False:
            kept = cache is not None
            folder = None if kept else stack.enter_context(tempfile.TemporaryDirectory(prefix="docmetrics-sweep-"))
            where = os.path.join(folder, "scores.sqlite") if folder else default_path() if cache is True else cache
            store = stack.enter_context(ScoreCache(where, chunk_size=cache_chunk or DEFAULT_CHUNK))
            planned.cache_path = str(store.path) if kept else None
        opened = stack.enter_context(session(store) if session is not None else api.Session(cache=store))
        run_sweep(planned, testset, lambda spec: api.load(spec, defaults={"lang": lang}, session=opened), human=human,
                  exclude=exclude, exclude_humans=exclude_humans, short=short, cache=store, on_point=on_point)
        planned.cache_stats = store.stats if store is not None else None
    return planned


Source = Union[MetaEvaluation, Mapping[str, Any], Sequence[Any]]


def _check_not_read(path: str | os.PathLike[str], sources: Sequence[Source], testset: TestSet | None,
                    *also: str) -> None:
    """Refuse to write the page over a file its data was read from (the human scores of a meta-evaluation, a
    file of the test set), as the command refuses ``--report`` over an input: the same check
    (:func:`~docmetrics.values.io.same_file`)."""
    from ..values.io import same_file

    read = [(s.human.path, "the human scores of meta-evaluation " + str(k)) for k, s in enumerate(sources, 1)
            if isinstance(s, MetaEvaluation) and s.human is not None and s.human.path]
    read += [(name, "the judged data read_human read") for name in also if os.path.isfile(name)]
    if testset is not None:
        read += [(name, f"the test set's {key}") for key, name in testset.names.items()
                 if isinstance(name, str) and os.path.isfile(name)]
    for other, what in read:
        if same_file(path, other):
            raise InputError(f"write_report: {os.fspath(path)} is {other}, {what}, which was read; writing the page "
                             "there would replace it: give another file name (e.g. report.html)", params=("path",))


def write_report(path: str | os.PathLike[str], *sources: Source, names: Sequence[str] | None = None,
                 results: Mapping[str, Sequence[Result]] | Sequence[tuple[str, Sequence[Result]]] | None = None,
                 intervals: Sequence[Sequence[Any]] | None = None, testset: TestSet | None = None,
                 data: EvalSet | None = None, human: Any = None, spans: Mapping[str, Any] | None = None,
                 title: str | None = None, command: str | None = None, inputs: Sequence[tuple[str, str]] = ()) -> int:
    """Write the self-contained HTML report to ``path`` (its size in bytes): one section per source, each a
    :class:`MetaEvaluation` (of MTME data: in the ``mtme`` layout, as ``--mtme`` prints it), a saved ``-f json``
    output (parsed JSON of any layout ``docmetrics report`` reads) or the file holding one, named by ``names`` where
    given (``{layout}`` in a name: the source's layout; default: its file, else "source k"); ``results``
    (``{spec: [Result per system]}``, or ``(spec, Results)`` pairs) their documents and units, unless a source
    carries them (``-f json --level doc``); ``intervals`` each result's confidence interval (per metric, per system,
    in ``results``' order: what ``--ci`` computes); ``testset`` the texts.

    ``data``, the :class:`EvalSet` judged, gives the page what the command's ``--report`` gives it: the test
    set's texts (where ``testset`` is not given), each system's human segment scores with the human ranking, and
    the gold error spans (GenMT's ESA spans, a raw MQM file's).  Without it, ``human`` (a HumanScores) or the
    human scores of the first :class:`MetaEvaluation` among ``sources`` are shown where the test set is known.
    ``spans``: more gold spans, ``{system: {line: [[start, end, severity, category], ...]}}`` as
    :func:`read_spans_tsv` reads them.  ``command`` and ``inputs`` (``(option, value)`` pairs): what was run, as
    typed."""
    from ..formats.spans_tsv import merge_spans
    from ..report import LayoutError, compact_result, detect, payload, texts
    from ..report import read as read_output
    from ..report import write as write_page

    path = path_param(path, "path", "write_report", many=False)
    if data is not None and not isinstance(data, EvalSet):
        raise SpecError(f"write_report: data= takes the EvalSet read_human gives, not {type(data).__name__}",
                        params=("data",))
    if testset is None and data is not None:
        testset = data.testset
    _check_not_read(path, sources, testset, *([data.source] if data is not None else []))
    if human is None:
        human = data.human if data is not None else next(
            (s.human for s in sources if isinstance(s, MetaEvaluation)), None)
    named: list[tuple[str, Any]] = []
    for k, source in enumerate(sources, 1):
        name = names[k - 1] if names is not None else None
        if isinstance(source, (str, os.PathLike)):  # a saved output: read, and named by its file
            name, source = name or os.fspath(source), read_output(os.fspath(source))
        if isinstance(source, MetaEvaluation):  # MTME data as --mtme shows it, other data as --human / --genmt
            named.append((name or (f"meta_evaluate against {source.human.path}" if source.human is not None and
                                   source.human.path else f"meta-evaluation {k}"),
                          source.to_dict(layout="mtme" if source.mtme_data is not None else None)))
            continue
        try:
            layout = detect(source)
        except LayoutError as exc:
            raise InputError(f"write_report: source {k} is not an output docmetrics report reads ({exc})") from None
        if layout == "scores" and any("units" in d for d in source):  # type: ignore[union-attr]
            results = None  # the output carries the documents and units itself
        named.append(((name or f"source {k}").replace("{layout}", layout), source))
    if not named and not results:
        raise SpecError("write_report: give what to report (a meta-evaluation, saved output, or results=)",
                        params=("sources",))
    given = list((results.items() if isinstance(results, Mapping) else results) or ())
    compact = [compact_result(r, spec, intervals[k][i] if intervals else None) for k, (spec, rs) in enumerate(given)
               for i, r in enumerate(rs)]
    page = payload(named, results=compact, texts=texts(testset) if testset is not None else None, title=title,
                   human=human_segments(human, testset) if testset is not None else None,
                   spans=merge_spans(error_spans(human, testset), spans) if testset is not None else None,
                   command=command, inputs=inputs)
    return write_page(path, page)


def human_segments(human: Any, testset: TestSet) -> dict[str, Any] | None:
    """Each system's human segment scores on the test set's lines, where the file has segment scores."""
    if human is None or not getattr(human, "segment_level", False):
        return None
    from .human_match import segment_rows

    try:
        rows = segment_rows(human, testset)
    except UserError:
        return None
    from .rules import report_ranking

    return {"name": human.path, "column": human.column, "lower_is_better": human.lower_is_better, "segments": rows,
            "ranking": report_ranking(rows, lower_is_better=human.lower_is_better)}


def error_spans(human: Any, testset: TestSet) -> dict[str, Any] | None:
    """``system -> {line: [[start, end, severity, category], ...]}``: the human error spans of ``human`` (GenMT's ESA
    spans, a raw MQM file's; an omission, or a span marked in the source, has start and end null) on the test
    set's lines."""
    out: dict[str, dict[str, list[list[Any]]]] = {}
    first: dict[str, int] = {}
    for d in testset.documents:
        first.setdefault(d.doc_id, d.start)
    for system, by_segment in (getattr(human, "spans", None) or {}).items():
        for key, spans in by_segment.items():
            pos = human.positions.get(key)
            if pos is None or key[0] not in first:
                continue
            out.setdefault(system, {})[str(first[key[0]] + pos - 1)] = [
                [None if getattr(sp, "side", None) == "source" else sp.start,
                 None if getattr(sp, "side", None) == "source" else sp.end,
                 sp.severity or "", getattr(sp, "category", "")] for sp in spans]
    return out or None
