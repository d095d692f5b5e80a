"""Issue 45, "Silent or wrong numbers" from Python: each case a row, checked to refuse (docmetrics' own error
naming the culprit and the fix), to warn (saying what was found), or to give the command's number.

* a metric given a test set that carries its language pair scores with it, as ``-l`` does (BLEU's tokenizer);
  a pair the user stated wins, with a warning where its target language is not the test set's;
* ``meta_evaluate`` of Results of no document of the human data: refused; of some: a warning with the coverage;
* ``autorank`` with a NaN system score: refused, naming metric and system;
* ``write_report`` over a file it read: refused, as the command refuses ``--report`` over an input;
* ``--wmt26`` with every hypothesis of a system empty: the warning the ``-i`` path gives."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, Callable

import pytest
from cli_fixtures import run_cli
from test_python_equals_shell import write_cjk_genmt

import docmetrics
from docmetrics.values.errors import DocMetricsWarning, InputError
from docmetrics.values.testset import TestSet

ROOT = Path(__file__).resolve().parents[1]
WMT26 = ROOT / "docmetrics" / "data" / "wmt26"


@pytest.fixture(scope="module")
def cjk(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("cjk")
    return {lp: docmetrics.read_human(write_cjk_genmt(folder / f"{lp}.jsonl", lp))
            for lp in ("en-ja_JP", "en-zh_CN")}


def first_half(testset: TestSet) -> TestSet:
    n = testset.documents[len(testset.documents) // 2].start
    return TestSet({k: v[:n] for k, v in testset.systems.items()}, testset.sources[:n], testset.references[:n],
                   testset.doc_ids[:n], lp=testset.lp)


# -- the language pair a test set carries -----------------------------------------------------------------------
def signature(metric: Any, data: Any) -> str:
    return str(metric.compute(data.testset)[0].signature)


# (case, the pair's data, how the metric is made, what its signature says, a warning that must be given or None)
PAIR_ROWS: list[tuple[str, str, Callable[[], Any], str, str | None]] = [
    ("ja: the test set's pair picks ja-mecab", "en-ja_JP", lambda: docmetrics.load("bleu"), "tokenize:ja-mecab", None),
    ("zh: the test set's pair picks zh", "en-zh_CN", lambda: docmetrics.load("bleu"), "tokenize:zh", None),
    ("d-bleu takes it too", "en-zh_CN", lambda: docmetrics.load("d-bleu"), "tokenize:zh", None),
    ("a tokenizer named wins, silently", "en-ja_JP", lambda: docmetrics.load("bleu:tokenize=char"), "tokenize:char",
     None),
    ("the same pair stated: no word", "en-ja_JP", lambda: docmetrics.load("bleu:lang=en-ja"), "tokenize:ja-mecab", None),
    ("defaults= (as -l) is stated too", "en-ja_JP", lambda: docmetrics.load("bleu", defaults={"lang": "en-ja"}),
     "tokenize:ja-mecab", None),
    ("another pair stated wins, with a warning", "en-zh_CN", lambda: docmetrics.load("bleu:lang=en-ja"),
     "tokenize:ja-mecab", "lang=en-ja was given, but the test set's language pair is en-zh_CN"),
    ("a metric built without load() takes it", "en-zh_CN",
     lambda: __import__("docmetrics_metrics.sacrebleu_metrics.metric", fromlist=["BleuMetric"]).BleuMetric(),
     "tokenize:zh", None),
]


@pytest.mark.parametrize("case, lp, make, expected, warning", PAIR_ROWS, ids=[r[0] for r in PAIR_ROWS])
def test_a_metric_scores_with_the_pair_its_test_set_carries(cjk, case, lp, make, expected, warning):
    pytest.importorskip("MeCab")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = signature(make(), cjk[lp])
    assert expected in found
    said = [str(w.message) for w in caught if issubclass(w.category, DocMetricsWarning)]
    if warning is None:
        assert not [s for s in said if "lang=" in s], said
    else:
        assert any(warning in s for s in said), said


def test_a_stated_pair_in_another_script_warns_then_is_refused_by_bleus_script_check(cjk):
    with pytest.warns(DocMetricsWarning, match="lang=en-de was given, but the test set's language pair is en-ja_JP"):
        with pytest.raises(InputError, match="lang=en-de says the target language is de.*written in Han script"):
            docmetrics.load("bleu:lang=en-de").compute(cjk["en-ja_JP"].testset)


def test_the_pair_changes_the_number_as_sacrebleu_l_does(cjk):
    """The score is sacrebleu's with the target language's tokenizer (BLEU(trg_lang=...)), not 13a's."""
    from sacrebleu.metrics import BLEU

    data = cjk["en-zh_CN"]
    system = next(iter(data.testset.systems))
    mine = docmetrics.load("bleu").compute(data.testset)[0].score
    sacre = BLEU(trg_lang="zh").corpus_score(data.testset.systems[system], [data.testset.references]).score
    plain = BLEU().corpus_score(data.testset.systems[system], [data.testset.references]).score
    assert mine == pytest.approx(sacre, abs=1e-9) and abs(sacre - plain) > 1


