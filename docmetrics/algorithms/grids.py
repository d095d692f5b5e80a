"""Parameter grids for sweeps: ``--grid w=1..10 s=1..w partial=drop,keep`` as pure functions.

A range's ends may name a parameter given before it (``s=1..w``), so the grid is triangular where
that makes sense (SLIDE's s <= w).  :func:`point_spec` writes a grid point into a metric spec.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ..values.errors import SpecError
from ..values.spec import MetricSpec, parse_spec

__all__ = ["Axis", "parse_grid", "expand_grid", "point_spec"]

_RANGE = re.compile(r"^\s*([A-Za-z_][\w\-]*|-?\d+)\s*\.\.\s*([A-Za-z_][\w\-]*|-?\d+)\s*$")


@dataclass
class Axis:
    """One grid parameter: a name and either a list of values or a range whose ends may refer to
    earlier parameters."""

    name: str
    values: list[str] | None = None
    lo: str | None = None
    hi: str | None = None

    def expand(self, point: dict[str, str]) -> list[str]:
        if self.values is not None:
            return list(self.values)
        lo, hi = self._end(self.lo, point), self._end(self.hi, point)
        return [str(v) for v in range(lo, hi + 1)]

    def _end(self, text: str | None, point: dict[str, str]) -> int:
        assert text is not None
        if re.fullmatch(r"-?\d+", text):
            return int(text)
        if text not in point:
            raise SpecError(
                f"--grid {self.name}={self.lo}..{self.hi}: '{text}' is not a parameter given "
                "before it in --grid (write e.g. --grid w=1..10 s=1..w)"
            )
        value = point[text]
        if not re.fullmatch(r"-?\d+", value):
            raise SpecError(f"--grid {self.name}: '{text}' has the value {value!r}, not an integer")
        return int(value)


def parse_grid(items: Sequence[str]) -> list[Axis]:
    """``["w=1..10", "s=1..w", "partial=drop,keep"]`` -> axes."""
    axes: list[Axis] = []
    for item in items:
        if "=" not in item:
            raise SpecError(f"--grid {item!r}: write KEY=A..B or KEY=v1,v2,... (e.g. w=1..10 s=1..w)")
        name, _, text = item.partition("=")
        name = name.strip()
        if not name or any(a.name == name for a in axes):
            raise SpecError(
                f"--grid {item!r}: " + ("no parameter name" if not name else f"'{name}' is given twice")
            )
        m = _RANGE.match(text)
        if m:
            lo, hi = m.group(1), m.group(2)
            if re.fullmatch(r"-?\d+", lo) and re.fullmatch(r"-?\d+", hi) and int(lo) > int(hi):
                raise SpecError(f"--grid {item!r}: the range runs down from {lo} to {hi} and holds no value; "
                                f"write {name}={hi}..{lo} (both ends are included)")
            axes.append(Axis(name, lo=lo, hi=hi))
        else:
            values = [v.strip() for v in text.split(",")]
            if not all(values):
                raise SpecError(f"--grid {item!r}: an empty value")
            axes.append(Axis(name, values=values))
    if not axes:
        raise SpecError("--grid: give at least one KEY=VALUES")
    return axes


def expand_grid(axes: Sequence[Axis]) -> list[dict[str, str]]:
    """Every point of the grid, the first axis outermost."""
    points: list[dict[str, str]] = [{}]
    for axis in axes:
        points = [dict(p, **{axis.name: v}) for p in points for v in axis.expand(p)]
        if not points:
            ends = f"{axis.lo}..{axis.hi}" if axis.values is None else ",".join(axis.values or ())
            raise SpecError(f"--grid {axis.name}={ends}: the range is empty at every point of the axes before it "
                            "(its low end is above its high end); the grid has no point")
    return points


def point_spec(base: str, point: dict[str, str]) -> str:
    """The base spec with the point's parameters (they override the base's)."""
    if "|" in base:
        raise SpecError("sweep -m: give a spec (NAME:key=value,...) or a preset, not a signature")
    spec = parse_spec(base)
    return MetricSpec(spec.name, {**spec.params, **point}).format()
