"""Meta-evaluation at the WMT standard straight from mt-metrics-eval (MTME) data: the ``--mtme`` options of
``docmetrics`` (one language pair; ``docmetrics metaeval``, in :mod:`docmetrics.cli.metaeval`, shares the
data options), what is said while a test set is scored, and the table of a language pair.  The work is
:func:`docmetrics.judging.run_mtme` (read, score, write), then the library's
:func:`docmetrics.judging.meta_evaluate` on what :meth:`docmetrics.judging.MtmeRun.evalset` makes of the data read (the
one MTME meta-evaluation), printed by :func:`docmetrics.judging.mtme_run_text` (its ``MetaEvaluation.to_text()``)
and :func:`docmetrics.judging.mtme_run_dict`; every path and option is checked before a model is loaded."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Sequence

from ..judging import (
    NO_HUMAN_SCORES,
    ONE_SYSTEM,
    MtmeMetric,
    MtmeObserver,
    MtmeRun,
    WrittenScores,
    metric_labels,
    run_mtme,
)
from ..values.errors import UserError
from . import stored as stored_cli
from .common import session_scope
from .conflicts import CANNOT, NEEDS, Conflicts, Option, Source
from .human import asked_statistics, judging_options
from .inputs import once_each
from .messages import note, warn
from .options import Options
from .output import Output, decimals, write
from .scoring import ScoringReport

__all__ = ["MTME", "check_common", "requested", "run", "score"]

#: --mtme: the options of ``docmetrics`` it replaces (and what to do instead), those that only make sense with it
MTME = Source("mtme", Conflicts("--mtme", CANNOT, (
    Option("input", "-i", "the system outputs come from ROOT/TESTSET/system-outputs/LP; choose them with --systems"),
    Option("source", "-s", "the source comes from ROOT/TESTSET/sources/LP.txt"),
    Option("reference", "-r", "the references come from ROOT/TESTSET/references; choose them with --ref (--ref "
                              "refA, or --ref refA,refB for metrics that take several)"),
    Option("doc_ids", "--doc-ids", "the documents come from ROOT/TESTSET/documents/LP.docs"),
    Option("jsonl", "--jsonl", "MTME files are read as MTME names them (.txt or .jsonl)"),
    Option("doc_per_line", "--doc-per-line", "MTME segments are lines of a document"),
    *(Option(attr, instead="the human scores come from ROOT/TESTSET/human-scores; choose them with --human-name")
      for attr in ("human", "human_column")),
    Option("human_lower_better", "--human-lower-better", "MTME stores human scores with higher better (MQM negated)"),
    Option("exclude_systems", "--exclude-systems", "choose the systems with --systems"),
    *(Option(attr, instead="--mtme meta-evaluates metrics; run paired tests without --mtme")
      for attr in ("paired_bs", "paired_ar")),
    Option("score_only", "-b/--score-only", "--mtme prints a meta-evaluation; --write-mtme OUT writes the scores"),
    Option("dump_alignment", "--dump-alignment", "run it without --mtme"),
    Option("ci", "--ci", "--mtme meta-evaluates metrics; confidence intervals of system scores: run without --mtme"),
    Option("level", "--level", "--write-mtme OUT writes segment and document scores", default="system"),
)), Conflicts("--mtme ROOT (an mt-metrics-eval data directory)", NEEDS, (Option("testset", "-t/--testset"), *(
    Option(attr) for attr in ("ref", "human_name", "systems", "include_human", "include_outliers", "write_mtme",
                              "metric_name", "rank_by")))))


def requested(opts: Options) -> bool:
    """Whether ``docmetrics`` was given --mtme or one of its options (--ref and --include-human with
    --genmt and no --mtme are the GenMT file's: :func:`docmetrics.cli.genmt.check_args` reads them)."""
    genmt = bool(getattr(opts, "genmt", None)) and not getattr(opts, "mtme", None)
    only = MTME.needs.without("ref", "include_human") if genmt else MTME.needs
    return bool(getattr(opts, "mtme", None)) or bool(only.given(opts))


def check_common(opts: Options) -> Options:
    """Errors that need no file and no model; the options with each --ref once."""
    if not opts.testset:
        raise UserError("--mtme needs -t/--testset TESTSET (a folder of ROOT, e.g. wmt23)")
    if not os.path.isdir(opts.mtme):
        raise UserError(f"--mtme {opts.mtme}: no such directory; give the root of an MTME data directory "
                        "(the folder that holds TESTSET/)")
    if opts.ref is not None and not all(opts.ref):
        raise UserError(f"--ref {','.join(opts.ref)}: an empty reference name; give names separated by commas "
                        "(--ref refA,refB)")
    if opts.ref:  # as -i and -r: a reference named twice is used once
        opts = replace(opts, ref=once_each(opts.ref, f"--ref {','.join(opts.ref)}", paths=False))
    if opts.resamples is not None and opts.resamples < 0:
        raise UserError(f"--resamples must be >= 0, not {opts.resamples}")
    asked_statistics(opts)  # an unknown --stat before anything is scored
    twice = [spec for k, spec in enumerate(opts.metrics) if spec in opts.metrics[:k]]
    if twice:
        raise UserError(f"-m: {twice[0]!r} is given twice")
    return opts


def _check_main_args(opts: Options) -> Options:
    if not opts.mtme and MTME.needs.given(opts)[0].attr == "testset":
        raise UserError(_testset_habit(opts.testset))
    MTME.check(opts)
    if not opts.lang:
        raise UserError("--mtme needs -l/--lang LP, the language pair of the test set (e.g. en-de)")
    if "," in opts.lang:
        raise UserError(f"-l {opts.lang}: one language pair with --mtme; for several use "
                        f"docmetrics metaeval --mtme {opts.mtme} -t {opts.testset or 'TESTSET'} -l {opts.lang} -m ...")
    return check_common(opts)


def _testset_habit(testset: str) -> str:
    """-t without --mtme: COMET's -t (translations) or sacrebleu's -t (a test set to download)."""
    if os.path.isfile(testset):
        return (f"-t {testset}: system outputs are given with -i here (COMET's -t/--translations); "
                "-t/--testset names a test set of an MTME directory (--mtme ROOT)")
    return (f"-t/--testset needs --mtme ROOT, a local mt-metrics-eval directory (--mtme ROOT -t {testset} -l LP): "
            "docmetrics downloads no test set (sacrebleu -t does); or give your files with -i/-s/-r/--doc-ids")


# -- scoring a test set -------------------------------------------------------------------------------------------
class _Report(MtmeObserver):
    """What the command line says while a test set is scored (of each scored metric: what every run says,
    :class:`~docmetrics.cli.scoring.ScoringReport`, named ``[LP] LABEL``; then its MTME files), and the
    checks that stop a run before any model is loaded (a language pair that cannot be meta-evaluated, a
    score file name too long)."""

    def __init__(self, opts: Options, who: str) -> None:
        self.opts, self.who = opts, who
        self.metric_report = ScoringReport(opts, who=who)
        #: language pair -> the label of each spec (a signature: by its metric's name)
        self.labels: dict[str, list[str]] = {}

    def opened(self, run: MtmeRun) -> None:
        opts, lp, data = self.opts, run.lp, run.data
        for path, lines in run.missing.items():
            warn(f"{path}: {len(lines)} line(s) read '[No translation supplied]' (first: line {lines[0] + 1}); "
                 "scored as empty", self.who)
        why = run.why_no_metaeval
        if why == NO_HUMAN_SCORES:
            if not opts.write_mtme:
                raise UserError(f"{os.path.join(data.directory, 'human-scores')}: no human scores for {lp}, so "
                                "nothing to meta-evaluate; --write-mtme OUT writes the metric scores alone")
            warn(f"{os.path.join(data.directory, 'human-scores')}: no human scores for {lp}; scores only", self.who)
        elif why == ONE_SYSTEM:
            if not opts.write_mtme:
                raise UserError(f"{lp}: one system to score ({', '.join(run.testset.systems)}); a meta-evaluation "
                                "needs two systems or more (--systems); --write-mtme OUT writes the scores of one")
            warn(f"{lp}: one system to score; no meta-evaluation, scores only", self.who)

    def loaded(self, run: MtmeRun, metrics: Sequence[MtmeMetric]) -> None:
        self.labels[run.lp] = metric_labels([m.spec for m in metrics], [m.metric.name for m in metrics])

    def scoring(self, run: MtmeRun, metric: MtmeMetric) -> None:
        note(self.opts, f"[{run.lp}] {metric.spec}: {len(run.testset.systems)} systems x {run.testset.n_segments} "
             "segments", self.who)

    def scored(self, run: MtmeRun, metric: MtmeMetric, scored: Any, written: WrittenScores | None) -> None:
        self.metric_report.report(f"[{run.lp}] {self.labels[run.lp][scored.index]}", scored)
        if written is not None and written.negated:
            note(self.opts, f"[{run.lp}] {metric.spec}: lower is better, so its MTME score files hold the scores "
                 "negated (MTME reads every score as higher-better, as its own MetricX files do)", self.who)
        for level, why in (written.skipped.items() if written is not None else ()):
            note(self.opts, f"[{run.lp}] {metric.spec}: no {level}-level score file: {why}", self.who)


def score(opts: Options, lps: Sequence[str], systems: Sequence[str] | None, who: str, *,
          compare_also: Sequence[str] = ()) -> tuple[Options, list[MtmeRun]]:
    """Every metric of -m on every language pair of ``lps``, written (--write-mtme) and meta-evaluated,
    in one session (one engine, one cache, each model loaded once per worker for every pair); ``compare_also``:
    statistics compared between metrics besides the main ones (those of ``docmetrics metaeval --average``).
    Returns the options as scored (``metrics``: -m, then the stored metrics) and the runs."""
    from .. import api, judging

    read = stored_cli.for_mtme(opts, lps) if stored_cli.requested(opts) else {}
    stored = {lp: {stored_cli.label(m): m for m in ms} for lp, ms in read.items()}
    if stored:
        if opts.metric_name:
            raise UserError("--metric-name names the score files of -m metrics one by one; with stored metrics "
                            "(--scores/--stored) drop it: each file is named after the metric's signature")
        opts = stored_cli.with_stored(opts, next(iter(read.values())))

    with session_scope(opts, cache=getattr(opts, "cache", None)) as session:
        def load(spec: str, lp: str) -> Any:
            return api.load(spec, defaults={"lang": lp}, session=session)

        try:
            runs = run_mtme(opts.mtme, opts.testset, lps, opts.metrics, load, ref=opts.ref,
                            human_name=opts.human_name, systems=systems, include_human=opts.include_human,
                            include_outliers=opts.include_outliers, out_root=opts.write_mtme,
                            metric_names=opts.metric_name, observer=_Report(opts, who),
                            doc_rule=getattr(opts, "doc_level", None),
                            requested=getattr(opts, "sacrebleu_signatures", None), stored=stored)
        except UserError as exc:  # the library's parameters, named as the options that give them
            if not {"metric_names", "out_root"} & set(exc.params):
                raise
            raise type(exc)(str(exc).replace("metric_names", "--metric-name").replace("out_root", "--write-mtme"),
                            params=exc.params) from None
        if session.cache is not None:
            note(opts, f"score cache {session.cache.path}: {session.cache.stats.summary()}", who)
    levels = None if getattr(opts, "doc_level", None) is None else ("system", "segment", "document")
    for run in runs:  # the library's meta-evaluation of what the library's MTME reader reads
        if run.why_no_metaeval is None:
            run.evaluation = judging.meta_evaluate(run.results, run.evalset(), levels=levels,
                                                   **judging_options(opts, tuple(compare_also)))
    return opts, runs


# -- docmetrics --mtme ROOT -t TESTSET -l LP -m SPEC... ------------------------------------------------------------
def run(opts: Options) -> int:
    """``docmetrics -m SPEC... --mtme ROOT -t TESTSET -l LP``: score, write, meta-evaluate, print (-o: to the file)."""
    from .. import judging

    opts = _check_main_args(opts)
    opts, (lp_run,) = score(opts, [opts.lang], opts.systems, "docmetrics")
    if getattr(opts, "report", None):  # the page write_report(PAGE, meta_evaluate(...), results=, data=) writes
        from .report import write as write_report

        judged = (lp_run.evaluation if lp_run.evaluation is not None  # else: scores only
                  else judging.mtme_run_dict(lp_run, short=opts.short))
        write_report(opts, opts.report, judged, f"docmetrics --mtme ({lp_run.lp})", results=lp_run.results,
                     data=lp_run.evalset())
    write(Output(data=lambda: judging.mtme_run_dict(lp_run, short=opts.short),
                 text=lambda: judging.mtme_run_text(lp_run, decimals(opts),
                                                    rank_by=opts.rank_by or "spa", short=opts.short)), opts)
    return 0

