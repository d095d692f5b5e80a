"""What the metaeval slice's cuts of issue 46 keep true: a statistic read by any alias (an opt-in one's too), the
one SPA item filter (stats.pce.common_items) and the plots drawn from the library (docmetrics.judging.plots)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from docmetrics.judging.metaeval_metric import MetaEval
from docmetrics.stats.base import StatsError
from docmetrics.stats.pce import common_items
from docmetrics.values.errors import InputError


def test_a_statistic_is_read_by_any_of_its_aliases_an_opt_in_ones_too():
    e = MetaEval("m", "m", "", ["a", "b"], [1.0, 2.0], [1.0, 2.0],
                 values={"kendall_c": 0.5, "seg_acc_eq": 0.75, "accuracy": 1.0}, notes={"spa": "why"})
    assert e.get("kendall_c") == e.get("tau_c") == 0.5  # tau_c: an alias of the opt-in kendall_c
    assert e.get("acc_eq") == 0.75 and e.get("accuracy_mtme") == 1.0
    assert e.get("seg_kendall_23") is None and e.get("pearson") is None  # not computed here
    assert e.note("spa") == "why" and e.note("tau_23") is None
    with pytest.raises(InputError, match="unknown statistic 'nope'"):
        e.get("nope")


def test_common_items_keeps_each_sides_items_or_those_every_side_scores():
    nan = math.nan
    human = np.array([[1.0, nan, 3.0, 4.0], [2.0, 2.0, nan, 5.0]])
    metric = np.array([[1.0, 2.0, 3.0, nan], [1.0, 2.0, 3.0, nan]])
    own_h, own_m = common_items(human, metric, same_items=False)
    assert own_h.tolist() == [[1.0, 4.0], [2.0, 5.0]] and own_m.tolist() == [[1.0, 2.0, 3.0]] * 2
    h, a, b = common_items(human, metric, metric + 1, same_items=True)  # segments: those all three score
    assert h.tolist() == [[1.0], [2.0]] and a.tolist() == [[1.0], [1.0]] and b.tolist() == [[2.0], [2.0]]
    with pytest.raises(StatsError, match="no item is scored for every system"):
        common_items(human[:, 1:3], metric[:, 1:3], same_items=True)


def test_the_heatmap_is_drawn_by_the_library_from_a_sweep(tmp_path):
    pytest.importorskip("matplotlib")
    from types import SimpleNamespace

    from docmetrics.algorithms.grids import parse_grid
    from docmetrics.judging import Point, Sweep, plot_heatmap

    points = []
    for w, value in (("1", 0.5), ("2", None), ("3", 0.7)):
        pt = Point({"w": w}, f"slide:w={w}")
        pt.metaeval = SimpleNamespace(get=lambda stat, v=value: v)
        points.append(pt)
    done = Sweep("slide", ["w=1..3"], "accuracy", parse_grid(["w=1..3"]), points)
    rows, cols, values = done.heatmap()  # one grid parameter: one column, the statistic's
    assert (rows, cols) == (["1", "2", "3"], ["accuracy"])
    assert values[0] == [0.5] and math.isnan(values[1][0]) and values[2] == [0.7]
    fig = plot_heatmap(done, str(tmp_path / "h.png"), title="slide: accuracy")
    assert (tmp_path / "h.png").is_file() and fig.axes[0].get_title() == "slide: accuracy"
