"""A ``docmetrics`` run: the checks before any model loads, then the plain files, a GenMT file or the WMT25 TSV
scored and written (the system scores, the --level tables, a paired test or a meta-evaluation)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import Any

from ..api import read_sacrebleu_signature
from ..judging import Scored, Scores, metric_labels, score_metrics
from ..values.errors import UserError
from . import data as data_cli
from . import genmt, mtme, significance
from . import human as human_cli
from . import report as report_cli
from . import spans as spans_cli
from . import stored as stored_cli
from . import wmt25 as wmt25_cli
from . import wmt26 as wmt26_cli
from .common import check_outputs, session_scope
from .inputs import check_stdin, load_testset, show_warnings
from .messages import note, warn
from .options import Options
from .output import Output, decimals, write, write_output
from .scoring import ScoringReport
from .specs import check_specs, reference_advice, reference_files


def run(opts: Options) -> int:
    if opts.list or opts.check_plugins:
        from .describe import write_list

        broken = write_list(sys.stdout, check=opts.check_plugins)
        return 1 if opts.check_plugins and broken else 0
    if opts.describe:
        from .describe import describe

        print(describe(opts.describe))
        return 0
    data_cli.check(opts, "main")  # judged data: as its alias (judged_run)
    if opts.spans is not None:  # span predictions from files: no metric is scored
        check_outputs(opts)
        output = spans_cli.run(opts)
        if opts.report:  # the page holds what -f json prints
            data = output.data()
            output = Output(data=lambda: data, text=output.text)
            report_cli.write(opts, opts.report, data, "this command's output (spans)", report_cli.page_title(opts))
        write(output, opts)
        return 0
    if not opts.metrics and not stored_cli.requested(opts):
        print("docmetrics: error: give metrics with -m (see --list), e.g. -m slide:w=6,s=6", file=sys.stderr)
        return 2
    stored_cli.check_args(opts)
    opts = read_signatures(opts)
    refs = reference_files(opts.metrics)
    if refs:  # sacrebleu's positional references after -m: docmetrics -i hyp.txt -m bleu ref.txt
        command = ["-m", *[m for m in opts.metrics if m not in refs], "-i", *(opts.input or ["HYP"]),
                   *(["-s", opts.source] if opts.source else []), "-r", *(opts.references or []), *refs]
        raise UserError(reference_advice(command))
    check_specs(opts.metrics)
    check_outputs(opts, wmt25_cli.signature_output(opts))  # -o, --report, ... never an input nor each other
    genmt.check_args(opts)  # before --mtme: --domains and --error-free are --genmt's alone
    if mtme.requested(opts):
        return mtme.run(opts)  # in a session of its own (mtme.score)
    wmt25_cli.check_args(opts)
    wmt26_cli.check_args(opts)
    if opts.wmt25_tsv or opts.wmt26 or opts.genmt or opts.data:
        return judged_run(opts)
    opts, human = check_args(opts)
    with session_scope(opts, cache=opts.cache) as session:
        return score_run(opts, human, session)


def read_signatures(opts: Options) -> Options:
    """The options with each -m that is sacrebleu's signature (BLEU|nrefs:1|case:mixed|...) read as the metric
    sacrebleu computed, with its options (``sacrebleu_signatures``: what the signature says, by -m index)."""
    specs, expected = list(opts.metrics), {}
    for k, text in enumerate(specs):
        sacre = read_sacrebleu_signature(text)
        if sacre is not None:
            specs[k] = sacre.spec
            expected[k] = sacre.expected
            note(opts, f"{text} is sacrebleu's signature: computed as -m {sacre.spec}")
    return replace(opts, metrics=specs, sacrebleu_signatures=expected)


def judged_run(opts: Options) -> int:
    """``--data PATH`` (any registered format) or its alias ``--genmt``, ``--wmt25-tsv``, ``--wmt26``: the language
    pair's data read by ``read_human`` (its notes said) before any model loads, then scored (paired tests where
    asked; --write-submission), and, where it has human scores, meta-evaluated like ``--human FILE --seg-level``
    (the EvalSet itself: ``meta_evaluate``'s own path for its format; --genmt: judged as detectors, --error-free)."""
    from .. import api

    significance.check_args(opts)
    data = data_cli.read(opts, opts.lang or None)
    testset, human = data_cli.texts(opts, data), data.human
    show_warnings(testset)
    if significance.requested(opts) and len(testset.systems) < 2:
        raise UserError(f"--paired-{significance.requested(opts)}: {data.source} has {len(testset.systems)} system "
                        f"to score for {data.lp}; a paired test needs two or more")
    if opts.genmt:
        opts = genmt.judging(opts, data)
    elif opts.data and human is not None:  # judged as the format's reader made it (MTME: its own statistics); the
        # segment level where it has segment scores (meta_evaluate's default)
        opts, human = replace(opts, human=opts.data, seg_level=opts.seg_level or bool(human.segments)), data
    human_cli.check_args(opts)
    live = list(opts.metrics)
    opts, stored = (stored_cli.scorers(opts, stored_cli.for_pair(opts, data.lp), testset) if opts.scores
                    else (opts, []))
    with session_scope(opts, cache=opts.cache) as session:
        metrics = [api.load(spec, defaults={"lang": testset.lp}, session=session) for spec in live]
        if getattr(opts, "include_human", False):
            genmt.check_reference_free(metrics, live)
        with wmt26_cli.references_from_release(opts, [data.raw]):
            return score_and_write(opts, metrics + stored, testset, session.cache, human, data=data)


def score_run(opts: Options, human: Any, session: Any) -> int:
    """Load the metrics in the command's session, read the test set, score, write."""
    from .. import api

    if opts.scores:  # the stored metrics fit the test set, or the run stops before any model loads
        found = stored_cli.for_pair(opts, opts.lang)
        testset = load_testset(opts) if opts.input else stored_cli.testset_of(found)
        if significance.requested(opts) and len(testset.systems) < 2:
            raise UserError(f"--paired-{significance.requested(opts)}: the stored scores have one system "
                            f"({', '.join(testset.systems)}); a paired test needs two or more")
        live = list(opts.metrics)
        opts, stored = stored_cli.scorers(opts, found, testset)
        metrics = [api.load(spec, defaults={"lang": opts.lang}, session=session) for spec in live]
        return score_and_write(opts, metrics + stored, testset, session.cache, human)
    metrics = [api.load(spec, defaults={"lang": opts.lang}, session=session) for spec in opts.metrics]
    testset = load_testset(opts, documents=any(m.reads_neighbours() for m in metrics))
    return score_and_write(opts, metrics, testset, session.cache, human)


def check_args(opts: Options) -> tuple[Options, Any]:
    """Every check that needs no model, before any is loaded: the inputs (stdin where no -i), the
    numbers, the files to write, the combinations of options; the options (reading stdin where no -i)
    and the --human scores read."""
    if opts.scores and not opts.input:  # the stored scores are the test set: no text to read
        if opts.metrics:
            raise UserError(f"-m {' '.join(opts.metrics)} with --scores and no -i: a live metric needs the system "
                            "outputs (-i HYP... -s SRC --doc-ids IDS) that the stored scores were computed on")
    else:
        opts = check_stdin(opts)
    significance.check_args(opts)
    human_cli.check_args(opts)
    test = significance.requested(opts)
    if opts.human:
        human_cli.PAIRED.check(opts)
        human_cli.REFUSED.check(opts)
    if opts.level != "system" and opts.format == "json" and (test or opts.human) and not opts.output:
        raise UserError(f"--level {opts.level} -f json with {'--paired-' + test if test else '--human'}: stdout "
                        f"holds the {'paired test' if test else 'meta-evaluation'}; write the table with -o FILE")
    check_outputs(opts)  # again: the stdin check may have changed the inputs
    return opts, human_cli.read_human(opts)


def score_and_write(opts: Options, metrics: list[Any], testset: Any, score_cache: Any,
                    human: Any = None, data: Any = None) -> int:
    """Score, judge and write; ``data``: what --genmt, --wmt25-tsv or --wmt26 read (what --error-free judges, what
    --write-submission writes; --genmt's is what the report shows the ESA spans of)."""
    opts = significance.find_baseline(opts, testset)  # before scoring: an unknown --baseline exits 2
    human_cli.warn_unmatched(opts, testset, human)
    labels = metric_labels(opts.metrics, [m.name for m in metrics])
    scored = score_metrics(testset, list(zip(opts.metrics, metrics)), observer=_Report(opts, labels),
                           requested=getattr(opts, "sacrebleu_signatures", None))
    all_results = [(s.spec, s.results) for s in scored]
    if opts.dump_alignment:
        dump_alignment(all_results, opts.dump_alignment)
    if getattr(opts, "write_submission", None):
        wmt25_cli.write(opts, data, all_results)  # --write-submission needs --wmt25-tsv
    if score_cache is not None:
        note(opts, f"score cache {score_cache.path}: {score_cache.stats.summary()}")
    scores = Scores(all_results, testset, significance.confidence_intervals(all_results, opts) if opts.ci else None)
    evals = found = None
    if opts.human and not significance.requested(opts):
        evals = human_cli.run_metaeval(all_results, opts, testset, human)
        if getattr(opts, "error_free", None):
            from ..judging import error_free  # --error-free needs --genmt

            found = error_free(all_results, data, None if opts.error_free == "auto" else float(opts.error_free))
    output = judged(scores, opts, evals, found)
    report = output.render(opts.format)
    if opts.report:  # the page holds what -f json prints
        report_cli.write(opts, opts.report, json.loads(output.render("json")), "this command's output ({layout})",
                         report_cli.page_title(opts), results=all_results, intervals=scores.intervals, testset=testset,
                         human=getattr(human, "human", human),  # an EvalSet (--data): its scores
                         data=data if data is not None and (data.format == "genmt" or opts.data) else None)  # spans
    plain_json = opts.format == "json" and not significance.requested(opts) and not opts.human
    if opts.level == "system" or plain_json:  # JSON results carry their documents and units
        write_output(opts, report)
        return 0
    write(Output(data=lambda: scores.to_dict(opts.level, short=opts.short), text=lambda: level_tsv(scores, opts)),
          opts)
    (sys.stdout if opts.output else sys.stderr).write(report)
    return 0


class _Report(ScoringReport):
    """--level seg: a metric whose units span several segments stops the run before it is reported."""

    def scored(self, scored: Scored) -> None:
        try:
            Scores.check_level(self.opts.level, scored.spec, scored.results)
        except UserError as exc:  # in the command's words: --level seg, --level chunk
            raise UserError(str(exc).replace("level=", "--level ")) from None
        super().scored(scored)


def level_tsv(scores: Scores, opts: Options) -> str:
    """The TSV of --level doc|chunk|seg (-w decimals where given, else each metric's own)."""
    odd = sorted({d.doc_id for d in scores.testset.documents if any(c in d.doc_id for c in "\t\r\n")})
    if odd:  # a TSV cell cannot hold them
        warn(f"--level {opts.level}: {len(odd)} doc id(s) hold a tab or a line break (e.g. {odd[0]!r}), written as "
             "a space in the TSV; -f json keeps them as they are")
    return scores.to_tsv(opts.level, width=decimals(opts))


def judged(scores: Scores, opts: Options, evals: Any, found: Any) -> Output:
    """What the command prints on stdout: the paired test, the meta-evaluation (and the error-free
    detections), or the system scores (JSON with their documents and units at --level)."""
    if significance.requested(opts):
        return significance.paired_output(list(scores.metrics), opts)
    if evals is None:
        return Output(data=lambda: scores.to_dict(opts.level, short=opts.short),
                      text=lambda: scores.to_text(short=opts.short, width=decimals(opts),
                                                  score_only=opts.score_only, level=opts.level))
    if found is None:  # the meta-evaluation's own text (-w decimals) and JSON
        return Output(data=evals.to_dict, text=lambda: evals.to_text(width=opts.width))
    from ..judging import error_free_text

    return Output(data=lambda: genmt.with_detections(evals.to_dict(), found),
                  text=lambda: evals.to_text(width=opts.width) + error_free_text(found, opts.width))


def dump_alignment(all_results: list[tuple[str, list[Any]]], path: str) -> None:
    """--dump-alignment: each record of ``Result.extras['alignment']``, one JSON object per line."""
    written = 0
    try:
        with open(path, "w", encoding="utf-8") as f:
            for _, results in all_results:
                for r in results:
                    for record in r.extras.get("alignment", ()):
                        f.write(json.dumps({"system": r.system, "metric": r.metric, **record},
                                           ensure_ascii=False) + "\n")
                        written += 1
    except OSError as exc:
        raise UserError(f"--dump-alignment {path}: cannot write the file ({exc.strerror})") from None
    if not written:
        warn(f"--dump-alignment {path}: no metric among -m aligns sentences (asd does); the file is empty")
