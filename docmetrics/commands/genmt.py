"""``docmetrics --genmt FILE``: score and meta-evaluate on the WMT25/26 General MT JSONL (long
multi-sentence segments with ESA human scores), and judge each metric as a detector of error-free segments
(WMT26 subtask 3) with ``--error-free``.

The file is a data source like ``--mtme``: no ``-i/-s/-r/--doc-ids``.  ``-l`` picks the language pair
(``en-ko_KR``, or ``en-ko``), ``--domains`` restricts it; the systems are every output but the reference
(``refA``, given to reference-based metrics where the file has it; ``--ref refA`` insists on it).  A
GenMT file carries one reference per segment, so ``--ref`` names no other and not several.  The human
scores are the segments' ESA scores, so the meta-evaluation is ``--human ... --seg-level`` on them
(system, segment and, with ``--doc-level``, document level).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

from ..algorithms.detection import Detection, detect, items
from ..formats.genmt import (
    REFERENCE,
    WMT26_ERROR_FREE_THRESHOLD,
    GenmtData,
    GenmtPair,
    judged_testset,
    read_genmt,
)
from ..formats.human_tsv import HumanScores
from ..values.errors import UserError
from ..values.result import Result
from ..values.testset import TestSet
from .conflicts import NEEDS, WITH, Conflicts, Option
from .format import columns, num, table
from .inputs import once_each
from .options import RunOptions

__all__ = ["requested", "check_args", "prepare", "detections", "detections_text"]

#: Options that name files of the usual input, which --genmt replaces.
INPUTS = Conflicts("--genmt", "--genmt reads the sources, outputs, references, documents and human scores from "
                   "{file}: drop {option}", tuple(Option(attr, flag) for attr, flag in (
                       ("input", "-i"), ("source", "-s"), ("references", "-r"), ("doc_ids", "--doc-ids"),
                       ("mtme", "--mtme"), ("human", "--human"), ("jsonl", "--jsonl"),
                       ("doc_per_line", "--doc-per-line"))))
#: Options of ``docmetrics`` that mean nothing with --genmt's human scores.
REFUSED = Conflicts("--genmt", WITH, (
    Option("human_column", "--human-column", "its human scores are the ESA score of each item (field scores); "
                                             "drop it"),
    Option("human_lower_better", "--human-lower-better", "its human scores are ESA scores, higher is better; drop it"),
    Option("ci", "--ci", "the meta-evaluation prints correlations, not system scores; drop --ci (or run a paired "
                         "test: --paired-bs)")))
#: Options that only mean something with --genmt.
GENMT_ONLY = Conflicts("--genmt FILE", NEEDS, (Option("domains", "--domains"), Option("error_free", "--error-free")))


def requested(opts: RunOptions) -> bool:
    return bool(getattr(opts, "genmt", None))


def check_args(opts: RunOptions) -> None:
    """The option combinations, before anything is read."""
    if not requested(opts):
        GENMT_ONLY.check(opts)
        return
    INPUTS.check(opts, file=opts.genmt)
    if opts.error_free not in (None, "auto"):
        try:
            value = float(opts.error_free)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise UserError(f"--error-free {opts.error_free!r}: give a score threshold (a number), or no value to "
                            "choose it on the data")
    _check_ref(opts)


def _check_ref(opts: RunOptions) -> None:
    """--ref with --genmt: only the file's one reference (refA), as WMT25's scripts read it."""
    names = getattr(opts, "ref", None)
    if not names:
        return
    names = once_each(names, f"--ref {','.join(names)}", paths=False)  # as -i, -r and --mtme's --ref
    why = (f"a GenMT file carries one reference per segment, {REFERENCE} (tgt_text.{REFERENCE}, or "
           f"refs.{REFERENCE}.ref in document lines, the only one WMT25's scripts read)")
    if len(names) > 1:
        raise UserError(f"--ref {','.join(names)}: --genmt takes one reference: {why}; for several references "
                        "score plain files (-r ref1.txt ref2.txt) or MTME data (--mtme ROOT --ref refA,refB)")
    if names[0] != REFERENCE:
        raise UserError(f"--ref {names[0]}: no such reference in {opts.genmt} (references: {REFERENCE}): {why}")


def read_pair(opts: RunOptions) -> tuple[GenmtData, GenmtPair]:
    """The file of ``--genmt`` and its language pair ``-l`` (the only one where it holds one), every
    domain."""
    data = read_genmt(opts.genmt)
    pairs = data.language_pairs()
    if not opts.lang:
        if len(pairs) != 1:
            raise UserError(f"--genmt {opts.genmt} holds {len(pairs)} language pairs ({', '.join(pairs)}): "
                            "pick one with -l")
        return data, data.pair(pairs[0])
    return data, data.pair(opts.lang)


def prepare(opts: RunOptions) -> tuple[GenmtPair, TestSet, HumanScores | None, list[str]]:
    """The language pair ``-l`` of ``--genmt`` (restricted to ``--domains``), its test set, its human
    scores and the notes to show (what the reader found odd; the reference judged as a system and left
    out), read and checked before any model loads.  With ``--include-human`` the reference (refA) is
    scored as a system, as WMT had it judged."""
    data, pair = read_pair(opts)
    pair = pair.select(opts.domains)
    include = bool(getattr(opts, "include_human", False))
    if include and REFERENCE not in pair.outputs:
        raise UserError(f"--include-human: {opts.genmt} has no reference ({REFERENCE}) for {pair.name} to score as "
                        "a system; drop --include-human")
    testset, human, notes = judged_testset(pair, opts.genmt, include_reference=include, option="--include-human",
                                           warnings=data.warnings,
                                           reference=bool(getattr(opts, "ref", None)) or pair.reference is not None)
    return pair, testset, human, notes


def check_reference_free(metrics: Sequence[Any], specs: Sequence[str]) -> None:
    """--include-human with --genmt scores the reference as a system: only metrics that do not score
    against it can judge it."""
    from ..judging import uses_reference

    based = [spec for spec, m in zip(specs, metrics) if uses_reference(m)]
    if based:
        raise UserError(f"--include-human scores the reference {REFERENCE} as a system, and {', '.join(based)} "
                        f"score{'s' if len(based) == 1 else ''} against {REFERENCE}: it would judge the reference "
                        "by itself; use reference-free metrics (e.g. cometkiwi, slide with a QE model) or drop "
                        "--include-human")


def detections(all_results: Sequence[tuple[str, list[Result]]], pair: GenmtPair,
               threshold: str | None) -> list[tuple[str, Detection | None, str]]:
    """Each metric as a detector of error-free segments: (spec, its detection or None, why none)."""
    gold = pair.error_free()
    out: list[tuple[str, Detection | None, str]] = []
    for spec, results in all_results:
        scores: dict[str, list[float | None]] = {}
        lower = not all(r.higher_is_better for r in results)  # detected on negated scores: higher better
        for r in results:
            if any(u.end - u.start != 1 for u in r.units):
                break
            row: list[float | None] = [None] * len(pair.segments)
            for u in r.oriented().units:
                row[u.start] = u.score
            scores[r.system] = row
        else:
            g, s = items(gold, scores)
            if not any(x is not None for x in g):
                out.append((spec, None, "no segment of these systems has a human judgement"))
                continue
            given = None if threshold in (None, "auto") else float(threshold) * (-1 if lower else 1)
            try:
                found = detect(g, s, given)
                if lower:  # the threshold in the metric's own units, predicting at or below it
                    found = dataclasses.replace(found, threshold=-found.threshold, at_or_below=True)
                out.append((spec, found, _why_no_gold(pair, scores) if not found.positives else ""))
            except ValueError as exc:  # no segment with both a gold flag and a score (e.g. every score NaN)
                out.append((spec, None, f"nothing to detect: {exc}"))
            continue
        out.append((spec, None, "its units span several segments: no score per segment (asd:unit=segment or "
                                "slide:w=1,s=1 give one)"))
    return out


def _why_no_gold(pair: GenmtPair, systems: Sequence[str]) -> str:
    """Why no item of ``systems`` is error-free in the gold, where the scores tell (all below 85)."""
    judged = [j.score for name in systems for j in pair.human.get(name, ()) if j is not None and j.score is not None]
    if judged and max(judged) < WMT26_ERROR_FREE_THRESHOLD:
        return (f"every human score is below {WMT26_ERROR_FREE_THRESHOLD:g} (the highest: {max(judged):g}), so the "
                f"gold rule ESA >= {WMT26_ERROR_FREE_THRESHOLD:g} never holds: are these ESA scores?")
    return ""


def detections_text(found: Sequence[tuple[str, Detection | None, str]], width: int) -> str:
    """The detection table (text), under a blank line, and how its items are judged."""
    rows = []
    named = columns([spec for spec, _, _ in found])
    for spec, d, why in found:
        if d is None:
            rows.append([named[spec], "-", "-", "-", "-", "-", "-", "-", why])
            continue
        cells = [num(v, width) if not math.isnan(v) else "undefined"
                 for v in (d.mcc, d.precision, d.recall, d.f1, d.average_precision)]
        at = f"<= {d.threshold:g}" if d.at_or_below else f"{d.threshold:g}"
        rows.append([named[spec], *cells, f"{at} ({d.chosen_by})", f"{d.positives}/{d.n}",
                     "; ".join(x for x in (d.undefined, why) if x)])
    return ("\nError-free translations (WMT26 subtask 3): (segment, system) items\n"
            + table(["Metric", "MCC", "precision", "recall", "F1", "AP", "threshold", "error-free items", "note"], rows)
            + "\nAn item is one system's translation of one segment.  Gold error-free: no error span (an omission "
              "counts, though it has no place) and ESA >= 85.  An item is predicted error-free when the metric's "
              "score is at or above the threshold (at or below, '<=', for a metric whose lower scores are better); "
              "a threshold chosen on these items (mcc) is an oracle operating "
              "point.  AP: average precision (area under the precision-recall curve).\n")


def detections_json(found: Sequence[tuple[str, Detection | None, str]]) -> list[dict[str, Any]]:
    return [{"spec": spec, **(d.to_dict() if d is not None else {}), **({"note": why} if why else {})}
            for spec, d, why in found]


def with_detections(metaeval: list[dict[str, Any]], found: Sequence[tuple[str, Detection | None, str]]
                    ) -> list[dict[str, Any]]:
    """``--error-free -f json``: the meta-evaluation's list (the shape of ``-f json`` without it), each metric's
    object with its detection under ``error_free`` (:func:`detections_json`'s object, by spec)."""
    by_spec = {d["spec"]: d for d in detections_json(found)}
    return [dict(m, error_free=by_spec[m["spec"]]) if m.get("spec") in by_spec else m for m in metaeval]
