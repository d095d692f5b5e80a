"""How every table, note and JSON layout names the metrics of one run: ``LABEL [k]``, the label the name the
user typed (the metric, the preset or ``NAME@DIST``; a signature by its metric's name), the whole spec where
two specs would share a label, and ``k`` the metric's place from 1.  Meta-evaluation keys its metrics by
these names, so the library and the command line name them alike."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

__all__ = ["metric_labels", "column", "row_labels", "namer"]


def metric_labels(specs: Sequence[str], names: Sequence[str] | None = None) -> list[str]:
    """How every table, note and plot names each ``-m`` spec: its name as the user typed it (the
    metric, the preset, or ``NAME@DIST``; a signature by its metric's name, given in ``names``), and
    the whole spec where two specs would share a label.  The ``[k]`` after it points to the spec's
    signature under the table."""
    short = []
    for k, spec in enumerate(specs):
        if "|" in spec:
            short.append(names[k] if names is not None else spec.split("|", 1)[0])
        else:
            short.append(spec.split(":", 1)[0])
    return [label if short.count(label) == 1 else spec for label, spec in zip(short, specs)]


def column(label: str, k: int) -> str:
    """The header of a metric's column or row, in every table: ``LABEL [k]`` (``k`` from 1)."""
    return f"{label} [{k}]"


def row_labels(specs: Sequence[str], names: Sequence[str] | None = None) -> list[str]:
    """``LABEL [k]`` of each metric, as every table names it (:func:`metric_labels`, :func:`column`)."""
    return [column(label, k + 1) for k, label in enumerate(metric_labels(specs, names))]


def namer(labels: Mapping[str, int]) -> Callable[[str], str]:
    """spec -> ``LABEL [k]`` for specs numbered by ``labels`` (spec -> k), as the command line's columns name them;
    a spec not in ``labels`` is ``spec [?]``."""
    ordered = sorted(labels, key=labels.__getitem__)
    known = {spec: column(label, labels[spec]) for spec, label in zip(ordered, metric_labels(ordered))}
    return lambda spec: known.get(spec, f"{spec} [?]")
