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
from typing import TYPE_CHECKING, Any, Sequence

from ..judging import human_format
from ..values.errors import UserError
from .conflicts import NEEDS, WITH, Conflicts, Option, Source, replaced_by
from .inputs import once_each
from .options import Options, flag_of

if TYPE_CHECKING:
    from ..judging import ErrorFree

__all__ = ["GENMT", "check_args", "judging", "check_reference_free", "with_detections"]

#: --genmt: the usual input's files it replaces, the options that mean nothing with its human scores, those that
#: only mean something with it.
GENMT = Source("genmt", replaced_by("--genmt", "the sources, outputs, references, documents and human scores",
                                    ("mtme", "human")),
               Conflicts("--genmt FILE", NEEDS, (Option("domains"), Option("error_free"))),
               Conflicts("--genmt", WITH, (
                   Option("human_column", "--human-column", "its human scores are the ESA score of each item (field "
                                                            "scores); drop it"),
                   Option("human_lower_better", "--human-lower-better", "its human scores are ESA scores, higher is "
                                                                        "better; drop it"),
                   Option("ci", "--ci", "the meta-evaluation prints correlations, not system scores; drop --ci (or "
                                        "run a paired test: --paired-bs)"))))


def check_args(opts: Options) -> None:
    """The option combinations, before anything is read."""
    if not GENMT.check(opts):
        return
    if opts.error_free not in (None, "auto"):
        try:
            value = float(opts.error_free)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise UserError(f"--error-free {opts.error_free!r}: give a score threshold (a number), or no value to "
                            "choose it on the data")
    _check_ref(opts)


def _check_ref(opts: Options) -> None:
    """--ref with --genmt: only the file's one reference (refA), as WMT25's scripts read it."""
    names = getattr(opts, "ref", None)
    if not names:
        return
    (REFERENCE,) = human_format("genmt").choices["reference"]
    names = once_each(names, f"--ref {','.join(names)}", paths=False)  # as -i, -r and --mtme's --ref
    why = (f"a GenMT file carries one reference per segment, {REFERENCE} (tgt_text.{REFERENCE}, or "
           f"refs.{REFERENCE}.ref in document lines, the only one WMT25's scripts read)")
    if len(names) > 1:
        raise UserError(f"--ref {','.join(names)}: --genmt takes one reference: {why}; for several references "
                        "score plain files (-r ref1.txt ref2.txt) or MTME data (--mtme ROOT --ref refA,refB)")
    if names[0] != REFERENCE:
        raise UserError(f"--ref {names[0]}: no such reference in {opts.genmt} (references: {REFERENCE}): {why}")


def judging(opts: Options, data: Any) -> Options:
    """The options that meta-evaluate the data's human scores like ``--human FILE --seg-level``; where it has
    none, an option that judges against them is refused."""
    if data.human is None:
        judging = [flag_of(opts, attr) for attr in ("error_free", "doc_level", "pdp", "seg_level", "no_human_systems")
                   if getattr(opts, attr, None)]
        if judging:
            raise UserError(f"{judging[0]}: {opts.genmt} has no human scores for {data.lp} (field scores); "
                            "give the humeval file (segment lines with scores), or score without it")
        return opts
    return dataclasses.replace(opts, human=opts.genmt, seg_level=True)


def check_reference_free(metrics: Sequence[Any], specs: Sequence[str]) -> None:
    """--include-human with --genmt scores the reference as a system: only metrics that do not score
    against it can judge it."""
    from ..judging import uses_reference

    (REFERENCE,) = human_format("genmt").choices["reference"]
    based = [spec for spec, m in zip(specs, metrics) if uses_reference(m)]
    if based:
        raise UserError(f"--include-human scores the reference {REFERENCE} as a system, and {', '.join(based)} "
                        f"score{'s' if len(based) == 1 else ''} against {REFERENCE}: it would judge the reference "
                        "by itself; use reference-free metrics (e.g. cometkiwi, slide with a QE model) or drop "
                        "--include-human")


def with_detections(metaeval: list[dict[str, Any]], found: Sequence[ErrorFree]) -> list[dict[str, Any]]:
    """``--error-free -f json``: the meta-evaluation's list (the shape of ``-f json`` without it), each metric's
    object with its detection under ``error_free`` (:meth:`ErrorFree.to_dict`, by spec)."""
    by_spec = {f.spec: f.to_dict() for f in found}
    return [dict(m, error_free=by_spec[m["spec"]]) if m.get("spec") in by_spec else m for m in metaeval]
