"""Small helpers every model-backed plugin needs: is the hub off, is this a path, and quiet loading.

Nothing heavy is imported here.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import sys
import warnings
from typing import Iterator

_TRUE = {"1", "true", "yes", "on"}
#: Libraries that log, warn or print while models load.
NOISY_LOGGERS = ("comet", "pytorch_lightning", "lightning", "lightning.pytorch", "lightning_fabric",
                 "transformers", "huggingface_hub", "sentence_transformers", "torch")


def hub_offline() -> bool:
    """True when Hugging Face downloads are switched off (HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE)."""
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in _TRUE:
            return True
    constants = sys.modules.get("huggingface_hub.constants")
    return bool(getattr(constants, "HF_HUB_OFFLINE", False))


#: A Hugging Face hub id: ``name`` or ``owner/name`` (letters, digits, ``_ . -``).
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?$")


def looks_like_hub_id(text: str) -> bool:
    """True for a model name that can be a hub id (and is not a file-system path)."""
    return not looks_like_path(text) and HUB_ID.match(text) is not None


def looks_like_path(text: str) -> bool:
    """True for model names that can only be file-system paths (never hub ids such as owner/name)."""
    return os.path.isabs(text) or text.startswith((".", "~")) or text.count("/") >= 2 or "\\" in text


@contextlib.contextmanager
def quiet_libraries(*extra_loggers: str) -> Iterator[None]:
    """Keep model libraries from printing while a model loads or runs: their loggers are raised to
    ERROR, warnings are ignored, prints to stdout are swallowed, and a root-logger handler installed
    meanwhile (``import comet`` calls ``logging.basicConfig``) is removed again."""
    loggers = [logging.getLogger(name) for name in NOISY_LOGGERS + extra_loggers]
    levels = [lg.level for lg in loggers]
    root = logging.getLogger()
    root_handlers, root_level = list(root.handlers), root.level
    try:
        for lg in loggers:
            lg.setLevel(logging.ERROR)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
        for handler in list(root.handlers):
            if handler not in root_handlers:
                root.removeHandler(handler)
        root.setLevel(root_level)
