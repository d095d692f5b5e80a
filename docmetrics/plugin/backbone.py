"""Backbones: the models that metrics run on.

A backbone is a model and knows no metric; a metric is an algorithm and knows no model.  Between them
travels plain data: a :class:`Unit` (source, MT and reference text, and for context metrics the
context sentences before the current one) in, a :class:`BackboneOutput` (one score per unit and a
truncation flag per unit) out.

A backbone declares what it can do as *capabilities* (:data:`QE`, :data:`REFERENCE`,
:data:`CURRENT_SENTENCE`, ...); a metric states what it needs, and a mismatch is a
:class:`~docmetrics.values.errors.CapabilityError` naming both.

Third parties register a backbone under the entry-point group ``docmetrics.backbones``; the README
shows a complete example.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar, ContextManager, Protocol, Sequence, runtime_checkable

from ..values.errors import SpecError, UserError
from ..values.params import Param, check_batch_size, check_max_tokens, convert_params, param_fields, path_problem
from ..values.signature import SigField
from ..values.units import BackboneOutput, Unit

__all__ = [
    "Backbone", "BackboneOutput", "Unit", "SigField", "COMMON_PARAMS", "CAPABILITY_HELP",
    "QE", "REFERENCE", "CURRENT_SENTENCE", "SIMILARITY", "FORCE_DECODE", "TOKEN_MATCHING", "PRECISIONS",
    "DEVICES", "JoinsContext", "GivesSimilarity", "TakesIdfCorpus", "build_once", "SETTINGS",
]

#: Scores a unit from source and MT alone (quality estimation).
QE = "qe"
#: Scores a unit from source, MT and a reference (the unit must carry ``ref``).
REFERENCE = "reference"
#: Honours ``Unit.*_context``: encodes the context before the current sentence and scores only
#: the current sentence's tokens.
CURRENT_SENTENCE = "current-sentence"
#: Gives a similarity between two sentences (for alignment).
SIMILARITY = "similarity"
#: Gives teacher-forced log-probabilities of an output given an input.
FORCE_DECODE = "force-decode"
#: Matches the MT's tokens with the reference's by embedding similarity (BERTScore).
TOKEN_MATCHING = "token-matching"

CAPABILITY_HELP = {
    QE: "score source + MT without a reference (quality estimation)",
    REFERENCE: "score source + MT against a reference",
    CURRENT_SENTENCE: "encode prepended context but score only the current sentence",
    SIMILARITY: "give a similarity between two sentences",
    FORCE_DECODE: "force-decode log-probabilities of an output given an input",
    TOKEN_MATCHING: "match MT tokens with reference tokens by embedding similarity (BERTScore)",
}

PRECISIONS = ("fp32", "fp16", "bf16")
DEVICES = ("auto", "cpu", "cuda")
#: How a backbone runs, besides its model and parameters (a backbone built ``like`` another shares them).
SETTINGS = ("precision", "device", "batch_size", "max_tokens", "quiet")


# -- optional protocols: what a backbone offers beyond score(); metrics test for them with isinstance --
@runtime_checkable
class JoinsContext(Protocol):
    """A backbone with :data:`CURRENT_SENTENCE` that can say how it joins context sentences (the
    separator goes into Doc-COMET's signature)."""

    def context_separator(self) -> str: ...


@runtime_checkable
class GivesSimilarity(Protocol):
    """A backbone with :data:`SIMILARITY`: a similarity for each (source-side, target-side) pair."""

    def similarity(self, pairs: Sequence[tuple[str, str]]) -> BackboneOutput: ...


@runtime_checkable
class TakesIdfCorpus(Protocol):
    """A backbone whose scores use corpus statistics (BERTScore's idf): inside the ``with`` block the
    statistics come from ``references`` (one string per reference segment)."""

    def idf_from(self, references: Sequence[str]) -> ContextManager[Any]: ...


#: Parameters every backbone takes; they are given in the metric spec.
COMMON_PARAMS: tuple[Param, ...] = (
    Param("model", str, None, "model: a hub id, a local directory, or a short name the backbone "
          "knows (default: the metric's default model)", short="m",
          check=lambda v: None if str(v).strip() else (
              "it is empty: give a hub id or a local directory (model=/path/to/model), or leave model= out for "
              "the metric's default")),
    Param("precision", str, "fp32", "numeric precision; fp16/bf16 need a GPU", choices=PRECISIONS,
          short="pr"),
)


class Backbone(abc.ABC):
    """Base class of every backbone plugin.

    Subclasses set the class attributes, implement :meth:`load`, :meth:`capabilities`,
    :meth:`score` and :meth:`fingerprint`, and may add their own :attr:`params`.
    Construction must be cheap (no model loading): :meth:`load` does the heavy work and is called
    once, on first use.
    """

    #: Entry-point name (set by the registry when loaded through it).
    name: ClassVar[str] = ""
    #: One line for ``--list`` / ``--describe``.
    description: ClassVar[str] = ""
    #: Backbone-specific parameters (besides :data:`COMMON_PARAMS`).
    params: ClassVar[tuple[Param, ...]] = ()
    #: The model used when neither the metric nor the user names one.
    default_model: ClassVar[str | None] = None
    #: Distributions whose versions can change the number; recorded in the signature as
    #: (distribution name, short key).
    libraries: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: The direction of its scores: False for a model that scores errors (MetricX's 0-25, MQM
    #: penalties), where lower is better.  The signature records it when it is not the default
    #: (``better:lower``); output keeps the model's own values.
    higher_is_better: ClassVar[bool] = True
    #: The models to suggest where :meth:`languages` leaves the text's language out.
    multilingual_hint: ClassVar[str] = "one its documentation names"
    #: Tiny randomly initialised models of the right shape that :meth:`write_sample_model` writes offline
    #: (``docmetrics sample DIR --models``): folder name -> what it mimics.  Their scores mean nothing; they
    #: run every example of the documentation without a model hub.
    sample_models: ClassVar[dict[str, str]] = {}

    def __init__(
        self,
        model: str | None = None,
        *,
        precision: str = "fp32",
        device: str = "auto",
        batch_size: int | None = None,
        max_tokens: int | None = None,
        quiet: bool = False,
        **params: Any,
    ) -> None:
        #: How to build this backbone again in another process (:meth:`recipe`).
        self._recipe: dict[str, Any] = {
            "model": model, "precision": precision, "device": device, "batch_size": batch_size,
            "max_tokens": max_tokens, "quiet": True, **params,
        }
        self.model = model or self.default_model
        if not self.model:
            raise SpecError(f"backbone '{self.name}': no model given; pass model=<hub id or directory>")
        problem = path_problem(self.model) if isinstance(self.model, str) else None
        if problem:  # probing such a name as a path would crash (File name too long, unknown ~user)
            raise SpecError(f"backbone '{self.name}': model {self.model!r}: {problem}")
        if precision not in PRECISIONS:
            raise SpecError(
                f"backbone '{self.name}': precision {precision!r} is not one of {', '.join(PRECISIONS)}"
            )
        if device not in DEVICES:
            raise SpecError(f"device={device!r} is not one of {', '.join(DEVICES)}", params=("device",))
        check_batch_size(batch_size, f"backbone '{self.name}': batch size")
        check_max_tokens(max_tokens, f"backbone '{self.name}': max tokens")
        self.precision = precision
        self.device = device
        self.batch_size = batch_size
        #: Padded tokens per batch (None: the backbone's default for the device), see :meth:`batches`.
        self.max_tokens = max_tokens
        self.quiet = quiet
        #: The backbone's own parameters, validated (defaults filled in); the same name as a metric's.
        self.p: dict[str, Any] = convert_params(f"backbone '{self.name}'", params, self.params,
                                                [p.name for p in COMMON_PARAMS])

    @classmethod
    def write_sample_model(cls, name: str, out_dir: str) -> str:
        """Write the tiny model ``name`` (a key of :attr:`sample_models`) into the folder ``out_dir`` and return
        the spec's parameters that name it: ``model=OUT_DIR``, or more where the model has parts (MetricX:
        ``model=OUT_DIR/model,tokenizer=OUT_DIR/tokenizer``)."""
        raise NotImplementedError(f"backbone '{cls.name}' writes no sample model")

    @classmethod
    def all_params(cls) -> tuple[Param, ...]:
        return COMMON_PARAMS + tuple(cls.params)

    # -- to implement -------------------------------------------------------------------------
    @abc.abstractmethod
    def load(self) -> None:
        """Load the model (idempotent). Raise ModelError with a helpful message on failure."""

    @property
    @abc.abstractmethod
    def capabilities(self) -> frozenset[str]:
        """What this backbone can do with the model it was given (may call :meth:`load`)."""

    @abc.abstractmethod
    def score(self, units: Sequence[Unit]) -> BackboneOutput:
        """Score units in batches; same order and length as ``units``."""

    @abc.abstractmethod
    def fingerprint(self) -> str:
        """A short hash of the model's weights (see :func:`docmetrics.fingerprint`)."""

    # -- provided ---------------------------------------------------------------------------------
    def recipe(self) -> tuple[type[Backbone], str, dict[str, Any]]:
        """How to build this backbone again (in a worker process or on a Ray actor): its class, its
        entry-point name and the keyword arguments it was built with.  The state that
        :meth:`export_state` gives travels separately."""
        return type(self), self.name, dict(self._recipe)

    def export_state(self) -> dict[str, Any]:
        """State set after construction that changes scores (e.g. the idf corpus of a
        :class:`TakesIdfCorpus` block), picklable, for a copy of this backbone in another process;
        :meth:`import_state` restores it there.  Default: none."""
        return {}

    def import_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`export_state` gave (default: nothing to restore)."""

    def chunk_key(self, item: Any) -> Any:
        """How the runtime orders distinct units before cutting them into chunks (each chunk is one
        :meth:`score` call, and one shard of a parallel engine): units with close keys share a
        chunk.  Default: the unit's length in characters, so chunks hold units of similar length."""
        if isinstance(item, Unit):
            return (len(item.mt) + len(item.src or "") + len(item.ref or "")
                    + sum(map(len, item.mt_context + item.src_context + item.ref_context)))
        return sum(len(x) for x in item) if isinstance(item, tuple) else 0

    def batches(self, lengths: Sequence[int], *, default_tokens: int = 8192) -> list[list[int]]:
        """Batches of indices into ``lengths`` (tokens per input, padded to the batch's longest):
        sorted by length, each within :attr:`max_tokens` padded tokens (``default_tokens`` when
        neither it nor :attr:`batch_size` is set) and :attr:`batch_size` inputs (where set).  See
        :func:`docmetrics.algorithms.batching.token_batches`."""
        from ..algorithms.batching import token_batches

        budget = self.max_tokens if self.max_tokens is not None else (
            None if self.batch_size is not None else default_tokens)
        return token_batches(lengths, max_tokens=budget, max_size=self.batch_size)

    def cache_state(self) -> dict[str, str]:
        """State beyond the model and options that changes scores (e.g. idf statistics taken from the
        test set's references), for score caches.  ``{"idf_corpus": "units-of-the-call"}``-style
        values that say "depends on the call" make caches score directly.  Default: none."""
        return {}

    def model_name(self) -> str:
        """The model as the signature records it (hub id or the path as given)."""
        return str(self.model)

    def __repr__(self) -> str:
        own = "".join(f" {p.name}={p.format(self.p.get(p.name, p.default))}" for p in self.params)
        return (f"<{type(self).__name__} {self.name} model={self.model_name()}{own} precision={self.precision} "
                f"device={self.device}>")

    def why_not(self, capability: str) -> str:
        """Why this backbone with its model cannot do ``capability``: a clause whose subject is
        "it" (the backbone with its model), for an error message that has named them.  The default
        names the capability; a backbone that knows its models' limits says what the limit is
        (COMET: the model pools the CLS token)."""
        return f"it cannot {CAPABILITY_HELP.get(capability, capability)}"

    def languages(self) -> frozenset[str] | None:
        """The languages (ISO 639-1 codes) the model handles, where the backbone knows them (an
        English-only sentence embedder: ``{"en"}``); None makes no claim (the default)."""
        return None

    def target_language(self) -> str | None:
        """The target language (ISO 639-1) of the backbone's ``lang`` parameter, where it has one and it
        is given; None otherwise (the default)."""
        return None

    def checked_device(self) -> str:
        """'cpu' or 'cuda' (resolves 'auto'), checked: asking for CUDA where there is none, or for fp16/bf16
        off CUDA, is a UserError, not a traceback.  Imports torch."""
        import torch

        device = self.device
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        elif device == "cuda" and not torch.cuda.is_available():
            why = "torch was built without CUDA" if torch.version.cuda is None else "no CUDA device is visible"
            raise UserError(f"device=cuda: {why} (torch {torch.__version__}); use device=cpu or device=auto",
                            params=("device",))
        if self.precision != "fp32" and device != "cuda":
            raise UserError(
                f"backbone '{self.name}': precision={self.precision} needs a CUDA GPU but the device is "
                f"{device}; use precision=fp32"
            )
        return device

    def place(self, model: Any, device: str) -> Any:
        """Put a torch model in eval mode on ``device`` at this backbone's precision (fp16/bf16
        cast the weights; fp32 leaves them); returns the model."""
        import torch

        model.eval()
        model.to(device)
        if self.precision == "fp16":
            model.half()
        elif self.precision == "bf16":
            model.to(torch.bfloat16)
        return model

    def extra_signature_fields(self) -> list[SigField]:
        """Backbone-specific parameters for the signature (default: its declared params)."""
        return param_fields(self.params, self.p)

    def signature_fields(self) -> list[SigField]:
        """Fields this backbone adds to a signature: backbone, model, fingerprint, its own
        parameters, precision, the direction where lower is better (``better:lower``) and library
        versions."""
        from ..values.versions import dist_version

        fields = [
            SigField("backbone", "bb", self.name),
            SigField("model", "m", self.model_name()),
            SigField("fingerprint", "fp", self.fingerprint(), is_param=False),
        ]
        fields += self.extra_signature_fields()
        fields.append(SigField("precision", "pr", self.precision))
        if not self.higher_is_better:
            fields.append(SigField("better", "better", "lower", is_param=False))
        for dist, short in self.libraries:
            fields.append(SigField(dist, short, dist_version(dist), is_param=False))
        return fields


def build_once(built: dict[tuple[Any, ...], Backbone], cls: type[Backbone], model: str | None,
               settings: dict[str, Any], options: dict[str, Any]) -> Backbone:
    """``cls(model, **settings, **options)``, kept in ``built`` by all of these, so that one is built once (one
    whose options cannot be hashed is built every time, never shared).  A backbone that cannot even be built
    (other than for a user's mistake it reports) is a PluginError naming it and its distribution."""
    from .registry import plugin_fault

    key = (cls, model, *settings.items(), tuple(sorted(options.items(), key=lambda kv: kv[0])))
    try:
        found, shared = built.get(key), True
    except TypeError:  # an option that cannot be hashed
        found, shared = None, False
    if found is None:
        with plugin_fault(cls, "when built"):
            found = cls(model, **settings, **options)
        if shared:
            built[key] = found
    return found
