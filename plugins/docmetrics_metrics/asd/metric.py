"""ASD (Align-then-Slide): evaluate whole-document translations whose sentences do not line up.

Stage 1 (Align): segment the source and the translation of each document into sentences, compute
similarities between source and target sentences with an aligner backbone (a QE model such as
CometKiwi, or cosine similarity of sentence embeddings), find the best monotone path by the paper's
DP and rebuild the translation to the source's sentence count.  Stage 2 (Slide): score the
k-sentence chunks at stride 1 for every k of ``chunks`` with the scorer backbone, mean per k, then
mean over k.

``unit=segment`` does both stages inside each segment (test-set line) instead of each document: every
segment gets its own score (the same rule), and documents and the system are the means of their
segments' scores, so a long multi-sentence segment is scored in chunks the model takes whole.
"""

from __future__ import annotations

import math
import re
import warnings
from typing import Any, ClassVar, Sequence

from docmetrics.algorithms.aggregation import Aggregation, MeanOfGroupMeans, WeightedMean, group_sums, unit_groups
from docmetrics.algorithms.windows import slide_windows
from docmetrics.plugin import registry
from docmetrics.plugin.backbone import (
    QE,
    REFERENCE,
    SIMILARITY,
    Backbone,
    BackboneOutput,
    GivesSimilarity,
    SigField,
    Unit,
)
from docmetrics.plugin.metric import Metric, Scorer
from docmetrics.plugin.models import languages_not_covered
from docmetrics.plugin.segmenter import Segmenter, load_segmenter, split_document
from docmetrics.values.errors import CapabilityError, DocMetricsWarning, InputError, ModelError, SpecError
from docmetrics.values.langpair import parse_langpair
from docmetrics.values.params import Param, path_problem
from docmetrics.values.result import Result
from docmetrics.values.testset import TestSet
from docmetrics.values.units import ScoringUnit, UnitPlan
from docmetrics.values.versions import dist_version

from .align import Alignment, align_many, matched_targets, rebuild

__all__ = ["AsdMetric", "NO_SPACE_LANGUAGES", "joiner_for", "parse_chunks", "parse_lang"]

#: The reference's key among the target sides aligned in one pass (not a valid system name: systems
#: come from file names or JSONL).
_REF = "\x00reference"
#: Target languages whose sentences are concatenated without a space.
NO_SPACE_LANGUAGES = frozenset({"zh", "ja", "yue", "wuu", "lzh"})
DEFAULT_ALIGNER_MODEL = {"comet": "Unbabel/wmt22-cometkiwi-da"}
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
#: Share of CJK characters (among non-space characters) above which a text of unknown language
#: is joined without spaces.
CJK_SHARE = 0.3
#: unit=segment: the group of the whole-segment units scored only for their truncation flags (never a
#: chunk size's group, which is "k<digits>").
_WHOLE = "\x00whole-segment"
#: The unit= value that keeps 0.3.0's ASD (and its signature, which then has no unit field).
DEFAULT_UNIT = "document"


def parse_chunks(text: str) -> list[int]:
    """``"1+2+3+4"`` -> [1, 2, 3, 4] (sorted, distinct); ValueError with the reason otherwise."""
    parts = [p.strip() for p in str(text).split("+")]
    if not parts or any(not p.isdigit() for p in parts):
        raise ValueError("write chunk sizes as positive integers joined by '+', e.g. 1+2+3+4")
    ks = sorted({int(p) for p in parts})
    if ks[0] < 1:
        raise ValueError("chunk sizes must be >= 1")
    return ks


def _check_chunks(value: Any) -> str | None:
    try:
        parse_chunks(value)
    except ValueError as exc:
        return str(exc)
    return None


def parse_lang(text: str | None) -> tuple[str | None, str | None]:
    """``"en-de"`` -> ("en", "de"), ``"en-ko_KR"`` -> ("en", "ko") (docmetrics.values.langpair);
    ``"auto"`` -> (None, None)."""
    if text is None or str(text).strip().lower() in ("", "auto"):
        return None, None
    try:
        pair = parse_langpair(str(text))
    except SpecError as exc:
        raise ValueError(f"{exc}; or auto") from None
    return pair.src, pair.tgt


def _check_lang(value: Any) -> str | None:
    try:
        parse_lang(value)
    except ValueError as exc:
        return str(exc)
    return None


