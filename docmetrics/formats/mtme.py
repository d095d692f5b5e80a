"""Reading mt-metrics-eval (MTME) data directories.

The layout, as MTME's README ("File organization and naming convention") and ``data.EvalSet`` read it,
for a test set (``wmt23``) and a language pair (``en-de``), paths relative to ``ROOT/TESTSET``:

* ``sources/LP.txt``: one source segment a line (or ``sources/LP.jsonl`` with a ``source`` field);
* ``documents/LP.docs``: ``DOMAIN DOCNAME`` a line, parallel to the source; a document is a
  contiguous block of segments; domains are listed in sorted order;
* ``references/LP.NAME.txt`` (or ``.jsonl``, field ``target``): NAME has no ``-`` or ``.`` and is not
  ``all`` or ``src``;
* ``system-outputs/LP/SYS.txt`` (or ``.jsonl``, field ``hypothesis``): SYS is the file name without
  its extension.  A system whose name is a reference name is a human translation (the README: "the
  reference files should be copied into the system-outputs directory with matching names");
* ``human-scores/LP.NAME.LEVEL.score``: NAME may contain dots (``mqm``, ``round2.mqm.merged``), LEVEL
  is ``sys``, ``domain``, ``doc`` or ``seg``.  Lines are ``SYS SCORE`` (``DOMAIN SYS SCORE`` at domain
  level), fields separated by whitespace, SCORE a number or ``None``: one line per system at ``sys``
  level; at ``doc`` / ``seg`` level one line per document / segment of each system, in order;
* ``metric-scores/LP/NAME-REF.LEVEL.score``: the same line format, no ``None``; NAME is the metric's
  base name (it may contain ``-`` and ``.``: the name is split at the last ``-``), REF the reference
  used (``refA``; several joined with ``.``; ``src`` for none; ``all`` for all).

* ``metadata/LP/SYS.jsonl``: one JSON object per segment of system SYS (MTME's ``EvalSet.metadata``;
  WMT25 has them); a record's ``doc_id`` must name a document of ``documents/LP.docs``, and the
  documents and domains the records name are in :meth:`MtmeTestSet.metadata_summary`.

LP is a language pair as :mod:`docmetrics.values.langpair` reads it, with MTME's locale suffixes
(``wmt25``: ``en-ko_KR``, ``cs-de_DE``, ``en-sr_Cyrl_RS``; ``wmt24pp``: ``en-fil_PH``).  JSONL texts
carry their text in the field MTME's ``data.py`` reads (``source``, ``target``, ``hypothesis``); a
line without it, or with a value that is not a string or null, is an error naming the file, the line and
the field.

A text line ``[No translation supplied]`` stands for a missing segment (MTME reads it as None); it is
read here as an empty string and its line is recorded in :attr:`MtmeTestSet.missing`.  Lines are
right-stripped, as MTME reads them.

Which reference and which human scores are "standard", and which systems are outliers, is not in the
directory: MTME keeps it in ``meta_info.DATA``, repeated in
:data:`STANDARDS`; elsewhere a test set with a single reference uses
it, otherwise ``ref=`` must name one.  ``ref=`` may name several references (``["refA", "refB"]``): a
metric that takes several (sacrebleu's) scores against all of them, a metric that takes one refuses the
test set.  As in MTME's ``GetCorrelations`` (``sys_names - main_refs - close_refs``), the systems scored
are all outputs but the references in use, the human translations (unless ``include_human``: then a
reference not in use is scored as a system) and the outliers (unless ``include_outliers``).

An MTME directory is the human-data format ``mtme`` (:data:`FORMAT`): ``read_human(ROOT or ROOT/TESTSET,
lp=LP, testset=...)`` reads one language pair with :func:`load_mtme` and gives :func:`mtme_evalset`'s EvalSet.
Scoring a test set and writing score files are in :mod:`docmetrics.judging.mtme`, MTME's task sets (the
averages over language pairs) in :mod:`docmetrics.judging.averages`; the score files' format in
:mod:`docmetrics.formats.mtme_scores`.
"""

