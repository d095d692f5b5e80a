"""Options that do not go together, as tables: a :class:`Conflicts` names what its options conflict with (a data
source such as ``--mtme``, or an option) and how a conflict is told; each row names an option and what to do
instead.  :meth:`Conflicts.check` raises the one error, for the first row whose option is given, before
anything is read.  A data source (``--genmt``, ``--mtme``, ``--wmt25-tsv``, ``--wmt26``) is one :class:`Source`:
what it replaces, what it refuses and what needs it, read by one check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..values.errors import UserError
from .options import Options, flag_of

__all__ = ["Option", "Conflicts", "Source", "CANNOT", "WITH", "NEEDS", "NEEDS_FOR", "replaced_by"]

#: How a conflict is told: ``{option}`` and ``{instead}`` from the row, ``{other}`` from the table, and any
#: field :meth:`Conflicts.check` is given (``{file}``: the data source's file).
CANNOT = "{option} cannot be combined with {other}: {instead}"
WITH = "{option} with {other}: {instead}"
#: An option that only means something with ``other``.
NEEDS = "{option} needs {other}"
NEEDS_FOR = "{option} {instead}: it needs {other}"


@dataclass(frozen=True)
class Option:
    """One row: the option's attribute in the parsed arguments, the option as it is written (default: as the
    command's parser declares it, :func:`.options.flag_of`), what to do instead; given when set to anything but
    ``default`` (its value when not given, where that is not None, False or empty)."""

    attr: str
    flag: str = ""
    instead: str = ""
    default: Any = None

    def given(self, opts: Options) -> bool:
        value = getattr(opts, self.attr, None)
        return bool(value) and value != self.default


@dataclass(frozen=True)
class Conflicts:
    """The options that conflict with ``other`` (or need it), each told by ``template``."""

    other: str
    template: str
    rows: tuple[Option, ...]

    def given(self, opts: Options) -> list[Option]:
        """The rows whose option ``opts`` gives, in the table's order."""
        return [row for row in self.rows if row.given(opts)]

    def without(self, *attrs: str) -> Conflicts:
        """The table without the rows of these options (where another data source gives them a meaning)."""
        return Conflicts(self.other, self.template, tuple(row for row in self.rows if row.attr not in attrs))

    def check(self, opts: Options, **fields: Any) -> None:
        """Raise :class:`UserError` for the first row whose option ``opts`` gives, told by :attr:`template`."""
        for row in self.given(opts)[:1]:
            raise UserError(self.template.format(option=row.flag or flag_of(opts, row.attr), other=self.other,
                                                 instead=row.instead, **fields))


#: The options that name the files of the usual input (their fields).
FILE_INPUTS = ("input", "source", "references", "doc_ids", "jsonl", "doc_per_line")


def replaced_by(flag: str, what: str, sources: tuple[str, ...], instead: dict[str, str] | None = None) -> Conflicts:
    """The options a data source (``flag``, reading ``what`` from ``{file}``) replaces: the usual input's, and the
    data sources ``sources`` (fields); ``instead``: what to add after "drop OPTION", by field."""
    rows = (Option(attr, instead=(instead or {}).get(attr, "")) for attr in (*FILE_INPUTS, *sources))
    return Conflicts(flag, f"{flag} reads {what} from {{file}}: drop {{option}}{{instead}}", tuple(rows))


@dataclass(frozen=True)
class Source:
    """A data source of ``docmetrics`` (an option naming judged data), described once: the field of its option, the
    options it replaces (``{file}``: its file), those it refuses, and those that mean nothing without it."""

    attr: str
    replaces: Conflicts
    needs: Conflicts
    refuses: Conflicts = Conflicts("", "", ())

    def check(self, opts: Options) -> bool:
        """Whether ``opts`` gives the source: with it, the first option it replaces or refuses is a UserError;
        without it, the first option that needs it."""
        file = getattr(opts, self.attr, None)
        for table in (self.replaces, self.refuses) if file else (self.needs,):
            table.check(opts, file=file)
        return bool(file)
