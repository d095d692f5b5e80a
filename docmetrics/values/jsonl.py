"""JSON Lines: one JSON object per line, every fault of a line refused in one form.

Every JSONL reader of docmetrics (the test-set JSONL of ``-i``, GenMT files, WMT25's stored automatic
scores, span predictions) takes its lines through :func:`json_lines` and keeps only its own fields; MTME's
JSONL texts and metadata, where a blank line is a segment's line too, take each line through
:func:`json_object`.  A
line is refused, with an :class:`~docmetrics.values.errors.InputError` naming the file and the line, when
it is not valid JSON (the character is named), nests deeper than :data:`MAX_JSON_DEPTH`, is not a JSON
object, or gives a key twice in one object (the field is named).  A message of the first three says what
a line of that file holds, as its reader words it.

A line's fields are checked in one form too, by :func:`string_field` (and :func:`field_error` for a check of
the reader's own): ``FILE, line N, field KEY: missing (fields: a, b); NEED`` and ``FILE, line N, field KEY: VALUE
is not a string; NEED``, where NEED says, in the reader's words, what every line needs there.

It takes the lines already read (:func:`docmetrics.values.io.read_lines`): ``io`` reads the test-set
JSONL through this module, so this module cannot import ``io``.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, Mapping

from .errors import InputError

__all__ = ["MAX_JSON_DEPTH", "json_lines", "json_object", "string_field", "field_error"]

#: The deepest nesting of a line's value (deeper is no input of docmetrics, and would exhaust the parser's
#: stack or that of whatever walks the value).
MAX_JSON_DEPTH = 64


def json_lines(path: str, lines: Iterable[str], what: str, *, max_depth: int = MAX_JSON_DEPTH
               ) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(line number from 1, its location ``"PATH, line N"``, its object) for every line of ``lines`` (the
    lines of the file ``path``) that is not blank.  ``what`` says what a line holds, for the messages
    (e.g. ``"one JSON object with doc_id, src, mt, ref (a segment)"``)."""
    for i, text in enumerate(lines, 1):
        if not text.strip():
            continue
        where = f"{path}, line {i}"
        yield i, where, json_object(text, where, what, max_depth=max_depth)


def json_object(text: str, where: str, what: str, *, max_depth: int = MAX_JSON_DEPTH) -> dict[str, Any]:
    """The JSON object of one line; an InputError at ``where`` (see the module docstring) otherwise."""
    repeats: list[str] = []
    try:
        value = json.loads(text, object_pairs_hook=lambda pairs: _keep_repeats(pairs, repeats))
    except (json.JSONDecodeError, RecursionError) as exc:
        raise _line_error(exc, where, what, max_depth) from None
    _check(value, text, where, what, max_depth)
    if repeats:
        field = _repeated_field(value, "") or "?"
        raise InputError(f"{where}, field {field}: given twice in the object; give each key once")
    return value


def field_error(where: str, key: str, obj: Mapping[str, Any], need: str, *, kind: str = "a string") -> InputError:
    """The error of field ``key`` of the object ``obj`` at ``where``: missing (the fields it has, in the line's
    order), or its value (cut at 60 characters) is not ``kind``; ``need``: what every line needs there."""
    if key not in obj:
        return InputError(f"{where}, field {key}: missing (fields: {', '.join(map(str, obj)) or 'none'}); {need}")
    return InputError(f"{where}, field {key}: {json.dumps(obj[key], ensure_ascii=False)[:60]} is not {kind}; {need}")


def string_field(obj: Mapping[str, Any], key: str, where: str, need: str, *, null: bool = False,
                 empty: bool = True, number: bool = False) -> Any:
    """Field ``key`` of a line's object, a string (an InputError of :func:`field_error` otherwise): ``null``: a
    null is read as None; ``empty``: ``""`` is a value; ``number``: an integer is read as its text."""
    value = obj.get(key)
    if value is None and null and key in obj:
        return None
    if number and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not (empty or value.strip()):
        raise field_error(where, key, obj, need, kind="a string" if empty else "a non-empty string")
    return value


def _depth(value: object, limit: int = MAX_JSON_DEPTH + 1) -> int:
    """How deeply ``value`` nests lists and objects (a scalar is 1; counting stops past ``limit``)."""
    levels, level = 0, [value]
    while level and levels <= limit:
        levels += 1
        level = [v for x in level if isinstance(x, (list, dict))
                 for v in (x.values() if isinstance(x, dict) else x)]
    return levels if not level else limit + 1


def _check(value: Any, text: str, where: str, what: str, max_depth: int) -> None:
    """Refuse the value of ``text`` where it nests deeper than ``max_depth`` or is not an object."""
    # a value nests at most one level more than its text has brackets: most lines need no walk
    brackets = text.count("[") + text.count("{")
    if brackets >= max_depth and _depth(value, max_depth) > max_depth:
        raise _too_deep(where, what, max_depth)
    if not isinstance(value, dict):
        raise InputError(f"{where}: {_kind(value)}, not a JSON object; a line holds {what}")


def _line_error(exc: Exception, where: str, what: str, max_depth: int) -> InputError:
    if isinstance(exc, json.JSONDecodeError):
        return InputError(f"{where}: not valid JSON ({exc.msg} at character {exc.pos + 1}); a line holds {what}")
    return _too_deep(where, what, max_depth)  # RecursionError: deeper than Python's parser goes


def _too_deep(where: str, what: str, max_depth: int) -> InputError:
    return InputError(f"{where}: a JSON value nested more than {max_depth} levels deep; a line holds {what}")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "a string" if isinstance(value, str) else "a list"


class _Repeated(dict[str, Any]):
    """An object that gives ``key`` twice (the later value kept), marked so by :func:`_keep_repeats`."""

    key = ""


def _keep_repeats(pairs: list[tuple[str, Any]], repeats: list[str]) -> dict[str, Any]:
    """The object of ``pairs``; where a key is given twice, marked with the first such key (and noted in
    ``repeats``, so that only a line with a repeat is walked to find where it is)."""
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    marked = _Repeated(out)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            marked.key = key
            break
        seen.add(key)
    repeats.append(marked.key)
    return marked


def _repeated_field(value: Any, path: str) -> str | None:
    """The field (``tgt_text.sysA``, ``errors[0].severity``) of the first key given twice in ``value``, in
    the order of the text; None where there is none.  (Recursive: ``value`` is no deeper than allowed.)"""
    if isinstance(value, _Repeated):
        return f"{path}.{value.key}" if path else value.key
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        inner = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key
        found = _repeated_field(child, inner)
        if found is not None:
            return found
    return None
