"""``docmetrics --genmt FILE --spans PRED.jsonl`` (and ``--human RAW_MQM.tsv --spans ...``): error-span
predictions judged against the human spans (WMT25 metrics subtask 2, WMT26 subtask 1), character-level
precision, recall and F1 as WMT25's ``scoring_esa.py`` computes them.  The data is read by
:func:`docmetrics.read_human` (``--human``: any format whose gold spans it carries), the work is
:func:`docmetrics.judging.span_f1`, the table :func:`docmetrics.judging.spans_text`.
``--genmt FILE -m xcomet --spans`` and ``--human RAW_MQM.tsv -m xcomet-qe --spans`` judge a metric's own spans
(each -m one predictor, beside any files): the metric scores the pair's systems, or the MQM file's rated
translations (``--ref NAME``: one of its human references, for a metric that scores against one; it is then not a
system), and its spans per segment are the predictions, judged by the same call on the pair's (or the MQM file's)
judged data."""

from __future__ import annotations

from dataclasses import dataclass

from ..judging import (
    SPAN_METRICS,
    EvalSet,
    Scored,
    SpanJudgement,
    check_gives_spans,
    metric_labels,
    spans_dict,
    spans_text,
)
from ..values.errors import UserError
from .conflicts import Conflicts, Option
from .messages import note, warn
from .options import Options
from .output import Output
from .scoring import ScoringReport

__all__ = ["run"]

#: Options of a metric run, which --spans does not take.
NOT_WITH = Conflicts("--spans", "{other} judges error spans (from files, or a metric's own with --genmt or --human), "
                     "not metric scores: drop {option} (meta-evaluate metrics in a run of their own)",
                     tuple(Option(a) for a in ("input", "mtme", "error_free", "paired_bs", "paired_ar", "scores")))
#: How the command names what read_human says of a reference (raw MQM: --ref).
_REF_WORDS = (("read it without a reference and score with a reference-free metric",
               "drop --ref and use a QE metric, e.g. -m xcomet-qe"),
              ("score with a reference-free metric", "use a QE metric, e.g. -m xcomet-qe"))


@dataclass
class _Scored:
    """What the -m metrics score and their spans are judged on: the judged data (read_human's EvalSet: its test
    set, and the gold :func:`docmetrics.judging.span_f1` keys a metric's spans by), the notes to add under the
    table, and where the test set has no reference that a metric could be given (a raw MQM file without
    --ref), why not and what to do."""

    data: EvalSet
    notes: list[str]
    no_reference: str | None = None


def _read(opts: Options) -> _Scored:
    """The human spans (``data.spans``) and what the -m metrics score: ``read_human`` of --genmt, or of --human (a
    raw MQM file; --ref the reference the metrics score against), read and checked before any model loads."""
    if getattr(opts, "genmt", None) or getattr(opts, "data", None):  # --data: any format with gold spans
        from .data import read

        data = read(opts, opts.lang or None, notes=False)
        if data.spans is None:
            raise UserError(f"--spans with --data {opts.data}: a {data.format} file has no error spans; give judged "
                            "data with spans (e.g. --data-format genmt or cesa)")
        return _Scored(data, [])
    if not getattr(opts, "human", None):
        raise UserError("--spans needs the human spans: --genmt FILE (-l LP) or --human RAW_MQM.tsv")
    from ..judging import detect
    from .data import read_judged

    fmt = detect(opts.human)
    if fmt.spans is None:
        raise UserError(f"--spans with --human {opts.human}: the file has no error spans; give a raw MQM file "
                        "(one line per error, spans marked <v>...</v>) or --genmt FILE")
    from .inputs import once_each

    given = getattr(opts, "ref", None)  # only with -m (run refuses it without)
    names = once_each(given, f"--ref {','.join(given)}", paths=False) if given else None  # as --genmt's, --mtme's
    try:
        (data,) = read_judged(opts.human, [opts.lang or None], format=fmt.name, flags=_REF_WORDS,
                              reference=names[0] if names and len(names) == 1 else names)
    except UserError as exc:
        if "reference" not in exc.params:
            raise
        raise UserError(f"--ref {','.join(given or [])}: {exc}") from None
    gold = data.spans
    for text in data.notes:
        warn(text)
    testset, notes = data.testset, []
    if names:
        notes.append(f"{names[0]} (--ref) is the reference the metrics score against: not one of their systems")
    unrated = sum((s, *k) not in gold.items for s in testset.systems for k in gold.lines)
    if unrated:
        notes.append(f"{unrated} of {len(testset.systems) * testset.n_segments} items (a system's segment) are "
                     f"not rated in {opts.human}: the metrics score them as empty translations, which are "
                     "not judged")
    if names or testset.references is not None:
        return _Scored(data, notes)
    choices = getattr(data.raw, "reference_choices", None)
    return _Scored(data, notes, f"--human {opts.human} gives none without --ref: give --ref NAME"
                   f"{', ' + choices() if choices else ''}, or use a QE metric, e.g. -m xcomet-qe (the metrics that "
                   f"give error spans: {SPAN_METRICS})")


