"""Meta-evaluation at the WMT standard straight from mt-metrics-eval (MTME) data: the ``--mtme`` options of
``docmetrics`` (one language pair; ``docmetrics metaeval``, in :mod:`docmetrics.cli.metaeval`, shares the
data options), what is said while a test set is scored, and the table of a language pair.  The work is
:func:`docmetrics.evaluation.mtme_run.run_mtme` (read, score, write, meta-evaluate); every path and
option is checked before a model is loaded."""

from __future__ import annotations

import io
import os
import sys
from dataclasses import replace
from typing import Any, Collection, Sequence, TextIO

from ..algorithms import wmt_stats as ws
from ..evaluation import statistics as stats
from ..evaluation.metaeval import MetaEval, WmtEval
from ..evaluation.metaeval_text import ACC_EQ_TEXT, DOC_TEXT, PDP_TEXT, spa_text
from ..evaluation.mtme import MtmeTestSet
from ..evaluation.mtme_run import NO_HUMAN_SCORES, ONE_SYSTEM, MtmeMetric, MtmeObserver, MtmeRun, run_mtme
from ..evaluation.mtme_write import WrittenScores, mtme_metric_name
from ..evaluation.scoring import Scored
from ..evaluation.stat_table import significance_lines, stat_table, untested_lines
from ..values.errors import InputError, UserError
from . import stored as stored_cli
from .common import session_scope, width
from .conflicts import CANNOT, NEEDS, Conflicts, Option
from .format import columns, metric_labels, namer, num, table
from .human import asked_statistics
from .inputs import once_each
from .messages import note, warn
from .options import Options
from .output import Output, write
from .scoring import ScoringReport

__all__ = ["check_common", "requested", "run", "score", "lp_dict", "lp_text", "write_lp", "format_eval"]

#: the longest file name most file systems take (bytes)
MAX_FILE_NAME = 255
#: Options of ``docmetrics`` that only make sense with --mtme
MTME_ONLY = Conflicts("--mtme ROOT (an mt-metrics-eval data directory)", NEEDS, (
    Option("testset", "-t/--testset"), Option("ref", "--ref"), Option("human_name", "--human-name"),
    Option("systems", "--systems"), Option("include_human", "--include-human"),
    Option("include_outliers", "--include-outliers"), Option("write_mtme", "--write-mtme"),
    Option("metric_name", "--metric-name"), Option("rank_by", "--rank-by")))
#: Options of ``docmetrics`` that --mtme replaces, and what to do instead
REPLACED = Conflicts("--mtme", CANNOT, (
    Option("input", "-i", "the system outputs come from ROOT/TESTSET/system-outputs/LP; choose them with --systems"),
    Option("source", "-s", "the source comes from ROOT/TESTSET/sources/LP.txt"),
    Option("reference", "-r", "the references come from ROOT/TESTSET/references; choose them with --ref (--ref "
                              "refA, or --ref refA,refB for metrics that take several)"),
    Option("doc_ids", "--doc-ids", "the documents come from ROOT/TESTSET/documents/LP.docs"),
    Option("jsonl", "--jsonl", "MTME files are read as MTME names them (.txt or .jsonl)"),
    Option("doc_per_line", "--doc-per-line", "MTME segments are lines of a document"),
    Option("human", "--human", "the human scores come from ROOT/TESTSET/human-scores; choose them with --human-name"),
    Option("human_column", "--human-column", "the human scores come from ROOT/TESTSET/human-scores; choose them "
                                             "with --human-name"),
    Option("human_lower_better", "--human-lower-better", "MTME stores human scores with higher better (MQM negated)"),
    Option("exclude_systems", "--exclude-systems", "choose the systems with --systems"),
    Option("paired_bs", "--paired-bs", "--mtme meta-evaluates metrics; run paired tests without --mtme"),
    Option("paired_ar", "--paired-ar", "--mtme meta-evaluates metrics; run paired tests without --mtme"),
    Option("score_only", "-b/--score-only", "--mtme prints a meta-evaluation; --write-mtme OUT writes the scores"),
    Option("dump_alignment", "--dump-alignment", "run it without --mtme"),
    Option("ci", "--ci", "--mtme meta-evaluates metrics; confidence intervals of system scores: run without --mtme"),
    Option("level", "--level", "--write-mtme OUT writes segment and document scores", default="system"),
))


