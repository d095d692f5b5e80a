"""AutoRank, WMT25's automatic ranking of systems over several metrics, exactly as the organisers define
it (wmt-conference/wmt25-general-mt ``preliminary_ranking/latex_source/main.tex``, "From system-level
scores to AutoRank"):

1. each metric's system score ``x_s`` is the mean of its segment scores over the available segments;
2. per metric, median-interpercentile scaling ``z_s = (x_s - median) / max(eps, Q100 - Q25)`` where
   ``Qp`` is the p-th percentile of the system scores (numpy's default, linear interpolation: the only
   method that reproduces every published AutoRank) and ``eps > 0`` (its value is not published; it
   matters only where the top three quarters of the systems tie: :data:`EPS`);
3. the equal-weight mean of ``z_s`` over the metrics;
4. mapped linearly so that the system with the highest mean is 1 and the one with the lowest is N (the
   number of systems): ``1 + (N - 1) * (max - mean_s) / (max - min)``.  Where every mean is equal (one
   system, or all tied) every system gets 1.

WMT25 stores MetricX negated, so all its metrics are higher-is-better; a metric whose lower scores are
better is read through its oriented (negated) scores here, which is what storing it negated does, and
keeps its own values in the table.  Presets name the metric set of a campaign per language pair
(:data:`~.ranking_presets.AUTORANK_PRESETS`: ``wmt25``).  Nothing here prints.

Live metrics (:func:`rank_results`, from each metric's :class:`~docmetrics.values.result.Result` per
system): a metric whose units are segments (every unit covers one segment, no segment twice) gets WMT25's
system score, the mean of its unit scores over the segments it scored (for sacrebleu's chrF: the mean of
sentence chrF, as WMT25's chrF++ column, not its corpus chrF); a metric whose units span several segments
(SLIDE windows, ASD chunks) has no segment scores, so its own system score (its declared aggregation) is
used, and :attr:`AutoRank.metric_info` says so (``system_score``).

Clusters of AutoRank by a paired bootstrap over documents (:func:`bootstrap_clusters`).
WMT25 defines no significance test for AutoRank (its preliminary ranking prints AutoRank alone); this
is docmetrics' own, built on the document resampling of :mod:`docmetrics.judging.paired`:

1. ``n`` resamples of the D documents, D drawn with replacement each time
   (:func:`~docmetrics.judging.paired.bootstrap_indices`, ``numpy.random.default_rng(seed)``),
   the same resamples for every system and every metric (paired);
2. in each resample every metric's system score is recomputed from its documents as
   :func:`rank_results` reads it: the mean over the scored segments of the
   drawn documents (a metric with segment scores), or the metric's declared aggregation of the drawn
   documents' units (one whose units span several segments; :func:`~docmetrics.judging.paired.
   doc_stats`); then AutoRank is recomputed over all systems (robust scaling, equal-weight mean, 1..N);
3. systems are taken in the observed AutoRank order (best first); between adjacent systems A (above) and
   B (below) a cluster boundary is drawn where the share of resamples in which A does NOT rank strictly
   better than B (ties and reversals) is below ``alpha`` (0.05): a one-sided bootstrap p-value.  Only
   adjacent systems are tested; systems tied in AutoRank are never split.

A resample in which some system has no scored segment of some metric has no AutoRank; it counts as one
in which the upper system is not better (so it can only merge clusters), and their number is reported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from ..algorithms.aggregation import unit_groups
from ..formats.judgements import exact_mean
from ..formats.stored_metric import StoredMetric
from ..values.errors import InputError
from ..values.result import Result
from .labels import column
from .paired import ALPHA, bootstrap_indices, doc_order, doc_stats, resampled_scores
from .text import num, table

__all__ = ["EPS", "PERCENTILE_METHOD", "robust_scale", "linear_ranks", "autorank", "AutoRank", "RankedSystem",
           "rank_stored", "SEGMENT_MEAN", "OWN_SCORE", "by_segments", "wmt25_system_score", "rank_results", "TEST",
           "document_sums", "resampled_system_scores", "resampled_autoranks", "bootstrap_clusters"]

#: The epsilon of the scaling's denominator (main.tex: only "eps > 0").
EPS = 1e-9
#: numpy's percentile method for Q100 and Q25.
PERCENTILE_METHOD = "linear"


def robust_scale(values: Any, eps: float = EPS) -> np.ndarray:
    """``(x - median) / max(eps, Q100 - Q25)`` of each value (median-interpercentile scaling), along the last
    axis (each row of an array of resamples scaled apart)."""
    x = np.asarray(values, dtype=float)
    spread = (np.percentile(x, 100, axis=-1, method=PERCENTILE_METHOD)
              - np.percentile(x, 25, axis=-1, method=PERCENTILE_METHOD))
    return (x - np.median(x, axis=-1, keepdims=True)) / np.maximum(eps, spread)[..., None]


def linear_ranks(means: Any) -> np.ndarray:
    """The highest mean 1, the lowest N, the others placed linearly between; all 1 when all are equal; along the
    last axis, NaN in a row with a NaN."""
    z = np.asarray(means, dtype=float)
    top, bottom = z.max(axis=-1, keepdims=True), z.min(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        ranks = np.where(top == bottom, 1.0, 1 + (z.shape[-1] - 1) * (top - z) / (top - bottom))
    return np.where(np.isnan(z).any(axis=-1, keepdims=True), np.nan, ranks)


@dataclass
class RankedSystem:
    """A system's AutoRank, its mean scaled score and, per metric, its system score (the metric's own
    values) and scaled score (oriented: higher better)."""

    system: str
    autorank: float
    mean_z: float
    scores: dict[str, float]
    z: dict[str, float]
    #: Its cluster (1 best) where AutoRank was resampled (:mod:`.autorank_clusters`); None otherwise.
    cluster: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"system": self.system, "autorank": self.autorank, "mean_z": self.mean_z, "scores": dict(self.scores),
             "z": dict(self.z)}
        if self.cluster is not None:
            d["cluster"] = self.cluster
        return d


@dataclass
class AutoRank:
    """The AutoRank of one language pair: systems best first (ties in input order)."""

    lp: str | None
    metrics: list[str]
    systems: list[RankedSystem]
    higher_is_better: dict[str, bool]
    eps: float = EPS
    preset: str | None = None
    #: Per metric, what the caller wants said beside it (signature, missing scores); free-form.
    metric_info: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: How the clusters were drawn (test, resamples, seed, alpha, each boundary's share) where they were.
    significance: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {
            "lp": self.lp,
            "preset": self.preset,
            "definition": {"scaling": "(x - median) / max(eps, Q100 - Q25)", "percentile": PERCENTILE_METHOD,
                           "eps": self.eps, "mean": "equal weights", "range": [1, len(self.systems)]},
            "metrics": [{"name": m, "higher_is_better": self.higher_is_better[m], **self.metric_info.get(m, {})}
                        for m in self.metrics],
            "systems": [s.to_dict() for s in self.systems],
            "notes": list(self.notes),
        }
        if self.significance is not None:
            d["significance"] = self.significance
        return d

    def to_text(self, width: int = 4) -> str:
        """The table ``docmetrics rank`` prints for the language pair: rank order, (clustered) cluster, system,
        AutoRank and each metric's system score (its own values), a rule line between clusters, then each
        metric's signature and direction, how the clusters were drawn, and the notes."""
        labels = {m: column(m, k + 1) for k, m in enumerate(self.metrics)}
        clustered = self.significance is not None
        headers = ["Cluster"] * clustered + ["System", "AutoRank"] + [labels[m] for m in self.metrics]
        rows = [[str(r.cluster)] * clustered + [r.system, num(r.autorank, width)]
                + [num(r.scores[m], width) for m in self.metrics] for r in self.systems]
        rules = ["-" if clustered and k and r.cluster != self.systems[k - 1].cluster else ""
                 for k, r in enumerate(self.systems)]
        text = table(headers, rows, ("r" if clustered else "") + "l" + "r" * (len(headers) - 1 - clustered), rules)
        n_clusters = len({r.cluster for r in self.systems}) if clustered else 0
        title = (f"AutoRank{' ' + self.lp if self.lp else ''}: {len(self.systems)} systems, "
                 f"{len(self.metrics)} metric{'s' if len(self.metrics) != 1 else ''}"
                 f"{f' (preset {self.preset})' if self.preset else ''}"
                 f"{f', {n_clusters} cluster' + ('s' if n_clusters != 1 else '') if clustered else ''}"
                 f"; 1 is best, {len(self.systems)} worst")
        lines = [title, *text.rstrip("\n").split("\n")]
        for k, m in enumerate(self.metrics, 1):
            info = self.metric_info.get(m, {})
            sig = info.get("signature", "")
            way = "higher is better" if self.higher_is_better[m] else "lower is better (scaled negated)"
            lines.append(f"[{k}] {sig} ({way}; direction: {info.get('direction', 'given')})")
        if clustered:
            drawn = self.significance or {}
            lines.append(f"clusters: paired bootstrap over {drawn['documents']} documents ({drawn['resamples']} "
                         f"resamples, seed {drawn['seed']}; docmetrics' own test, WMT25 defines none): a cluster ends "
                         "between adjacent systems where the upper one ranks strictly better in more than "
                         f"{1 - drawn['alpha']:g} of the resamples")
        lines += self.notes
        return "\n".join(lines) + "\n"