from __future__ import annotations

import dataclasses
import glob
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..values.errors import InputError, SpecError, shown
from ..values.io import read_lines
from ..values.jsonl import json_object, string_field
from ..values.langpair import LangPair, parse_langpair
from ..values.testset import TestSet, runs
from .base import EvalSet, HumanFormat
from .human_tsv import HumanScores
from .judgements import exact_mean, from_mtme
from .mtme_scores import Score, parse_human_filename, read_documents, read_score_file

__all__ = [
    "NO_TRANSLATION", "MtmeTestSet", "read_mtme", "load_mtme", "METADATA_DOC_FIELD",
    "METADATA_DOMAIN_FIELD", "Standard", "STANDARDS", "mtme_root", "read_evalset", "mtme_evalset", "FORMAT",
]

#: The fields of a metadata record (metadata/LP/SYS.jsonl) that name a document and a domain, as
#: WMT25's general-MT data names them (wmt-conference/wmt25-general-mt: "doc_id", "domain")
METADATA_DOC_FIELD = "doc_id"
METADATA_DOMAIN_FIELD = "domain"
NO_TRANSLATION = "[No translation supplied]"
RESERVED_REFS = ("all", "src")


# -- MTME's meta-information (meta_info.DATA): standard reference and gold, outliers -------------------------
@dataclass(frozen=True)
class Standard:
    """MTME's meta-information for a language pair: the standard reference, the standard human
    scores per level, and the outlier systems."""

    ref: str
    gold: Mapping[str, str]
    outliers: frozenset[str] = frozenset()


_WMT22 = ("sys", "domain", "seg")
_SYS_SEG = ("sys", "seg")


def _gold(ref: str, name: str | None, levels: Sequence[str] = _WMT22, outliers: Sequence[str] = ()) -> Standard:
    """A standard with gold ``name`` at ``levels`` (no gold at all when name is None)."""
    return Standard(ref, {lv: name for lv in levels} if name else {}, frozenset(outliers))


#: from mt_metrics_eval/meta_info.py (DATA), the MQM-judged language pairs up to WMT22
_UP_TO_WMT22: dict[tuple[str, str], Standard] = {
    ("wmt21.news", "en-de"): _gold("refC", "mqm", _SYS_SEG),
    ("wmt21.news", "en-ru"): _gold("refA", "mqm", _SYS_SEG),
    ("wmt21.news", "zh-en"): _gold("refB", "mqm", _SYS_SEG),
    ("wmt21.tedtalks", "en-de"): _gold("refA", "mqm", _SYS_SEG),
    ("wmt21.tedtalks", "en-ru"): _gold("refA", "mqm", _SYS_SEG),
    ("wmt21.tedtalks", "zh-en"): _gold("refB", "mqm", _SYS_SEG),
    ("wmt22", "en-de"): _gold("refA", "mqm", outliers=("M2M100_1.2B-B4",)),
    ("wmt22", "en-ru"): _gold("refA", "mqm"),
    ("wmt22", "zh-en"): _gold("refA", "mqm"),
    ("wmt23", "en-de"): _gold("refA", "mqm", outliers=("synthetic_ref",)),
    ("wmt23", "he-en"): _gold("refB", "mqm"),
    ("wmt23", "zh-en"): _gold("refA", "mqm", outliers=("synthetic_ref",)),
    ("wmt24", "en-de"): _gold("refB", "mqm", outliers=("MSLC",)),
    ("wmt24", "en-es"): _gold("refA", "mqm", outliers=("MSLC",)),
    ("wmt24", "ja-zh"): _gold("refA", "mqm", outliers=("MSLC",)),
}


