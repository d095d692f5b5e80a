"""Human clusters as the WMT organisers compute them: systems ranked by their mean human score and split
into clusters by one-sided or two-sided Wilcoxon signed-rank tests on paired segment scores (WMT24/25) or
by t-tests (WMT26).  Nothing here prints.

Four rules, each read from the organisers' own script (commits as fetched):

``wmt26`` -- wmt-conference/wmt26-general-mt ``humeval/02-analyze_results.py`` at 1fa5211.  A system's
value on an item is ``statistics.mean`` of its annotations of that item (NaN where it has none); its
score is ``statistics.mean`` of its values present, and systems are sorted by it, highest first.
``sig(A, B)`` ("significantly better" in the script, but both tests are two-sided, so it reads "differs")
is ``ttest_rel(a, b, nan_policy="omit").pvalue < 0.05 or ttest_ind(a, b, nan_policy="omit").pvalue <
0.05`` over the item values (the paired test drops an item missing on either side, the independent one
each side's missing items; scipy's defaults otherwise, ``equal_var=True``; a NaN p-value, e.g. fewer
than two values or no variance, is not significant).  After place i (not the last) a cluster ends when
``sig(A, B)`` for every A at or above i and every B below it; where it does not but ``sig`` holds for the
adjacent pair, the script marks the place "local" (a grey line in its table, no new cluster): kept in
:attr:`ClusteredSystem.mark` (``cluster``, ``local`` or ``none``).  No rank ranges, no cut-off.  The
script also reads Pearmut's ``annotations.json`` (dropping ``__RESET__`` history, attention checks and
tutorial items) and suffixes open-weight systems' names with " OPEN"; neither is part of the rule and
neither is done here: the judgements come from whatever source the caller reads.

``wmt25`` -- wmt-conference/wmt25-general-mt ``humeval/05-compute_clusters.py`` at ebae873, the part that
writes ``generated_human_ranking.tex`` (the findings paper's tables).  A system's values are its item
scores flattened over the two annotation waves (item 1 wave 1, item 1 wave 2, item 2 wave 1, ...; NaN
where a wave did not judge it); its score is ``statistics.mean`` of the values present, and systems are
sorted by it, highest first.  ``sig(A, B)`` is ``scipy.stats.wilcoxon(d, alternative="greater").pvalue
< 0.05`` where ``d`` holds ``a - b`` for every position where both values are present (scipy's
defaults otherwise: ``zero_method="wilcox"`` drops zero differences, ``correction=False``,
``method="auto"``; a NaN p-value, e.g. no pairs, is not significant).  System A at (1-based) place i
gets a rank range: its top rank is i minus the number of systems above it, nearest first, that are not
significantly better than it (stopping at the first that is), its bottom rank i plus the number below,
nearest first, that it is not significantly better than (stopping likewise).  A cluster ends after
place p when every system at or above p has its bottom rank <= p and every system below has its top
rank > p.

``wmt25-adjacent`` -- the same file's first part (``clusters.txt``, the "models per cluster" count): the
same values, order and test, and a boundary between two adjacent systems exactly where ``sig(upper,
lower)``; no rank ranges.

``wmt24`` -- wmt-conference/wmt24-news-systems ``humeval/calculate_clusters.py`` with ``tools.py`` at
bfa937e, as run by default (macro average over domains).  A system's score is the mean over domains of
its mean item score in each domain; systems are sorted by it, highest first.  For every pair of systems
and every domain where they share a judged item, ``scipy.stats.wilcoxon(d, alternative="two-sided")``
on ``d = a - b`` over the shared items; the domains' p-values are combined by Stouffer's method
(``z_d = Phi^-1(1 - p_d)``, ``p = 1 - Phi(sum z_d / sqrt(D))``; NaN without a shared item).  Walking
down the sorted list, a cluster ends after a system when no system at or above it has ``p > 0.05``
with any system below it (a NaN p-value therefore separates, as ``p > 0.05`` is false).  A system's
rank range is ``losses + 1 .. N - wins``, a win (loss) being a pair with ``p < 0.05`` where its score is
higher (not higher).

What the scripts do with the data and is kept here: every system with a judgement is ranked, the
reference (``refA``) included.  What differs by necessity: the wave of an annotation is read from the
file's shape (``human1``/``human2``, or the k-th annotation of a list; a single ``human`` is wave 1;
WMT25's script itself reads only ``human1``/``human2`` and so ignores a third annotation, which is kept
here as wave 3).  WMT24's script averages the ratings of one item within a wave and pairs every rating
of an item from one wave with every rating from another; the released JSONL does not record waves, so
``wmt24`` reads an item's score as the mean of its annotations.  Ties in the mean keep the input order
(the scripts' order there is that of a Python set or an unstable pandas sort).  The campaigns' cut-offs
(WMT25: pairs with fewer than 500 annotations left out; WMT24: fewer than 100 per system) are reported
in :attr:`HumanRanking.notes`, not applied.  A GenMT judgement gives the scores of the annotations that have
one, in order, so an item scored in wave 2 alone is read as wave 1 there
(:func:`~docmetrics.formats.judgements.from_rows` keeps a missing wave in place).  p-values depend on scipy's
``method="auto"``, which changed: scipy >= 1.15 (1.17 here) takes the exact distribution for n <= 50 without
ties or zeros, an exact permutation test over all 2^n sign flips for n <= 13 with them, else the normal
approximation without continuity correction; older scipy switched to the normal approximation whenever a
difference was zero (the warning WMT24's ``tools.py`` silences), so the scipy version is recorded with every
ranking.
"""