def autorank(scores: Mapping[str, Mapping[str, float]], higher_is_better: Mapping[str, bool] | None = None, *,
             eps: float = EPS, lp: str | None = None, preset: str | None = None) -> AutoRank:
    """AutoRank from system-level scores: metric -> system -> score (every metric scores the same systems;
    a ValueError otherwise), ``higher_is_better``: metric -> direction (default: higher); ``preset``: the name of
    the metric set, where one chose it."""
    metrics = list(scores)
    if not metrics:
        raise ValueError("AutoRank needs at least one metric")
    systems = list(scores[metrics[0]])
    if not systems:
        raise ValueError("AutoRank needs at least one system")
    for m in metrics[1:]:
        if set(scores[m]) != set(systems):
            raise ValueError(f"metric {m!r} scores other systems than {metrics[0]!r}")
    for m in metrics:
        bad = [(s, v) for s, v in scores[m].items() if not math.isfinite(float(v))]
        if bad:  # robust scaling would turn one NaN into NaN for every system, ranked silently
            raise ValueError(f"metric {m!r}: system {bad[0][0]!r} has no finite score ({bad[0][1]!r}"
                             f"{f'; {len(bad)} systems have none' if len(bad) > 1 else ''}); AutoRank needs a "
                             "system score of every metric: give its score, or leave the system out of every metric")
    direction = {m: True if higher_is_better is None else bool(higher_is_better.get(m, True)) for m in metrics}
    sign = np.where([direction[m] for m in metrics], 1.0, -1.0)[:, None]
    z = robust_scale(sign * np.array([[float(scores[m][s]) for s in systems] for m in metrics]), eps)
    means = z.mean(axis=0)
    ranks = linear_ranks(means)
    rows = [RankedSystem(s, float(ranks[k]), float(means[k]), {m: float(scores[m][s]) for m in metrics},
                         {m: float(z[i, k]) for i, m in enumerate(metrics)}) for k, s in enumerate(systems)]
    rows.sort(key=lambda r: r.autorank)
    return AutoRank(lp, metrics, rows, direction, eps, preset)


