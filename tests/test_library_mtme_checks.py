"""run_mtme checks its own parameters (out_root, metric_names, the length of the score file names) before it reads
a file or loads a model, naming the parameter in ``params``; ``docmetrics --mtme`` words them as its flags
(--write-mtme, --metric-name) and has no copy of the checks (round s54, slice "library")."""

from __future__ import annotations

from pathlib import Path

import pytest

import docmetrics
from docmetrics import judging
from docmetrics.values.errors import InputError

MTME = Path(__file__).resolve().parents[1] / "docmetrics" / "data" / "mtme"
TESTSET, LP = "wmt21.tedtalks", "en-de"


def no_model(spec, lp):
    raise AssertionError("a metric was loaded before the parameters were checked")


@pytest.mark.parametrize("options,message,param", [
    ({"metric_names": ["a"]}, "metric_names names the MTME score files: it needs out_root", "metric_names"),
    ({"metric_names": ["a", "b"], "out_root": "{out}"}, "metric_names: 2 name(s) for 1 metric(s)", "metric_names"),
    ({"metric_names": ["a b", "a/b"], "specs": ["chrf", "ter"], "out_root": "{out}"},
     "metric_names: two names give the same file name (a_b, a_b)", "metric_names"),
    ({"out_root": "{out}/afile"}, "out_root {out}/afile: not a directory", "out_root"),
])
def test_bad_parameters_stop_the_run_before_any_metric_loads(tmp_path, options, message, param):
    (tmp_path / "afile").write_text("x\n")
    options = {k: v.format(out=tmp_path) if isinstance(v, str) else v for k, v in options.items()}
    specs = options.pop("specs", ["chrf"])
    with pytest.raises(InputError) as caught:
        judging.run_mtme(str(MTME), TESTSET, [LP], specs, no_model, **options)
    assert str(caught.value).startswith(message.format(out=tmp_path))
    assert caught.value.params == (param,)


def test_a_score_file_name_too_long_stops_the_run_before_scoring(tmp_path):
    with pytest.raises(InputError) as caught:
        judging.run_mtme(str(MTME), TESTSET, [LP], ["chrf"], lambda spec, lp: docmetrics.load(spec),
                         out_root=str(tmp_path), metric_names=["x" * 300])
    assert "more than a file system takes (255); name the files with metric_names" in str(caught.value)
    assert caught.value.params == ("metric_names",)
