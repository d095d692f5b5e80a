"""The data a metric scores: systems x documents x segments, with sources, references, doc ids."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from .errors import InputError, shown


@dataclass(frozen=True)
class Document:
    """A run of consecutive segments that share a doc id: segments ``start .. end-1``."""

    doc_id: str
    start: int
    end: int

    def __len__(self) -> int:
        return self.end - self.start


def runs(ids: Sequence[str]) -> list[tuple[str, int, int]]:
    """``(id, first, last + 1)`` of each run of equal consecutive ``ids``, in order (an id that reappears after
    another has a run of its own): the documents of doc ids, as every reader cuts them."""
    out: list[tuple[str, int, int]] = []
    start = 0
    for i in range(1, len(ids) + 1):
        if i == len(ids) or ids[i] != ids[start]:
            out.append((ids[start], start, i))
            start = i
    return out


@dataclass(frozen=True)
class Selection:
    """A test set whose segments were picked out of a larger one (``docmetrics vat`` writes this in
    its ``vat.json``): which lines of the original each segment was, and what was kept.

    ``lines[i]`` is the 0-based line of the original test set that segment ``i`` was; ``item`` is
    what was kept or dropped as a whole (``segment`` or ``document``); ``record`` is the file that
    says so.
    """

    record: str
    item: str
    kept: int
    total: int
    lines: tuple[int, ...]

    def summary(self) -> str:
        return f"item={self.item}, kept={self.kept}/{self.total}"


@dataclass
class TestSet:
    """Line-parallel segments of one or more systems.

    ``names`` says where each piece came from (a file name, or 'hypotheses' etc. from the API) so
    errors can name it.  A new document starts wherever the doc id changes (as
    ``sacrebleu --echo docid`` writes them); without doc ids the whole input is one document.

    ``references`` is the first reference; ``other_references`` the second, third, ... where several
    were given (``-r ref1.txt ref2.txt``; named ``reference 2``, ... in ``names``), so that
    :attr:`all_references` keeps every one.
    """

    __test__ = False  # not a pytest class

    systems: dict[str, list[str]]
    sources: list[str] | None = None
    references: list[str] | None = None
    doc_ids: list[str] | None = None
    names: dict[str, str] = field(default_factory=dict)
    #: Set when the segments were picked out of a larger test set (a VAT output).
    selection: Selection | None = None
    #: The second, third, ... reference, line-parallel like the first (``references``).
    other_references: list[list[str]] = field(default_factory=list)
    #: The file line of each segment where it is not its index + 1 (JSONL, whose blank lines are no segment).
    line_numbers: list[int] | None = None
    #: The language pair the data carries (``en-ja_JP``, as a GenMT/MTME/WMT file names it), None where unknown:
    #: a metric whose parameters take a pair (``lang=``) and were given none scores with it, as ``-l`` does
    #: for the command (:meth:`~docmetrics.plugin.metric.Metric.for_langpair`).
    lp: str | None = None
    documents: list[Document] = field(init=False)
    warnings: list[str] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        if not self.systems:
            raise InputError("no system output given: pass at least one hypothesis file with -i")
        lengths: dict[str, int] = {}
        for name, hyp in self.systems.items():
            lengths[self.names.get(name, name)] = len(hyp)
        if self.other_references and self.references is None:
            raise InputError("other references without a first one: give every reference in one list")
        others = [(f"reference {k}", seq) for k, seq in enumerate(self.other_references, 2)]
        for key, seq in (("source", self.sources), ("reference", self.references), *others,
                         ("doc ids", self.doc_ids)):
            if seq is not None:
                lengths[self.names.get(key, key)] = len(seq)
        if len(set(lengths.values())) > 1:
            detail = ", ".join(f"{n}: {c} lines" for n, c in lengths.items())
            raise InputError(f"inputs have different lengths ({detail}); they must be line-parallel")
        n = next(iter(lengths.values()))
        if n == 0:
            raise InputError(
                "empty input: " + ", ".join(lengths) + " has no segments; give at least one line"
            )
        self.documents = self._documents(n)
        self._warn_empty()
        if self.selection is not None and len(self.selection.lines) != n:
            self.warnings.append(
                f"{self.selection.record} describes {len(self.selection.lines)} kept lines, but the "
                f"inputs have {n}: it does not describe these files and is ignored"
            )
            self.selection = None

    def _warn_empty(self) -> None:
        """Say where the text is empty: a system whose every line is empty (its output is missing: every
        metric would score empty translations), and empty reference lines."""
        for name, hyp in self.systems.items():
            if not any(line.strip() for line in hyp):
                self._warn(f"{self.describe(name)}: every line is empty, so the system output looks missing; "
                           "its scores are those of empty translations")
        for k, ref in enumerate(self.all_references, 1):
            empty = [i + 1 for i, line in enumerate(ref) if not line.strip()]
            if empty:
                where = ", ".join(map(str, empty[:5])) + (", ..." if len(empty) > 5 else "")
                self._warn(f"{self.describe('reference' if k == 1 else f'reference {k}')}: {len(empty)} of "
                           f"{len(ref)} reference lines are empty (line {where}); a hypothesis is scored against "
                           "an empty reference there")

    def _warn(self, msg: str) -> None:
        self.warnings.append(msg)
        warnings.warn(msg, stacklevel=4)  # at the caller of TestSet(...)

    def line_of(self, i: int) -> int:
        """The file line of segment ``i`` (0-based) of the doc ids, as messages name it."""
        return self.line_numbers[i] if self.line_numbers is not None and i < len(self.line_numbers) else i + 1

    def _documents(self, n: int) -> list[Document]:
        if self.doc_ids is None:
            return [Document("all", 0, n)]
        where = self.names.get("doc ids", "doc_ids")
        for i, doc_id in enumerate(self.doc_ids):
            if not doc_id.strip():
                raise InputError(
                    f"{where}, line {self.line_of(i)}: empty doc id; every line needs the id of its document "
                    "(a blank line would make its own document, or join the blank lines around it)"
                )
            if doc_id != doc_id.strip():
                raise InputError(
                    f"{where}, line {self.line_of(i)}: the doc id {shown(doc_id)} has leading or trailing "
                    "whitespace; ids are compared exactly, so with and without it they would be different "
                    "documents: remove it (e.g. sed 's/^[[:space:]]*//; s/[[:space:]]*$//')"
                )
        docs = [Document(*run) for run in runs(self.doc_ids)]
        seen: set[str] = set()
        for doc in docs:
            if doc.doc_id in seen:
                msg = (f"doc id {shown(doc.doc_id)} reappears at line {self.line_of(doc.start)} of "
                       f"{self.names.get('doc ids', 'the doc ids')} after another document; it is scored as a "
                       "separate document")
                self._warn(msg)
            seen.add(doc.doc_id)
        return docs

    @classmethod
    def from_lists(
        cls,
        hypotheses: Sequence[str] | Mapping[str, Sequence[str]],
        sources: Sequence[str] | None = None,
        references: Sequence[str] | Sequence[Sequence[str]] | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> TestSet:
        """Build from Python lists: one system (a list) or several (a mapping name -> list); one
        reference (a list of strings) or several (a list of such lists)."""
        if isinstance(hypotheses, Mapping):
            systems = {str(k): _strings(v, f"hypotheses of {k!r}") for k, v in hypotheses.items()}
        else:
            systems = {"hyp": _strings(hypotheses, "hypotheses")}
        refs: list[list[str]] = []
        if references is not None:
            several = len(references) > 0 and all(isinstance(r, (list, tuple)) for r in references)
            refs = ([_strings(r, f"references[{k}]") for k, r in enumerate(references)] if several
                    else [_strings(references, "references")])  # type: ignore[arg-type]
        return cls(
            systems,
            _strings(sources, "sources") if sources is not None else None,
            refs[0] if refs else None,
            _strings(doc_ids, "doc_ids") if doc_ids is not None else None,
            other_references=refs[1:],
        )

    @property
    def all_references(self) -> list[list[str]]:
        """Every reference (the first is :attr:`references`), each a list of segments; [] for none."""
        return [] if self.references is None else [self.references, *self.other_references]

    def reference_names(self) -> list[str]:
        """Where each reference came from (its file), in order."""
        return [self.describe("reference" if k == 1 else f"reference {k}")
                for k in range(1, len(self.all_references) + 1)]

    @property
    def n_segments(self) -> int:
        return sum(len(d) for d in self.documents)

    def describe(self, key: str) -> str:
        return self.names.get(key, key)

    def broken_neighbours(self) -> str | None:
        """Where this test set is a selection of single segments in which some segment now follows,
        inside its document, a segment it did not follow in the original (so windows and contexts
        would join sentences that were never adjacent): a sentence saying so; else None."""
        sel = self.selection
        if sel is None:
            return None
        joined = sum(1 for d in self.documents for i in range(d.start + 1, d.end)
                     if sel.lines[i] != sel.lines[i - 1] + 1)
        if not joined:
            return None
        return (f"the test set is a selection ({sel.record}: {sel.summary()}) in which {joined} "
                f"segment(s) follow a segment of their document they were not adjacent to")


def _strings(seq: Sequence[str] | None, what: str) -> list[str]:
    if isinstance(seq, str):
        raise InputError(f"{what} must be a list of strings (one per segment), not one string")
    out = list(seq or [])
    for i, s in enumerate(out):
        if not isinstance(s, str):
            raise InputError(f"{what}: item {i} is {type(s).__name__}, not a string")
    return out
