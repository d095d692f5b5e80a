"""The metric template: a metric declares its units and their aggregation; this class does the rest.

A metric plugin subclasses :class:`Metric`, declares its parameters, and implements one method,
:meth:`Metric.units`: for every system of a test set, the units to score (a backbone input and where
it sits: document, segment span, weight, aggregation group).  :meth:`Metric.compute` then

1. checks the backbone and the inputs (:meth:`Metric.check_inputs`),
2. asks for the units of EVERY system (:meth:`Metric.units`; :meth:`Metric.plan` for a metric that
   needs a model to build them),
3. scores them in ONE pass, each distinct unit once, through the scorer it is given
   (:class:`Scorer`: a session's, with its score cache, engine and backbones, or the plain one here),
4. assembles per-unit, per-document and system scores with the declared :attr:`Metric.aggregation`,
   coverage and counters, and builds one :class:`~docmetrics.values.result.Result` per system.

So the same hypothesis gets the same score whatever else is in the run, and a significance test
recomputes exactly the reported number (it reads ``Result.aggregation``).  The README's "Writing a
metric" shows a complete metric in about 30 lines.
"""

from __future__ import annotations

import abc
import contextlib
import functools
import warnings
from typing import Any, Callable, ClassVar, ContextManager, Mapping, Protocol, Sequence

from ..algorithms.aggregation import Aggregation, WeightedMean, unit_groups, unit_sums
from ..algorithms.context import hypothesis_contexts, previous_sentences
from ..algorithms.scripts import outside_languages
from ..values.errors import CapabilityError, DocMetricsWarning, InputError, PluginError, SpecError
from ..values.params import Param, convert_params, find_param, param_fields, param_keys, unknown_params
from ..values.result import Coverage, DocScore, Result, UnitScore
from ..values.signature import ParsedSignature, SigField, Signature, plugins_value
from ..values.spec import MetricSpec
from ..values.testset import TestSet
from ..values.units import BackboneOutput, ScoringUnit, Unit, UnitPlan
from ..values.versions import __version__
from .backbone import CAPABILITY_HELP, QE, SETTINGS, Backbone, build_once

__all__ = ["Metric", "Scorer", "DirectScorer", "backbone_capabilities"]


class Scorer(Protocol):
    """What a metric scores through: every call a metric makes to have units scored, similarities
    computed or a further backbone built (a session's scorer adds the score cache, the engine and
    backbones built once; :class:`DirectScorer` is the plain one).  A scorer that can be closed also has
    ``check_open()``, raising once it is (a session's does: :meth:`Metric.check_open` asks it)."""

    def score(self, backbone: Backbone, units: Sequence[Unit]) -> BackboneOutput:
        """``backbone``'s scores of distinct ``units``, in their order."""
        ...

    def similarity(self, backbone: Backbone, pairs: Sequence[tuple[str, str]]) -> BackboneOutput:
        """``backbone.similarity(pairs)`` (a backbone with SIMILARITY), in the order of ``pairs``."""
        ...

    def backbone(self, cls: type[Backbone], model: str | None = None, *, like: Backbone | None = None,
                 **options: Any) -> Backbone:
        """A backbone ``cls(model, **options)`` running like ``like`` (device, precision, batch size,
        token budget), e.g. ASD's aligner beside its scorer."""
        ...


class DirectScorer:
    """The plain scorer: the backbone itself, no cache, no engine; the backbones it builds are kept (one
    per class, model and settings) for as long as the scorer."""

    def __init__(self) -> None:
        self._built: dict[tuple[Any, ...], Backbone] = {}

    def score(self, backbone: Backbone, units: Sequence[Unit]) -> BackboneOutput:
        return backbone.score(list(units)) if units else BackboneOutput([], [], {}, [])

    def similarity(self, backbone: Backbone, pairs: Sequence[tuple[str, str]]) -> BackboneOutput:
        return backbone.similarity(list(pairs)) if pairs else BackboneOutput([], [], {}, [])  # type: ignore[attr-defined]

    def backbone(self, cls: type[Backbone], model: str | None = None, *, like: Backbone | None = None,
                 **options: Any) -> Backbone:
        settings = {} if like is None else {k: getattr(like, k) for k in SETTINGS}
        return build_once(self._built, cls, model, settings, options)


