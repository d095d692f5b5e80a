"""Meta-evaluation as a library call: :func:`meta_evaluate` judges metrics' Results against human scores
(what :func:`~docmetrics.judging.formats.read_human` returns) at the system, segment and document level,
compares two metrics or more by PERM-BOTH with WMT's clusters, and returns a :class:`MetaEvaluation` whose
values are read by the statistics registry's names and whose ``to_dict()`` and ``to_text()`` are the JSON and the
text ``docmetrics --human`` / ``--genmt`` / ``--mtme`` print (the one result type,
:mod:`docmetrics.judging.metaevaluation`); :func:`wmt_average` averages several language pairs' as the WMT
metrics tasks do.  Each metric is judged by :func:`docmetrics.judging.evaluate.evaluate_wmt` on the systems it
scored (MTME data: :func:`docmetrics.judging.evaluate.evaluate_mtme`); ``docmetrics --human``, ``--genmt``,
``--mtme``, ``metaeval`` and ``sweep`` call :func:`meta_evaluate` itself."""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import TYPE_CHECKING, Any, Mapping, Sequence, Union

from ..formats.base import EvalSet
from ..formats.human_tsv import HumanScores
from ..stats.base import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..values.errors import DocMetricsWarning, InputError, SpecError
from ..values.result import Result
from ..values.testset import TestSet
from . import averages
from . import statistics as stats
from .comparisons import METRIC_TESTS, Comparison
from .doc_level import DOC_RULES, doc_gold
from .evaluate import compared_statistics, evaluate_mtme, evaluate_wmt
from .human_match import closest_system, match_systems, segment_rows
from .labels import row_labels
from .metaeval_metric import MetaEval
from .metaevaluation import MetaEvaluation, mtme_text
from .params import name_list
from .scores import Scores
from .statistics import LEVELS

if TYPE_CHECKING:
    from .mtme import MtmeRun

__all__ = ["meta_evaluate", "check_human", "describe_human", "wmt_average", "mtme_run_text", "mtme_run_dict"]

ResultsByMetric = Union[Mapping[str, Sequence[Result]], Sequence[tuple[str, Sequence[Result]]]]


def _pairs(results_by_metric: ResultsByMetric) -> list[tuple[str, list[Result]]]:
    items = results_by_metric.items() if isinstance(results_by_metric, Mapping) else results_by_metric
    out = []
    for spec, results in items:
        if isinstance(results, Result):
            raise TypeError(f"meta_evaluate: metric {spec!r}: give its Results, one per system (a list), not one")
        out.append((str(spec), list(results)))
    if not out:
        raise InputError("meta_evaluate: no metric to judge", params=("results_by_metric",))
    return out


def _check_documents(pairs: Sequence[tuple[str, list[Result]]], scores: HumanScores, testset: TestSet | None,
                     where: str) -> None:
    """Results scored on other documents than the human data's are refused (an InputError naming both sides:
    their numbers would be correlated with another test set's human scores); where only some of a metric's
    documents are the human data's, a warning gives the coverage.  The human data's documents: the test set's
    (where the segments are placed), else those the segment scores name; none known (system scores only): no check."""
    if testset is not None and testset.doc_ids is not None:
        have = [d.doc_id for d in testset.documents]
    elif scores.segment_level:
        have = list(dict.fromkeys(key[0] for key in scores.positions))
    else:
        return
    known = set(have)
    for spec, results in pairs:
        scored = list(dict.fromkeys(d.doc_id for r in results for d in r.docs))
        if not scored:
            continue
        common = [d for d in scored if d in known]
        if not common:
            raise InputError(
                f"meta_evaluate: the Results of {spec!r} score documents ({', '.join(map(repr, scored[:2]))}"
                f"{', ...' if len(scored) > 2 else ''}) none of which is in {where} ({len(have)} documents: "
                f"{', '.join(map(repr, have[:2]))}{', ...' if len(have) > 2 else ''}): they were computed on "
                f"another test set; score the human data's own (docmetrics.load({spec!r}).compute(data.testset)), "
                "or read the human data of the test set scored", params=("results_by_metric", "human"))
        if len(common) < len(scored) or len(common) < len(have):
            missing = [d for d in scored if d not in known]
            unscored = [d for d in have if d not in set(scored)]
            warnings.warn(
                f"meta_evaluate: the Results of {spec!r} and {where} share {len(common)} documents: "
                f"{len(common)} of the {len(scored)} scored ({len(common) / len(scored):.1%}"
                f"{f'; first without a human score: {missing[0]!r}' if missing else ''}), {len(common)} of the "
                f"{len(have)} judged ({len(common) / len(have):.1%}"
                f"{f'; first not scored: {unscored[0]!r}' if unscored else ''}); the segment and document levels "
                "read the shared ones only, the system scores are each side's over its own documents: score the "
                "human data's own test set", DocMetricsWarning, stacklevel=3)


