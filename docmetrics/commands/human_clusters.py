"""``docmetrics rank --data PATH`` (or its aliases ``--genmt FILE``, ``--human FILE``, ``--mtme ROOT -t TS``): the
human ranking with clusters as the WMT organisers compute them (:func:`docmetrics.judging.human_clusters` of what
:func:`docmetrics.judging.read_human_pairs` reads), one table per language pair, and with ``--scores`` how each
stored metric orders the systems of different human clusters; beside AutoRank (``-m``), the clusters of the test
set's own human scores."""

from __future__ import annotations

from typing import Any, Sequence, TextIO

from ..judging import (
    AutoRank,
    ClusterAgreement,
    EvalSet,
    HumanRanking,
    cluster_agreement,
    human_clusters,
)
from ..values.errors import InputError, SpecError
from . import data as data_cli
from .messages import note
from .options import Options
from .output import Output, one_or_list, write
from .stored import stored_metrics

__all__ = ["requested", "check_args", "read", "run", "beside_autorank"]

SOURCES = (("genmt", "--genmt"), ("human", "--human"), ("mtme", "--mtme"))


def requested(opts: Options) -> bool:
    return any(getattr(opts, attr, None) for attr, _ in SOURCES) or data_cli.requested(opts)


def check_args(opts: Options) -> None:
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


def read(opts: Options, lps: Sequence[str]) -> list[EvalSet]:
    """The judged data of each language pair asked for (default: every pair of the file), read once by
    :func:`docmetrics.judging.read_human_pairs` from --data or its alias (:func:`.data.source`); the reader's
    notes, on the test set it built, are said where -m scores it."""
    if opts.human and len(lps) > 1:
        raise SpecError(f"--human {opts.human}: one file holds one language pair; give at most one -l")
    return data_cli.read_pairs(opts, lps, "docmetrics rank", notes=bool(opts.metrics))


def _metrics(stored: Any, ranking: HumanRanking, opts: Options, where: str) -> dict[str, Any]:
    """The stored metrics of the ranking's language pair (name -> StoredMetric) to compare with it
    (:func:`.stored.stored_metrics`)."""
    if "" in stored.pairs:  # a TSV that names no language pair
        metrics = stored.pairs[""]
        lp = ranking.lp or ""
    elif ranking.lp is None and len(stored.pairs) == 1:
        lp, metrics = next(iter(stored.pairs.items()))
    elif ranking.lp is None:
        raise InputError(f"{where}: scores of several language pairs ({', '.join(stored.pairs)}); name the one of "
                         f"the human scores with -l")
    else:
        lp, metrics = stored.pair(ranking.lp, where)
    return stored_metrics(metrics, lp, opts.stored, opts.preset, where)


def beside_autorank(opts: Options, results: Sequence[AutoRank], found: Sequence[EvalSet | None]
                    ) -> list[tuple[HumanRanking, list[ClusterAgreement]] | None]:
    """With -m on judged data (``found``, the EvalSet of each AutoRank's language pair; None for -i files): per
    AutoRank, the human clusters of its language pair by --rule (default wmt25) and how each ranked metric agrees
    with them (None where the data has no human scores, and a note where it has none for the pair)."""
    out: list[tuple[HumanRanking, list[ClusterAgreement]] | None] = []
    for result, data in zip(results, found):
        ranking = None
        if data is not None and (data.human is not None or data.make_judgements is not None):
            try:
                ranking = human_clusters(data, opts.rule or "wmt25")
            except InputError as exc:  # a GenMT file without human scores: AutoRank alone, and said
                note(opts, f"no human clusters beside AutoRank: {exc}", "docmetrics rank")
        out.append(None if ranking is None else (ranking, cluster_agreement(ranking, result)))
    return out


def run(opts: Options, lps: Sequence[str], stored: Any, where: str, out: TextIO) -> int:
    rule = opts.rule or "wmt25"
    blocks = []
    for data in read(opts, lps):
        ranking = human_clusters(data, rule)
        chosen = _metrics(stored, ranking, opts, where) if stored else {}
        blocks.append((ranking, cluster_agreement(ranking, chosen)))
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