def backbone_capabilities(backbone: Backbone) -> frozenset[str]:
    """``backbone.capabilities``; a plugin whose capabilities fail (or are not a set) is a PluginError
    naming it and its distribution, not a traceback."""
    from . import registry

    with registry.plugin_fault(backbone, "telling its capabilities"):
        caps = backbone.capabilities
    if not isinstance(caps, (set, frozenset)) or not all(isinstance(c, str) for c in caps):
        raise PluginError(f"{registry.describe_plugin(backbone)}: capabilities is {type(caps).__name__}, not a "
                          "frozenset of capability names (docmetrics.QE, ...)")
    return frozenset(caps)



def _scoring_the_pair(compute: Callable[..., list[Result]]) -> Callable[..., list[Result]]:
    """``compute`` of a Metric subclass, first handing a test set that carries its language pair to the metric
    built for that pair (:meth:`Metric.for_langpair`), as the base class's compute does: one place, so a
    plugin's own compute cannot score Japanese with 13a."""
    @functools.wraps(compute)
    def scoring(self: Metric, testset: TestSet, *args: Any, **kwargs: Any) -> list[Result]:
        paired = self.for_langpair(getattr(testset, "lp", None))
        if paired is not self:
            return paired.compute(testset, *args, **kwargs)
        return compute(self, testset, *args, **kwargs)
    return scoring