# The rest of MTME's meta_info.DATA for wmt23, wmt23.sent, wmt24, wmt24pp and wmt25 (checked against
# google-research/mt-metrics-eval at 68a481a, 2026-04-23): WMT23_DA's gold is 'da-sqm' at sys, domain and
# seg; en-he, en-ru, en-uk, ru-en and uk-en have std_gold={} (no standard gold); WMT24_ESA's gold is 'esa';
# WMT24PP has std_ref 'posteditA' (en-de_DE: 'posteditB', en-is_IS: 'refA') and std_gold={}; WMT25 is
# 'mqm' (en-ko_KR, ja-zh_CN) or 'esa-human1' (WMT25_ESA), std_ref 'refA', no outliers.
def _recent_standards() -> dict[tuple[str, str], Standard]:
    """WMT23-25 entries of MTME's meta_info.DATA (see the comment above)."""
    out = {("wmt23.sent", "en-de"): _gold("refA", "mqm")}
    for lp in ("cs-uk", "de-en", "en-cs", "en-ja", "en-zh", "ja-en"):
        out[("wmt23", lp)] = _gold("refA", "da-sqm")
    out[("wmt23", "en-he")] = _gold("refB", None)
    for lp in ("en-ru", "en-uk", "ru-en", "uk-en"):
        out[("wmt23", lp)] = _gold("refA", None)
    for lp in ("cs-uk", "en-cs", "en-hi", "en-is", "en-ja", "en-ru", "en-uk", "en-zh"):
        out[("wmt24", lp)] = _gold("refA", "esa")
    wmt24pp_ref = {"en-de_DE": "posteditB", "en-is_IS": "refA"}
    for lp in (
        "en-ar_EG en-ar_SA en-bg_BG en-bn_IN en-ca_ES en-cs_CZ en-da_DK en-de_DE en-el_GR en-es_MX en-et_EE "
        "en-fa_IR en-fi_FI en-fil_PH en-fr_CA en-fr_FR en-gu_IN en-he_IL en-hi_IN en-hr_HR en-hu_HU en-id_ID "
        "en-is_IS en-it_IT en-ja_JP en-kn_IN en-ko_KR en-lt_LT en-lv_LV en-ml_IN en-mr_IN en-nl_NL en-no_NO "
        "en-pa_IN en-pl_PL en-pt_BR en-pt_PT en-ro_RO en-ru_RU en-sk_SK en-sl_SI en-sr_RS en-sv_SE en-sw_KE "
        "en-sw_TZ en-ta_IN en-te_IN en-th_TH en-tr_TR en-uk_UA en-ur_PK en-vi_VN en-zh_CN en-zh_TW en-zu_ZA"
    ).split():
        out[("wmt24pp", lp)] = _gold(wmt24pp_ref.get(lp, "posteditA"), None)
    for lp in ("ja-zh_CN", "en-ko_KR"):
        out[("wmt25", lp)] = _gold("refA", "mqm")
    for lp in (
        "cs-de_DE cs-uk_UA en-ar_EG en-bho_IN en-zh_CN en-cs_CZ en-et_EE en-is_IS en-it_IT en-ja_JP en-mas_KE "
        "en-ru_RU en-sr_Cyrl_RS en-uk_UA"
    ).split():
        out[("wmt25", lp)] = _gold("refA", "esa-human1")
    return out


#: every language pair's standard (reference, gold per level, outliers), by (test set, language pair)
STANDARDS: dict[tuple[str, str], Standard] = {**_UP_TO_WMT22, **_recent_standards()}


