"""A backbone for engine tests, in a module of its own so that worker processes and Ray actors
can import it (they get this directory on PYTHONPATH)."""

from __future__ import annotations

from docmetrics.plugin.backbone import QE, Backbone, BackboneOutput


class Counting(Backbone):
    """Scores len(mt); fails on the chunk containing 'boom' (a killed worker)."""

    name = "counting"
    default_model = "m"
    loads = 0

    def load(self):
        type(self).loads += 1

    @property
    def capabilities(self):
        return frozenset({QE})

    def score(self, units):
        if any(u.mt == "boom" for u in units):
            raise KeyboardInterrupt if self.model == "interrupt" else RuntimeError("device lost")
        return BackboneOutput([float(len(u.mt)) for u in units], [False] * len(units), {}, [{} for _ in units])

    def fingerprint(self):
        return "counting-" + str(self.model)
