"""The documentation's commands on the real WMT24 release (../shared/data/wmt24_esa) run as written, from the
repository root, and print what the docs show after them (issue 27; the README's sections moved to docs/ in
issue 39); they skip cleanly where ../shared is absent.  The TSV -> GenMT JSONL snippet of docs/wmt.md writes a
file ``--genmt`` reads."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from cli_fixtures import run_cli as run

from docmetrics.formats.genmt import read_genmt

ROOT = Path(__file__).resolve().parents[1]
README = "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
SHARED = ROOT.parent / "shared" / "data" / "wmt24_esa"


def examples_on_the_release() -> list[tuple[str, list[str]]]:
    """(the command, the lines of the ``text`` blocks after it) for every README ``bash`` block that runs a
    command on ../shared/data/wmt24_esa."""
    out = []
    blocks = list(re.finditer(r"```(\w+)\n(.*?)```", README, re.S))
    for k, block in enumerate(blocks):
        if block.group(1) != "bash" or "../shared/data/wmt24_esa" not in block.group(2) \
                or not block.group(2).lstrip().startswith("docmetrics "):  # not docs/report.md's screenshot script
            continue
        shown: list[str] = []
        for later in blocks[k + 1:]:
            if later.group(1) != "text":
                break
            shown += [line.rstrip() for line in later.group(2).splitlines() if line.strip()]
        out.append((block.group(2).strip(), shown))
    return out


EXAMPLES = examples_on_the_release()


def test_the_genmt_and_bleu_sections_have_examples_on_the_release():
    commands = [c for c, _ in EXAMPLES]
    assert any("--genmt" in c and "--error-free" in c for c in commands)
    assert any(c.startswith("docmetrics -m bleu") for c in commands)
    assert all(shown for _, shown in EXAMPLES)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/wmt24_esa is not here")
@pytest.mark.parametrize("command,shown", EXAMPLES, ids=[c.split("--genmt")[0].strip() for c, _ in EXAMPLES])
def test_a_readme_command_on_the_release_prints_what_the_readme_shows(capsys, monkeypatch, command, shown):
    monkeypatch.chdir(ROOT)
    argv = shlex.split(command)
    assert argv[0] == "docmetrics"
    code, out, err = run(capsys, *argv[1:])
    assert code == 0, err
    printed = {line.rstrip() for line in (out + err).splitlines()}
    missing = [line for line in shown if line not in printed]
    assert not missing, "\n".join(missing)


def test_the_tsv_to_genmt_snippet_writes_a_file_genmt_reads(tmp_path, monkeypatch, capsys):
    part = README[README.index("**Your own data as GenMT JSONL.**"):]
    snippet = next(b for b in re.findall(r"```python\n(.*?)```", part, re.S) if "judged.jsonl" in b)
    rows = ["system\tdoc_id\tseg_id\tsource\tmt\tref\tesa"]
    for system, esa in (("sysA", (90, 70, 88)), ("sysB", (60, 95, 40))):
        for k, (doc, seg) in enumerate((("d1", 1), ("d1", 2), ("d2", 1))):
            rows.append(f"{system}\t{doc}\t{seg}\tQuelle {k}.\t{system} says {k}.\tReference {k}.\t{esa[k]}")
    (tmp_path / "judged.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    exec(compile(snippet, "README snippet", "exec"), {})
    pair = read_genmt(tmp_path / "judged.jsonl").pair("en-de")
    assert pair.systems == ["sysA", "sysB"] and [len(d) for d in pair.documents] == [2, 1]
    assert pair.outputs["sysB"] == ["sysB says 0.", "sysB says 1.", "sysB says 2."]
    assert pair.reference == ["Reference 0.", "Reference 1.", "Reference 2."]
    assert pair.human_scores() == {"sysA": [90, 70, 88], "sysB": [60, 95, 40]}
    code, out, err = run(capsys, "-m", "chrf", "--genmt", tmp_path / "judged.jsonl", "-f", "json")
    assert code == 0, err