@dataclass
class MtmeTestSet:
    """One MTME test set and language pair, as read from its directory."""

    root: str
    testset: str
    lp: str
    sources: list[str]
    #: reference name -> its lines
    references: dict[str, list[str]]
    #: per segment: its document's name and its domain (from documents/LP.docs)
    doc_ids: list[str]
    domains: list[str]
    #: system name -> its lines (human translations included)
    system_outputs: dict[str, list[str]]
    #: systems whose name is a reference name
    human_systems: set[str]
    #: (scorer name, level) -> system -> scores (one per system / domain / document / segment)
    human_scores: dict[tuple[str, str], dict[str, list[Score]]]
    #: file name -> 0-based lines that read "[No translation supplied]"
    missing: dict[str, list[int]] = field(default_factory=dict)
    standard: Standard | None = None
    #: what -> path ('source', 'documents', 'ref:NAME', 'sys:NAME', 'human:NAME.LEVEL')
    paths: dict[str, str] = field(default_factory=dict)
    #: system -> one JSON object per segment (metadata/LP/SYS.jsonl; MTME's EvalSet.metadata)
    metadata: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: set by load_mtme: the references in use (in the order given), the human scores chosen, the systems scored
    refs: list[str] = field(default_factory=list)
    human_name: str | None = None
    systems: list[str] = field(default_factory=list)

    @property
    def ref(self) -> str | None:
        """The references in use as MTME names them in a score file's REF (``MakeMetricName``): ``refA``,
        several joined with ``.`` (``refA.refB``), ``all`` for every reference of the pair when there are
        three or more (as ``EvalSet.AddMetric`` renames them); None for none."""
        if not self.refs:
            return None
        if len(self.refs) >= 3 and set(self.refs) == set(self.references):
            return "all"
        return ".".join(self.refs)

    @property
    def directory(self) -> str:
        return os.path.join(self.root, self.testset)

    @property
    def n_segments(self) -> int:
        return len(self.sources)

    @property
    def langpair(self) -> LangPair:
        """The language pair, parsed (``en-ko_KR``: target language ``ko``, region ``KR``)."""
        return parse_langpair(self.lp)

    def metadata_summary(self) -> dict[str, Any]:
        """What the metadata files hold, for the output: per system the fields, and the documents and
        domains the records name (:data:`METADATA_DOC_FIELD`, :data:`METADATA_DOMAIN_FIELD`)."""
        out: dict[str, Any] = {}
        for name, records in sorted(self.metadata.items()):
            fields = sorted({k for r in records for k in r})
            docs = sorted({str(r[METADATA_DOC_FIELD]) for r in records if r.get(METADATA_DOC_FIELD) is not None})
            domains = sorted({str(r[METADATA_DOMAIN_FIELD]) for r in records
                              if r.get(METADATA_DOMAIN_FIELD) is not None})
            out[name] = {"path": self.paths.get(f"meta:{name}"), "records": len(records), "fields": fields,
                         "documents": docs, "domains": domains}
        return out

    @property
    def doc_names(self) -> list[str]:
        """Documents in order."""
        return list(self.docs)

    @property
    def docs(self) -> dict[str, tuple[int, int]]:
        """Document name -> (first segment, last segment + 1)."""
        return {doc: (start, end) for doc, start, end in runs(self.doc_ids)}

    @property
    def domain_names(self) -> list[str]:
        """Domains in MTME's canonical (sorted) order."""
        return sorted(set(self.domains))

    @property
    def human_score_names(self) -> set[str]:
        return {name for name, _ in self.human_scores}

    def default_human_name(self, level: str = "seg") -> str | None:
        """The standard human scores at a level: MTME's standard gold where known, else the only
        name, else 'mqm' when present; None when there is no human score at that level."""
        names = sorted(n for n, lv in self.human_scores if lv == level)
        if not names:
            return None
        if self.standard is not None and self.standard.gold.get(level) in names:
            return self.standard.gold[level]
        if len(names) == 1:
            return names[0]
        if "mqm" in names:
            return "mqm"
        raise InputError(
            f"{os.path.join(self.directory, 'human-scores')}: several human scores at level {level} "
            f"({', '.join(names)}); choose one with human_name="
        )

    def human(self, name: str | None = None, level: str = "seg") -> dict[str, list[Score]]:
        """Human scores by name and level (one of :data:`~docmetrics.formats.mtme_scores.LEVELS`; the standard
        ones when name is None)."""
        chosen = name if name is not None else self.default_human_name(level)
        if chosen is None or (chosen, level) not in self.human_scores:
            have = ", ".join(f"{n}.{lv}" for n, lv in sorted(self.human_scores)) or "none"
            raise InputError(
                f"{os.path.join(self.directory, 'human-scores', f'{self.lp}.{chosen}.{level}.score')}: "
                f"no such human scores (available: {have})"
            )
        return self.human_scores[(chosen, level)]


