"""The library API: turn a spec, a preset name or a signature into a ready metric.

>>> import docmetrics
>>> metric = docmetrics.load("slide:w=6,s=6,model=/path/to/cometkiwi")     # doctest: +SKIP
>>> result = metric.score(hyps, sources=srcs, doc_ids=ids)                  # doctest: +SKIP
>>> result.score, str(result.signature)                                     # doctest: +SKIP

Backbones are cached per process: two metrics on the same model share one loaded model.
"""

from __future__ import annotations

from typing import Any

from .plugin import presets, registry
from .plugin.backbone import COMMON_PARAMS, Backbone
from .plugin.metric import Metric
from .runtime import pool
from .runtime.pool import get_backbone
from .runtime.scoring import ACTIVE, CachingScorer
from .values.errors import PluginError, SpecError, UserError
from .values.params import Param, check_batch_size, find_param
from .values.signature import ParsedSignature, looks_like_signature, parse_signature
from .values.spec import parse_spec


def resolve(text: str) -> tuple[str, dict[str, str], ParsedSignature | None]:
    """(metric name, raw parameters, parsed signature or None) for a spec, preset or signature."""
    text = text.strip()
    if looks_like_signature(text):
        parsed = parse_signature(text)
        return parsed.metric, {}, parsed
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
    """The parameters of a signature (long or short keys), leaving out environment fields."""
    raw: dict[str, str] = {}
    given: dict[str, str] = {}
    backbone_name = parsed.get("backbone", "bb") or metric_cls.default_backbone
    backbone_params: tuple[Param, ...] = ()
    if backbone_name:
        backbone_params = registry.load("backbone", backbone_name).all_params()
    for key, value in parsed.items:
        if key in ("backbone", "bb"):
            name = "backbone"
        else:
            p = find_param(metric_cls.params, key) or find_param(backbone_params, key)
            if p is None:
                continue  # an environment field (fingerprint, versions): compared after scoring
            name = p.name
        if name in given:
            raise SpecError(f"signature of {parsed.metric}: parameter '{name}' is given twice (as "
                            f"'{given[name]}' and '{key}'); give each field once")
        given[name] = key
        raw[name] = value
    return raw


def load(
    text: str,
    *,
    device: str = "auto",
    batch_size: int | None = None,
    max_tokens: int | None = None,
    precision: str | None = None,
    quiet: bool = True,
    defaults: dict[str, Any] | None = None,
    cache: Any = ACTIVE,
) -> Metric:
    """A metric, ready to score, from ``"NAME:key=value,..."``, a preset name or a signature.

    ``precision`` is the default when the spec does not set ``precision=`` (fp32 if neither does).
    ``defaults`` gives values for parameters the spec does not set, applied only where the metric or
    its backbone has such a parameter (the CLI passes ``-l en-de`` as ``{"lang": "en-de"}``).
    ``cache``: a :class:`~docmetrics.runtime.cache.ScoreCache` to answer from and fill, ``None`` for
    none; by default the active one (``--cache``, ``docmetrics.runtime.cache.using``, or
    ``$DOCMETRICS_SCORE_CACHE``) at the time of scoring.
    """
    if not isinstance(text, str):
        raise SpecError(f"docmetrics.load: give a metric spec as a string (e.g. 'slide:w=6,s=6'), not "
                        f"{type(text).__name__}")
    check_batch_size(batch_size)
    name, raw, parsed = resolve(text)
    metric_cls = registry.load("metric", name)
    if parsed is not None:
        raw = _params_from_signature(parsed, metric_cls)
    metric = build(metric_cls, raw, device=device, batch_size=batch_size, max_tokens=max_tokens,
                   precision=precision, quiet=quiet, defaults=defaults, cache=cache)
    metric.requested_signature = parsed
    return metric


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
    cache: Any = ACTIVE,
) -> Metric:
    """A metric from its class and raw parameters (metric and backbone parameters mixed)."""
    check_batch_size(batch_size)
    metric = _build(metric_cls, raw, device=device, batch_size=batch_size, max_tokens=max_tokens,
                    precision=precision, quiet=quiet, defaults=defaults)
    metric.scorer = CachingScorer(cache, label=metric_cls.name, quiet=quiet)
    return metric