from __future__ import annotations

import math
import statistics
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..formats.judgements import JudgedItems
from ..formats.judgements import annotation_count as _count
from .text import num, table

__all__ = ["ALPHA", "RULES", "RANKERS", "ClusteredSystem", "PairTest", "HumanRanking", "ClusterAgreement",
           "wilcoxon_p", "ttest_ps"]

#: The significance level of every rule.
ALPHA = 0.05
#: Rule name -> what it is, in one line.
RULES = {
    "wmt25": "WMT25 findings tables: one-sided Wilcoxon, rank ranges, a cluster ends where no range crosses it",
    "wmt25-adjacent": "WMT25 clusters.txt: one-sided Wilcoxon between adjacent systems only",
    "wmt24": "WMT24: two-sided Wilcoxon per domain, Stouffer-combined; a cluster ends where every system above "
             "differs from every system below",
    "wmt26": "WMT26 02-analyze_results.py: paired or independent t-test; a cluster ends where every system above "
             "differs from every system below, a local mark where only the adjacent pair differs",
}
#: Annotations below which each campaign left a language pair out (reported, not applied).
_CUTOFFS = {"wmt25": 500, "wmt25-adjacent": 500}
_WMT24_PER_SYSTEM = 100


# -- the tests ----------------------------------------------------------------------------------------------
def _mean(annotations: Sequence[float]) -> float:
    present = [x for x in annotations if not math.isnan(x)]
    return statistics.fmean(present) if present else math.nan


def wilcoxon_p(diffs: Sequence[float], alternative: str) -> float:
    """``scipy.stats.wilcoxon(diffs, alternative=...)``'s p-value with scipy's defaults, as both scripts
    call it; NaN where scipy gives none or refuses (no differences)."""
    from scipy.stats import wilcoxon

    if not diffs:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(wilcoxon(list(diffs), alternative=alternative).pvalue)
        except ValueError:
            return math.nan


def stouffer(pvalues: Sequence[float]) -> float:
    """WMT24's combination of per-domain p-values: ``1 - Phi(sum(Phi^-1(1 - p)) / sqrt(len))``."""
    import numpy as np
    from scipy.stats import norm

    if not pvalues:
        return math.nan
    z = [float(norm.ppf(1 - p)) for p in pvalues]
    with np.errstate(all="ignore"):
        return float(1 - norm.cdf(np.sum(z) / np.sqrt(len(z))))


@dataclass(frozen=True)
class PairTest:
    """One test a rule made: ``better`` is the system placed higher, ``p`` the p-value, ``pairs`` the
    paired values it read (after dropping a missing side), ``significant`` as the rule reads ``p``."""

    better: str
    worse: str
    p: float
    pairs: int
    significant: bool
    #: where a rule makes several tests of the pair (wmt26): each test's name and p-value; ``p`` is then
    #: the smallest present one
    by_test: tuple[tuple[str, float], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"better": self.better, "worse": self.worse, "p": None if math.isnan(self.p) else self.p,
               "pairs": self.pairs, "significant": self.significant}
        if self.by_test:
            out["p_by_test"] = {k: None if math.isnan(v) else v for k, v in self.by_test}
        return out


