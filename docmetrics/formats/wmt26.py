"""The WMT26 General MT release (wmt-conference/wmt26-general-mt, its README at 1fa5211): the test file
``data/wmt26-genmt.jsonl`` and one ``data/systems/NAME.jsonl`` per system, read as published.

The test file has one document a line: ``doc_id`` (``SET_###_DOMAIN_###_SRCLANG_###_TGTLANG_###_DOC``),
``domain``, ``src_lang``, ``tgt_lang``, ``src_text``, ``refs`` (every human reference by name, ``{}``
where none), ``prompt_instruction``, ``multimodal_instruction``, ``evaluation_instruction``, for speech
``gold_transcript`` (a curated transcript beside the ASR ``src_text``), ``video`` and ``screenshot``
(``{"id", "path"}`` or null).  ``doc_id``, ``domain``, ``src_lang``, ``tgt_lang``, ``src_text`` and
``refs`` are required; the domain and languages of ``doc_id`` must be those of the fields.  The other
fields are kept as read in :attr:`Wmt26Document.fields` (checked: the instructions and
``gold_transcript`` strings or null, the assets objects or null).  A reference is a string or, as
WMT25 wrote it, ``{"ref": string}``.

A system file has one line per document it translated: ``doc_id``, ``hypothesis`` (the whole document),
``metadata`` (an object, its contents vary by system: kept unread).  A system is named by its file
(``AMI.jsonl`` -> ``AMI``).  A document a system did not translate is counted
(:meth:`Wmt26Pair.skipped`), never filled in: a system takes part in a language pair where it
translated one of its documents, and a test set holds the systems that translated all of them.

Texts are split into paragraphs by :mod:`docmetrics.values.paragraphs` (``<p>...</p>``, entities
decoded, other markup kept as text; a text without marks is one paragraph): strictly in the test file
(malformed marks are an error), leniently in the hypotheses, whose faults are counted per system.  The
language pair is ``SRC_LANG-TGT_LANG`` as the fields write them (``eng_Latn-zho_Hant_TW``).

Every mistake is an :class:`~docmetrics.values.errors.InputError` naming the file, the line and the
field and what to do; nothing here prints or loads a model.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..values.errors import InputError, shown
from ..values.io import read_lines
from ..values.jsonl import field_error, json_lines, string_field
from ..values.langpair import parse_langpair
from ..values.paragraphs import FAULTS, MarkupError, Paragraphs, paragraphs
from ..values.testset import TestSet
from .base import EvalSet, HumanFormat, first_json, match_pair, one_pair

__all__ = ["Wmt26Document", "Hypothesis", "Wmt26Pair", "Wmt26Data", "DocumentPlan", "read_wmt26", "iso_pair",
           "SOURCES", "ISO639_1", "SEP", "OPTIONAL_STRINGS", "ASSETS"]

#: The separator of the parts of a WMT26 doc id.
SEP = "_###_"
OPTIONAL_STRINGS = ("prompt_instruction", "multimodal_instruction", "evaluation_instruction", "gold_transcript")
ASSETS = ("video", "screenshot")
#: ``source=`` choices: the field whose text is the source (gold_transcript: where a document has one,
#: src_text elsewhere).
SOURCES = ("src_text", "gold_transcript")
#: ISO 639-3 codes of WMT26's languages -> ISO 639-1, where there is one (what ``lang=`` parameters take).
ISO639_1 = {"eng": "en", "ces": "cs", "deu": "de", "ukr": "uk", "vie": "vi", "jpn": "ja", "hye": "hy", "bel": "be",
            "kaz": "kk", "rus": "ru", "arz": "ar", "zho": "zh", "ekk": "et", "est": "et", "isl": "is", "ind": "id",
            "kor": "ko", "sme": "se", "tha": "th"}
TEST_LINE = "one JSON object with doc_id, domain, src_lang, tgt_lang, src_text, refs (a WMT26 document)"
SYSTEM_LINE = "one JSON object with doc_id, hypothesis, metadata (a WMT26 system's document)"
_LFS = "version https://git-lfs.github.com/spec/"


def iso_pair(name: str) -> str:
    """A language pair as WMT26 writes it (``eng_Latn-isl_Latn``) in ISO 639-1 where the languages have one
    (``en-is``)."""
    lp = parse_langpair(name)
    return "-".join(ISO639_1.get(side.language, side.language) for side in (lp.source, lp.target))


@dataclass(frozen=True)
class Wmt26Document:
    """A document of the test file: its source paragraphs (from ``source_field``), every reference's
    paragraphs by name, the line it was read from and its other fields as read."""

    doc_id: str
    domain: str
    pair: str
    line: int
    source_field: str
    source: tuple[str, ...]
    references: Mapping[str, tuple[str, ...]]
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class Hypothesis:
    """One system's translation of one document: its paragraphs and what the lenient read repaired."""

    system: str
    doc_id: str
    path: str
    line: int
    paragraphs: Paragraphs