# -- reading ----------------------------------------------------------------------------------------------
def _read_text(path: str, missing: dict[str, list[int]]) -> list[str]:
    lines = [ln.rstrip() for ln in read_lines(path)]
    gaps = [i for i, ln in enumerate(lines) if ln == NO_TRANSLATION]
    if gaps:
        missing[path] = gaps
        for i in gaps:
            lines[i] = ""
    return lines


def _json_object(path: str, lineno: int, line: str) -> dict[str, Any]:
    """One line of an MTME JSONL file (a blank line too is a segment's line, so it is refused as JSON)."""
    return json_object(line, f"{path}, line {lineno}", "one JSON object per segment (MTME's JSONL)")


def _read_jsonl(path: str, key: str, missing: dict[str, list[int]]) -> list[str]:
    """Field ``key`` of each line (MTME's _ReadFieldFromJsonl: 'source', 'target' or 'hypothesis'); a
    null (MTME's None, a missing translation) is read as an empty string and recorded in ``missing``."""
    out = []
    for i, line in enumerate(read_lines(path), 1):
        record = _json_object(path, i, line)
        value = string_field(record, key, f"{path}, line {i}", f"MTME reads the text of this file from field {key} "
                             "(null: no translation)", null=True)
        if value is None:
            missing.setdefault(path, []).append(i - 1)
        out.append("" if value is None else value)
    return out


def _read_segments(path: str, key: str, missing: dict[str, list[int]]) -> list[str]:
    if path.endswith(".txt"):
        return _read_text(path, missing)
    if path.endswith(".jsonl"):
        return _read_jsonl(path, key, missing)
    raise InputError(f"{path}: unsupported file type; MTME text files end in .txt or .jsonl")


def _files(directory: str, pattern: str) -> list[str]:
    """Files in directory matching pattern ('*' only; the rest literal), sorted; no hidden files."""
    literal = glob.escape(pattern).replace("[*]", "*")
    return sorted(glob.glob(os.path.join(glob.escape(directory), literal)))


def _need(path: str, what: str) -> str:
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file; an MTME directory has {what}")
    return path


