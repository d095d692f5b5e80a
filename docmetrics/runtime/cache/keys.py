"""What a stored score is keyed by: the backbone's identity (its hash, :meth:`ScoreCache.key_for`) and the unit's
content (:func:`unit_key`); see the package docstring for what the key leaves out, and why."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...plugin.backbone import Backbone, Unit


def unit_key(unit: Unit) -> str:
    """The content address of a unit (SHA-256 of its exact fields)."""
    data = [
        unit.mt,
        unit.src,
        unit.ref,
        list(unit.mt_context),
        list(unit.src_context),
        list(unit.ref_context),
    ]
    return hashlib.sha256(json.dumps(data, ensure_ascii=False).encode("utf-8")).hexdigest()


def backbone_identity(backbone: Backbone) -> dict[str, Any]:
    """What identifies a backbone's scores (see the package docstring)."""
    from ...values.versions import __version__, dist_version

    cls = type(backbone)
    return {
        "backbone": backbone.name,
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "fingerprint": backbone.fingerprint(),
        "precision": backbone.precision,
        "options": {k: repr(v) for k, v in sorted(backbone.p.items())},
        "libraries": {dist: dist_version(dist) for dist, _ in backbone.libraries},
        "docmetrics": __version__,
        "state": dict(backbone.cache_state()),
        **_distribution(backbone),
    }


def _distribution(backbone: Backbone) -> dict[str, str]:
    """``{"distribution": "NAME VERSION"}`` for a backbone another distribution than docmetrics registers (the
    ``plugins`` field of signatures), so that upgrading the plugin never answers from its old scores; nothing
    for docmetrics' own, whose version is already in the key (first-party keys stay as they were)."""
    from ...plugin import registry

    meta = registry.origin_of(backbone)
    if meta is None or not meta.distribution or meta.first_party:
        return {}
    return {"distribution": f"{meta.distribution} {meta.dist_version}"}


def identity_text(ident: dict[str, Any]) -> str:
    """A backbone's identity as the text that is hashed and stored."""
    return json.dumps(ident, sort_keys=True, ensure_ascii=False)
