"""The sample data shipped in the package (docmetrics/data) and ``docmetrics sample DIR`` (issue 39): the folders
the documentation names are there and small, each is read by the reader the docs use, ``sample`` writes them, runs
again in a folder that holds only what it wrote (issue 45), refuses one with anything else or a changed file (exit 2,
one line) unless --force, and its --help and --list import no torch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_fixtures import run_cli

from docmetrics.values.samples import SAMPLES, sample_files, sample_root

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docmetrics" / "data"


def test_the_shipped_folders_are_small_and_have_a_notice():
    assert sample_root() == DATA
    files = sample_files()
    assert {p.parts[0] for p in files if len(p.parts) > 1} == set(SAMPLES)
    assert (DATA / "NOTICE").is_file() and "Apache" in (DATA / "NOTICE").read_text(encoding="utf-8")
    sizes = {name: sum((DATA / p).stat().st_size for p in files if p.parts[0] == name) for name in SAMPLES}
    assert max(sizes.values()) < 100_000, sizes
    assert sum(sizes.values()) < 250_000, sizes


def test_each_sample_is_read_by_its_reader():
    from docmetrics.judging import read_human

    for path, fmt in (("ted/human_seg.tsv", "human-tsv"), ("ted/mqm.tsv", "mqm"), ("genmt/ted-ende.jsonl", "genmt"),
                      ("mtme/wmt21.tedtalks", "mtme"), ("stored/scores.tsv", "stored")):
        evalset = read_human(DATA / path, lp="en-de" if fmt in ("genmt", "mtme") else None, format=fmt)
        assert evalset is not None, path
    lines = (DATA / "ted" / "src.txt").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 24
    for system in (DATA / "ted" / "sys").iterdir():
        assert len(system.read_text(encoding="utf-8").splitlines()) == 24, system
    auto = sorted((DATA / "wmt25" / "automatic_scores").glob("*.jsonl"))
    assert len(auto) == 6 and all(json.loads(p.read_text().splitlines()[0])["language_pair"] == "en-de_DE"
                                  for p in auto)


def test_sample_writes_refuses_a_full_folder_and_forces(tmp_path, capsys):
    out = tmp_path / "data"
    code, printed, err = run_cli(capsys, "sample", out)
    assert code == 0, err
    assert sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file()) == sample_files()
    assert "wrote" in printed
    code, printed, err = run_cli(capsys, "sample", out)  # the same command again (a second docs page): it holds
    assert code == 0, err                                 # only what sample writes, so it is written again
    (out / "ted" / "src.txt").write_text("changed\n", encoding="utf-8")
    code, printed, err = run_cli(capsys, "sample", out)
    assert code == 2 and err.count("\n") == 1 and "src.txt (changed since" in err and "--force" in err
    code, printed, err = run_cli(capsys, "sample", out, "--force", "-q")
    assert code == 0 and printed == ""
    assert (out / "ted" / "src.txt").read_bytes() == (DATA / "ted" / "src.txt").read_bytes()
    (tmp_path / "file").write_text("x", encoding="utf-8")
    code, _, err = run_cli(capsys, "sample", tmp_path / "file")
    assert code == 2 and "is a file" in err


@pytest.mark.parametrize("argv", [["sample", "--help"], ["--list"]])
def test_sample_help_and_list_import_no_torch(argv):
    code = (f"import sys\nfrom docmetrics.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            "print('TORCH' if 'torch' in sys.modules else 'NOTORCH')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip().splitlines()[-1] == "NOTORCH", proc.stderr


def test_sample_models_are_built_once_per_machine_and_copied(tmp_path, monkeypatch):
    """write_sample_models builds each model into the cache once ($DOCMETRICS_CACHE/sample-models), then copies
    it: the same bytes in every folder, the spec naming the folder it was copied to; a build left half done
    (a .building folder) is never taken for a model."""
    from docmetrics.plugin import registry, sample_models

    built = []

    class Toy:
        name = "toy"
        sample_models = {"tiny-toy": "a toy"}

        @classmethod
        def write_sample_model(cls, name, out_dir):
            built.append(out_dir)
            (Path(out_dir) / "weights.bin").write_bytes(bytes(range(256)))
            (Path(out_dir) / "sub").mkdir()
            (Path(out_dir) / "sub" / "vocab.txt").write_text("a\nb\n", encoding="utf-8")
            return f"model={out_dir},tokenizer={out_dir}/sub"

    info = registry.PluginInfo(kind="backbone", name="toy", target="x:Toy", distribution="toy-dist", dist_version="1",
                               extras=[])
    monkeypatch.setattr(registry, "plugins", lambda kind: [info])
    monkeypatch.setattr(registry, "load", lambda kind, name: Toy)
    monkeypatch.setenv("DOCMETRICS_CACHE", str(tmp_path / "cache"))
    (first,) = sample_models.write_sample_models(tmp_path / "a")
    (second,) = sample_models.write_sample_models(tmp_path / "b")
    assert len(built) == 1 and ".building-" in built[0]
    for m, folder in ((first, tmp_path / "a"), (second, tmp_path / "b")):
        out = (folder / "models" / "tiny-toy").as_posix()
        assert m.spec == f"model={out},tokenizer={out}/sub" and (m.backbone, m.name, m.about) == ("toy", "tiny-toy", "a toy")
        assert (Path(out) / "weights.bin").read_bytes() == bytes(range(256))
        assert sorted(p.name for p in Path(out).rglob("*")) == ["sub", "vocab.txt", "weights.bin"]
    home = next((tmp_path / "cache" / "sample-models").rglob("tiny-toy"))
    (home / sample_models.SPEC_FILE).unlink()  # as if the build had stopped before its end
    sample_models.write_sample_models(tmp_path / "c")
    assert len(built) == 2
