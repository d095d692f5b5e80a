"""What a Hugging Face model directory's tokenizer files declare, read without loading the tokenizer
(so a run the score cache answers imports neither torch nor transformers).  Not a plugin."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["declared_token"]


def declared_token(directory: str | Path, role: str) -> str | None:
    """The special token that ``special_tokens_map.json`` (else ``tokenizer_config.json``) of
    ``directory`` names for ``role`` (``"sep_token"``...), or None where neither names one (the
    tokenizer class may still have a default: load it to know)."""
    root = Path(directory).expanduser()
    for name in ("special_tokens_map.json", "tokenizer_config.json"):
        try:
            token = json.loads((root / name).read_text(encoding="utf-8")).get(role)
        except (OSError, ValueError, AttributeError):
            continue
        token = token.get("content") if isinstance(token, dict) else token
        if isinstance(token, str) and token:
            return token
    return None
