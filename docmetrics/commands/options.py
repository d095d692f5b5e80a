"""The commands' options as typed, frozen values: what ``docmetrics`` and its subcommands were asked,
parsed once by the command line (:mod:`docmetrics.cli`) and passed down, never changed in place.  A step
that derives a value (the system output read from stdin, sacrebleu's signatures read as specs) returns a
new value with :func:`dataclasses.replace`.

Each group is the options one argument group defines; a command's options are the groups its parser has,
and a group a parser lacks keeps its defaults (what the code read with ``getattr(args, NAME, default)``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["flag_of", "Common", "Shown", "Inputs", "Model", "Human", "Mtme", "Stored", "Paired", "Wmt26", "Data",
           "RunOptions", "SweepOptions", "MetaevalOptions", "RankOptions", "ReportOptions", "SampleOptions",
           "RerankOptions", "MbrOptions", "Options"]

frozen = dataclass(frozen=True, kw_only=True)

#: The options whose flag is not ``--`` and their field's name with dashes (``doc_ids``: ``--doc-ids``).
SHORT = {"input": "-i", "source": "-s", "reference": "-r", "references": "-r", "lang": "-l", "lp": "-l", "lps": "-l",
         "metrics": "-m", "output": "-o", "testset": "-t", "candidates": "-c", "statistics": "--stat"}


def flag_of(field_name: str) -> str:
    """The option as typed that sets the field ``field_name`` of the options."""
    return SHORT.get(field_name, "--" + field_name.replace("_", "-"))



@frozen
class Common:
    """-q and --debug: every command has them; ``argv``: the command as typed (a report names it)."""

    quiet: bool = False
    debug: bool = False
    argv: list[str] | None = None


@frozen
class Shown(Common):
    """How results are printed: -f, -sh, -w (``width_given``: -w was given), -v."""

    format: str = "text"
    short: bool = False
    width: int = 4
    width_given: bool = False
    verbose: bool = False


@frozen
class Inputs(Common):
    """-i, -s, -r (``reference``: the first), --doc-ids, -l, --jsonl, --doc-per-line; ``stdin_implicit``:
    no -i was given, so the one system is read from stdin."""

    input: list[str] | None = None
    source: str | None = None
    reference: str | None = None
    references: list[str] | None = None
    doc_ids: str | None = None
    lang: str | None = None
    jsonl: bool = False
    doc_per_line: bool = False
    stdin_implicit: bool = False


@frozen
class Model(Common):
    """Where and how models run, and the score cache (--cache: a path, "" for the default file)."""

    device: str = "auto"
    batch_size: int | None = None
    max_tokens: int | None = None
    precision: str | None = None
    workers: int | None = None
    engine: str = "local"
    ray_address: str | None = None
    cache: str | None = None


@frozen
class Human(Common):
    """--human FILE and how it is judged."""

    human: str | None = None
    human_column: str | None = None
    human_lower_better: bool = False
    no_human_systems: bool = False
    exclude_systems: list[str] = field(default_factory=list)
    seg_level: bool = False
    doc_level: str | None = None
    pdp: bool = False


@frozen
class Mtme(Common):
    """--mtme ROOT: the test set, references and human scores of mt-metrics-eval's data."""

    mtme: str | None = None
    testset: str | None = None
    ref: list[str] | None = None
    human_name: str | None = None
    include_human: bool = False
    include_outliers: bool = False
    write_mtme: str | None = None
    metric_name: list[str] | None = None
    resamples: int | None = None
    metric_test: str | None = None
    statistics: list[str] | None = None
    rank_by: str | None = None
    seed: int = 12345


@frozen
class Stored(Common):
    """--scores FILE: stored scores judged like metrics (--stored picks, --direction says which way is up)."""

    scores: list[str] | None = None
    stored: list[str] | None = None
    direction: list[str] = field(default_factory=list)


@frozen
class Paired(Common):
    """--paired-bs/--paired-ar against --baseline, and --ci."""

    paired_bs: bool = False
    paired_ar: bool = False
    baseline: str | None = None
    paired_bs_n: int = 1000
    paired_ar_n: int = 10000
    seed: int = 12345
    ci: bool = False
    ci_n: int = 1000
    ci_level: float = 0.95