def meta_evaluate(
    results_by_metric: ResultsByMetric,
    human: EvalSet | HumanScores,
    *,
    levels: Sequence[str] | None = None,
    statistics: Sequence[str] | None = None,
    significance: int | None = None,
    seed: int | None = DEFAULT_SEED,
    testset: TestSet | None = None,
    exclude: Sequence[str] = (),
    exclude_humans: bool = False,
    doc_rule: str = "mean",
    human_text: str | None = None,
    metric_test: str = "perm-both",
    pdp: bool = False,
    short: bool = False,
) -> MetaEvaluation:
    """Judge each metric's Results (``{spec: [Result per system]}``, or (spec, results) pairs, in order) against
    ``human`` (what :func:`~docmetrics.judging.formats.read_human` returns, or HumanScores with ``testset``).

    ``levels``: of ``system``, ``segment``, ``document``; default: the system level, and the segment level where
    the human scores are per segment and the test set is known (as ``docmetrics --genmt`` does).  ``document``
    adds the document level (gold per (system, document) by ``doc_rule``: ``mean`` or ``sum`` of its segments)
    and system-level PDP.  ``statistics``: compared by PERM-BOTH between metrics besides the main ones (names of
    the statistics registry, as ``--stat NAME`` names them: the main ones, with the document level's and PDP's where
    asked for, are always compared, on MTME data too); an opt-in statistic named there (MTME's ``kendall_c``,
    ``seg_kendall_23``, ``seg_kendall_like``, ``seg_pearson_micro``, ...) is computed too; ``significance``: the
    number of PERM-BOTH resamples (default 1000 as the command, 0: no comparison), with ``seed``;
    ``metric_test="williams"``: Williams' test instead of PERM-BOTH for Pearson's r (``--metric-test williams``).
    ``exclude``: systems left out;
    ``exclude_humans``: leave out those the human file marks as human.  ``human_text``: what the human scores
    are, in :meth:`MetaEvaluation.to_text` (default: :func:`describe_human`; not for MTME data).
    ``pdp``: system-level PDP without the document level (``--pdp``); ``short``: the signatures in short form
    (``--short``).

    MTME data (``read_human`` of an mt-metrics-eval directory) is judged as ``docmetrics --mtme`` judges it (the
    command calls this function): each metric named by its spec (give each spec once), the segment level wherever
    the test set has segment scores (``levels`` must name it there), system scores from MTME's ``.sys.score``
    files where it has them, the document level with ``levels`` naming it (from MTME's ``.doc.score`` files where
    there are some).

    >>> ev = meta_evaluate({"chrf": results}, data)                                   # doctest: +SKIP
    >>> ev.value("chrf", "pearson"), ev.value("chrf", "seg-kendall", level="segment")  # doctest: +SKIP
    """
    if metric_test not in METRIC_TESTS:
        raise SpecError(f"metric_test={metric_test!r}: one of {', '.join(METRIC_TESTS)}", params=("metric_test",))
    pairs = _pairs(results_by_metric)
    levels = name_list(levels, "levels", "meta_evaluate")
    statistics = name_list(statistics, "statistics", "meta_evaluate")
    exclude = name_list(exclude, "exclude", "meta_evaluate") or ()
    unknown = [lv for lv in levels or () if lv not in LEVELS]
    if unknown:
        raise SpecError(f"levels: {unknown[0]!r} is not a level; of {', '.join(LEVELS)}", params=("levels",))
    if doc_rule not in DOC_RULES:
        raise SpecError(f"doc_rule={doc_rule!r}: one of {', '.join(DOC_RULES)}", params=("doc_rule",))
    if significance is not None and significance < 0:
        raise SpecError(f"significance={significance}: the number of PERM-BOTH resamples, 0 or more",
                        params=("significance",))
    wanted = () if statistics is None else tuple(stats.get(s).name for s in statistics)
    # what every computation below takes (evaluate_wmt's options)
    common: dict[str, Any] = dict(n_resamples=DEFAULT_RESAMPLES if significance is None else significance, seed=seed,
                                  metric_test=metric_test, short=short, statistics=wanted)
    if isinstance(human, EvalSet) and human.format == "mtme" and human.raw is not None:
        if human_text is not None:
            raise SpecError("human_text: the text of MTME data names its human scores in its first line, as --mtme "
                            "prints it; leave human_text out", params=("human_text",))
        return _mtme(pairs, human, levels, exclude, exclude_humans, doc_rule, pdp, **common)
    if isinstance(human, EvalSet):
        if human.human is None:
            raise InputError(f"{human.source}: no human scores to judge metrics against (a {human.format} file "
                             f"{'of ' + human.lp + ' ' if human.lp else ''}holds none)", params=("human",))
        testset = testset if testset is not None else human.testset
        scores = human.human
    elif isinstance(human, HumanScores):
        scores = human
    else:
        raise TypeError(f"meta_evaluate: human= takes what read_human returns (or HumanScores), not "
                        f"{type(human).__name__}")
    if levels is None:
        levels = ("system", "segment") if scores.segment_level and testset is not None else ("system",)
    document = "document" in levels
    if ("segment" in levels or document) and not scores.segment_level:
        raise InputError(f"{scores.path}: the segment and document levels need segment-level human scores; this "
                         "file has system scores only: levels=('system',)", params=("levels",))
    if ("segment" in levels or document) and testset is None:
        raise InputError(f"{scores.path}: the segment and document levels place the human scores on the test set's "
                         "lines: give testset=", params=("testset",))
    _check_documents(pairs, scores, testset, human.source if isinstance(human, EvalSet) else str(scores.path))
    specs = [spec for spec, _ in pairs]
    names = row_labels(specs, [rs[0].metric if rs else spec for spec, rs in pairs])
    excluded = set(exclude) | (set(scores.humans) if exclude_humans else set())
    ev = _judge(pairs, names, scores, testset, excluded, seg_level="segment" in levels or document,
                doc_rule=doc_rule if document else None, pdp=pdp or document or "pdp" in wanted, **common)
    return dataclasses.replace(
        ev, lp=(human.lp or "") if isinstance(human, EvalSet) else "", specs=tuple(specs), human=scores,
        human_text=describe_human(human) if human_text is None else human_text,
        data=human if isinstance(human, EvalSet) else None)