@dataclass
class ClusteredSystem:
    """A system's place: its score (the rule's mean), its cluster (1 = best) and rank range."""

    system: str
    score: float
    cluster: int
    ranks: tuple[int, int] | None
    annotations: int
    #: wmt26 only: what the script draws below the system: ``cluster`` (a cluster ends here), ``local``
    #: (only this system and the next differ) or ``none``; None for the other rules
    mark: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"system": self.system, "score": self.score, "cluster": self.cluster,
               "ranks": list(self.ranks) if self.ranks else None, "annotations": self.annotations}
        if self.mark is not None:
            out["mark"] = self.mark
        return out


@dataclass
class HumanRanking:
    """Systems best first, each with its cluster, and the tests that placed them."""

    rule: str
    lp: str | None
    source: str
    systems: list[ClusteredSystem]
    tests: list[PairTest]
    scipy: str
    notes: list[str] = field(default_factory=list)
    #: the rule's definition in one line (:data:`RULES`, or a plugin rule's)
    definition: str = ""

    @property
    def n_clusters(self) -> int:
        return max((s.cluster for s in self.systems), default=0)

    def clusters(self) -> list[list[str]]:
        out: list[list[str]] = [[] for _ in range(self.n_clusters)]
        for s in self.systems:
            out[s.cluster - 1].append(s.system)
        return out

    def cluster_of(self) -> dict[str, int]:
        return {s.system: s.cluster for s in self.systems}

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "definition": self.definition or RULES[self.rule], "alpha": ALPHA, "lp": self.lp,
                "source": self.source, "scipy": self.scipy, "clusters": self.clusters(),
                "systems": [s.to_dict() for s in self.systems], "tests": [t.to_dict() for t in self.tests],
                "notes": list(self.notes)}

    def to_text(self, width: int = 4, agreement: Sequence[ClusterAgreement] = ()) -> str:
        """What ``docmetrics rank`` prints of it: the systems best first, a rule line between clusters (as the
        findings tables draw them), a dotted one at a local mark, then where the scores came from and the notes;
        with ``agreement`` (:func:`~docmetrics.judging.cluster_agreement` of it), a row per metric below: of the
        system pairs in different clusters (both scored), how many the metric orders as the humans do."""
        with_ranks = any(s.ranks for s in self.systems)
        headers = ["Cluster", "System", "Human"] + (["Ranks"] if with_ranks else []) + ["Annotations"]
        ranks = ["" if not s.ranks else str(s.ranks[0]) if s.ranks[0] == s.ranks[1] else "-".join(map(str, s.ranks))
                 for s in self.systems]
        rows = [[str(s.cluster), s.system, num(s.score, width)] + ([r] if with_ranks else []) + [str(s.annotations)]
                for s, r in zip(self.systems, ranks)]
        rules = ["" if not k else "-" if s.cluster != self.systems[k - 1].cluster
                 else "." if self.systems[k - 1].mark == "local" else "" for k, s in enumerate(self.systems)]
        lines = table(headers, rows, "rl" + "r" * (len(headers) - 2), rules).rstrip("\n").split("\n")
        # docmetrics' own rules test at p < ALPHA; a plugin rule's definition is its own word (it may run no test)
        definition = (f"{self.definition or RULES[self.rule]}; p < {ALPHA}" if self.rule in RULES
                      else self.definition or "a plugin rule")
        n = self.n_clusters
        title = (f"Human clusters{' ' + self.lp if self.lp else ''}: {len(self.systems)} systems, {n} cluster"
                 f"{'s' if n != 1 else ''}, rule {self.rule} ({definition})")
        tested = any(t.p == t.p for t in self.tests)  # a NaN p-value: no test
        tail = [f"from {self.source}" + (f" (p-values by scipy {self.scipy})" if tested else ""), *self.notes]
        if any(s.mark == "local" for s in self.systems):
            tail.insert(1, "a dotted line: only the systems on either side of it differ (the script's local mark)")
        out = "\n".join([title, *lines, *tail]) + "\n"
        if not agreement:
            return out
        rows = [[a.metric, str(a.pairs), str(a.agree), str(a.ties), str(a.disagree), num(a.share, width)]
                for a in agreement]
        return (out + "\nAgreement with the human clusters: of the system pairs in different clusters, the share the "
                "metric scores strictly better for the better cluster (ties count as not)\n"
                + table(["Metric", "Pairs", "Agree", "Ties", "Disagree", "Share"], rows))


def _paired(a: Sequence[float], b: Sequence[float]) -> list[float]:
    return [x - y for x, y in zip(a, b) if not (math.isnan(x) or math.isnan(y))]


