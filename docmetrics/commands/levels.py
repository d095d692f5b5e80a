"""The score tables of ``docmetrics`` at each ``--level``: the system scores (one line, a table, ``-b`` or JSON)
and a table per document, unit (chunk) or segment."""

from __future__ import annotations

import io
from typing import Any

from ..judging import ConfidenceInterval
from ..values.errors import UserError
from .common import width
from .format import column, metric_labels, num, table, tsv
from .messages import warn
from .options import Options
from .output import Output

#: --level: the system scores alone, or a table per document, per unit (chunk) or per segment
LEVELS = ("system", "doc", "chunk", "seg")


#: the columns of the --level tables
COLUMNS = {
    "doc": ("system", "metric", "spec", "doc_id", "units", "score"),
    "chunk": ("system", "metric", "spec", "doc_id", "unit", "first_line", "last_line", "weight", "group",
              "truncated", "partial", "score"),
    "seg": ("system", "metric", "spec", "doc_id", "seg", "line", "score"),
}


def check_segment_units(spec: str, results: list[Any]) -> None:
    """--level seg: every unit of the metric is one segment (else its scores are not per segment)."""
    for r in results:
        u = r.wide_unit()
        if u is not None:
            raise UserError(
                f"--level seg: {spec} scores units of several segments (e.g. lines {u.start + 1}-{u.end} of "
                f"document {u.doc_id!r}), so it has no per-segment scores; --level chunk gives every unit "
                "with its first and last line, --level doc every document")


def level_table(all_results: list[tuple[str, list[Any]]], opts: Options, testset: Any) -> Output:
    """--level doc|chunk|seg as TSV (a header, one row per document, unit or segment) or, with -f json,
    the results with their documents and units."""
    level = "doc" if opts.level == "doc" else "unit"
    return Output(data=lambda: [dict(r.to_dict(level=level, short=opts.short), spec=spec)
                                for spec, rs in all_results for r in rs],
                  tsv=lambda: level_tsv(all_results, opts, testset))


def level_tsv(all_results: list[tuple[str, list[Any]]], opts: Options, testset: Any) -> str:
    """The TSV of --level doc|chunk|seg: a header (:data:`COLUMNS`), one row per document, unit or segment."""
    odd = sorted({d.doc_id for d in testset.documents if any(c in d.doc_id for c in "\t\r\n")})
    if odd:  # a TSV cell cannot hold them
        warn(f"--level {opts.level}: {len(odd)} doc id(s) hold a tab or a line break (e.g. {odd[0]!r}), written as "
             "a space in the TSV; -f json keeps them as they are")
    doc_of: dict[int, tuple[int, int]] = {}  # line -> (document number, its first line): ids may reappear
    for k, d in enumerate(testset.documents):
        for line in range(d.start, d.end):
            doc_of[line] = (k, d.start)
    rows = []
    for spec, results in all_results:
        for r in results:
            key = [r.system, r.metric, spec]
            w = width(opts, r)  # the metric's decimals, as in the score table (bleu: 1, as sacrebleu prints)
            if opts.level == "doc":
                rows += [key + [d.doc_id, str(d.units), num(d.score, w)] for d in r.docs]
                continue
            seen: dict[int, int] = {}
            for u in r.units:
                k, first = doc_of.get(u.start, (-1, 0))
                seen[k] = seen.get(k, 0) + 1
                if opts.level == "seg":
                    rows.append(key + [u.doc_id, str(u.start - first + 1), str(u.start + 1), num(u.score, w)])
                else:
                    rows.append(key + [u.doc_id, str(seen[k]), str(u.start + 1), str(u.end), f"{u.weight:g}", u.group,
                                       str(u.truncated).lower(), str(u.partial).lower(), num(u.score, w)])
    return tsv(COLUMNS[opts.level], rows)


def results_output(all_results: list[tuple[str, list[Any]]], opts: Options,
                   cis: list[list[Any]] | None = None) -> Output:
    """The system scores: one line per metric (one system), a table (several), the scores alone
    (-b) or JSON (one object per system and metric, with its documents and units at --level)."""
    return Output(data=lambda: results_data(all_results, opts, cis),
                  text=lambda: results_text(all_results, opts, cis))