def requested(opts: Options) -> bool:
    """Whether ``docmetrics`` was given --mtme or one of its options (--ref and --include-human with
    --genmt and no --mtme are the GenMT file's: :func:`docmetrics.cli.genmt.check_args` reads them)."""
    genmt = bool(getattr(opts, "genmt", None)) and not getattr(opts, "mtme", None)
    only = MTME_ONLY.without("ref", "include_human") if genmt else MTME_ONLY
    return bool(getattr(opts, "mtme", None)) or bool(only.given(opts))


def check_common(opts: Options, lps: Sequence[str]) -> Options:
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
    seen: set[str] = set()
    for spec in opts.metrics:
        if spec in seen:
            raise UserError(f"-m: {spec!r} is given twice")
        seen.add(spec)
    if opts.metric_name:
        if not opts.write_mtme:
            raise UserError("--metric-name names the MTME score files: it needs --write-mtme OUT")
        if len(opts.metric_name) != len(opts.metrics):
            raise UserError(f"--metric-name: {len(opts.metric_name)} name(s) for {len(opts.metrics)} metric(s); "
                            "give one name per -m")
        safe = [mtme_metric_name(n) for n in opts.metric_name]
        if len(set(safe)) != len(safe):
            raise UserError(f"--metric-name: two names give the same file name ({', '.join(safe)})")
    if opts.write_mtme:
        _check_out_dir(opts.write_mtme, opts.testset, lps)
    return opts


