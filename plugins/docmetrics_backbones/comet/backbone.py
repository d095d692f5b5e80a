"""The ``comet`` backbone: COMET models (CometKiwi, COMET-DA, COMET-QE, XCOMET) via unbabel-comet.

The model is loaded with unbabel-comet's own code (``comet.download_model`` and
``comet.load_from_checkpoint``) and scored with its own ``prepare_sample`` and ``predict_step``, in
a small inference loop of our own: ``CometModel.predict`` builds a Lightning Trainer on every call
and prints banners.  The loop deduplicates identical units, sorts them by length, batches them and
restores the order; for the same inputs it gives the numbers ``model.predict`` gives.

COMET cuts inputs silently at its encoder's maximum length (RegressionMetric and
ReferencelessRegression cut each of src / mt / ref on its own; UnifiedMetric (CometKiwi) cuts the
joint ``<s> mt </s></s> src </s>`` sequence, losing the source's tail).  This backbone measures,
for every unit, whether COMET's input lost tokens and reports it in ``BackboneOutput.truncated``, and
how many in the unit's counter ``tokens_cut`` (summed over its inputs src / mt / ref; for a
UnifiedMetric, the tokens its joint sequence lost), with the total in ``BackboneOutput.counters``.

Context (``Unit.*_context``) is honoured by models with average pooling, with the semantics of
COMET's ``enable_context()``: the context sentences and the current one are joined with the
tokenizer's separator (``"ctx1 </s> ctx2 </s> current"``) and only the current sentence's tokens
are pooled.  When the joined text is too long for the encoder, the oldest context sentences are
dropped so that the current sentence is never cut because of its context; this is reported in
``BackboneOutput.counters`` whenever a unit carries context: ``contexts_shortened`` (units whose
context lost at least one sentence in at least one of their inputs) and
``context_sentences_dropped`` (sentences dropped, summed over each unit's inputs src / mt / ref).
A current sentence that alone exceeds the limit is cut as COMET cuts it (after all its context is
dropped) and flagged in ``BackboneOutput.truncated``.

Error spans: a UnifiedMetric with word-level tags (XCOMET, or any UnifiedMetric trained with
``word_level_training``) tags each MT subword ``O``/``minor``/``major``/``critical``; COMET's own
``predict_step`` turns the tag probabilities into its ``metadata.error_spans`` (argmax per subword,
consecutive tagged subwords merged into one span with the first subword's severity, the span's
character offsets from the fast tokenizer's offsets into the MT text, the confidence the mean of the
chosen tags' probabilities; with a reference, the probabilities of the three inputs weighted as
XCOMET weighs them).  This backbone reads them from the same ``predict_step`` it scores with and
returns them per unit as ``UnitRecord.spans`` (:class:`~docmetrics.values.units.UnitSpan`, offsets in
``Unit.mt``), so they equal ``model.predict(...).metadata.error_spans``.  Other models' output is
unchanged.

torch and comet are imported only when a model is loaded.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator, Sequence

from docmetrics.algorithms.context import fit_context, join_with_context
from docmetrics.plugin.backbone import (
    CAPABILITY_HELP,
    CURRENT_SENTENCE,
    QE,
    REFERENCE,
    Backbone,
    BackboneOutput,
    Unit,
)
from docmetrics.plugin.models import (
    declared_token,
    find_model,
    fingerprint,
    hub_offline,
    hub_snapshot,
    looks_like_hub_id,
    looks_like_path,
    quiet_libraries,
)
from docmetrics.values.errors import CapabilityError, ModelError, PluginError, UserError
from docmetrics.values.params import Param
from docmetrics.values.units import UnitRecord, UnitSpan

from .checkpoint import read_hparams_yaml, stored_hparams, torch_refusal

__all__ = ["CometBackbone"]

#: Models that Hugging Face only hands out after their licence is accepted.
_GATED = re.compile(r"cometkiwi|xcomet", re.IGNORECASE)
_CONTEXT_COUNTER = "context_sentences_dropped"
_SHORTENED_COUNTER = "contexts_shortened"
#: Input tokens a unit lost to the encoder's maximum length.
_CUT_COUNTER = "tokens_cut"
#: What a COMET model directory holds (hparams.yaml beside it is checked when it loads).
_LAYOUT = "hparams.yaml and checkpoints/model.ckpt"


def _cached(encoder: str) -> bool:
    """True when ``encoder`` is a local directory or a hub id whose config.json is cached (a name that
    is not a hub id: let comet / transformers say what is wrong with it)."""
    return Path(encoder).expanduser().is_dir() or not looks_like_hub_id(encoder) or hub_snapshot(encoder) is not None


def _legacy_dir(name: str) -> Path:
    """Where unbabel-comet keeps a legacy (pre-hub) model it downloaded (its get_cache_folder)."""
    return Path.home() / ".cache" / "torch" / "unbabel_comet" / name


def _looks_like_path(text: str) -> bool:
    """True for strings that can only be file-system paths (never hub ids); a .ckpt file too."""
    return looks_like_path(text) or text.endswith(".ckpt")


def _download(hub_id: str) -> Path:
    """The COMET model directory ``comet.download_model`` fetches ``hub_id`` into."""
    try:
        with quiet_libraries():
            import comet

            return Path(comet.download_model(hub_id)).parent.parent
    except KeyError:  # comet turns every failure (no network, gated, no such repo) into one KeyError
        raise OSError("no network, no access to a gated model, or no such model") from None


def _advice(name: str) -> str:
    """What to know about a COMET model that was not found, besides the standard fix."""
    if "/" not in name:  # a legacy name (wmt21-comet-mqm, ...): not on the hub; comet downloads a tarball
        return ("A name without an owner is one of unbabel-comet's legacy models "
                "(comet.models.download_utils.available_legacy_metrics), which comet downloads from Unbabel's "
                f"S3 bucket into {_legacy_dir(name)} (the model directory may be the unpacked tarball; its "
                "encoder's tokenizer, e.g. xlm-roberta-large, goes to the Hugging Face cache)")
    if _GATED.search(name):
        return (f"It is a gated model: accept its licence on https://huggingface.co/{name} and run "
                "`huggingface-cli login` on a machine with network before running docmetrics there "
                "(which also caches its encoder's tokenizer)")
    return "Running it once with network also caches its encoder's tokenizer"


def _to_device(obj: Any, device: str) -> Any:
    if device == "cpu":
        return obj
    if hasattr(obj, "to") and hasattr(obj, "dtype"):
        return obj.to(device)
    if isinstance(obj, dict):
        return type(obj)({k: _to_device(v, device) for k, v in obj.items()})
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(v, device) for v in obj)
    return obj


class CometBackbone(Backbone):
    """COMET models through unbabel-comet.

    ``model`` is a hub id (``Unbabel/wmt22-cometkiwi-da``; fetched with ``comet.download_model``,
    from the Hugging Face cache when offline), a COMET model directory (``hparams.yaml`` and
    ``checkpoints/model.ckpt``) or the ``.ckpt`` file itself.

    Capabilities depend on the model: a UnifiedMetric over mt+src (CometKiwi) gives :data:`QE`;
    one that also takes references (XCOMET) gives :data:`QE` and :data:`REFERENCE`; a
    RegressionMetric (COMET-DA) gives :data:`REFERENCE` and a ReferencelessRegression (COMET-QE)
    :data:`QE`, both with :data:`CURRENT_SENTENCE` when they pool by average.
    """

    name = "comet"
    description = "COMET models (CometKiwi, COMET-DA, COMET-QE, XCOMET) through unbabel-comet"
    default_model = "Unbabel/wmt22-cometkiwi-da"
    libraries = (("unbabel-comet", "comet"), ("transformers", "tf"), ("torch", "torch"))
    params = (
        Param("qe", bool, None, "for a model that takes a source, a reference or both (XCOMET): no = always "
              "with the reference (src + mt + ref), yes = never (src + mt); default: the metric chooses "
              "(slide scores such a model without the reference)", short="qe"),
    )

    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        if self.p.get("qe") is None:
            # Unset, qe stays out of the signature, the JSON params and the cache key: every signature and
            # cached score of a COMET model from before the parameter existed stays valid.
            del self.p["qe"]
            self.params = ()
        self._ckpt: Path | None = None
        self._model: Any = None
        self._device = "cpu"
        self._kind = ""
        self._segments: tuple[str, ...] = ()
        #: (kind, input segments, pooling) from the checkpoint's hyper-parameters, before loading.
        self._declared: tuple[str, tuple[str, ...], Any] | None = None
        #: (checkpoint, its stored hyper-parameters), read once.
        self._hparams: tuple[Path, dict[str, Any]] | None = None
        #: Token ids of the texts of one score() call (text -> ids, special tokens, not cut).
        self._ids: dict[str, list[int]] = {}

    # -- model resolution -------------------------------------------------------------------------
    def checkpoint_path(self) -> Path:
        """The ``.ckpt`` file of the model (downloads a hub id, or finds it in the local cache)."""
        if self._ckpt is None:
            self._ckpt = self._resolve_checkpoint()
        return self._ckpt

    def _resolve_checkpoint(self) -> Path:
        raw = str(self.model)
        legacy = [("unbabel-comet's model cache", _legacy_dir(raw))] if "/" not in raw else []
        found = find_model(raw, kind="COMET model", holds=("checkpoints/*.ckpt",), layout=_LAYOUT, files=(".ckpt",),
                           caches=legacy, download=_download, example="/path/to/local/checkpoint-dir",
                           advice=_advice(raw))
        if found.is_file():
            return found
        ckpt = found / "checkpoints" / "model.ckpt"
        candidates = [ckpt] if ckpt.is_file() else sorted((found / "checkpoints").glob("*.ckpt"))
        if len(candidates) != 1:
            raise ModelError(f"model directory '{raw}' holds {len(candidates)} checkpoints and no "
                             f"checkpoints/model.ckpt: expected {ckpt} next to {found / 'hparams.yaml'}")
        return candidates[0]

    # -- loading ------------------------------------------------------------------------------------
    def load(self) -> None:
        """Load the model once (later calls do nothing); prints nothing to stdout."""
        if self._model is not None:
            return
        device = self.checked_device()
        ckpt = self.checkpoint_path()
        with quiet_libraries():

            model = self._load_checkpoint(ckpt)
            from comet.models import ReferencelessRegression, RegressionMetric, UnifiedMetric

            if isinstance(model, UnifiedMetric):
                self._kind = "unified"
                self._segments = tuple(model.hparams.get("input_segments", ("mt", "src", "ref")))
            elif isinstance(model, ReferencelessRegression):
                self._kind = "referenceless"
                self._segments = ("mt", "src")
            elif isinstance(model, RegressionMetric):
                self._kind = "regression"
                self._segments = ("mt", "src", "ref")
            else:
                raise ModelError(
                    f"COMET model '{self.model}' is a {type(model).__name__}, which the comet "
                    "backbone does not score (it scores UnifiedMetric, XCOMETMetric, "
                    "RegressionMetric and ReferencelessRegression models)"
                )
            self.place(model, device)
        self._device = device
        self._model = model

    def _load_checkpoint(self, ckpt: Path) -> Any:
        root = ckpt.parent.parent
        hparams_file = root / "hparams.yaml"
        if not hparams_file.is_file():
            raise ModelError(
                f"COMET checkpoint '{ckpt}' has no hparams.yaml in {root} (a COMET model directory "
                "holds hparams.yaml and checkpoints/model.ckpt)"
            )
        yaml_hparams = read_hparams_yaml(hparams_file)
        stored = self._stored_hparams(ckpt) or yaml_hparams  # a hostile checkpoint is refused before torch

        import comet
        from comet.models import str2model

        model_class = str2model.get(str(yaml_hparams.get("class_identifier")))
        if model_class is None:
            raise ModelError(
                f"{hparams_file}: class_identifier {yaml_hparams.get('class_identifier')!r} is not "
                f"one of {', '.join(sorted(str2model))}"
            )
        encoder = stored.get("pretrained_model", yaml_hparams.get("pretrained_model"))
        moved_to = self._find_encoder(ckpt, encoder, yaml_hparams.get("pretrained_model"))
        if moved_to is None and isinstance(encoder, str) and hub_offline() and not _cached(encoder):
            raise ModelError(
                f"COMET model '{self.model}' needs the tokenizer and config of its encoder "
                f"'{encoder}', which are not in the local Hugging Face cache, and downloads are "
                "switched off (HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE). Run docmetrics once on a "
                "machine with network to cache them (in the Hugging Face cache, $HF_HOME), or set "
                f"pretrained_model in {hparams_file} to a local directory holding them"
            )
        try:
            if moved_to is None:
                return comet.load_from_checkpoint(str(ckpt), local_files_only=hub_offline())
            kwargs: dict[str, Any] = {}
            if yaml_hparams.get("layer_transformation") == "sparsemax_patch":
                kwargs["layer_transformation"] = "softmax"  # what comet.load_from_checkpoint does
            return model_class.load_from_checkpoint(
                checkpoint_path=str(ckpt),
                map_location="cpu",
                strict=False,
                load_pretrained_weights=False,
                pretrained_model=moved_to,
                local_files_only=hub_offline(),
                **kwargs,
            )
        except ModelError:
            raise
        except Exception as exc:  # noqa: BLE001 - OSError, HF errors, unpickling errors...
            refusal = torch_refusal(ckpt, exc)  # torch's own message advises loading it unsafely
            if refusal is not None:
                raise refusal from None
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ModelError(
                f"could not load COMET model '{self.model}' from {ckpt}: {reason}. COMET also needs "
                f"the tokenizer and config of its encoder '{moved_to or encoder}': when that is a "
                "hub id it must be in the Hugging Face cache (run once with network), or set "
                f"pretrained_model in {hparams_file} to a local directory"
            ) from None

    def _stored_hparams(self, ckpt: Path) -> dict[str, Any]:
        """The hyper-parameters stored in the checkpoint (read once, without torch where it can be:
        :func:`~docmetrics_backbones.comet.checkpoint.stored_hparams`)."""
        if self._hparams is None or self._hparams[0] != ckpt:
            self._hparams = (ckpt, stored_hparams(ckpt))
        return dict(self._hparams[1])

    @staticmethod
    def _find_encoder(ckpt: Path, stored: Any, in_yaml: Any) -> str | None:
        """The encoder directory to use instead of the checkpoint's ``pretrained_model``, or None
        to use that as stored.

        A local directory named in hparams.yaml wins (so editing hparams.yaml works, as with
        COMET's ``reload_hparams``).  A stored directory that no longer exists (the model was
        moved) is looked for next to the checkpoint.
        """
        root = ckpt.parent.parent
        if isinstance(in_yaml, str) and in_yaml != stored:
            p = Path(in_yaml).expanduser()
            p = p if p.is_absolute() else root / p
            if (p / "config.json").is_file():
                return str(p.resolve())
        if not isinstance(stored, str) or not _looks_like_path(stored):
            return None  # a hub id
        if Path(stored).expanduser().is_dir():
            return None
        candidates = [root / Path(stored).name, root / "encoder"]
        candidates += sorted(d for d in root.iterdir() if d.is_dir() and d.name != "checkpoints")
        for cand in candidates:
            if (cand / "config.json").is_file():
                return str(cand.resolve())
        raise ModelError(
            f"COMET checkpoint '{ckpt}' names its encoder directory '{stored}' "
            "(pretrained_model), which does not exist, and no encoder directory (config.json and "
            f"tokenizer files) lies next to the checkpoint in {root}; copy it there or set "
            f"pretrained_model in {root / 'hparams.yaml'} to its directory"
        )

    def _loaded(self) -> Any:
        self.load()
        return self._model

    # -- what the model can do --------------------------------------------------------------------
    @property
    def capabilities(self) -> frozenset[str]:
        """What the model can do: before loading, from the checkpoint's hyper-parameters (so a
        metric that cannot use the model is refused without loading its weights); after, from the
        loaded model."""
        facts = self._facts()
        if facts is None:  # hyper-parameters that do not say: load, and let loading explain
            self.load()
            facts = self._facts()
            assert facts is not None
        kind, segments, pool = facts
        caps: set[str] = set()
        if kind == "unified":
            if "src" in segments:
                caps.add(QE)
            if "ref" in segments:
                caps.add(REFERENCE)
        else:
            caps.add(QE if kind == "referenceless" else REFERENCE)
            if pool == "avg":
                caps.add(CURRENT_SENTENCE)
        qe = self.p.get("qe")
        if qe is not None:
            caps.discard(REFERENCE if qe else QE)
        return frozenset(caps)

    @property
    def gives_spans(self) -> bool:
        """Whether the model tags MT subwords with error severities (XCOMET; a UnifiedMetric with
        ``word_level_training``), so that each unit's record carries error spans: from the loaded model,
        or before loading from the checkpoint's hyper-parameters."""
        if self._model is not None:
            return self._kind == "unified" and bool(getattr(self._model, "word_level", False))
        try:
            ckpt = self.checkpoint_path()
            in_yaml = read_hparams_yaml(ckpt.parent.parent / "hparams.yaml")
        except Exception:  # noqa: BLE001 - loading says what is wrong
            return False
        if in_yaml.get("class_identifier") == "xcomet_metric":
            return True
        hp = self._stored_hparams(ckpt) or in_yaml
        return in_yaml.get("class_identifier") == "unified_metric" and bool(hp.get("word_level_training"))

    def cache_state(self) -> dict[str, str]:
        """For a model that gives error spans: a mark, so that scores cached before this backbone kept the
        spans (rows without them) are not taken for its records."""
        return {"error_spans": "predict_step"} if self.gives_spans else {}

    #: class_identifier in hparams.yaml -> the kind this backbone scores.
    _KINDS = {"unified_metric": "unified", "xcomet_metric": "unified",
              "referenceless_regression_metric": "referenceless", "regression_metric": "regression"}

    def _facts(self) -> tuple[str, tuple[str, ...], Any] | None:
        """(kind, input segments, pooling) of the model: the loaded model's, or before loading the
        checkpoint's hyper-parameters (hparams.yaml's class; pooling and segments as stored in the
        checkpoint, which is what loading uses, else as in hparams.yaml); None when they do not say."""
        if self._model is not None:
            return self._kind, self._segments, self._model.hparams.get("pool")
        if self._declared is None:
            ckpt = self.checkpoint_path()
            hparams_file = ckpt.parent.parent / "hparams.yaml"
            if not hparams_file.is_file():
                return None  # loading says what is missing
            in_yaml = read_hparams_yaml(hparams_file)
            kind = self._KINDS.get(str(in_yaml.get("class_identifier")))
            if kind is None:
                return None
            hp = self._stored_hparams(ckpt) or in_yaml
            segments = {"unified": tuple(hp.get("input_segments", ("mt", "src", "ref"))),
                        "referenceless": ("mt", "src")}.get(kind, ("mt", "src", "ref"))
            self._declared = (kind, segments, hp.get("pool"))
        return self._declared

    def why_not(self, capability: str) -> str:
        facts = self._facts()
        if facts is None:
            return super().why_not(capability)
        kind, segments, pool = facts
        qe = self.p.get("qe")
        if capability == QE and qe is False:
            return "it is given the reference (qe=no); pass qe=yes, or leave qe out, to score without it"
        if capability == REFERENCE and qe is True:
            return "it is given no reference (qe=yes); pass qe=no, or leave qe out, to score against it"
        if capability == CURRENT_SENTENCE and kind == "unified":
            return ("it pools the CLS token (it is a UnifiedMetric, as CometKiwi and XCOMET are), so it "
                    "cannot encode context and score the current sentence alone")
        if capability == CURRENT_SENTENCE:
            return f"it pools by {pool!r}, not by average, so it cannot score the current sentence alone"
        if capability == QE and kind == "regression":
            return "it is a reference-based RegressionMetric (as COMET-DA is): it needs a reference"
        if capability == REFERENCE and kind == "referenceless":
            return "it is a reference-free ReferencelessRegression (COMET-QE): it takes no reference"
        if kind == "unified":
            return f"its inputs are {' + '.join(segments)}, so it cannot {CAPABILITY_HELP.get(capability, capability)}"
        return super().why_not(capability)

    def context_separator(self) -> str:
        """The token that joins context sentences and the current sentence (the encoder
        tokenizer's separator, ``</s>`` for XLM-R): read from a local encoder's tokenizer files
        without loading the model where they say it (so a run the score cache answers loads
        nothing), else from the loaded model's tokenizer."""
        if self._model is None:
            declared = self._declared_separator()
            if declared:
                return declared
        return str(self._loaded().encoder.tokenizer.sep_token)

    def _declared_separator(self) -> str | None:
        try:
            ckpt = self.checkpoint_path()
            stored = (self._stored_hparams(ckpt) or {}).get("pretrained_model")
            wanted = read_hparams_yaml(ckpt.parent.parent / "hparams.yaml").get("pretrained_model")
            encoder = self._find_encoder(ckpt, stored, wanted) or stored
        except Exception:  # noqa: BLE001 - the model will say when it loads
            return None
        if not isinstance(encoder, str) or not Path(encoder).expanduser().is_dir():
            return None
        return declared_token(encoder, "sep_token")

    @property
    def requires_reference(self) -> bool:
        """True when the model cannot score without a reference (COMET-DA)."""
        return bool(self._loaded().requires_references())

    def fingerprint(self) -> str:
        return fingerprint(self.checkpoint_path())

    # -- scoring ----------------------------------------------------------------------------------
    def _fields(self, unit: Unit, index: int) -> tuple[str, ...]:
        """The fields of ``unit`` the model is given, in COMET's order; errors for missing ones."""
        has_src, has_ref = unit.src is not None, unit.ref is not None
        kind, segs = self._kind, self._segments
        where = f"COMET model '{self.model}'"
        if kind == "unified" and "src" in segs and "ref" in segs:
            qe = self.p.get("qe")
            has_ref = has_ref and qe is not True
            if qe is False and not has_ref:
                raise UserError(f"{where} is given the reference (qe=no), but unit {index} has none; give "
                                "references (-r), or drop qe=no to score without them")
            if not (has_src or has_ref):
                raise UserError(
                    f"{where} needs a source or a reference, but unit {index} has neither"
                )
            return ("src",) * has_src + ("mt",) + ("ref",) * has_ref
        needs_src = "src" in segs
        needs_ref = "ref" in segs
        if needs_src and not has_src:
            raise UserError(f"{where} needs the source sentence (src), but unit {index} has none")
        if needs_ref and not has_ref:
            raise UserError(
                f"{where} is reference-based and needs a reference (ref), but unit {index} has "
                "none; give references, or use a QE model such as Unbabel/wmt22-cometkiwi-da"
            )
        return ("src",) * needs_src + ("mt",) + ("ref",) * needs_ref

    def _tokenize(self, texts: Sequence[str]) -> None:
        """Token ids of each text not yet known in this score() call, with special tokens and
        without truncation, in one batched tokenizer call (no length warnings).  This is the only
        tokenization of a text: lengths, batches, truncation flags and the model's input tensors
        all come from it."""
        known = self._ids
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            tok = self._model.encoder.tokenizer
            for text, ids in zip(missing, tok(missing, verbose=False)["input_ids"]):
                known[text] = list(ids)

    def _token_counts(self, texts: Sequence[str]) -> list[int]:
        """Token counts (special tokens included, nothing cut) of ``texts``."""
        self._tokenize(texts)
        return [len(self._ids[t]) for t in texts]

    def _fit_contexts(self, items: Sequence[tuple[str, tuple[str, ...]]]) -> list[tuple[str, int]]:
        """For each ``(current, context)``: ``"ctx1 </s> ctx2 </s> current"`` with the oldest
        context sentences dropped until the text fits the encoder, and how many were dropped.

        The drop is :func:`docmetrics.algorithms.context.fit_context` on the token counts of the
        sentences (each distinct sentence tokenized once), then checked against COMET's own
        tokenization of the joined text, dropping one more while it is still too long.  The
        current sentence is never cut here: when it alone is too long, all its context is dropped
        and COMET cuts it (reported in ``truncated`` and ``tokens_cut``).
        """
        out: list[tuple[str, int]] = [(cur, 0) for cur, _ in items]
        todo = [j for j, (_, ctx) in enumerate(items) if ctx]
        if not todo:
            return out
        sep = f" {self._model.encoder.tokenizer.sep_token} "
        limit = self._model.encoder.max_positions - 2  # where COMET's encoders cut each input
        specials = 2  # <s> ... </s>: a sentence's count includes them
        sentences = list(dict.fromkeys(s for j in todo for s in (items[j][0], *items[j][1])))
        count = dict(zip(sentences, self._token_counts(sentences)))
        drop = {j: fit_context([count[c] - specials for c in items[j][1]], count[items[j][0]] - specials,
                               limit, separator_length=1, overhead=specials).dropped for j in todo}
        while todo:
            texts = [join_with_context(items[j][1][drop[j]:], items[j][0], sep) for j in todo]
            still: list[int] = []
            for j, text, n in zip(todo, texts, self._token_counts(texts)):
                if n <= limit or drop[j] >= len(items[j][1]):
                    out[j] = (text, drop[j])
                else:
                    drop[j] += 1
                    still.append(j)
            todo = still
        return out

    def _prepare(self, units: Sequence[Unit]) -> tuple[list[dict[str, str]], list[bool], list[int], bool]:
        """Per unit: the texts COMET is given (field -> text, context joined and fitted), whether
        it carries context, and how many context sentences were dropped per input (summed);
        and whether any unit carries context.  Raises for missing fields and for context on a
        model that cannot pool the current sentence."""
        caps = self.capabilities
        any_context = False
        plans: list[tuple[tuple[str, ...], bool]] = []  # per unit: its fields, context on/off
        items: list[tuple[str, tuple[str, ...]]] = []   # per (unit, field): current, context
        for i, unit in enumerate(units):
            if not isinstance(unit.mt, str):
                raise UserError(f"unit {i}: mt must be a string, not {type(unit.mt).__name__}")
            fields = self._fields(unit, i)
            contexts = {"src": unit.src_context, "mt": unit.mt_context, "ref": unit.ref_context}
            if any((unit.src_context, unit.mt_context, unit.ref_context)):
                any_context = True
                if CURRENT_SENTENCE not in caps:
                    raise CapabilityError(
                        f"COMET model '{self.model}' ({type(self._model).__name__}) cannot encode "
                        "context and score only the current sentence: that needs average pooling "
                        "(a RegressionMetric or ReferencelessRegression such as "
                        "Unbabel/wmt22-comet-da); score units without context (e.g. with slide)"
                    )
            plans.append((fields, any(contexts[f] for f in fields)))
            items += [(getattr(unit, f), tuple(contexts[f])) for f in fields]
        fitted = iter(self._fit_contexts(items))
        samples: list[dict[str, str]] = []
        dropped: list[int] = []
        for fields, _ in plans:
            sample: dict[str, str] = {}
            n_dropped = 0
            for f in fields:
                sample[f], n = next(fitted)
                n_dropped += n
            samples.append(sample)
            dropped.append(n_dropped)
        return samples, [use for _, use in plans], dropped, any_context

    def score(self, units: Sequence[Unit]) -> BackboneOutput:
        """Score ``units`` (same order and length); identical units are scored once.

        Every distinct text is tokenized once; samples are sorted by token length and cut into
        batches by a token budget (:meth:`~docmetrics.plugin.backbone.Backbone.batches`:
        ``--max-tokens``, or ``--batch-size`` for a fixed count); the model's input tensors and the
        truncation flags are built from that tokenization, and on a GPU the next batch is prepared
        while the current one runs."""
        units = list(units)
        if not units:
            return BackboneOutput(scores=[], truncated=[], unit_counters=[])
        self.load()
        self._ids = {}
        try:
            prepared, use_ctx, dropped_per_unit, any_context = self._prepare(units)
            keys: list[tuple[Any, ...]] = []
            unique: dict[tuple[Any, ...], int] = {}
            samples: list[dict[str, str]] = []
            for sample, use_context in zip(prepared, use_ctx):
                key = (use_context,) + tuple(sample.items())
                keys.append(key)
                if key not in unique:
                    unique[key] = len(samples)
                    samples.append(sample)
            self._tokenize([t for sample in samples for t in sample.values()])

            # Batches of one (fields given, context on/off) group each: COMET's prepare_sample reads
            # the fields of a batch from its first sample.
            groups: dict[tuple[Any, ...], list[int]] = {}
            for key, j in unique.items():
                groups.setdefault((key[0], tuple(samples[j])), []).append(j)
            cuda = self._device == "cuda"
            plan: list[tuple[bool, list[int]]] = []
            for (use_context, _), idx in groups.items():
                lengths = [self._length(samples[j]) for j in idx]
                plan += [(use_context, [idx[k] for k in b])
                         for b in self.batches(lengths, default_tokens=32768 if cuda else 4096)]
            scores = [0.0] * len(samples)
            tokens_cut = [0] * len(samples)
            spans: list[tuple[UnitSpan, ...]] | None = None

            def prepare(item: tuple[bool, list[int]]) -> tuple[Any, list[int]]:
                return self._inputs([samples[j] for j in item[1]])

            for (use_context, idx), (inputs, cut) in zip(plan, _prefetched(prepare, plan, enabled=cuda)):
                batch_scores, batch_spans = self._run(inputs, use_context)
                for j, s, n in zip(idx, batch_scores, cut):
                    scores[j], tokens_cut[j] = s, n
                if batch_spans is not None:
                    spans = spans if spans is not None else [()] * len(samples)
                    for j, found in zip(idx, batch_spans):
                        spans[j] = _unit_spans(found, samples[j]["mt"], self.model)
        finally:
            self._ids = {}

        cut_per_unit = [tokens_cut[unique[k]] for k in keys]
        counters = {}
        if any_context:
            counters = {_SHORTENED_COUNTER: sum(n > 0 for n in dropped_per_unit),
                        _CONTEXT_COUNTER: sum(dropped_per_unit)}
        per_unit: list[dict[str, int]] = (
            [{_SHORTENED_COUNTER: int(n > 0), _CONTEXT_COUNTER: n} for n in dropped_per_unit]
            if any_context else [{} for _ in units])
        if any(cut_per_unit):
            counters[_CUT_COUNTER] = sum(cut_per_unit)
            for c, n in zip(per_unit, cut_per_unit):
                if n:
                    c[_CUT_COUNTER] = n
        if spans is not None:  # a word-level model: one record per unit, with its error spans
            return BackboneOutput.from_records(
                [UnitRecord(scores[unique[k]], n > 0, c, spans[unique[k]])
                 for k, n, c in zip(keys, cut_per_unit, per_unit)], counters)
        return BackboneOutput(
            scores=[scores[unique[k]] for k in keys],
            truncated=[n > 0 for n in cut_per_unit],
            counters=counters,
            unit_counters=per_unit,
        )

    def _length(self, sample: dict[str, str]) -> int:
        """Tokens a sample takes in a batch (each input at most the encoder's limit)."""
        limit = self._model.encoder.max_positions - 2
        return sum(min(len(self._ids[t]), limit) for t in sample.values())

    def _field_input(self, id_lists: list[list[int]]) -> tuple[dict[str, Any], list[int]]:
        """What ``encoder.prepare_sample`` gives for these texts (cut at ``max_positions - 2`` tokens
        keeping the closing special token, padded on the right), built from our token ids; and
        how many tokens each text lost."""
        import torch

        tok = self._model.encoder.tokenizer
        limit = self._model.encoder.max_positions - 2
        tail = len(tok.build_inputs_with_special_tokens([])) - 1  # special tokens after the text
        kept = [ids if len(ids) <= limit else ids[:limit - tail] + ids[len(ids) - tail:] for ids in id_lists]
        width = max(len(ids) for ids in kept)
        pad = tok.pad_token_id if tok.pad_token_id is not None else 0
        input_ids = torch.full((len(kept), width), pad, dtype=torch.long)
        mask = torch.zeros((len(kept), width), dtype=torch.long)
        for r, ids in enumerate(kept):
            input_ids[r, :len(ids)] = torch.tensor(ids, dtype=torch.long)
            mask[r, :len(ids)] = 1
        out: dict[str, Any] = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in getattr(tok, "model_input_names", ()):
            out["token_type_ids"] = torch.zeros_like(input_ids)
        return out, [max(len(ids) - limit, 0) for ids in id_lists]

    def _inputs(self, batch: list[dict[str, str]]) -> tuple[Any, list[int]]:
        """The model's inputs for a batch (on the device) and, per sample, how many tokens COMET's
        input lost (summed over its inputs)."""
        model = self._model
        fields = list(batch[0])
        if self._kind == "unified" and getattr(model, "word_level", False):
            inputs = model.prepare_sample(batch, stage="predict")  # word-level tagging: COMET's own
            return _to_device(inputs, self._device), self._tokens_cut(batch, inputs)
        per_field = {f: self._field_input([self._ids[s[f]] for s in batch]) for f in fields}
        if self._kind != "unified":
            inputs: Any = {f"{f}_{k}": v for f in fields for k, v in per_field[f][0].items()}
            cut = [sum(per_field[f][1][r] for f in fields) for r in range(len(batch))]
            return _to_device(inputs, self._device), cut
        order = ["mt"] + [f for f in ("src", "ref") if f in fields and f in self._segments]
        joined = model.concat_inputs([per_field[f][0] for f in order], len(order) == 3)["inputs"]
        return _to_device(joined, self._device), self._tokens_cut(batch, joined)

    def _run(self, inputs: Any, use_context: bool) -> tuple[list[float], list[list[dict[str, Any]]] | None]:
        """The scores of a batch and, from a word-level model, COMET's ``error_spans`` per sample (None
        from other models)."""
        import torch

        model = self._model
        model.use_context = use_context
        try:
            with torch.inference_mode():
                prediction = model.predict_step(inputs)
        finally:
            model.use_context = False
        metadata = prediction.get("metadata") if hasattr(prediction, "get") else None
        found = metadata.get("error_spans") if metadata is not None and hasattr(metadata, "get") else None
        return prediction["scores"].float().cpu().tolist(), found

    def _tokens_cut(self, batch: list[dict[str, str]], inputs: Any) -> list[int]:
        """Per sample of a UnifiedMetric batch: how many tokens COMET's joint input lost.  Compares
        the prepared sequence lengths with the untruncated token counts, so it follows whatever rule
        COMET applied."""
        fields = list(batch[0])
        full = {f: self._token_counts([s[f] for s in batch]) for f in fields}
        # UnifiedMetric: one joint sequence in prepare_sample's order (mt, then src, then ref);
        # the last prepared input is the one with every segment.
        tok = self._model.encoder.tokenizer
        single = len(tok.build_inputs_with_special_tokens([]))
        pair = len(tok.build_inputs_with_special_tokens([], []))
        order = ["mt"] + [f for f in ("src", "ref") if f in fields]
        joint = [full["mt"][i] - single for i in range(len(batch))]
        for n, f in enumerate(order[1:]):
            joint = [
                (j if n == 0 else j - 2) + full[f][i] - single + pair
                for i, j in enumerate(joint)
            ]
        kept = inputs[-1]["attention_mask"].sum(dim=1).tolist()
        return [max(n - k, 0) for k, n in zip(kept, joint)]


