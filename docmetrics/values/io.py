"""Reading inputs from files, with errors that name the file and line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

from .errors import InputError
from .testset import TestSet


def read_lines(path: str | os.PathLike[str]) -> list[str]:
    """Lines of a UTF-8 text file, without line endings ('-' is stdin).

    Invalid UTF-8 raises InputError naming the file and the line.
    """
    name = "stdin" if str(path) == "-" else str(path)
    try:
        if str(path) == "-":
            import sys

            data = sys.stdin.buffer.read()
        else:
            data = Path(path).read_bytes()
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
    ref_file: str | None = None,
    doc_id_file: str | None = None,
) -> TestSet:
    """A test set from line-parallel text files."""
    names = system_names(hyp_files)
    systems = {n: read_lines(p) for n, p in zip(names, hyp_files)}
    labels = {n: "stdin" if p == "-" else p for n, p in zip(names, hyp_files)}
    src = read_lines(src_file) if src_file else None
    ref = read_lines(ref_file) if ref_file else None
    ids = read_lines(doc_id_file) if doc_id_file else None
    if src_file:
        labels["source"] = src_file
    if ref_file:
        labels["reference"] = ref_file
    if doc_id_file:
        labels["doc ids"] = doc_id_file
    return TestSet(systems, src, ref, ids, names=labels)


JSONL_FIELDS = ("doc_id", "src", "mt", "ref")


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


def read_jsonl(path: str) -> list[dict[str, str]]:
    """Objects of a JSONL file (one segment per line: doc_id, src, mt, ref), validated."""
    rows = []
    for i, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line, object_pairs_hook=_unique_keys)
        except _DuplicateKey as exc:
            raise InputError(f"{path}, line {i}: the key {exc.args[0]!r} appears twice in the object; "
                             "give each key once") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}, line {i}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{path}, line {i}: expected a JSON object with keys doc_id, src, mt, ref")
        if "mt" not in obj:
            raise InputError(f"{path}, line {i}: the object has no 'mt' (the system output)")
        if not isinstance(obj["mt"], str):
            raise InputError(f"{path}, line {i}: 'mt' must be a string (the system output), not "
                             f"{json.dumps(obj['mt'])}; an empty translation is \"\"")
        for key in JSONL_FIELDS:
            value = obj.get(key)
            if value is None:
                continue
            allowed = (str, int) if key == "doc_id" else (str,)
            if isinstance(value, bool) or not isinstance(value, allowed):
                raise InputError(f"{path}, line {i}: '{key}' must be a string, not {json.dumps(value)}")
        rows.append({k: (str(obj[k]) if obj.get(k) is not None else None) for k in JSONL_FIELDS})  # type: ignore[misc]
        rows[-1]["_line"] = str(i)  # type: ignore[assignment]
    return rows


def load_jsonl(paths: Sequence[str]) -> TestSet:
    """A test set from JSONL files, one per system; sources, references and doc ids must agree."""
    names = system_names(paths)
    systems: dict[str, list[str]] = {}
    first: dict[str, list[str | None]] | None = None
    first_path = paths[0]
    for name, path in zip(names, paths):
        rows = read_jsonl(path)
        systems[name] = [r["mt"] for r in rows]
        cols = {k: [r.get(k) for r in rows] for k in ("doc_id", "src", "ref")}
        for key, col in cols.items():
            present = [v is not None for v in col]
            if any(present) and not all(present):
                line = rows[present.index(False)]["_line"]
                raise InputError(f"{path}, line {line}: '{key}' is missing here but present on other lines")
        if first is None:
            first = cols
        else:
            if len(rows) != len(first["src"]):
                raise InputError(
                    f"{first_path}: {len(first['src'])} segments, {path}: {len(rows)} segments; "
                    "every system's JSONL must have the same segments"
                )
            for key in ("doc_id", "src", "ref"):
                if cols[key] != first[key]:
                    bad = next(i for i, (a, b) in enumerate(zip(cols[key], first[key])) if a != b)
                    raise InputError(
                        f"{path}, line {rows[bad]['_line']}: '{key}' differs from {first_path}; "
                        "every system's JSONL must have the same sources, references and doc ids"
                    )
    assert first is not None
    labels = {n: p for n, p in zip(names, paths)}
    labels.update({"source": f"{first_path} (src)", "reference": f"{first_path} (ref)",
                   "doc ids": f"{first_path} (doc_id)"})

    def col(key: str) -> list[str] | None:
        values = first[key]  # type: ignore[index]
        return None if not values or values[0] is None else [str(v) for v in values]

    return TestSet(systems, col("src"), col("ref"), col("doc_id"), names=labels)


def is_jsonl(path: str) -> bool:
    return path.endswith((".jsonl", ".jsonl.gz", ".ndjson"))
