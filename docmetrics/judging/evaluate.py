"""Meta-evaluation: how well metrics agree with human judgements, at the WMT standard.

The one meta-evaluation behind ``--human``, ``--mtme``, ``docmetrics metaeval`` and ``docmetrics sweep``:
:func:`evaluate_wmt` (several metrics on one test set), :func:`evaluate_mtme` (with the human scores of
an MTME test set), both under :func:`~docmetrics.judging.meta_evaluate` (which judges each metric against a
``--human`` file on the systems it scored, as sweeps use it) give every metric a
:class:`~docmetrics.judging.metaevaluation.MetaEval` computed by the same code, from
the statistics of :mod:`docmetrics.stats`:

* system level: Pearson, Spearman and Kendall's tau-b, pairwise accuracy (``accuracy``: Kocmi et al.,
  2021, pairs with a missing human score skipped as MTME skips them) and soft pairwise accuracy
  (``spa``, WMT24).  The human system score is the sys-level human score, or the mean of the system's
  segment scores when only those are given.  SPA compares the permutation-test p-values of the
  humans' segment scores with those of the metric's item scores: its segments for a sentence-level
  metric, its units (windows, each score times its weight, paired across systems by the segments they
  cover) otherwise;
* segment level, for metrics with one unit per segment (doc-comet, doc-bertscore, doc-prism; not
  SLIDE, whose units are windows: None there): ``seg_acc_eq``, pairwise accuracy with tie calibration
  grouped by item (WMT23/24) and its ``seg_epsilon``; ``seg_pearson`` and ``seg_kendall`` (tau-b)
  over all (system, segment) pairs (MTME's "no grouping").  With ``unit_level`` (``--human``), a
  metric whose units span several segments gets ``seg_kendall`` over all (system, unit) pairs, a unit's
  human score the mean of its segments'.  Segments without a human score (None, as MTME leaves them)
  and segments the metric did not score are skipped.

With two or more metrics, each statistic of ``significance`` is compared between every pair of
metrics by PERM-BOTH (:func:`~docmetrics.stats.permutation.perm_both`; the pair-outcome variant
for ``seg_acc_eq``) and the metrics are clustered as WMT reports them (MTME's ``AssignRanks``).  The
seed and the number of resamples are recorded in the result.  Averages over language pairs:
:mod:`docmetrics.judging.averages`.

Nothing here parses arguments or prints; the result is a :class:`~docmetrics.judging.metaevaluation.MetaEvaluation`
(its ``to_dict()`` JSON-ready: NaN -> None; its ``to_text()`` what the commands print).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from .. import stats
from ..formats.mtme import MtmeTestSet
from ..stats.vector import kendall, pairwise_accuracy, pearson
from ..values.errors import InputError
from ..values.result import Result
from ..values.units import as_score
from . import statistics as registry  # the statistics as named values
from .aligned import Aligned, Score, align
from .comparisons import SYSTEM_STATISTICS, Comparison, compare
from .doc_level import DocGold, doc_eval, doc_gold, doc_matrix
from .human_match import match_systems
from .metaeval_metric import UNIT_LEVEL, MetaEval
from .metaevaluation import MetaEvaluation

__all__ = ["MAIN_STATISTICS", "compared_statistics", "evaluate_wmt", "evaluate_mtme", "match_systems"]

#: the statistics compared by PERM-BOTH by default when the document level is asked for
DOC_MAIN_STATISTICS = ("pdp", "doc_acc_eq", "doc_pearson", "doc_spa")
#: the statistics of the WMT23 and WMT24 rankings, compared by PERM-BOTH by default (a view of the one registry,
#: :mod:`docmetrics.judging.statistics`)
MAIN_STATISTICS = registry.names(main=True, plugins=False)


def compared_statistics(pdp: bool = False, doc_rule: str | None = None, also: Sequence[str] = ()) -> tuple[str, ...]:
    """The statistics PERM-BOTH compares between metrics: the main ones of the registry (docmetrics' and
    the plugins' marked ``main``, read now), system-level PDP with ``pdp``, the document level's main ones
    with ``doc_rule``, then ``also`` (e.g. the statistics of an average), each once."""
    extra = DOC_MAIN_STATISTICS if doc_rule is not None else ("pdp",) if pdp else ()
    return tuple(dict.fromkeys((*registry.names(main=True), *extra, *also)))


# -- evaluation ------------------------------------------------------------------------------------------------
def _group(results: Mapping[str, Sequence[Result]] | Sequence[Result]) -> dict[str, list[Result]]:
    if isinstance(results, Mapping):
        groups = {str(k): list(v) for k, v in results.items()}
    else:
        groups = {}
        for r in results:
            groups.setdefault(r.metric, []).append(r)
    if not groups or not all(groups.values()):
        raise InputError("no results to meta-evaluate")
    for name, rs in groups.items():
        seen: set[str] = set()
        for r in rs:
            if r.system in seen:
                raise InputError(f"metric {name!r}: system {r.system!r} has two results; label each metric run once")
            seen.add(r.system)
    return groups


def _human_system_scores(
    human_sys: Mapping[str, Any] | None, human_seg: Mapping[str, Sequence[Score]] | None
) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    if human_sys is not None:
        for s, v in human_sys.items():
            if isinstance(v, (list, tuple)):
                if len(v) != 1:
                    raise InputError(f"system-level human score of {s!r}: expected one value, got {len(v)}")
                v = v[0]
            out[s] = as_score(v)
        return out
    assert human_seg is not None
    for s, vals in human_seg.items():
        scored = [x for v in vals if (x := as_score(v)) is not None]
        out[s] = math.fsum(scored) / len(scored) if scored else None
    return out


def _unit_pairs(results: Sequence[Result], order: Sequence[str], human: Mapping[str, Sequence[Score]]):
    """(metric, human) of every scored unit with a human score, a unit's human score the mean of its
    segments' (of a one-segment unit: its segment's); ``results`` parallel to ``order``."""
    xs: list[float] = []
    ys: list[float] = []
    for s, r in zip(order, results):
        row = human[s]
        for u in r.units:
            if math.isnan(u.score):
                continue
            vals = [v for v in row[u.start : u.end] if v is not None]
            if vals:
                xs.append(u.score)
                ys.append(math.fsum(vals) / len(vals))
    return xs, ys


def _plugin_stats(out: MetaEval, al: Aligned, order: Sequence[str], human_sys: Sequence[float],
                  human_seg: Mapping[str, Sequence[Score]] | None, asked: frozenset[str] = frozenset()) -> MetaEval:
    """The statistics of one metric that bring their own ``compute`` (:mod:`docmetrics.judging.statistics`:
    the plugins', and the opt-in ones named in ``asked``), each computed on the oriented scores; a segment-level
    one without segment scores is None, with the reason."""
    found = [s for s in registry.statistics(opt_in=True) if s.compute is not None and (not s.opt_in or s.name in asked)]
    data = registry.StatInput(list(order), list(al.sys), list(human_sys), al.seg, human_seg)
    for s in found:
        if s.level == "segment" and (human_seg is None or al.seg is None):
            out.values[s.name] = None
            out.notes[s.name] = ("no segment-level human scores" if human_seg is None
                                 else "the metric's units span several segments: no segment-level scores")
            continue
        try:
            out.values[s.name] = s.compute(data)  # type: ignore[misc]
        except (ValueError, ZeroDivisionError) as exc:
            out.values[s.name], out.notes[s.name] = None, f"undefined: {exc}"
    return out


def _metric_stats(
    name: str,
    results: Sequence[Result],
    al: Aligned,
    order: Sequence[str],
    human_sys: Sequence[float],
    human_seg: Mapping[str, Sequence[Score]] | None,
    spa: bool,
    n_permutations: int,
    spa_seed: int,
    short: bool,
    unit_level: bool,
) -> MetaEval:
    m, h = al.sys, list(human_sys)
    _, agree, pairs = pairwise_accuracy(m, h)
    out = MetaEval(
        metric=name,
        spec=name,
        signature=results[0].signature.format(short=short),
        systems=list(order),
        metric_scores=m,
        human_scores=h,
        values={stat: fn(m, h) for stat, fn in SYSTEM_STATISTICS.items()},
        agree=agree,
        pairs=pairs,
    )
    _segment_level(out, results, al, order, human_seg, spa, n_permutations, spa_seed, unit_level)
    if out.seg_level_name is not None and results[0].unit_signature is not None:  # what the segment level judged
        out.unit_signature = results[0].unit_signature.format(short=short)
    for name in registry.names("segment", plugins=False):  # a segment correlation without a reason of its own
        if out.values.get(name) is None and name not in out.notes and out.seg_note is not None:
            out.notes[name] = out.seg_note
    return out


def _segment_level(out: MetaEval, results: Sequence[Result], al: Aligned, order: Sequence[str],
                   human_seg: Mapping[str, Sequence[Score]] | None, spa: bool, n_permutations: int, spa_seed: int,
                   unit_level: bool) -> None:
    """SPA and the segment level of ``out`` (where segment-level human scores were given)."""
    if human_seg is None:
        out.spa_note = out.seg_note = "no segment-level human scores"
        return
    if spa:
        if al.items is None:
            out.spa_note = (
                "the metric gives no unit scores" if al.item_kind == "none"
                else "the metric's units are not shared by all systems"
            )
        else:
            try:
                res = stats.soft_pairwise_accuracy(
                    al.items, human_seg, systems=order, n_permutations=n_permutations, seed=spa_seed
                )
                out.spa, out.spa_items = res.spa, f"{res.metric.n_items} {al.item_kind}s"
            except ValueError as exc:
                out.spa_note = str(exc)
    if al.seg is not None:
        try:
            res_acc = stats.acc_eq(al.seg, human_seg, group_by_item=True, systems=order)
            out.seg_acc_eq, out.seg_epsilon = as_score(res_acc.accuracy), res_acc.epsilon
            out.seg_groups, out.seg_pairs = res_acc.n_groups, res_acc.n_pairs
            out.acc_eq_note = res_acc.ties_note()
        except ValueError as exc:
            out.seg_note = str(exc)
    else:
        out.seg_note = (
            "the metric gives no unit scores" if al.item_kind == "none"
            else "the metric's units span several segments: no segment-level scores"
        )
        if not unit_level or al.item_kind == "none":
            return
    # over every (system, segment) pair; with unit_level, every (system, unit) pair of a window metric
    xs, ys = _unit_pairs(results, order, human_seg)
    out.seg_n, out.seg_level_name = len(xs), "segment" if al.seg is not None else UNIT_LEVEL
    if len(xs) >= 2:
        out.seg_kendall = kendall(xs, ys)
        out.seg_pearson = pearson(xs, ys) if al.seg is not None else None


def _values(metrics: Mapping[str, MetaEval], stat: str) -> tuple[dict[str, float], dict[str, str]]:
    """Each metric's ``stat``, and why the metrics without it have none."""
    values: dict[str, float] = {}
    skipped: dict[str, str] = {}
    for name, mw in metrics.items():
        v = mw.get(stat)
        if v is None:
            skipped[name] = mw.note(stat) or f"no {stat}"
        else:
            values[name] = v
    return values, skipped


def evaluate_wmt(
    results: Mapping[str, Sequence[Result]] | Sequence[Result],
    human_sys: Mapping[str, Any] | None = None,
    human_seg: Mapping[str, Sequence[Score]] | None = None,
    *,
    lp: str = "",
    human_name: str | None = None,
    significance: Sequence[str] | None = None,
    n_resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int | None = stats.DEFAULT_SEED,
    n_permutations: int = stats.DEFAULT_PERMUTATIONS,
    spa_seed: int = stats.SPA_SEED,
    spa: bool = True,
    alpha: float = 0.05,
    short: bool = False,
    unit_level: bool = False,
    pdp: bool = False,
    doc_rule: str | None = None,
    doc_ids: Sequence[str] | None = None,
    human_doc: Mapping[str, Sequence[Any]] | None = None,
    doc_names: Sequence[str] | None = None,
    human_file: str = "human scores",
    metric_test: str = "perm-both",
    statistics: Sequence[str] = (),
) -> MetaEvaluation:
    """WMT statistics of each metric (``results``: metric label -> its Results, one per system; or a
    list of Results grouped by metric name) against human scores (``human_sys``: system -> score;
    ``human_seg``: system -> per-segment scores, None for unscored segments, segments in test-set
    order).  See the module docstring; ``significance``: the statistics compared between metrics (default:
    :func:`compared_statistics`, the main ones); ``significance=()`` skips the PERM-BOTH tests (``seg_kendall``
    is slow there: one Kendall over all (system, segment) pairs per resample); ``unit_level``: Kendall
    over (system, unit) pairs for metrics whose units span several segments (see the module docstring).

    Opt-in (the default output does not change): ``pdp`` adds system-level Pairwise Difference Pearson;
    ``doc_rule`` (``mean`` or ``sum``) adds it and the document level (:mod:`docmetrics.judging.
    doc_level`): gold from ``human_doc`` (system -> one score per document of ``doc_names``) where given,
    else from ``human_seg`` by ``doc_rule`` over the documents of ``doc_ids`` (the document of each
    segment; default: read from the metrics' units); ``human_file`` names the human scores in errors.
    ``statistics``: the opt-in statistics of the registry to compute too (mt-metrics-eval's tau-c, tau_23, ...;
    any name or alias); an opt-in statistic of ``significance`` is computed as well."""
    raw = _group(results)
    groups = {name: [r.oriented() for r in rs] for name, rs in raw.items()}  # judged higher-better
    if human_sys is None and human_seg is None:
        raise InputError("no human scores: give system-level or segment-level human scores")
    if significance is None:
        significance = compared_statistics()
    asked = frozenset(registry.get(n).name for n in (*statistics, *significance))
    n_segments = None
    if human_seg is not None:
        lengths = {len(v) for v in human_seg.values()}
        if len(lengths) > 1:
            raise InputError("segment-level human scores: systems have different numbers of segments")
        n_segments = lengths.pop() if lengths else None
    hsys = _human_system_scores(human_sys, human_seg)
    human_names = list(hsys)

    left_out: list[str] = []
    per_metric: dict[str, dict[str, Result]] = {}
    for name, rs in groups.items():
        mapping = match_systems([r.system for r in rs], human_names)
        mine: dict[str, Result] = {}
        for r in rs:
            hn = mapping.get(r.system)
            if hn is None:
                left_out.append(f"{r.system} (no human score; metric {name})")
                continue
            if hn in mine:
                raise InputError(f"metric {name!r}: systems {mine[hn].system!r} and {r.system!r} both match {hn!r}")
            if math.isnan(r.score):
                left_out.append(f"{r.system} (no {name} score)")
                continue
            mine[hn] = r
        per_metric[name] = mine
    candidates = [s for s in sorted(hsys) if hsys[s] is not None]
    order = []
    for s in candidates:
        lacking = [n for n, mine in per_metric.items() if s not in mine]
        if lacking:
            left_out.append(f"{s} (no score from {', '.join(lacking)})")
        elif human_seg is not None and s not in human_seg:
            left_out.append(f"{s} (no segment-level human scores)")
        else:
            order.append(s)
    left_out.extend(f"{s} (human score is None)" for s in sorted(hsys) if hsys[s] is None)
    if len(order) < 2:
        raise InputError(
            f"only {len(order)} system(s) have a human score and a score from every metric "
            f"(left out: {', '.join(left_out) or 'none'})"
        )
    if human_seg is not None:
        human_seg = {s: list(human_seg[s]) for s in order}
    human_vec = [float(hsys[s]) for s in order]  # type: ignore[arg-type]

    gold: DocGold | None = None
    if doc_rule is not None:
        if human_doc is None and doc_ids is None:
            doc_ids = _doc_ids_from_units(groups, n_segments)
        gold = doc_gold(order, doc_ids=doc_ids, human_seg=human_seg, human_doc=human_doc, doc_names=doc_names,
                        rule=doc_rule, human_file=human_file)

    aligned: dict[str, Aligned] = {}
    metrics: dict[str, MetaEval] = {}
    doc_scores: dict[str, dict[str, list[Score]]] = {}
    for name, mine in per_metric.items():
        rs = [mine[s] for s in order]
        al = align(rs, order, n_segments)
        aligned[name] = al
        metrics[name] = _plugin_stats(_metric_stats(
            name, rs, al, order, human_vec, human_seg, spa, n_permutations, spa_seed, short, unit_level
        ), al, order, human_vec, human_seg, asked)
        if not all(r.higher_is_better for r in raw[name]):  # judged oriented, shown as the metric gives them
            metrics[name].higher_is_better = False
            metrics[name].metric_scores = [-x for x in al.sys]
        if pdp or gold is not None:
            metrics[name].with_pdp = True
            metrics[name].pdp = stats.pdp([human_vec], [al.sys])
        if gold is not None:
            doc_scores[name] = doc_matrix(rs, order, gold.docs)
            metrics[name].document = doc_eval(doc_scores[name], gold, order, spa=spa,
                                              n_permutations=n_permutations, spa_seed=spa_seed)
    comparisons: dict[str, Comparison] = {}
    if len(metrics) >= 2:
        epsilons = {name: m.seg_epsilon for name, m in metrics.items()}
        doc_eps = {name: (m.document.epsilon if m.document else None) for name, m in metrics.items()}
        for stat in significance:
            comparisons[stat] = compare(
                stat, *_values(metrics, stat), aligned, doc_eps if stat == "doc_acc_eq" else epsilons, order,
                human_vec, human_seg,
                n_resamples=n_resamples, seed=seed, n_permutations=n_permutations, spa_seed=spa_seed, alpha=alpha,
                doc_scores=doc_scores or None, doc_gold=None if gold is None else gold.scores, metric_test=metric_test,
            )
    return MetaEvaluation(
        lp, human_name, order, left_out, metrics, comparisons, n_resamples, seed, n_permutations, spa_seed, alpha,
        n_segments,
    )


def _doc_ids_from_units(groups: Mapping[str, Sequence[Result]], n_segments: int | None) -> list[str]:
    """The document of each segment, read from the metrics' units (each unit names its document and
    the segments it covers)."""
    n = n_segments or max((u.end for rs in groups.values() for r in rs for u in r.units), default=0)
    ids: list[str | None] = [None] * n
    for rs in groups.values():
        for r in rs:
            for u in r.units:
                for i in range(max(0, u.start), min(n, u.end)):
                    ids[i] = u.doc_id
    if not n or any(d is None for d in ids):
        missing = ids.index(None) if n else 0
        raise InputError(
            f"document-level meta-evaluation: the document of segment {missing + 1} is not known "
            "(no metric scored it); give the test set's document ids"
        )
    return ids  # type: ignore[return-value]


def evaluate_mtme(results: Mapping[str, Sequence[Result]] | Sequence[Result], data: MtmeTestSet,
                  **options: Any) -> MetaEvaluation:
    """:func:`evaluate_wmt` with the human scores of an MTME test set (those chosen by load_mtme, else the
    standard ones); ``options`` as for evaluate_wmt."""
    name = data.human_name or data.default_human_name("seg") or data.default_human_name("sys")
    if name is None:
        raise InputError(f"{data.directory}/human-scores: no human scores for {data.lp}")
    sys_scores = data.human_scores.get((name, "sys"))
    seg_scores = data.human_scores.get((name, "seg"))
    if sys_scores is None and seg_scores is None:
        data.human(name, "seg")  # raises the error naming the file
    if options.get("doc_rule") is not None:
        # MTME's document-level gold where the test set has it, else derived from the segments
        doc_scores = data.human_scores.get((name, "doc"))
        options.setdefault("doc_ids", data.doc_ids)
        options.setdefault("human_file", data.paths.get(f"human:{name}.{'doc' if doc_scores else 'seg'}", name))
        if doc_scores is not None:
            options.setdefault("human_doc", doc_scores)
            options.setdefault("doc_names", data.doc_names)
    return evaluate_wmt(results, sys_scores, seg_scores, lp=data.lp, human_name=name, **options)