@frozen
class Wmt26(Common):
    """--wmt26 FILE: a language pair of the WMT26 release."""

    wmt26: str | None = None
    wmt26_systems: list[str] | None = None
    wmt26_ref: list[str] | None = None
    wmt26_source: str = "src_text"


@frozen
class Data(Common):
    """--data PATH: judged data in any registered format (--data-format NAME, --data-option KEY=VALUE...)."""

    data: str | None = None
    data_format: str | None = None
    data_option: list[str] | None = None


@frozen
class RunOptions(Shown, Inputs, Model, Human, Mtme, Stored, Paired, Wmt26, Data):
    """``docmetrics``: what to score and how to judge it.  ``sacrebleu_signatures``: for the index of each
    -m given as sacrebleu's signature, the options that signature names (read, not given)."""

    metrics: list[str] = field(default_factory=list)
    list: bool = False
    check_plugins: bool = False
    describe: str | None = None
    score_only: bool = False
    max_truncated: float | None = None
    level: str = "system"
    output: str | None = None
    dump_alignment: str | None = None
    report: str | None = None
    genmt: str | None = None
    domains: list[str] | None = None
    error_free: str | None = None
    spans: list[str] | None = None
    systems: list[str] | None = None
    wmt25_tsv: str | None = None
    wmt25_set: str = "official"
    write_submission: str | None = None
    sacrebleu_signatures: dict[int, Any] = field(default_factory=dict)


@frozen
class SweepOptions(Shown, Inputs, Model, Human):
    """``docmetrics sweep``: one metric over a grid of its parameters, meta-evaluated."""

    metric: str | None = None
    grid: list[str] | None = None
    no_cache: bool = False
    cache_chunk: int | None = None
    stat: str = "accuracy"
    plot: str | None = None
    output: str | None = None
    report: str | None = None


@frozen
class MetaevalOptions(Shown, Model, Mtme, Stored, Data):
    """``docmetrics metaeval``: metrics on several language pairs of MTME data."""

    metrics: list[str] = field(default_factory=list)
    lps: str | None = None
    doc_level: str | None = None
    pdp: bool = False
    average: str | None = None
    plot: str | None = None
    report: str | None = None


@frozen
class RankOptions(Shown, Inputs, Model, Stored, Wmt26, Data):
    """``docmetrics rank``: AutoRank over stored and live metrics, with clusters; human clusters."""

    lp: list[str] | None = None
    preset: str | None = None
    genmt: str | None = None
    human: str | None = None
    human_column: str | None = None
    lower_is_better: bool = False
    mtme: str | None = None
    testset: str | None = None
    ref: list[str] | None = None
    gold: str | None = None
    rule: str | None = None
    metrics: list[str] = field(default_factory=list)
    paired_bs: bool = False
    paired_bs_n: int = 1000
    seed: int = 12345


@frozen
class ReportOptions(Inputs, Human, Data):
    """``docmetrics report``: a page from saved -f json output (--human and how to read it: the Human group)."""

    files: list[str] | None = None
    output: str | None = None
    title: str | None = None
    spans_tsv: str | None = None


@frozen
class SampleOptions(Common):
    """``docmetrics sample DIR``."""

    dir: str | None = None
    force: bool = False
    models: bool = False


@frozen
class RerankOptions(Shown, Inputs, Model):
    """``docmetrics rerank``: the best of N candidates (-c) per unit by a QE metric, or against -r (an oracle)."""

    metric: str | None = None
    candidates: list[str] | None = None
    unit: str = "document"
    paragraph_ids: str | None = None
    output: str | None = None


@frozen
class MbrOptions(RerankOptions):
    """``docmetrics mbr``: MBR decoding among N candidates per unit (--matrix: the pairwise scores in the JSON;
    --prune-top-k K --prune-metric QE: the K best by QE enter MBR)."""

    matrix: bool = False
    prune_top_k: int | None = None
    prune_metric: str | None = None


#: The options a step shared by several commands may be given.
Options = RunOptions | SweepOptions | MetaevalOptions | RankOptions | ReportOptions | RerankOptions
