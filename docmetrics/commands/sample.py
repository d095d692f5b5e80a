"""``docmetrics sample DIR``: the sample data shipped in the package, and with ``--models`` tiny random models,
written into DIR."""

from __future__ import annotations

import sys

from ..plugin.sample_models import sample_model_folders, write_sample_models
from ..values.samples import SAMPLES, write_samples
from .options import SampleOptions

__all__ = ["run"]


def run(opts: SampleOptions) -> int:
    """Write the sample files (and the models) into ``opts.dir`` and say what was written; where any of them
    cannot be written, a UserError naming the path before anything is."""
    others = sample_model_folders()  # what an earlier --models wrote, recognised as the sample's own
    written = write_samples(opts.dir, force=opts.force, folders=others if opts.models else [], others=others)
    if not opts.quiet:
        print(f"wrote {len(written)} files under {opts.dir}: " + ", ".join(f"{k}/" for k in SAMPLES))
    if opts.models:
        note = None if opts.quiet else (lambda line: print(f"docmetrics sample: {line}", file=sys.stderr))
        models = write_sample_models(opts.dir, skipped=note)
        if not opts.quiet:
            print(f"wrote {len(models)} tiny random models (their scores mean nothing) under "
                  f"{opts.dir.rstrip('/')}/models:")
            width = max((len(m.name) for m in models), default=0)
            for m in models:
                print(f"  {m.name:<{width}}  {m.backbone}: {m.spec}")
    return 0