def _check_out_dir(out: str, testset: str, lps: Sequence[str]) -> None:
    """The score directories exist (or are made) and can be written, before anything is scored."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise UserError(f"--write-mtme {out}: not a directory")
    for lp in lps:
        d = os.path.join(out, testset, "metric-scores", lp)
        try:
            os.makedirs(d, exist_ok=True)
        except OSError as exc:
            raise UserError(f"--write-mtme {out}: cannot create {d} ({exc.strerror})") from None
        if not os.access(d, os.W_OK):
            raise UserError(f"--write-mtme {out}: {d} is not writable")


def _check_main_args(opts: Options) -> Options:
    if not opts.mtme:
        if MTME_ONLY.given(opts)[0].attr == "testset":
            raise UserError(_testset_habit(opts.testset))
        MTME_ONLY.check(opts)
    REPLACED.check(opts)
    if not opts.lang:
        raise UserError("--mtme needs -l/--lang LP, the language pair of the test set (e.g. en-de)")
    if "," in opts.lang:
        raise UserError(f"-l {opts.lang}: one language pair with --mtme; for several use "
                        f"docmetrics metaeval --mtme {opts.mtme} -t {opts.testset or 'TESTSET'} -l {opts.lang} -m ...")
    return check_common(opts, [opts.lang])


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

    def __init__(self, opts: Options, who: str, stored: dict[str, dict[str, Any]] | None = None) -> None:
        self.opts, self.who, self.stored = opts, who, stored or {}
        self.metric_report = ScoringReport(opts, who=who)
        #: language pair -> the label of each spec (a signature: by its metric's name)
        self.labels: dict[str, list[str]] = {}

    def opened(self, run: MtmeRun) -> None:
        opts, lp, data = self.opts, run.lp, run.data
        for scorer in self.stored.get(lp, {}).values():  # a stored metric that does not fit stops the run here
            scorer.check(run.testset)
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
        for m in metrics:
            longest = f"{m.name}-{m.ref}.seg.score"
            if len(longest.encode("utf-8")) > MAX_FILE_NAME:
                raise UserError(f"{m.spec}: the MTME file name from its signature is {len(longest)} characters, "
                                f"more than a file system takes ({MAX_FILE_NAME}); name the files with --metric-name")

    def scoring(self, run: MtmeRun, metric: MtmeMetric) -> None:
        note(self.opts, f"[{run.lp}] {metric.spec}: {len(run.testset.systems)} systems x {run.testset.n_segments} "
             "segments", self.who)

    def scored(self, run: MtmeRun, metric: MtmeMetric, scored: Scored, written: WrittenScores | None) -> None:
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
    from .. import api
    from ..evaluation.stored import StoredScorer

    stored = stored_cli.for_mtme(opts, lps) if stored_cli.requested(opts) else {}
    scorers = {lp: {stored_cli.label(m): StoredScorer(m) for m in ms} for lp, ms in stored.items()}
    if scorers:
        stored_cli.IN_MTME.check(opts)
        names = list(next(iter(scorers.values())))
        twice = [n for n in names if n in opts.metrics]
        if twice:
            raise UserError(f"--stored: {twice[0][len(stored_cli.PREFIX):]} is given twice")
        opts = replace(opts, metrics=[*opts.metrics, *names])

    with session_scope(opts, cache=getattr(opts, "cache", None)) as session:
        def load(spec: str, lp: str) -> Any:
            if spec in scorers.get(lp, {}):
                return scorers[lp][spec]
            return api.load(spec, defaults={"lang": lp}, session=session)

        runs = run_mtme(opts.mtme, opts.testset, lps, opts.metrics, load, ref=opts.ref, human_name=opts.human_name,
                        systems=systems, include_human=opts.include_human, include_outliers=opts.include_outliers,
                        out_root=opts.write_mtme, metric_names=opts.metric_name,
                        n_resamples=ws.DEFAULT_RESAMPLES if opts.resamples is None else opts.resamples,
                        seed=opts.seed, short=opts.short, observer=_Report(opts, who, scorers),
                        doc_rule=getattr(opts, "doc_level", None), pdp=bool(getattr(opts, "pdp", False)),
                        requested=getattr(opts, "sacrebleu_signatures", None),
                        compare_also=compare_also, metric_test=opts.metric_test or "perm-both",
                        statistics=(*asked_statistics(opts), *compare_also))
        if session.cache is not None:
            note(opts, f"score cache {session.cache.path}: {session.cache.stats.summary()}", who)
    return opts, runs


# -- docmetrics --mtme ROOT -t TESTSET -l LP -m SPEC... ------------------------------------------------------------
def run(opts: Options, out: TextIO | None = None) -> int:
    """``docmetrics -m SPEC... --mtme ROOT -t TESTSET -l LP``: score, write, meta-evaluate, print."""
    out = out or sys.stdout
    opts = _check_main_args(opts)
    opts, (lp_run,) = score(opts, [opts.lang], opts.systems, "docmetrics")
    labels = {spec: k + 1 for k, spec in enumerate(opts.metrics)}
    if getattr(opts, "report", None):
        from .report import write_for_mtme

        write_for_mtme(opts, lp_dict(lp_run, opts), lp_run)
    write(Output(data=lambda: lp_dict(lp_run, opts), text=lambda: lp_text(lp_run, opts, labels)), opts, out)
    return 0


def lp_text(run: MtmeRun, opts: Options, labels: dict[str, int], explain: bool = True) -> str:
    """:func:`write_lp` as a string."""
    out = io.StringIO()
    write_lp(run, opts, labels, out, explain)
    return out.getvalue()


def lp_dict(run: MtmeRun, opts: Options) -> dict[str, Any]:
    d: dict[str, Any] = {"testset": opts.testset, "lp": run.lp, "root": opts.mtme, "reference": run.data.ref,
                         "references": list(run.data.refs)}
    if run.evaluation is not None:
        d.update(run.evaluation.to_dict())
    else:
        d["scores"] = [r.to_dict(level="system", short=opts.short) for rs in run.results.values() for r in rs]
    d["written"] = [w.to_dict() for w in run.written]
    if run.data.metadata:  # MTME's metadata/LP/*.jsonl (WMT25): what the records say of documents and domains
        d["metadata"] = run.data.metadata_summary()
    return d


def write_lp(run: MtmeRun, opts: Options, labels: dict[str, int], out: TextIO, explain: bool = True) -> None:
    data = run.data
    head = (f"{opts.testset} {run.lp}: {len(run.testset.systems)} systems, {data.n_segments} segments, "
            f"{len(data.docs)} documents; {_references(data)}")
    if run.evaluation is None:
        out.write(head + ("; no human scores\n" if data.human_name is None else "; no meta-evaluation\n"))
        systems = list(run.testset.systems)
        rows = [[s] + [num(run.results[spec][i].score, width(opts, run.results[spec][i])) for spec in opts.metrics]
                for i, s in enumerate(systems)]
        named = columns(opts.metrics)
        out.write(table(["System"] + [named[s] for s in opts.metrics], rows))
    else:
        out.write(head + f"; human scores {run.evaluation.human_name}\n")
        out.write(format_eval(run.evaluation, opts.width, labels, opts.rank_by or "spa", run.testset.systems,
                              explain))
    not_scored = [f"{s} ({_why_not_scored(data, s)})" for s in sorted(data.system_outputs)
                  if s not in run.testset.systems]
    if not_scored:
        out.write(f"Not scored: {', '.join(not_scored)}\n")
    for spec, w in zip(opts.metrics, run.written):
        levels = [lv for lv in ("sys", "doc", "seg") if lv in w.paths]
        where = os.path.dirname(w.paths["sys"])
        out.write(f"[{labels[spec]}] MTME scores: {where}/{w.metric}-{w.ref}.{{{','.join(levels)}}}.score\n")
    out.write("\nSignatures:\n")
    for spec in opts.metrics:
        out.write(f"[{labels[spec]}] {run.results[spec][0].signature.format(short=opts.short)}\n")


def _references(data: MtmeTestSet) -> str:
    if len(data.refs) > 1:
        return f"references {', '.join(data.refs)}"
    return f"reference {data.ref or 'none'}"


def _why_not_scored(data: MtmeTestSet, system: str) -> str:
    if system in data.refs:
        return "the reference in use" if len(data.refs) == 1 else "a reference in use"
    if system in data.human_systems:
        return "human translation; --include-human"
    if data.standard is not None and system in data.standard.outliers:
        return "outlier; --include-outliers"
    return "not in --systems"


def _format_doc_block(ev: WmtEval, metrics: dict[str, MetaEval], labels: dict[str, str], width: int) -> str:
    """The document-level block, only when asked for (--doc-level)."""
    first = next((mw.document for mw in metrics.values() if mw.document is not None), None)
    if first is None:
        return ""
    left = f", {first.docs_left_out} without a judged segment left out" if first.docs_left_out else ""
    return (f"\nDocument level: {first.n_docs} documents{left}; gold: {first.gold}\n"
            + stat_table(metrics, ev.comparisons, width, segment=ev.n_segments is not None, labels=labels,
                         block="document"))


def _title(name: str) -> str:
    """A statistic's title as the registry gives it (a name it does not know: the name)."""
    try:
        return stats.get(name).title
    except InputError:
        return name


