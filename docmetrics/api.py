"""The library API: turn a spec, a preset name or a signature into a ready metric.

>>> import docmetrics
>>> metric = docmetrics.load("slide:w=6,s=6,model=/path/to/cometkiwi")     # doctest: +SKIP
>>> result = metric.score(hyps, sources=srcs, doc_ids=ids)                  # doctest: +SKIP
>>> result.score, str(result.signature)                                     # doctest: +SKIP

Every metric belongs to a :class:`~docmetrics.runtime.session.Session` (its score cache, engine and the
backbones it built): ``load()`` makes one per metric unless given one, and metrics of one session on the
same model share one loaded model::

    with docmetrics.Session(cache="scores.sqlite") as session:
        a = docmetrics.load("slide:w=6,s=6", session=session)
        b = docmetrics.load("slide:w=2,s=1", session=session)   # the same CometKiwi, loaded once
"""

from __future__ import annotations

import functools
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .plugin import presets, registry
from .plugin.backbone import COMMON_PARAMS
from .plugin.metric import Metric
from .runtime.cache import ScoreCache, default_path, environment_path
from .runtime.engines import make_engine
from .runtime.session import FROM_ENVIRONMENT, Session
from .values.errors import DocMetricsWarning, PluginError, SpecError
from .values.io import is_jsonl, read_lines, read_testset, same_file
from .values.params import Param, check_batch_size, find_param
from .values.result import Result
from .values.sacrebleu_signature import read_sacrebleu_signature, with_mecab_fact
from .values.samples import SAMPLES
from .values.signature import (
    PLUGINS_KEYS,
    ParsedSignature,
    looks_like_signature,
    parse_plugins_value,
    parse_signature,
)
from .values.spec import parse_spec
from .values.testset import TestSet

#: The API: ``load``, ``build`` and ``resolve`` (defined here), and what they take and give,
#: defined in their own modules: a :class:`Session` (its score cache: a path, :func:`default_path` - the file the
#: command line uses - a :class:`ScoreCache`, None or :data:`FROM_ENVIRONMENT`, the file
#: ``$DOCMETRICS_SCORE_CACHE`` names: :func:`environment_path`; its engine: :func:`make_engine`),
#: a :class:`TestSet` (:func:`read_testset`, JSONL where :func:`is_jsonl`, :func:`read_lines`; :func:`same_file`
#: tells whether two paths name one file), a :class:`Result`, a metric's :class:`Param`, a spec, preset or signature
#: (:func:`parse_spec`, :mod:`presets`, :func:`parse_signature`, :func:`looks_like_signature`,
#: :func:`read_sacrebleu_signature`); the sample data (:data:`SAMPLES`, :func:`write_sample`).
__all__ = ["load", "build", "resolve", "Session", "FROM_ENVIRONMENT", "ScoreCache", "default_path",
           "environment_path", "make_engine", "TestSet", "read_testset", "is_jsonl", "read_lines", "same_file",
           "Result", "Param", "parse_spec", "presets", "parse_signature", "looks_like_signature",
           "read_sacrebleu_signature", "SAMPLES", "write_sample", "WrittenSample"]


def resolve(text: str) -> tuple[str, dict[str, str], ParsedSignature | None]:
    """(metric name, raw parameters, parsed signature or None) for a spec, preset or signature (ours,
    or sacrebleu's: ``BLEU|nrefs:1|...`` is the bleu metric with those options, compared after scoring)."""
    text = text.strip()
    sacre = read_sacrebleu_signature(text)
    if sacre is not None:
        spec = parse_spec(sacre.spec)
        return spec.name, dict(spec.params), sacre.expected
    if looks_like_signature(text):
        parsed = parse_signature(text)
        return parsed.metric, {}, with_mecab_fact(parsed)
    spec = parse_spec(text)
    preset = presets.get(spec.name)
    if preset is not None and spec.name not in registry.names("metric"):
        base = parse_spec(preset.spec)
        merged = dict(base.params)
        merged.update(spec.params)
        return base.name, merged, None
    return spec.name, dict(spec.params), None


def _params_from_signature(
    parsed: ParsedSignature, metric_cls: type[Metric]
) -> dict[str, str]:
    """The parameters of a signature under its keys (long or short: :meth:`Metric.check_params` names one
    given twice), leaving out environment fields (fingerprint, versions: compared after scoring)."""
    backbone_name = parsed.get("backbone", "bb") or metric_cls.default_backbone
    backbone_params = registry.load("backbone", backbone_name).all_params() if backbone_name else ()
    raw = {key: value for key, value in parsed.items
           if find_param(metric_cls.params, key) or find_param(backbone_params, key)}
    named = [value for key, value in parsed.items if key in ("backbone", "bb")]
    if len(named) > 1:
        raise SpecError(f"signature of {parsed.metric}: parameter 'backbone' is given twice (as 'backbone' and "
                        "'bb'); give each field once")
    return {"backbone": named[0], **raw} if named else raw