def test_chrf_takes_no_pair_and_one_metric_scores_two_pairs(cjk):
    chrf = docmetrics.load("chrf")
    assert chrf.for_langpair("en-ja_JP") is chrf  # sacrebleu gives chrF and TER no language-dependent default
    bleu = docmetrics.load("bleu")
    ja, zh = signature(bleu, cjk["en-ja_JP"]), signature(bleu, cjk["en-zh_CN"])
    assert "tokenize:ja-mecab" in ja and "tokenize:zh" in zh
    assert "tokenize:13a" in str(bleu.signature())  # the metric itself is unchanged; each pair has its own
    assert bleu.for_langpair("en-zh_CN") is bleu.for_langpair("en-zh_CN")  # built once per pair


# -- meta_evaluate: the human data's documents -------------------------------------------------------------------
def test_results_of_another_test_set_are_refused_naming_both(cjk):
    results = docmetrics.load("chrf").compute(cjk["en-zh_CN"].testset)
    with pytest.raises(InputError) as exc:
        docmetrics.meta_evaluate({"chrf": results}, cjk["en-ja_JP"])
    text = str(exc.value)
    assert "'en-zh_CN_#_news_#_doc0'" in text and "'en-ja_JP_#_news_#_doc0'" in text and "none of which" in text
    assert "compute(data.testset)" in text


def test_results_of_part_of_the_documents_warn_with_the_coverage(cjk):
    data = cjk["en-ja_JP"]
    results = docmetrics.load("chrf").compute(first_half(data.testset))
    with pytest.warns(DocMetricsWarning, match=r"share 2 documents: 2 of the 2 scored \(100.0%\), 2 of the 5 judged "
                                               r"\(40.0%; first not scored: 'en-ja_JP_#_news_#_doc2'\)"):
        docmetrics.meta_evaluate({"chrf": results}, data, significance=0)


def test_results_of_the_human_datas_own_test_set_say_nothing(cjk):
    data = cjk["en-ja_JP"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DocMetricsWarning)
        docmetrics.meta_evaluate({"chrf": docmetrics.load("chrf").compute(data.testset)}, data, significance=0)


# -- autorank ----------------------------------------------------------------------------------------------------
NAN = float("nan")
AUTORANK_ROWS = [
    ("the issue's case", {"m": {"A": NAN, "B": 1.0}}, r"metric 'm': system 'A' has no finite score \(nan\)"),
    ("the second metric", {"m": {"A": 2.0, "B": 1.0}, "n": {"A": 1.0, "B": NAN}}, r"metric 'n': system 'B'"),
    ("infinity", {"m": {"A": float("inf"), "B": 1.0}}, r"system 'A' has no finite score \(inf\)"),
    ("several", {"m": {"A": NAN, "B": NAN, "C": 1.0}}, r"system 'A' .*2 systems have none"),
]


@pytest.mark.parametrize("case, scores, message", AUTORANK_ROWS, ids=[r[0] for r in AUTORANK_ROWS])
def test_autorank_refuses_a_score_that_is_no_number(case, scores, message):
    with pytest.raises(InputError, match=message):
        docmetrics.autorank(scores)


