"""The sample data shipped inside the package (``docmetrics/data``), and writing it out for users who installed
a wheel (``docmetrics sample DIR``).  ``docmetrics/data/NOTICE`` says where each file comes from and its licence."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Iterable

from .errors import UserError

__all__ = ["SAMPLES", "sample_root", "sample_files", "sample_sentences", "write_samples", "not_written_by_sample",
           "check_target"]

#: each sample folder and what it holds
SAMPLES = {
    "quickstart": "three short documents (German source, English reference, two systems, doc ids)",
    "ted": "WMT21 TED en-de slice: src.txt, ref.txt, docids.txt, sys/*.txt (6 systems, 3 talks x 8 segments), "
           "human_seg.tsv (MQM scores, --human) and mqm.tsv (the raw MQM ratings with error spans)",
    "genmt": "ted-ende.jsonl: the TED slice in the WMT GenMT humeval JSONL layout (--genmt), paragraphs of 4 "
             "segments with their mean MQM score and error spans",
    "mtme": "wmt21.tedtalks: the TED slice as an mt-metrics-eval folder (--mtme docmetrics/data/mtme), with "
            "stored chrF and BLEU scores",
    "stored": "scores.tsv: stored segment scores (sentence chrF and BLEU) of the TED slice (--scores)",
    "wmt25": "automatic_scores/*.jsonl: the same stored scores in WMT25's automatic-scores layout (--scores); "
             "metrics_testset.tsv: the slice as the WMT25 metrics task's test TSV (--wmt25-tsv)",
    "wmt26": "wmt26-genmt.jsonl and systems/*.jsonl: the slice as the WMT26 General MT release lays it out "
             "(--wmt26), one talk a line",
}


def sample_root() -> Path:
    """The folder the sample data is installed in (``docmetrics/data`` in a checkout)."""
    return Path(__file__).resolve().parents[1] / "data"


def sample_files() -> list[Path]:
    """Every shipped sample file, relative to :func:`sample_root`, sorted."""
    root = sample_root()
    return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def sample_sentences() -> list[str]:
    """Every line of the shipped TED slice's and quickstart's text files (sources, references, systems), in a
    fixed order: what the tiny sample models' tokenizers are trained on, so they cut these texts into pieces of
    a realistic length."""
    root = sample_root()
    files = [root / rel for rel in sample_files() if rel.parts[0] in ("ted", "quickstart") and rel.suffix == ".txt"
             and rel.name != "docids.txt"]
    return [line for f in files for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]


def not_written_by_sample(dest: str | os.PathLike[str],
                          others: Iterable[str | os.PathLike[str]] = ()) -> tuple[Path, str] | None:
    """The first entry of the folder ``dest`` that ``docmetrics sample`` did not write, and why (None where it
    holds only the sample files, each unchanged, and the folders ``others`` names: relative paths such as
    ``models/tiny-cometkiwi``, what ``--models`` wrote)."""
    target, root = Path(dest), sample_root()
    shipped = {rel.as_posix() for rel in sample_files()}
    others = [Path(o).as_posix() for o in others]
    for path in target.rglob("*"):
        rel = path.relative_to(target)
        if any(rel.as_posix() == o or rel.as_posix().startswith(o.rstrip("/") + "/") for o in others):
            continue
        if path.is_dir():
            if not any(s.startswith(rel.as_posix() + "/") for s in (*shipped, *others)):
                return path, "not a folder of the sample data"
            continue
        if rel.as_posix() not in shipped or path.is_symlink():
            return path, "not a file of the sample data"
        if path.read_bytes() != (root / rel).read_bytes():
            return path, "changed since docmetrics sample wrote it"
    return None


def write_samples(dest: str | os.PathLike[str], *, force: bool = False,
                  folders: Iterable[str | os.PathLike[str]] = (),
                  others: Iterable[str | os.PathLike[str]] = ()) -> list[Path]:
    """Copy the sample data into ``dest`` (made if missing) and return the files written.

    A ``dest`` that exists and is not an empty folder is refused (a :class:`UserError`) unless it holds only
    what ``docmetrics sample`` writes (:func:`not_written_by_sample`: the sample files unchanged and the folders
    ``others`` names), so that running the same command again (a second page of the docs) works and changes
    nothing; or unless ``force``: then files of the same name are overwritten and nothing else there is touched.
    Before anything is written,
    :func:`check_target` refuses a ``dest`` where a file (or one of the ``folders``, paths under ``dest`` a later
    step writes, e.g. ``models/NAME``) cannot be written."""
    target = Path(dest)
    check_target(target, sample_files(), folders, force=force, others=others)
    root = sample_root()
    written = []
    for rel in sample_files():
        try:
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / rel, target / rel)
        except OSError as exc:  # what check_target cannot foresee: a full disk, a folder changed meanwhile
            raise UserError(f"{exc.filename or target / rel}: cannot be written ({exc.strerror or exc}); "
                            "name another folder for the sample data") from None
        written.append(target / rel)
    return written


def check_target(dest: str | os.PathLike[str], files: Iterable[str | os.PathLike[str]],
                 folders: Iterable[str | os.PathLike[str]] = (), *, force: bool = False,
                 others: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Refuse, with a :class:`UserError` naming the path, a ``dest`` where the ``files`` (paths relative to it) and
    the ``folders`` (the same, folders) cannot all be written: ``dest`` is a file, or a folder holding anything
    ``docmetrics sample`` did not write (unless ``force``; ``others``: folders it wrote); a path on the way is a
    file; a file to write is a folder (or a folder a file); a folder to write into is not writable.  Nothing is
    written."""
    target = Path(dest)
    if target.exists() and not target.is_dir():
        raise UserError(f"{target} is a file, not a folder: name a new folder for the sample data")
    foreign = not_written_by_sample(target, others) if target.is_dir() and not force else None
    if foreign:
        raise UserError(f"{target} exists and holds {foreign[0]} ({foreign[1]}): name a new folder, or add --force "
                        "to write the sample data into it (files of the same name are overwritten)")
    if not target.exists():  # made with everything under it: only the folder it is made in can be in the way
        above = target.parent
        while not above.exists() and above != above.parent:
            above = above.parent
        if not above.is_dir():
            raise UserError(f"{above} is a file, not a folder: {target} cannot be made under it; name another "
                            "folder for the sample data")
        if not os.access(above, os.W_OK | os.X_OK):
            raise UserError(f"{above}: not writable (permission denied), so {target} cannot be made; name a "
                            "folder you can write to")
        return
    planned = [(Path(f), False) for f in files] + [(Path(f), True) for f in folders]
    checked: set[Path] = set()
    for rel, is_folder in [(Path(), True)] + planned:
        path = target
        for depth, part in enumerate(("",) + rel.parts):
            path = path / part if part else path
            last = depth == len(rel.parts)
            if path in checked and not last:
                continue
            checked.add(path)
            if not path.exists():
                break  # made in a folder checked just before
            if is_folder or not last:
                if not path.is_dir():
                    raise UserError(f"{path} is a file where the sample data needs a folder: move it, or name "
                                    "another folder for the sample data")
                if not os.access(path, os.W_OK | os.X_OK):
                    raise UserError(f"{path}: not writable (permission denied): name a folder you can write to")
            elif path.is_dir():
                raise UserError(f"{path} is a folder where the sample data writes a file: move it, or name "
                                "another folder for the sample data")
            elif not os.access(path, os.W_OK):
                raise UserError(f"{path}: not writable (permission denied), and --force would overwrite it: name "
                                "a folder you can write to")
