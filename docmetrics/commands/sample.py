"""``docmetrics sample DIR``: the sample data shipped in the package, and with ``--models`` tiny random models,
written into DIR."""

from __future__ import annotations

import sys

from ..api import SAMPLES, write_sample
from .options import Options

__all__ = ["run"]


def run(opts: Options) -> int:
    """Write the sample files (and the models) into ``opts.dir`` and say what was written; where any of them
    cannot be written, a UserError naming the path before anything is."""
    note = None if opts.quiet else (lambda line: print(f"docmetrics sample: {line}", file=sys.stderr))
    written = write_sample(opts.dir, models=opts.models, force=opts.force, skipped=note)
    if opts.quiet:
        return 0
    print(f"wrote {len(written.files)} files under {opts.dir}: " + ", ".join(f"{k}/" for k in SAMPLES))
    if opts.models:
        print(f"wrote {len(written.models)} tiny random models (their scores mean nothing) under "
              f"{opts.dir.rstrip('/')}/models:")
        width = max((len(m.name) for m in written.models), default=0)
        for m in written.models:
            print(f"  {m.name:<{width}}  {m.backbone}: {m.spec}")
    return 0
