"""The plugin-author model API (docmetrics.plugin.models): finding a model (a local directory, a hub id in
the Hugging Face cache, offline), the one not-found message and hub-id checks."""

from __future__ import annotations

from pathlib import Path

import pytest

import docmetrics
from docmetrics import ModelError
from docmetrics.plugin import models

HUB_ID = "some-owner/tiny-model"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def hf_cache(root: Path, hub_id: str, files: dict[str, str]) -> Path:
    """A Hugging Face hub cache holding ``hub_id`` (refs/main -> one snapshot with ``files``), laid out
    as huggingface_hub writes it; returns the snapshot directory."""
    repo = root / ("models--" + hub_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(COMMIT)
    snapshot = repo / "snapshots" / COMMIT
    for name, text in files.items():
        (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
        (snapshot / name).write_text(text)
    return snapshot


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty Hugging Face cache in tmp_path, read by huggingface_hub (and named in messages)."""
    pytest.importorskip("huggingface_hub")
    from huggingface_hub import constants

    root = tmp_path / "hf-cache"
    root.mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(root))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return root


@pytest.fixture
def online(cache, monkeypatch):
    """Downloads allowed (the environment variables and huggingface_hub's own flag) and the hub reachable
    (as far as find_model's quick check can tell: without a network it fails before any download)."""
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.delenv("TRANSFORMERS_OFFLINE")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(models, "hub_unreachable", lambda timeout=3.0: None)


def model_dir(root: Path, *names: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("{}")
    return root


# -- found -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["local directory", "hub id in the cache", "hub-id-looking local directory",
                                  "a file with an accepted suffix", "a plugin's own cache"])
def test_found(case, cache, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kwargs: dict = {}
    if case == "local directory":
        given, expected = str(model_dir(tmp_path / "m", "config.json")), tmp_path / "m"
    elif case == "hub id in the cache":
        expected = hf_cache(cache, HUB_ID, {"config.json": "{}", "model.safetensors": "w"})
        given = HUB_ID
    elif case == "hub-id-looking local directory":  # owner/name relative to the working directory wins
        hf_cache(cache, HUB_ID, {"config.json": "{}"})
        model_dir(tmp_path / HUB_ID, "config.json")
        given, expected = HUB_ID, Path(HUB_ID)
    elif case == "a file with an accepted suffix":
        (tmp_path / "model.ckpt").write_bytes(b"w")
        given, expected, kwargs = str(tmp_path / "model.ckpt"), tmp_path / "model.ckpt", {"files": (".ckpt",)}
    else:
        own = model_dir(tmp_path / "own-cache" / "legacy-name", "checkpoints/model.ckpt")
        given, expected = "legacy-name", own
        kwargs = {"holds": ("checkpoints/*.ckpt",), "caches": [("the plugin's cache", own)]}
    found = models.find_model(given, **kwargs)
    assert found == expected
    assert docmetrics.find_model(given, **kwargs) == found


def test_a_cached_hub_id_is_found_with_no_network_and_no_download(cache):
    snapshot = hf_cache(cache, HUB_ID, {"config.json": "{}"})

    def download(hub_id):
        raise AssertionError("a cached model is never downloaded")

    assert models.find_model(HUB_ID, download=download) == snapshot
    assert models.hub_snapshot(HUB_ID) == snapshot
    assert models.hub_snapshot(HUB_ID, holds=("modules.json",)) is None


# -- not found: the one standard message -----------------------------------------------------------------
def test_not_found_offline_names_the_model_the_places_and_the_fix(cache, monkeypatch):
    calls = []
    with pytest.raises(ModelError) as e:
        models.find_model(HUB_ID, kind="COMET model", download=calls.append,
                          caches=[("unbabel-comet's model cache", "/nowhere/unbabel_comet/x")],
                          layout="hparams.yaml and checkpoints/model.ckpt", example="/path/to/local/checkpoint-dir",
                          advice="It is a gated model.")
    msg = str(e.value)
    assert calls == []  # offline: nothing is downloaded
    assert msg.startswith(f"COMET model '{HUB_ID}' was not found: it is not a local directory, ")
    assert f"not in the local Hugging Face cache ({cache})" in msg
    assert "nor in unbabel-comet's model cache (/nowhere/unbabel_comet/x)" in msg
    assert "downloads are switched off (HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE)" in msg
    assert "model=/path/to/local/checkpoint-dir (hparams.yaml and checkpoints/model.ckpt)" in msg
    assert "machine with network" in msg and "HF_HOME" in msg and msg.endswith("It is a gated model.")
    assert "\n" not in msg


@pytest.mark.parametrize("given, message", [
    ("/no/such/model-dir", "model path '/no/such/model-dir' does not exist"),
    ("./relative/missing", "model path './relative/missing' does not exist"),
    ("a/b/c", "model path 'a/b/c' does not exist"),
    ("not a hub id!", "model path 'not a hub id!' does not exist"),
    ("x.ckpt", "model path 'x.ckpt' does not exist"),  # with files=(".ckpt",): a path, never a hub id
])
def test_a_path_that_does_not_exist(given, message, cache):
    with pytest.raises(ModelError, match=message) as e:
        models.find_model(given, files=(".ckpt",))
    assert "or a hub id" in str(e.value)


@pytest.mark.parametrize("case, message", [
    ("directory without the files", r"model directory '.*' holds no model \(no config.json in it; expected"),
    ("a file", r"model '.*w.bin' is a file; pass the model's directory"),
    ("cached without the files", f"model '{HUB_ID}' was not found"),
    ("not cached, online, no download", "this backbone downloads no model"),
    ("download fails", r"it could not be downloaded \(HTTP 401: gated\)"),
])
def test_other_failures(case, message, cache, tmp_path, request):
    given = HUB_ID
    kwargs: dict = {}
    if case == "directory without the files":
        given = str(model_dir(tmp_path / "m", "weights.bin"))
    elif case == "a file":
        given = str(model_dir(tmp_path / "m", "w.bin") / "w.bin")
    elif case == "cached without the files":
        hf_cache(cache, HUB_ID, {"README.md": "x"})
    else:
        request.getfixturevalue("online")
        if case == "download fails":
            def refuse(hub_id):
                raise OSError("HTTP 401: gated\nmore lines")

            kwargs["download"] = refuse
    with pytest.raises(ModelError, match=message) as e:
        models.find_model(given, **kwargs)
    assert "\n" not in str(e.value)


def test_a_download_is_used_when_online(cache, online, tmp_path):
    fetched = model_dir(tmp_path / "fetched", "config.json")
    assert models.find_model(HUB_ID, download=lambda hub_id: fetched) == fetched

    def into_the_cache(hub_id):  # None: look in the Hugging Face cache again
        hf_cache(cache, hub_id, {"config.json": "{}"})

    assert models.find_model(HUB_ID, download=into_the_cache) == cache / f"models--{HUB_ID.replace('/', '--')}" \
        / "snapshots" / COMMIT


# -- hub ids and paths -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, hub_id, path", [
    ("Unbabel/wmt22-cometkiwi-da", True, False),
    ("roberta-large", True, False),
    ("xlm-roberta-large", True, False),
    ("/abs/model", False, True),
    ("./model", False, True),
    ("~/model", False, True),
    ("a/b/c", False, True),
    ("C:\\models\\x", False, True),
    ("has space", False, False),
])
def test_hub_ids_and_paths(text, hub_id, path):
    assert models.looks_like_hub_id(text) is hub_id
    assert models.looks_like_path(text) is path


@pytest.mark.parametrize("env, offline", [({}, False), ({"HF_HUB_OFFLINE": "1"}, True),
                                          ({"TRANSFORMERS_OFFLINE": "yes"}, True), ({"HF_HUB_OFFLINE": "0"}, False)])
def test_hub_offline(env, offline, monkeypatch):
    import sys

    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    assert models.hub_offline() is offline


def test_quiet_libraries_swallows_prints_and_warnings(capsys):
    import logging
    import warnings

    level = logging.getLogger("transformers").level
    with models.quiet_libraries():
        print("banner")
        warnings.warn("noise", UserWarning, stacklevel=1)
        assert logging.getLogger("transformers").level == logging.ERROR
    assert capsys.readouterr().out == ""
    assert logging.getLogger("transformers").level == level


# -- the public names -------------------------------------------------------------------------------------
PUBLIC = ["find_model", "model_not_found", "fingerprint", "hub_offline", "looks_like_hub_id", "looks_like_path",
          "quiet_libraries"]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_names_are_exported_by_the_top_level_package(name):
    assert name in docmetrics.__all__
    assert getattr(docmetrics, name) is getattr(models, name)


@pytest.mark.parametrize("files,expected", [
    ({"special_tokens_map.json": {"sep_token": "</s>"}}, "</s>"),
    ({"special_tokens_map.json": {"sep_token": {"content": "[SEP]", "lstrip": False}}}, "[SEP]"),
    ({"special_tokens_map.json": {"cls_token": "<s>"}, "tokenizer_config.json": {"sep_token": "<sep>"}}, "<sep>"),
    ({"special_tokens_map.json": "not json {", "tokenizer_config.json": {"sep_token": "</s>"}}, "</s>"),
    ({"tokenizer_config.json": {"sep_token": None}}, None),
    ({}, None),
])
def test_declared_token_reads_the_tokenizer_files(tmp_path, files, expected):
    import json as _json

    from docmetrics import declared_token

    for name, content in files.items():
        text = content if isinstance(content, str) else _json.dumps(content)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert declared_token(tmp_path, "sep_token") == expected