def flat_results(all_results: list[tuple[str, list[Any]]],
                 cis: list[list[Any]] | None) -> tuple[list[tuple[str, Any]], list[Any]]:
    """Each (spec, result) in order, and its confidence interval (None without --ci)."""
    flat = [(spec, r) for spec, results in all_results for r in results]
    return flat, [ci for per_metric in cis for ci in per_metric] if cis else [None] * len(flat)


def results_data(all_results: list[tuple[str, list[Any]]], opts: Options,
                 cis: list[list[Any]] | None) -> list[dict]:
    """``-f json``: one object per system and metric (its spec, its CI where asked), with its documents and
    units at --level."""
    flat, flat_cis = flat_results(all_results, cis)
    level = {"chunk": "unit", "seg": "unit"}.get(opts.level, opts.level)
    data = []
    for (spec, r), ci in zip(flat, flat_cis):
        d = dict(r.to_dict(level=level, short=opts.short), spec=spec)
        if ci is not None:
            d["ci"] = ci.to_dict()
        data.append(d)
    return data


def results_text(all_results: list[tuple[str, list[Any]]], opts: Options,
                 cis: list[list[Any]] | None) -> str:
    """The score table (or one line per metric for one system, or the scores alone with -b) and each
    metric's signature."""
    out = io.StringIO()
    flat, flat_cis = flat_results(all_results, cis)
    n_systems = len(all_results[0][1]) if all_results else 0
    if opts.score_only:
        if n_systems == 1:  # one score per line, as sacrebleu -b prints them
            out.writelines(num(r.score, width(opts, r)) + "\n" for _, r in flat)
            return out.getvalue()
        for i in range(n_systems):  # SYSTEM<TAB>SCORE (a score per -m spec, in order), one line per system
            row = [res[i] for _, res in all_results]
            out.write("\t".join([row[0].system, *(num(r.score, width(opts, r)) for r in row)]) + "\n")
        return out.getvalue()

    def cell(r: Any, ci: Any) -> str:
        w = width(opts, r)
        return num(r.score, w) + (" " + ci.to_text(w) if ci is not None else "")

    if n_systems == 1:
        for (_, r), ci in zip(flat, flat_cis):
            detail = f" {r.detail['text']}" if r.detail.get("text") else ""
            extra = f" ({r.coverage.summary()})" if r.coverage is not None else ""
            out.write(f"{r.signature.format(short=opts.short)} = {cell(r, ci)}{detail}{extra}\n")
            out.write(unit_signature_line(r, opts))
        if cis:
            out.write(ConfidenceInterval.describe(cis))
        return out.getvalue()
    specs = [spec for spec, _ in all_results]
    labels = metric_labels(specs, [res[0].metric if res else spec for spec, res in all_results])
    headers = ["System"] + [column(label, k + 1) for k, label in enumerate(labels)]
    rows = []
    for i in range(n_systems):
        rows.append([all_results[0][1][i].system] + [cell(res[i], cis[k][i] if cis else None)
                                                     for k, (_, res) in enumerate(all_results)])
    out.write(table(headers, rows))
    out.write("\n")
    if cis:
        out.write(ConfidenceInterval.describe(cis))
    for k, (_, res) in enumerate(all_results):
        out.write(f"[{k + 1}] {res[0].signature.format(short=opts.short)}\n")
        out.write(unit_signature_line(res[0], opts, f"[{k + 1}] "))
    return out.getvalue()


def unit_signature_line(r: Any, opts: Options, prefix: str = "") -> str:
    """At --level seg|chunk, the signature of the unit scores where it is not the system score's (BLEU's
    sentence scores: effective order, eff:yes), so the table's scores can be reproduced from it."""
    if opts.level not in ("seg", "chunk") or getattr(r, "unit_signature", None) is None:
        return ""
    what = "segment" if opts.level == "seg" else "unit"
    return f"{prefix}{what} scores: {r.unit_signature.format(short=opts.short)}\n"
