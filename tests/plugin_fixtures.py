"""Third-party plugin distributions written into a temporary directory, the way pip would lay them
out (a package plus a ``*.dist-info`` with ``entry_points.txt``): the registry must find them through
entry points exactly as it finds the first-party plugins."""

from __future__ import annotations

import textwrap
from pathlib import Path

TOY_BACKBONE = '''
"""A toy backbone: deterministic text statistics, no model (a third party's plugin)."""
from docmetrics.plugin.backbone import QE, REFERENCE, Backbone, BackboneOutput
from docmetrics.values.params import Param


def toy_score(mt, src, ref=None, scale=1.0):
    """The toy's score of one unit (tests recompute it independently)."""
    value = (len(mt) % 7) / 7 + 0.01 * len((src or "").split()) - 0.001 * len(mt.split())
    if ref is not None:
        value += 0.1 * len(set(mt.split()) & set(ref.split()))
    return scale * value


class ToyBackbone(Backbone):
    description = "toy: deterministic text statistics, no model"
    default_model = "toy-v1"
    params = (Param("scale", float, 1.0, "multiplier of every score", short="sc"),)
    calls = []

    def load(self):
        pass

    @property
    def capabilities(self):
        return frozenset({REFERENCE}) if self.model == "toy-ref" else frozenset({QE})

    def score(self, units):
        type(self).calls.append(list(units))
        scale = self.p.get("scale", 1.0)
        scores = [toy_score(u.mt, u.src, u.ref if self.model == "toy-ref" else None, scale) for u in units]
        return BackboneOutput(scores, [len(u.mt) > 80 for u in units])

    def fingerprint(self):
        return "toy0" + str(self.model)[-6:]
'''


def write_distribution(root: Path, name: str, version: str, files: dict[str, str],
                       entry_points: str, requires: list[str] | None = None) -> Path:
    """Lay out a distribution under ``root`` (a directory to put on sys.path)."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    meta = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    meta += [f"Requires-Dist: {r}" for r in requires or []]
    (info / "METADATA").write_text("\n".join(meta) + "\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points), encoding="utf-8")
    return root


def install_toy(root: Path) -> Path:
    """The toy backbone, plus a broken plugin and one whose optional dependency is missing."""
    return write_distribution(
        root,
        "docmetrics-toy",
        "0.3",
        {
            "docmetrics_toy/__init__.py": TOY_BACKBONE,
            "docmetrics_toy_broken/__init__.py": "raise RuntimeError('this plugin is broken')\n",
        },
        """
        [docmetrics.backbones]
        toy = docmetrics_toy:ToyBackbone
        broken = docmetrics_toy_broken:Nothing
        needsextra = docmetrics_toy:ToyBackbone [heavy]
        """,
        requires=['definitely-not-installed-xyz>=1; extra == "heavy"'],
    )


import sys  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(scope="module")
def toy_dist(tmp_path_factory):
    """The toy distribution on sys.path (in this process) for the duration of a test module."""
    from docmetrics.plugin import registry

    root = install_toy(tmp_path_factory.mktemp("site"))
    sys.path.insert(0, str(root))
    registry.refresh()
    yield root
    sys.path.remove(str(root))
    for mod in [m for m in sys.modules if m.startswith("docmetrics_toy")]:
        del sys.modules[mod]
    registry.refresh()