def read_mtme(root: str | os.PathLike[str], testset: str, lp: str) -> MtmeTestSet:
    """Read ``ROOT/TESTSET`` for one language pair (see the module docstring); every missing file,
    bad name or malformed line raises InputError naming the file (and line)."""
    root = os.fspath(root)
    d = os.path.join(root, testset)
    try:
        parse_langpair(lp)
    except SpecError as exc:
        raise InputError(f"{d}: {exc}") from None
    if not os.path.isdir(d):
        raise InputError(f"{d}: no such directory; expected ROOT/TESTSET of an MTME data directory")
    missing: dict[str, list[int]] = {}
    paths: dict[str, str] = {}

    src_txt = os.path.join(d, "sources", f"{lp}.txt")
    src_jsonl = os.path.join(d, "sources", f"{lp}.jsonl")
    src_path = src_txt if os.path.exists(src_txt) or not os.path.exists(src_jsonl) else src_jsonl
    sources = _read_segments(_need(src_path, f"the source text sources/{lp}.txt"), "source", missing)
    paths["source"] = src_path
    n = len(sources)

    docs_path = _need(os.path.join(d, "documents", f"{lp}.docs"), f"the document file documents/{lp}.docs")
    paths["documents"] = docs_path
    domains, doc_ids = read_documents(docs_path)
    if len(doc_ids) != n:
        raise InputError(f"{docs_path}: {len(doc_ids)} lines, the source {src_path} has {n}; they must be parallel")
    seen: set[str] = set()
    for doc, start, _ in runs(doc_ids):
        if doc in seen:
            raise InputError(f"{docs_path}, line {start + 1}: document {shown(doc)} reappears after another "
                             "document; a document must be one contiguous block of segments")
        seen.add(doc)

    def parallel(texts: dict[str, list[str]], kind: str, key: str, text_field: str, name: str, path: str) -> None:
        """A reference or a system output read into ``texts`` (``text_field``: where a JSONL line holds its text)."""
        if name in texts:
            raise InputError(f"{path}: {kind} {shown(name)} appears twice (as .txt and .jsonl?)")
        texts[name] = _read_segments(path, text_field, missing)
        paths[f"{key}:{name}"] = path
        if len(texts[name]) != n:
            raise InputError(f"{path}: {len(texts[name])} lines, the source {src_path} has {n}")

    references: dict[str, list[str]] = {}
    for path in _files(os.path.join(d, "references"), f"{lp}.*.*"):
        toks = os.path.basename(path).split(".")
        name = toks[-2]
        if len(toks) != 3 or "-" in name or name in RESERVED_REFS:
            raise InputError(
                f"{path}: bad reference file name; references are named {lp}.NAME.txt, NAME without "
                "'-' or '.' and not 'all' or 'src'"
            )
        parallel(references, "reference", "ref", "target", name, path)

    sys_dir = os.path.join(d, "system-outputs", lp)
    if not os.path.isdir(sys_dir):
        raise InputError(f"{sys_dir}: no such directory; an MTME directory has system-outputs/{lp}/SYS.txt")
    outputs: dict[str, list[str]] = {}
    for path in _files(sys_dir, "*.*"):
        parallel(outputs, "system", "sys", "hypothesis", os.path.splitext(os.path.basename(path))[0], path)
    if not outputs:
        raise InputError(f"{sys_dir}: no system output (SYS.txt files)")
    humans = {s for s in outputs if s in references}

    ts = MtmeTestSet(
        root, testset, lp, sources, references, doc_ids, domains, outputs, humans, {}, missing,
        STANDARDS.get((testset, lp)), paths,
    )
    n_docs = len(ts.docs)
    for path in _files(os.path.join(d, "human-scores"), f"{lp}.*.score"):
        name, level = parse_human_filename(path, lp)
        n_items = {"sys": 1, "doc": n_docs, "seg": n, "domain": None}[level]
        ts.human_scores[(name, level)] = read_score_file(
            path, level, n_items=n_items, systems=list(outputs), domains=ts.domain_names
        )
        paths[f"human:{name}.{level}"] = path
    _read_metadata(ts, os.path.join(d, "metadata", lp))
    return ts


def _read_metadata(ts: MtmeTestSet, meta_dir: str) -> None:
    """``metadata/LP/SYS.jsonl`` (as MTME's ``_ReadDataset`` globs them): one JSON object per segment
    of system SYS.  A record's :data:`METADATA_DOC_FIELD` must name a document of documents/LP.docs."""
    docs = ts.docs
    for path in _files(meta_dir, "*.jsonl"):
        name = os.path.basename(path)[: -len(".jsonl")]
        if name not in ts.system_outputs:
            raise InputError(f"{path}: metadata for system {shown(name)}, which has no file in "
                             f"system-outputs/{ts.lp} (systems: {', '.join(sorted(ts.system_outputs))})")
        records = []
        for i, line in enumerate(read_lines(path), 1):
            record = _json_object(path, i, line)
            doc = record.get(METADATA_DOC_FIELD)
            if doc is not None and str(doc) not in docs:
                raise InputError(
                    f"{path}, line {i}: field {shown(METADATA_DOC_FIELD)} names document {shown(doc)}, which is not in "
                    f"{ts.paths['documents']}"
                )
            records.append(record)
        if len(records) != ts.n_segments:
            raise InputError(f"{path}: {len(records)} lines, the source {ts.paths['source']} has "
                             f"{ts.n_segments}; a metadata file has one JSON object per segment")
        ts.metadata[name] = records
        ts.paths[f"meta:{name}"] = path


