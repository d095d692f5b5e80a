"""The rest of judging as library calls, each a thin typed wrapper of the evaluation code the command line
runs: :func:`autorank` (WMT25's automatic ranking), :func:`span_f1` (error spans against human spans, as WMT25's
``scoring_esa.py``), :func:`compare_systems` (paired bootstrap / approximate randomization over documents) and
:func:`write_report` (the self-contained HTML page).  Nothing here prints."""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence, Union

from ..algorithms.wmt_stats import DEFAULT_SEED
from ..evaluation.autorank import EPS, AutoRank, rank_results, rank_stored
from ..evaluation.autorank import autorank as autorank_scores
from ..evaluation.significance import PairedTest, paired_test
from ..evaluation.spans import SpanGold, SpanJudgement, judge, judge_predicted, metric_predictions, mqm_keys
from ..formats.base import EvalSet
from ..values.errors import InputError, SpecError, UserError
from ..values.result import Result
from ..values.testset import TestSet
from .metaeval import MetaEvaluation
from .params import one_name, path_param, results_param

__all__ = ["autorank", "span_f1", "compare_systems", "write_report", "human_segments", "error_spans", "UNSCORED"]

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
    if not scores:
        raise InputError("autorank: no metric to rank with")
    _check_forms(scores)
    first = next(iter(scores.values()))
    if isinstance(first, Mapping):
        try:
            result = autorank_scores(scores, higher_is_better, eps=eps, lp=lp)  # type: ignore[arg-type]
        except ValueError as exc:
            raise InputError(f"autorank: {exc}") from None
        result.preset = preset
        return result
    return rank_results(scores, lp=lp, eps=eps, preset=preset)  # type: ignore[arg-type]


def _check_forms(scores: Mapping[str, Any]) -> None:
    """Each metric of ``autorank``'s ``scores`` is given in one of its two forms, the same for every metric, and
    scores at least one system; an InputError naming the metric otherwise."""
    forms = "[Result per system] (what load(...).compute gives) or {system: score}"
    kinds = set()
    for name, value in scores.items():
        if isinstance(value, Mapping):
            kinds.add("mapping")
        elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
            kinds.add("results")
            wrong = next((v for v in value if not isinstance(v, Result)), None)
            if wrong is not None:
                raise InputError(f"autorank: metric {name!r}: {type(wrong).__name__} {wrong!r:.60} is not a Result; "
                                 f"give each metric {forms}", params=("scores",))
        else:
            raise InputError(f"autorank: metric {name!r}: a {type(value).__name__}; give each metric {forms}",
                             params=("scores",))
        if not value:
            raise InputError(f"autorank: metric {name!r} scores no system (an empty {type(value).__name__}); give "
                             f"each metric {forms}, one score for every system", params=("scores",))
    if len(kinds) > 1:
        raise InputError("autorank: some metrics are given as Results and others as {system: score}; give every "
                         "metric in the same form", params=("scores",))


def _gold(gold: EvalSet | SpanGold) -> tuple[SpanGold, EvalSet | None]:
    if isinstance(gold, EvalSet):
        return gold.spans, gold
    if isinstance(gold, SpanGold):
        return gold, None
    raise TypeError(f"span_f1: gold= takes what read_human returns (or a SpanGold), not {type(gold).__name__}")


def _keys(data: EvalSet) -> list[tuple[str, ...]]:
    """The key fields of each line of ``data``'s test set, as its gold keys an item (beside the system)."""
    from ..formats.genmt import GenmtPair
    from ..formats.mqm_tsv import MqmRatings

    if isinstance(data.raw, GenmtPair):
        positions = data.spans.positions
        return [(positions[(seg.doc_id, seg.position)],) for seg in data.raw.segments]
    if isinstance(data.raw, MqmRatings):
        return mqm_keys(data.raw)
    raise InputError(f"{data.source}: a {data.format} file has no human spans to key a metric's spans by")


def span_f1(predicted: str | os.PathLike[str] | Sequence[Result], gold: EvalSet | SpanGold, *,
            name: str | None = None) -> SpanJudgement:
    """Error-span predictions against the human spans of ``gold`` (what read_human returns for a GenMT or raw
    MQM file): character-level precision, recall and F1 per system and over every item (micro), half credit
    across severity classes, as WMT25's ``scoring_esa.py``.  ``predicted``: a JSONL file of predictions (one line
    per system and segment), or a metric's Results on the EvalSet's test set (its spans per segment; ``name``
    names it).  ``.overall.scores()`` gives precision, recall and F1; ``to_dict()`` the command's JSON row.

    >>> span_f1("predictions.jsonl", read_human("genmt.jsonl", lp="en-cs")).overall.scores().f1   # doctest: +SKIP
    """
    spans, data = _gold(gold)
    if isinstance(predicted, (str, os.PathLike, bytes, bytearray)):
        predicted = path_param(predicted, "predicted", "span_f1")
    if isinstance(predicted, str):
        return judge(os.fspath(predicted), spans)
    results = results_param(predicted, "predicted", "span_f1")
    if not results:
        raise InputError("span_f1: no Results to judge")
    if data is None:
        raise TypeError("span_f1: a metric's Results are keyed by the test set: give gold= as read_human returns it")
    label = name or results[0].metric
    judged = judge_predicted(label, metric_predictions(results, spans, _keys(data), label), spans,
                             unpredicted=UNSCORED)
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