def format_eval(ev: WmtEval, width: int = 4, labels: dict[str, int] | None = None, rank_by: str = "spa",
                scored: Collection[str] | None = None, explain: bool = True) -> str:
    """The table of statistics (:mod:`docmetrics.cli.stat_table`): the metrics sorted by ``rank_by`` (those
    without it last), each statistic with its significance cluster in parentheses, then what the columns
    mean, notes and the systems left out (of ``scored``, the systems scored, where given); ``explain``: say
    what the columns mean."""
    labels = labels or {name: k + 1 for k, name in enumerate(ev.metrics)}
    named = namer(labels)
    have = {m: v for m in ev.metrics if (v := ev.metrics[m].get(rank_by)) is not None}
    order = ws.rank_order(have) + [m for m in ev.metrics if m not in have]
    metrics = {m: ev.metrics[m] for m in order}
    shown = {m: named(m) for m in order}
    text = (stat_table(metrics, ev.comparisons, width, segment=ev.n_segments is not None, labels=shown)
            + _format_doc_block(ev, metrics, shown, width))
    lines = [f"Sorted by {rank_by}: {_title(rank_by)}."]
    lines += significance_lines(ev.comparisons, len(ev.metrics), ev.n_resamples, ev.seed, ev.alpha, explain)
    if explain:
        lines.append(spa_text(ev.n_permutations, ev.spa_seed))
        lines.append(ACC_EQ_TEXT)
        lines.append("accuracy: pairwise system accuracy (pairs ordered as the humans order them / all pairs); "
                     "seg-pearson and seg-kendall over all (system, segment) pairs.")
        if any(mw.document is not None for mw in metrics.values()):
            lines.append(DOC_TEXT)
        elif any(mw.with_pdp for mw in metrics.values()):
            lines.append(PDP_TEXT)
    for m in order:
        mw = ev.metrics[m]
        if mw.document is not None and mw.document.note:
            lines.append(f"[{labels.get(m, '?')}] document level: {mw.document.note}")
        for what, text_note in (("SPA", mw.spa_note), ("segment level", mw.seg_note)):
            if text_note:
                lines.append(f"[{labels.get(m, '?')}] no {what}: {text_note}")
        if mw.acc_eq_note:
            lines.append(f"[{labels.get(m, '?')}] acc_eq: {mw.acc_eq_note}")
        for p in mw.plugin_statistics():
            if p in mw.notes:
                lines.append(f"[{labels.get(m, '?')}] no {p}: {mw.notes[p]}")
    lines += untested_lines(ev.comparisons)
    left_out = [x for x in ev.left_out if scored is None or x.split(" (")[0] in scored]
    if left_out:
        lines.append(f"Left out of the meta-evaluation: {', '.join(left_out)}")
    return text + "\n" + "\n".join(lines) + "\n"
