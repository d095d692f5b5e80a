"""``docmetrics rank``: AutoRank (WMT25's automatic ranking over several metrics), one table per language pair
(:func:`docmetrics.judging.autorank`), of stored scores (``--scores``) and of live metrics (``-m``) scored on a test
set (``-i/-s/-r/--doc-ids``, or judged data that carries one: ``--data PATH`` or its aliases ``--genmt FILE``,
``--mtme ROOT -t TS -l LP``, ``--wmt26 FILE``) in the main command's session, beside any stored ``--scores``; with
``--paired-bs`` its clusters by resampling documents (:func:`docmetrics.judging.autorank_clusters`).

Without ``-m``, ``--data PATH`` (or its aliases ``--genmt FILE``, ``--human FILE``, ``--mtme ROOT -t TS``) gives the
human ranking with clusters as the WMT organisers compute them instead (:func:`docmetrics.judging.human_clusters` of
what :func:`docmetrics.judging.read_human_pairs` reads), one table per language pair, and with ``--scores`` how each
stored metric orders the systems of different human clusters; beside AutoRank (``-m``), the clusters of the test
set's own human scores.  Everything that needs no model is checked first."""

from __future__ import annotations

import contextlib
from typing import Any, Sequence, TextIO

from ..api import Result, TestSet
from ..judging import (
    AutoRank,
    ClusterAgreement,
    EvalSet,
    HumanRanking,
    StoredScorer,
    StoredScores,
    autorank,
    autorank_clusters,
    cluster_agreement,
    human_clusters,
    read_stored,
    score_metrics,
)
from ..values.errors import InputError, SpecError, UserError
from . import data as data_cli
from . import stored as stored_cli
from .common import naming_the_reference, session_scope
from .conflicts import Conflicts, Option
from .inputs import load_testset, show_warnings
from .messages import note
from .options import Options
from .output import Output, write
from .scoring import ScoringReport
from .significance import check_resamples
from .specs import check_specs, language_pairs
from .wmt26 import check_no_reference_files, check_systems_given, references_from_release

__all__ = ["run_rank"]

WHO = "docmetrics rank"
#: The sources of human scores to cluster (without -m), beside --data.
SOURCES = (("genmt", "--genmt"), ("human", "--human"), ("mtme", "--mtme"))
#: Options of human clusters that mean nothing to AutoRank over live metrics.
HUMAN_ONLY = Conflicts("-m", "{option} with {other}: -m ranks live metrics with AutoRank on a test set; a --human "
                       "file holds no test set: rank it without -m (with --scores for the metrics to compare), or "
                       "give -m a --genmt or --mtme test set, whose human clusters are drawn beside AutoRank",
                       (Option("human"), Option("human_column"), Option("lower_is_better")))
#: With -m, options of the human clusters drawn beside AutoRank from the test set's own human scores.
BESIDE = (("gold", "--gold", ("mtme",)), ("rule", "--rule", ("genmt", "mtme", "data")))
#: Human clusters beside an AutoRank, and each metric's agreement with them.
Humans = tuple[HumanRanking, list[ClusterAgreement]]


def _human(opts: Options) -> bool:
    """Human scores to cluster are given (--data or an alias)."""
    return any(getattr(opts, attr, None) for attr, _ in SOURCES) or data_cli.requested(opts)


