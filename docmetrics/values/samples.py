"""The sample data shipped inside the package (``docmetrics/data``), and writing it out for users who installed
a wheel (``docmetrics sample DIR``).  ``docmetrics/data/NOTICE`` says where each file comes from and its licence."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .errors import UserError

__all__ = ["SAMPLES", "sample_root", "sample_files", "sample_sentences", "write_samples"]

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


def write_samples(dest: str | os.PathLike[str], *, force: bool = False) -> list[Path]:
    """Copy the sample data into ``dest`` (made if missing) and return the files written.

    A ``dest`` that exists and is not an empty folder is refused (a :class:`UserError`) unless ``force``:
    then files of the same name are overwritten and nothing else there is touched."""
    target = Path(dest)
    if target.exists() and not target.is_dir():
        raise UserError(f"{target} is a file, not a folder: name a new folder for the sample data")
    if target.is_dir() and any(target.iterdir()) and not force:
        raise UserError(f"{target} exists and is not empty: name a new folder, or add --force to write the sample "
                        "data into it (files of the same name are overwritten)")
    root = sample_root()
    written = []
    for rel in sample_files():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, target / rel)
        written.append(target / rel)
    return written