def _build(
    metric_cls: type[Metric],
    raw: dict[str, Any],
    *,
    device: str,
    batch_size: int | None,
    max_tokens: int | None,
    precision: str | None,
    quiet: bool,
    defaults: dict[str, Any] | None,
) -> Metric:
    raw = dict(raw)
    defaults = {k: v for k, v in (defaults or {}).items() if v is not None}
    metric_raw: dict[str, Any] = {}
    for key, value in defaults.items():
        p = find_param(metric_cls.params, key)
        if p is not None and p.name not in raw and key not in raw:
            metric_raw[p.name] = value
    given: dict[str, str] = {}
    for key in list(raw):
        p = find_param(metric_cls.params, key)
        if p is not None:
            _once(metric_cls, given, p.name, key)
            metric_raw[p.name] = raw.pop(key)
    metric = metric_cls(None, **metric_raw)  # validates the metric's own parameters first
    backbone_name = raw.pop("backbone", None) or metric_cls.default_backbone
    if backbone_name is not None and not isinstance(backbone_name, str):
        raise SpecError(f"{metric_cls.name}: parameter 'backbone' must be a backbone's name, not "
                        f"{type(backbone_name).__name__}")
    if backbone_name is None:
        if raw:
            raise SpecError(
                f"{metric_cls.name}: unknown parameter(s) {', '.join(sorted(raw))}; allowed: "
                + (", ".join(p.name for p in metric_cls.params) or "none")
            )
        return metric
    backbone_cls: type[Backbone] = registry.load("backbone", backbone_name)
    bb_raw: dict[str, Any] = {}
    for key in list(raw):
        p = find_param(backbone_cls.all_params(), key)
        if p is None:
            allowed = [p.name for p in metric_cls.params] + ["backbone"] + [
                p.name for p in backbone_cls.all_params()
            ]
            raise SpecError(
                f"{metric_cls.name}: unknown parameter '{key}'; allowed: {', '.join(allowed)}"
            )
        _once(metric_cls, given, p.name, key)
        bb_raw[p.name] = p.convert(raw.pop(key), owner=f"{metric_cls.name} (backbone {backbone_name})")
    for key, value in defaults.items():
        p = find_param(backbone_cls.params, key)
        if p is not None and p.name not in bb_raw:
            bb_raw[p.name] = p.convert(value, owner=f"{metric_cls.name} (backbone {backbone_name})")
    model = bb_raw.pop("model", None)
    if not model and backbone_name == metric_cls.default_backbone:
        model = metric_cls.default_model
    prec = bb_raw.pop("precision", None) or precision or "fp32"
    COMMON_PARAMS[1].convert(prec, owner=metric_cls.name)
    for p in backbone_cls.params:
        if p.name not in bb_raw and p.default is not None:
            bb_raw[p.name] = p.default
    try:
        metric.backbone = get_backbone(
            backbone_cls, model, precision=prec, device=device, batch_size=batch_size, max_tokens=max_tokens,
            quiet=quiet, **bb_raw
        )
    except (KeyboardInterrupt, GeneratorExit, UserError):
        raise
    except BaseException as exc:  # noqa: BLE001 - a backbone that cannot even be built is the plugin's fault
        raise PluginError(f"{registry.describe_plugin(backbone_cls)} failed when built: {exc} "
                          f"({type(exc).__name__}); --debug shows where") from exc
    return metric


def _once(metric_cls: type[Metric], given: dict[str, str], name: str, key: str) -> None:
    """Refuse a parameter given twice under its two keys (``w=6,window=8``): neither may win silently."""
    if name in given:
        raise SpecError(f"{metric_cls.name}: parameter '{name}' is given twice (as '{given[name]}' and "
                        f"'{key}'); give it once")
    given[name] = key


def clear_cache() -> None:
    """Drop every pooled backbone (frees their models)."""
    pool.clear()