def rank_stored(metrics: Sequence[StoredMetric], *, lp: str | None = None, eps: float = EPS,
                preset: str | None = None) -> AutoRank:
    """AutoRank over stored metrics (each a :class:`~docmetrics.formats.stored.StoredMetric` of the same
    language pair): the system score of each is the mean over its available items.  Metrics that score
    different systems, or a system without any score of a metric, are an InputError naming the file."""
    first = metrics[0]
    for m in metrics[1:]:
        extra = [s for s in m.systems if s not in first.scores]
        lacking = [s for s in first.systems if s not in m.scores]
        if extra or lacking:
            who, where = (extra[0], m) if extra else (lacking[0], first)
            other = first if extra else m
            raise InputError(f"{where.file_of(who)}, line {where.lines[who][0]}, field {where.name}: scores of "
                             f"system {who!r} of {lp or 'the scores'}, "
                             f"{other.name} ({other.file_of(other.systems[0])}) has none; every metric scores "
                             "the same systems")
    scores: dict[str, dict[str, float]] = {}
    for m in metrics:
        per = m.system_scores()
        empty = [s for s, v in per.items() if v is None]
        if empty:
            raise InputError(f"{m.file_of(empty[0])}: system {empty[0]!r} has no {m.name} score of "
                             f"{lp or 'the scores'} (all {m.n_items} missing); AutoRank needs a system score of "
                             "every metric")
        scores[m.name] = {s: float(v) for s, v in per.items() if v is not None}
    result = autorank(scores, {m.name: m.higher_is_better for m in metrics}, eps=eps, lp=lp, preset=preset)
    for m in metrics:
        missing = m.missing()
        result.metric_info[m.name] = {
            "signature": m.signature().format(), "direction": m.direction, "level": m.level,
            "items": m.n_items, "missing": sum(missing.values()), "missing_by_system": missing,
        }
    return result


# -- live metrics: Results ----------------------------------------------------------------------------------
#: How a metric's system score was read: WMT25's mean over its scored segments, or its own system score.
SEGMENT_MEAN = "mean over segments"
OWN_SCORE = "its own system score"