def load(
    text: str,
    *,
    device: str = "auto",
    batch_size: int | None = None,
    max_tokens: int | None = None,
    precision: str | None = None,
    quiet: bool = True,
    defaults: dict[str, Any] | None = None,
    cache: Any = FROM_ENVIRONMENT,
    session: Session | None = None,
) -> Metric:
    """A metric, ready to score, from ``"NAME:key=value,..."``, a preset name or a signature.

    ``session``: the :class:`~docmetrics.runtime.session.Session` the metric scores in (its cache,
    engine, backbones and defaults; ``device``, ``batch_size``, ``max_tokens`` and ``precision`` given
    here override the session's for this metric's backbone, and ``cache`` must be left out).
    Without one, a session of the metric's own is made from those arguments: ``cache`` is a
    :class:`~docmetrics.runtime.cache.ScoreCache` or a path to answer from and fill, ``None`` for none,
    and by default the one ``$DOCMETRICS_SCORE_CACHE`` names (read now).

    ``precision`` is the default when the spec does not set ``precision=`` (fp32 if neither does).
    ``defaults`` gives values for parameters the spec does not set, applied only where the metric or
    its backbone has such a parameter (the CLI passes ``-l en-de`` as ``{"lang": "en-de"}``).
    """
    if not isinstance(text, str):
        raise SpecError(f"docmetrics.load: give a metric spec as a string (e.g. 'slide:w=6,s=6'), not "
                        f"{type(text).__name__}")
    name, raw, parsed = resolve(text)
    named = _named_plugins(parsed)
    try:
        metric_cls = registry.load("metric", name)
        if parsed is not None and read_sacrebleu_signature(text.strip()) is None:  # ours: its fields are the spec
            raw = _params_from_signature(parsed, metric_cls)
        metric = build(metric_cls, raw, device=device, batch_size=batch_size, max_tokens=max_tokens,
                       precision=precision, quiet=quiet, defaults=defaults, cache=cache, session=session)
    except PluginError as exc:
        missing = [f"{d} {v}" for d, v in named.items() if registry.installed_version(d) is None]
        if not missing:
            raise
        raise PluginError(f"{exc}; the signature's field plugins names {', '.join(missing)}, which is not "
                          f"installed: {_pip_install(named, missing)}") from exc
    metric.requested_signature = parsed
    differences = _plugin_differences(named, metric) if parsed is not None and named else []
    if differences:
        warnings.warn(DocMetricsWarning("this run differs from the signature it was given in: "
                                        + "; ".join(differences)), stacklevel=2)
    return metric


def _named_plugins(parsed: ParsedSignature | None) -> dict[str, str]:
    """``{distribution: version}`` of a signature's ``plugins`` field; empty where it has none."""
    value = parsed.get(*PLUGINS_KEYS) if parsed is not None else None
    return parse_plugins_value(value) if value is not None else {}


def _pip_install(named: dict[str, str], which: list[str]) -> str:
    return "pip install " + " ".join(f"'{d}=={v}'" for d, v in named.items() if f"{d} {v}" in which)


def _plugin_differences(named: dict[str, str], metric: Metric) -> list[str]:
    """Where the third-party distributions a signature names (``named``) are not those this run's plugins
    come from at those versions (the signature's field ``plugins``), one phrase each."""
    used = {registry.normalize_dist(d): (d, v) for d, v in metric.plugin_versions().items()}
    out = []
    for dist, version in named.items():
        here = used.pop(registry.normalize_dist(dist), None)
        fix = f"pip install '{dist}=={version}' reproduces it"
        if here is not None:
            if here[1] != version:
                out.append(f"plugins: signature has {dist} {version}, this run has {here[0]} {here[1]}; {fix}")
            continue
        installed = registry.installed_version(dist)
        if installed is None:
            out.append(f"plugins: signature has {dist} {version}, which is not installed; {fix}")
        else:
            out.append(f"plugins: signature has {dist} {version}; this run uses no plugin of it (installed: "
                       f"{installed})")
    for dist, version in used.values():
        out.append(f"plugins: this run has {dist} {version}, which the signature does not name")
    return out


