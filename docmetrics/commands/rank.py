"""``docmetrics rank``: AutoRank (WMT25's automatic ranking over several metrics) from stored scores and
live metrics (``-m``, :mod:`.rank_live`), one table per language pair (:func:`docmetrics.judging.autorank`), with
``--paired-bs`` its clusters by resampling documents (:func:`docmetrics.judging.autorank_clusters`); with
``--genmt``, ``--human`` or ``--mtme`` and no ``-m``, the human ranking with clusters instead
(:mod:`.human_clusters`)."""

from __future__ import annotations

from typing import Any, Sequence, TextIO

from ..judging import (
    AutoRank,
    ClusterAgreement,
    HumanRanking,
    StoredScores,
    autorank,
    autorank_clusters,
    read_stored,
)
from ..values.errors import InputError, SpecError
from . import human_clusters, rank_live
from . import stored as stored_cli
from .messages import note
from .options import Options
from .output import Output, one_or_list, write
from .specs import language_pairs

__all__ = ["run_rank"]


def rank(stored: StoredScores, lps: Sequence[str], wanted: Sequence[str] | None, preset: str | None,
         resample: Options | None = None) -> list[AutoRank]:
    """One AutoRank per language pair (``lps``, default: every pair of ``stored``) of the metrics ``wanted`` (else
    the preset's, else all); with ``resample`` (the --paired-bs options), its clusters."""
    out = []
    for lp in lps or stored.language_pairs() or [None]:
        data = stored.evalset(lp, metrics=stored_cli.wanted_metrics(wanted, preset))
        result = (autorank_clusters(data, preset=preset, n=resample.paired_bs_n, seed=resample.seed)
                  if resample is not None else autorank(data, preset=preset))
        result.notes += data.notes
        out.append(result)
    return out


def run_rank(opts: Options, out: TextIO) -> int:
    lps = language_pairs(opts.lp or [])
    if opts.stored and "all" in opts.stored and len(opts.stored) > 1:
        raise SpecError("--stored all names every metric; give 'all' or metric names, not both")
    live = rank_live.requested(opts)
    if not live:
        human_clusters.check_args(opts)
    rank_live.check_args(opts, lps)
    if not opts.scores and not human_clusters.requested(opts) and not live:
        raise SpecError("give --scores FILE... or -m SPEC... with a test set (AutoRank), or --genmt, --human or "
                        "--mtme (human clusters)")
    if live:
        if opts.mtme and not (opts.testset and lps):
            raise SpecError(f"--mtme {opts.mtme}: name the test set with -t and the language pair with -l")
        results, found = rank_live.rank_live(opts, lps)
        return write_ranks(opts, results, out, human_clusters.beside_autorank(opts, results, found))
    stored = None
    if opts.scores:
        with stored_cli.worded():
            stored = read_stored(opts.scores, lp=lps[0] if len(lps) == 1 else None, directions=opts.direction)
        if "" in stored.pairs and len(lps) > 1:  # "": the pair of a TSV read without one
            raise InputError(f"{', '.join(opts.scores)}: a TSV names no language pair; rank one with -l LP")
    if human_clusters.requested(opts):
        if opts.paired_bs:
            raise SpecError("--paired-bs clusters AutoRank; the human clusters are drawn by the organisers' tests "
                            "(--rule)")
        return human_clusters.run(opts, lps, stored, stored.source if stored else "", out)
    assert stored is not None
    return write_ranks(opts, rank(stored, lps, opts.stored, opts.preset, opts if opts.paired_bs else None), out)


def write_ranks(opts: Options, results: list[AutoRank], out: TextIO,
                humans: Sequence[tuple[HumanRanking, list[ClusterAgreement]] | None] = ()) -> int:
    """Each AutoRank; where ``humans`` gives one (``rank -m`` on --genmt or --mtme data), the human clusters of
    its language pair and each metric's agreement with them after it (JSON: its ``human_clusters``)."""
    beside = list(humans) or [None] * len(results)

    def data(r: AutoRank, h: tuple[HumanRanking, list[ClusterAgreement]] | None) -> dict[str, Any]:
        d = r.to_dict()
        if h is not None:
            d["human_clusters"] = {"ranking": h[0].to_dict(), "agreement": [a.to_dict() for a in h[1]]}
        return d

    def text(r: AutoRank, h: tuple[HumanRanking, list[ClusterAgreement]] | None) -> str:
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