def check_args(opts: Options, lps: Sequence[str]) -> None:
    """The combinations, before any file is read or model loaded."""
    if opts.stored and "all" in opts.stored and len(opts.stored) > 1:
        raise SpecError("--stored all names every metric; give 'all' or metric names, not both")
    if not opts.metrics:
        _check_human(opts)
    if opts.ref and not (opts.mtme and opts.metrics):
        raise UserError(f"--ref {','.join(opts.ref)}: the references of an MTME directory to score -m metrics against; "
                        "it needs -m SPEC... --mtme ROOT")
    check_resamples("--paired-bs-n", opts.paired_bs_n)
    testset_given = bool(opts.input or opts.source or opts.references or opts.doc_ids)
    if (opts.wmt26_systems or opts.wmt26_ref) and not opts.wmt26:
        raise UserError(f"{'--wmt26-systems' if opts.wmt26_systems else '--wmt26-ref'}: names files or references of "
                        "the WMT26 release; it needs -m SPEC... --wmt26 TESTFILE")
    if opts.metrics:
        _check_live(opts, lps, testset_given)
    elif opts.wmt26:
        raise UserError(f"--wmt26 {opts.wmt26}: the release is ranked by live metrics; give them with -m SPEC...")
    elif testset_given:
        raise UserError(f"{'-i' if opts.input else '-s/-r/--doc-ids'}: a test set is read to score live metrics; "
                        "give them with -m SPEC...")
    if not opts.scores and not _human(opts) and not opts.metrics:
        raise SpecError("give --scores FILE... or -m SPEC... with a test set (AutoRank), or --genmt, --human or "
                        "--mtme (human clusters)")
    if opts.metrics and opts.mtme and not (opts.testset and lps):
        raise SpecError(f"--mtme {opts.mtme}: name the test set with -t and the language pair with -l")


def _check_human(opts: Options) -> None:
    """The human clusters' options (without -m)."""
    data_cli.check(opts, "rank")
    given = [flag for attr, flag in SOURCES if getattr(opts, attr, None)]
    if len(given) > 1:
        raise SpecError(f"{' and '.join(given)}: give one source of human scores")
    needs = {"rule": ("--rule", ()), "human_column": ("--human-column", ("human",)),
             "lower_is_better": ("--lower-is-better", ("human",)), "testset": ("-t", ("mtme",)),
             "gold": ("--gold", ("mtme",))}
    for attr, (flag, sources) in needs.items():
        allowed = sources or ("genmt", "human", "mtme", "data")
        if getattr(opts, attr, None) and not any(getattr(opts, a, None) for a in allowed):
            raise SpecError(f"{flag} needs {' or '.join(f for a, f in SOURCES if a in allowed)}")
    if opts.mtme and not opts.testset:
        raise SpecError(f"--mtme {opts.mtme}: name the test set with -t (e.g. -t wmt24)")
    if opts.mtme and not opts.lp:
        raise SpecError(f"--mtme {opts.mtme}: name the language pair with -l")


def _check_live(opts: Options, lps: Sequence[str], testset_given: bool) -> None:
    """The options of -m: one test set to score, and the specs."""
    data_cli.check(opts, "rank")
    HUMAN_ONLY.check(opts)
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
        check_systems_given(opts)
    if opts.testset and not opts.mtme:
        raise UserError(f"-t {opts.testset}: names a test set of an MTME directory; it needs --mtme ROOT")
    if testset_given and not opts.input:
        raise UserError("-s/-r/--doc-ids without -i: give the system outputs with -i HYP...")
    if testset_given and len(lps) > 1:
        raise UserError(f"-l {' '.join(lps)}: -i files are one language pair; give at most one -l")
    check_specs(opts.metrics)


def run_rank(opts: Options, out: TextIO) -> int:
    lps = language_pairs(opts.lp or [])
    check_args(opts, lps)
    stored = None
    if opts.scores:
        with stored_cli.worded():
            stored = read_stored(opts.scores, lp=lps[0] if len(lps) == 1 else None, directions=opts.direction)
    if opts.metrics:
        results, found = rank_live(opts, lps, stored)
        return write_ranks(opts, results, out, beside_autorank(opts, results, found))
    if stored is not None and "" in stored.pairs and len(lps) > 1:  # "": the pair of a TSV read without one
        raise InputError(f"{', '.join(opts.scores)}: a TSV names no language pair; rank one with -l LP")
    if _human(opts):
        if opts.paired_bs:
            raise SpecError("--paired-bs clusters AutoRank; the human clusters are drawn by the organisers' tests "
                            "(--rule)")
        return run_human(opts, lps, stored, out)
    assert stored is not None
    results = []
    for lp in lps or stored.language_pairs() or [None]:
        data = stored.evalset(lp, metrics=stored_cli.wanted_metrics(opts.stored, opts.preset))
        result = (autorank_clusters(data, preset=opts.preset, n=opts.paired_bs_n, seed=opts.seed)
                  if opts.paired_bs else autorank(data, preset=opts.preset))
        result.notes += data.notes
        results.append(result)
    return write_ranks(opts, results, out)