def _wmt25_values(data: JudgedItems) -> dict[str, list[float]]:
    """Each system's scores flattened over the waves (item-major), NaN where a wave did not judge it."""
    waves = max((len(a) for row in data.scores.values() for a in row), default=1)
    waves = max(2, waves)  # WMT25 reads waves 1 and 2 of every item
    return {name: [a[w] if w < len(a) else math.nan for a in row for w in range(waves)]
            for name, row in data.scores.items()}


def _sorted(means: Mapping[str, float]) -> list[str]:
    return sorted(means, key=lambda s: -means[s])  # stable: ties keep the input order


def _rank_wmt25(data: JudgedItems, adjacent: bool) -> HumanRanking:
    values = _wmt25_values(data)
    means = {s: statistics.mean([x for x in v if not math.isnan(x)]) for s, v in values.items()}
    order = _sorted(means)
    tests: dict[tuple[str, str], PairTest] = {}

    def sig(a: str, b: str) -> bool:
        if (a, b) not in tests:
            d = _paired(values[a], values[b])
            p = wilcoxon_p(d, "greater")
            tests[(a, b)] = PairTest(a, b, p, len(d), p < ALPHA)
        return tests[(a, b)].significant

    n = len(order)
    ranks: list[tuple[int, int]] | None = None
    if adjacent:
        ends = [sig(order[i], order[i + 1]) for i in range(n - 1)]
    else:
        ranks = []
        for i, a in enumerate(order):
            top = i + 1
            for b in order[:i][::-1]:
                if sig(b, a):
                    break
                top -= 1
            bottom = i + 1
            for b in order[i + 1:]:
                if sig(a, b):
                    break
                bottom += 1
            ranks.append((top, bottom))
        ends = [all(r[1] <= p for r in ranks[:p]) and all(r[0] > p for r in ranks[p:]) for p in range(1, n)]
    rule = "wmt25-adjacent" if adjacent else "wmt25"
    return _ranking(rule, data, order, means, ends, ranks, list(tests.values()))


