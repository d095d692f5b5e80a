"""Tiny random models for the documentation's examples (``docmetrics sample DIR --models``): every installed
backbone that offers some (:attr:`Backbone.sample_models`) writes them under ``DIR/models/``.  They are built
offline in seconds, deterministic (the same files wherever they are built), and their scores mean nothing:
they show the mechanics (windows, context, batching, signatures, reports), not real scores."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import registry

__all__ = ["SampleModel", "write_sample_models"]


@dataclass(frozen=True)
class SampleModel:
    backbone: str     # the backbone that loads it
    name: str         # its folder under DIR/models
    about: str        # what real model it mimics
    spec: str         # the spec's parameters that name it (model=DIR/models/NAME, ...)


def write_sample_models(dest: str | os.PathLike[str], *,
                        skipped: Callable[[str], None] | None = None) -> list[SampleModel]:
    """Write every installed backbone's sample models under ``dest/models`` and return them.  A backbone whose
    extra is not installed is left out; ``skipped`` is told why, in one line."""
    written = []
    for info in registry.plugins("backbone"):
        if not info.available or info.conflict:
            if skipped and info.missing:
                skipped(f"backbone '{info.name}': no sample model, its extra is not installed ({info.install_hint})")
            continue
        cls = registry.load("backbone", info.name)
        for name, about in getattr(cls, "sample_models", {}).items():
            out = Path(dest) / "models" / name
            out.mkdir(parents=True, exist_ok=True)
            spec = cls.write_sample_model(name, out.as_posix())
            written.append(SampleModel(info.name, name, about, spec))
    return written
