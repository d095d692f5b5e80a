"""A ``docmetrics`` run: the checks before any model loads, then the plain files, a GenMT file or the WMT25 TSV
scored and written (the system scores, the --level tables, a paired test or a meta-evaluation)."""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import TYPE_CHECKING, Any

from ..evaluation.scoring import Scored, score_metrics
from ..values.errors import UserError
from ..values.sacrebleu_signature import read_sacrebleu_signature
from . import genmt, mtme, significance
from . import human as human_cli
from . import report as report_cli
from . import spans as spans_cli
from . import stored as stored_cli
from . import wmt25 as wmt25_cli
from . import wmt26 as wmt26_cli
from .common import check_outputs, session_scope
from .format import metric_labels
from .inputs import check_stdin, load_testset
from .levels import check_segment_units, level_table, results_output
from .messages import note, warn
from .output import Output, render, write, write_output
from .scoring import ScoringReport
from .specs import check_specs, reference_advice, reference_files

if TYPE_CHECKING:
    from ..values.genmt import GenmtPair


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.list or args.check_plugins:
        from .describe import write_list

        broken = write_list(sys.stdout, check=args.check_plugins)
        return 1 if args.check_plugins and broken else 0
    if args.describe:
        from .describe import describe

        print(describe(args.describe))
        return 0
    if spans_cli.requested(args):  # span predictions from files: no metric is scored
        check_outputs(args)
        write(spans_cli.run(args), args)
        return 0
    if not args.metrics and not stored_cli.requested(args):
        print("docmetrics: error: give metrics with -m (see --list), e.g. -m slide:w=6,s=6", file=sys.stderr)
        return 2
    args.metrics = list(args.metrics or [])
    stored_cli.check_args(args)
    args.sacrebleu_signatures = {}
    for k, text in enumerate(args.metrics):
        sacre = read_sacrebleu_signature(text)
        if sacre is not None:  # BLEU|nrefs:1|case:mixed|...: the metric sacrebleu computed, with its options
            args.metrics[k] = sacre.spec
            args.sacrebleu_signatures[k] = sacre.expected
            note(args, f"{text} is sacrebleu's signature: computed as -m {sacre.spec}")
    refs = reference_files(args.metrics)
    if refs:  # sacrebleu's positional references after -m: docmetrics -i hyp.txt -m bleu ref.txt
        command = ["-m", *[m for m in args.metrics if m not in refs], "-i", *(args.input or ["HYP"]),
                   *(["-s", args.source] if args.source else []), "-r", *(args.references or []), *refs]
        raise UserError(reference_advice(command))
    check_specs(args.metrics)
    check_outputs(args, wmt25_cli.signature_output(args))  # -o, --report, ... never an input nor each other
    genmt.check_args(args)  # before --mtme: --domains and --error-free are --genmt's alone
    if mtme.requested(args):
        out = io.StringIO() if args.output else sys.stdout
        code = mtme.run(args, out)  # in a session of its own (cli.mtme.score)
        if args.output:
            write_output(args, out.getvalue())
        return code
    wmt25_cli.check_args(args)
    if wmt25_cli.requested(args):
        return wmt25_run(args)
    wmt26_cli.check_args(args)
    if wmt26_cli.requested(args):
        return wmt26_run(args)
    if genmt.requested(args):
        return genmt_run(args)
    human = check_args(args)
    with session_scope(args, cache=args.cache) as session:
        return score_run(args, human, session)