def _chosen(results: Sequence[Result], human: HumanScores,
            excluded: set[str]) -> tuple[list[tuple[Result, str]], list[str]]:
    """The results judged, each with its system's name in the human file, and the systems left out and why."""
    mapping = match_systems([r.system for r in results], list(human.system))
    left_out: list[str] = []
    chosen: list[tuple[Result, str]] = []
    for r in results:
        h = mapping.get(r.system)
        if h is None:
            left_out.append(f"{r.system} (no human score)")
        elif h in excluded or r.system in excluded:
            left_out.append(f"{r.system} (excluded)")
        elif math.isnan(r.score):
            left_out.append(f"{r.system} (no metric score)")
        else:
            chosen.append((r, h))
    return chosen, left_out


def _judge(pairs: Sequence[tuple[str, list[Result]]], names: Sequence[str], human: HumanScores,
           testset: TestSet | None, excluded: set[str], *, seg_level: bool, n_resamples: int, seed: int | None,
           metric_test: str, **options: Any) -> MetaEvaluation:
    """:func:`meta_evaluate` against HumanScores: each metric judged by
    :func:`~docmetrics.judging.evaluate.evaluate_wmt` on the systems it scored that have a human score, not
    ``excluded`` (its numbers the same alone or beside others; its systems as given, those left out and why), then,
    with two metrics or more, the main statistics (and those of ``options["statistics"]``) compared by PERM-BOTH
    on the systems every metric scored; the result's ``left_out`` names the others.  ``options``: evaluate_wmt's
    (``short``, ``pdp``, ``doc_rule``, ``statistics``)."""
    rows: dict[str, list[float | None]] | None = None
    doc_ids = testset.doc_ids if options["doc_rule"] is not None and testset is not None else None

    def wmt(chosen: Mapping[str, Sequence[tuple[Result, str]]], **more: Any) -> MetaEvaluation:
        systems = list(dict.fromkeys(h for pairs in chosen.values() for _, h in pairs))  # in order: the sums too
        return evaluate_wmt(
            {name: [r for r, _ in pairs] for name, pairs in chosen.items()},
            {h: human.system[h] for h in systems}, None if rows is None else {h: rows[h] for h in systems},
            unit_level=True, human_file=str(human.path), doc_ids=doc_ids, **options, **more)

    metrics: dict[str, MetaEval] = {}
    scored: dict[str, dict[str, Result]] = {}
    for name, (spec, results) in zip(names, pairs):
        if not results:
            raise InputError("no results to meta-evaluate")
        chosen, left_out = _chosen(results, human, excluded)
        if len(chosen) < 2:
            raise InputError(
                f"{human.path}: only {len(chosen)} system(s) have both a metric and a human score "
                f"(left out: {', '.join(left_out) or 'none'}); system names must match the human file's "
                "(file names without extension match too)")
        if seg_level and rows is None:
            rows = segment_rows(human, testset)
        label = spec or results[0].metric
        alone = wmt({label: chosen}, significance=())
        ev = alone.metrics[label]
        if seg_level and (ev.seg_n or 0) < 2:
            raise InputError(f"{human.path}: fewer than 2 scored units have human segment scores")
        ev.metric, ev.left_out = results[0].metric, left_out
        ev.systems = [r.system for r, _ in chosen]
        ev.metric_scores = [r.score for r, _ in chosen]
        ev.human_scores = [human.system[h] for _, h in chosen]
        metrics[name], scored[name] = ev, {h: r for r, h in chosen}
    every = sorted(set().union(*scored.values()))
    systems = [h for h in every if all(h in c for c in scored.values())]
    left_out = [f"{h} (no score from {', '.join(n for n in names if h not in scored[n])})"
                for h in every if h not in systems]
    # judged by the humans, scored by no metric (MTME's human reference): said, as --mtme says it
    left_out += [f"{h} (no score from {', '.join(spec for spec, _ in pairs)})" for h in sorted(human.system)
                 if h not in every and h not in excluded]
    wanted = compared_statistics(options["pdp"], options["doc_rule"], also=options["statistics"])
    comparisons: dict[str, Comparison] = {}
    if len(metrics) >= 2 and n_resamples > 0 and len(systems) >= 2:
        comparisons = wmt({name: [(scored[name][h], h) for h in systems] for name in names}, significance=wanted,
                          n_resamples=n_resamples, seed=seed, metric_test=metric_test).comparisons
    elif len(metrics) >= 2 and n_resamples > 0:
        left_out.append(f"fewer than 2 systems scored by every metric ({', '.join(systems) or 'none'}): "
                        "no comparison")
    n_segments = testset.n_segments if seg_level and testset is not None else None
    return MetaEvaluation("", str(human.path), systems, left_out, metrics, comparisons, n_resamples, seed,
                          alone.n_permutations, alone.spa_seed, alone.alpha, n_segments, layout="human")