@dataclass(frozen=True)
class DocumentPlan:
    """How a test set holds one document: ``unit`` is ``paragraph`` (one segment per source paragraph:
    every system and reference has as many) or ``document`` (one segment, the paragraphs joined by a
    newline: some text has another count, named in ``mismatched`` as ``name: count``)."""

    doc_id: str
    unit: str
    paragraphs: int
    mismatched: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.unit == "paragraph":
            return f"{self.doc_id}: {self.paragraphs} paragraphs as segments"
        return (f"{self.doc_id}: whole document as one segment (source {self.paragraphs} paragraphs; "
                f"{', '.join(self.mismatched)})")


@dataclass
class Wmt26Pair:
    """One language pair: its documents in file order and each system's hypotheses by doc id."""

    testfile: str
    name: str
    documents: list[Wmt26Document]
    hypotheses: dict[str, dict[str, Hypothesis]] = field(default_factory=dict)

    @property
    def lang(self) -> str:
        """``src-tgt`` in ISO 639-1 where the languages have one (``en-is``), what ``lang=`` takes."""
        return iso_pair(self.name)

    @property
    def systems(self) -> list[str]:
        """Every system that translated a document of the pair, in the order of the files."""
        return list(self.hypotheses)

    def skipped(self, system: str) -> list[str]:
        """The doc ids of the pair that ``system`` did not translate."""
        have = self.hypotheses[system]
        return [d.doc_id for d in self.documents if d.doc_id not in have]

    @property
    def complete_systems(self) -> list[str]:
        return [s for s in self.systems if not self.skipped(s)]

    @property
    def reference_names(self) -> list[str]:
        """Every reference name of the pair's documents, in order of first appearance."""
        return list(dict.fromkeys(n for d in self.documents for n in d.references))

    def summary(self) -> list[dict[str, Any]]:
        """Per system: documents translated (of the pair's), documents skipped, paragraphs, documents
        whose paragraph count differs from the source's, and the markup faults read (:data:`FAULTS`)."""
        source = {d.doc_id: len(d.source) for d in self.documents}
        rows = []
        for system, hyps in self.hypotheses.items():
            faults: Counter[str] = Counter()
            for h in hyps.values():
                faults.update(h.paragraphs.faults)
            rows.append({"system": system, "documents": len(hyps), "of": len(self.documents),
                         "skipped": len(self.documents) - len(hyps),
                         "paragraphs": sum(len(h.paragraphs) for h in hyps.values()),
                         "mismatched": sum(len(h.paragraphs) != source[d] for d, h in hyps.items()),
                         "faults": {k: faults[k] for k in FAULTS if faults[k]}})
        return rows

    def notes(self, plans: Sequence[DocumentPlan]) -> list[str]:
        """What a reader says of the pair's test set held as ``plans`` (:meth:`testset`): each system left out
        (it skipped a document), one line for the pair (documents by paragraphs, documents whole, markup
        repaired), then one per document held whole, saying whose paragraph count differs."""
        lines = [f"{self.name}: {s} left out: it translated {len(self.hypotheses[s])} of the {len(self.documents)} "
                 f"documents (first skipped: {self.skipped(s)[0]})" for s in self.systems if self.skipped(s)]
        whole = [p for p in plans if p.unit == "document"]
        faults = sum(sum(r["faults"].values()) for r in self.summary())
        lines.append(f"{self.name}: {len(plans)} documents, {len(plans) - len(whole)} as their paragraphs "
                     f"({sum(p.paragraphs for p in plans if p.unit == 'paragraph')} segments), {len(whole)} whole "
                     "(a paragraph count differs: score those with asd:unit=segment to realign them)"
                     + (f"; {faults} <p> mark fault(s) in the hypotheses read and repaired" if faults else ""))
        return lines + [f"{self.name}: {p.describe()}" for p in whole]

    def testset(self, systems: Sequence[str] | None = None, references: Sequence[str] = ()
                ) -> tuple[TestSet, list[DocumentPlan]]:
        """The pair as a :class:`~docmetrics.values.testset.TestSet` and how it holds each document.

        ``systems``: default every system that translated every document (one that skipped some is
        left out; naming it is an InputError that counts what it skipped); ``references``: names of
        ``refs`` to score against, the first the primary (each must exist for every document).  A
        document is one segment per paragraph where the source, every chosen system and reference have
        the same number of paragraphs, else one segment (paragraphs joined by a newline), as
        :class:`DocumentPlan` says, so that a metric that realigns (ASD) can take it whole."""
        names = self._chosen(systems)
        refs = [self._reference(r) for r in dict.fromkeys(references)]
        seg_sys: dict[str, list[str]] = {n: [] for n in names}
        seg_refs: list[list[str]] = [[] for _ in refs]
        sources: list[str] = []
        doc_ids: list[str] = []
        plans = []
        for d in self.documents:
            texts = {n: self.hypotheses[n][d.doc_id].paragraphs.texts for n in names}
            texts.update({f"reference {r}": d.references[r] for r in refs})
            odd = tuple(f"{n} {len(t)}" for n, t in texts.items() if len(t) != len(d.source))
            plan = DocumentPlan(d.doc_id, "document" if odd else "paragraph", len(d.source), odd)
            plans.append(plan)
            whole = plan.unit == "document"
            sources += _cut(d.source, whole)
            doc_ids += [d.doc_id] * len(_cut(d.source, whole))
            for n in names:
                seg_sys[n] += _cut(texts[n], whole)
            for k, r in enumerate(refs):
                seg_refs[k] += _cut(d.references[r], whole)
        where = f"{self.testfile} ({self.name})"
        label = {"source": f"{where} source", "doc ids": f"{where} doc_id"}
        label.update({n: f"{next(iter(self.hypotheses[n].values())).path}" for n in names})
        if refs:
            label["reference"] = f"{where} refs.{refs[0]}"
            label.update({f"reference {k}": f"{where} refs.{r}" for k, r in enumerate(refs[1:], 2)})
        ts = TestSet(seg_sys, sources, seg_refs[0] if refs else None, doc_ids, names=label,
                     other_references=seg_refs[1:], lp=self.lang)
        return ts, plans

    def _chosen(self, systems: Sequence[str] | None) -> list[str]:
        if systems is None:
            names = self.complete_systems
            if not names:
                raise InputError(f"{self.testfile}: no system translated every document of {self.name} "
                                 f"({len(self.documents)}); systems there: " + ", ".join(
                                     f"{s} ({len(self.hypotheses[s])})" for s in self.systems)
                                 + "; name the systems to score, or give their complete files")
            return names
        out = []
        for s in dict.fromkeys(systems):
            if s not in self.hypotheses:
                raise InputError(f"{self.testfile}: no system {shown(s)} translated a document of {self.name}; "
                                 f"systems there: {', '.join(self.systems) or 'none'}", params=("systems",))
            missing = self.skipped(s)
            if missing:
                raise InputError(f"{next(iter(self.hypotheses[s].values())).path}: system {shown(s)} skipped "
                                 f"{len(missing)} of the {len(self.documents)} documents of {self.name} "
                                 f"(first: {missing[0]}); a test set holds systems that translated every "
                                 "document (missing ones are not filled in)", params=("systems",))
            out.append(s)
        return out

    def _reference(self, name: str) -> str:
        lacking = [d for d in self.documents if name not in d.references]
        if lacking:
            d = lacking[0]
            raise InputError(f"{self.testfile}, line {d.line}, field refs: document {shown(d.doc_id)} has no "
                             f"reference {shown(name)} ({len(lacking)} of the {len(self.documents)} documents of "
                             f"{self.name} lack it; references there: {', '.join(self.reference_names) or 'none'}"
                             "); use a reference-free metric or another reference", params=("references",))
        return name