# -- write_report over its own input -----------------------------------------------------------------------------
def human_tsv_case(tmp_path: Path) -> tuple[Path, Any, dict[str, Any]]:
    human = tmp_path / "human.tsv"
    human.write_text("system\tscore\nA\t3\nB\t2\nC\t1\n", encoding="utf-8")
    data = docmetrics.read_human(human)
    testset = TestSet({"A": ["a b c d"], "B": ["a b x d"], "C": ["x y z"]}, references=["a b c d"])
    chrf = docmetrics.load("chrf").compute(testset)
    return human, docmetrics.meta_evaluate({"chrf": chrf}, data), {}


def genmt_case(tmp_path: Path) -> tuple[Path, Any, dict[str, Any]]:
    path = write_cjk_genmt(tmp_path / "zh.jsonl", "en-zh_CN")
    data = docmetrics.read_human(path)
    chrf = docmetrics.load("chrf").compute(data.testset)
    return path, docmetrics.meta_evaluate({"chrf": chrf}, data, significance=0), {}


def files_case(tmp_path: Path) -> tuple[Path, Any, dict[str, Any]]:
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("a b c\n", encoding="utf-8")
    ref.write_text("a b d\n", encoding="utf-8")
    from docmetrics.values.io import read_testset

    testset = read_testset([str(hyp)], None, [str(ref)], None)
    chrf = docmetrics.load("chrf").compute(testset)
    return ref, None, {"results": {"chrf": chrf}, "testset": testset}


REPORT_ROWS = [("the issue's human.tsv", human_tsv_case, "the human scores of meta-evaluation 1"),
               ("a GenMT file", genmt_case, "the human scores of meta-evaluation 1"),
               ("a file of the test set", files_case, "the test set's reference")]


@pytest.mark.parametrize("case, make, what", REPORT_ROWS, ids=[r[0] for r in REPORT_ROWS])
def test_write_report_refuses_to_write_over_what_it_read(tmp_path, case, make, what):
    path, ev, options = make(tmp_path)
    before = path.read_bytes()
    with pytest.raises(InputError, match=f"is .*{what}.*give another file name"):
        docmetrics.write_report(path, *([ev] if ev is not None else []), **options)
    assert path.read_bytes() == before
    other = tmp_path / "report.html"
    assert docmetrics.write_report(other, *([ev] if ev is not None else []), **options) > 0


def test_write_report_refuses_the_same_file_under_another_name(tmp_path):
    path, ev, _ = human_tsv_case(tmp_path)
    link = tmp_path / "link.tsv"
    link.symlink_to(path)
    with pytest.raises(InputError, match="which was read"):
        docmetrics.write_report(link, ev)


def test_the_command_refuses_its_report_over_an_input_as_before(tmp_path, capsys):
    human, _, _ = human_tsv_case(tmp_path)
    code, _, err = run_cli(capsys, "-m", "chrf", "-i", human, "-r", human, "--report", human)
    assert code == 2 and "it would be written over" in err


# -- --wmt26 with every hypothesis empty ---------------------------------------------------------------------------
def empty_systems(tmp_path: Path) -> Path:
    folder = tmp_path / "systems"
    folder.mkdir()
    for name in ("Nemo", "UEdin"):
        rows = [json.loads(line) for line in (WMT26 / "systems" / f"{name}.jsonl").read_text(encoding="utf-8")
                .splitlines() if line.strip()]
        text = "".join(json.dumps({**r, "hypothesis": "" if name == "Nemo" else r["hypothesis"]}) + "\n" for r in rows)
        (folder / f"{name}.jsonl").write_text(text, encoding="utf-8")
    return folder


def test_wmt26_warns_of_a_system_whose_every_hypothesis_is_empty(tmp_path, capsys):
    folder = empty_systems(tmp_path)
    code, out, err = run_cli(capsys, "-m", "chrf", "--wmt26", WMT26 / "wmt26-genmt.jsonl", "--wmt26-systems", folder,
                             "-l", "en-de", "--wmt26-ref", "refA")
    assert code == 0
    said = [line for line in err.splitlines() if "every line is empty" in line]
    assert len(said) == 1 and "Nemo.jsonl" in said[0] and said[0].startswith("docmetrics: warning: ")