def wmt_average(evaluations: Sequence[MetaEvaluation], scheme: str | Sequence[str] = "wmt24", *,
                alpha: float | None = None) -> averages.WmtAverage:
    """The overall ranking of metrics over language pairs: ``evaluations``, one :func:`meta_evaluate` per language
    pair (each with its own ``lp``; MTME data names it), averaged as the WMT metrics tasks average them, with
    significance clusters on the average (PERM-BOTH).  ``scheme``: ``"wmt24"`` (SPA and acc_eq of every pair,
    equal weights), ``"wmt23"`` (pairwise accuracy pooled over the pairs, weight their number, then Pearson,
    seg-Pearson and acc_eq of every pair), or a list of statistics of the registry (names or aliases; a plugin's
    too), each of every pair, equal weights: what ``docmetrics metaeval --average STAT,...`` prints.  Each statistic
    is mapped to [0, 1] from its range; a metric without a value in some task is left out (``excluded`` says why).
    The clusters need the averaged statistics compared in every pair (``significance`` > 0 and, for a statistic
    outside the main ones, ``statistics=[...]``); else the ranks are None and ``note`` says why.  ``alpha``: default
    the evaluations'.  The result's ``to_dict()`` and ``to_text(width, labels)`` are what the command prints.

    >>> per_lp = [docmetrics.meta_evaluate(results[lp], data[lp]) for lp in ("en-de", "zh-en")]   # doctest: +SKIP
    >>> print(docmetrics.judging.wmt_average(per_lp, "wmt23").to_text())                       # doctest: +SKIP
    """
    wrong = [type(e).__name__ for e in evaluations if not isinstance(e, MetaEvaluation)]
    if wrong:
        raise TypeError(f"wmt_average: give what meta_evaluate returns, one per language pair, not {wrong[0]}")
    return averages.wmt_average(list(evaluations), scheme, alpha)


