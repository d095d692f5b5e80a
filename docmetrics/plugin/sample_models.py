"""Tiny random models for the documentation's examples (``docmetrics sample DIR --models``): every installed
backbone that offers some (:attr:`Backbone.sample_models`) writes them under ``DIR/models/``.  They are built
offline in seconds, deterministic (the same files wherever they are built), and their scores mean nothing:
they show the mechanics (windows, context, batching, signatures, reports), not real scores.

Each is built once per machine and version: into docmetrics' cache directory (``$DOCMETRICS_CACHE/sample-models``,
else ``~/.cache/docmetrics``), then copied; the files are the same bytes, so a copy has the same fingerprint."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from ..values.errors import UserError
from ..values.versions import __version__
from . import registry
from .models import cache_dir

__all__ = ["SampleModel", "sample_model_folders", "write_sample_models"]


@dataclass(frozen=True)
class SampleModel:
    backbone: str     # the backbone that loads it
    name: str         # its folder under DIR/models
    about: str        # what real model it mimics
    spec: str         # the spec's parameters that name it (model=DIR/models/NAME, ...)


def sample_model_folders() -> list[Path]:
    """The folders :func:`write_sample_models` writes, relative to its ``dest`` (``models/NAME``); nothing is
    written: what ``docmetrics sample --models`` checks before it writes anything."""
    return [Path("models") / name for _, _, name, _ in _planned()]


def write_sample_models(dest: str | os.PathLike[str], *,
                        skipped: Callable[[str], None] | None = None) -> list[SampleModel]:
    """Write every installed backbone's sample models under ``dest/models`` and return them.  A backbone whose
    extra is not installed is left out; ``skipped`` is told why, in one line."""
    written = []
    for cls, info, name, about in _planned(skipped):
        out = Path(dest) / "models" / name
        try:
            spec = _copy(_built(cls, info, name), out)
        except OSError as exc:
            raise UserError(f"{exc.filename or out}: cannot be written ({exc.strerror or exc}); the sample model "
                            f"{name} goes to {out}: name a folder you can write to") from None
        written.append(SampleModel(info.name, name, about, spec))
    return written


def _planned(skipped: Callable[[str], None] | None = None) -> Iterator[tuple[type, registry.PluginInfo, str, str]]:
    """(backbone class, its plugin info, model name, what it mimics) of every sample model to write."""
    for info in registry.plugins("backbone"):
        if not info.available or info.conflict:
            if skipped and info.missing:
                skipped(f"backbone '{info.name}': no sample model, its extra is not installed ({info.install_hint})")
            continue
        cls = registry.load("backbone", info.name)
        for name, about in getattr(cls, "sample_models", {}).items():
            yield cls, info, name, about


#: In a built model's folder: the spec with ``{dir}`` for the folder it is copied to.
SPEC_FILE = ".docmetrics-sample-spec"


def _built(cls: type, info: registry.PluginInfo, name: str) -> Path:
    """The folder of the sample model ``name`` of backbone ``cls`` in the cache, built there first if missing
    (in a folder of its own, renamed when complete: an interrupted build is never taken for a model)."""
    version = f"{__version__}-{info.distribution or 'docmetrics'}-{info.dist_version or ''}"
    home = cache_dir() / "sample-models" / version / info.name / name
    if (home / SPEC_FILE).is_file():
        return home
    building = home.with_name(f"{name}.building-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    spec = cls.write_sample_model(name, building.as_posix())
    (building / SPEC_FILE).write_text(spec.replace(building.as_posix(), "{dir}"), encoding="utf-8")
    shutil.rmtree(home, ignore_errors=True)  # what a build stopped half way left
    try:
        os.replace(building, home)
    except OSError:  # another process built it in the meantime
        shutil.rmtree(building, ignore_errors=True)
        if not (home / SPEC_FILE).is_file():
            raise
    return home


def _copy(home: Path, out: Path) -> str:
    """Copy a built model into ``out`` and return its spec there."""
    shutil.copytree(home, out, dirs_exist_ok=True, ignore=shutil.ignore_patterns(SPEC_FILE))
    return (home / SPEC_FILE).read_text(encoding="utf-8").replace("{dir}", out.as_posix())