def _cut(parts: Sequence[str], whole: bool) -> list[str]:
    """A document's paragraphs as segments, or as one segment (joined by a newline) where ``whole``."""
    return ["\n".join(parts)] if whole else list(parts)


@dataclass
class Wmt26Data:
    """A WMT26 test file and system files read: language pairs in file order, and the system files."""

    testfile: str
    pairs: dict[str, Wmt26Pair]
    system_files: dict[str, str]

    def language_pairs(self) -> list[str]:
        return list(self.pairs)

    def pair(self, name: str) -> Wmt26Pair:
        """The pair ``name``, as the fields write it (``eng_Latn-isl_Latn``) or in ISO 639-1 (``en-is``)
        where that names one pair; an InputError listing the pairs otherwise."""
        return self.pairs[match_pair(name, list(self.pairs), self.testfile, "fields src_lang, tgt_lang",
                                     lambda p: name.lower() in (p.lower(), self.pairs[p].lang))]


# -- reading -------------------------------------------------------------------------------------------------
def read_wmt26(testfile: str | os.PathLike[str], systems: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
               = (), *, lp: str | None = None, source: str = "src_text") -> Wmt26Data:
    """Read the test file and the system files (a folder: its ``*.jsonl``; or a list of files).
    ``lp``: keep that language pair only (its name or ``en-is``); ``source``: ``src_text`` or
    ``gold_transcript`` (:data:`SOURCES`)."""
    if source not in SOURCES:
        raise InputError(f"source={shown(source)}: one of {', '.join(SOURCES)}", params=("source",))
    name = str(testfile)
    documents: dict[str, Wmt26Document] = {}
    for i, where, obj in json_lines(name, _lines(name), TEST_LINE):
        doc = _document(obj, where, i, source)
        if doc.doc_id in documents:
            raise InputError(f"{where}, field doc_id: document {shown(doc.doc_id)} is given twice (also line "
                             f"{documents[doc.doc_id].line}); give each document once")
        documents[doc.doc_id] = doc
    if not documents:
        raise InputError(f"{name}: no document; the WMT26 test file has one JSON object per line")
    pairs: dict[str, Wmt26Pair] = {}
    for doc in documents.values():
        pairs.setdefault(doc.pair, Wmt26Pair(name, doc.pair, [])).documents.append(doc)
    data = Wmt26Data(name, pairs, {})
    if lp is not None:
        chosen = data.pair(lp)
        data.pairs = {chosen.name: chosen}
    for system, path in _system_files(systems).items():
        data.system_files[system] = path
        _read_system(system, path, documents, data.pairs)
    return data


