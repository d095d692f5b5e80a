"""Cluster rules as a registry: how a campaign splits systems ranked by their human scores into clusters of
systems it cannot tell apart.  Each rule is a frozen :class:`ClusterRule` (its name, its definition in one
line, the function that ranks); docmetrics defines ``wmt25``, ``wmt25-adjacent``, ``wmt24`` and ``wmt26``
(:mod:`docmetrics.judging.clusters`, each read from the organisers' script), and a third party adds
one under the entry-point group ``docmetrics.cluster_rules`` (``my-rule = my_pkg.rules:RULE``).  Nothing here
prints."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..formats.judgements import from_rows, judged, judged_items
from ..values.errors import InputError, PluginError, SpecError
from . import clusters as hc
from .params import one_name

if TYPE_CHECKING:
    from ..formats.human_tsv import HumanScores
    from .clusters import ClusterAgreement, HumanRanking

__all__ = ["ClusterRule", "BUILTIN", "cluster_rules", "names", "human_clusters", "cluster_agreement", "report_ranking",
           "REPORT_RULE"]


@dataclass(frozen=True)
class ClusterRule:
    """One way of drawing human clusters: ``rank(human)`` (a
    :class:`~docmetrics.formats.human_tsv.HumanScores` with segment scores of at least two systems: ``systems``,
    ``lp``, ``source``, each system's ``segments`` and, where the data has several per segment, their
    ``annotations``) returns the
    :class:`~docmetrics.judging.clusters.HumanRanking` (systems best first, each with its cluster,
    and the tests that placed them); ``definition`` says what the rule does, in one line."""

    name: str
    definition: str
    rank: Callable[[HumanScores], HumanRanking]


#: The rules docmetrics defines, in the order ``rank --rule`` lists them.
BUILTIN: tuple[ClusterRule, ...] = tuple(
    ClusterRule(name, definition, lambda data, rank=hc.RANKERS[name]: rank(judged_items(data)))
    for name, definition in hc.RULES.items())


def _plugins() -> list[ClusterRule]:
    from ..plugin import registry

    taken = {r.name for r in BUILTIN}
    out = []
    for name in registry.names("cluster_rule"):
        rule = registry.load("cluster_rule", name)
        if rule.name in taken:
            raise PluginError(f"cluster rule {name!r} (a plugin): its name {rule.name!r} is taken; a plugin rule "
                              "takes a name of its own")
        taken.add(rule.name)
        out.append(rule)
    return out


def cluster_rules(*, plugins: bool = True) -> list[ClusterRule]:
    """Every cluster rule: docmetrics' own (``plugins=False``: those alone), then the plugins' (read from installed
    metadata now), each with its name and its definition in one line."""
    return list(BUILTIN) + (_plugins() if plugins else [])


def names(*, plugins: bool = True) -> list[str]:
    """The rules' names, the plugins' read from metadata (no plugin is imported, so a broken one is listed
    and fails only when used)."""
    from ..plugin import registry

    builtin = [r.name for r in BUILTIN]
    return builtin + ([n for n in registry.names("cluster_rule") if n not in builtin] if plugins else [])


def _judgements(human: Any, lp: str | None) -> HumanScores:
    """Segment-level human scores from whatever holds them: an EvalSet, HumanScores or a mapping system ->
    scores per item."""
    from ..formats.base import EvalSet
    from ..formats.human_tsv import HumanScores

    if isinstance(human, EvalSet):
        return human.judgements
    if isinstance(human, HumanScores):
        return replace(human, lp=lp) if lp is not None and lp != human.lp else human
    if isinstance(human, Mapping):
        return from_rows(human, lp=lp)
    raise TypeError(f"human_clusters: give what read_human returns (or HumanScores, or a mapping system -> "
                    f"scores per item), not {type(human).__name__}")


def human_clusters(human: Any, rule: str = "wmt25", *, lp: str | None = None) -> HumanRanking:
    """Systems ranked by their human scores and split into clusters as the campaign's ``rule`` draws them.

    ``human``: what :func:`~docmetrics.judging.formats.read_human` returns (its segment-level judgements), or
    :class:`~docmetrics.formats.human_tsv.HumanScores` with segment scores, or ``{system: [score or None or (wave
    scores) per item]}``.  The result's ``clusters()`` are lists of system names, best first; ``systems`` each
    system's score, cluster and rank range; ``tests`` every test made, with its p-value; ``to_dict()`` the
    JSON ``docmetrics rank --rule RULE -f json`` prints as ``ranking``.

    >>> ranking = human_clusters(read_human("wmt24-esa.jsonl", lp="en-cs"), rule="wmt25")   # doctest: +SKIP
    >>> ranking.clusters()[0]                                                                 # doctest: +SKIP
    """
    if not isinstance(rule, str):
        raise SpecError(f"human_clusters: rule= takes one rule's name (a str: {', '.join(names())}), not "
                        f"{type(rule).__name__} {rule!r:.60}", params=("rule",))
    data = _judgements(human, one_name(lp, "lp", "human_clusters"))
    found = cluster_rules()
    chosen = next((r for r in found if r.name == rule), None)
    if chosen is None:
        raise SpecError(f"unknown cluster rule {rule!r}; one of {', '.join(r.name for r in found)}", params=("rule",))
    ranking = chosen.rank(judged(data))  # its definition recorded in it, whatever the rule wrote there
    if ranking.rule != chosen.name or ranking.definition != chosen.definition:
        ranking = replace(ranking, rule=chosen.name, definition=chosen.definition)
    return ranking


def cluster_agreement(ranking: HumanRanking, scores: Any, *, higher_is_better: Mapping[str, bool] | None = None
                      ) -> list[ClusterAgreement]:
    """How each metric orders the systems the humans put in different clusters (``ranking``, what
    :func:`human_clusters` gives): per metric, of the system pairs in different clusters that it scores, those it
    scores strictly better for the better cluster (``agree``), the same (``ties``) and worse (``disagree``), and
    ``share = agree / pairs``; systems it has no score of are left out and named (``left_out``).  Each metric's
    own system scores are read, in its own direction.

    ``scores``: an :class:`~docmetrics.judging.ranking.AutoRank` (every metric it ranked; what
    :func:`~docmetrics.judging.tools.autorank` gives), an EvalSet of stored scores or its ``stored`` mapping
    (every stored metric: the mean over its scored segments), or ``{metric: {system: score or None}}`` with
    ``higher_is_better`` (``{metric: bool}``, default higher).  ``to_dict()`` of each is a row of the
    ``agreement`` list ``docmetrics rank ... -f json`` prints.

    >>> [a.share for a in cluster_agreement(human_clusters(data), autorank(results))]   # doctest: +SKIP
    """
    from ..formats.base import EvalSet
    from .ranking import AutoRank

    def each(name: str, by_system: Mapping[str, float | None], higher: bool, info: Mapping[str, Any]
             ) -> ClusterAgreement:
        sign = 1.0 if higher else -1.0
        cluster = ranking.cluster_of()
        known = [s for s in cluster if by_system.get(s) is not None]
        counts = [0, 0, 0]  # agree, ties, disagree
        for i, a in enumerate(known):
            for b in known[i + 1:]:
                if cluster[a] != cluster[b]:
                    hi, lo = (a, b) if cluster[a] < cluster[b] else (b, a)
                    x, y = sign * float(by_system[hi]), sign * float(by_system[lo])  # type: ignore[arg-type]
                    counts[0 if x > y else 1 if x == y else 2] += 1
        return hc.ClusterAgreement(name, sum(counts), *counts, [s for s in cluster if s not in known], higher,
                                   dict(info))

    if not isinstance(ranking, hc.HumanRanking):
        raise TypeError(f"cluster_agreement: ranking= takes what human_clusters returns, not {type(ranking).__name__}")
    if isinstance(scores, EvalSet):
        if not scores.stored:
            raise InputError(f"{scores.source}: no stored scores to compare with the human clusters (a "
                             f"{scores.format} file)")
        scores = scores.stored
    if isinstance(scores, AutoRank):
        return [each(m, {r.system: r.scores.get(m) for r in scores.systems}, scores.higher_is_better[m],
                     {k: v for k, v in scores.metric_info.get(m, {}).items() if k in ("signature", "direction")})
                for m in scores.metrics]
    if not isinstance(scores, Mapping):
        raise TypeError(f"cluster_agreement: scores= takes an AutoRank, an EvalSet of stored scores or {{metric: "
                        f"{{system: score}}}}, not {type(scores).__name__}")
    out = []
    for name, value in scores.items():
        if hasattr(value, "system_scores"):  # a StoredMetric
            out.append(each(name, value.system_scores(), value.higher_is_better,
                            {"signature": value.signature().format(), "direction": value.direction}))
        elif isinstance(value, Mapping):
            out.append(each(name, value, True if higher_is_better is None else bool(higher_is_better.get(name, True)),
                            {}))
        else:
            raise TypeError(f"cluster_agreement: metric {name!r}: a {type(value).__name__}; give {{system: score}}")
    return out


#: The rule that draws the human clusters of the report's overview (WMT25's findings tables).
REPORT_RULE = "wmt25"


def report_ranking(segments: Mapping[str, Any], *, lower_is_better: bool = False,
                   rule: str = REPORT_RULE) -> dict[str, Any] | None:
    """The human ranking the report's overview shows: ``segments`` (``{system: [score or None per line]}``, the
    page's human segment scores) best first, each with its mean and its cluster by ``rule``
    (:func:`human_clusters`): ``{"rule", "definition", "note", "systems": [{"system", "score", "cluster"}]}``.
    Clusters are null, with a note saying why, where lower scores are better (the rules test higher-is-better
    scores) or the rule cannot run on the scores; None without two systems' scores."""
    import math

    from ..values.errors import UserError

    if len(segments) < 2:
        return None
    if not lower_is_better:
        try:
            ranking = human_clusters(dict(segments), rule).to_dict()
        except (UserError, ValueError, ArithmeticError) as exc:
            note = f"no clusters: {exc}"
        else:
            return {"rule": ranking["rule"], "definition": ranking["definition"], "note": None,
                    "systems": [{"system": s["system"], "score": s["score"], "cluster": s["cluster"]}
                                for s in ranking["systems"]]}
    else:
        note = "no clusters: lower human scores are better here, and the clustering rules test higher-is-better scores"
    values = {name: [v for v in row if isinstance(v, (int, float)) and math.isfinite(v)]
              for name, row in segments.items()}
    means = {name: sum(v) / len(v) for name, v in values.items() if v}
    ordered = sorted(means, key=means.__getitem__, reverse=not lower_is_better)
    return {"rule": None, "definition": None, "note": note,
            "systems": [{"system": n, "score": means[n], "cluster": None} for n in ordered]}
