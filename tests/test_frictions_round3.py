"""Where a sacrebleu or COMET user's habits meet docmetrics, round three (issue 27), one row per finding:
the command as typed, its exit status, what stdout+stderr must contain and must not contain.  Rows run
on the toy backbone (no model), sacrebleu's metrics, and where a finding is about a model, the MiniLM
that installs from the package index; the tests after each table check what the rows cannot."""

from __future__ import annotations

import pytest
from plugin_fixtures import toy_dist  # noqa: F401
from test_frictions import LONG, check_row, files, run  # noqa: F401  (test_frictions' fixture and runners)

pytestmark = pytest.mark.usefixtures("toy_dist")

TOY = "slide:w=2,s=1,backbone=toy"
IDS = ["-s", "src.txt", "--doc-ids", "ids.txt"]


@pytest.fixture()
def long_files(files):
    """long.txt and long2.txt: hyp.txt with lines 1 and 4 (long.txt) or line 1 (long2.txt) longer than the
    toy backbone takes (it marks a unit truncated when its MT is over 80 characters)."""
    for name, where in (("long.txt", (0, 3)), ("long2.txt", (0,))):
        lines = list(files["hyp.txt"])
        for k in where:
            lines[k] = LONG
        (files["dir"] / name).write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return files


# -- 8: one truncation warning per metric, not one per system ------------------------------------------------------
TRUNCATION_ROWS = [
    ("one-warning-names-the-systems", ["-m", "slide:w=1,s=1,backbone=toy", "-i", "long.txt", "long2.txt", "hyp.txt",
                                       *IDS, "-q"], 0,
     ["warning: slide: units were cut at the model's maximum input length in 2 of 3 systems (long.txt: 2 of 6 units "
      "(33.3%), long2.txt: 1 of 6 units (16.7%)), so their scores miss the end of the input; use a model that takes "
      "longer inputs"], ["[long.txt]: 2 of 6", "hyp.txt: "]),
    ("one-system-as-before", ["-m", "slide:w=1,s=1,backbone=toy", "-i", "long.txt", *IDS, "-q"], 0,
     ["warning: slide [long.txt]: 2 of 6 units (33.3%) were cut at the model's maximum input length, so their"], []),
    ("max-truncated-names-those-above", ["-m", "slide:w=1,s=1,backbone=toy", "-i", "long.txt", "long2.txt", *IDS,
                                         "--max-truncated", "0.2", "-q"], 2,
     ["error: slide: units were cut at the model's maximum input length in 1 of 2 systems (long.txt: 2 of 6 units "
      "(33.3%)), so", "(more than --max-truncated 0.2)"], ["long2.txt: "]),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in TRUNCATION_ROWS],
                         ids=[r[0] for r in TRUNCATION_ROWS])
def test_truncation_is_said_once_per_metric(long_files, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)
    _, _, err = run(capsys, *argv)
    assert err.count("were cut") <= 1
