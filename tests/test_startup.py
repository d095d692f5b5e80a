"""What a model command imports before its first unit: a run the score cache answers entirely loads no
model, so it imports neither torch nor the model's library (issue 22, item 8)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "docmetrics" / "data" / "quickstart"
HEAVY = ("torch", "comet", "pytorch_lightning", "transformers", "bert_score", "sentence_transformers")

#: Runs the CLI in a fresh interpreter and prints its exit status and the heavy modules it imported.
SCRIPT = f"""
import json, sys
from docmetrics.cli.main import main
status = main(sys.argv[1:])
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & set({HEAVY!r}))
print(json.dumps({{"status": status, "heavy": heavy}}))
"""


def run_cli(args: list[str], cwd: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_cached_comet_run_imports_neither_torch_nor_comet(tiny_kiwi_dir, tmp_path):
    args = ["-q", "-m", f"slide:w=2,s=1,model={tiny_kiwi_dir}", "-i", str(DATA / "sysA.txt"), "-s",
            str(DATA / "src.txt"), "--doc-ids", str(DATA / "docids.txt"), "--cache", str(tmp_path / "s.sqlite")]
    first = run_cli(args, tmp_path)
    assert first["status"] == 0 and {"torch", "comet"} <= set(first["heavy"])
    again = run_cli(args, tmp_path)
    assert again == {"status": 0, "heavy": []}


def test_cached_bertscore_run_imports_neither_torch_nor_bert_score(tmp_path):
    pytest.importorskip("bert_score")
    from docmetrics_backbones.tiny import build_tiny_xlmr

    model = build_tiny_xlmr(tmp_path / "tiny-xlmr", seed=5)
    args = ["-q", "-m", f"doc-bertscore:model={model},layer=2,k=1", "-i", str(DATA / "sysA.txt"), "-r",
            str(DATA / "ref.txt"), "--doc-ids", str(DATA / "docids.txt"), "--cache", str(tmp_path / "s.sqlite")]
    first = run_cli(args, tmp_path)
    assert first["status"] == 0 and {"torch", "bert_score"} <= set(first["heavy"])
    assert run_cli(args, tmp_path) == {"status": 0, "heavy": []}


def test_backbone_modules_import_no_model_library():
    """Importing every first-party backbone module (what the registry does to build one) is cheap."""
    code = ("import sys\n"
            "import docmetrics_backbones.comet.backbone, docmetrics_backbones.bertscore.backbone\n"
            "import docmetrics_backbones.prism.backbone, docmetrics_backbones.sentence_embedding.backbone\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
