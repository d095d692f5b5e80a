"""The raw MQM TSV as a judged-data format (google/wmt-mqm-human-evaluation: one line per error, ``<v>`` spans):
its recogniser and its reader to an EvalSet.  The file itself is read by :mod:`docmetrics.formats.mqm_tsv`
(ratings, texts) and :mod:`docmetrics.formats.human_tsv` (the MQM penalties as human scores)."""

from __future__ import annotations

from typing import Any, Mapping

from ..values.errors import InputError, shown
from .base import EvalSet, HumanFormat, tsv_header
from .human_tsv import load_human
from .mqm_tsv import is_mqm_header, read_mqm


# -- the format ---------------------------------------------------------------------------------------------
def is_mqm(path: str) -> bool:
    """A TSV whose header is a raw MQM file's."""
    header = tsv_header(path)
    return bool(header) and is_mqm_header(header)


def read_evalset(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    """A raw MQM file: its test set (``reference``: the system that is the reference), the MQM penalties
    (negated) as human scores and judgements, and (through the registry) error spans."""
    ratings = read_mqm(path)
    human = load_human(path)
    reference = options.get("reference")
    if reference is not None and reference not in ratings.systems():
        raise InputError(f"{path}: rates no system {shown(reference)}; a reference is one of "
                         f"{', '.join(ratings.systems())}",
                         params=("reference",))
    return EvalSet(path, "mqm", lp, ratings.testset(reference), human,
                   notes=tuple(getattr(human, "warnings", ()) or ()), raw=ratings)


FORMAT = HumanFormat("mqm", "a raw MQM TSV (one line per error)", is_mqm, read_evalset, ("reference",),
                     "testset, human (MQM penalties, negated), judgements, spans", precedence=60)
