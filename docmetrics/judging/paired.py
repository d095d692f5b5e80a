"""Paired significance tests between systems, resampling whole documents.

The tests are sacrebleu's ``--paired-bs`` (paired bootstrap resampling, Koehn 2004, as in Moses'
``bootstrap-hypothesis-difference-significance.pl``) and ``--paired-ar`` (paired approximate
randomization, Riezler and Maxwell 2005, as in multeval), with one difference: the resampled unit
is the DOCUMENT, not the segment.  Document-level scoring units (SLIDE windows, sentences scored in
the context of their neighbours) are not independent across the segments of a document, so
resampling segments would understate the variance.

Nothing is scored again: each system's score is rebuilt from the per-unit scores already in its
:class:`~docmetrics.values.result.Result` (``Result.units``: doc id, score, weight, group) with the
aggregation the metric declared (``Result.aggregation``, :mod:`docmetrics.algorithms.aggregation`):
each document is reduced to its sufficient statistics, ``sum(w*s)`` and ``sum(w)`` over its units
in each aggregation group, and a resample's score is the aggregation of their sums over the
resampled documents (for most metrics the weighted mean of the units; for ASD the mean over chunk
sizes of the mean over k-chunks).  :func:`paired_test` checks that this rebuilds the reported score.

* Bootstrap (``bs``, default 1000 resamples): ``n`` resamples of the D documents, D drawn with
  replacement each time (``numpy.random.default_rng(seed).choice(D, (n, D))``), the same resamples
  for every system (paired).  Every system gets the mean and the 95% confidence interval of its
  resampled scores (sorted scores; lower bound at index ``n // 40``, upper at ``n - n // 40 - 1``;
  CI = half their distance).  The p-value against the baseline: with ``d_k = |sys_k - base_k|``
  and the observed ``delta = |sys - base|``, ``p = (#{k: d_k - mean(d) > delta} + 1) / (n + 1)``.
* Approximate randomization (``ar``, default 10000 trials): in each trial every document's units
  are swapped between the baseline and the system with probability 1/2;
  ``p = (#{k: |A_k - B_k| > delta} + 1) / (n + 1)``.
* Exact randomization: when the 2^D swaps of D documents are no more than the trials asked,
  all of them are enumerated and ``p = #{swaps: |A_k - B_k| >= delta} / 2^D`` (the exact
  permutation p-value; no seed, the number of trials recorded is 2^D).
* Confidence intervals (:func:`bootstrap_ci`, sacrebleu's ``--confidence``): the bootstrap's
  resamples of one system's documents, the interval between the order statistics at
  ``floor((1 - level) / 2 * n)`` and ``n - 1`` minus that (for 95%, sacrebleu's ``n // 40``).
* Fewer than :data:`MIN_DOCUMENTS` documents: the test runs and warns.
* Both: a system whose score equals the baseline's (delta = 0) gets p = 1; sacrebleu's formula
  would give 1 / (n + 1) and call a copy of the baseline significantly different.

The same seed gives the same resamples and trials for every system and every metric (the seed is
recorded in the output signature with the number of resamples: ``|bs:1000|seed:12345``).

numpy is imported inside the functions: importing this module stays light.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from ..algorithms import aggregation
from ..algorithms.aggregation import Aggregation
from ..stats.base import DEFAULT_SEED
from ..stats.pce import all_sign_vectors
from ..stats.ties import at_least, exceeds
from ..values.errors import InputError, UserError, shown
from ..values.result import Result
from ..values.signature import SigField, Signature
from .text import num

if TYPE_CHECKING:
    import numpy as np

DEFAULT_N = {"bs": 1000, "ar": 10000}
TEST_NAMES = {"bs": "paired bootstrap resampling", "ar": "paired approximate randomization"}
ALPHA = 0.05
#: The most resamples or trials a test takes (memory: one row of document indices per resample).
MAX_N = 1_000_000
#: Fewer documents than this and a paired test warns (its p-values are coarse and its power low).
MIN_DOCUMENTS = 10
#: The coverage of a confidence interval (``--ci-level``).
DEFAULT_CI_LEVEL = 0.95


@dataclass
class DocStats:
    """Per-document sufficient statistics of one system: ``num[d, g] = sum(w*s)``,
    ``den[d, g] = sum(w)`` over the units of document ``doc_ids[d]`` in aggregation group ``g``."""

    system: str
    score: float
    num: np.ndarray
    den: np.ndarray
    aggregation: Aggregation


@dataclass
class PairedResult:
    """One system's line of the table: its score, and (bootstrap) the mean and 95% CI of its
    resampled scores, and (not for the baseline) the p-value against the baseline."""

    system: str
    score: float
    mean: float | None = None
    ci: float | None = None
    p_value: float | None = None
    baseline: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "baseline": self.baseline,
            "score": self.score,
            "mean": self.mean,
            "ci": self.ci,
            "p_value": self.p_value,
            "significant": None if self.p_value is None else self.p_value < ALPHA,
        }

    def to_text(self, width: int = 4) -> str:
        """Its cell of the table: the score, with the bootstrap ``(mean ± CI)`` and the ``(p = ...)`` against the
        baseline, starred below :data:`ALPHA`, where the test gave them (``width`` decimals)."""
        text = num(self.score, width)
        if self.mean is not None and self.ci is not None:
            text += f" ({num(self.mean, width)} ± {num(self.ci, width)})"
        if self.p_value is not None:
            text += f" (p = {self.p_value:.4f})" + ("*" if self.p_value < ALPHA else "")
        return text


@dataclass
class PairedTest:
    """The outcome of a paired test for one metric over several systems (the first is the baseline)."""

    metric: str
    test: str
    n: int
    seed: int | None
    doc_ids: list[str]
    signature: Signature
    rows: list[PairedResult] = field(default_factory=list)
    #: True when the randomization test enumerated every swap of documents (2^D <= the trials asked).
    exact: bool = False
    #: What a reader of the result must know (e.g. too few documents for a meaningful test).
    warnings: list[str] = field(default_factory=list)
    #: the decimals the metric prints its scores with (its Results' ``decimals``)
    decimals: int | None = None
    #: the resamples or trials asked (``n`` is what ran: every swap where the randomization test was exact)
    asked: int | None = None

    def signature_text(self, short: bool = False) -> str:
        """The metric's signature with the test's fields (``bs:1000|seed:12345``) before the version."""
        fields = [*self.signature.fields, SigField(self.test, self.test, str(self.n), is_param=False),
                  SigField("seed", "seed", "none" if self.seed is None else str(self.seed), is_param=False)]
        return Signature(self.signature.metric, fields, self.signature.version).format(short=short)

    def to_dicts(self, spec: str | None = None, *, short: bool = False) -> list[dict[str, Any]]:
        """One object per system, the baseline first: its row (:meth:`PairedResult.to_dict`), then the metric
        (``spec``: as it was asked for, default its name), the test, its parameters and signature: what
        ``docmetrics --paired-bs -f json`` prints for the metric."""
        test = {"metric": self.metric, "spec": spec or self.metric, "test": self.test, "n": self.n, "seed": self.seed,
                "documents": len(self.doc_ids), "exact": self.exact, "signature": self.signature_text(short=short)}
        return [{**row.to_dict(), **test} for row in self.rows]

    def to_text(self, width: int | None = None, *, short: bool = False) -> str:
        """sacrebleu's table of the test (:meth:`table`, this one metric)."""
        return PairedTest.table([self], width, short=short)

    @staticmethod
    def table(tests: Sequence[PairedTest], width: int | None = None, *, specs: Sequence[str] | None = None,
              short: bool = False) -> str:
        """sacrebleu's table of paired tests run alike on several metrics, what ``docmetrics --paired-bs`` prints:
        a row per system (the baseline first), a column per metric (``specs``: as each was asked for, labelled as
        every table labels them; default the metrics' names), each cell :meth:`PairedResult.to_text` with
        ``width`` decimals (default each metric's own, else 4); then how the test ran and the signatures."""
        from .labels import column, metric_labels
        from .text import table

        first = tests[0]
        names = [row.system for row in first.rows]
        widths = [(t.decimals or 4) if width is None else width for t in tests]
        labels = metric_labels(list(specs) if specs is not None else [t.metric for t in tests],
                               [t.metric for t in tests])
        headers = ["System"] + [column(label, k + 1) for k, label in enumerate(labels)]
        rows = [[("Baseline: " if i == 0 else "") + name] + [t.rows[i].to_text(w) for t, w in zip(tests, widths)]
                for i, name in enumerate(names)]
        text = table(headers, rows, align="r" + "l" * len(tests)) + "\n"  # sacrebleu's layout: names right-aligned
        test, n, n_docs = first.test, first.asked or first.n, len(first.doc_ids)
        if first.exact:
            msg = (f"{TEST_NAMES[test].capitalize()} test, exact: all {first.n} swaps of {n_docs} documents "
                   f"(no more than the {n} trials asked)")
        else:
            what = "resamples" if test == "bs" else "trials"
            msg = f"{TEST_NAMES[test].capitalize()} test with {n} {what} over {n_docs} documents"
        text += "-" * len(msg) + "\n" + msg + "\n" + "-" * len(msg) + "\n"
        text += (f" - Each system is compared with the baseline, {names[0]}; whole documents are "
                 f"{'resampled' if test == 'bs' else 'swapped'}\n"
                 "   (their units are not independent), and the scores come from the units already scored.\n")
        if test == "bs":
            text += ("   Each cell: the system score, then (μ ± 95% CI): the bootstrap mean and the half-width of\n"
                     "   its 95% confidence interval.\n")
        text += (" - Null hypothesis: the system and the baseline are produced by the same process; the\n"
                 "   p-value estimates the chance of an absolute difference at least as large as observed.\n"
                 f" - p < {ALPHA} is marked with '*': the difference is unlikely to be due to chance.  It does\n"
                 "   not say which system is better, only that they differ.\n\n")
        return text + "Signatures:\n" + "".join(f"[{k + 1}] {t.signature_text(short=short)}\n"
                                                 for k, t in enumerate(tests))


