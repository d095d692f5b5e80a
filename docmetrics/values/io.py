"""Reading inputs from files, with errors that name the file and line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import BinaryIO, Sequence

from .errors import InputError, UserError
from .jsonl import json_lines, string_field
from .testset import Selection, TestSet

#: The record ``docmetrics vat`` writes beside the files it filtered.
SELECTION_RECORD = "vat.json"
#: The largest input read (bytes): inputs are read whole, and a file that never ends (``/dev/zero``, a
#: pipe left open) must stop with a message, not exhaust the memory.
MAX_INPUT_BYTES = 1 << 31


def _read_bounded(stream: BinaryIO, name: str, limit: int) -> bytearray:
    """All of ``stream``, or an InputError naming ``name`` once it holds more than ``limit`` bytes."""
    data = bytearray()
    while True:
        chunk = stream.read(min(1 << 24, limit + 1 - len(data)))
        if not chunk:
            return data
        data += chunk
        if len(data) > limit:
            size = f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"
            raise InputError(f"{name}: more than {size} (docmetrics reads an input whole); is it "
                             "the right file (not a device or a stream that never ends)? Split a larger test set")


def read_lines(path: str | os.PathLike[str]) -> list[str]:
    """Lines of a UTF-8 text file, without line endings ('-' is stdin).

    Invalid UTF-8 raises InputError naming the file and the line.
    """
    name = "stdin" if str(path) == "-" else str(path)
    try:
        if str(path) == "-":
            import sys

            data = _read_bounded(sys.stdin.buffer, name, MAX_INPUT_BYTES)
        else:
            with open(path, "rb") as stream:
                data = _read_bounded(stream, name, MAX_INPUT_BYTES)
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, not a text file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot be read ({exc.strerror})") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    raw_lines = data.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    lines = []
    for i, raw in enumerate(raw_lines, 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{name}, line {i}: invalid UTF-8 (byte {exc.start + 1} of the line); "
                "convert the file to UTF-8, e.g. with iconv"
            ) from None
        lines.append(text[:-1] if text.endswith("\r") else text)
    return lines


def system_names(paths: Sequence[str]) -> list[str]:
    """Short, unique names for systems given as files (base names, or paths where those clash)."""
    base = ["stdin" if p == "-" else os.path.basename(p) or p for p in paths]
    names = base if len(set(base)) == len(base) else list(paths)
    seen: dict[str, int] = {}
    unique = []
    for n in names:  # the same file given twice is still two systems
        seen[n] = seen.get(n, 0) + 1
        unique.append(n if seen[n] == 1 else f"{n}#{seen[n]}")
    return unique


def load_text(
    hyp_files: Sequence[str],
    src_file: str | None = None,
    ref_file: str | Sequence[str] | None = None,
    doc_id_file: str | None = None,
) -> TestSet:
    """A test set from line-parallel text files; ``ref_file`` is one reference file or several."""
    names = system_names(hyp_files)
    systems = {n: read_lines(p) for n, p in zip(names, hyp_files)}
    labels = {n: "stdin" if p == "-" else p for n, p in zip(names, hyp_files)}
    ref_files = [ref_file] if isinstance(ref_file, str) else list(ref_file or [])
    src = read_lines(src_file) if src_file else None
    refs = [read_lines(p) for p in ref_files]
    ids = read_lines(doc_id_file) if doc_id_file else None
    if src_file:
        labels["source"] = src_file
    for k, path in enumerate(ref_files, 1):
        labels["reference" if k == 1 else f"reference {k}"] = "stdin" if path == "-" else path
    if doc_id_file:
        labels["doc ids"] = doc_id_file
    paths = [p for p in (doc_id_file, src_file, *ref_files, *hyp_files) if p]
    return TestSet(systems, src, refs[0] if refs else None, ids, names=labels, selection=read_selection(paths),
                   other_references=refs[1:])


def read_testset(
    inputs: Sequence[str],
    source: str | None = None,
    reference: str | Sequence[str] | None = None,
    doc_ids: str | None = None,
    *,
    jsonl: bool = False,
) -> TestSet:
    """The test set of files as the command line takes them: one file per system (``-i``), either
    line-parallel text with ``source``/``reference``/``doc_ids`` files (``reference``: one file or
    several), or JSONL (``jsonl=True``, or every input ending in .jsonl) whose objects carry
    src/ref/doc_id.  Warnings about the data are in ``TestSet.warnings``."""
    inputs = list(inputs)
    if jsonl or all(is_jsonl(p) for p in inputs):
        if source or reference or doc_ids:
            raise UserError("with JSONL input, sources, references and doc ids come from the JSONL "
                            "objects (src, ref, doc_id); drop -s/-r/--doc-ids")
        return load_jsonl(inputs)
    if any(is_jsonl(p) for p in inputs):
        raise UserError("mix of JSONL and text files in -i; give all systems in the same form")
    return load_text(inputs, source, reference, doc_ids)


def read_selection(paths: Sequence[str]) -> Selection | None:
    """The selection record (``vat.json``, written by ``docmetrics vat``) that lists one of
    ``paths`` among the files it wrote, read from the folder of that file; None when there is none.
    A record that cannot be read is an InputError naming it."""
    for path in paths:
        if path == "-":
            continue
        record = Path(path).parent / SELECTION_RECORD
        if not record.is_file():
            continue
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise InputError(f"{record}: the record of the VAT selection next to {path} cannot be read "
                             f"({exc}); write it again with docmetrics vat, or move {path} elsewhere") from None
        if not isinstance(data, dict):
            continue
        files = data.get("files")
        names = {os.path.basename(str(f)) for f in files.values()} if isinstance(files, dict) else set()
        if os.path.basename(path) not in names:
            continue
        lines = data.get("kept_lines")
        if lines is None and isinstance(data.get("items"), list):  # a record of docmetrics 0.2.0
            try:
                lines = [n for it in data["items"] if it.get("kept")
                         for n in range(int(it["first_line"]), int(it["last_line"]) + 1)]
            except (AttributeError, KeyError, TypeError, ValueError):
                lines = None
        if not isinstance(lines, list) or not all(isinstance(x, int) and x >= 1 for x in lines):
            raise InputError(f"{record}: no valid 'kept_lines' (1-based lines of the original test set); "
                             "write it again with docmetrics vat")
        return Selection(str(record), str(data.get("item", "")), int(data.get("items_kept", 0)),
                         int(data.get("items_total", 0)), tuple(x - 1 for x in lines))
    return None


def check_output_dir(path: str, what: str) -> None:
    """Raise InputError (naming ``what``, e.g. ``-o vat/``) unless ``path`` is, or can be made, a
    writable directory: it is not a file, and no folder above it is a file.  Meant to run before
    any work."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise InputError(f"{what}: {path} exists and is not a directory; give a directory (it is created "
                         "if missing)")
    above = target
    while not above.exists():
        if above.parent == above:
            break
        above = above.parent
    if above.exists() and not above.is_dir():
        raise InputError(f"{what}: {above} is a file, so {path} cannot be a directory below it")
    if not os.access(above, os.W_OK):
        raise InputError(f"{what}: {above} cannot be written (no permission)")


