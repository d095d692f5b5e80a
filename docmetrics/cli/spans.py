"""``docmetrics --genmt FILE --spans PRED.jsonl`` (and ``--human RAW_MQM.tsv --spans ...``): error-span
predictions judged against the human spans (WMT25 metrics subtask 2, WMT26 subtask 1), character-level
precision, recall and F1 as WMT25's ``scoring_esa.py`` computes them; the work is
:func:`docmetrics.evaluation.spans.judge`, the table is here.  ``--genmt FILE -m xcomet --spans`` judges a
metric's own spans (each -m one predictor, beside any files): the metric scores the pair's systems and its
spans per segment are the predictions (:func:`docmetrics.evaluation.spans.metric_predictions`)."""

from __future__ import annotations

import argparse
from typing import Any

from ..algorithms.spans import PARTIAL_CREDIT
from ..evaluation.spans import SpanGold, SpanJudgement, genmt_gold, judge, judge_predicted, metric_predictions, mqm_gold
from ..values.errors import UserError
from .format import num, table
from .output import Output

__all__ = ["add_arguments", "requested", "run", "format_text"]

#: Options of a metric run, which --spans does not take.
_NOT_WITH = (("input", "-i"), ("mtme", "--mtme"), ("error_free", "--error-free"),
             ("paired_bs", "--paired-bs"), ("paired_ar", "--paired-ar"), ("scores", "--scores"))
#: Why a metric has no prediction for an item: it scored no unit covering the segment.
UNSCORED = "items the metric scored no unit of (e.g. SLIDE's partial=drop)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("error spans (WMT25 metrics subtask 2, WMT26 subtask 1)")
    g.add_argument("--spans", nargs="*", metavar="JSONL",
                   help="judge span predictions (one JSON line per system and segment: system, the segment's key "
                        "as the human file names it, errors [{start_i, end_i, severity}]) against the human "
                        "spans of --genmt FILE (with -l) or of a raw MQM --human file: character-level "
                        "precision, recall and F1, half credit for a wrong severity, as WMT25 scores them; "
                        "one predictor per file, and with --genmt one per -m metric that gives error spans "
                        "(--genmt FILE -m xcomet --spans: XCOMET's own spans)")


def requested(args: argparse.Namespace) -> bool:
    return getattr(args, "spans", None) is not None


def _gold(args: argparse.Namespace) -> SpanGold:
    if getattr(args, "genmt", None):
        from .genmt import read_pair

        _, pair = read_pair(args)
        return genmt_gold(pair.select(args.domains), tuple(pair.domains))
    if getattr(args, "human", None):
        from ..values.io import read_lines
        from ..values.mqm_tsv import is_mqm_header, read_mqm

        lines = read_lines(args.human)
        if not lines or not is_mqm_header([h.strip() for h in lines[0].split("\t")]):
            raise UserError(f"--spans with --human {args.human}: the file has no error spans; give a raw MQM file "
                            "(one line per error, spans marked <v>...</v>) or --genmt FILE")
        return mqm_gold(read_mqm(args.human, lines))
    raise UserError("--spans needs the human spans: --genmt FILE (-l LP) or --human RAW_MQM.tsv")


def run(args: argparse.Namespace) -> Output:
    """The span judgement of every ``--spans`` file and every ``-m`` metric, as text or JSON (``-f json``)."""
    for attr, flag in _NOT_WITH:
        if getattr(args, attr, None):
            raise UserError(f"--spans judges error spans (from files, or a metric's own with --genmt), not metric "
                            f"scores: drop {flag} (meta-evaluate metrics in a run of their own)")
    metrics = list(getattr(args, "metrics", None) or [])
    if not args.spans and not metrics:
        raise UserError("--spans: give the span predictions (JSONL files), or with --genmt FILE the metrics whose "
                        "own error spans to judge (-m xcomet)")
    if metrics and not getattr(args, "genmt", None):
        raise UserError("--spans with -m judges a metric's own error spans against a GenMT file's: give --genmt FILE "
                        "(-l LP); for other human spans write the metric's spans to a JSONL file for --spans")
    for what, given in (("--spans", args.spans), ("-m", metrics)):
        twice = [p for p in dict.fromkeys(given) if given.count(p) > 1]
        if twice:
            raise UserError(f"{what} {twice[0]} given twice; give each predictor once")
    if metrics:
        from .specs import check_specs

        check_specs(metrics)
    gold, pair = _gold_and_pair(args)
    found = [judge(path, gold) for path in args.spans]  # files first: their mistakes before any model loads
    if metrics:
        found += _metrics_judged(args, metrics, gold, pair)
    return Output(data=lambda: {"gold": gold.text, "partial_credit": PARTIAL_CREDIT, "notes": gold.notes,
                                "predictors": [j.to_dict() for j in found]},
                  text=lambda: format_text(found, gold, getattr(args, "width", None) or 4))


def _gold_and_pair(args: argparse.Namespace) -> tuple[SpanGold, Any]:
    """The human spans, and with --genmt the language pair they are of (domains selected)."""
    if getattr(args, "genmt", None):
        from .genmt import read_pair

        _, full = read_pair(args)
        pair = full.select(args.domains)
        return genmt_gold(pair, tuple(full.domains)), pair
    return _gold(args), None


def _metrics_judged(args: argparse.Namespace, specs: list[str], gold: SpanGold, pair: Any) -> list[SpanJudgement]:
    """Each metric scores the GenMT pair's systems (with its reference where the file has one) and its
    spans per segment are judged as one predictor, named by its -m spec."""
    from .. import api
    from .args import session_scope
    from .errors import note

    keys = [(gold.positions[(seg.doc_id, seg.position)],) for seg in pair.segments]
    testset = pair.testset(reference=pair.reference is not None)
    out = []
    with session_scope(args, cache=args.cache) as session:
        for spec in specs:
            metric = api.load(spec, defaults={"lang": pair.name}, session=session)
            results = metric.compute(testset)
            predicted = metric_predictions(results, gold, keys, spec)
            judged = judge_predicted(spec, predicted, gold, unpredicted=UNSCORED)
            if results:
                judged.signature = results[0].signature.format()
                note(args, f"{spec}: {judged.signature}")
            out.append(judged)
    return out


def format_text(found: list[SpanJudgement], gold: SpanGold, width: int = 4) -> str:
    rows: list[list[str]] = []
    for j in found:
        for k, (system, c) in enumerate([("all", j.overall), *j.systems.items()]):
            s = c.scores()
            rows.append([j.predictor if k == 0 else "", system, str(c.items), num(s.precision, width),
                         num(s.recall, width), num(s.f1, width), str(c.gold), str(c.pred)])
    out = [f"Error spans (WMT25 subtask 2): {gold.text}\n",
           table(["Predictor", "System", "items", "precision", "recall", "F1", "gold chars", "pred chars"], rows),
           "\n"]
    for j in found:
        left = "; ".join(f"{why}: {n}" for why, n in j.left_out.items())
        out.append(f"{j.predictor}: {j.overall.items} items, {j.spans['gold']} gold and {j.spans['pred']} predicted "
                   f"spans compared; left out: {left or 'nothing'}.\n")
    out.extend(note + "\n" for note in gold.notes)
    out.append(f"Character-level, as WMT25's scoring_esa.py: a character counts once per span covering it; full "
               f"credit within a severity class (major = major or critical; minor), {PARTIAL_CREDIT:g} across "
               "classes; summed over the items (micro); precision 1 with nothing predicted, recall 1 with no gold "
               "error.  Omissions (no offsets) and undecided spans are left out, as the official scorer leaves them "
               "out.\n")
    return "".join(out)