def _lines(path: str) -> list[str]:
    lines = read_lines(path)
    if lines and lines[0].startswith(_LFS):
        raise InputError(f"{path}: a Git LFS pointer, not the data; fetch the file itself (git lfs pull, or "
                         "download it from the repository's web page)")
    return lines


def _system_files(systems: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> dict[str, str]:
    if not isinstance(systems, (str, os.PathLike)) and len(systems) == 1 and os.path.isdir(systems[0]):
        systems = systems[0]  # [FOLDER], as a command line gives one
    if isinstance(systems, (str, os.PathLike)):
        folder = str(systems)
        if not os.path.isdir(folder):
            raise InputError(f"{folder}: not a folder; give the folder of the system files (data/systems) or a "
                             "list of NAME.jsonl files")
        paths = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".jsonl"))
        if not paths:
            raise InputError(f"{folder}: no *.jsonl system file here")
    else:
        paths = [str(p) for p in systems]
    out: dict[str, str] = {}
    for p in paths:
        base = os.path.basename(p)
        if not base.endswith(".jsonl"):
            raise InputError(f"{p}: a system file is NAME.jsonl (the system's name, then .jsonl)")
        system = base[: -len(".jsonl")]
        if system in out:
            raise InputError(f"{p}: system {shown(system)} given twice (also {out[system]})")
        out[system] = p
    return out


