"""The hyper-parameters stored in a COMET checkpoint, read without torch (and those of its hparams.yaml).

A ``.ckpt`` that ``torch.save`` wrote (PyTorch >= 1.6) is a zip archive whose ``<name>/data.pkl`` holds
the pickled object; the tensors' bytes lie in other members, reached through pickle's persistent ids.
Unpickling ``data.pkl`` alone, with every torch object (tensor rebuilders, storage types, dtypes)
replaced by an opaque placeholder, gives the checkpoint's plain values, ``hyper_parameters`` among
them, as ``torch.load(..., weights_only=True)`` gives them, without importing torch or reading a
weight.  Only the globals that ``weights_only`` loading allows and a checkpoint of plain
hyper-parameters holds are accepted; a file pickled by torch's legacy format (before 1.6) is read the
same way, and one naming another torch global is left to ``torch.load``.

A hostile file is refused with a :class:`~docmetrics.values.errors.ModelError` naming it, quickly and
before torch is imported: a pickle naming a global that weights-only loading refuses (``posix.system``,
``builtins.eval``, ``torch.hub.load``: nothing is called), hyper-parameters that refer to themselves or
nest deeper than :data:`MAX_DEPTH` (each object is visited once, so shared sub-lists cost nothing).
"""

from __future__ import annotations

import _compat_pickle
import pickle
import re
import zipfile
from pathlib import Path
from typing import Any

from docmetrics.values.errors import ModelError

__all__ = ["MAX_DEPTH", "read_hparams_yaml", "stored_hparams", "torch_refusal"]

#: How deep hyper-parameters may nest (a published COMET model's nest 2 levels: a list in a dict).
MAX_DEPTH = 16

#: Plain globals a checkpoint's pickle may name besides torch's own (the weights-only allow-list's).
_PLAIN = {("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"),
          ("builtins", "bytearray"), ("builtins", "slice"), ("builtins", "complex"), ("_codecs", "encode")}


#: A dtype or quantisation scheme as torch pickles it (``torch.float32``, ``torch.quint4x2``,
#: ``torch.per_channel_affine``).
_DTYPE = re.compile(r"bool|bfloat16|q?u?int\d+(x\d+)?|float\d+(_\w+)?|complex\d+|bits\w+|per_\w+")


