"""The base class of metric plugins."""

from __future__ import annotations

import abc
from typing import Any, ClassVar, Mapping, Sequence

from ..values.errors import CapabilityError, InputError, SpecError
from ..values.params import Param
from ..values.result import Result
from ..values.signature import ParsedSignature, Signature
from ..values.testset import TestSet
from .backbone import CAPABILITY_HELP, Backbone, BackboneOutput, SigField, Unit


class Metric(abc.ABC):
    """A document-level metric: an algorithm that builds scoring units and aggregates their scores.

    Subclasses set the class attributes and implement :meth:`compute`.  Parameters are declared as
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

    def __init__(self, backbone: Backbone | None = None, **params: Any) -> None:
        self.backbone = backbone
        self.p: dict[str, Any] = {}
        for param in self.params:
            raw = params.pop(param.name, param.default)
            self.p[param.name] = param.convert(raw, owner=self.name) if raw is not None else None
        if params:
            allowed = ", ".join(p.name for p in self.params) or "none"
            raise SpecError(
                f"{self.name}: unknown parameter(s) {', '.join(sorted(params))}; allowed: {allowed}"
            )
        self.validate()
        #: A signature the user asked for (``-m "<signature>"``), to compare with after scoring.
        self.requested_signature: ParsedSignature | None = None

    # -- hooks ------------------------------------------------------------------------------------
    def validate(self) -> None:
        """Cross-parameter checks (raise SpecError naming the parameters)."""

    @abc.abstractmethod
    def compute(self, testset: TestSet) -> list[Result]:
        """Score every system of the test set; one Result per system, in the test set's order."""

    # -- provided ---------------------------------------------------------------------------------
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
        caps = self.backbone.capabilities
        if not any(alt <= caps for alt in self.needs):
            raise CapabilityError(
                f"{self.name} needs a backbone that can {self.needs_text()}; backbone "
                f"'{self.backbone.name}' with model '{self.backbone.model_name()}' can only "
                f"{' + '.join(sorted(caps)) or 'nothing of that'}"
            )
        return caps

    def metric_fields(self) -> list[SigField]:
        return [
            SigField(p.name, p.short_key, p.format(self.p[p.name]))
            for p in self.params
            if p.in_signature
        ]

    def signature(self) -> Signature:
        from ..values.versions import __version__
        fields = self.metric_fields()
        if self.backbone is not None:
            fields += self.backbone.signature_fields()
        return Signature(self.name, fields, __version__)

    def param_values(self) -> dict[str, Any]:
        d = dict(self.p)
        if self.backbone is not None:
            d["backbone"] = self.backbone.name
            d["model"] = self.backbone.model_name()
            d["precision"] = self.backbone.precision
            for p in self.backbone.params:
                d[p.name] = self.backbone.options.get(p.name, p.default)
        return d

    def score(
        self,
        hypotheses: Sequence[str],
        sources: Sequence[str] | None = None,
        references: Sequence[str] | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> Result:
        """Score one system given as Python lists (one string per segment)."""
        return self.compute(TestSet.from_lists(hypotheses, sources, references, doc_ids))[0]

    def score_systems(
        self,
        systems: Mapping[str, Sequence[str]],
        sources: Sequence[str] | None = None,
        references: Sequence[str] | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> dict[str, Result]:
        """Score several systems in one pass (identical units are scored once)."""
        results = self.compute(TestSet.from_lists(systems, sources, references, doc_ids))
        return {r.system: r for r in results}

    # -- helpers for subclasses ---------------------------------------------------------------------
    def score_units(self, units: Sequence[Unit]) -> BackboneOutput:
        """Score units with the backbone in one pass, each distinct unit once (units repeat across
        systems that agree, and across overlapping windows); results in the order of ``units``."""
        if self.backbone is None:
            raise SpecError(f"{self.name} has no backbone to score with")
        index: dict[Unit, int] = {}
        unique: list[Unit] = []
        where = []
        for u in units:
            k = index.get(u)
            if k is None:
                k = index[u] = len(unique)
                unique.append(u)
            where.append(k)
        # the persistent score cache (docmetrics.runtime.cache), when enabled, answers what it already knows
        from ..runtime.cache import active_cache

        cache = active_cache() if unique else None
        if cache is not None:
            out = cache.score(self.backbone, unique)
        else:
            out = self.backbone.score(unique) if unique else BackboneOutput([], [])
        if len(out.scores) != len(unique) or len(out.truncated) != len(unique):
            raise RuntimeError(
                f"backbone '{self.backbone.name}' returned {len(out.scores)} scores for {len(unique)} units"
            )
        return BackboneOutput([out.scores[k] for k in where], [out.truncated[k] for k in where],
                              dict(out.counters))

    def require(self, testset: TestSet, *, source: bool = False, reference: bool = False, why: str = "") -> None:
        """Raise InputError if the test set lacks what the metric needs."""
        because = f" ({why})" if why else ""
        if source and testset.sources is None:
            raise InputError(f"{self.name} needs the source: pass it with -s/--source{because}")
        if reference and testset.references is None:
            raise InputError(f"{self.name} needs a reference: pass it with -r/--reference{because}")
