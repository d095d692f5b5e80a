"""Fingerprints of model weights: a short hash, computed once per machine and cached.

A 2 GB checkpoint is read once; afterwards the fingerprint comes from a small JSON cache keyed by the
file's absolute path, size and modification time (``$DOCMETRICS_CACHE`` or ``~/.cache/docmetrics``).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Iterable

FINGERPRINT_LENGTH = 10
_CHUNK = 1 << 22
#: Files that hold weights (hashed when a directory is fingerprinted).
WEIGHT_SUFFIXES = (".ckpt", ".bin", ".safetensors", ".pt", ".pth", ".model", ".json", ".txt", ".yaml")


def cache_dir() -> Path:
    """Where docmetrics keeps its per-machine caches."""
    root = os.environ.get("DOCMETRICS_CACHE")
    if root:
        return Path(root)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "docmetrics"


def _cache_file() -> Path:
    return cache_dir() / "fingerprints.json"


def _load_cache() -> dict[str, str]:
    try:
        with open(_cache_file(), encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _save_cache(data: dict[str, str]) -> None:
    path = _cache_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=0, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home only costs a re-hash next time


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    files = [
        p for p in path.rglob("*")
        if p.is_file() and p.suffix in WEIGHT_SUFFIXES and "__pycache__" not in p.parts
    ]
    return sorted(files, key=lambda p: p.relative_to(path).as_posix())


def _key(files: Iterable[Path]) -> str:
    parts = []
    for f in files:
        st = f.stat()
        parts.append(f"{f.resolve()}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def fingerprint(path: str | os.PathLike[str], *, use_cache: bool = True) -> str:
    """The fingerprint of the weights in ``path`` (a file, or a directory of model files).

    The hash covers file contents (and, for a directory, relative file names), so moving a model
    does not change it while changing one weight does.
    """
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(str(root))
    files = _files(root)
    key = _key(files)
    cache = _load_cache() if use_cache else {}
    if key in cache:
        return cache[key]
    h = hashlib.sha256()
    for f in files:
        if root.is_dir():
            h.update(f.relative_to(root).as_posix().encode() + b"\0")
        with open(f, "rb") as fh:
            while True:
                block = fh.read(_CHUNK)
                if not block:
                    break
                h.update(block)
    digest = h.hexdigest()[:FINGERPRINT_LENGTH]
    if use_cache:
        cache = _load_cache()
        cache[key] = digest
        _save_cache(cache)
    return digest