class _Opaque:
    """Stands for a torch object (a tensor, a storage, a dtype): it takes any arguments and state."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __setstate__(self, state: Any) -> None:
        pass


class _NotPlain(Exception):
    """The pickle names a torch global this reader does not know: torch reads the file."""


class _Refused(Exception):
    """The pickle names a global outside torch that weights-only loading refuses (it could run code)."""


def _torch_global(module: str, name: str) -> bool:
    """A torch global that weights-only loading allows: a tensor rebuilder, a storage type,
    ``torch.Size``, ``torch.device`` or a dtype (``torch.float32``...), a layout."""
    if module == "torch":
        return name.endswith("Storage") or name in ("Size", "device") or bool(_DTYPE.fullmatch(name))
    return (module == "torch._utils" and name.startswith("_rebuild_")
            or module == "torch.storage" and name.endswith("Storage")
            or (module, name) == ("torch.serialization", "_get_layout"))


def _torch_data(module: str, name: str) -> bool:
    """A torch global of a kind weights-only loading allows (which names exactly is torch's to say):
    besides :func:`_torch_global`'s, tensor types, ``torch._tensor``'s rebuilders, ``torch.nn.Parameter``.
    Torch refuses any other (``torch.hub.load``, ``torch.load``), as it refuses any global outside
    torch but :data:`_PLAIN`'s."""
    if module == "torch":
        return name.endswith("Tensor") or _torch_global(module, name)
    if module in ("torch._tensor", "torch._utils"):
        return name.startswith("_rebuild_")
    if module in ("torch.cuda", "torch.cuda.sparse", "torch.sparse", "torch.storage"):
        return name.endswith(("Storage", "Tensor"))
    return (module, name) in {("torch.nn.parameter", "Parameter"), ("torch.serialization", "_get_layout")}


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        # Protocol 2 (torch.save's) names Python 2's modules: __builtin__.set is builtins.set.
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        if _torch_global(module, name):
            return _Opaque
        if (module, name) in _PLAIN:
            return super().find_class(module, name)
        if _torch_data(module, name):
            raise _NotPlain(f"{module}.{name}")
        raise _Refused(f"{module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        return _Opaque()


def _from_zip(ckpt: Path) -> Any:
    """The object pickled in a zip-format checkpoint, torch objects as placeholders; raises where
    it cannot (:class:`_NotPlain`, :class:`_Refused`, pickle's errors...)."""
    with zipfile.ZipFile(ckpt) as archive:
        names = [n for n in archive.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if len(names) != 1:
            raise KeyError("data.pkl")
        with archive.open(names[0]) as f:
            return _PlainUnpickler(f).load()


#: The first of the pickles in a file of torch's legacy format (before PyTorch 1.6).
_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C


def _from_legacy(ckpt: Path) -> Any:
    """The object pickled in a legacy-format checkpoint (magic number, protocol, system info, the
    object, then the storages), torch objects as placeholders; raises where it cannot."""
    with open(ckpt, "rb") as f:
        if _PlainUnpickler(f).load() != _LEGACY_MAGIC:
            raise ValueError("not a checkpoint torch.save wrote")
        _PlainUnpickler(f).load()  # protocol version
        _PlainUnpickler(f).load()  # system information
        return _PlainUnpickler(f).load()


def _with_torch(ckpt: Path) -> Any:
    import torch

    for mmap in (True, False):
        try:
            return torch.load(str(ckpt), map_location="cpu", weights_only=True, mmap=mmap)
        except Exception as exc:  # noqa: BLE001
            refusal = torch_refusal(ckpt, exc)
            if refusal is not None:
                raise refusal from None
            continue
    return None


def torch_refusal(ckpt: Path, exc: BaseException) -> ModelError | None:
    """Where ``exc`` is ``torch.load(weights_only=True)`` refusing ``ckpt``, the error to raise
    instead: torch's own advises loading it unsafely, this names what was refused."""
    text = str(exc)
    if "Weights only load failed" not in text:
        return None
    found = re.search(r"Unsupported (?:global: GLOBAL|class) ([\w.]+)", text)
    if found:
        return _refusal(ckpt, found.group(1))
    found = re.search(r"Unsupported operand (\d+)", text)
    what = f"pickle opcode {found.group(1)}" if found else "what it holds"
    return ModelError(f"COMET checkpoint {ckpt} is refused: torch's safe loading does not read {what} in it; "
                      "nothing in it was run. Download the model again from its publisher, or give model= a "
                      "directory you trust")


def _refusal(ckpt: Path, name: str) -> ModelError:
    # Never the unsafe way round (weights_only=False): the file is what is wrong.
    return ModelError(
        f"COMET checkpoint {ckpt} is refused: its pickle names {name}, which it would call when loaded and "
        "which could run code; nothing in it was run. A checkpoint holds weights and plain hyper-parameters: "
        "download the model again from its publisher, or give model= a directory you trust"
    )


def stored_hparams(ckpt: Path) -> dict[str, Any]:
    """``hyper_parameters`` of the checkpoint (empty where it holds none or cannot be read): from the
    file's pickle where that is plain, else as ``torch.load(weights_only=True)`` reads it.

    Raises :class:`~docmetrics.values.errors.ModelError` naming the file where it is hostile: a
    global that could run code, hyper-parameters that are no mapping, refer to themselves or nest
    deeper than :data:`MAX_DEPTH`."""
    try:
        data = _from_zip(ckpt) if zipfile.is_zipfile(ckpt) else _from_legacy(ckpt)
    except _Refused as exc:
        raise _refusal(ckpt, str(exc)) from None
    except Exception:  # noqa: BLE001 - a torch global this reader does not know, damaged: as torch reads it
        data = _with_torch(ckpt)
    hparams = data.get("hyper_parameters") if isinstance(data, dict) else None
    if _holds_opaque(ckpt, hparams):  # a tensor among them: torch's reading
        data = _with_torch(ckpt)
        hparams = data.get("hyper_parameters") if isinstance(data, dict) else None
        _holds_opaque(ckpt, hparams)
    if hparams is not None and not isinstance(hparams, dict):
        raise ModelError(f"COMET checkpoint {ckpt}: its hyper_parameters are a {type(hparams).__name__}, not a "
                         "mapping of names to values; download the model again from its publisher")
    return dict(hparams or {})


def _holds_opaque(ckpt: Path, value: Any) -> bool:
    """Whether ``value`` holds a torch object.  Each object is visited once (depth first, without
    recursion; a shared sub-list's height is kept), so 80 levels of shared sub-lists cost 80 visits,
    not 2**80; a cycle, or a path through more than :data:`MAX_DEPTH` containers, raises a ModelError
    naming ``ckpt``."""
    def children(item: Any) -> list[Any] | None:
        if isinstance(item, dict):
            return [x for pair in item.items() for x in pair]
        return list(item) if isinstance(item, (list, tuple, set, frozenset)) else None

    def too_deep() -> ModelError:
        return ModelError(f"COMET checkpoint {ckpt}: its hyper-parameters nest more than {MAX_DEPTH} levels deep, "
                          "which no model's settings do; download the model again from its publisher")

    height: dict[int, int] = {}  # containers done: how many levels they nest, themselves included
    path: set[int] = set()  # the containers from the top down to the one being visited
    found = False
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, leaving = stack.pop()
        kids = children(item)
        if kids is None:
            found = found or isinstance(item, _Opaque)
            continue
        key = id(item)
        if leaving:
            path.discard(key)
            height[key] = 1 + max((height.get(id(k), 0) for k in kids), default=0)
            continue
        if key in path:
            raise ModelError(f"COMET checkpoint {ckpt}: its hyper-parameters hold a {type(item).__name__} that "
                             "holds itself, which no model's settings do; download the model again from its publisher")
        if len(path) + height.get(key, 1) > MAX_DEPTH:
            raise too_deep()
        if key in height:
            continue
        path.add(key)
        stack.append((item, True))
        stack.extend((k, False) for k in kids)
    return found


def read_hparams_yaml(path: Path) -> dict[str, Any]:
    """The mapping a model directory's ``hparams.yaml`` holds (empty for an empty file); a
    ModelError naming the file where it cannot be read or holds no mapping."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"cannot read {path}: {reason}") from None
    except RecursionError:
        raise ModelError(f"cannot read {path}: it nests too deep; a COMET model's hparams.yaml is a mapping of "
                         "names to values (class_identifier: ..., pretrained_model: ...)") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ModelError(f"{path} holds a {type(data).__name__}, not a mapping of names to values; a COMET model's "
                         "hparams.yaml reads class_identifier: ..., pretrained_model: ..., one per line")
    return data
