"""Finding a COMET model on disk and loading it with unbabel-comet's own code.

A model is a hub id (``Unbabel/wmt22-cometkiwi-da``; fetched with ``comet.download_model``, from the
Hugging Face cache when offline), a legacy name (``wmt21-comet-mqm``, from unbabel-comet's own cache), a
COMET model directory (``hparams.yaml`` and ``checkpoints/model.ckpt``) or the ``.ckpt`` file itself.
Its encoder (``pretrained_model``) is used as stored in the checkpoint, unless hparams.yaml names a local
directory instead or the stored directory was moved next to the checkpoint.

comet is imported only when a model is loaded or downloaded.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

from docmetrics.plugin.models import (
    find_model,
    hub_offline,
    hub_snapshot,
    looks_like_hub_id,
    looks_like_path,
    quiet_libraries,
)
from docmetrics.values.errors import ModelError

from .checkpoint import read_hparams_yaml, torch_refusal

__all__ = ["find_checkpoint", "find_encoder", "encoder_of", "load_checkpoint"]

#: Models that Hugging Face only hands out after their licence is accepted.
_GATED = re.compile(r"cometkiwi|xcomet", re.IGNORECASE)
#: What a COMET model directory holds (hparams.yaml beside it is checked when it loads).
_LAYOUT = "hparams.yaml and checkpoints/model.ckpt"


def _cached(encoder: str) -> bool:
    """True when ``encoder`` is a local directory or a hub id whose config.json is cached (a name that
    is not a hub id: let comet / transformers say what is wrong with it)."""
    return Path(encoder).expanduser().is_dir() or not looks_like_hub_id(encoder) or hub_snapshot(encoder) is not None


def _legacy_dir(name: str) -> Path:
    """Where unbabel-comet keeps a legacy (pre-hub) model it downloaded (its get_cache_folder)."""
    return Path.home() / ".cache" / "torch" / "unbabel_comet" / name


def _looks_like_path(text: str) -> bool:
    """True for strings that can only be file-system paths (never hub ids); a .ckpt file too."""
    return looks_like_path(text) or text.endswith(".ckpt")


def _download(hub_id: str) -> Path:
    """The COMET model directory ``comet.download_model`` fetches ``hub_id`` into."""
    try:
        with quiet_libraries():
            import comet

            return Path(comet.download_model(hub_id)).parent.parent
    except KeyError:  # comet turns every failure (no network, gated, no such repo) into one KeyError
        raise OSError("no network, no access to a gated model, or no such model") from None


def _advice(name: str) -> str:
    """What to know about a COMET model that was not found, besides the standard fix."""
    if "/" not in name:  # a legacy name (wmt21-comet-mqm, ...): not on the hub; comet downloads a tarball
        return ("A name without an owner is one of unbabel-comet's legacy models "
                "(comet.models.download_utils.available_legacy_metrics), which comet downloads from Unbabel's "
                f"S3 bucket into {_legacy_dir(name)} (the model directory may be the unpacked tarball; its "
                "encoder's tokenizer, e.g. xlm-roberta-large, goes to the Hugging Face cache)")
    if _GATED.search(name):
        return (f"It is a gated model: accept its licence on https://huggingface.co/{name} and run "
                "`huggingface-cli login` on a machine with network before running docmetrics there "
                "(which also caches its encoder's tokenizer)")
    return "Running it once with network also caches its encoder's tokenizer"


def find_checkpoint(model: str) -> Path:
    """The ``.ckpt`` file of ``model`` (downloads a hub id, or finds it in the local cache)."""
    raw = str(model)
    legacy = [("unbabel-comet's model cache", _legacy_dir(raw))] if "/" not in raw else []
    found = find_model(raw, kind="COMET model", holds=("checkpoints/*.ckpt",), layout=_LAYOUT, files=(".ckpt",),
                       caches=legacy, download=_download, example="/path/to/local/checkpoint-dir",
                       advice=_advice(raw))
    if found.is_file():
        return found
    ckpt = found / "checkpoints" / "model.ckpt"
    candidates = [ckpt] if ckpt.is_file() else sorted((found / "checkpoints").glob("*.ckpt"))
    if len(candidates) != 1:
        raise ModelError(f"model directory '{raw}' holds {len(candidates)} checkpoints and no "
                         f"checkpoints/model.ckpt: expected {ckpt} next to {found / 'hparams.yaml'}")
    return candidates[0]


def find_encoder(ckpt: Path, stored: Any, in_yaml: Any) -> str | None:
    """The encoder directory to use instead of the checkpoint's ``pretrained_model``, or None
    to use that as stored.

    A local directory named in hparams.yaml wins (so editing hparams.yaml works, as with
    COMET's ``reload_hparams``).  A stored directory that no longer exists (the model was
    moved) is looked for next to the checkpoint.
    """
    root = ckpt.parent.parent
    if isinstance(in_yaml, str) and in_yaml != stored:
        p = Path(in_yaml).expanduser()
        p = p if p.is_absolute() else root / p
        if (p / "config.json").is_file():
            return str(p.resolve())
    if not isinstance(stored, str) or not _looks_like_path(stored):
        return None  # a hub id
    if Path(stored).expanduser().is_dir():
        return None
    candidates = [root / Path(stored).name, root / "encoder"]
    candidates += sorted(d for d in root.iterdir() if d.is_dir() and d.name != "checkpoints")
    for cand in candidates:
        if (cand / "config.json").is_file():
            return str(cand.resolve())
    raise ModelError(
        f"COMET checkpoint '{ckpt}' names its encoder directory '{stored}' "
        "(pretrained_model), which does not exist, and no encoder directory (config.json and "
        f"tokenizer files) lies next to the checkpoint in {root}; copy it there or set "
        f"pretrained_model in {root / 'hparams.yaml'} to its directory"
    )


def encoder_of(ckpt: Path, stored_hparams: dict[str, Any] | None) -> Any:
    """The encoder a checkpoint loads with (:func:`find_encoder`, else its stored ``pretrained_model``)."""
    stored = (stored_hparams or {}).get("pretrained_model")
    wanted = read_hparams_yaml(ckpt.parent.parent / "hparams.yaml").get("pretrained_model")
    return find_encoder(ckpt, stored, wanted) or stored


def load_checkpoint(ckpt: Path, model: str, stored_hparams: Callable[[Path], dict[str, Any]]) -> Any:
    """The COMET model of ``ckpt`` (named ``model`` in messages), loaded by unbabel-comet on the CPU.

    ``stored_hparams(ckpt)`` gives the hyper-parameters stored in the checkpoint; it is called after
    hparams.yaml is read and before torch is imported, so a hostile checkpoint is refused first."""
    root = ckpt.parent.parent
    hparams_file = root / "hparams.yaml"
    if not hparams_file.is_file():
        raise ModelError(
            f"COMET checkpoint '{ckpt}' has no hparams.yaml in {root} (a COMET model directory "
            "holds hparams.yaml and checkpoints/model.ckpt)"
        )
    yaml_hparams = read_hparams_yaml(hparams_file)
    stored = stored_hparams(ckpt) or yaml_hparams  # a hostile checkpoint is refused before torch

    import comet
    from comet.models import str2model

    model_class = str2model.get(str(yaml_hparams.get("class_identifier")))
    if model_class is None:
        raise ModelError(
            f"{hparams_file}: class_identifier {yaml_hparams.get('class_identifier')!r} is not "
            f"one of {', '.join(sorted(str2model))}"
        )
    encoder = stored.get("pretrained_model", yaml_hparams.get("pretrained_model"))
    moved_to = find_encoder(ckpt, encoder, yaml_hparams.get("pretrained_model"))
    if moved_to is None and isinstance(encoder, str) and hub_offline() and not _cached(encoder):
        raise ModelError(
            f"COMET model '{model}' needs the tokenizer and config of its encoder "
            f"'{encoder}', which are not in the local Hugging Face cache, and downloads are "
            "switched off (HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE). Run docmetrics once on a "
            "machine with network to cache them (in the Hugging Face cache, $HF_HOME), or set "
            f"pretrained_model in {hparams_file} to a local directory holding them"
        )
    try:
        if moved_to is None:
            return comet.load_from_checkpoint(str(ckpt), local_files_only=hub_offline())
        kwargs: dict[str, Any] = {}
        if yaml_hparams.get("layer_transformation") == "sparsemax_patch":
            kwargs["layer_transformation"] = "softmax"  # what comet.load_from_checkpoint does
        return model_class.load_from_checkpoint(
            checkpoint_path=str(ckpt),
            map_location="cpu",
            strict=False,
            load_pretrained_weights=False,
            pretrained_model=moved_to,
            local_files_only=hub_offline(),
            **kwargs,
        )
    except ModelError:
        raise
    except Exception as exc:  # noqa: BLE001 - OSError, HF errors, unpickling errors...
        refusal = torch_refusal(ckpt, exc)  # torch's own message advises loading it unsafely
        if refusal is not None:
            raise refusal from None
        reason = str(exc).strip().splitlines()[0].split(". ")[0] if str(exc).strip() else type(exc).__name__
        if isinstance(exc, KeyError):
            reason = f"it has no {reason} entry"
        if not _about_encoder(exc, str(moved_to or encoder)):  # the checkpoint itself: no advice on the encoder
            raise ModelError(
                f"COMET checkpoint {ckpt} cannot be read: {reason.rstrip('.')} (the file is damaged, cut short or "
                "not a COMET checkpoint); download the model again from its publisher") from None
        raise ModelError(
            f"could not load COMET model '{model}' from {ckpt}: {reason}. COMET also needs "
            f"the tokenizer and config of its encoder '{moved_to or encoder}': when that is a "
            "hub id it must be in the Hugging Face cache (run once with network), or set "
            f"pretrained_model in {hparams_file} to a local directory"
        ) from None


def _about_encoder(exc: BaseException, encoder: str) -> bool:
    """Whether loading failed on the encoder's tokenizer or config (a download, the Hugging Face cache)
    rather than on the checkpoint file: an OSError or a Hugging Face error naming the encoder or its files."""
    text = str(exc)
    from_hub = type(exc).__module__.split(".")[0] in ("huggingface_hub", "requests", "urllib3", "transformers")
    return from_hub or (isinstance(exc, OSError) and any(x in text for x in (encoder, "tokenizer", "config.json",
                                                                              "huggingface", "Hugging Face")))
