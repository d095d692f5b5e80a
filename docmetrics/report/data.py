"""What a report page shows, as one JSON-able object (the page's embedded data).

The object, ``{"report": 1, ...}``:

* ``sources``: each output the page was built from, exactly as ``-f json`` (or ``sweep -o``, or
  ``--dump-alignment``) wrote it, with its ``layout`` (:data:`LAYOUTS`) and ``name``;
* ``results``: the per-document and per-unit scores where no source carries them (``--report`` on a
  command that prints system scores or a meta-evaluation), units column by column to keep the page small;
* ``texts``: the test set (documents, source, references, every system's output), ``human``: the human
  segment scores on its lines, ``spans``: the human error spans of each system's lines, where they were
  read (GenMT's, a raw MQM file's, a span TSV's), and ``human.ranking`` where the caller gave it: the systems
  in the human ranking's order with its clusters (:func:`docmetrics.judging.rules.report_ranking`); a metric's
  own spans and an LLM judge's answers stay in its results (``units[].spans``, ``units[].answer``, SLIDE's
  ``detail.segment_spans``);
* ``significance``: the PERM-BOTH p-values between metrics of each meta-evaluation in ``sources``, as one
  matrix per compared statistic (:func:`significance`);
* ``command``, ``inputs``: what was run, as typed.

Nothing here scores: it reads JSON and value types.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Iterable, Mapping, Sequence

from ..values.result import Result
from ..values.testset import TestSet
from ..values.versions import __version__

#: The layouts a saved output can have, each with what tells it apart.
LAYOUTS = {
    "scores": "a list of results (system, metric, score, signature; docs and units with --level)",
    "paired": "a list of paired-test rows (baseline, p_value) from --paired-bs / --paired-ar -f json",
    "human": "a list of meta-evaluations (metric_scores, human_scores) from --human / --genmt -f json (with "
             "--error-free, each with its detection under error_free)",
    "genmt": "an object with metaeval and error_free: what --genmt ... --error-free -f json wrote before it "
             "became the human list (still read)",
    "mtme": "an object with testset, lp and metrics from --mtme -f json",
    "metaeval": "an object with lps and averages from docmetrics metaeval -f json",
    "sweep": "an object with grid and points from docmetrics sweep -o FILE",
    "spans": "an object with gold and predictors from --spans -f json (span F1 of each predictor)",
    "alignment": "JSON lines of sentence alignments from --dump-alignment",
    "report": "the data of a report page (its JSON export)",
}


class LayoutError(ValueError):
    """A JSON document none of :data:`LAYOUTS` describes."""


class TooDeep(LayoutError):
    """JSON nested too deeply to be read."""


#: What tells a layout apart: the keys of its object, or of the first object of its list, tried in this order.
_OBJECT_KEYS = {"genmt": ("metaeval",), "mtme": ("testset", "lp"), "metaeval": ("lps", "averages"),
                "sweep": ("grid", "points"), "spans": ("gold", "predictors")}
_ROW_KEYS = {"alignment": ("alignment", "side"), "paired": ("baseline", "p_value"),
             "human": ("metric_scores", "human_scores"), "scores": ("score", "signature", "system")}


def detect(data: Any) -> str:
    """The layout of a parsed output (a key of :data:`LAYOUTS`)."""
    if isinstance(data, dict):
        if data.get("report") == 1 and "sources" in data:
            return "report"
        found = next((layout for layout, keys in _OBJECT_KEYS.items() if all(k in data for k in keys)), None)
        if found is None:
            raise LayoutError(f"an object with keys {', '.join(sorted(data)[:8])}")
        return found
    if isinstance(data, list) and data and all(isinstance(x, dict) for x in data):
        found = next((layout for layout, keys in _ROW_KEYS.items() if all(k in data[0] for k in keys)), None)
        if found is None:
            raise LayoutError(f"a list of objects with keys {', '.join(sorted(data[0])[:8])}")
        return found
    raise LayoutError("an empty list" if data == [] else f"a {type(data).__name__}")


def parse(text: str) -> Any:
    """A saved output: one JSON document, or JSON lines (``--dump-alignment``) as a list.  JSON nested
    deeper than Python's parser can follow is :class:`TooDeep` (no output of docmetrics nests past a dozen)."""
    deep = "nests arrays or objects about a thousand levels deep or more, which no output of docmetrics does"
    numbered = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    try:
        return json.loads(text)
    except RecursionError:  # one document: the file is the culprit
        raise TooDeep(f"its JSON {deep}") from None
    except json.JSONDecodeError:
        if len(numbered) < 2:
            raise
    out = []
    for number, line in numbered:  # JSON lines: the line that is too deep is named
        try:
            out.append(json.loads(line))
        except RecursionError:
            raise TooDeep(f"line {number}: its JSON {deep}") from None
    return out