def _split(text: str, where: str, key: str) -> tuple[str, ...]:
    try:
        return paragraphs(text, strict=True).texts
    except MarkupError as exc:
        raise InputError(f"{where}, field {key}: {exc}; mark each paragraph <p>...</p> with only whitespace "
                         "between them, or give a one-paragraph text without <p> marks") from None


def _document(obj: Mapping[str, Any], where: str, line: int, source: str) -> Wmt26Document:
    what = {"doc_id": "the document's id SET_###_DOMAIN_###_SRCLANG_###_TGTLANG_###_DOC",
            "domain": "the document's domain", "src_lang": "the source language (e.g. eng_Latn)",
            "tgt_lang": "the target language (e.g. isl_Latn)", "src_text": "the source document"}
    values = {k: string_field(obj, k, where, f"every line needs {w}") for k, w in what.items()}
    doc_id, domain, src, tgt = (str(values[k]) for k in ("doc_id", "domain", "src_lang", "tgt_lang"))
    parts = doc_id.split(SEP, 4)
    if len(parts) != 5 or not all(p.strip() == p and p for p in parts):
        raise InputError(f"{where}, field doc_id: {shown(doc_id)} is not "
                         f"SET{SEP}DOMAIN{SEP}SRCLANG{SEP}TGTLANG{SEP}DOC (five parts joined by '{SEP}', none empty "
                         "or padded)")
    if (parts[1], parts[2], parts[3]) != (domain, src, tgt):
        raise InputError(f"{where}, field doc_id: {shown(doc_id)} names domain {shown(parts[1])} and "
                         f"{parts[2]}-{parts[3]}, "
                         f"but the fields say {shown(domain)} and {src}-{tgt}; fix the line")
    pair = f"{src}-{tgt}"
    try:
        parse_langpair(pair)
    except Exception as exc:
        raise InputError(f"{where}, fields src_lang, tgt_lang: {shown(pair)} is not a language pair ({exc})") from None
    fields: dict[str, Any] = {}
    for key in OPTIONAL_STRINGS:
        if key in obj:
            fields[key] = string_field(obj, key, where, "every line needs a text or null", null=True)
    for key in ASSETS:
        value = obj.get(key)
        if value is not None and not isinstance(value, dict):
            raise field_error(where, key, obj, 'give {"id": ..., "path": ...} or null', kind="an object")
        if key in obj:
            fields[key] = value
    refs = obj.get("refs")
    if not isinstance(refs, dict):
        raise field_error(where, "refs", obj, 'every line needs the references as {"NAME": "text", ...} ({} where '
                          "none)", kind="an object")
    references: dict[str, tuple[str, ...]] = {}
    for ref_name, value in refs.items():
        text = value.get("ref") if isinstance(value, dict) else value
        if not isinstance(text, str) or not ref_name.strip():
            raise InputError(f"{where}, field refs.{ref_name}: {json.dumps(value)[:60]} is not a reference "
                             '(a text, or {"ref": text})')
        references[ref_name] = _split(text, where, f"refs.{ref_name}")
    used = "src_text"
    if source == "gold_transcript" and fields.get("gold_transcript") is not None:
        used = "gold_transcript"
    elif source == "gold_transcript" and domain == "speech":
        raise InputError(f"{where}, field gold_transcript: missing for a speech document; give the curated "
                         "transcript, or read the ASR transcript with source=src_text")
    text = str(values["src_text"]) if used == "src_text" else str(fields["gold_transcript"])
    return Wmt26Document(doc_id, domain, pair, line, used, _split(text, where, used), references, fields)