def check_human(human: EvalSet | HumanScores, testset: TestSet, *, exclude: Sequence[str] = (),
                exclude_humans: bool = False, doc_rule: str | None = None) -> dict[str, str | None]:
    """What :func:`meta_evaluate` will meet in ``human`` on ``testset``, checked before any metric scores: each
    system of the test set (not in ``exclude``) without a human score -> the human data's closest name (None where
    none is close), in the test set's order; a system is matched by its name or its file name without the extension
    (those are left out of the correlations).  With ``doc_rule`` (``mean``/``sum``), the document-level gold is
    built now for the systems with a human score (not excluded; ``exclude_humans``: nor those the data marks as
    human), so that a mistake in the human scores (a document judged for some systems only, segments beyond the test
    set) is an InputError before scoring, as ``--doc-level`` reports it.

    >>> docmetrics.judging.check_human(docmetrics.read_human("human.tsv"), testset)   # doctest: +SKIP
    {'sysX.txt': 'sysx'}
    """
    scores = human.human if isinstance(human, EvalSet) else human
    if scores is None:
        raise InputError(f"{human.source}: no human scores to check", params=("human",))  # type: ignore[union-attr]
    mapping = match_systems(list(testset.systems), list(scores.system))
    if doc_rule is not None:
        excluded = set(exclude) | (set(scores.humans) if exclude_humans else set())
        order = [h for s, h in mapping.items() if h not in excluded and s not in excluded]
        if len(order) >= 2:  # else meta_evaluate says which systems lack a human score
            rows = segment_rows(scores, testset)
            doc_gold(order, doc_ids=testset.doc_ids, human_seg={h: rows[h] for h in order}, rule=doc_rule,
                     human_file=str(scores.path))
    return {s: closest_system(s, list(scores.system)) for s in testset.systems if s not in mapping and s not in exclude}


def describe_human(human: EvalSet | HumanScores, *, column: str | None = None, lp: str | None = None) -> str:
    """What human scores are, in words: the ``Human scores: ...`` line under a meta-evaluation's table
    (:meth:`MetaEvaluation.to_text`).  A GenMT language pair's (``read_human`` of a GenMT file, or its HumanScores with
    ``lp``): the ESA scores of the file, how many (segment, system) items of how many systems were judged; a raw MQM
    file's: how its penalties are computed; a TSV's: the file, ``column`` (the score column named when it was read;
    None: ``auto``, the first of the known names) and whether the scores were negated.

    >>> describe_human(docmetrics.read_human("human.tsv"))                    # doctest: +SKIP
    'human.tsv (column auto; higher is better)'
    """
    scores = human.human if isinstance(human, EvalSet) else human
    if scores is None:
        raise InputError(f"{human.source}: no human scores to describe", params=("human",))  # type: ignore[union-attr]
    genmt = isinstance(human, EvalSet) and human.format == "genmt"
    if genmt or (lp is not None and scores.column == "ESA"):  # a GenMT pair's scores, as formats.genmt reads them
        source, lp = (human.source, human.lp or "") if genmt else (str(scores.path), lp)  # type: ignore[union-attr]
        items = sum(len(judged) for judged in scores.segments.values())
        return (f"ESA scores of {source} ({lp}, field scores; an item's score is the mean of its annotations; {items} "
                f"judged (segment, system) items of {len(scores.segments)} systems; higher is better)")
    negated = " after negation" if scores.lower_is_better else ""
    how = MQM_TEXT if scores.raw_mqm else f"column {column or 'auto'}; higher is better{negated}"
    return f"{scores.path} ({how})"