def read(path: str) -> Any:
    """The saved output in the file ``path``, parsed (:func:`parse`) and of a layout :func:`detect` knows; a
    UserError where it cannot be read, an InputError naming the layouts where it is none of them."""
    from ..values.errors import InputError, UserError

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise UserError(f"{path}: cannot read the file ({exc.strerror})") from None
    try:
        data = parse(text)
        detect(data)
    except TooDeep as exc:  # the layouts would not help
        raise InputError(f"{path}: not an output docmetrics report reads: {exc}") from None
    except (ValueError, LayoutError) as exc:
        layouts = "; ".join(f"{k}: {v}" for k, v in LAYOUTS.items())
        raise InputError(f"{path}: not an output docmetrics report reads ({exc}); it reads {layouts}") from None
    return data


def compact_result(result: Result, spec: str, ci: Any = None) -> dict[str, Any]:
    """A result with its documents and units (``ci``: its confidence interval, a ConfidenceInterval or its
    ``to_dict()``), the units column by column (``doc``: an index into
    ``docs``; ``weight``, ``group``, ``truncated``, ``partial`` only where some unit differs from the
    default; ``spans`` (each unit's error spans as ``-f json`` writes them, or null) and ``answer`` (an
    LLM judge's, or null) only where some unit has them)."""
    d = dict(result.to_dict(level="system"), spec=spec)
    if ci is not None:
        d["ci"] = ci.to_dict() if hasattr(ci, "to_dict") else dict(ci)
    docs = [[x.doc_id, x.score, x.units] for x in result.docs]
    index = {x.doc_id: k for k, x in enumerate(result.docs)}
    for u in result.units:
        if u.doc_id not in index:  # a unit of a document without a DocScore: keep it placeable
            index[u.doc_id] = len(docs)
            docs.append([u.doc_id, None, 0])
    units: dict[str, list[Any]] = {
        "doc": [index[u.doc_id] for u in result.units],
        "start": [u.start for u in result.units],
        "end": [u.end for u in result.units],
        "score": [u.score for u in result.units],
    }
    for name, default in (("weight", 1.0), ("group", ""), ("truncated", False), ("partial", False)):
        values = [getattr(u, name) for u in result.units]
        if any(v != default for v in values):
            units[name] = values
    if any(u.spans for u in result.units):
        units["spans"] = [[s.to_dict() for s in u.spans] if u.spans else None for u in result.units]
    if any(u.answer is not None for u in result.units):
        units["answer"] = [u.answer for u in result.units]
    d["docs"], d["units"] = docs, units
    return d


def texts(testset: TestSet) -> dict[str, Any]:
    """The test set as the document view reads it: documents as ``[doc_id, first line, end line]``
    (0-based, end exclusive), the source, every reference with its name, each system's output."""
    return {
        "documents": [[d.doc_id, d.start, d.end] for d in testset.documents],
        "source": testset.sources,
        "references": testset.all_references,
        "reference_names": testset.reference_names() if testset.references else [],
        "systems": dict(testset.systems),
    }


def payload(sources: Sequence[tuple[str, Any]], *, results: Sequence[dict[str, Any]] = (),
            texts: Mapping[str, Any] | None = None, human: Mapping[str, Any] | None = None,
            spans: Mapping[str, Any] | None = None, command: str | None = None,
            inputs: Sequence[tuple[str, str]] = (), title: str | None = None) -> dict[str, Any]:
    """The report's data: ``sources`` as (name, parsed output) pairs, each detected (a report's own
    export is unpacked: its sources, results, texts ... are taken as they are)."""
    out: dict[str, Any] = {"report": 1, "docmetrics": __version__, "title": title, "command": command,
                           "inputs": [list(x) for x in inputs], "sources": [], "results": list(results),
                           "texts": texts, "human": human, "spans": spans}
    for name, data in sources:
        layout = detect(data)
        if layout == "report":
            for key in ("sources", "results"):
                out[key] += data.get(key) or []
            for key in ("texts", "human", "spans", "command", "inputs", "title"):
                if not out.get(key) and data.get(key):
                    out[key] = data[key]
            continue
        out["sources"].append({"name": name, "layout": layout, "data": data})
    if out["title"] is None:
        out["title"] = "docmetrics report: " + ", ".join(s["name"] for s in out["sources"]) if out["sources"] \
            else "docmetrics report"
    out["significance"] = significance(out["sources"])
    return out


