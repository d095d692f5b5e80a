"""Bad input, one row per case: exit status 2, one message naming the culprit, no traceback, and
no model loaded (the toy backbone is the only one these rows could reach)."""

from __future__ import annotations

import pytest
from plugin_fixtures import toy_dist  # noqa: F401

import docmetrics
from docmetrics.cli import main
from docmetrics.values.errors import SpecError

pytestmark = pytest.mark.usefixtures("toy_dist")

SPEC = "slide:w=2,s=1,backbone=toy"


@pytest.fixture()
def files(tmp_path):
    out = {}
    for name, text in {
        "h.txt": "a b\nc d\ne f\n",
        "s.txt": "x y\nz w\nv u\n",
        "ids.txt": "d1\nd1\nd2\n",
        "null.jsonl": '{"doc_id": "d", "src": "a", "mt": "ok"}\n{"doc_id": "d", "src": "b", "mt": null}\n',
        "true.jsonl": '{"doc_id": "d", "src": "a", "mt": true}\n',
        "number.jsonl": '{"doc_id": "d", "src": 3, "mt": "x"}\n',
        "dup.jsonl": '{"doc_id": "d", "src": "a", "mt": "x", "mt": "y"}\n',
    }.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        out[name] = str(tmp_path / name)
    return out


ROWS = [
    # (id, argv with {file} placeholders, what the message must name)
    ("width-negative", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "-w", "-1"], "-w -1"),
    ("width-text", ["-m", SPEC, "-i", "{h.txt}", "-s", "{s.txt}", "-w", "x"], "-w takes a whole number"),
    ("jsonl-mt-null", ["-m", SPEC, "-i", "{null.jsonl}"], "null.jsonl, line 2: 'mt' must be a string"),
    ("jsonl-mt-true", ["-m", SPEC, "-i", "{true.jsonl}"], "true.jsonl, line 1: 'mt' must be a string"),
    ("jsonl-src-number", ["-m", SPEC, "-i", "{number.jsonl}"], "number.jsonl, line 1: 'src' must be a string"),
    ("jsonl-duplicate-key", ["-m", SPEC, "-i", "{dup.jsonl}"], "dup.jsonl, line 1: the key 'mt' appears twice"),
    ("paired-bs-n-huge", ["-m", SPEC, "-i", "{h.txt}", "{h.txt}", "-s", "{s.txt}", "--doc-ids", "{ids.txt}",
                          "--paired-bs", "--paired-bs-n", "10000000000"], "--paired-bs-n must be from 1 to 1000000"),
    ("paired-ar-n-zero", ["-m", SPEC, "-i", "{h.txt}", "{h.txt}", "-s", "{s.txt}", "--doc-ids", "{ids.txt}",
                          "--paired-ar", "--paired-ar-n", "0"], "--paired-ar-n must be from 1 to"),
]


def run(args):
    """``main(args)``'s exit status, whether it returns it or argparse raises SystemExit."""
    try:
        return main(args)
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize("argv,culprit", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_bad_input_exits_2_naming_the_culprit(argv, culprit, files, capsys):
    args = [files[a[1:-1]] if a.startswith("{") else a for a in argv]
    code = run(args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert culprit in err and "Traceback" not in err


@pytest.mark.parametrize("spec", [None, 3, ["slide"]], ids=["none", "int", "list"])
def test_the_api_refuses_a_spec_that_is_not_text(spec):
    with pytest.raises(SpecError, match="give a metric spec as a string"):
        docmetrics.load(spec)  # type: ignore[arg-type]
