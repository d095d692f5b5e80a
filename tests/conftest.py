"""Shared fixtures: an offline environment and tiny COMET models built on the fly."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def offline_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No network and a private docmetrics cache for the whole session."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("TRANSFORMERS_OFFLINE", "1")
        mp.setenv("DOCMETRICS_CACHE", str(tmp_path_factory.mktemp("docmetrics-cache")))
        yield


def _tiny_comet(tmp_path_factory: pytest.TempPathFactory, kind: str) -> Path:
    from docmetrics_backbones.comet.testing import build_tiny_comet

    return build_tiny_comet(tmp_path_factory.mktemp(f"tiny-comet-{kind}"), kind=kind, seed=0)


@pytest.fixture(scope="session")
def tiny_kiwi_dir(offline_env: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CometKiwi-like UnifiedMetric (mt+src, CLS pooling)."""
    return _tiny_comet(tmp_path_factory, "unified")


@pytest.fixture(scope="session")
def tiny_comet_da_dir(offline_env: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wmt22-comet-da-like RegressionMetric (src, mt, ref; average pooling)."""
    return _tiny_comet(tmp_path_factory, "regression")


@pytest.fixture(scope="session")
def tiny_comet_qe_dir(offline_env: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A COMET-QE-like ReferencelessRegression (src, mt; average pooling)."""
    return _tiny_comet(tmp_path_factory, "referenceless")