def genmt_run(args: argparse.Namespace) -> int:
    """``--genmt FILE``: the language pair's test set and human scores, read before any model loads, then
    scored and meta-evaluated like ``--human FILE --seg-level`` (and judged as detectors: --error-free)."""
    from .. import api

    significance.check_args(args)
    genmt.REFUSED.check(args)
    pair, testset, human, notes = genmt.prepare(args)
    if significance.requested(args) and len(testset.systems) < 2:
        raise UserError(f"--paired-{significance.requested(args)}: {args.genmt} has {len(testset.systems)} system for "
                        f"{pair.name}; a paired test needs two or more")
    for text in notes:
        warn(text) if "reappears" in text else note(args, text)
    if human is None:
        judging = [flag for attr, flag in (("error_free", "--error-free"), ("doc_level", "--doc-level"),
                                           ("pdp", "--pdp"), ("seg_level", "--seg-level"),
                                           ("no_human_systems", "--no-human-systems")) if getattr(args, attr, None)]
        if judging:
            raise UserError(f"{judging[0]}: {args.genmt} has no human scores for {pair.name} (field scores); "
                            "give the humeval file (segment lines with scores), or score without it")
    else:
        args.human, args.seg_level = args.genmt, True  # the meta-evaluation of --human FILE --seg-level
    human_cli.check_args(args)
    live = list(args.metrics)
    stored = stored_cli.scorers(args, stored_cli.for_pair(args, pair.name), testset) if args.scores else []
    with session_scope(args, cache=args.cache) as session:
        metrics = [api.load(spec, defaults={"lang": pair.name}, session=session) for spec in live]
        if getattr(args, "include_human", False):
            genmt.check_reference_free(metrics, live)
        return score_and_write(args, metrics + stored, testset, session.cache, human, pair)


def wmt25_run(args: argparse.Namespace) -> int:
    """``--wmt25-tsv FILE``: a language pair and set of the metrics task's test TSV, read before any model
    loads, scored (paired tests where asked) and written as a submission (--write-submission)."""
    from .. import api

    significance.check_args(args)
    human_cli.check_args(args)
    data, pair = wmt25_cli.prepare(args)
    testset = pair.testset
    if significance.requested(args) and len(testset.systems) < 2:
        raise UserError(f"--paired-{significance.requested(args)}: {args.wmt25_tsv} has one system for {pair.lp}; "
                        "a paired test needs two or more")
    args.wmt25_data = (data, pair)
    live = list(args.metrics)
    stored = stored_cli.scorers(args, stored_cli.for_pair(args, pair.lp), testset) if args.scores else []
    with session_scope(args, cache=args.cache) as session:
        metrics = [api.load(spec, defaults={"lang": pair.lp}, session=session) for spec in live]
        return score_and_write(args, metrics + stored, testset, session.cache, None)


def wmt26_run(args: argparse.Namespace) -> int:
    """``--wmt26 FILE --wmt26-systems ...``: a language pair of the WMT26 release, read before any model loads,
    each document as its paragraphs or whole, scored (paired tests where asked)."""
    from .. import api

    significance.check_args(args)
    human_cli.check_args(args)
    pair, testset, _ = wmt26_cli.prepare(args)
    if significance.requested(args) and len(testset.systems) < 2:
        raise UserError(f"--paired-{significance.requested(args)}: {args.wmt26} has {len(testset.systems)} complete "
                        f"system for {pair.name}; a paired test needs two or more")
    stored = stored_cli.scorers(args, stored_cli.for_pair(args, pair.name), testset) if args.scores else []
    with session_scope(args, cache=args.cache) as session:
        metrics = [api.load(spec, defaults={"lang": args.lang}, session=session) for spec in args.metrics]
        return score_and_write(args, metrics + stored, testset, session.cache, None)


def score_run(args: argparse.Namespace, human: Any, session: Any) -> int:
    """Load the metrics in the command's session, read the test set, score, write."""
    from .. import api

    if args.scores:  # the stored metrics fit the test set, or the run stops before any model loads
        found = stored_cli.for_pair(args, args.lang)
        testset = load_testset(args) if args.input else stored_cli.testset_of(found)
        if significance.requested(args) and len(testset.systems) < 2:
            raise UserError(f"--paired-{significance.requested(args)}: the stored scores have one system "
                            f"({', '.join(testset.systems)}); a paired test needs two or more")
        live = list(args.metrics)
        stored = stored_cli.scorers(args, found, testset)
        metrics = [api.load(spec, defaults={"lang": args.lang}, session=session) for spec in live]
        return score_and_write(args, metrics + stored, testset, session.cache, human)
    metrics = [api.load(spec, defaults={"lang": args.lang}, session=session) for spec in args.metrics]
    testset = load_testset(args, documents=any(m.reads_neighbours() for m in metrics))
    return score_and_write(args, metrics, testset, session.cache, human)