def one_or_list(items: list[Any]) -> Any:
    """One language pair's object alone, several as a list (as ``rank -f json`` prints them)."""
    return items[0] if len(items) == 1 else items


def write_ranks(opts: Options, results: list[AutoRank], out: TextIO, humans: Sequence[Humans | None] = ()) -> int:
    """Each AutoRank; where ``humans`` gives one (``rank -m`` on --genmt or --mtme data), the human clusters of
    its language pair and each metric's agreement with them after it (JSON: its ``human_clusters``)."""
    beside = list(humans) or [None] * len(results)

    def data(r: AutoRank, h: Humans | None) -> dict[str, Any]:
        d = r.to_dict()
        if h is not None:
            d["human_clusters"] = {"ranking": h[0].to_dict(), "agreement": [a.to_dict() for a in h[1]]}
        return d

    def text(r: AutoRank, h: Humans | None) -> str:
        if h is None:
            return r.to_text(opts.width)
        return r.to_text(opts.width) + "\n" + h[0].to_text(opts.width, h[1])

    write(Output(data=lambda: one_or_list([data(r, h) for r, h in zip(results, beside)]),
                 text=lambda: "\n".join(text(r, h) for r, h in zip(results, beside))), opts, out)
    for r in results:
        for m, info in r.metric_info.items():
            if info["missing"]:
                by = ", ".join(f"{s}: {n}" for s, n in list(info["missing_by_system"].items())[:5])
                more = "" if len(info["missing_by_system"]) <= 5 else f", {len(info['missing_by_system']) - 5} more"
                note(opts, f"{r.lp or 'scores'}: {m}: {info['missing']} of {info['items'] * len(r.systems)} "
                           f"{info['level']}-level scores missing, left out of the means ({by}{more})")
    return 0


# -- human clusters ---------------------------------------------------------------------------------------------
def read(opts: Options, lps: Sequence[str]) -> list[EvalSet]:
    """The judged data of each language pair asked for (default: every pair of the file), read once by
    :func:`docmetrics.judging.read_human_pairs` from --data or its alias (:func:`.data.source`); the reader's
    notes, on the test set it built, are said where -m scores it."""
    if opts.human and len(lps) > 1:
        raise SpecError(f"--human {opts.human}: one file holds one language pair; give at most one -l")
    return data_cli.read_pairs(opts, lps, WHO, notes=bool(opts.metrics))


def run_human(opts: Options, lps: Sequence[str], stored: StoredScores | None, out: TextIO) -> int:
    """The human clusters of each language pair (--rule, default wmt25) and each stored metric's agreement: the
    stored metrics of its pair (``--stored``, else the preset's, else all) as
    :meth:`~docmetrics.judging.StoredScores.evalset` chooses them."""
    blocks = []
    for data in read(opts, lps):
        ranking = human_clusters(data, opts.rule or "wmt25")
        metrics: dict[str, Any] = {}
        if stored:
            if ranking.lp is None and len(stored.language_pairs()) > 1:
                raise InputError(f"{stored.source}: scores of several language pairs "
                                 f"({', '.join(stored.language_pairs())}); name the one of the human scores with -l")
            metrics = stored.evalset(ranking.lp, metrics=stored_cli.wanted_metrics(opts.stored, opts.preset)).stored
        blocks.append((ranking, cluster_agreement(ranking, metrics)))
    write(Output(data=lambda: one_or_list([{"ranking": r.to_dict(), "agreement": [a.to_dict() for a in ag]}
                                           for r, ag in blocks]),
                 text=lambda: "\n".join(r.to_text(opts.width, ag) for r, ag in blocks)),
          opts, out)
    for ranking, agree in blocks:
        for a in agree:
            if a.left_out:
                note(opts, f"{ranking.lp or 'human'}: {a.metric}: no score of {', '.join(a.left_out)}, left out of "
                           "its agreement")
    return 0