#: how a raw MQM file's scores are computed, in the notes under a table
MQM_TEXT = ("raw MQM ratings: per segment, the errors' weights (Major 5, Minor 1, Minor Fluency/Punctuation 0.1, "
            "Major Non-translation! 25, else 0) summed per rater and averaged over raters, as mt-metrics-eval's "
            "score_mqm.py computes them; a penalty, lower is better, negated")


def _mtme(pairs: Sequence[tuple[str, list[Result]]], data: EvalSet, levels: Sequence[str] | None,
          exclude: Sequence[str], exclude_humans: bool, doc_rule: str, pdp: bool, **common: Any) -> MetaEvaluation:
    """:func:`meta_evaluate` on MTME data: :func:`~docmetrics.judging.evaluate.evaluate_mtme` on its own human
    scores, what ``docmetrics --mtme`` and ``docmetrics metaeval`` print (``common``: evaluate_wmt's options)."""
    specs = [spec for spec, _ in pairs]
    twice = [spec for k, spec in enumerate(specs) if spec in specs[:k]]
    if twice:
        raise InputError(f"meta_evaluate: MTME data names each metric by its spec, and {twice[0]!r} is given twice: "
                         "give each spec once", params=("results_by_metric",))
    if levels is not None and "segment" not in levels and data.human is not None:
        raise SpecError(f"levels={tuple(levels)!r}: MTME data is judged at the segment level wherever it has segment "
                        "scores, as --mtme judges it; name 'segment' in levels (or leave levels out)",
                        params=("levels",))
    raw = data.raw
    if data.human is not None:
        _check_documents(pairs, data.human, data.testset, data.source)
    left = set(exclude) | (set(raw.human_systems) if exclude_humans else set())
    results = {spec: [r for r in rs if r.system not in left] for spec, rs in pairs}
    rule = doc_rule if levels is not None and "document" in levels else None
    compared = compared_statistics(pdp, rule, also=common["statistics"]) if common["n_resamples"] else ()
    ev = evaluate_mtme(results, raw, significance=compared, doc_rule=rule, pdp=pdp, **common)
    return dataclasses.replace(ev, specs=tuple(specs), human=data.human, data=data, layout="human")


# -- a language pair of run_mtme, as --mtme and docmetrics metaeval print it -------------------------------------
def mtme_run_text(run: MtmeRun, width: int | None = None, *, rank_by: str = "spa", explain: bool = True,
                  short: bool = False) -> str:
    """One language pair of :func:`~docmetrics.judging.run_mtme`, as ``docmetrics --mtme`` prints it: its
    meta-evaluation's :meth:`~docmetrics.judging.MetaEvaluation.to_text` (``width`` decimals, default 4; the
    metrics sorted by ``rank_by``; ``explain``: say what the columns mean) with the score files the run wrote, or,
    where it was not meta-evaluated, the system scores (``width`` decimals, default each metric's own).

    >>> print(docmetrics.judging.mtme_run_text(run))                                   # doctest: +SKIP
    """
    if run.evaluation is not None:
        return run.evaluation.to_text(4 if width is None else width, rank_by=rank_by, explain=explain,
                                      written=run.written)
    signatures = {spec: results[0].signature.format(short=short) for spec, results in run.results.items()}
    return mtme_text(None, run.data, list(run.testset.systems), signatures, written=run.written,
                     scores_table=Scores(list(run.results.items()), run.testset).table(width))


def mtme_run_dict(run: MtmeRun, *, short: bool = False) -> dict[str, Any]:
    """The JSON of :func:`mtme_run_text`: the meta-evaluation's ``to_dict(layout="mtme")`` (else the language pair's
    scores), the score files written (``written``) and what MTME's metadata files say (``metadata``, where some)."""
    data = run.data
    if run.evaluation is not None:
        d: dict[str, Any] = run.evaluation.to_dict(layout="mtme")
    else:
        d = {"testset": data.testset, "lp": run.lp, "root": data.root, "reference": data.ref,
             "references": list(data.refs),
             "scores": [r.to_dict(level="system", short=short) for rs in run.results.values() for r in rs]}
    d["written"] = [w.to_dict() for w in run.written]
    if data.metadata:  # MTME's metadata/LP/*.jsonl (WMT25): what the records say of documents and domains
        d["metadata"] = data.metadata_summary()
    return d
