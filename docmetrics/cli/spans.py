"""``docmetrics --genmt FILE --spans PRED.jsonl`` (and ``--human RAW_MQM.tsv --spans ...``): error-span
predictions judged against the human spans (WMT25 metrics subtask 2, WMT26 subtask 1), character-level
precision, recall and F1 as WMT25's ``scoring_esa.py`` computes them; the work is
:func:`docmetrics.evaluation.spans.judge`, the table is here."""

from __future__ import annotations

import argparse
import json

from ..algorithms.spans import PARTIAL_CREDIT
from ..evaluation.spans import SpanGold, SpanJudgement, genmt_gold, judge, mqm_gold
from ..values.errors import UserError
from .format import num, table

__all__ = ["add_arguments", "requested", "run", "format_text"]

#: Options of a metric run, which --spans (predictions read from files) does not take.
_NOT_WITH = (("metrics", "-m"), ("input", "-i"), ("mtme", "--mtme"), ("error_free", "--error-free"),
             ("paired_bs", "--paired-bs"), ("paired_ar", "--paired-ar"))


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("error spans (WMT25 metrics subtask 2, WMT26 subtask 1)")
    g.add_argument("--spans", nargs="+", metavar="JSONL",
                   help="judge span predictions (one JSON line per system and segment: system, the segment's key "
                        "as the human file names it, errors [{start_i, end_i, severity}]) against the human "
                        "spans of --genmt FILE (with -l) or of a raw MQM --human file: character-level "
                        "precision, recall and F1, half credit for a wrong severity, as WMT25 scores them; "
                        "one predictor per file")


def requested(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "spans", None))


def _gold(args: argparse.Namespace) -> SpanGold:
    if getattr(args, "genmt", None):
        from .genmt import read_pair

        _, pair = read_pair(args)
        return genmt_gold(pair.select(args.domains), tuple(pair.domains))
    if getattr(args, "human", None):
        from ..evaluation.mqm import is_mqm_header, read_mqm
        from ..values.io import read_lines

        lines = read_lines(args.human)
        if not lines or not is_mqm_header([h.strip() for h in lines[0].split("\t")]):
            raise UserError(f"--spans with --human {args.human}: the file has no error spans; give a raw MQM file "
                            "(one line per error, spans marked <v>...</v>) or --genmt FILE")
        return mqm_gold(read_mqm(args.human, lines))
    raise UserError("--spans needs the human spans: --genmt FILE (-l LP) or --human RAW_MQM.tsv")


def run(args: argparse.Namespace) -> str:
    """The span judgement of every ``--spans`` file, as text or JSON (``-f json``)."""
    for attr, flag in _NOT_WITH:
        if getattr(args, attr, None):
            raise UserError(f"--spans judges span predictions read from files, not metric scores: drop {flag} "
                            "(meta-evaluate metrics in a run of their own)")
    twice = [p for p in dict.fromkeys(args.spans) if args.spans.count(p) > 1]
    if twice:
        raise UserError(f"--spans {twice[0]} given twice; give each predictor once")
    gold = _gold(args)
    found = [judge(path, gold) for path in args.spans]
    if args.format == "json":
        return json.dumps({"gold": gold.text, "partial_credit": PARTIAL_CREDIT, "notes": gold.notes,
                           "predictors": [j.to_dict() for j in found]}, indent=1, ensure_ascii=False) + "\n"
    return format_text(found, gold, getattr(args, "width", None) or 4)


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
