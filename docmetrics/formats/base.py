"""What every judged-data format is made of: :class:`HumanFormat` (a form of judging data: its name, how to
recognise a file of it, how to read one) and :class:`EvalSet` (what reading one language pair of it gives, as
mt-metrics-eval's ``EvalSet`` is one test set and pair), the gold error spans a format gives (:class:`SpanGold`
of :class:`Span`), with the helpers recognisers share (a file's first line, as JSON or as a TSV header).  The
registry that tries them is :mod:`docmetrics.judging.formats`."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, Union

from ..values.errors import InputError, shown
from ..values.jsonl import json_object
from .judgements import HumanScores, judged

if TYPE_CHECKING:
    from collections import Counter

    from ..values.result import Result
    from ..values.testset import TestSet

__all__ = ["EvalSet", "HumanFormat", "Span", "SpanItem", "SpanGold", "span_objects", "SEVERITY_CLASS",
           "SKIPPED_SEVERITIES", "SPAN_SEVERITIES", "PathLike", "first_line", "first_json", "json_fault", "tsv_header",
           "bare_pair", "one_pair", "match_pair"]

PathLike = Union[str, "os.PathLike[str]"]

#: Severity -> its class, as WMT25's span scorer has them (critical merged into major).
SEVERITY_CLASS = {"major": "major", "critical": "major", "minor": "minor"}
#: Severities the span scorer skips (ESA's annotators could leave a span undecided).
SKIPPED_SEVERITIES = ("undecided",)
#: Every severity the span scorer knows; another is an error.
SPAN_SEVERITIES = (*SEVERITY_CLASS, *SKIPPED_SEVERITIES)


@dataclass(frozen=True)
class Span:
    """One error: characters ``start .. end - 1`` of the translation, or no place (``start`` and ``end``
    None: an omission), and its severity."""

    start: int | None
    end: int | None
    severity: str

    @property
    def omission(self) -> bool:
        return self.start is None or self.end is None


def span_objects(errors: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    """The error spans of a list as written (``errors``: ``[{"start_i", "end_i", "severity"}, ...]``), each with
    where it is (``WHERE[k]``), its fields still to read; an InputError naming ``where`` for what is no list of
    objects."""
    if not isinstance(errors, list):
        raise InputError(f"{where}: {json.dumps(errors)[:60]} is not a list of error spans "
                         '[{"start_i": ..., "end_i": ..., "severity": ...}] ([] for none)')
    for k, e in enumerate(errors):
        if not isinstance(e, dict):
            raise InputError(f"{where}[{k}]: {json.dumps(e)[:60]} is not an error span "
                             '{"start_i": ..., "end_i": ..., "severity": ...}')
    return [(f"{where}[{k}]", e) for k, e in enumerate(errors)]


@dataclass(frozen=True)
class SpanItem:
    """One system's translation of one segment: how messages name it, its length in characters, its gold
    spans (omissions included; None where it has none to judge against, ``why`` says why), and the gold
    spans its reader left out (one reason each)."""

    system: str
    name: str
    length: int
    gold: tuple[Span, ...] | None
    why: str = ""
    dropped: tuple[str, ...] = ()


@dataclass
class SpanGold:
    """The human spans of one test set: items by ``(system, *key)``, the key fields a prediction line
    gives (beside ``system``), what the gold is (``text``), what to note about it (``notes``) and the key of
    each line of the test set (``lines``: how a metric's spans on a line find their item; empty where a line
    is no item)."""

    path: str
    pair: str | None
    fields: tuple[str, ...]
    items: dict[tuple[str, ...], SpanItem]
    text: str
    notes: list[str] = field(default_factory=list)
    lines: list[tuple[str, ...]] = field(default_factory=list)
    #: how the format reads the key a prediction line gives, where it is more than its fields' values:
    #: ``locate(line, system, values, where, skipped)`` gives the key values, or None for a line of data the gold
    #: does not hold (counted in ``skipped`` by reason: GenMT's other language pairs and domains)
    locate: Callable[[Mapping[str, Any], str, list[str], str, Counter[str]], list[str] | None] | None = field(
        default=None, repr=False, compare=False)

    def of(self, systems: Sequence[str]) -> SpanGold:
        """The same gold restricted to the items of ``systems`` (a test set's: not its reference)."""
        keep = set(systems)
        return dataclasses.replace(self, items={k: v for k, v in self.items.items() if k[0] in keep})


@dataclass(frozen=True)
class EvalSet:
    """One language pair of judging data, read by a human-data format.

    ``source``: the file or directory read; ``format``: the name of the format that read it; ``lp``: the
    language pair as the file names it (None where the file names none and none was given).
    ``testset``: the :class:`~docmetrics.values.testset.TestSet` to score where the file carries the texts
    (GenMT, raw MQM, MTME, WMT25 TSV, WMT26), else None.  ``human``: the human scores the meta-evaluation
    reads (system and, where given, segment level), None where the file has none.  ``stored``: metric name ->
    :class:`~docmetrics.formats.stored.StoredMetric` for files of stored scores (:meth:`results` gives them as
    Results).  ``notes``: what the reader found odd but read, for the caller to show.  ``raw``: the reader's own
    object (``GenmtPair``, ``MqmRatings``, ``MtmeTestSet``, ``Wmt25Pair``, ``Wmt26Pair``, ``StoredScores``,
    ``HumanScores``), for what only that form has.

    :attr:`judgements` (the segment scores human clusters read: by default those of ``human``, where it has
    segment scores) and :attr:`spans` (the gold error spans) are built when first read; where the file has none,
    reading them is an :class:`~docmetrics.values.errors.InputError` saying why.
    """

    source: str
    format: str
    lp: str | None
    testset: TestSet | None = None
    human: HumanScores | None = None
    stored: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    raw: Any = field(default=None, repr=False)
    make_judgements: Callable[[], HumanScores] | None = field(default=None, repr=False, compare=False)
    make_spans: Callable[[], SpanGold] | None = field(default=None, repr=False, compare=False)
    #: every domain of the language pair in the file (the test set's are those selected); GenMT's gold spans
    #: count the lines of the others as skipped
    domains: tuple[str, ...] = ()

    @functools.cached_property
    def judgements(self) -> HumanScores:
        """The segment-level human scores of each system (with each annotation's, where a segment has several),
        as human clusters read them."""
        if self.make_judgements is None and self.human is not None:  # system scores only: judged() says so
            return judged(dataclasses.replace(self.human, lp=self.lp))
        if self.make_judgements is None:
            raise InputError(f"{self.source}: a {self.format} file holds no segment-level human scores; human "
                             "clusters need them")
        return self.make_judgements()

    @functools.cached_property
    def spans(self) -> SpanGold:
        """The human error spans (GenMT ESA errors, raw MQM marks) that span predictions are judged against (a
        :class:`SpanGold`)."""
        if self.make_spans is None:
            raise InputError(f"{self.source}: a {self.format} file holds no human error spans; give a GenMT file "
                             "with ESA errors or a raw MQM file")
        return self.make_spans()

    @property
    def systems(self) -> list[str]:
        """The systems to score (the test set's), else those with a human score, else the stored ones'."""
        if self.testset is not None:
            return list(self.testset.systems)
        if self.human is not None:
            return list(self.human.system)
        return list(dict.fromkeys(s for m in self.stored.values() for s in m.systems))

    def results(self, names: list[str] | None = None) -> dict[str, list[Result]]:
        """The stored metrics (``names``, default all) as Results, one per system, in the test set's order
        where there is one: what :func:`~docmetrics.judging.metaeval.meta_evaluate` takes beside live ones."""
        from .stored_metric import to_results

        chosen = list(self.stored) if names is None else names
        unknown = [n for n in chosen if n not in self.stored]
        if unknown:
            raise InputError(f"{self.source}: no stored metric {unknown[0]!r}; it has "
                             f"{', '.join(self.stored) or 'none'}")
        return {n: to_results(self.stored[n], self.testset) for n in chosen}


@dataclass(frozen=True)
class HumanFormat:
    """One form of judging data.

    ``recognise(path)`` says whether ``path`` (a file or directory, read as little as it needs) is of this
    form; it never raises for a file of another form.  ``read(path, lp, options)`` reads the language pair
    ``lp`` (None: the only one, or the file's, where it names none) with ``options`` (only names listed in
    ``options`` reach it) and returns an :class:`EvalSet`.  ``spans(evalset)``, where the form has human error
    spans, builds their gold (a :class:`SpanGold`) from an EvalSet it read: what :attr:`EvalSet.spans` gives, built
    when first asked for (a reader may instead set ``make_spans`` on the EvalSet itself).  ``defaults``: the value an
    option takes where it is not given; ``choices``: the values an option takes, where they are few (what a command
    line shows for them)."""

    name: str
    title: str
    recognise: Callable[[str], bool]
    read: Callable[[str, str | None, Mapping[str, Any]], EvalSet]
    options: tuple[str, ...] = ()
    #: where docmetrics' own formats are tried when recognising a file (lowest first); a plugin's come after
    precedence: int = 50
    spans: Callable[[EvalSet], SpanGold] | None = field(default=None, compare=False)
    defaults: Mapping[str, Any] = field(default_factory=dict, compare=False)
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    #: where the form holds several language pairs in one file: ``read_pairs(path, lps, options)`` reads each of
    #: ``lps`` (None: every pair, in the file's order) from one reading of the file, as ``read`` reads one
    read_pairs: Callable[[str, Sequence[str] | None, Mapping[str, Any]], list[EvalSet]] | None = field(
        default=None, compare=False)


# -- what recognisers and readers share -----------------------------------------------------------------------
def first_line(path: str, limit: int = 1 << 20) -> tuple[int, str]:
    """(its number from 1, the text) of the first non-blank line of a text file ((0, "") for a directory, an
    unreadable or an empty file)."""
    if not os.path.isfile(path):
        return 0, ""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            read = 0
            for number, line in enumerate(f, 1):
                read += len(line)
                if line.strip():
                    return number, line.strip("\r\n").lstrip("\ufeff")
                if read > limit:
                    break
    except OSError:
        return 0, ""
    return 0, ""


def first_json(path: str) -> dict[str, Any]:
    """The first line of ``path`` as a JSON object ({} where it is none)."""
    line = first_line(path)[1]
    if not line.startswith("{"):
        return {}
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        return {}
    return obj if isinstance(obj, dict) else {}


def json_fault(path: str) -> str | None:
    """Why the first line of ``path``, where it looks like JSON (``{`` or ``[``), is no JSON object docmetrics
    reads (too deep, invalid, not an object), as ``PATH, line N: ...``; None otherwise."""
    number, line = first_line(path)
    if not line.lstrip().startswith(("{", "[")):
        return None
    try:
        json_object(line, f"{path}, line {number}", "one JSON object (a segment, a document or a system's scores)")
    except InputError as exc:
        return str(exc)
    return None


def tsv_header(path: str) -> list[str]:
    """The fields of the first line of ``path`` where it is tab-separated ([] otherwise)."""
    line = first_line(path)[1]
    return [h.strip() for h in line.split("\t")] if "\t" in line else []


def bare_pair(pair: str) -> str:
    """``"en-sr_Cyrl_RS"`` -> ``"en-sr"``: a language pair without its locales, lower case."""
    src, _, tgt = pair.partition("-")
    return f"{src.split('_')[0].lower()}-{tgt.split('_')[0].lower()}"


def one_pair(path: str, have: Sequence[str], lp: str | None) -> None:
    """An InputError where ``lp`` is None and the file holds several language pairs."""
    if lp is None and len(have) > 1:
        raise InputError(f"{path} holds {len(have)} language pairs ({', '.join(have)}): name one with lp=",
                         params=("lp",))


def match_pair(wanted: str, have: Sequence[str], where: str, fields: str, *tries: Callable[[str], bool],
               has: str = "the file has") -> str:
    """The language pair among ``have`` that ``wanted`` names: itself, else the one pair that the first of
    ``tries`` (tests of a pair's name: case, locales, ISO codes) to accept any accepts.  An InputError (parameter
    lp) otherwise: ``wanted`` ambiguous, or no pair, naming ``where``, the ``fields`` the pairs are read from and
    the pairs ``has``."""
    if wanted in have:
        return wanted
    matches: list[str] = []
    for accepts in tries:
        matches = [p for p in have if accepts(p)]
        if matches:
            break
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise InputError(f"{where}: language pair {shown(wanted)} is ambiguous here: {', '.join(matches)}; give one",
                         params=("lp",))
    raise InputError(f"{where}: no language pair {shown(wanted)} ({fields}); {has} {', '.join(have) or 'none'}",
                     params=("lp",))