def _unit_spans(found: Sequence[dict[str, Any]], mt: str, model: Any) -> tuple[UnitSpan, ...]:
    """COMET's ``error_spans`` of one sample (``start``, ``end``: character offsets into the MT text it
    was given, which is the unit's; ``severity``; ``confidence``) as :class:`UnitSpan`, in COMET's order.
    A span COMET places outside the text would be a broken model or tokenizer: PluginError."""
    out = []
    for span in found:
        start, end = int(span["start"]), int(span["end"])
        if not 0 <= start <= end <= len(mt):
            raise PluginError(f"COMET model '{model}' gave the error span {start}-{end} in an MT text of {len(mt)} "
                              f"characters ({mt[:60]!r}); its tokenizer's offsets do not match the text")
        out.append(UnitSpan(start, end, str(span["severity"]), float(span["confidence"])))
    return tuple(out)


def _prefetched(prepare: Any, items: Sequence[Any], *, enabled: bool) -> Iterator[Any]:
    """``prepare(item)`` for each item, in order; with ``enabled`` the next one is prepared on a
    helper thread while the caller runs the current one (a GPU computes while the CPU builds the
    next batch's tensors)."""
    if not enabled or len(items) < 2:
        for item in items:
            yield prepare(item)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(prepare, items[0])
        for k in range(len(items)):
            current = pending.result()
            if k + 1 < len(items):
                pending = pool.submit(prepare, items[k + 1])
            yield current
