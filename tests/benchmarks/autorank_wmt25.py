"""Reproduce WMT25's preliminary ranking with ``docmetrics rank``.

Usage::

    python tests/benchmarks/autorank_wmt25.py PATH

PATH holds wmt-conference/wmt25-general-mt's ``data/automatic_scores/*.jsonl`` and
``preliminary_ranking/latex_source/generated_report.tex`` (a checkout, or the files copied out of it in the
same layout; the repository has no licence, so none of its data is copied into docmetrics).  Runs
``docmetrics rank --scores PATH/data/automatic_scores/*.jsonl --preset wmt25 -f json`` once (every language
pair), and compares every AutoRank and every metric column of every table of the report with ours at the
precision the table prints (a column's precision: the most decimals any of its cells shows, since the
report drops trailing zeros), then prints how many values matched out of how many, and each mismatch.
First it prints the shapes of the files (what tests/test_autorank.py's tiny files imitate), counted.
Exit status 0 when all match.
"""

from __future__ import annotations

import contextlib
import glob
import io
import json
import os
import re
import sys

from docmetrics.cli.main import main as docmetrics_main

#: The report's table titles -> the language pairs as the JSONL files write them.
PAIRS = {
    "English-Egyptian Arabic": "en-ar_EG", "English-Bhojpuri": "en-bho_IN", "English-Czech": "en-cs_CZ",
    "English-Estonian": "en-et_EE", "English-Icelandic": "en-is_IS", "English-Italian": "en-it_IT",
    "English-Japanese": "en-ja_JP", "English-Korean": "en-ko_KR", "English-Maasai": "en-mas_KE",
    "English-Russian": "en-ru_RU", "English-Serbian (Cyrilics)": "en-sr_Cyrl_RS", "English-Ukrainian": "en-uk_UA",
    "English-Simplified Chinese": "en-zh_CN", "Czech-Ukrainian": "cs-uk_UA", "Czech-German": "cs-de_DE",
    "Japanese-Simplified Chinese": "ja-zh_CN", "English-Bengali": "en-bn_BD", "English-German": "en-de_DE",
    "English-Greek": "en-el_GR", "English-Persian": "en-fa_IR", "English-Hindi": "en-hi_IN",
    "English-Indonesian": "en-id_ID", "English-Kannada": "en-kn_IN", "English-Lithuanian": "en-lt_LT",
    "English-Marathi": "en-mr_IN", "English-Romanian": "en-ro_RO", "English-Thai": "en-th_TH",
    "English-Serbian (Latin)": "en-sr_Latn_RS", "English-Swedish": "en-sv_SE", "English-Turkish": "en-tr_TR",
    "English-Vietnamese": "en-vi_VN",
}
#: Display names in the report -> the system files' names (after dropping \official, [M] and LaTeX escapes).
ALIASES = {"CommandA-WMT": "CommandA-MT", "Shy-hunyuan-MT": "Shy", "EuroLLM-22B-pre.": "EuroLLM-22B"}
#: Columns of the report that are not scores.
NOT_SCORES = {"System Name", "LP Supported", "Params. (B)", "Humeval?"}


def system_name(cell: str) -> str:
    name = cell.replace("\\official", "").replace("\\_", "_").replace("[M]", "").strip()
    return ALIASES.get(name, name)