def check_args(args: argparse.Namespace) -> Any:
    """Every check that needs no model, before any is loaded: the inputs (stdin where no -i), the
    numbers, the files to write, the combinations of options; reads and returns the --human scores."""
    if args.scores and not args.input:  # the stored scores are the test set: no text to read
        stored_cli.WITHOUT_OUTPUTS.check(args, specs=" ".join(args.metrics))
        args.input = []
    else:
        check_stdin(args)
    significance.check_args(args)
    human_cli.check_args(args)
    test = significance.requested(args)
    if args.human:
        human_cli.PAIRED.check(args)
        human_cli.REFUSED.check(args)
    if args.level != "system" and args.format == "json" and (test or args.human) and not args.output:
        raise UserError(f"--level {args.level} -f json with {'--paired-' + test if test else '--human'}: stdout "
                        f"holds the {'paired test' if test else 'meta-evaluation'}; write the table with -o FILE")
    check_outputs(args)  # again: the stdin check may have changed the inputs
    return human_cli.read_human(args)


def score_and_write(args: argparse.Namespace, metrics: list[Any], testset: Any, score_cache: Any,
                    human: Any = None, pair: GenmtPair | None = None) -> int:
    """Score, judge and write; ``pair``: the --genmt language pair judged (its human scores ``human``)."""
    significance.find_baseline(args, testset)  # before scoring: an unknown --baseline exits 2
    human_cli.check_document_gold(args, testset, human)
    human_cli.warn_unmatched(args, testset, human)
    labels = metric_labels(args.metrics, [m.name for m in metrics])
    scored = score_metrics(testset, list(zip(args.metrics, metrics)), observer=_Report(args, labels),
                           requested=getattr(args, "sacrebleu_signatures", None))
    all_results = [(s.spec, s.results) for s in scored]
    if args.dump_alignment:
        dump_alignment(all_results, args.dump_alignment)
    if getattr(args, "write_submission", None):
        wmt25_cli.write(args, *args.wmt25_data, all_results)
    if score_cache is not None:
        note(args, f"score cache {score_cache.path}: {score_cache.stats.summary()}")
    cis = significance.confidence_intervals(all_results, args) if args.ci else None
    evals = found = None
    if args.human and not significance.requested(args):
        evals = human_cli.run_metaeval(all_results, args, testset, human)
        if getattr(args, "error_free", None):
            assert pair is not None  # --error-free needs --genmt
            found = genmt.detections(all_results, pair, args.error_free)
    output = judged(all_results, args, cis, evals, found, human, pair)
    report = render(output, args.format)
    if args.report:  # the page holds what -f json prints
        report_cli.write_for_command(args, render(output, "json"), all_results, testset, human, cis, pair)
    plain_json = args.format == "json" and not significance.requested(args) and not args.human
    if args.level == "system" or plain_json:  # JSON results carry their documents and units
        write_output(args, report)
        return 0
    write(level_table(all_results, args, testset), args)
    (sys.stdout if args.output else sys.stderr).write(report)
    return 0


class _Report(ScoringReport):
    """--level seg: a metric whose units span several segments stops the run before it is reported."""

    def scored(self, scored: Scored) -> None:
        if self.args.level == "seg":
            check_segment_units(scored.spec, scored.results)
        super().scored(scored)


def judged(all_results: list[tuple[str, list[Any]]], args: argparse.Namespace, cis: Any, evals: Any, found: Any,
           human: Any, pair: GenmtPair | None = None) -> Output:
    """What the command prints on stdout: the paired test, the meta-evaluation (and the error-free
    detections), or the system scores."""
    if significance.requested(args):
        return significance.paired_output(all_results, args)
    if evals is None:
        return results_output(all_results, args, cis)
    if found is None:
        return human_cli.metaeval_output(evals, args, human, pair)
    return Output(data=lambda: genmt.with_detections(human_cli.metaeval_data(evals), found),
                  text=lambda: (human_cli.metaeval_text(evals, args, human, pair)
                                + genmt.detections_text(found, args.width)))


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