def joiner_for(lang: str | None, text: str) -> str:
    """How sentences of ``text`` are concatenated: ``""`` for zh/ja (and, when the language is not
    given, for text whose non-space characters are at least 30% CJK), else one space."""
    if lang is not None:
        return "" if lang in NO_SPACE_LANGUAGES else " "
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return " "
    cjk = sum(1 for c in chars if _CJK.match(c))
    return "" if cjk / len(chars) >= CJK_SHARE else " "


def _join(parts: Sequence[str], joiner: str) -> str:
    return joiner.join(p for p in parts if p)


class AsdMetric(Metric):
    name: ClassVar[str] = "asd"
    description: ClassVar[str] = (
        "ASD (Align-then-Slide): segment whole documents, align MT sentences to source sentences by DP, "
        "rebuild the MT, mean over 1- to 4-sentence chunks"
    )
    citation: ClassVar[str] = (
        "Align-then-Slide: A complete evaluation framework for Ultra-Long Document-Level Machine "
        "Translation. Anonymous ACL submission (2025); Section 2 (Algorithm 1), Section 5 and "
        "Limitations. Builds on SLIDE: Vikas Raunak, Tom Kocmi and Matt Post. 2024. NAACL 2024."
    )
    details: ClassVar[str] = """\
Input: whole documents.  Each document of the test set (a JSONL object with doc_id/src/mt[/ref], one
line of -i/-s/-r with --doc-per-line, or the lines sharing a doc id) is one text; the lines of a
document are joined with line breaks, and a line break always ends a sentence.

Stage 1, Align (Algorithm 1):
  1. The source, the MT and (for a reference-based scorer) the reference of each document are split
     into sentences by the segmenter (segmenter=, default the built-in 'rules'; lang=SRC-TGT picks
     language rules, e.g. en-de; the CLI's -l sets it).
  2. Similarities S[i][j] of source sentence i and target sentence j come from the aligner backbone
     (aligner=, aligner_model=): a backbone with SIMILARITY (sentence-embedding: cosine of the
     sentence embeddings; LaBSE is the paper's alternative) or a QE model, which scores
     Unit(src=s_i, mt=t_j) (CometKiwi, the paper's default).  The aligner runs at the scorer's
     precision and device.
  3. DP: every target sentence goes to exactly one source sentence, monotonically (a source
     sentence may receive none or several); the path maximises the sum of its n similarities.
     anchor=yes (the paper): the path starts at (0, 0) and ends at (m-1, n-1); a one-sentence MT
     then goes to its most similar source sentence.  anchor=no: free start and end.  Ties go to the
     smaller source index.
       mode=full: the paper's m x n matrix (m*n aligner calls for a QE aligner).
       mode=banded (default): only the cells within band= source sentences of the length-scaled
       diagonal c_j = round(j (m-1)/(n-1)) are scored (at most n (2 band + 1) cells; a one-sentence
       MT gets every source sentence); while the best path runs along the band's edge (where the
       band cuts the matrix off), the band is doubled and the DP repeated, at most grow= times,
       scoring only the new cells.  The path is the best inside the final band; when that band
       contains the best path of the full matrix, the result is the full mode's.  Documents whose
       final path still runs along the edge are counted (align_band_edge_docs): a larger band=
       (or mode=full) may align them better.
  4. The MT is rebuilt to the source's sentence count: source sentence i gets its matched MT
     sentences concatenated with the target language's joiner (a space; none for zh/ja; with
     lang=auto, none when >= 30% of the text's non-space characters are CJK), or "" (a
     placeholder) when it has none.  A reference is rebuilt the same way.
Stage 2, n-chunk sliding evaluation: for each k of chunks= (default 1+2+3+4), the windows of k
consecutive source sentences at stride 1 (m-k+1 per document) are scored as one unit each by the
scorer backbone (backbone=/model=, default CometKiwi): the source sentences joined with the source
joiner, the rebuilt MT entries joined with the target joiner (placeholders left out; an all-
placeholder window has MT ""), and the rebuilt reference likewise for a reference-based scorer.
A document with fewer than k sentences: short=skip (the paper's m-k+1 = no unit) gives it no
k-chunk; short=whole gives it one k-chunk holding the whole document.
Score: mean over the test set's k-chunks for each k, then the mean over the k that have at least
one chunk.  A document's score is the same computed on its own chunks.  Unit weights are
1/(N_k * K): the system score is their weighted mean.  Chunk start/end are source-sentence indices
inside the document (0-based, end exclusive).
Reported (coverage counters): source/MT sentences, placeholders (source sentences that got no MT
sentence), merged sources (got several), align_pairs (similarities computed), align_model_calls
(distinct pairs a QE aligner scored, or texts an embedding aligner encoded), align_full_pairs (what
mode=full would compute), align_band_edge_docs, documents shorter than k; the reference side
likewise (ref_*).  Result.extras['alignment'] holds every alignment (docmetrics --dump-alignment).

unit=segment (beyond Algorithm 1: the paper reports WMT25 segment-level results, whose segments are
paragraphs, without saying how ASD was applied to them): the text aligned and slid is one SEGMENT
(a test-set line: a JSONL object, a line of -i/-s/-r) instead of one document.  Each segment's
source, MT (and reference) is split into sentences, aligned and rebuilt as above, and its k-chunks
(k of chunks=, stride 1, inside the
segment, short= for segments with fewer than k sentences) are scored.  So a segment of one sentence
is one 1-chunk (with the default chunks=1+2+3+4 and short=skip), and a paragraph of any length is
scored in chunks of at most max(chunks) sentences, none of them cut by a model that takes that much.
  The segment's score: the mean over the k that have chunks in the segment of the mean of the
  segment's k-chunk scores (the rule above, on the segment alone: exactly the score plain ASD gives
  a document made of that one segment).
  Result.units: one unit per segment, start/end its line (0-based test-set line, end = start + 1),
  weight 1, group "", truncated when one of its chunks was cut; so --level seg lists the segment
  scores and segment-level meta-evaluation uses them.  A segment without a source sentence has no
  unit (no score).
  Document score: the mean of its segments' scores; system score: the mean over all scored
  segments (aggregation "mean" over the segment units, so significance tests resample documents
  of segment scores).
  Counters: chunks (k-chunks scored), chunks_truncated; segments_over_model_maximum: the segments
  whose whole source + MT (+ reference), as ONE unit (what slide:w=1,s=1 scores), the scorer's
  model cuts at its maximum length: each segment is also given to the scorer whole for its
  truncation flag (one extra, truncated, model input per segment; the score is not used; a
  one-sentence segment usually equals its 1-chunk and costs nothing).  The document counters are
  per segment: segments_without_source_sentences, segments_shorter_than_k<k>,
  align_band_edge_segments.  --dump-alignment records carry the segment's line (1-based) and its
  position in its document.
  The signature has unit:segment; the default unit=document is left out of it (0.3.0's signatures
  stay the same)."""
    params: ClassVar[tuple[Param, ...]] = (
        Param("lang", str, "auto", "language pair SRC-TGT (segmentation rules; joiner: none for zh/ja "
              "targets); auto: language-independent rules, joiner from the script", short="l",
              check=_check_lang),
        Param("segmenter", str, "rules", "sentence segmenter (entry point in docmetrics.segmenters)",
              short="seg"),
        Param("chunks", str, "1+2+3+4", "chunk sizes k, joined by '+'", short="k", check=_check_chunks),
        Param("short", str, "skip", "documents with fewer than k sentences: skip (no k-chunk, the "
              "paper) or whole (one chunk: the whole document)", choices=("skip", "whole"), short="sh"),
        Param("aligner", str, "comet", "aligner backbone: one with SIMILARITY (sentence-embedding) or "
              "QE (comet with CometKiwi)", short="al"),
        Param("aligner_model", str, None, "aligner model (default: Unbabel/wmt22-cometkiwi-da for "
              "comet, else the aligner backbone's default; sentence-embedding knows minilm, labse)",
              short="am", check=path_problem),
        Param("mode", str, "banded", "banded: similarities only near the diagonal (the band doubled "
              "where needed); full: the paper's m x n matrix", choices=("banded", "full"),
              short="mode"),
        Param("band", int, 4, "half-width of the band in source sentences (mode=banded)", minimum=0,
              short="band"),
        Param("grow", int, 1, "mode=banded: most doublings of the band while the best path runs "
              "along its edge", minimum=0, maximum=20, short="gr"),
        Param("anchor", bool, True, "the path starts at (0,0) and ends at (m-1,n-1) (the paper)",
              short="anc"),
        Param("unit", str, DEFAULT_UNIT, "what is aligned and slid: each document (the paper), or each "
              "segment on its own (one score per segment: long multi-sentence segments scored uncut)",
              choices=("document", "segment"), short="unit"),
    )
    default_backbone: ClassVar[str | None] = "comet"
    default_model: ClassVar[str | None] = "Unbabel/wmt22-cometkiwi-da"
    needs: ClassVar[tuple[frozenset[str], ...]] = (frozenset({QE}), frozenset({REFERENCE}))
    aggregation: ClassVar[Aggregation] = MeanOfGroupMeans()

    def reads_neighbours(self) -> bool:
        return not self.by_segment()  # whole documents, re-segmented and aligned; or each segment alone

    def by_segment(self) -> bool:
        """unit=segment: align and slide inside each segment."""
        return self.p["unit"] == "segment"

    def __init__(self, backbone: Backbone | None = None, **params: Any) -> None:
        self._segmenter: Segmenter | None = None
        super().__init__(backbone, **params)

    def validate(self) -> None:
        self.p["chunks"] = "+".join(str(k) for k in parse_chunks(self.p["chunks"]))
        self.p["lang"] = str(self.p["lang"]).strip() or "auto"
        if self.p["aligner_model"] is None:
            name = self.p["aligner"]
            model = DEFAULT_ALIGNER_MODEL.get(name)
            if model is None:
                model = registry.load("backbone", name).default_model
            if not model:
                raise SpecError(f"asd: aligner '{name}' has no default model; give aligner_model=")
            self.p["aligner_model"] = model
        # unit=segment: the units are segments, documents and the system their means
        self.aggregation = WeightedMean() if self.by_segment() else MeanOfGroupMeans()  # type: ignore[misc]

    # -- the two backbones and the segmenter -------------------------------------------------------
    def aligner(self, scorer: Scorer | None = None) -> Backbone:
        """The aligner backbone, built by ``scorer`` (default: this metric's) to run like the scorer
        backbone (its device, precision, batch size and token budget): in a session, the scorer's own
        object when aligner and scorer are the same model (CometKiwi, the default), loaded once."""
        cls = registry.load("backbone", self.p["aligner"])
        options = {p.name: p.default for p in cls.params if p.default is not None}
        return (scorer if scorer is not None else self.scorer).backbone(
            cls, self.p["aligner_model"], like=self.backbone, **options)

    def segmenter(self) -> Segmenter:
        if self._segmenter is None:  # built once per metric (a spaCy pipeline is slow to load)
            self._segmenter = load_segmenter(self.p["segmenter"])
        return self._segmenter

    def plugins_involved(self) -> list[Any]:
        """The scorer, and the aligner and the segmenter, which decide what is scored (the aligner as the
        registry knows it: nothing is built or imported for the signature)."""
        return super().plugins_involved() + [registry.info("backbone", self.p["aligner"]), self.segmenter()]

    def _aligner_error(self, exc: ModelError) -> ModelError:
        return ModelError(
            f"asd: the aligner (aligner={self.p['aligner']}, aligner_model={self.p['aligner_model']}) "
            f"cannot be loaded: {exc}. Give the aligner's model with aligner_model= (e.g. the same "
            "local CometKiwi directory as model=), or align with sentence embeddings: "
            "aligner=sentence-embedding,aligner_model=labse (or minilm for English)"
        )

    def _aligner_kind(self, aligner: Backbone) -> str:
        try:
            caps = aligner.capabilities
        except ModelError as exc:
            raise self._aligner_error(exc) from None
        if SIMILARITY in caps and isinstance(aligner, GivesSimilarity):
            return "similarity"
        if QE in caps and not getattr(aligner, "higher_is_better", True):  # its QE scores are errors
            raise CapabilityError(
                f"asd: aligner '{aligner.name}' scores errors (lower is better), which the alignment would read "
                "as similarities backwards; align with aligner=comet (CometKiwi) or aligner=sentence-embedding, "
                f"and score with backbone={aligner.name}")
        if QE in caps:
            return "qe"
        raise CapabilityError(
            f"asd: the aligner must give similarities (SIMILARITY, e.g. aligner=sentence-embedding) or "
            f"score source + MT without a reference (QE, e.g. CometKiwi); backbone '{aligner.name}' "
            f"with model '{aligner.model_name()}' can only {' + '.join(sorted(caps)) or 'nothing of that'}"
        )

    # -- signature ------------------------------------------------------------------------------------
    def metric_fields(self) -> list[SigField]:
        fields: list[SigField] = []
        aligner = self.aligner()
        scorer_libs = {d for d, _ in (self.backbone.libraries if self.backbone is not None else ())}
        for f in super().metric_fields():
            if f.key == "unit" and self.p["unit"] == DEFAULT_UNIT:
                continue  # 0.3.0's ASD: its signatures have no unit field
            fields.append(f)
            if f.key == "segmenter":
                fields.append(SigField("segmenter_version", "segv", self.segmenter().signature_version(),
                                       is_param=False))
            elif f.key == "aligner_model":
                try:
                    afp = aligner.fingerprint()
                except ModelError as exc:
                    raise self._aligner_error(exc) from None
                fields.append(SigField("aligner_fingerprint", "afp", afp, is_param=False))
                for dist, short in aligner.libraries:
                    if dist not in scorer_libs:
                        fields.append(SigField(dist, short, dist_version(dist), is_param=False))
        return fields

    # -- stage 1: align (every side of every system in one pass) ----------------------------------------
    def _align(
        self, aligner: Backbone, kind: str, pairs: list[tuple[list[str], list[str]]], owners: list[str],
        scorer: Scorer,
    ) -> tuple[list[Alignment], dict[str, dict[str, int]], int]:
        """Align each (source sentences, target sentences) pair; ``owners[d]`` names the side
        (a system, or the reference) that pair ``d`` belongs to.  Every similarity the whole run
        needs is asked for at once and each distinct sentence pair once, so a system and a copy
        of it get the same alignment.  Returns the alignments, per-owner counters and the number
        of model calls of the run (distinct pairs a QE aligner scored, or texts an embedding
        aligner encoded)."""
        counts = {o: {"align_pairs": 0, "align_inputs_truncated": 0} for o in owners}
        calls = 0

        def score_cells(cells: list[tuple[int, int, int]]) -> list[float]:
            nonlocal calls
            asked = [(pairs[d][0][i], pairs[d][1][j]) for d, i, j in cells]
            distinct = list(dict.fromkeys(asked))
            if kind == "similarity":
                out = self.similarity_with(aligner, distinct, scorer)
                calls += int(out.counters.get("texts_embedded", 0))
            else:
                out = self.score_with(aligner, [Unit(mt=t, src=s) for s, t in distinct], scorer)
                calls += len(distinct)
            out.check(len(distinct), f"aligner '{aligner.name}'", aligner)
            out.check_numbers(f"aligner '{aligner.name}'", aligner)
            found = {pair: (float(s), bool(tr)) for pair, s, tr in zip(distinct, out.scores, out.truncated)}
            for (d, _, _), pair in zip(cells, asked):
                counts[owners[d]]["align_pairs"] += 1
                counts[owners[d]]["align_inputs_truncated"] += found[pair][1]
            return [found[pair][0] for pair in asked]

        shapes = [(len(s), len(t)) for s, t in pairs]
        aligned = align_many(shapes, score_cells, mode=self.p["mode"], band=self.p["band"],
                             grow=self.p["grow"], anchor=self.p["anchor"])
        for d, (al, (m, n)) in enumerate(zip(aligned, shapes)):
            c = counts[owners[d]]
            c["align_full_pairs"] = c.get("align_full_pairs", 0) + m * n
            c["align_band_edge_docs"] = c.get("align_band_edge_docs", 0) + int(al.band_edge)
        return aligned, counts, calls

    # -- the metric ----------------------------------------------------------------------------------------
    def check_inputs(self, testset: TestSet) -> None:
        self.check_backbone()
        use_ref = self.reference_based()
        self.require(testset, source=True, reference=use_ref,
                     why="the scorer's model is reference-based" if use_ref else "")
        self._check_aligner_languages()

    def _check_aligner_languages(self) -> None:
        """Warn when the aligner's model (by what its backbone knows) does not cover lang=."""
        covered = self.aligner().languages()
        missing = languages_not_covered(covered, parse_lang(self.p["lang"]))
        if missing:
            warnings.warn(
                f"asd: the aligner's model '{self.p['aligner_model']}' covers {', '.join(sorted(covered or ()))} "
                f"only, but lang={self.p['lang']}: sentences in {', '.join(missing)} will be aligned "
                "poorly (see 'source sentences aligned to no MT sentence' in the coverage); align with a "
                "multilingual model, e.g. aligner=sentence-embedding,aligner_model=labse, or the default "
                "CometKiwi aligner", DocMetricsWarning, stacklevel=2)

    def units(self, testset: TestSet) -> UnitPlan:
        return self.plan(testset, self.scorer)

    def plan(self, testset: TestSet, scorer: Scorer) -> UnitPlan:
        """Stage 1 (align, through ``scorer``) and the units of stage 2.

        The texts aligned and slid ("pieces") are the documents, or with unit=segment the segments
        (test-set lines).  unit=document: a chunk's doc is its document, start/end its source
        sentences inside the document.  unit=segment: a chunk's doc is its segment's document and
        start/end the segment's line (end = start + 1); each segment also has one whole-segment unit
        (group :data:`_WHOLE`) for its truncation flag; :meth:`assemble` makes one unit per segment."""
        assert testset.sources is not None
        use_ref = self.reference_based()
        by_segment = self.by_segment()
        aligner = self.aligner(scorer)
        kind = self._aligner_kind(aligner)
        seg = self.segmenter()
        src_lang, tgt_lang = parse_lang(self.p["lang"])
        ks = parse_chunks(self.p["chunks"])
        docs = testset.documents
        if by_segment:
            pieces = [(i, i + 1) for d in docs for i in range(d.start, d.end)]
            piece_doc = [k for k, d in enumerate(docs) for _ in range(d.start, d.end)]
        else:
            pieces = [(d.start, d.end) for d in docs]
            piece_doc = list(range(len(docs)))
        word = "segments" if by_segment else "documents"

        def text(lines: list[str], k: int) -> str:
            return "\n".join(lines[pieces[k][0]:pieces[k][1]])

        src_text = [text(testset.sources, k) for k in range(len(pieces))]
        src_sents = [split_document(seg, t, src_lang) for t in src_text]
        src_join = [joiner_for(src_lang, t) for t in src_text]
        live = [k for k, s in enumerate(src_sents) if s]
        if not live:
            raise InputError(
                f"asd: no {word[:-1]} of {testset.describe('source')} has a source sentence (every "
                f"source text is empty); give the source {word}"
            )

        # the target sides: the reference (for a reference-based scorer) and every system
        sides: dict[str, list[str]] = {}
        if use_ref:
            assert testset.references is not None
            sides[_REF] = testset.references
        sides.update(testset.systems)
        tgt_text = {name: [text(lines, k) for k in range(len(pieces))] for name, lines in sides.items()}
        tgt_sents = {name: {k: split_document(seg, texts[k], tgt_lang) for k in live}
                     for name, texts in tgt_text.items()}
        owners = [name for name in sides for _ in live]
        aligned, align_counts, calls = self._align(
            aligner, kind, [(src_sents[k], tgt_sents[name][k]) for name in sides for k in live], owners, scorer)

        rebuilt: dict[str, dict[int, list[str]]] = {}
        joiners: dict[str, dict[int, str]] = {}
        records: dict[str, list[dict[str, Any]]] = {}
        side_counters: dict[str, dict[str, int]] = {}
        edge_key = "align_band_edge_segments" if by_segment else "align_band_edge_docs"
        pos = 0
        for name in sides:
            rebuilt[name], joiners[name], records[name] = {}, {}, []
            als = dict(zip(live, aligned[pos:pos + len(live)]))
            pos += len(live)
            for k in live:
                joiners[name][k] = joiner_for(tgt_lang, tgt_text[name][k])
                rebuilt[name][k] = rebuild(tgt_sents[name][k], als[k].path, als[k].m, joiners[name][k])
                record = self._record(docs[piece_doc[k]].doc_id, "ref" if name == _REF else "mt",
                                      src_sents[k], tgt_sents[name][k], als[k], rebuilt[name][k],
                                      joiners[name][k])
                if by_segment:  # where the segment is: its line and its position in its document
                    line = pieces[k][0]
                    record = {"doc_id": record.pop("doc_id"), "line": line + 1,
                              "segment": line - docs[piece_doc[k]].start + 1, **record}
                records[name].append(record)
            mine = {"source_sentences": sum(len(src_sents[k]) for k in live),
                    "mt_sentences": sum(len(tgt_sents[name][k]) for k in live),
                    "placeholders": sum(x == "" for k in live for x in rebuilt[name][k]),
                    "merged_sources": sum(len(js) > 1 for k in live
                                          for js in matched_targets(als[k].path, len(src_sents[k])))}
            a = align_counts[name]
            mine.update({"align_pairs": a["align_pairs"], "align_model_calls": calls,
                         "align_full_pairs": a["align_full_pairs"],
                         "align_inputs_truncated": a["align_inputs_truncated"],
                         edge_key: a["align_band_edge_docs"]})
            side_counters[name] = mine

        shared: dict[str, int] = {}
        if use_ref:
            r = side_counters[_REF]
            shared = {"ref_" + key: r[key] for key in ("align_pairs", "align_model_calls", "align_full_pairs",
                                                      "align_inputs_truncated", edge_key)}
            shared["ref_sentences"] = r["mt_sentences"]
            shared["ref_placeholders"] = r["placeholders"]

        # stage 2: the chunks (the same windows for every system)
        policy = "keep" if self.p["short"] == "whole" else "drop"
        chunks: list[tuple[int, int, int, int, bool]] = []  # (piece index, k, start, end, partial)
        short_pieces: dict[int, int] = {}
        for d in live:
            m = len(src_sents[d])
            for k in ks:
                if m < k:
                    short_pieces[k] = short_pieces.get(k, 0) + 1
                for win in slide_windows(m, k, 1, policy):
                    chunks.append((d, k, win.start, win.end, win.partial))
        if not chunks:
            longest = max(len(src_sents[d]) for d in live)
            raise InputError(
                f"asd: no chunk to score: every {word[:-1]} has fewer sentences than the smallest chunk "
                f"size {ks[0]} (the longest has {longest}); add 1 to chunks=, or use short=whole"
            )
        shared[f"{word}_without_source_sentences"] = len(pieces) - len(live)
        for k in ks:
            if short_pieces.get(k):
                shared[f"{word}_shorter_than_k{k}"] = short_pieces[k]

        def chunk_unit(name: str, d: int, a: int, b: int) -> Unit:
            return Unit(
                mt=_join(rebuilt[name][d][a:b], joiners[name][d]),
                src=_join(src_sents[d][a:b], src_join[d]),
                ref=_join(rebuilt[_REF][d][a:b], joiners[_REF][d]) if use_ref else None,
            )

        systems: dict[str, list[ScoringUnit]] = {}
        for name in testset.systems:
            if not by_segment:
                systems[name] = [ScoringUnit(chunk_unit(name, d, a, b), d, a, b, group=f"k{k}", partial=p)
                                 for d, k, a, b, p in chunks]
                continue
            # one unit per chunk, placed on its segment's line; then each segment whole (its
            # truncation flag only: what scoring the segment in one piece would cut)
            units = [ScoringUnit(chunk_unit(name, d, a, b), piece_doc[d], pieces[d][0], pieces[d][1],
                                 group=f"k{k}", partial=p) for d, k, a, b, p in chunks]
            for d in live:
                line = pieces[d][0]
                whole = Unit(mt=testset.systems[name][line], src=testset.sources[line],
                             ref=testset.references[line] if use_ref and testset.references is not None else None)
                units.append(ScoringUnit(whole, piece_doc[d], line, line + 1, group=_WHOLE))
            systems[name] = units
        return UnitPlan(
            systems, [d.doc_id for d in docs],
            testset.n_segments if by_segment else sum(len(src_sents[d]) for d in live),
            counters={name: side_counters[name] for name in testset.systems},
            extras={name: {"alignment": records[name] + records.get(_REF, [])} for name in testset.systems},
            shared_counters=shared,
        )

    def assemble(self, plan: UnitPlan, out: BackboneOutput) -> list[Result]:
        if self.by_segment():
            results = super().assemble(*self._segment_scores(plan, out))
        else:
            results = super().assemble(plan, out)
            for r in results:  # the mean over each chunk size, before the mean over sizes
                by_k: dict[str, list[float]] = {}
                for u in r.units:
                    by_k.setdefault(u.group, []).append(u.score)
                r.extras = {"per_k": {g[1:]: math.fsum(v) / len(v) for g, v in by_k.items()}, **r.extras}
        for r in results:
            c = r.coverage.counters if r.coverage is not None else {}
            for side, key in (("MT", "placeholders"), ("reference", "ref_placeholders")):
                if c.get(key) and r.coverage is not None:
                    r.coverage.notes.append(f"{c[key]} of {c['source_sentences']} source sentences "
                                            f"aligned to no {side} sentence")
        return results

    def _segment_scores(self, plan: UnitPlan, out: BackboneOutput) -> tuple[UnitPlan, BackboneOutput]:
        """unit=segment: the plan of chunks (and whole segments) and their scores made into one unit
        per segment, scored by ASD's rule on the segment's own chunks (the mean over k of the mean of
        its k-chunks), truncated when one of its chunks was; the chunk counts, the chunk means per k
        (``extras['per_k']``, over the system's k-chunks) and segments_over_model_maximum (segments
        whose whole unit the model cut) go with each system."""
        rule = MeanOfGroupMeans()
        order = [g for g in unit_groups(u for units in plan.systems.values() for u in units) if g != _WHOLE]
        per_unit = out.unit_counters
        systems: dict[str, list[ScoringUnit]] = {}
        scores: list[float] = []
        truncated: list[bool] = []
        unit_counters: list[dict[str, int]] | None = [] if per_unit is not None else None
        counters: dict[str, dict[str, int]] = {}
        extras: dict[str, dict[str, Any]] = {}
        pos = 0
        for name, units in plan.systems.items():
            chunks: dict[int, list[int]] = {}  # line -> positions in ``out`` of its chunks
            whole: dict[int, ScoringUnit] = {}
            over = 0
            for j, u in enumerate(units, start=pos):
                if u.group == _WHOLE:
                    whole[u.start] = u
                    over += bool(out.truncated[j])
                else:
                    chunks.setdefault(u.start, []).append(j)
            mine: list[ScoringUnit] = []
            by_k: dict[str, list[float]] = {}
            for line in sorted(chunks):
                at = chunks[line]
                first = units[at[0] - pos]
                num, den = group_sums([out.scores[j] for j in at], [units[j - pos].weight for j in at],
                                      [units[j - pos].group for j in at], order)
                scores.append(rule.score(num, den))
                truncated.append(any(out.truncated[j] for j in at))
                if unit_counters is not None and per_unit is not None:
                    summed: dict[str, int] = {}
                    for j in at:
                        for key, v in per_unit[j].items():
                            summed[key] = summed.get(key, 0) + int(v)
                    unit_counters.append(summed)
                mine.append(ScoringUnit(whole[line].input if line in whole else first.input, first.doc,
                                        line, line + 1))
                for j in at:
                    by_k.setdefault(units[j - pos].group, []).append(float(out.scores[j]))
            pos += len(units)
            systems[name] = mine
            n_chunks = sum(len(v) for v in chunks.values())
            counters[name] = {**plan.counters.get(name, {}), "chunks": n_chunks,
                              "chunks_truncated": sum(bool(out.truncated[j]) for v in chunks.values() for j in v),
                              "segments_over_model_maximum": over}
            extras[name] = {"per_k": {g[1:]: math.fsum(by_k[g]) / len(by_k[g]) for g in order if g in by_k},
                            **plan.extras.get(name, {})}
        segment_plan = UnitPlan(systems, plan.documents, plan.segments_total, counters, extras,
                                dict(plan.shared_counters))
        return segment_plan, BackboneOutput(scores, truncated, dict(out.counters), unit_counters)

    def param_values(self) -> dict[str, Any]:
        d = super().param_values()
        if d.get("unit") == DEFAULT_UNIT:
            del d["unit"]  # as in the signature: 0.3.0's ASD results are unchanged
        d["aligner_fingerprint"] = self.aligner().fingerprint()
        return d

    @staticmethod
    def _record(doc_id: str, side: str, sources: list[str], targets: list[str], al: Alignment,
                rebuilt: list[str], joiner: str) -> dict[str, Any]:
        """One document's alignment, for a person to inspect (``--dump-alignment``)."""
        rows = []
        for i, js in enumerate(matched_targets(al.path, al.m)):
            rows.append({
                "src_index": i,
                "source": sources[i],
                "targets": js,
                "target_texts": [targets[j] for j in js],
                "similarities": [round(al.path_scores[j], 6) for j in js],
                "rebuilt": rebuilt[i],
            })
        return {
            "doc_id": doc_id, "side": side, "source_sentences": al.m, "target_sentences": al.n,
            "joiner": joiner, "total_similarity": round(al.total, 6), "pairs_scored": al.cells,
            "passes": al.passes, "band": al.band, "band_edge": al.band_edge,
            "placeholders": sum(1 for r in rows if not r["targets"]),
            "alignment": rows,
        }