def run(opts: Options) -> Output:
    """The span judgement (:func:`docmetrics.judging.span_f1`) of every ``--spans`` file and every ``-m`` metric,
    as text or JSON (``-f json``)."""
    from ..judging import span_f1  # numpy: not at --help
    from . import genmt

    NOT_WITH.check(opts)
    metrics = list(getattr(opts, "metrics", None) or [])
    if not opts.spans and not metrics:
        raise UserError("--spans: give the span predictions (JSONL files), or with --genmt FILE or --human "
                        "RAW_MQM.tsv the metrics whose own error spans to judge (-m xcomet-qe)")
    if metrics and not (getattr(opts, "genmt", None) or getattr(opts, "human", None) or getattr(opts, "data", None)):
        raise UserError("--spans with -m judges a metric's own error spans against human spans: give --genmt FILE "
                        "(-l LP) or a raw MQM file, --human RAW_MQM.tsv")
    for what, given in (("--spans", opts.spans), ("-m", metrics)):
        twice = [p for p in dict.fromkeys(given) if given.count(p) > 1]
        if twice:
            raise UserError(f"{what} {twice[0]} given twice; give each predictor once")
    genmt.check_args(opts)  # --genmt's own: its inputs, its one reference
    if getattr(opts, "ref", None) and not metrics:
        raise UserError(f"--ref {','.join(opts.ref)} names the reference the -m metrics score against; span "
                        "files need none: drop --ref (or add -m METRIC)")
    if metrics:
        from .specs import check_specs

        check_specs(metrics)
    scored = _read(opts)
    gold = scored.data.spans
    found = [span_f1(path, scored.data) for path in opts.spans]  # files first: their mistakes before any model loads
    notes = list(gold.notes)
    if metrics:
        found += _metrics_judged(opts, metrics, scored)
        notes += scored.notes
    return Output(data=lambda: spans_dict(found, gold, notes),
                  text=lambda: spans_text(found, gold, opts.width or 4, notes))


def _metrics_judged(opts: Options, specs: list[str], scored: _Scored) -> list[SpanJudgement]:
    """Each metric scores the test set (with its reference where it has one) and its spans per segment are
    judged as one predictor, named by its -m spec.  Every metric is loaded, and with a raw MQM file
    checked to have the reference it needs, before any scores."""
    from .. import api
    from ..judging import score_metrics, uses_reference
    from .common import session_scope

    with session_scope(opts, cache=opts.cache) as session:
        metrics = [api.load(spec, defaults={"lang": scored.data.lp}, session=session) for spec in specs]
        for spec, metric in zip(specs, metrics):  # before any metric scores (-m chrf was refused after scoring)
            check_gives_spans(spec, metric)
        if getattr(opts, "include_human", False):  # --genmt's reference scored as a system: not against itself
            from .genmt import check_reference_free

            check_reference_free(metrics, specs)
        if scored.no_reference is not None:
            based = [spec for spec, metric in zip(specs, metrics) if uses_reference(metric)]
            if based:
                raise UserError(f"-m {based[0]} scores against a reference, and {scored.no_reference}")
        report = _SpanReport(opts, metric_labels(specs, [m.name for m in metrics]), scored.data)
        score_metrics(scored.data.testset, list(zip(specs, metrics)), observer=report)
    return report.judged


class _SpanReport(ScoringReport):
    """Each metric of ``--spans -m``, once it has scored: its spans read as predictions (a metric that gives
    none stops the run here), what every scoring run says of it (signature, coverage, truncation), then its
    spans judged as one predictor, before the next metric scores."""

    def __init__(self, opts: Options, labels: list[str], data: EvalSet) -> None:
        super().__init__(opts, labels)
        self.data, self.judged = data, []

    def scored(self, scored: Scored) -> None:
        from ..judging import span_f1

        spec, results = scored.spec, scored.results
        judged = span_f1(results, self.data, name=spec)  # no spans: refused before the scores are reported
        super().scored(scored)
        note(self.opts, f"{spec}: {judged.signature}")
        self.judged.append(judged)