def doc_order(results: Sequence[Result]) -> list[str]:
    """The documents that can be resampled: those with at least one unit in some system, in the
    order of the first system's ``docs`` (then of its units).  A doc id that reappears after another
    document is one resampling unit (its units are grouped by id)."""
    order: dict[str, None] = {}
    for r in results:
        have = {u.doc_id for u in r.units}
        for d in r.docs:
            if d.doc_id in have:
                order.setdefault(d.doc_id, None)
        for u in r.units:
            order.setdefault(u.doc_id, None)
    return list(order)


def doc_stats(result: Result, doc_ids: Sequence[str], groups: Sequence[str] | None = None) -> DocStats:
    """Reduce a result to per-document, per-group ``sum(w*s)`` and ``sum(w)``, verifying that the declared
    aggregation of all units is the system score (else the test would test another number)."""
    import numpy as np

    try:
        agg = aggregation.get(result.aggregation)
    except ValueError as exc:
        raise UserError(f"{result.metric}: {exc}; paired tests need an aggregation they can recompute") from None
    groups = list(groups) if groups is not None else aggregation.unit_groups(result.units)
    gpos = {g: k for k, g in enumerate(groups)}
    pos = {d: k for k, d in enumerate(doc_ids)}
    num = np.zeros((len(doc_ids), len(groups)))
    den = np.zeros((len(doc_ids), len(groups)))
    for u in result.units:
        k = pos[u.doc_id]
        if math.isnan(u.score):
            raise InputError(
                f"{result.metric} [{result.system}]: the unit of document {shown(u.doc_id)} at lines "
                f"{u.start + 1}-{u.end} has no score (NaN); a paired test needs every unit scored"
            )
        for g, value in aggregation.unit_values(u):  # (group, score), or the unit's statistics
            num[k, gpos[g]] += u.weight * value
            den[k, gpos[g]] += u.weight
    recomputed = float(agg.combine(num.sum(axis=0), den.sum(axis=0)))
    if not math.isclose(recomputed, result.score, rel_tol=1e-9, abs_tol=1e-9):
        raise UserError(
            f"{result.metric}: its system score ({result.score!r}) is not the {agg.label or agg.name} "
            f"({recomputed!r}), so a document resample cannot recompute it"
        )
    return DocStats(result.system, float(result.score), num, den, agg)