def beside_autorank(opts: Options, results: Sequence[AutoRank], found: Sequence[EvalSet | None]
                    ) -> list[Humans | None]:
    """With -m on judged data (``found``, the EvalSet of each AutoRank's language pair; None for -i files): per
    AutoRank, the human clusters of its language pair by --rule (default wmt25) and how each ranked metric agrees
    with them (None where the data has no human scores, and a note where it has none for the pair)."""
    out: list[Humans | None] = []
    for result, data in zip(results, found):
        ranking = None
        if data is not None and (data.human is not None or data.make_judgements is not None):
            try:
                ranking = human_clusters(data, opts.rule or "wmt25")
            except InputError as exc:  # a GenMT file without human scores: AutoRank alone, and said
                note(opts, f"no human clusters beside AutoRank: {exc}", WHO)
        out.append(None if ranking is None else (ranking, cluster_agreement(ranking, result)))
    return out


# -- live metrics ---------------------------------------------------------------------------------------------------
def _testsets(opts: Options, lps: Sequence[str]) -> list[tuple[str | None, TestSet, str | None, EvalSet | None]]:
    """(language pair, test set, the pair as metrics' lang= takes it, the EvalSet of judged data or None) of each
    pair to rank, read before any model loads."""
    if opts.input:
        testset = load_testset(opts, WHO)
        return [(lps[0] if lps else None, testset, lps[0] if lps else None, None)]
    found = read(opts, lps)
    for data in found:
        show_warnings(data_cli.texts(opts, data), WHO)
    return [(data.lp, data.testset, data.testset.lp, data) for data in found]


def references_from_mtme(opts: Options, data: EvalSet | None) -> contextlib.AbstractContextManager[None]:
    """A metric that needs a reference where --mtme data has several and no standard one (none is in use): its
    error names --ref and the pair's references, not -r (which --mtme refuses)."""
    raw = getattr(data, "raw", None)
    if not opts.mtme or opts.ref or data is None or raw is None:
        return contextlib.nullcontext()
    return naming_the_reference(f"--mtme {opts.mtme} has several for {data.lp} and no standard one", "--ref",
                                f"its references: {', '.join(raw.references)}")


def rank_live(opts: Options, lps: Sequence[str], stored: StoredScores | None
              ) -> tuple[list[AutoRank], list[EvalSet | None]]:
    """One AutoRank per language pair: the ``stored`` metrics of the pair (``--stored``, else the preset's, else
    all; every one without a pair) checked against each test set, then every -m
    metric loaded in one session (as the main command loads them) and scored; with --paired-bs, clusters.
    Beside them, the EvalSet of each pair read from judged data (None for -i files)."""
    from .. import api

    pairs = []
    for lp, testset, lang, data in _testsets(opts, lps):
        wanted = stored_cli.wanted_metrics(opts.stored, opts.preset if lp else None)
        scorers = [StoredScorer(m) for m in stored.evalset(lp, metrics=wanted).stored.values()] if stored else []
        for scorer in scorers:  # a stored metric that does not fit the test set stops the run here
            scorer.check(testset)
        clash = [s.name for s in scorers if s.name in opts.metrics]
        if clash:
            raise UserError(f"--scores: a stored metric is named {clash[0]!r} like a -m spec; leave it out with "
                            "--stored NAME...")
        pairs.append((lp, testset, lang, scorers, data))
    out = []
    with session_scope(opts, cache=opts.cache) as session:
        for lp, testset, lang, scorers, data in pairs:
            specs = list(dict.fromkeys(opts.metrics))
            metrics = [(spec, api.load(spec, defaults={"lang": lang}, session=session)) for spec in specs]
            with references_from_release(opts), references_from_mtme(opts, data):
                scored = score_metrics(testset, metrics, observer=ScoringReport(opts, specs, WHO))
            named: dict[str, list[Result]] = {s.spec: s.results for s in scored}
            for scorer in scorers:
                named[scorer.name] = scorer.compute(testset)
            result = autorank(named, lp=lp, preset=opts.preset if scorers else None)
            for scorer in scorers:
                result.metric_info[scorer.name].update(direction=scorer.metric.direction)
            if opts.paired_bs:
                autorank_clusters(named, ranking=result, n=opts.paired_bs_n, seed=opts.seed)
            out.append(result)
        if session.cache is not None:
            note(opts, f"score cache {session.cache.path}: {session.cache.stats.summary()}", WHO)
    return out, [p[4] for p in pairs]