def _read_system(system: str, path: str, documents: Mapping[str, Wmt26Document],
                 pairs: dict[str, Wmt26Pair]) -> None:
    seen: dict[str, int] = {}
    lines = 0
    for i, where, obj in json_lines(path, _lines(path), SYSTEM_LINE):
        lines += 1
        doc_id = string_field(obj, "doc_id", where, "every line needs the id of a document of the test file")
        text = string_field(obj, "hypothesis", where,
                            'every line needs the translation of the whole document ("" if empty)')
        if not isinstance(obj.get("metadata"), dict):
            raise field_error(where, "metadata", obj, "every line needs the system's metadata as an object ({} if "
                              "none)", kind="an object")
        if doc_id not in documents:
            raise InputError(f"{where}, field doc_id: {shown(doc_id)} is no document of the test file; is {path} the "
                             "system file of another test set?")
        if doc_id in seen:
            raise InputError(f"{where}, field doc_id: document {shown(doc_id)} is translated twice (also line "
                             f"{seen[doc_id]}); keep one translation per document")
        seen[doc_id] = i
        doc = documents[doc_id]
        if doc.pair in pairs:
            pairs[doc.pair].hypotheses.setdefault(system, {})[doc_id] = Hypothesis(
                system, doc_id, path, i, paragraphs(text, strict=False))
    if not lines:
        raise InputError(f"{path}: no line; a system file has one JSON object per translated document")


# -- the format ---------------------------------------------------------------------------------------------
def is_wmt26(path: str) -> bool:
    """A JSONL file whose first line has ``doc_id``, ``src_lang``, ``tgt_lang`` and ``src_text``."""
    return {"doc_id", "src_lang", "tgt_lang", "src_text"} <= set(first_json(path))


def read_evalset(path: str, lp: str | None, options: Mapping[str, Any]) -> EvalSet:
    """One language pair of the WMT26 test file with the system files (``systems``), as a test set."""
    systems = options.get("systems")
    if not systems:
        raise InputError(f"{path}: the WMT26 test file holds no translations; give the system files with "
                         "systems=DIR or systems=[FILE, ...]", params=("systems",))
    data = read_wmt26(path, systems, lp=lp, source=options.get("source", SOURCES[0]))
    one_pair(path, list(data.pairs), lp)
    return _evalset(path, next(iter(data.pairs.values())), options)


def read_pairs(path: str, lps: Sequence[str] | None, options: Mapping[str, Any]) -> list[EvalSet]:
    """The language pairs ``lps`` (None: every one) of the WMT26 test file, the files read once."""
    if not options.get("systems"):
        return [read_evalset(path, None, options)]  # its error
    data = read_wmt26(path, options["systems"], source=options.get("source", "src_text"))
    return [_evalset(path, data.pair(lp), options) for lp in (lps or data.language_pairs())]


def _evalset(path: str, pair: Wmt26Pair, options: Mapping[str, Any]) -> EvalSet:
    testset, plans = pair.testset(references=tuple(options.get("references", ())))
    return EvalSet(path, "wmt26", pair.name, testset, notes=tuple(pair.notes(plans)), raw=pair)


FORMAT = HumanFormat("wmt26", "the WMT26 GenMT release (test file and system files)", is_wmt26, read_evalset,
                     ("systems", "references", "source"), precedence=20, defaults={"source": SOURCES[0]},
                     choices={"source": SOURCES}, read_pairs=read_pairs)