def read_report(path: str) -> dict[str, tuple[list[str], dict[str, dict[str, str]]]]:
    """lp -> (score columns, system -> column -> the printed value)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = {}
    for block in text.split("\\begin{table*}")[1:]:
        title = re.search(r"\\textbf\{(.*?)\}", block).group(1)
        header = re.search(r"^System Name.*$", block, re.M).group(0).rstrip().rstrip("\\").split("&")
        header = [h.replace("$\\uparrow$", "").replace("$\\downarrow$", "").strip() for h in header]
        rows: dict[str, dict[str, str]] = {}
        for line in block.splitlines():
            if "\\cellcolor" not in line:
                continue
            cells = [c.strip() for c in line.rstrip().rstrip("\\").split("&")]
            values = {}
            for h, c in zip(header, cells):
                m = re.search(r"\\cellcolor\{[^}]*\}(\S+)", c)
                if m and h not in NOT_SCORES:
                    values[h] = m.group(1)
            rows[system_name(cells[0])] = values
        out[PAIRS[title]] = ([h for h in header if h not in NOT_SCORES], rows)
    return out


def decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def same(ours: float, printed: str, places: int) -> bool:
    return round(ours, places) == float(printed) or float(f"{ours:.{places}f}") == float(printed)


def shapes(files: list[str]) -> list[str]:
    """The shapes of the real files that tests/test_autorank.py writes into its tiny files, counted."""
    keys, pairs_per_file, empty, unequal, null_metrics, kinds = set(), [], 0, 0, {}, set()
    metricx, single_null, docs_by_pair, metric_pairs = [0, 0, 0], 0, {}, {}
    for path in files:
        pairs = set()
        with open(path, encoding="utf-8") as f:
            raw = f.read()
        for line in raw.splitlines():
            obj = json.loads(line)
            keys.add(tuple(sorted(obj)))
            lp = obj["language_pair"]
            pairs.add(lp)
            docs_by_pair.setdefault(lp, {}).setdefault(path, []).append(obj["document_id"])
            sizes = {len(v) for v in obj["metric_scores"].values()}
            empty += 0 in sizes
            unequal += len(sizes) > 1
            for m, vals in obj["metric_scores"].items():
                metric_pairs.setdefault(m, set()).add(lp)
                kinds.update(type(v).__name__ for v in vals)
                null_metrics[m] = null_metrics.get(m, 0) + sum(v is None for v in vals)
                single_null += len(vals) == 1 and vals[0] is None
                if m.startswith("MetricX"):
                    for v in vals:
                        if v is not None:
                            metricx[(v > 0) - (v < 0) + 1] += 1
        pairs_per_file.append(len(pairs))
    same_order = all(len({tuple(d) for d in per.values()}) == 1 for per in docs_by_pair.values())
    return [
        f"fields of a line: {sorted(keys)}",
        f"language pairs per file: {min(pairs_per_file)} to {max(pairs_per_file)}",
        f"documents of a pair in the same order in every file: {same_order}",
        f"lines with an empty score list: {empty}; with metrics of different lengths: {unequal}",
        f"score types: {sorted(kinds)}; nulls per metric: {({m: n for m, n in null_metrics.items() if n})}; "
        f"one-segment documents whose only score is null: {single_null}",
        f"MetricX scores below 0: {metricx[0]}, exactly 0: {metricx[1]}, above 0: {metricx[2]}",
        f"metrics scored for some pairs only: "
        f"{({m: sorted(p) for m, p in metric_pairs.items() if len(p) < len(docs_by_pair)})}",
    ]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[0]
    files = sorted(glob.glob(os.path.join(root, "data", "automatic_scores", "*.jsonl")))
    report = read_report(os.path.join(root, "preliminary_ranking", "latex_source", "generated_report.tex"))
    for line in shapes(files):
        print(f"shape: {line}")
    buf = io.StringIO()
    command = ["rank", "--scores", *files, "--preset", "wmt25", "-f", "json", "-q"]
    with contextlib.redirect_stdout(buf):
        status = docmetrics_main(command)
    if status:
        print(f"docmetrics rank exited with {status}", file=sys.stderr)
        return 1
    ours = {r["lp"]: r for r in json.loads(buf.getvalue())}
    matched = total = ar_matched = ar_total = 0
    misses = []
    for lp, (columns, rows) in report.items():
        result = ours.get(lp)
        if result is None:
            misses.append(f"{lp}: not ranked by docmetrics")
            continue
        by_system = {s["system"]: s for s in result["systems"]}
        extra = sorted(set(by_system) - set(rows))
        if extra:
            misses.append(f"{lp}: systems ranked here, not in the report: {', '.join(extra)}")
        places = {c: max(decimals(v[c]) for v in rows.values()) for c in columns}
        for system, printed in rows.items():
            mine = by_system.get(system)
            for c in columns:
                total += 1
                ar_total += c == "AutoRank"
                if mine is None:
                    misses.append(f"{lp} {system}: not ranked by docmetrics")
                    continue
                value = mine["autorank"] if c == "AutoRank" else mine["scores"].get(c)
                if value is not None and same(value, printed[c], places[c]):
                    matched += 1
                    ar_matched += c == "AutoRank"
                else:
                    misses.append(f"{lp} {system} {c}: report {printed[c]}, docmetrics {value}")
    for m in misses:
        print(m)
    print(f"language pairs: {len(report)}; systems: {sum(len(r) for _, r in report.values())}")
    print(f"AutoRank: {ar_matched} of {ar_total} match; metric columns: {matched - ar_matched} of {total - ar_total} "
          f"match; all values: {matched} of {total}")
    return 0 if matched == total and not misses else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