def ttest_ps(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """``scipy.stats.ttest_rel`` and ``ttest_ind`` p-values of ``a`` and ``b`` with ``nan_policy="omit"``,
    as WMT26's script calls them (NaN where scipy gives none)."""
    from scipy.stats import ttest_ind, ttest_rel

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (float(ttest_rel(a, b, nan_policy="omit").pvalue),
                float(ttest_ind(a, b, nan_policy="omit").pvalue))


def _rank_wmt26(data: JudgedItems) -> HumanRanking:
    values = {name: [float(statistics.mean(p)) if (p := [x for x in a if not math.isnan(x)]) else math.nan
                     for a in row] for name, row in data.scores.items()}
    means = {s: float(statistics.mean([x for x in v if not math.isnan(x)])) for s, v in values.items()}
    order = _sorted(means)
    tests: dict[tuple[str, str], PairTest] = {}

    def sig(a: str, b: str) -> bool:
        if (a, b) not in tests:
            p_rel, p_ind = ttest_ps(values[a], values[b])
            present = [p for p in (p_rel, p_ind) if not math.isnan(p)]
            tests[(a, b)] = PairTest(a, b, min(present) if present else math.nan,
                                     len(_paired(values[a], values[b])), p_rel < ALPHA or p_ind < ALPHA,
                                     (("ttest_rel", p_rel), ("ttest_ind", p_ind)))
        return tests[(a, b)].significant

    n = len(order)
    marks = []
    for i in range(n - 1):
        local = sig(order[i], order[i + 1])
        every = all(sig(order[up], order[down]) for up in range(i + 1) for down in range(i + 1, n))
        marks.append("cluster" if every else "local" if local else "none")
    result = _ranking("wmt26", data, order, means, [m == "cluster" for m in marks], None, list(tests.values()))
    for s, mark in zip(result.systems, marks + ["none"]):
        s.mark = mark
    return result


def _rank_wmt24(data: JudgedItems) -> HumanRanking:
    import numpy as np

    item = {s: [_mean(a) for a in row] for s, row in data.scores.items()}
    domains = list(dict.fromkeys(data.domains))
    means = {}
    for s, v in item.items():
        per = [float(np.mean(x)) for dom in domains
               if (x := [y for y, d in zip(v, data.domains) if d == dom and not math.isnan(y)])]
        means[s] = float(np.mean(per))
    order = _sorted(means)
    p: dict[tuple[str, str], float] = {}
    tests = []
    for k, a in enumerate(order):
        for b in order[k + 1:]:
            by_domain: dict[str, list[float]] = {}
            for x, y, d in zip(item[a], item[b], data.domains):
                if not (math.isnan(x) or math.isnan(y)):
                    by_domain.setdefault(d, []).append(x - y)
            pv = stouffer([wilcoxon_p(diffs, "two-sided") for diffs in by_domain.values()])
            p[(a, b)] = p[(b, a)] = pv
            tests.append(PairTest(a, b, pv, sum(map(len, by_domain.values())), not pv > ALPHA))
    # calculate_clusters.py's get_clusters, step by step
    ends = []
    until = -1
    for i, a in enumerate(order):
        if until <= i:
            until = -1
        for j in range(i + 1, len(order)):
            if p[(a, order[j])] > ALPHA:
                until = max(j, until)
        ends.append(until == -1)
    # tools.get_ranks: a win or a loss is a pair with p < 0.05
    ranks = []
    for a in order:
        wins = sum(1 for b in order if b != a and p[(a, b)] < ALPHA and means[a] > means[b])
        losses = sum(1 for b in order if b != a and p[(a, b)] < ALPHA and not means[a] > means[b])
        ranks.append((losses + 1, len(order) - wins))
    result = _ranking("wmt24", data, order, means, ends[:-1], ranks, tests)
    judged = {s: sum(1 for a in data.scores[s] if a) for s in order}
    per = statistics.fmean(judged.values())
    low = min(order, key=judged.__getitem__)
    if per < _WMT24_PER_SYSTEM:
        result.notes.append(f"WMT24 left a pair out below {_WMT24_PER_SYSTEM} judged items per system on average "
                            f"(here {per:.1f}; fewest: {low})")
    return result


def _ranking(rule: str, data: JudgedItems, order: list[str], means: Mapping[str, float], ends: Sequence[bool],
             ranks: Sequence[tuple[int, int]] | None, tests: list[PairTest]) -> HumanRanking:
    import scipy

    systems = []
    cluster = 1
    for i, s in enumerate(order):
        systems.append(ClusteredSystem(s, means[s], cluster, ranks[i] if ranks else None,
                                       sum(_count(a) for a in data.scores[s])))
        if i < len(ends) and ends[i]:
            cluster += 1
    result = HumanRanking(rule, data.lp, data.source, systems, tests, scipy.__version__, definition=RULES[rule])
    if data.unjudged:
        result.notes.append(f"left out, no judgement: {', '.join(data.unjudged)}")
    cutoff = _CUTOFFS.get(rule)
    if cutoff and data.annotations < cutoff:
        result.notes.append(f"WMT25 left a pair out below {cutoff} annotations (here {data.annotations})")
    nan = [t for t in tests if math.isnan(t.p)]
    if nan:
        how = "separates them" if rule == "wmt24" else "does not separate them"
        few = [t for t in nan if t.pairs < 2]
        flat = [t for t in nan if t.pairs >= 2]
        where = " (in a domain)" if rule == "wmt24" else ""
        causes = [f"{len(ts)} with {what}, e.g. {ts[0].better} and {ts[0].worse}" for ts, what in (
            (few, "fewer than 2 paired scores"),
            (flat, f"zero variance: every paired difference{where} is 0, the scores do not vary"),
        ) if ts]
        result.notes.append(f"{len(nan)} test(s) without a p-value ({'; '.join(causes)}): the rule {how}")
    return result


#: Each built-in rule's ranking of judged items (what :func:`docmetrics.judging.human_clusters` runs for it, after
#: checking the scores through :func:`~docmetrics.formats.judgements.judged_items`).
RANKERS: dict[str, Callable[[JudgedItems], HumanRanking]] = {
    "wmt25": lambda d: _rank_wmt25(d, adjacent=False),
    "wmt25-adjacent": lambda d: _rank_wmt25(d, adjacent=True),
    "wmt24": _rank_wmt24,
    "wmt26": _rank_wmt26,
}


# -- agreement of a metric ------------------------------------------------------------------------------------
@dataclass
class ClusterAgreement:
    """How a metric orders the system pairs that the humans put in different clusters: ``agree`` pairs
    where the metric scores the system of the better cluster strictly higher (oriented: better), ``ties``
    where it scores both the same, ``disagree`` the rest; ``share = agree / pairs``."""

    metric: str
    pairs: int
    agree: int
    ties: int
    disagree: int
    left_out: list[str]
    higher_is_better: bool = True
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def share(self) -> float | None:
        return self.agree / self.pairs if self.pairs else None

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "pairs": self.pairs, "agree": self.agree, "ties": self.ties,
                "disagree": self.disagree, "share": self.share, "left_out": list(self.left_out),
                "higher_is_better": self.higher_is_better, **self.info}