class Metric(abc.ABC):
    """A document-level metric: an algorithm that declares scoring units and how they aggregate.

    Subclasses set the class attributes and implement :meth:`units`.  Parameters are declared as
    :class:`~docmetrics.values.params.Param` and arrive validated in ``self.p`` (a dict).
    """

    #: Entry-point name.
    name: ClassVar[str] = ""
    #: One line for ``--list``.
    description: ClassVar[str] = ""
    #: Longer text for ``--describe`` (exact definitions, edge cases).
    details: ClassVar[str] = ""
    #: How to cite the metric (the paper that defines it).
    citation: ClassVar[str] = ""
    #: The metric's own parameters.
    params: ClassVar[tuple[Param, ...]] = ()
    #: Backbone used when the spec names none (None: the metric needs no backbone).
    default_backbone: ClassVar[str | None] = None
    #: Model used when the spec names none (None: the backbone's default).
    default_model: ClassVar[str | None] = None
    #: Alternatives of capability sets; the backbone must have all of one of them.
    needs: ClassVar[tuple[frozenset[str], ...]] = ()
    #: How unit scores make document and system scores (and every resample of a significance test).
    aggregation: ClassVar[Aggregation] = WeightedMean()
    #: Whether the metric scores against several references at once (sacrebleu's do); a metric that
    #: takes one refuses a test set with several (:meth:`check_references`) rather than pick one.
    multiple_references: ClassVar[bool] = False
    #: Decimals the command line prints the score with unless -w says otherwise (None: its default, 4).
    decimals: ClassVar[int | None] = None
    #: Whether higher scores are better, for a metric without a backbone (TER: False); a metric on a
    #: backbone takes its backbone's declaration (:meth:`is_higher_better`).
    higher_is_better: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "uses_neighbours" in vars(cls):  # 0.3.0's class attribute: refused, never silently ignored
            raise PluginError(f"metric class {cls.__qualname__}: 'uses_neighbours' was replaced by the method "
                              "reads_neighbours(self) -> bool in docmetrics 0.4; define that method instead")
        own = vars(cls).get("compute")
        if callable(own):  # a subclass's own compute scores with the test set's language pair too
            cls.compute = _scoring_the_pair(own)  # type: ignore[method-assign]

    def __init__(self, backbone: Backbone | None = None, *, scorer: Scorer | None = None, **params: Any) -> None:
        self.backbone = backbone
        self.p: dict[str, Any] = convert_params(self.name, params, self.params)  # names first, then values
        #: The parameters as given (what :meth:`for_langpair` builds a sibling from).
        self.given_params: dict[str, Any] = dict(params)
        #: The language pair the user stated (``lang=`` in the spec, ``-l``, ``defaults={"lang": ...}``; the
        #: metric's or its backbone's), which a test set's own pair does not override; None where none was.
        self.stated_lang: str | None = str(self.p["lang"]) if self.p.get("lang") and "lang" in param_keys(
            self.name, params, self.params) else None
        #: Set by :func:`docmetrics.load`: the same metric built again with more defaults (``{"lang": PAIR}``),
        #: in the same session; None for a metric built directly (then only its own ``lang`` is set).
        self.rebuild: Callable[[dict[str, Any]], Metric] | None = None
        self.validate()
        #: A signature the user asked for (``-m "<signature>"``), to compare with after scoring.
        self.requested_signature: ParsedSignature | None = None
        #: Where :meth:`compute` scores when it is given no scorer: the session's that built this metric
        #: (:func:`docmetrics.load`), else the plain :class:`DirectScorer`.
        self.scorer: Scorer = scorer if scorer is not None else DirectScorer()

    @classmethod
    def check_params(cls, raw: Mapping[str, Any]) -> tuple[dict[str, Any], type[Backbone] | None, dict[str, Any]]:
        """Check a spec's parameters (the metric's and its backbone's mixed, as a spec gives them) without
        building anything: every name first (an unknown one is named, with the allowed ones), then each value,
        then :meth:`validate`, then the backbone's names given twice.  Returns them split: the metric's (name ->
        value as given), the backbone class (None for none) and the backbone's (name -> value converted)."""
        from . import registry

        backbone_name = raw.get("backbone") or cls.default_backbone
        if backbone_name is not None and not isinstance(backbone_name, str):
            raise SpecError(f"{cls.name}: parameter 'backbone' must be a backbone's name, not "
                            f"{type(backbone_name).__name__}")
        backbone_cls = registry.load("backbone", backbone_name) if backbone_name else None
        backbone_params = backbone_cls.all_params() if backbone_cls is not None else ()
        mine = param_keys(cls.name, raw, cls.params)
        unknown = [k for k in raw if k != "backbone" and k not in mine.values()
                   and find_param(backbone_params, k) is None]
        if unknown:
            raise SpecError(unknown_params(cls.name, unknown, cls.params,
                                           (["backbone"] if backbone_name else []) + [p.name for p in backbone_params]))
        theirs: dict[str, Any] = {}
        for key, value in raw.items():
            p = find_param(backbone_params, key) if key not in mine.values() else None
            if p is not None:
                theirs[p.name] = p.convert(value, owner=f"{cls.name} (backbone {backbone_name})")
        cls(None, **{key: raw[key] for key in mine.values()})
        param_keys(cls.name, {k: v for k, v in raw.items() if k != "backbone" and k not in mine.values()},
                   backbone_params)
        return {name: raw[key] for name, key in mine.items()}, backbone_cls, theirs

    # -- hooks --------------------------------------------------------------------------------------
    def validate(self) -> None:
        """Cross-parameter checks (raise SpecError naming the parameters)."""

    def check_inputs(self, testset: TestSet) -> None:
        """Raise before any scoring if the backbone or the test set cannot serve this metric.
        Default: the backbone has one alternative of :attr:`needs`."""
        self.check_backbone()

    def check_languages(self, testset: TestSet) -> None:
        """Warn where the backbone's model covers some languages only (:meth:`Backbone.languages`: an
        English-only encoder) and the target side is in another: by the target of ``lang`` (-l) where
        given, else by a sample of the hypotheses and references (script, and common words)."""
        backbone = self.backbone
        covered = backbone.languages() if backbone is not None else None
        if not covered:
            return
        model = f"{self.name}: the model '{backbone.model_name()}' covers {', '.join(sorted(covered))} only"
        poor = ("its embeddings of that text are poor, and so is the score; use a multilingual model, e.g. "
                + backbone.multilingual_hint)
        target = backbone.target_language()
        if target is not None:
            if target not in covered:
                warnings.warn(f"{model}, but the target language is {target} (lang={backbone.p.get('lang')}): "
                              f"{poor}", DocMetricsWarning, stacklevel=2)
            return
        target_side = [(testset.describe(name), hyp) for name, hyp in testset.systems.items()]
        target_side += list(zip(testset.reference_names(), testset.all_references))
        odd = [f"{name} {why}" for name, texts in target_side if (why := outside_languages(covered, texts))]
        if odd:
            more = f"; and {len(odd) - 3} more" if len(odd) > 3 else ""
            warnings.warn(f"{model}, but {'; '.join(odd[:3])}{more}: {poor} (a guess from the text: -l SRC-TGT "
                          "states the language)", DocMetricsWarning, stacklevel=2)

    def reads_neighbours(self) -> bool:
        """Whether this configuration's units read segments other than their own (windows, previous
        sentences as context, an alignment over the document; a metric whose context is a parameter
        says k > 0).  Default: no."""
        return False

    def check_neighbours(self, testset: TestSet) -> None:
        """Refuse a test set whose neighbouring segments were not neighbours in the original (a VAT
        selection of single segments) when this metric reads neighbours."""
        broken = testset.broken_neighbours() if self.reads_neighbours() else None
        if broken:
            raise InputError(
                f"{self.name} reads neighbouring segments (windows or context), but {broken}: it would "
                "join sentences that were never adjacent. Select whole documents instead (docmetrics "
                "vat --item document), or score the selection one segment at a time (slide with w=1, "
                "doc-* with k=0)"
            )

    def truncation_fix(self) -> str:
        """What to do when units are cut at the model's maximum length (said with the count)."""
        return "use a model that takes longer inputs, or shorter units"

    def check_references(self, testset: TestSet) -> None:
        """Refuse several references unless the metric scores against several
        (:attr:`multiple_references`): none of it is silently left out."""
        refs = testset.all_references
        if len(refs) > 1 and not self.multiple_references:
            raise InputError(
                f"{self.name} takes one reference, and {len(refs)} were given "
                f"({', '.join(testset.reference_names())}): its paper defines no way to combine several; give "
                "one reference (score each in its own run to compare them), or use a metric that takes several "
                "(bleu, chrf, ter and their d- forms, as sacrebleu computes them)")

    @abc.abstractmethod
    def units(self, testset: TestSet) -> UnitPlan:
        """Every system's units (see :class:`~docmetrics.values.units.UnitPlan`): a pure function of
        the test set and the metric's parameters (and its backbone's capabilities)."""

    def plan(self, testset: TestSet, scorer: Scorer) -> UnitPlan:
        """The units :meth:`compute` scores.  Default: :meth:`units`.  A metric that needs a model to
        build its units (ASD's alignment) overrides this and scores through ``scorer`` (with
        :meth:`score_with` / :meth:`similarity_with`, which dedup and cache like the main pass)."""
        return self.units(testset)

    def scoring_scope(self, testset: TestSet) -> ContextManager[Any]:
        """A context the units are built and scored in (e.g. idf statistics from the test set's
        references).  Default: none."""
        return contextlib.nullcontext()

    # -- the language pair a test set carries ---------------------------------------------------------
    def takes_lang(self) -> bool:
        """Whether this metric or its backbone has a ``lang`` parameter (a language pair that changes the
        number: BLEU's tokenizer, BERTScore's model and baseline, Prism's language codes, ASD's rules)."""
        if find_param(self.params, "lang") is not None:
            return True
        return self.backbone is not None and find_param(type(self.backbone).params, "lang") is not None

    def for_langpair(self, lp: str | None) -> Metric:
        """The metric that scores a test set of language pair ``lp`` (``TestSet.lp``), as ``-l`` makes the
        command score it: this metric where ``lp`` is None, where it takes no language pair (chrF, TER:
        sacrebleu gives them no language-dependent default), or where the user stated one (:attr:`stated_lang`:
        ``lang=`` in the spec, ``-l``, ``defaults=``; it wins, with a warning where its target language is
        not the test set's); else the same metric built with ``lang=lp`` (once per pair), e.g. BLEU with
        sacrebleu's tokenizer for the target language (ja-mecab, zh, ko-mecab)."""
        if not lp or not self.takes_lang():
            return self
        stated_lang = getattr(self, "stated_lang", None)  # a subclass may skip Metric.__init__
        if stated_lang is not None:
            stated = _target(stated_lang)
            if stated is not None and stated != _target(lp):
                warnings.warn(f"{self.name}: lang={stated_lang} was given, but the test set's language pair "
                              f"is {lp}; scored with lang={stated_lang} as given (leave lang= and -l out to "
                              "score with the test set's pair)", DocMetricsWarning, stacklevel=3)
            return self
        paired = self.__dict__.setdefault("_paired", {})
        if lp not in paired:
            rebuild = getattr(self, "rebuild", None)
            if rebuild is not None:
                made = rebuild({"lang": lp})
            elif find_param(self.params, "lang") is not None:
                given = {**getattr(self, "given_params", {}), "lang": lp}
                made = type(self)(self.backbone, scorer=self.scorer, **given)
            else:
                return self  # only the backbone takes a pair, and there is no session to build it again in
            made.stated_lang = lp
            made.requested_signature = getattr(self, "requested_signature", None)
            paired[lp] = made
        return paired[lp]

    # -- the template -------------------------------------------------------------------------------
    @_scoring_the_pair
    def compute(self, testset: TestSet, scorer: Scorer | None = None) -> list[Result]:
        """Score every system of the test set through ``scorer`` (default: :attr:`scorer`); one Result
        per system, in the test set's order.  A test set that carries its language pair is scored with it
        (:meth:`for_langpair`), here and in a subclass's own compute."""
        scorer = scorer if scorer is not None else self.scorer
        self.check_references(testset)
        self.check_inputs(testset)
        self.check_languages(testset)
        self.check_neighbours(testset)
        with self.scoring_scope(testset):
            plan = self.plan(testset, scorer)
            flat = [u.input for units in plan.systems.values() for u in units]
            out = self.score_with(self.backbone, flat, scorer)
        return self.assemble(plan, out)

    def score_with(self, backbone: Backbone | None, units: Sequence[Unit],
                   scorer: Scorer | None = None) -> BackboneOutput:
        """Score ``units`` with ``backbone`` through ``scorer`` (default: :attr:`scorer`) in one pass,
        each distinct unit once (units repeat across systems that agree and across overlapping
        windows); results in the order of ``units``, with per-unit counters where the backbone gives
        them."""
        if backbone is None:
            raise SpecError(f"{self.name} has no backbone to score with")
        scorer = scorer if scorer is not None else self.scorer
        index: dict[Unit, int] = {}
        where = [index.setdefault(u, len(index)) for u in units]
        distinct = list(index)
        out = scorer.score(backbone, distinct) if distinct else BackboneOutput([], [], {}, [])
        out.check(len(distinct), f"backbone '{backbone.name}'", backbone)
        out.check_numbers(f"backbone '{backbone.name}'", backbone, distinct)
        records = out.records()
        return BackboneOutput.from_records([records[k] for k in where], out.counters)

    def similarity_with(self, backbone: Backbone, pairs: Sequence[tuple[str, str]],
                        scorer: Scorer | None = None) -> BackboneOutput:
        """``backbone.similarity(pairs)`` (a :class:`~docmetrics.plugin.backbone.GivesSimilarity`
        backbone) through ``scorer`` (default: :attr:`scorer`), so alignments run where the scoring
        runs (worker processes, Ray)."""
        return (scorer if scorer is not None else self.scorer).similarity(backbone, pairs)

    def assemble(self, plan: UnitPlan, out: BackboneOutput) -> list[Result]:
        """Results from a plan and the scores of its units (in the plan's order)."""
        signature = self.signature()
        unit_signature = self.unit_signature()
        params = self.param_values()
        agg = self.aggregation
        groups = unit_groups(u for units in plan.systems.values() for u in units)
        results = []
        records = out.records()
        pos = 0
        for system, units in plan.systems.items():
            span = slice(pos, pos + len(units))
            pos += len(units)
            unit_scores = [
                UnitScore(plan.documents[u.doc], u.start, u.end, float(r.score), float(u.weight), bool(r.truncated),
                          u.partial, u.group, u.stats, r.spans, r.answer)
                for u, r in zip(units, records[span])
            ]
            score = self._aggregate(unit_scores, groups)
            by_doc: dict[int, list[UnitScore]] = {}
            for u, us in zip(units, unit_scores):
                by_doc.setdefault(u.doc, []).append(us)
            docs = [DocScore(doc_id, self._aggregate(by_doc[d], groups) if d in by_doc else None,
                             len(by_doc.get(d, ())))
                    for d, doc_id in enumerate(plan.documents)]
            counters = dict(plan.counters.get(system, {}))
            counters.update(plan.shared_counters)
            counters.update(self._system_counters(out, span, len(plan.systems)))
            covered = {(u.doc, i) for u in units for i in range(u.start, u.end)}
            coverage = Coverage(
                segments_total=plan.segments_total, segments_scored=len(covered), units=len(units),
                units_truncated=sum(u.truncated for u in unit_scores),
                documents_total=len(plan.documents), documents_scored=len(by_doc),
                counters=counters, can_truncate=self.backbone is not None,
            )
            results.append(Result(system, self.name, score, signature, params, unit_scores, docs,
                                  coverage, dict(plan.extras.get(system, {})), agg.name,
                                  decimals=self.decimals, higher_is_better=self.is_higher_better(),
                                  unit_signature=unit_signature))
        return results

    def _aggregate(self, units: Sequence[UnitScore], groups: Sequence[str]) -> float:
        num, den = unit_sums(units, groups)
        return self.aggregation.score(num, den)

    @staticmethod
    def _system_counters(out: BackboneOutput, span: slice, n_systems: int) -> dict[str, int]:
        """A system's share of the backbone's counters: the sum over its units where the backbone
        gives per-unit counters (in the order of the backbone's totals); otherwise the totals when
        they are all zero or there is one system, else the totals under ``run_*`` names (they
        count the distinct units of the whole run and cannot be split)."""
        if out.unit_counters is None:
            if n_systems == 1 or not any(out.counters.values()):
                return {k: int(v) for k, v in out.counters.items()}
            return {f"run_{k}": int(v) for k, v in out.counters.items()}
        sums: dict[str, int] = {}
        for c in out.unit_counters[span]:
            for k, v in c.items():
                sums[k] = sums.get(k, 0) + int(v)
        order = {k: i for i, k in enumerate(out.counters)}
        return {k: sums[k] for k in sorted(sums, key=lambda k: (order.get(k, len(order)), k))}

    # -- provided -----------------------------------------------------------------------------------
    def is_higher_better(self) -> bool:
        """The direction of this metric's scores: its backbone's declaration (``Backbone.higher_is_better``:
        False for MetricX) where it has one, else the metric's own (:attr:`higher_is_better`)."""
        if self.backbone is not None:
            return bool(getattr(self.backbone, "higher_is_better", True))
        return bool(self.higher_is_better)

    @classmethod
    def needs_text(cls) -> str:
        if not cls.needs:
            return "no backbone"
        alts = [" + ".join(sorted(a)) for a in cls.needs]
        return " or ".join(alts)

    @classmethod
    def needs_help(cls) -> list[str]:
        caps = sorted({c for alt in cls.needs for c in alt})
        return [f"{c}: {CAPABILITY_HELP.get(c, '')}" for c in caps]

    def check_backbone(self) -> frozenset[str]:
        """The backbone's capabilities, if it satisfies one alternative of :attr:`needs`."""
        if not self.needs:
            return frozenset()
        if self.backbone is None:
            raise SpecError(f"{self.name} needs a backbone ({self.needs_text()})")
        caps = backbone_capabilities(self.backbone)
        if not any(alt <= caps for alt in self.needs):
            closest = min(self.needs, key=lambda alt: len(alt - caps))
            why = "; ".join(self.backbone.why_not(c) for c in sorted(closest - caps))
            raise CapabilityError(
                f"{self.name} needs a backbone that can {self.needs_text()}; backbone "
                f"'{self.backbone.name}' with model '{self.backbone.model_name()}' can only "
                f"{' + '.join(sorted(caps)) or 'nothing of that'}: {why}"
            )
        return caps

    def reference_based(self) -> bool:
        """Whether the backbone scores against a reference (it cannot do :data:`QE`, e.g.
        wmt22-comet-da): metrics that take either kind (SLIDE, ASD) then put the reference in units."""
        return self.backbone is not None and QE not in backbone_capabilities(self.backbone)

    def metric_fields(self) -> list[SigField]:
        return param_fields(self.params, self.p)

    def signature(self) -> Signature:
        fields = self.metric_fields()
        if self.backbone is not None:
            fields += self.backbone.signature_fields()
        return Signature(self.name, fields + self.plugin_fields(), __version__)

    def plugins_involved(self) -> list[Any]:
        """The plugins whose code computes this metric's numbers (classes, instances, or the registry's
        :class:`~docmetrics.plugin.registry.PluginInfo` of one): the metric and its backbone.  A metric that
        uses more (ASD: an aligner and a segmenter) adds them, so that the signature's ``plugins`` field
        names every third-party distribution among them."""
        return [type(self)] + ([self.backbone] if self.backbone is not None else [])

    def plugin_versions(self) -> dict[str, str]:
        """``{distribution: version}`` of every plugin of :meth:`plugins_involved` that another distribution
        than docmetrics registers (the registry's record of where each entry point comes from)."""
        from . import registry

        out: dict[str, str] = {}
        for plugin in self.plugins_involved():
            meta = registry.origin_of(plugin)
            if meta is not None and meta.distribution and not meta.first_party:
                out[meta.distribution] = meta.dist_version or "unknown"
        return out

    def plugin_fields(self) -> list[SigField]:
        """The ``plugins`` field (third-party distributions and their versions), or nothing where every
        plugin involved is docmetrics' own: first-party signatures stay as they were."""
        versions = self.plugin_versions()
        return [SigField("plugins", "pl", plugins_value(versions), is_param=False)] if versions else []

    def unit_signature(self) -> Signature | None:
        """The signature of the unit scores, where they are computed otherwise than :meth:`signature`
        says (sacrebleu's sentence BLEU uses effective order, its corpus BLEU does not); None (the
        default) where the unit scores are computed as the signature says."""
        return None

    def spec(self) -> str:
        """The spec that loads this metric again (``docmetrics.load(metric.spec())``): every parameter,
        defaults included, then the backbone, its model and parameters and the precision.  Cheap: it
        reads no model (:meth:`signature` adds the fingerprint and the versions)."""
        params = {p.name: p.format(self.p[p.name]) for p in self.params}
        if self.backbone is not None:
            params["backbone"] = self.backbone.name
            params["model"] = self.backbone.model_name()
            params.update({p.name: p.format(self.backbone.p.get(p.name, p.default)) for p in self.backbone.params})
            params["precision"] = self.backbone.precision
        return MetricSpec(self.name, params).format()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec()}>"

    def param_values(self) -> dict[str, Any]:
        long_keys = {p.name: p.long_key for p in self.params}
        d = {long_keys.get(k, k): v for k, v in self.p.items()}
        if self.backbone is not None:
            d["backbone"] = self.backbone.name
            d["model"] = self.backbone.model_name()
            d["precision"] = self.backbone.precision
            for p in self.backbone.params:
                d[p.name] = self.backbone.p.get(p.name, p.default)
        return d

    def score(
        self,
        hypotheses: Sequence[str],
        sources: Sequence[str] | None = None,
        references: Sequence[str] | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> Result:
        """Score one system given as Python lists (one string per segment)."""
        self.check_open()
        return self.compute(TestSet.from_lists(hypotheses, sources, references, doc_ids))[0]

    def score_systems(
        self,
        systems: Mapping[str, Sequence[str]],
        sources: Sequence[str] | None = None,
        references: Sequence[str] | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> dict[str, Result]:
        """Score several systems in one pass (identical units are scored once)."""
        self.check_open()
        results = self.compute(TestSet.from_lists(systems, sources, references, doc_ids))
        return {r.system: r for r in results}

    def check_open(self) -> None:
        """Raise where the session this metric scores in is closed, whether or not the metric has a
        backbone (a session's scorer raises; the plain one never does)."""
        check = getattr(self.scorer, "check_open", None)  # optional: a Scorer need not close
        if check is not None:
            check()

    # -- helpers for subclasses ---------------------------------------------------------------------
    @staticmethod
    def per_segment(testset: TestSet, make: Callable[[str, int], Unit]) -> UnitPlan:
        """The plan of a sentence-level metric: for every system and segment ``i``, one unit
        ``make(system_name, i)`` covering line ``i`` of its document, weight 1."""
        doc_of = [0] * testset.n_segments
        for d, doc in enumerate(testset.documents):
            for i in range(doc.start, doc.end):
                doc_of[i] = d
        systems = {
            name: [ScoringUnit(make(name, i), doc_of[i], i, i + 1) for i in range(testset.n_segments)]
            for name in testset.systems
        }
        return UnitPlan(systems, [d.doc_id for d in testset.documents], testset.n_segments)

    def context_plan(self, testset: TestSet, k: int, *, source: bool, reference: bool,
                     hypothesis_context_from_reference: bool) -> UnitPlan:
        """The plan of a context metric (Vernikos et al. 2022: Doc-COMET, Doc-BERTScore, Doc-Prism):
        for every system and segment ``i``, one unit of its hypothesis (and the source / reference
        where asked for) with the previous ``k`` sentences of each side as context; the hypothesis
        gets the reference's previous sentences with ``hypothesis_context_from_reference`` (and a
        reference), else its own.  Weight 1, one group (:meth:`per_segment`)."""
        documents = testset.documents
        src = testset.sources if source else None
        ref = testset.references if reference else None
        src_ctx = previous_sentences(src, documents, k) if src is not None else None
        ref_ctx = previous_sentences(ref, documents, k) if ref is not None else None
        hyp_ctx = hypothesis_contexts(testset.systems, documents, k,
                                      ref_ctx if hypothesis_context_from_reference else None)

        def unit(name: str, i: int) -> Unit:
            return Unit(mt=testset.systems[name][i], src=src[i] if src is not None else None,
                        ref=ref[i] if ref is not None else None, mt_context=hyp_ctx[name][i],
                        src_context=src_ctx[i] if src_ctx is not None else (),
                        ref_context=ref_ctx[i] if ref_ctx is not None else ())

        return self.per_segment(testset, unit)

    def require(self, testset: TestSet, *, source: bool = False, reference: bool = False, why: str = "") -> None:
        """Raise InputError if the test set lacks what the metric needs."""
        because = f" ({why})" if why else ""
        if source and testset.sources is None:
            raise InputError(f"{self.name} needs the source: pass it with sources={because} (JSONL input: a 'src' "
                             "in every object)", params=("sources",))
        if reference and testset.references is None:
            raise InputError(f"{self.name} needs a reference: pass it with references={because} (JSONL input: a "
                             "'ref' in every object)", params=("references",))


def _target(lp: str) -> str | None:
    """The target language of a pair (``en-ja_JP`` -> ``ja``); None where ``lp`` is no pair (ASD's ``auto``)."""
    from ..values.langpair import parse_langpair

    try:
        return parse_langpair(lp).target.language
    except SpecError:
        return None