def by_segments(results: Sequence[Result]) -> bool:
    """Whether every unit covers one segment and no segment twice, in every system's Result: the metric
    has segment scores to take WMT25's mean over.  A Result with documents and no units (stored
    document- or system-level scores) has none."""
    for r in results:
        if not r.units or r.wide_unit() is not None or len({u.start for u in r.units}) != len(r.units):
            return False
    return True


def wmt25_system_score(result: Result, segments: bool) -> float:
    """Its system score as AutoRank reads it: with ``segments`` the exact mean of its finite unit scores
    (NaN where there is none), else ``result.score``."""
    if not segments:
        return float(result.score)
    have = [u.score for u in result.units if math.isfinite(u.score)]
    return exact_mean(have) if have else math.nan


def rank_results(metrics: Mapping[str, Sequence[Result]], *, lp: str | None = None, eps: float = EPS,
                 preset: str | None = None) -> AutoRank:
    """AutoRank over metrics given as Results (name -> one Result per system, every metric the same
    systems, in the same order): each metric's system score as :func:`wmt25_system_score` reads it, its
    direction ``Result.higher_is_better``, and a note per metric whose AutoRank score is not the system score it
    reports itself.  A system without any score of a metric is an InputError."""
    names = list(metrics)
    systems = [r.system for r in metrics[names[0]]]
    scores: dict[str, dict[str, float]] = {}
    higher: dict[str, bool] = {}
    info: dict[str, dict[str, Any]] = {}
    for name in names:
        results = list(metrics[name])
        if [r.system for r in results] != systems:
            raise InputError(f"{name}: scores systems {', '.join(r.system for r in results)}, "
                             f"{names[0]} scores {', '.join(systems)}; every metric scores the same systems")
        segments = by_segments(results)
        scores[name] = {r.system: wmt25_system_score(r, segments) for r in results}
        empty = [s for s, v in scores[name].items() if not math.isfinite(v)]
        if empty:
            raise InputError(f"{name}: system {empty[0]!r} has no score of {lp or 'the test set'}; AutoRank needs "
                             "a system score of every metric")
        directions = {r.higher_is_better for r in results}
        if len(directions) > 1:
            raise InputError(f"{name}: its Results disagree on whether higher is better")
        higher[name] = directions.pop()
        missing = {}
        for r in results:
            total = r.coverage.segments_total if r.coverage is not None and segments else 0
            lost = total - sum(math.isfinite(u.score) for u in r.units) if segments else 0
            if lost > 0:
                missing[r.system] = lost
        first = results[0]
        info[name] = {
            "signature": (first.unit_signature if segments and first.unit_signature is not None  # BLEU: eff:yes
                          else first.signature).format(),
            "direction": "the metric's", "level": "seg" if segments else "sys",
            "items": first.coverage.segments_total if segments and first.coverage is not None else 1,
            "missing": sum(missing.values()), "missing_by_system": missing,
            "system_score": SEGMENT_MEAN if segments else OWN_SCORE,
            "own_scores": {r.system: float(r.score) for r in results},
        }
    result = autorank(scores, higher, eps=eps, lp=lp, preset=preset)
    result.metric_info = info
    top = result.systems[0]
    for m, described in info.items():  # a note per metric whose AutoRank score is not the one it reports itself
        own = described["own_scores"]
        if described["system_score"] == OWN_SCORE:
            result.notes.append(f"{m}: its units span several segments (windows), so AutoRank reads its own system "
                                "score (its declared aggregation), not a mean over segments")
        elif any(abs(own[r.system] - r.scores[m]) > 1e-9 * max(1.0, abs(own[r.system])) for r in result.systems):
            result.notes.append(f"{m}: AutoRank reads the mean of its segment scores (WMT25's definition; "
                                f"{top.scores[m]:.4g} for {top.system}), not its own system score "
                                f"({own[top.system]:.4g})")
    return result


# -- clusters: a paired bootstrap over documents (the module docstring) ---------------------------------------
#: How the clusters are drawn, as AutoRank.significance says it.
TEST = "paired bootstrap over documents (docmetrics' own; WMT25 defines none)"