def significance(sources: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The PERM-BOTH p-values between metrics of every meta-evaluation of two metrics or more in ``sources``
    (as :func:`payload` lists them): one group per ``--human`` or ``--genmt`` output and per language pair of
    ``--mtme`` and ``metaeval``, ``{"source": index in sources, "lp": the pair or None, "matrices": [...],
    "note": why there is none, or None}``.  A matrix (:func:`matrix`) per statistic compared between two
    metrics or more; no group where a meta-evaluation has one metric."""
    out = []
    for index, src in enumerate(sources):
        layout, data = src.get("layout"), src.get("data")
        if layout in ("human", "genmt"):
            group = human_group(data if layout == "human" else data.get("metaeval") or [])
            if group is not None:
                out.append(dict(group, source=index, lp=None))
        elif layout in ("mtme", "metaeval"):
            for lp in [data] if layout == "mtme" else data.get("lps") or []:
                group = mtme_group(lp)
                if group is not None:
                    out.append(dict(group, source=index, lp=lp.get("lp")))
    return out


def matrix(statistic: str, metrics: Sequence[str], clusters: Sequence[int | None],
           pvalues: Iterable[tuple[str, str, float]], settings: Mapping[str, Any],
           skipped: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One statistic's matrix: ``metrics`` in their ranking's order with their ``clusters``; ``pvalues[i][j]``
    the p-value of "metrics[i] is better than metrics[j]" from ``pvalues`` ((better, worse, p)) where that
    pair was tested (metrics[i] ranked above metrics[j]), else None; ``alpha``, ``n_resamples`` and ``seed``
    from ``settings``; ``skipped``: what was not compared and why."""
    at = {m: k for k, m in enumerate(metrics)}
    cells: list[list[float | None]] = [[None] * len(metrics) for _ in metrics]
    for better, worse, p in pvalues:
        if better in at and worse in at:
            cells[at[better]][at[worse]] = p
    return {"statistic": statistic, "metrics": list(metrics), "clusters": list(clusters), "pvalues": cells,
            "alpha": settings.get("alpha"), "n_resamples": settings.get("n_resamples"), "seed": settings.get("seed"),
            "skipped": dict(skipped or {})}


def human_group(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The matrices of ``--human``/``--genmt -f json`` (one object per metric, with ``clusters``, ``pvalues``
    and ``perm_both`` where metrics were compared).  A metric is named as its ``pvalues`` name it: by its spec,
    or ``spec [k]`` (k: its place from 1) where two metrics share a spec.  The order of a statistic's ranking is
    not in the output: by cluster, then by how many metrics each ranks above (in WMT's ranking the first ranks
    above all the others, the next above one fewer ...)."""
    if len(rows) < 2:
        return None
    specs = [str(r.get("spec") or r.get("metric")) for r in rows]
    names = [s if specs.count(s) == 1 else f"{s} [{k + 1}]" for k, s in enumerate(specs)]
    settings = next((r["perm_both"] for r in rows if r.get("perm_both")), None)
    if settings is None:
        return {"matrices": [], "note": "No significance matrix: the metrics were not compared by PERM-BOTH "
                                        "(--resamples 0, or fewer than 2 systems scored by every metric)."}
    stats: list[str] = []
    for r in rows:
        stats += [s for s in r.get("clusters") or {} if s not in stats]
    matrices = []
    for stat in stats:
        ranked = [k for k, r in enumerate(rows) if stat in (r.get("clusters") or {})]
        if len(ranked) < 2:
            continue
        below = {k: len((rows[k].get("pvalues") or {}).get(stat) or {}) for k in ranked}
        cluster = {k: rows[k]["clusters"][stat] for k in ranked}
        ranked.sort(key=lambda k: (cluster[k] is None, cluster[k] or 0, -below[k], names[k]))
        tested = [(names[k], worse, p) for k in ranked for worse, p in ((rows[k].get("pvalues") or {}).get(stat)
                                                                        or {}).items()]
        matrices.append(matrix(stat, [names[k] for k in ranked], [cluster[k] for k in ranked], tested, settings))
    return {"matrices": matrices, "note": None}


def mtme_group(lp: Mapping[str, Any]) -> dict[str, Any] | None:
    """The matrices of one language pair of ``--mtme``/``metaeval -f json`` (``comparisons``: statistic ->
    its ranking, the p-value of every pair, alpha, resamples, seed and what was skipped)."""
    if len(lp.get("metrics") or []) < 2:
        return None
    comparisons = lp.get("comparisons") or {}
    if not comparisons:
        settings = lp.get("perm_both") or {}
        why = "--resamples 0" if settings.get("n_resamples") == 0 else "no statistic compared"
        return {"matrices": [], "note": f"No significance matrix: the metrics were not compared by PERM-BOTH ({why})."}
    matrices = []
    for stat, comp in comparisons.items():
        ranking = comp.get("ranking") or []
        if len(ranking) < 2:
            continue
        tested = [(t["better"], t["worse"], t["p_value"]) for t in comp.get("pvalues") or []]
        matrices.append(matrix(stat, [r["metric"] for r in ranking], [r.get("rank") for r in ranking], tested, comp,
                               comp.get("skipped")))
    return {"matrices": matrices, "note": None}


def embed(data: Any) -> str:
    """``data`` as JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``
    (a text holding ``</script>`` or ``<!--`` cannot end or change the element), no U+2028/U+2029;
    ``json.loads`` reads it back unchanged."""
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:  # NaN or infinity (Python's json writes them; JSON.parse refuses them): null
        text = json.dumps(_finite(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    # a lone surrogate (json.loads reads "\\ud800" into one) cannot be written as UTF-8: keep it as an escape
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
