"""What the command line says of each metric it scored, once, for every run that scores
(:func:`docmetrics.judging.score_metrics`: plain files, ``--genmt``, ``--wmt25-tsv``,
``--scores``, ``--mtme``, ``docmetrics metaeval``, ``docmetrics rank -m``, ``--spans -m``): a warning where the run
differs from the signature it was given in, the coverage (one line per metric; -v: per system), and
a warning (or, above ``--max-truncated``, an error) where units were cut at the model's maximum length."""

from __future__ import annotations

from typing import Any, Sequence

from ..judging import Scored, ScoringObserver
from ..values.errors import UserError
from .format import coverage_lines, units_cut
from .messages import note, warn
from .options import Options

__all__ = ["ScoringReport", "check_truncation"]


class ScoringReport(ScoringObserver):
    """Says what a run must hear of each scored metric, named by ``labels`` (one per spec, in the run's
    order; see :func:`~docmetrics.cli.format.metric_labels`) under ``who``."""

    def __init__(self, opts: Options, labels: Sequence[str] = (), who: str = "docmetrics") -> None:
        self.opts, self.labels, self.who = opts, list(labels), who

    def scored(self, scored: Scored) -> None:
        self.report(self.labels[scored.index], scored)

    def report(self, label: str, scored: Scored) -> None:
        """The signature comparison, the coverage lines and the truncation check of one metric, named ``label``."""
        if scored.differences:
            warn("this run differs from the signature it was given in: " + "; ".join(scored.differences), self.who)
        for line in coverage_lines(label, scored.results, getattr(self.opts, "verbose", False)):
            note(self.opts, line, self.who)
        check_truncation(self.opts, label, scored.metric, scored.results, self.who)


def check_truncation(opts: Options, label: str, metric: Any, results: list[Any],
                     who: str = "docmetrics") -> None:
    """One warning per metric naming every system whose units were cut at the model's maximum length
    (their scores miss the end of the input): how many, the tokens cut where the backbone counts them,
    and the fix once; an error (exit 2) naming the systems above --max-truncated."""
    limit = getattr(opts, "max_truncated", None)
    cut = {r.system: r.coverage for r in results if r.coverage is not None and r.coverage.units_truncated}
    if not cut:
        return
    over = [s for s, c in cut.items() if limit is not None and c.units_truncated / c.units > limit]
    shown = over or list(cut)
    counts = {s: units_cut(cut[s].units_truncated, cut[s].units) for s in shown}
    tokens = {s: f", {cut[s].counters['tokens_cut']} tokens cut" if cut[s].counters.get("tokens_cut") else ""
              for s in shown}
    tail = f"so their scores miss the end of the input; {metric.truncation_fix()}"
    if len(results) == 1:
        s = shown[0]
        text = f"{label} [{s}]: {counts[s]} were cut at the model's maximum input length{tokens[s]}, {tail}"
    else:
        listed = ", ".join(f"{s}: {counts[s]}{tokens[s]}" for s in shown)
        text = (f"{label}: units were cut at the model's maximum input length in {len(shown)} of {len(results)} "
                f"systems ({listed}), {tail}")
    if over:
        raise UserError(f"{text} (more than --max-truncated {limit:g})")
    warn(text, who)