def test_the_i_path_says_it_in_the_same_words(tmp_path, capsys):
    hyp, ref = tmp_path / "Nemo.txt", tmp_path / "ref.txt"
    hyp.write_text("\n\n", encoding="utf-8")
    ref.write_text("a\nb\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "-m", "chrf", "-i", hyp, "-r", ref)
    assert code == 0
    (said,) = [line for line in err.splitlines() if "every line is empty" in line]
    assert said.startswith("docmetrics: warning: ") and "so the system output looks missing" in said


def test_the_python_reader_warns_the_same(tmp_path):
    folder = empty_systems(tmp_path)
    with pytest.warns(UserWarning, match="Nemo.jsonl: every line is empty"):
        data = docmetrics.read_human(WMT26 / "wmt26-genmt.jsonl", format="wmt26", systems=str(folder), lp="en-de",
                                     references=["refA"])
    assert data.testset.lp == "en-de" and any("every line is empty" in w for w in data.testset.warnings)



def test_a_raw_mqm_file_read_with_lp_carries_it(tmp_path):
    data = docmetrics.read_human(ROOT / "docmetrics" / "data" / "ted" / "mqm.tsv", lp="en-de")
    assert data.testset.lp == "en-de"
    assert docmetrics.read_human(ROOT / "docmetrics" / "data" / "ted" / "mqm.tsv").testset.lp is None


# -- a backbone's lang= takes the pair too (a third party's, registered as pip would lay it out) -------------------
LANG_BACKBONE = '''
from docmetrics.plugin.backbone import QE, Backbone, BackboneOutput
from docmetrics.values.params import Param


class LangBackbone(Backbone):
    """Scores every unit with the length of its lang= (0 for none): which pair it was built with."""
    description = "toy: the pair it was built with, as a score"
    default_model = "lang-v1"
    params = (Param("lang", str, None, "language pair SRC-TGT"),)

    def load(self):
        pass

    @property
    def capabilities(self):
        return frozenset({QE})

    def score(self, units):
        lang = self.p.get("lang") or ""
        return BackboneOutput([float(len(lang)) for _ in units], [False for _ in units])

    def fingerprint(self):
        return "lang0"
'''


@pytest.fixture(scope="module")
def lang_backbone(tmp_path_factory: pytest.TempPathFactory):
    import sys

    from plugin_fixtures import write_distribution

    from docmetrics.plugin import registry

    root = write_distribution(tmp_path_factory.mktemp("site"), "docmetrics-langtoy", "1.0",
                              {"docmetrics_langtoy/__init__.py": LANG_BACKBONE},
                              "[docmetrics.backbones]\nlangtoy = docmetrics_langtoy:LangBackbone\n")
    sys.path.insert(0, str(root))
    registry.refresh()
    yield "slide:w=1,s=1,backbone=langtoy"
    sys.path.remove(str(root))
    sys.modules.pop("docmetrics_langtoy", None)
    registry.refresh()


@pytest.mark.parametrize("spec, expected", [("", len("en-ja_JP")), (",lang=en-de", len("en-de"))],
                         ids=["the test set's pair", "a stated pair wins"])
def test_a_backbones_lang_takes_the_pair_as_the_command_gives_it(lang_backbone, tmp_path, capsys, spec, expected):
    path = write_cjk_genmt(tmp_path / "ja.jsonl", "en-ja_JP")
    data = docmetrics.read_human(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DocMetricsWarning)
        results = docmetrics.load(lang_backbone + spec).compute(data.testset)
    assert {r.score for r in results} == {float(expected)}
    code, out, err = run_cli(capsys, "--genmt", path, "-m", lang_backbone + spec, "--resamples", "0", "-f", "json")
    assert code == 0, err
    assert json.loads(out)[0]["metric_scores"] == [r.score for r in results]


def test_a_metric_subclass_with_its_own_compute_scores_with_the_test_sets_pair():
    """A plugin metric that overrides compute (without calling the base class's) is handed the metric built
    for the test set's language pair too: the pair is taken where every compute is defined, not in each."""
    from docmetrics_metrics.sacrebleu_metrics.metric import BleuMetric

    class OwnCompute(BleuMetric):
        def compute(self, testset, scorer=None):
            return [self.p.get("lang")]  # what a plugin's own compute sees

    data = docmetrics.read_human("docmetrics/data/genmt/ted-ende.jsonl")
    assert data.testset.lp
    assert OwnCompute().compute(data.testset) == [data.testset.lp]
    assert OwnCompute(lang="en-de").compute(data.testset) == ["en-de"]  # a stated pair wins
