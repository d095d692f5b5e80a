"""The ``sentence-embedding`` backbone: any sentence-transformers model (LaBSE, all-MiniLM-L6-v2, ...)
giving cosine similarities of sentence embeddings (capability SIMILARITY), e.g. as ASD's aligner.

Importing this package is light; the backbone lives in
:mod:`docmetrics_backbones.sentence_embedding.backbone` (the entry point's target), which imports torch and
sentence-transformers only when a model is loaded.
"""

__all__ = ["SentenceEmbeddingBackbone"]


def __getattr__(name: str):  # pragma: no cover - convenience import
    if name == "SentenceEmbeddingBackbone":
        from .backbone import SentenceEmbeddingBackbone

        return SentenceEmbeddingBackbone
    raise AttributeError(name)
