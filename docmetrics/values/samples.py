"""The sample data shipped inside the package (``docmetrics/data``), and writing it out for users who installed
a wheel (``docmetrics sample DIR``).  ``docmetrics/data/NOTICE`` says where each file comes from and its licence."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Collection

from .errors import UserError

__all__ = ["SAMPLES", "sample_root", "sample_files", "sample_sentences", "write_samples", "not_written_by_sample"]

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


def not_written_by_sample(dest: str | os.PathLike[str], others: Collection[str] = ()) -> tuple[Path, str] | None:
    """The first entry of the folder ``dest`` that ``docmetrics sample`` did not write, and why (None where it
    holds only the sample files, each unchanged, and the folders ``others`` names: relative paths such as
    ``models/tiny-cometkiwi``, what ``--models`` wrote)."""
    target, root = Path(dest), sample_root()
    shipped = {rel.as_posix() for rel in sample_files()}
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


def write_samples(dest: str | os.PathLike[str], *, force: bool = False, others: Collection[str] = ()) -> list[Path]:
    """Copy the sample data into ``dest`` (made if missing) and return the files written.

    A ``dest`` that exists and is not an empty folder is refused (a :class:`UserError`) unless it holds only
    what ``docmetrics sample`` writes (:func:`not_written_by_sample`: the sample files unchanged and the folders
    ``others`` names), so that running the same command again (a second page of the docs) works and changes
    nothing; or unless ``force``: then files of the same name are overwritten and nothing else there is
    touched."""
    target = Path(dest)
    if target.exists() and not target.is_dir():
        raise UserError(f"{target} is a file, not a folder: name a new folder for the sample data")
    foreign = not_written_by_sample(target, others) if target.is_dir() and not force else None
    if foreign:
        raise UserError(f"{target} exists and holds {foreign[0]} ({foreign[1]}): name a new folder, or add --force "
                        "to write the sample data into it (files of the same name are overwritten)")
    root = sample_root()
    written = []
    for rel in sample_files():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, target / rel)
        written.append(target / rel)
    return written
