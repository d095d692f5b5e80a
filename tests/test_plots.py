"""The figures of ``--plot``: ``docmetrics metaeval``'s bars name each metric as the user gave it, with
every value label beyond its bar's end and inside the panel; ``docmetrics sweep``'s heatmap explains its
grey cells and names the test set by the inputs the user passed. Built on the Agg backend and read back
from the figure objects (texts, ticks, legends, extents in data coordinates)."""

import argparse
from types import SimpleNamespace

import pytest
from plugin_fixtures import toy_dist  # noqa: F401
from test_mtme import build_tiny
from test_sweep import HUMAN, HYPS, IDS, SRC

from docmetrics.cli import main
from docmetrics.commands.sweep import typed_inputs
from docmetrics.judging import plots
from docmetrics.judging.plots import plot_main_statistics, wrap_label

pytest.importorskip("matplotlib")
pytestmark = pytest.mark.usefixtures("toy_dist")

QE = "slide:w=1,s=1,backbone=toy"
REF = "slide:w=1,s=1,backbone=toy,model=toy-ref"


def captured(monkeypatch, module):
    """The figures ``module`` saves, still open for reading."""
    figures = []
    real = module.save
    monkeypatch.setattr(module, "save", lambda fig, path, **kw: (figures.append(fig), real(fig, path, **kw)))
    return figures


def tick_names(ax):
    return [t.get_text().replace("\n", "") for t in ax.get_yticklabels()]


def renderer(fig):
    """A renderer of a saved (closed) figure: closing it took its Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    return FigureCanvasAgg(fig).get_renderer()


def data_extent(ax, artist):
    """(x0, x1) of an artist's drawn box in the data coordinates of ``ax``."""
    box = artist.get_window_extent(renderer(ax.figure)).transformed(ax.transData.inverted())
    return box.x0, box.x1


# -- metaeval bars --------------------------------------------------------------------------------------------
def test_wrap_label_breaks_long_specs_at_their_separators():
    assert wrap_label("doc-comet:k=0") == "doc-comet:k=0"
    long = "slide:model=/models/cometkiwi-da-xl,w=6,s=3,backbone=comet"
    lines = wrap_label(long, 24).split("\n")
    assert len(lines) > 1 and all(len(x) <= 24 for x in lines) and "".join(lines) == long
    assert lines[0] == "slide:model=/models/"
    assert wrap_label("x" * 50, 20).split("\n") == ["x" * 20, "x" * 20, "x" * 10]


def test_metaeval_plot_names_every_bar_by_its_spec(tmp_path, capsys, monkeypatch):
    figures = captured(monkeypatch, plots)
    build_tiny(tmp_path / "data")
    build_tiny(tmp_path / "data", lp="zh-en")
    png = tmp_path / "main.png"
    code = main(["metaeval", "--mtme", str(tmp_path / "data"), "-t", "toy", "-l", "en-de,zh-en", "-m", QE, REF,
                 "--ref", "refA", "--resamples", "20", "--plot", str(png), "-q"])
    assert code == 0, capsys.readouterr().err
    assert png.is_file() and len(figures) == 1
    fig = figures[0]
    panels = [ax for ax in fig.axes if ax.patches]
    assert len(panels) >= 5
    for ax in panels:
        # the names as every table gives them (LABEL [k]; two specs of one metric: the specs), not [1], [2]
        # and a key elsewhere
        assert tick_names(ax) == [f"{QE} [1]", f"{REF} [2]"]
        assert all(ax.get_xlim()[0] <= p.get_x() + p.get_width() <= ax.get_xlim()[1] for p in ax.patches)
    texts = " ".join(t.get_text() for ax in fig.axes for t in ax.texts)
    assert "[1]" not in texts and "significance cluster" in texts
    assert "toy: en-de, zh-en" in fig._suptitle.get_text()