def _choose_refs(ts: MtmeTestSet, ref: str | Sequence[str] | None, notes: list[str] | None = None) -> list[str]:
    """The references in use: those named (each checked, none twice), else the standard one, else the
    only one, else none (several and no standard one: an error, or, given ``notes``, none and a note)."""
    refs = sorted(ts.references)
    where = os.path.join(ts.directory, "references")
    if ref is not None:
        names = [ref] if isinstance(ref, str) else list(ref)
        if not names:
            raise InputError("ref=: no reference named; give one name or several")
        for name in names:
            if name not in ts.references:
                raise InputError(f"{where}: no reference {shown(name)} for {ts.lp} "
                                 f"(references: {', '.join(refs) or 'none'})")
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise InputError(f"ref=: {', '.join(twice)} named twice; name each reference once")
        return names
    if ts.standard is not None and ts.standard.ref in ts.references:
        return [ts.standard.ref]
    if len(refs) == 1:
        return refs
    if not refs:
        return []
    several = f"{where}: {len(refs)} references for {ts.lp} ({', '.join(refs)})"
    if notes is not None:
        notes.append(f"{several} and no standard one: none is in use; choose one with ref= to score against it")
        return []
    raise InputError(f"{several}; choose one with ref= (or several, for metrics that take several)")


def load_mtme(
    root: str | os.PathLike[str],
    testset: str,
    lp: str,
    ref: str | Sequence[str] | None = None,
    human_name: str | None = None,
    systems: Sequence[str] | None = None,
    include_human: bool = False,
    include_outliers: bool = False,
    notes: list[str] | None = None,
) -> tuple[MtmeTestSet, TestSet]:
    """Read an MTME directory and build the docmetrics test set to score.

    The references in use (``ref``: a name or several, default: the standard one) are the test set's
    references, in that order, and are left out of the systems, as MTME's ``GetCorrelations`` leaves
    out its ``main_refs``; so are the human translations (unless ``include_human``, which keeps a
    reference not in use as a system) and MTME's outlier systems (unless ``include_outliers``);
    ``systems`` names the systems to score instead.  ``human_name`` chooses
    the human scores (default: the standard ones); it is checked here and recorded on the returned
    :class:`MtmeTestSet` with the reference and the systems.  Given ``notes``, several references and no
    standard one (``ref`` not given) is no error: none is in use (the human scores need none), and a note says so.
    """
    ts = read_mtme(root, testset, lp)
    chosen = _choose_refs(ts, ref, notes)
    if human_name is not None and human_name not in ts.human_score_names:
        have = ", ".join(sorted(ts.human_score_names)) or "none"
        raise InputError(
            f"{os.path.join(ts.directory, 'human-scores')}: no human scores named {shown(human_name)} "
            f"for {lp} (available: {have})"
        )
    if human_name is None:
        human_name = ts.default_human_name("seg") or ts.default_human_name("sys")
    ts.human_name = human_name
    sys_dir = os.path.join(ts.directory, "system-outputs", lp)
    if systems is not None:
        names = list(systems)
        for s in names:
            if s not in ts.system_outputs:
                raise InputError(f"{sys_dir}: no system {shown(s)} (systems: {', '.join(sorted(ts.system_outputs))})")
            if s in chosen:
                raise InputError(f"{sys_dir}: {shown(s)} is a reference in use; it cannot be scored against itself")
    else:
        outliers = ts.standard.outliers if ts.standard is not None else frozenset()
        names = [
            s for s in sorted(ts.system_outputs)
            if s not in chosen
            and (include_human or s not in ts.human_systems)
            and (include_outliers or s not in outliers)
        ]
    if not names:
        raise InputError(f"{sys_dir}: no system left to score (the references in use and human translations "
                         "are left out)")
    ts.refs, ts.systems = chosen, names
    names_map = {s: ts.paths[f"sys:{s}"] for s in names}
    names_map["source"] = ts.paths["source"]
    names_map["doc ids"] = ts.paths["documents"]
    for k, name in enumerate(chosen, 1):  # the keys TestSet names its references by
        names_map["reference" if k == 1 else f"reference {k}"] = ts.paths[f"ref:{name}"]
    refs = [list(ts.references[name]) for name in chosen]
    testset_obj = TestSet(
        {s: list(ts.system_outputs[s]) for s in names},
        list(ts.sources),
        refs[0] if refs else None,
        list(ts.doc_ids),
        names=names_map,
        other_references=refs[1:],
        lp=ts.lp,
    )
    return ts, testset_obj


