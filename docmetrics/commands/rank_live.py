"""``docmetrics rank -m SPEC...``: AutoRank over live metrics, scored on a test set (``-i/-s/-r/--doc-ids``, or
judged data that carries one: ``--data PATH`` or its aliases ``--genmt FILE``, ``--mtme ROOT -t TS -l LP``,
``--wmt26 FILE``, read as :mod:`.human_clusters` reads it) in the main command's session, beside any stored
``--scores``; and ``--paired-bs``: clusters of AutoRank by a paired bootstrap over documents
(:func:`docmetrics.judging.autorank_clusters`).  Everything that needs no model is checked first."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Sequence

from ..api import Result, TestSet
from ..judging import (
    AUTORANK_PRESETS,
    MAX_N,
    AutoRank,
    EvalSet,
    StoredMetric,
    StoredScorer,
    autorank,
    autorank_clusters,
    score_metrics,
)
from ..values.errors import UserError
from . import data as data_cli
from . import human_clusters
from . import stored as stored_cli
from .common import naming_the_reference, session_scope
from .inputs import load_testset, show_warnings
from .messages import note
from .options import Options
from .scoring import ScoringReport
from .wmt26 import check_no_reference_files, references_from_release

__all__ = ["requested", "check_args", "rank_live"]

WHO = "docmetrics rank"
#: Options of human clusters that mean nothing to AutoRank over live metrics.
HUMAN_ONLY = (("human", "--human"), ("human_column", "--human-column"), ("lower_is_better", "--lower-is-better"))
#: With -m, options of the human clusters drawn beside AutoRank from the test set's own human scores.
BESIDE = (("gold", "--gold", ("mtme",)), ("rule", "--rule", ("genmt", "mtme", "data")))


def requested(opts: Options) -> bool:
    return bool(opts.metrics)


def check_args(opts: Options, lps: Sequence[str]) -> None:
    """The combinations, before any file is read or model loaded."""
    if opts.ref and not (opts.mtme and requested(opts)):
        raise UserError(f"--ref {','.join(opts.ref)}: the references of an MTME directory to score -m metrics against; "
                        "it needs -m SPEC... --mtme ROOT")
    if not 1 <= opts.paired_bs_n <= MAX_N:
        raise UserError(f"--paired-bs-n must be from 1 to {MAX_N} (resamples kept in memory), not {opts.paired_bs_n}")
    testset_given = bool(opts.input or opts.source or opts.references or opts.doc_ids)
    if (opts.wmt26_systems or opts.wmt26_ref) and not opts.wmt26:
        raise UserError(f"{'--wmt26-systems' if opts.wmt26_systems else '--wmt26-ref'}: names files or references of "
                        "the WMT26 release; it needs -m SPEC... --wmt26 TESTFILE")
    if requested(opts):
        data_cli.check(opts, "rank")
    else:
        if opts.wmt26:
            raise UserError(f"--wmt26 {opts.wmt26}: the release is ranked by live metrics; give them with -m SPEC...")
        if testset_given:
            raise UserError(f"{'-i' if opts.input else '-s/-r/--doc-ids'}: a test set is read to score live metrics; "
                            "give them with -m SPEC...")
        return
    for attr, flag in HUMAN_ONLY:
        if getattr(opts, attr, None):
            raise UserError(f"{flag} with -m: -m ranks live metrics with AutoRank on a test set; a --human file holds "
                            "no test set: rank it without -m (with --scores for the metrics to compare), or give -m a "
                            "--genmt or --mtme test set, whose human clusters are drawn beside AutoRank")
    for attr, flag, sources in BESIDE:
        if getattr(opts, attr, None) and not any(getattr(opts, s, None) for s in sources):
            raise UserError(f"{flag} with -m: the human clusters beside AutoRank are drawn from the test set's own "
                            f"human scores: {' or '.join('--' + s for s in sources)}")
    check_no_reference_files(opts)
    sources = [flag for flag, given in (("-i", testset_given), ("--genmt", opts.genmt), ("--mtme", opts.mtme),
                                        ("--wmt26", opts.wmt26), ("--data", opts.data)) if given]
    if not sources:
        raise UserError(f"-m {' '.join(opts.metrics)}: give the test set to score: -i HYP... -s SRC [-r REF] "
                        "--doc-ids IDS, --genmt FILE -l LP, --mtme ROOT -t TESTSET -l LP, --wmt26 FILE "
                        "--wmt26-systems DIR or --data PATH")
    if len(sources) > 1:
        raise UserError(f"{' and '.join(sources)}: give one test set")
    if opts.wmt26:
        from .wmt26 import check_systems_given

        check_systems_given(opts)
    if opts.testset and not opts.mtme:
        raise UserError(f"-t {opts.testset}: names a test set of an MTME directory; it needs --mtme ROOT")
    if testset_given and not opts.input:
        raise UserError("-s/-r/--doc-ids without -i: give the system outputs with -i HYP...")
    if testset_given and len(lps) > 1:
        raise UserError(f"-l {' '.join(lps)}: -i files are one language pair; give at most one -l")
    from .specs import check_specs

    check_specs(opts.metrics)


def _stored_for(opts: Options, lp: str | None) -> list[StoredMetric]:
    """The --scores metrics of ``lp`` (``--stored``, else the preset's, else all)."""
    if not opts.scores:
        return []
    wanted = opts.stored
    if (not wanted or wanted == ["all"]) and opts.preset and lp:
        wanted = list(AUTORANK_PRESETS[opts.preset].metrics_for(lp))
    return stored_cli.for_pair(replace(opts, stored=wanted), lp)


def _testsets(opts: Options, lps: Sequence[str]) -> list[tuple[str | None, TestSet, str | None, EvalSet | None]]:
    """(language pair, test set, the pair as metrics' lang= takes it, the EvalSet of judged data or None) of each
    pair to rank, read before any model loads."""
    if opts.input:
        testset = load_testset(opts, WHO)
        return [(lps[0] if lps else None, testset, lps[0] if lps else None, None)]
    found = human_clusters.read(opts, lps)
    for data in found:
        if data.testset is None:
            path, flag, _, _ = data_cli.source(opts)
            raise UserError(f"{flag} {path}: a {data.format} file carries no texts to score with -m; give a format "
                            "that carries the test set's texts")
        show_warnings(data.testset, WHO)
    return [(data.lp, data.testset, data.testset.lp, data) for data in found]


def references_from_mtme(opts: Options, data: EvalSet | None) -> contextlib.AbstractContextManager[None]:
    """A metric that needs a reference where --mtme data has several and no standard one (none is in use): its
    error names --ref and the pair's references, not -r (which --mtme refuses)."""
    raw = getattr(data, "raw", None)
    if not opts.mtme or opts.ref or data is None or raw is None:
        return contextlib.nullcontext()
    return naming_the_reference(f"--mtme {opts.mtme} has several for {data.lp} and no standard one", "--ref",
                                f"its references: {', '.join(raw.references)}")


def rank_live(opts: Options, lps: Sequence[str]) -> tuple[list[AutoRank], list[EvalSet | None]]:
    """One AutoRank per language pair: the stored metrics checked against each test set, then every -m
    metric loaded in one session (as the main command loads them) and scored; with --paired-bs, clusters.
    Beside them, the EvalSet of each pair read from judged data (None for -i files)."""
    from .. import api

    pairs = []
    for lp, testset, lang, data in _testsets(opts, lps):
        stored = [StoredScorer(m) for m in _stored_for(opts, lp)]
        for scorer in stored:  # a stored metric that does not fit the test set stops the run here
            scorer.check(testset)
        clash = [s.name for s in stored if s.name in opts.metrics]
        if clash:
            raise UserError(f"--scores: a stored metric is named {clash[0]!r} like a -m spec; leave it out with "
                            "--stored NAME...")
        pairs.append((lp, testset, lang, stored, data))
    out = []
    with session_scope(opts, cache=opts.cache) as session:
        for lp, testset, lang, stored, _ in pairs:
            specs = list(dict.fromkeys(opts.metrics))
            metrics = [(spec, api.load(spec, defaults={"lang": lang}, session=session)) for spec in specs]
            with references_from_release(opts), references_from_mtme(opts, data):
                scored = score_metrics(testset, metrics, observer=ScoringReport(opts, specs, WHO))
            named: dict[str, list[Result]] = {s.spec: s.results for s in scored}
            for scorer in stored:
                named[scorer.name] = scorer.compute(testset)
            result = autorank(named, lp=lp, preset=opts.preset if stored else None)
            for scorer in stored:
                result.metric_info[scorer.name].update(direction=scorer.metric.direction)
            if opts.paired_bs:
                autorank_clusters(named, ranking=result, n=opts.paired_bs_n, seed=opts.seed)
            out.append(result)
        if session.cache is not None:
            note(opts, f"score cache {session.cache.path}: {session.cache.stats.summary()}", WHO)
    return out, [p[4] for p in pairs]
