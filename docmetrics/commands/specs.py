"""The metric specs of ``-m``, checked before any model loads: every parameter name known (an unknown one
is named before any check between parameters), every value valid, the checks between parameters; an
error in a preset names the preset, its spec and its file."""

from __future__ import annotations

import shlex
import warnings
from typing import Sequence

from ..values.errors import SpecError, UserError

__all__ = ["check_specs", "reference_files", "reference_advice", "language_pairs"]


def reference_files(specs: Sequence[str]) -> list[str]:
    """The specs of ``-m`` that are files and neither a metric nor a preset: references typed where
    sacrebleu takes them (``-m bleu ref.txt``)."""
    import os

    from ..api import presets
    from ..plugin import registry

    return [text for text in specs if ":" not in text and "|" not in text and os.path.isfile(text)
            and registry.split_name(text)[0] not in registry.names("metric") and presets.get(text) is None]


def check_specs(specs: Sequence[str]) -> None:
    """Check every spec of ``-m`` as :func:`docmetrics.load` will read it, building nothing."""
    from .. import api
    from ..api import looks_like_signature, parse_spec, presets
    from ..plugin import registry

    for text in specs:
        if looks_like_signature(text):
            continue  # a signature names every parameter itself; fields it does not know are compared after scoring
        spec = parse_spec(text)
        preset = None if registry.split_name(spec.name)[0] in registry.names("metric") else presets.get(spec.name)
        try:
            name, raw, _ = api.resolve(text)
            with warnings.catch_warnings():  # a conflict between distributions is told once, when the metric loads
                warnings.simplefilter("ignore", registry.PluginConflictWarning)
                registry.load("metric", name).check_params(raw)
        except SpecError as exc:
            if preset is None:
                raise
            given = f"; given: {text}" if spec.params else ""
            raise SpecError(f"{exc} (in the preset {preset.name} = {preset.spec}, from {preset.source}{given})",
                            params=exc.params) from None


def reference_advice(command: Sequence[str]) -> str:
    """The line for reference files given where sacrebleu takes them (positional), with ``command``:
    the same command with them under -r."""
    return f"docmetrics takes the reference as -r FILE: docmetrics {shlex.join(command)}"


def language_pairs(values: Sequence[str], *, spaces: bool = True) -> list[str]:
    """``-l`` naming several language pairs: separated by commas (``spaces``: or given as several values), each
    once."""
    typed = " ".join(values)
    lps = [x.strip() for v in values for x in v.split(",")]
    if any(not x for x in lps):
        raise UserError(f"-l {typed}: language pairs separated by commas{' or spaces' if spaces else ''}, "
                        "e.g. en-de,zh-en")
    twice = sorted({x for x in lps if lps.count(x) > 1})
    if twice:
        raise UserError(f"-l {typed}: {', '.join(twice)} given twice")
    return lps
