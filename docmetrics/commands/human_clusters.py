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
from ..judging import rules as cluster_rules
from ..values.errors import InputError, SpecError
from . import data as data_cli
from .format import num, table
from .messages import note
from .options import RankOptions
from .output import Output, one_or_list, write
from .stored import stored_metrics

__all__ = ["requested", "check_args", "read", "run", "format_ranking", "format_agreement", "beside_autorank"]

SOURCES = (("genmt", "--genmt"), ("human", "--human"), ("mtme", "--mtme"))


def requested(opts: RankOptions) -> bool:
    return any(getattr(opts, attr, None) for attr, _ in SOURCES) or data_cli.requested(opts)


def check_args(opts: RankOptions) -> None:
    data_cli.check(opts, "rank")
    given = [flag for attr, flag in SOURCES if getattr(opts, attr, None)]
    if len(given) > 1:
        raise SpecError(f"{' and '.join(given)}: give one source of human scores")
    needs = {"rule": ("--rule", ()), "human_column": ("--human-column", ("human",)),
             "lower_is_better": ("--lower-is-better", ("human",)), "testset": ("-t", ("mtme",)),
             "gold": ("--gold", ("mtme",))}
    for attr, (flag, sources) in needs.items():
        if getattr(opts, attr, None) and not any(getattr(opts, a, None) for a in sources or [a for a, _ in SOURCES]):
            if not sources and opts.data:
                continue
            wanted = " or ".join(f for a, f in SOURCES if not sources or a in sources)
            raise SpecError(f"{flag} needs {wanted}")
    if opts.mtme and not opts.testset:
        raise SpecError(f"--mtme {opts.mtme}: name the test set with -t (e.g. -t wmt24)")
    if opts.mtme and not opts.lp:
        raise SpecError(f"--mtme {opts.mtme}: name the language pair with -l")
    if opts.human and opts.lp and len(opts.lp) > 1:
        raise SpecError(f"--human {opts.human}: one file holds one language pair; give at most one -l")


def read(opts: RankOptions, lps: Sequence[str]) -> list[EvalSet]:
    """The judged data of each language pair asked for (default: every pair of the file), read once by
    :func:`docmetrics.judging.read_human_pairs` from --data or its alias (:func:`.data.source`)."""
    return data_cli.read_pairs(opts, lps, "docmetrics rank")


def _metrics(stored: Any, ranking: HumanRanking, opts: RankOptions, where: str) -> dict[str, Any]:
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


def beside_autorank(opts: RankOptions, results: Sequence[AutoRank], found: Sequence[EvalSet | None]
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


def run(opts: RankOptions, lps: Sequence[str], stored: Any, where: str, out: TextIO) -> int:
    rule = opts.rule or "wmt25"
    blocks = []
    for data in read(opts, lps):
        ranking = human_clusters(data, rule)
        chosen = _metrics(stored, ranking, opts, where) if stored else {}
        blocks.append((ranking, cluster_agreement(ranking, chosen)))
    write(Output(data=lambda: one_or_list([{"ranking": r.to_dict(), "agreement": [a.to_dict() for a in ag]}
                                           for r, ag in blocks]),
                 text=lambda: "\n".join(format_ranking(r, opts.width)
                                        + ("\n" + format_agreement(ag, opts.width) if ag else "") for r, ag in blocks)),
          opts, out)
    for ranking, agree in blocks:
        for a in agree:
            if a.left_out:
                note(opts, f"{ranking.lp or 'human'}: {a.metric}: no score of {', '.join(a.left_out)}, left out of "
                           "its agreement")
    return 0


def _ranks(r: tuple[int, int] | None) -> str:
    return "" if r is None else str(r[0]) if r[0] == r[1] else f"{r[0]}-{r[1]}"


def _definition(ranking: HumanRanking) -> str:
    """What the rule does, as the header says it: docmetrics' own rules test at p < 0.05; a plugin rule's
    definition is its own word (it may run no test)."""
    builtin = {r.name: r.definition for r in cluster_rules.BUILTIN}
    if ranking.rule in builtin:
        return f"{ranking.definition or builtin[ranking.rule]}; p < {cluster_rules.ALPHA}"
    return ranking.definition or "a plugin rule"


def format_ranking(ranking: HumanRanking, width: int = 4) -> str:
    """The systems best first, a rule line between clusters (as the findings tables draw them)."""
    with_ranks = any(s.ranks for s in ranking.systems)
    headers = ["Cluster", "System", "Human"] + (["Ranks"] if with_ranks else []) + ["Annotations"]
    rows = [[str(s.cluster), s.system, num(s.score, width)] + ([_ranks(s.ranks)] if with_ranks else [])
            + [str(s.annotations)] for s in ranking.systems]
    text = table(headers, rows, "rl" + "r" * (len(headers) - 2)).rstrip("\n").split("\n")
    rule_line = text[1]
    local_line = rule_line.replace("-", ".")
    lines = text[:2]
    for k, s in enumerate(ranking.systems):
        if k and s.cluster != ranking.systems[k - 1].cluster:
            lines.append(rule_line)
        elif k and ranking.systems[k - 1].mark == "local":
            lines.append(local_line)
        lines.append(text[2 + k])
    n = len(ranking.systems)
    title = (f"Human clusters{' ' + ranking.lp if ranking.lp else ''}: {n} systems, {ranking.n_clusters} cluster"
             f"{'s' if ranking.n_clusters != 1 else ''}, rule {ranking.rule} "
             f"({_definition(ranking)})")
    tested = any(t.p == t.p for t in ranking.tests)  # a NaN p-value: no test
    tail = [f"from {ranking.source}" + (f" (p-values by scipy {ranking.scipy})" if tested else "")] + ranking.notes
    if any(s.mark == "local" for s in ranking.systems):
        tail.insert(1, "a dotted line: only the systems on either side of it differ (the script's local mark)")
    return "\n".join([title, *lines, *tail]) + "\n"


def format_agreement(agree: Sequence[ClusterAgreement], width: int = 4) -> str:
    """One row per metric: of the system pairs in different human clusters (both scored), how many the
    metric orders as the humans do."""
    headers = ["Metric", "Pairs", "Agree", "Ties", "Disagree", "Share"]
    rows = [[a.metric, str(a.pairs), str(a.agree), str(a.ties), str(a.disagree), num(a.share, width)] for a in agree]
    title = ("Agreement with the human clusters: of the system pairs in different clusters, the share the metric "
             "scores strictly better for the better cluster (ties count as not)")
    return title + "\n" + table(headers, rows)