# -- the format: an MTME directory as read_human reads it ------------------------------------------------------
def mtme_root(path: str) -> tuple[str, str | None] | None:
    """(root, the test set the path names or None) for an MTME directory (``ROOT`` or ``ROOT/TESTSET``), else None."""
    if not os.path.isdir(path):
        return None
    if os.path.isdir(os.path.join(path, "system-outputs")) or os.path.isdir(os.path.join(path, "human-scores")):
        return os.path.dirname(os.path.abspath(path)), os.path.basename(os.path.abspath(path))
    if glob.glob(os.path.join(path, "*", "system-outputs")) or glob.glob(os.path.join(path, "*", "human-scores")):
        return path, None
    return None


def read_evalset(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    """One test set (``testset=``, or the one ``path`` names) and language pair of an MTME directory, read by
    :func:`load_mtme` (``ref``, ``human_name``, ``include_human``), as :func:`mtme_evalset`."""
    found = mtme_root(path)
    root, named = found if found is not None else (path, None)
    testset_name = options.get("testset") or named
    if not testset_name or lp is None:
        raise InputError(f"{path}: an MTME directory is read one test set and language pair at a time: give "
                         "testset=NAME (e.g. wmt24) and lp=", params=("testset", "lp"))
    notes: list[str] = []
    data, testset = load_mtme(root, testset_name, lp, ref=options.get("ref"), human_name=options.get("human_name"),
                              include_human=bool(options.get("include_human", False)), notes=notes)
    return dataclasses.replace(mtme_evalset(data, testset, options.get("human_name")), notes=tuple(notes))


def mtme_evalset(data: MtmeTestSet, testset: TestSet, human_name: str | None = None) -> EvalSet:
    """The EvalSet of one language pair of MTME data as :func:`load_mtme` read it (``data`` and the TestSet of the
    systems chosen; ``human_name``: the human scores asked for, None for MTME's standard ones): its human segment
    scores (and system scores, MTME's where it has them, else the mean of the segments) as HumanScores; what
    ``read_human`` of an MTME directory returns, and what ``docmetrics --mtme`` meta-evaluates."""
    seg_name = human_name or data.default_human_name("seg")
    seg = data.human_scores.get((seg_name, "seg"))  # type: ignore[arg-type]
    human = None
    if seg is not None:
        positions = {(d.doc_id, str(i)): i - d.start + 1 for d in testset.documents for i in range(d.start, d.end)}
        segments = {s: {k: float(v) for k, v in zip(positions, row) if v is not None} for s, row in seg.items()}
        segments = {s: v for s, v in segments.items() if v}
        given = data.human_scores.get((human_name or data.default_human_name("sys"), "sys"), {})  # type: ignore[arg-type]
        system = {s: float(given[s][0]) if given.get(s) and given[s][0] is not None else exact_mean(list(v.values()))
                  for s, v in segments.items()}
        human = HumanScores(f"{data.directory}/human-scores/{data.lp}.{seg_name}.seg.score", seg_name, system,
                            segments, positions, set(data.human_systems))
    return EvalSet(data.directory, "mtme", data.lp, testset, human, raw=data,
                   make_judgements=lambda: from_mtme(data, human_name))


FORMAT = HumanFormat("mtme", "an mt-metrics-eval directory (ROOT or ROOT/TESTSET)", lambda p: mtme_root(p) is not None,
                     read_evalset, ("testset", "ref", "human_name", "include_human"), precedence=10)