def write_report(path: str | os.PathLike[str], *sources: Source, results: Mapping[str, Sequence[Result]] | None
                 = None, testset: TestSet | None = None, data: EvalSet | None = None,
                 title: str | None = None) -> int:
    """Write the self-contained HTML report to ``path`` (its size in bytes): one section per source, each a
    :class:`MetaEvaluation` or a saved ``-f json`` output (parsed JSON of any layout ``docmetrics report``
    reads); ``results`` (``{spec: [Result per system]}``) their documents and units, ``testset`` the texts.

    ``data``, the :class:`EvalSet` judged, gives the page what the command's ``--report`` gives it: the test
    set's texts (where ``testset`` is not given), each system's human segment scores with the human ranking, and
    the gold error spans (GenMT's ESA spans, a raw MQM file's).  Without it the human scores of the first
    :class:`MetaEvaluation` among ``sources`` are used where the test set is known."""
    from ..report import LayoutError, compact_result, detect, payload, texts
    from ..report import write as write_page

    path = path_param(path, "path", "write_report", many=False)
    if data is not None and not isinstance(data, EvalSet):
        raise SpecError(f"write_report: data= takes the EvalSet read_human gives, not {type(data).__name__}",
                        params=("data",))
    if testset is None and data is not None:
        testset = data.testset
    _check_not_read(path, sources, testset, *([data.source] if data is not None else []))
    human = data.human if data is not None else next(
        (s.human for s in sources if isinstance(s, MetaEvaluation)), None)
    named: list[tuple[str, Any]] = []
    for k, source in enumerate(sources, 1):
        if isinstance(source, MetaEvaluation):
            named.append((f"meta_evaluate against {source.human.path}" if source.human is not None and source.human.path
                          else f"meta-evaluation {k}", source.to_dict()))
            continue
        try:
            detect(source)
        except LayoutError as exc:
            raise InputError(f"write_report: source {k} is not an output docmetrics report reads ({exc})") from None
        named.append((f"source {k}", source))
    if not named and not results:
        raise SpecError("write_report: give what to report (a meta-evaluation, saved output, or results=)",
                        params=("sources",))
    compact = [compact_result(r, spec) for spec, rs in (results or {}).items() for r in rs]
    page = payload(named, results=compact, texts=texts(testset) if testset is not None else None, title=title,
                   human=human_segments(human, testset) if testset is not None else None,
                   spans=error_spans(getattr(data, "raw", None) if data is not None and data.format == "genmt"
                                     else None, human, testset) if testset is not None else None)
    return write_page(path, page)


def human_segments(human: Any, testset: TestSet) -> dict[str, Any] | None:
    """Each system's human segment scores on the test set's lines, where the file has segment scores."""
    if human is None or not getattr(human, "segment_level", False):
        return None
    from ..evaluation.human import segment_rows

    try:
        rows = segment_rows(human, testset)
    except UserError:
        return None
    from .rules import report_ranking

    return {"name": human.path, "column": human.column, "lower_is_better": human.lower_is_better, "segments": rows,
            "ranking": report_ranking(rows, lower_is_better=human.lower_is_better)}


def error_spans(pair: Any, human: Any, testset: TestSet) -> dict[str, Any] | None:
    """``system -> {line: [[start, end, severity, category], ...]}``: GenMT's ESA spans (``pair``: the --genmt
    language pair), or a raw MQM file's (an omission without a place has start and end null)."""
    out: dict[str, dict[str, list[list[Any]]]] = {}
    if pair is not None:
        for system, judgements in pair.human.items():
            for line, j in enumerate(judgements):
                if j is not None and j.errors:
                    out.setdefault(system, {})[str(line)] = [[e.start, e.end, e.severity or "", ""] for e in j.errors]
    elif human is not None and getattr(human, "spans", None):
        first: dict[str, int] = {}
        for d in testset.documents:
            first.setdefault(d.doc_id, d.start)
        for system, by_segment in human.spans.items():
            for key, spans in by_segment.items():
                pos = human.positions.get(key)
                if pos is None or key[0] not in first:
                    continue
                line = first[key[0]] + pos - 1
                out.setdefault(system, {})[str(line)] = [
                    [sp.start if sp.side != "source" else None, sp.end if sp.side != "source" else None,
                     sp.severity, sp.category] for sp in spans]
    return out or None

