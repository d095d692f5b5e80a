"""The hyper-parameters stored in a COMET checkpoint, read without torch.

A ``.ckpt`` that ``torch.save`` wrote (PyTorch >= 1.6) is a zip archive whose ``<name>/data.pkl`` holds
the pickled object; the tensors' bytes lie in other members, reached through pickle's persistent ids.
Unpickling ``data.pkl`` alone, with every torch object (tensor rebuilders, storage types, dtypes)
replaced by an opaque placeholder, gives the checkpoint's plain values, ``hyper_parameters`` among
them, as ``torch.load(..., weights_only=True)`` gives them, without importing torch or reading a
weight.  Only the globals that ``weights_only`` loading allows and a checkpoint of plain
hyper-parameters holds are accepted; anything else (and a pre-1.6 file, which is no zip) is left to
``torch.load``.
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path
from typing import Any

__all__ = ["stored_hparams"]

#: Plain globals a checkpoint's pickle may name besides torch's own (the weights-only allow-list's).
_PLAIN = {("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"),
          ("builtins", "bytearray"), ("builtins", "slice"), ("builtins", "complex"), ("_codecs", "encode")}


class _Opaque:
    """Stands for a torch object (a tensor, a storage, a dtype): it takes any arguments and state."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __setstate__(self, state: Any) -> None:
        pass


class _NotPlain(Exception):
    """The pickle names a global that is neither torch's nor a plain one."""


def _torch_global(module: str, name: str) -> bool:
    """A torch global that weights-only loading allows: a tensor rebuilder, a storage type,
    ``torch.Size``, ``torch.device`` or a dtype (``torch.float32``...), a layout."""
    if module == "torch":
        return name.endswith("Storage") or name in ("Size", "device") or name.isalnum() and name.islower()
    return (module == "torch._utils" and name.startswith("_rebuild_")
            or module == "torch.storage" and name.endswith("Storage")
            or (module, name) == ("torch.serialization", "_get_layout"))


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if _torch_global(module, name):
            return _Opaque
        if (module, name) in _PLAIN:
            return super().find_class(module, name)
        raise _NotPlain(f"{module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        return _Opaque()


def _from_zip(ckpt: Path) -> Any:
    """The object pickled in a zip-format checkpoint, torch objects as placeholders; raises where
    it cannot (:class:`_NotPlain`, ``zipfile.BadZipFile``, pickle's errors...)."""
    with zipfile.ZipFile(ckpt) as archive:
        names = [n for n in archive.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if len(names) != 1:
            raise KeyError("data.pkl")
        with archive.open(names[0]) as f:
            return _PlainUnpickler(f).load()


def _with_torch(ckpt: Path) -> Any:
    import torch

    for mmap in (True, False):
        try:
            return torch.load(str(ckpt), map_location="cpu", weights_only=True, mmap=mmap)
        except Exception:  # noqa: BLE001
            continue
    return None


def stored_hparams(ckpt: Path) -> dict[str, Any]:
    """``hyper_parameters`` of the checkpoint (empty where it holds none or cannot be read): from the
    zip's pickle where that is plain, else as ``torch.load(weights_only=True)`` reads it."""
    try:
        data = _from_zip(ckpt)
    except Exception:  # noqa: BLE001 - not a zip, not plain, damaged: as torch reads it (or not)
        data = _with_torch(ckpt)
    hparams = data.get("hyper_parameters") if isinstance(data, dict) else None
    if isinstance(hparams, dict) and _holds_opaque(hparams):  # a tensor among them: torch's reading
        data = _with_torch(ckpt)
        hparams = data.get("hyper_parameters") if isinstance(data, dict) else None
    return dict(hparams or {})


def _holds_opaque(value: Any) -> bool:
    if isinstance(value, _Opaque):
        return True
    if isinstance(value, dict):
        return any(_holds_opaque(k) or _holds_opaque(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_holds_opaque(v) for v in value)
    return False
