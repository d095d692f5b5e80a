"""The MTME score files a run wrote, read back file by file with MTME's score-file parser
(``metric-scores/LP/NAME-REF.LEVEL.score`` -> ``(NAME, REF, LEVEL)`` -> system -> scores; domain files skipped)."""

from __future__ import annotations

from pathlib import Path

from docmetrics.formats.mtme_scores import parse_metric_filename, read_score_file


def read_back(root, testset: str, lp: str) -> dict[tuple[str, str, str], dict[str, list[float]]]:
    out = {}
    for path in sorted(Path(root, testset, "metric-scores", lp).glob("*.score")):
        name, ref, level = parse_metric_filename(str(path))
        if level != "domain":
            out[(name, ref, level)] = scores = read_score_file(str(path), level)
            assert all(v is not None for row in scores.values() for v in row), f"{path}: a None written"
    return out