def fake_evals(values):
    """WmtEval-like objects: ``values[lp][spec][statistic]`` with no significance clusters."""
    evals = []
    for lp, by_metric in values.items():
        metrics = {m: SimpleNamespace(get=lambda stat, d=d: d.get(stat)) for m, d in by_metric.items()}
        evals.append(SimpleNamespace(lp=lp, metrics=metrics, comparisons={}, cluster_of=lambda m: {}))
    return evals


def test_every_value_label_lies_beyond_its_bar_end_inside_the_panel(tmp_path):
    long = "doc-comet:model=/models/some-rather-long-model-name,k=2"
    values = {
        "en-de": {"bleu": {"pearson": -0.62, "accuracy": 0.71, "spa": -0.05, "seg_pearson": 0.0},
                  long: {"pearson": 0.93, "accuracy": -0.98, "spa": 0.4, "seg_pearson": -0.31}},
        "zh-en": {"bleu": {"pearson": -0.2, "accuracy": 0.5, "spa": 0.8, "seg_pearson": 0.2},
                  long: {"pearson": 0.1, "accuracy": 1.0, "spa": -0.7, "seg_pearson": 0.3}},
    }
    fig = plot_main_statistics(fake_evals(values), {}, {"bleu": 1, long: 2}, str(tmp_path / "p.png"),
                               {"pearson": "Pearson (system)"})
    assert (tmp_path / "p.png").is_file()
    negatives = 0
    for ax in (a for a in fig.axes if a.patches):
        assert tick_names(ax) == ["bleu", long]
        assert all(len(line) <= plots.LABEL_WIDTH for t in ax.get_yticklabels() for line in t.get_text().split("\n"))
        left, right = ax.get_xlim()
        labels = [t for t in ax.texts if hasattr(t, "xy")]
        assert len(labels) == len(ax.patches)
        for bar in ax.patches:
            end, y = bar.get_x() + bar.get_width(), bar.get_y() + bar.get_height() / 2
            (label,) = [t for t in labels if t.xy == pytest.approx((end, y))]
            x0, x1 = data_extent(ax, label)
            assert left <= x0 and x1 <= right  # inside the panel
            if bar.get_width() < 0:
                negatives += 1
                assert x1 <= end  # left of the bar's end, not over the bar
            else:
                assert x0 >= end
            assert label.get_text().startswith(f"{end:.3f}")
    assert negatives == 6


# -- sweep heatmap --------------------------------------------------------------------------------------------
@pytest.fixture()
def here(tmp_path, monkeypatch):
    """The sweep's files in the working directory, so the command names them as a user would."""
    for name, lines in {"src.txt": SRC, "ids.txt": IDS, **{f"{k}.txt": v for k, v in HYPS.items()},
                        "human.tsv": ["system\tscore"] + [f"{k}\t{v}" for k, v in HUMAN.items()]}.items():
        (tmp_path / name).write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def heatmap(monkeypatch, capsys, *grid):
    figures = captured(monkeypatch, plots)
    code = main(["sweep", "-m", "slide:backbone=toy", "--grid", *grid, "-i", "A.txt", "B.txt", "C.txt", "D.txt",
                 "-s", "src.txt", "--doc-ids", "ids.txt", "--human", "human.tsv", "--no-cache", "--plot",
                 "fig.png", "-q"])
    assert code == 0, capsys.readouterr().err
    assert len(figures) == 1
    return figures[0]


def legend_texts(fig):
    return [" ".join(t.get_text().split()) for leg in fig.legends for t in leg.get_texts()]


def test_heatmap_explains_cells_outside_a_triangular_grid(here, monkeypatch, capsys):
    fig = heatmap(monkeypatch, capsys, "w=1..3", "s=1..w")
    assert legend_texts(fig) == ["not a grid point: s > w (--grid s=1..w)"]
    assert fig.legends[0].get_title().get_text() == "grey cells"
    ax = fig.axes[0]
    image = ax.get_images()[0].get_array()
    assert image.mask.sum() == 3  # (w=1, s=2), (w=1, s=3), (w=2, s=3)
    # the legend lies inside the figure, below the heatmap
    r = renderer(fig)
    box, fig_box, ax_box = fig.legends[0].get_window_extent(r), fig.bbox, ax.get_window_extent(r)
    assert fig_box.y0 <= box.y0 and box.y1 <= ax_box.y0