def document_sums(results: Sequence[Result], doc_ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """A metric with segment scores: per system and document, the sum of its finite unit scores and
    their number, arrays of shape (systems, documents)."""
    pos = {d: k for k, d in enumerate(doc_ids)}
    num = np.zeros((len(results), len(doc_ids)))
    den = np.zeros((len(results), len(doc_ids)))
    for i, r in enumerate(results):
        for u in r.units:
            if math.isfinite(u.score):
                num[i, pos[u.doc_id]] += u.score
                den[i, pos[u.doc_id]] += 1
    return num, den


def resampled_system_scores(results: Sequence[Result], doc_ids: Sequence[str], idx: np.ndarray) -> np.ndarray:
    """Each system's score in each resample (rows of ``idx``, document positions in ``doc_ids``), as
    AutoRank reads it: shape (resamples, systems); NaN where a system has no scored segment."""
    if by_segments(results):
        num, den = document_sums(results, doc_ids)
        counts = np.zeros((len(idx), len(doc_ids)))  # how often each resample drew each document
        np.add.at(counts, (np.arange(len(idx))[:, None], idx), 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (counts @ num.T) / (counts @ den.T)
    if any(not r.units for r in results):
        raise InputError(f"{results[0].metric}: its scores have no units in documents (document- or system-level "
                         "stored scores), so AutoRank cannot be resampled by documents; give segment-level scores")
    # doc_stats checks that each one's aggregation rebuilds its score
    groups = unit_groups(u for r in results for u in r.units)
    return np.stack([resampled_scores(doc_stats(r, doc_ids, groups), idx) for r in results], axis=1)


def resampled_autoranks(x: np.ndarray, higher: Sequence[bool], eps: float = EPS) -> np.ndarray:
    """AutoRank in each resample: ``x`` of shape (metrics, resamples, systems) holds system scores in
    each metric's own direction (``higher``); rows with a NaN give NaN.  Shape (resamples, systems)."""
    sign = np.where(np.asarray(higher, dtype=bool), 1.0, -1.0)[:, None, None]
    return linear_ranks(robust_scale(x * sign, eps).mean(axis=0))


def bootstrap_clusters(ranking: AutoRank, metrics: Mapping[str, Sequence[Result]], *, n: int, seed: int | None,
                       alpha: float = ALPHA) -> dict[str, Any]:
    """The clusters of ``ranking`` (AutoRank of ``metrics`` by :func:`~.ranking.rank_results`) by the
    paired bootstrap of the module docstring; sets each system's ``cluster`` and ``ranking.significance``, how
    they were drawn (returned): the test, resamples, seed, alpha, documents, undefined resamples, the rule and
    per pair of adjacent systems (``boundaries``) the share of resamples in which the upper one ranks strictly
    better, the one-sided p-value (1 - that share) and whether a cluster ends between them."""
    names = list(ranking.metrics)
    systems = [r.system for r in metrics[names[0]]]
    doc_ids = doc_order([r for m in names for r in metrics[m]])
    if not doc_ids:
        raise InputError(f"{ranking.lp or 'the scores'}: no document has a score of every metric ranked; give the "
                         "scores (a metric whose cells are all empty cannot be ranked)")
    if len(doc_ids) < 2:
        raise InputError(f"{ranking.lp or 'the scores'}: {len(doc_ids)} document with scores; resampling documents "
                         "needs two or more (give the doc ids: --doc-ids, or scores files that name documents)")
    idx = bootstrap_indices(len(doc_ids), n, seed)
    x = np.stack([resampled_system_scores(list(metrics[m]), doc_ids, idx) for m in names])
    ranks = resampled_autoranks(x, [ranking.higher_is_better[m] for m in names], ranking.eps)
    undefined = int(np.isnan(ranks).any(axis=-1).sum())
    col = {s: k for k, s in enumerate(systems)}
    order = [r.system for r in ranking.systems]
    boundaries = []
    cluster = 1
    clusters = {order[0]: 1}
    for upper, lower in zip(order, order[1:]):
        better = float(np.mean(ranks[:, col[upper]] < ranks[:, col[lower]]))  # NaN compares False
        split = 1.0 - better < alpha
        boundaries.append({"upper": upper, "lower": lower, "share_better": better, "p_value": 1.0 - better,
                           "split": split})
        cluster += split
        clusters[lower] = cluster
    if undefined:
        ranking.notes.append(f"{undefined} of {n} resamples left some system without any scored segment of a metric: "
                             "no AutoRank, counted as not better")
    for r in ranking.systems:
        r.cluster = clusters[r.system]
    ranking.significance = {
        "test": TEST, "resamples": n, "seed": seed, "alpha": alpha, "documents": len(doc_ids),
        "undefined_resamples": undefined,
        "rule": "a boundary between adjacent systems where the share of resamples in which the upper one does not "
                "rank strictly better is below alpha",
        "boundaries": boundaries}
    return ranking.significance
