"""BERTScore's greedy matching, with exactly bert-score's formulas.

Cosine similarity of unit-length embeddings, each token matched to its most similar token of the other
side, idf-weighted means (P over the hypothesis, R over the reference), F1 = 2PR/(P+R), and baseline
rescaling (x - b) / (1 - b) per score.  Context tokens weigh 0; in ``strict`` mode they are removed
before matching.  torch is passed in or imported when called.
"""

from __future__ import annotations

from typing import Any, Sequence

from .inputs import Side

__all__ = ["SCORES", "MATCH_BATCH", "match", "rows", "greedy_batch", "rescale"]

SCORES = ("precision", "recall", "f1")
#: Units matched together (padded to the longest): only speed depends on it.
MATCH_BATCH = 128


def rows(side: Side, emb: Any, idf: Any, strict: bool) -> tuple[Any, Any]:
    """The embeddings that take part in the matching and their weights (context: 0)."""
    import torch

    weights = [float(idf[t]) for t in side.ids]
    a, b = side.ctx
    for i in range(a, b):
        weights[i] = 0.0
    w = torch.tensor(weights, dtype=torch.float32)
    if strict and b > a:
        keep = torch.tensor([i for i in range(len(side.ids)) if not a <= i < b])
        return emb[keep], w[keep]
    return emb, w


def greedy_batch(
    torch: Any, sides: list[tuple[tuple[Any, Any], tuple[Any, Any]]]
) -> list[tuple[float, ...]]:
    """BERTScore's greedy matching (bert-score's greedy_cos_idf) of a batch of pairs, each given
    as ((hyp embeddings, hyp weights), (ref embeddings, ref weights)) with unit-length embeddings:
    each token takes its most similar token of the other side (padding never matches), and P / R
    are the weight-normalised means; F1 = 2PR / (P + R).  A side whose weights sum to 0 scores 0."""
    from torch.nn.utils.rnn import pad_sequence

    hyp = pad_sequence([h[0] for h, _ in sides], batch_first=True)
    ref = pad_sequence([r[0] for _, r in sides], batch_first=True)
    wh = pad_sequence([h[1] for h, _ in sides], batch_first=True)
    wr = pad_sequence([r[1] for _, r in sides], batch_first=True)
    lh = torch.tensor([len(h[1]) for h, _ in sides])
    lr = torch.tensor([len(r[1]) for _, r in sides])
    mh = torch.arange(hyp.shape[1])[None, :] < lh[:, None]
    mr = torch.arange(ref.shape[1])[None, :] < lr[:, None]
    sim = torch.bmm(hyp, ref.transpose(1, 2))
    sim = sim.masked_fill(~(mh[:, :, None] & mr[:, None, :]), -2.0)  # cosines are >= -1
    sh, sr = wh.sum(dim=1), wr.sum(dim=1)
    p = (sim.max(dim=2).values * wh).sum(dim=1) / sh
    r = (sim.max(dim=1).values * wr).sum(dim=1) / sr
    f = 2 * p * r / (p + r)
    out = []
    for pi, ri, fi, a, b in zip(p.tolist(), r.tolist(), f.tolist(), sh.tolist(), sr.tolist()):
        if a == 0 or b == 0:
            out.append((0.0, 0.0, 0.0))
        else:
            out.append((pi, ri, 0.0 if fi != fi else fi))  # F1 of P = R = 0 is 0, as in bert-score
    return out


def match(hyps: Sequence[Side], refs: Sequence[Side], embeddings: dict[tuple[int, ...], Any], idf: Any,
          strict: bool) -> list[tuple[float, ...]]:
    """(P, R, F1) of each pair of sides, from the embeddings of their sequences, in batches of
    :data:`MATCH_BATCH`; a pair with an empty current sentence scores 0, as in bert-score."""
    import torch

    prf: list[tuple[float, ...]] = [(0.0, 0.0, 0.0)] * len(hyps)
    todo = [i for i in range(len(hyps)) if not (hyps[i].empty or refs[i].empty)]
    for start in range(0, len(todo), MATCH_BATCH):
        idx = todo[start:start + MATCH_BATCH]
        sides = [(rows(hyps[i], embeddings[hyps[i].ids], idf, strict),
                  rows(refs[i], embeddings[refs[i].ids], idf, strict)) for i in idx]
        for i, scores in zip(idx, greedy_batch(torch, sides)):
            prf[i] = scores
    return prf


def rescale(prf: list[tuple[float, ...]], baseline: tuple[float, float, float]) -> list[tuple[float, ...]]:
    """Each of P, R, F1 rescaled with its baseline ``b``: (x - b) / (1 - b)."""
    return [tuple((x - b) / (1 - b) for x, b in zip(t, baseline)) for t in prf]