def test_heatmap_explains_points_the_metric_skipped(here, monkeypatch, capsys):
    fig = heatmap(monkeypatch, capsys, "w=1..3", "s=1..3")
    (text,) = legend_texts(fig)
    assert text.startswith("skipped: the metric refused the point, e.g. w=1, s=2: ")
    hatched = [p for p in fig.axes[0].patches if p.get_hatch()]
    assert len(hatched) == 3


def test_heatmap_without_grey_cells_has_no_explanation(here, monkeypatch, capsys):
    fig = heatmap(monkeypatch, capsys, "w=2..3", "s=1..2")
    assert fig.legends == [] and not fig.axes[0].get_images()[0].get_array().mask.any()


def test_heatmap_names_the_test_set_by_the_inputs_passed(here, monkeypatch, capsys):
    fig = heatmap(monkeypatch, capsys, "w=1..2", "s=1..w")
    title = " ".join(fig.axes[0].get_title().split())
    assert "test set -i A.txt B.txt C.txt D.txt -s src.txt --doc-ids ids.txt (3 documents, 13 segments)" in title
    assert "test set src.txt" not in title and str(here) not in title
    assert title.startswith("slide, model toy") and "4 systems, 6 pairs" in title


def test_grey_cells_say_why_each_cell_has_no_value(tmp_path):
    from docmetrics.algorithms.grids import parse_grid
    from docmetrics.judging import Point, Sweep

    axes = parse_grid(["w=1..3", "s=1..w"])
    stats = {("2", "1"): 0.5, ("2", "2"): None, ("3", "1"): 0.7, ("3", "2"): 0.6}
    points = []
    for w in "123":
        for s in "123"[: int(w)]:
            pt = Point({"w": w, "s": s}, f"slide:w={w},s={s}")
            if (w, s) in stats:
                pt.metaeval = SimpleNamespace(get=lambda stat, v=stats[(w, s)]: v)
            else:
                pt.skipped = "slide: no document has w sentences\n(every one is shorter)"
            points.append(pt)
    done = Sweep("slide", ["w=1..3", "s=1..w"], "accuracy", axes, points)
    rows, cols, values = done.heatmap()
    grey = plots.grey_cells(points, axes, "accuracy", rows, cols, values)
    assert grey == {
        "absent": ("not a grid point: s > w (--grid s=1..w)", [(0, 1), (0, 2), (1, 2)]),
        "skipped": ("skipped: the metric refused the point, e.g. w=1, s=1: slide: no document has w sentences "
                    "(every one is shorter)", [(0, 0), (2, 2)]),
        "undefined": ("accuracy undefined at the point (see the table)", [(1, 1)]),
    }
    fig = plots.plot_heatmap(done, str(tmp_path / "h.png"))
    assert legend_texts(fig) == [" ".join(text.split()) for text, _ in grey.values()]
    assert sorted(p.get_hatch() for p in fig.axes[0].patches) == ["//", "xx", "xx"]

def test_typed_inputs_keeps_what_was_typed_and_shortens_many_systems():
    args = argparse.Namespace(input=["hyp.txt", "hypB.txt"], source="src.txt", reference="ref.txt",
                              references=["ref.txt", "my ref.txt"], doc_ids=None, jsonl=False, lang="en-de")
    assert typed_inputs(args) == "-i hyp.txt hypB.txt -s src.txt -r ref.txt 'my ref.txt' -l en-de"
    args = argparse.Namespace(input=[f"sys/{k}.jsonl" for k in "abcdefg"], source=None, reference=None,
                              doc_ids="ids.txt", jsonl=True, lang=None)
    assert typed_inputs(args) == "-i sys/a.jsonl sys/b.jsonl sys/c.jsonl ... (7 files) --doc-ids ids.txt --jsonl"