def bootstrap_indices(n_docs: int, n: int, seed: int | None) -> np.ndarray:
    """``n`` resamples (rows) of ``n_docs`` document indices drawn with replacement."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return rng.choice(n_docs, size=(n, n_docs), replace=True)


def resampled_scores(stats: DocStats, idx: np.ndarray) -> np.ndarray:
    """The system score of every resample (rows of ``idx``)."""

    return stats.aggregation.combine(stats.num[idx].sum(axis=1), stats.den[idx].sum(axis=1))


def percentile_interval(scores: np.ndarray, level: float = DEFAULT_CI_LEVEL) -> tuple[float, float]:
    """The ``level`` interval of resampled scores: sorted, the lower bound at index
    ``k = floor((1 - level) / 2 * n)`` and the upper at ``n - 1 - k`` (sacrebleu's rule, which for
    95% puts them at ``n // 40`` and ``n - n // 40 - 1``)."""
    import numpy as np

    s = np.sort(scores)
    k = int(math.floor((1 - level) / 2 * len(s) + 1e-9))  # 1e-9: (1 - 0.9) / 2 * 100 is 4.999...
    return float(s[k]), float(s[len(s) - 1 - k])


def mean_ci(scores: np.ndarray) -> tuple[float, float]:
    """Mean and half-width of the 95% interval of resampled scores (:func:`percentile_interval`)."""
    lo, hi = percentile_interval(scores, 0.95)
    return float(scores.mean()), float(0.5 * (hi - lo))


def _p_value(null: np.ndarray, observed: float) -> float:
    """sacrebleu's (multeval's) estimate, ``(count(null > observed) + 1) / (n + 1)`` ('+1' keeps the
    false-rejection rate at or below the level), except that no difference at all (``observed ==
    0``, e.g. a system compared with a copy of itself) gives p = 1 instead of 1 / (n + 1).  A null
    value equal to the observed one up to float rounding (:func:`~docmetrics.stats.ties.tie_slack`:
    e.g. the trial that swaps every document) is not greater."""
    import numpy as np

    if observed == 0:
        return 1.0
    return (int(np.sum(exceeds(null, observed, observed))) + 1) / (len(null) + 1)


def paired_bootstrap(base: DocStats, systems: Sequence[DocStats], n: int, seed: int | None) -> list[PairedResult]:
    """The bootstrap test (see the module docstring); the baseline's row first."""
    import numpy as np

    idx = bootstrap_indices(len(base.num), n, seed)
    bl = resampled_scores(base, idx)
    mean, ci = mean_ci(bl)
    rows = [PairedResult(base.system, base.score, mean, ci, baseline=True)]
    for sys_stats in systems:
        sy = resampled_scores(sys_stats, idx)
        mean, ci = mean_ci(sy)
        diffs = np.abs(sy - bl)
        p = _p_value(diffs - diffs.mean(), abs(sys_stats.score - base.score))
        rows.append(PairedResult(sys_stats.system, sys_stats.score, mean, ci, p))
    return rows


def randomization_masks(n_docs: int, n: int, seed: int | None) -> np.ndarray:
    """``n`` trials (rows) of which documents are swapped (True) between the two systems."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return rng.integers(2, size=(n, n_docs), dtype=bool)


def paired_randomization(base: DocStats, systems: Sequence[DocStats], n: int, seed: int | None,
                         exact: bool) -> list[PairedResult]:
    """The approximate randomization test (see the module docstring); the baseline's row first; ``exact``: every
    one of the 2^D ways to swap documents instead of ``n`` trials (rows; D <= 19 as n <= MAX_N)."""
    import numpy as np

    swap = all_sign_vectors(len(base.num)) > 0 if exact else randomization_masks(len(base.num), n, seed)
    keep = ~swap
    rows = [PairedResult(base.system, base.score, baseline=True)]
    for s in systems:
        a = base.aggregation.combine(keep @ base.num + swap @ s.num, keep @ base.den + swap @ s.den)
        b = base.aggregation.combine(swap @ base.num + keep @ s.num, swap @ base.den + keep @ s.den)
        observed = abs(s.score - base.score)
        if exact:  # the exact permutation p-value: the share of all swaps at least as extreme
            p = 1.0 if observed == 0 else float(np.mean(at_least(np.abs(a - b), observed, observed)))
        else:
            p = _p_value(np.abs(a - b), observed)
        rows.append(PairedResult(s.system, s.score, p_value=p))
    return rows


def paired_test(
    results: Sequence[Result], test: str = "bs", n: int | None = None, seed: int | None = DEFAULT_SEED
) -> PairedTest:
    """Run a paired test on one metric's results (one per system; the first is the baseline)."""
    if test not in TEST_NAMES:
        raise UserError(f"test={test!r}: no such paired test; use 'bs' (bootstrap) or 'ar' (randomization)",
                        params=("test",))
    n = DEFAULT_N[test] if n is None else n
    if n < 1 or n > MAX_N:  # the command line checks --paired-bs-n and --paired-ar-n first, in its own words
        raise UserError(f"n={n}: a paired test takes from 1 to {MAX_N} resamples or trials (kept in memory)",
                        params=("n",))
    if len(results) < 2:
        raise InputError("paired tests compare systems with the first one (the baseline): give the Results of at "
                         f"least two systems, not {len(results)}", params=("results",))
    metric = results[0].metric
    doc_ids = doc_order(results)
    _check_documents(metric, doc_ids, "paired tests")
    names = {r.aggregation for r in results}
    if len(names) > 1:
        raise UserError(f"{metric}: the results aggregate differently ({', '.join(sorted(names))})")
    groups = aggregation.unit_groups(u for r in results for u in r.units)  # in order of appearance
    stats = [doc_stats(r, doc_ids, groups) for r in results]
    warnings = []
    if len(doc_ids) < MIN_DOCUMENTS:
        warnings.append(few_documents_warning(metric, test, len(doc_ids)))
    exact = test == "ar" and 2 ** len(doc_ids) <= n  # every swap enumerated: no seed, 2^D trials
    rows = (paired_bootstrap(stats[0], stats[1:], n, seed) if test == "bs"
            else paired_randomization(stats[0], stats[1:], n, seed, exact))
    return PairedTest(metric, test, 2 ** len(doc_ids) if exact else n, None if exact else seed, doc_ids,
                      results[0].signature, rows, exact=exact, warnings=warnings, decimals=results[0].decimals,
                      asked=n)


def few_documents_warning(metric: str, test: str, n_docs: int) -> str:
    """The warning for a paired test on fewer than :data:`MIN_DOCUMENTS` documents, naming the test run
    and how many distinct outcomes it has: the paired bootstrap draws multisets of ``n`` documents
    (C(2n-1, n) distinct resamples), the randomization test swaps each document or not (2^n)."""
    if test == "bs":
        how = (f"the paired bootstrap has only C({2 * n_docs - 1}, {n_docs}) = {math.comb(2 * n_docs - 1, n_docs)} "
               f"distinct resamples of {n_docs} documents")
    else:
        how = f"the paired randomization test has only 2^{n_docs} = {2 ** n_docs} distinct swaps"
    return (f"{metric}: only {n_docs} documents to resample; with fewer than {MIN_DOCUMENTS} the test has little "
            f"power and its p-values are coarse ({how})")


def _check_documents(metric: str, doc_ids: Sequence[str], what: str) -> None:
    """Resampling needs two scored documents or more."""
    if not doc_ids:
        raise InputError(
            f"{metric}: {what} resample whole documents, and no system has a score of {metric} in any document: "
            "every unit is unscored (its stored cells are all empty, or every document is too short for the "
            f"metric); give {metric}'s scores, or leave it out")
    if len(doc_ids) < 2:
        raise InputError(
            f"{metric}: {what} resample whole documents, and the test set has 1 scored document "
            f"({doc_ids[0]!r}): one document cannot be resampled into a distribution; give the "
            "document boundaries with --doc-ids (and check that documents are long enough to be scored)"
        )


@dataclass
class ConfidenceInterval:
    """A bootstrap confidence interval of one system's score: documents resampled with replacement
    (``n`` resamples, the metric's declared aggregation recomputed on each), the ``level`` interval
    of the resampled scores (:func:`percentile_interval`), and their mean."""

    system: str
    metric: str
    score: float
    low: float
    high: float
    mean: float
    level: float
    n: int
    seed: int | None
    #: the documents resampled: those with at least one scored unit
    documents: int
    #: the documents of the result, scored or not
    documents_total: int
    warnings: list[str] = field(default_factory=list)

    @property
    def half_width(self) -> float:
        return 0.5 * (self.high - self.low)

    def to_text(self, width: int = 4) -> str:
        """``[low, high]`` with ``width`` decimals."""
        return f"[{num(self.low, width)}, {num(self.high, width)}]"

    @staticmethod
    def describe(intervals: Sequence[Sequence[ConfidenceInterval]]) -> str:
        """The line under a table of intervals (``intervals``: per metric, per system): their level, method,
        resamples, seed and each metric's documents (``[k]`` before each where there are several metrics)."""
        first, labels = intervals[0][0], len(intervals) > 1
        docs = []
        for k, per_metric in enumerate(intervals):
            ci = per_metric[0]
            count = (f"{ci.documents} documents" if ci.documents == ci.documents_total else
                     f"{ci.documents} of {ci.documents_total} documents (the others have no scored unit)")
            docs.append((f"[{k + 1}] " if labels else "") + count)
        seed = "no seed" if first.seed is None else f"seed {first.seed}"
        return (f"{100 * first.level:g}% confidence intervals [low, high]: bootstrap over whole documents "
                f"({first.n} resamples, {seed}): {', '.join(docs)}\n")

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level, "low": self.low, "high": self.high, "half_width": self.half_width,
            "mean": self.mean, "method": "percentile bootstrap over documents", "n": self.n,
            "seed": self.seed, "documents": self.documents, "documents_total": self.documents_total,
        }