def build(
    metric_cls: type[Metric],
    raw: dict[str, Any],
    *,
    device: str = "auto",
    batch_size: int | None = None,
    max_tokens: int | None = None,
    precision: str | None = None,
    quiet: bool = True,
    defaults: dict[str, Any] | None = None,
    cache: Any = FROM_ENVIRONMENT,
    session: Session | None = None,
) -> Metric:
    """A metric from its class and raw parameters (metric and backbone parameters mixed), in
    ``session`` (or a session of its own, see :func:`load`)."""
    check_batch_size(batch_size)
    if session is not None and not isinstance(session, Session):
        raise TypeError(f"docmetrics.load: session= takes a docmetrics.Session (or None, for a session of its own), "
                        f"not {type(session).__name__} {session!r:.60}")
    if session is None:
        session = Session(cache=cache, device=device, precision=precision, batch_size=batch_size,
                          max_tokens=max_tokens, quiet=quiet)
        overrides: dict[str, Any] = {}
    else:
        if cache is not FROM_ENVIRONMENT:
            raise SpecError("docmetrics.load: give the score cache to the Session, not beside session=")
        overrides = {k: v for k, v in (("device", None if device == "auto" else device),
                                       ("batch_size", batch_size), ("max_tokens", max_tokens)) if v is not None}
        if precision is not None and session.precision is None:
            overrides["precision"] = precision
    return _build(metric_cls, raw, session, defaults=defaults, overrides=overrides)


def _build(metric_cls: type[Metric], raw: dict[str, Any], session: Session, *,
           defaults: dict[str, Any] | None, overrides: dict[str, Any]) -> Metric:
    given_raw, given_overrides = dict(raw), dict(overrides)
    # every name first (an unknown or doubled one before any check between parameters), split by owner
    mine, backbone_cls, bb_raw = metric_cls.check_params(raw)
    defaults = {k: v for k, v in (defaults or {}).items() if v is not None}
    metric_raw: dict[str, Any] = {}
    for key, value in defaults.items():
        p = find_param(metric_cls.params, key)
        if p is not None:
            metric_raw[p.name] = value
    metric_raw.update(mine)  # what the spec gives wins over the defaults
    scorer = session.scorer(label=metric_cls.name)
    metric = metric_cls(None, scorer=scorer, **metric_raw)
    # a test set's language pair builds it again with lang= (Metric.for_langpair), in this session
    metric.rebuild = functools.partial(_rebuild, metric_cls, given_raw, session, defaults, given_overrides)
    if backbone_cls is None:
        return metric
    backbone_name = raw.get("backbone") or metric_cls.default_backbone
    for key, value in defaults.items():
        p = find_param(backbone_cls.params, key)
        if p is not None and p.name not in bb_raw:
            bb_raw[p.name] = p.convert(value, owner=f"{metric_cls.name} (backbone {backbone_name})")
    if bb_raw.get("lang") and metric.stated_lang is None:
        metric.stated_lang = str(bb_raw["lang"])  # the spec's or defaults': a test set's pair does not override it
    model = bb_raw.pop("model", None)
    if not model and backbone_name == metric_cls.default_backbone:
        model = metric_cls.default_model
    prec = bb_raw.pop("precision", None) or overrides.pop("precision", None) or session.precision or "fp32"
    COMMON_PARAMS[1].convert(prec, owner=metric_cls.name)
    for p in backbone_cls.params:
        if p.name not in bb_raw and p.default is not None:
            bb_raw[p.name] = p.default
    metric.backbone = session.backbone(backbone_cls, model, precision=prec, **overrides, **bb_raw)
    return metric


def _rebuild(metric_cls: type[Metric], raw: dict[str, Any], session: Session, defaults: dict[str, Any],
             overrides: dict[str, Any], more: dict[str, Any]) -> Metric:
    """The metric ``_build`` made from ``raw``, built again in ``session`` with ``more`` defaults."""
    return _build(metric_cls, raw, session, defaults={**defaults, **more}, overrides=dict(overrides))


@dataclass(frozen=True)
class WrittenSample:
    """What :func:`write_sample` wrote: the sample ``files`` (paths under its folder) and the tiny ``models``
    (each with ``name``, ``backbone``, ``spec``: the spec that scores with it)."""

    files: list[Path]
    models: list[Any]


def write_sample(dest: str | os.PathLike[str], *, models: bool = False, force: bool = False,
                 skipped: Callable[[str], None] | None = None) -> WrittenSample:
    """Write the sample data shipped in the package (one folder per :data:`SAMPLES` key) into ``dest``, made if
    missing, and with ``models`` tiny random models (their scores mean nothing) under ``dest/models``, one per
    installed backbone (``skipped`` is told, in one line, of each backbone whose extra is not installed).

    What an earlier call wrote is overwritten; anything else in ``dest`` raises a UserError naming it before
    anything is written, unless ``force``::

        written = docmetrics.api.write_sample("sample", models=True)
        metric = docmetrics.load(written.models[0].spec)
    """
    from .plugin.sample_models import sample_model_folders, write_sample_models
    from .values.samples import write_samples

    others = sample_model_folders()  # what an earlier models=True wrote, recognised as the sample's own
    files = write_samples(dest, force=force, folders=others if models else [], others=others)
    return WrittenSample(files, write_sample_models(dest, skipped=skipped) if models else [])