JSONL_FIELDS = ("doc_id", "src", "mt", "ref")


#: What a line of the test-set JSONL holds (the messages of :func:`~docmetrics.values.jsonl.json_lines`).
JSONL_LINE = "one JSON object with doc_id, src, mt, ref (a segment)"


def read_jsonl(path: str) -> tuple[list[int], dict[str, list[str | None]]]:
    """The line numbers and the columns (doc_id, src, mt, ref: one value per segment, None where a line has no
    such field) of a test-set JSONL file, validated: a field is on every line or on none."""
    lines: list[int] = []
    cols: dict[str, list[str | None]] = {key: [] for key in JSONL_FIELDS}
    for i, where, obj in json_lines(path, read_lines(path), JSONL_LINE):
        string_field(obj, "mt", where, 'every line needs the system output (mt; an empty translation is "")')
        for key in JSONL_FIELDS:
            given = obj.get(key) is not None
            cols[key].append(string_field(obj, key, where, f"{key} is a string where given", number=key == "doc_id")
                             if given else None)
        lines.append(i)  # blank lines are no segment: the file's own numbers
    for key, col in cols.items():
        present = [v is not None for v in col]
        if any(present) and not all(present):
            raise InputError(f"{path}, line {lines[present.index(False)]}: '{key}' is missing here but present on "
                             "other lines")
    return lines, cols


def load_jsonl(paths: Sequence[str]) -> TestSet:
    """A test set from JSONL files, one per system; sources, references and doc ids must agree."""
    names = system_names(paths)
    first_path = paths[0]
    first_lines, first = read_jsonl(first_path)
    systems = {names[0]: first["mt"]}
    for name, path in zip(names[1:], paths[1:]):
        lines, cols = read_jsonl(path)
        systems[name] = cols["mt"]
        if len(lines) != len(first_lines):
            raise InputError(
                f"{first_path}: {len(first_lines)} segments, {path}: {len(lines)} segments; "
                "every system's JSONL must have the same segments"
            )
        for key in ("doc_id", "src", "ref"):
            if cols[key] != first[key]:
                bad = next(i for i, (a, b) in enumerate(zip(cols[key], first[key])) if a != b)
                raise InputError(
                    f"{path}, line {lines[bad]}: '{key}' differs from {first_path}; "
                    "every system's JSONL must have the same sources, references and doc ids"
                )
    labels = {n: p for n, p in zip(names, paths)}
    labels.update({"source": f"{first_path} (src)", "reference": f"{first_path} (ref)",
                   "doc ids": f"{first_path} (doc_id)"})

    def col(key: str) -> list[str] | None:
        values = first[key]
        return None if not values or values[0] is None else values  # type: ignore[return-value]

    return TestSet(systems, col("src"), col("ref"), col("doc_id"), names=labels,  # type: ignore[arg-type]
                   selection=read_selection(list(paths)), line_numbers=first_lines)


def is_jsonl(path: str) -> bool:
    return path.endswith((".jsonl", ".jsonl.gz", ".ndjson"))


def same_file(path: str | os.PathLike[str], other: str | os.PathLike[str]) -> bool:
    """Whether writing ``path`` would write over ``other`` (the same name, or one file under two names or a
    link): the one check of every writer against the files it read (the command's outputs, ``write_report``)."""
    a, b = os.fspath(path), os.fspath(other)
    if os.path.abspath(a) == os.path.abspath(b):
        return True
    try:
        return os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b)
    except OSError:
        return False
