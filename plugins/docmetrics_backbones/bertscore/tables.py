"""What bert-score ships, read from its source without importing it: its default model per language, its
default layer per model, and its rescaling baselines.

Importing bert-score imports torch and transformers (seconds before a missing model can be reported),
so its tables are read from ``bert_score/utils.py`` and its baseline files found in its package folder.
"""

from __future__ import annotations

import ast
import csv
import functools
import importlib.util
from pathlib import Path

from docmetrics.values.errors import ModelError, SpecError

from .languages import target_language

__all__ = ["bert_score_tables", "baseline_file", "baselines_for", "read_baseline"]


def _bert_score_dir() -> Path | None:
    spec = importlib.util.find_spec("bert_score")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


@functools.cache
def bert_score_tables() -> tuple[str, dict[str, str], dict[str, int]]:
    """bert-score's default model (for a language it does not name), its model per language (lang2model)
    and its default layer per model (model2layers), read from ``bert_score/utils.py`` without importing
    it (which imports torch and transformers: seconds before a missing model can be reported); imported
    where the file cannot be read so."""
    root = _bert_score_dir()
    try:
        tree = ast.parse((root / "utils.py").read_text(encoding="utf-8")) if root else None
        default, langs, layers = "", {}, {}
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["model2layers"]:
                layers = ast.literal_eval(node.value)
            elif isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["lang2model"]:
                default = ast.literal_eval(node.value.args[0].body)  # type: ignore[attr-defined]
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update"
                  and getattr(node.func.value, "id", "") == "lang2model"):
                langs = ast.literal_eval(node.args[0])
        if default and langs and layers:
            return default, langs, layers
    except (OSError, SyntaxError, ValueError, AttributeError, IndexError, TypeError):
        pass
    from bert_score.utils import lang2model, model2layers

    return lang2model.default_factory(), dict(lang2model), dict(model2layers)


def baseline_file(lang: str, model: str) -> Path | None:
    """The rescaling baseline bert-score ships for ``model`` in the target language of ``lang``
    (``rescale_baseline/<lang>/<model>.tsv``), or None.  Imports nothing."""
    root = _bert_score_dir()
    if root is None:
        return None
    path = root / "rescale_baseline" / target_language(lang) / f"{model}.tsv"
    return path if path.is_file() else None


def baselines_for(lang: str) -> list[str]:
    """The models bert-score ships a rescaling baseline for in the target language of ``lang``."""
    root = _bert_score_dir()
    folder = root / "rescale_baseline" / target_language(lang) if root else None
    if folder is None or not folder.is_dir():
        return []
    return sorted(p.relative_to(folder).with_suffix("").as_posix() for p in folder.rglob("*.tsv"))


def read_baseline(path: Path, layer: int) -> tuple[float, float, float]:
    """Row ``layer`` of a baseline file (``LAYER,P,R,F``; bert-score reads it with
    ``pd.read_csv(path).iloc[num_layers]``)."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
    except OSError as exc:
        raise ModelError(f"baseline file '{path}' cannot be read ({exc.strerror})") from None
    body = [r for r in rows[1:] if r]
    if layer >= len(body):
        raise SpecError(
            f"bertscore: baseline file '{path}' has rows for layers 0 to {len(body) - 1}, not "
            f"layer {layer}"
        )
    try:
        p, r, f1 = (float(x) for x in body[layer][1:4])
    except ValueError:
        raise ModelError(
            f"baseline file '{path}', row {layer + 2}: not LAYER,P,R,F numbers"
        ) from None
    return p, r, f1