def bootstrap_ci(
    result: Result, n: int = DEFAULT_N["bs"], seed: int | None = DEFAULT_SEED, level: float = DEFAULT_CI_LEVEL
) -> ConfidenceInterval:
    """The bootstrap confidence interval of ``result.score`` over documents (sacrebleu's
    ``--confidence``, with documents instead of segments as the resampled unit).

    The resamples are those of the paired bootstrap (:func:`bootstrap_indices`: the same seed gives
    the same resamples, whatever the system), each scored with ``result.aggregation`` from the
    documents' sufficient statistics (:func:`doc_stats`).  Fewer than :data:`MIN_DOCUMENTS`
    documents: a warning in ``warnings``; fewer than two: InputError."""
    if n < 1 or n > MAX_N:  # the command line checks --ci-n and --ci-level first, in its own words
        raise UserError(f"n={n}: a confidence interval takes from 1 to {MAX_N} resamples (kept in memory)",
                        params=("n",))
    if not 0 < level < 1:
        raise UserError(f"level={level}: the level of a confidence interval is between 0 and 1 (e.g. 0.95)",
                        params=("level",))
    doc_ids = doc_order([result])
    _check_documents(result.metric, doc_ids, "confidence intervals")
    stats = doc_stats(result, doc_ids)
    scores = resampled_scores(stats, bootstrap_indices(len(doc_ids), n, seed))
    low, high = percentile_interval(scores, level)
    warnings = []
    if len(doc_ids) < MIN_DOCUMENTS:
        warnings.append(f"{result.metric}: only {len(doc_ids)} documents to resample; with fewer than "
                        f"{MIN_DOCUMENTS} a confidence interval is rough")
    return ConfidenceInterval(result.system, result.metric, float(result.score), low, high, float(scores.mean()),
                              level, n, seed, len(doc_ids), len(result.docs) or len(doc_ids), warnings)
