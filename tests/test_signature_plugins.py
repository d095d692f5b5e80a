"""Signatures name every plugin (issue 45, guard 2): a metric's signature records the distribution and version of
each third-party plugin that took part (metric, backbone, aligner, segmenter) in its field ``plugins``, first-party
signatures stay as they were, and loading a signature back warns, naming the field, where the installed
distribution's version differs or the distribution is missing.

The plugins are docs/plugins.md's own examples (the length-ratio backbone, the whole-doc metric), installed as
distributions the way pip lays them out (tests/plugin_fixtures.py), plus a comma segmenter."""

from __future__ import annotations

import contextlib
import re
import sys
import warnings
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from plugin_fixtures import write_distribution

import docmetrics
from docmetrics.plugin import registry
from docmetrics.values.errors import DocMetricsWarning, PluginError, SpecError
from docmetrics.values.signature import SigField, Signature, parse_plugins_value, parse_signature, plugins_value

PLUGINS_MD = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
METRIC_DIST, METRIC_VERSION = "my.metric_dist-x", "1.0.0rc1+local"  # a name with . _ -, a local pre-release
SEG_DIST, SEG_VERSION = "toy_seg-dist", "3.1"
COMMA_SEGMENTER = '''
from docmetrics.plugin.segmenter import Segmenter


class CommaSegmenter(Segmenter):
    version = "7"

    def split(self, text, lang=None):
        return [p for p in text.split(",") if p.strip()]
'''
SRC = ["a b c, d e", "f g h i", "j k, l", "m n o p q"]
HYP = ["x y, z", "w v u", "t, s r q", "p o"]
IDS = ["d1", "d1", "d2", "d2"]
MODULES = ("my_backbone", "my_metric", "toy_sigseg")


def _block_after(heading: str) -> str:
    text = PLUGINS_MD.read_text(encoding="utf-8")
    return re.search(r"```python\n(.*?)```", text[text.index(heading):], re.S).group(1)


@contextlib.contextmanager
def installed(root: Path, toy: str | None = "7.7.7", metric: bool = True, segmenter: bool = True):
    """docs/plugins.md's backbone as ``toy-dist`` at version ``toy`` (not installed where None), its metric as
    METRIC_DIST and a comma segmenter as SEG_DIST, on sys.path in this process; each call a fresh folder (so
    an installed version is never read from a stale metadata cache) and fresh modules."""
    if toy is not None:
        write_distribution(root, "toy-dist", toy, {"my_backbone/__init__.py": _block_after("## Writing a backbone")},
                           "[docmetrics.backbones]\nlength-ratio = my_backbone:LengthRatio\n")
    if metric:
        write_distribution(root, METRIC_DIST, METRIC_VERSION, {"my_metric/__init__.py": _block_after(
            "## Writing a metric")}, "[docmetrics.metrics]\nwhole-doc = my_metric:WholeDocument\n")
    if segmenter:
        write_distribution(root, SEG_DIST, SEG_VERSION, {"toy_sigseg/__init__.py": COMMA_SEGMENTER},
                           "[docmetrics.segmenters]\ncomma = toy_sigseg:CommaSegmenter\n")
    root.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(root))
    registry.refresh()
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        for mod in [m for m in sys.modules if m.split(".")[0] in MODULES]:
            del sys.modules[mod]
        registry.refresh()


def ratio(mt: str, src: str) -> float:
    """The length-ratio backbone's score of one unit, power 1 (docs/plugins.md), computed here."""
    return min(len(mt), len(src)) / max(len(mt), len(src), 1)


def score(spec: str):
    return docmetrics.load(spec, cache=None).score(HYP, sources=SRC, doc_ids=IDS)


def quietly_load(spec: str):
    """``docmetrics.load(spec)`` and the DocMetricsWarnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metric = docmetrics.load(spec, cache=None)
    return metric, [str(w.message) for w in caught if issubclass(w.category, DocMetricsWarning)]


SLIDE = ("slide|w:1|s:1|partial:drop|backbone:length-ratio|model:length-ratio-v1|fingerprint:0000000000|power:1|"
         "precision:fp32")
BEFORE = f"{SLIDE}|v:0.3.0"  # what 0.3.0 printed: no word of the plugin's distribution
AFTER = f"{SLIDE}|plugins:toy-dist@7.7.7|v:0.3.0"


def test_the_docs_backbone_signature_names_its_distribution_and_version(tmp_path):
    with installed(tmp_path / "site"):
        result = score("slide:w=1,s=1,backbone=length-ratio")
        assert str(result.signature) == AFTER
        assert result.signature.format(short=True).endswith("|pr:fp32|pl:toy-dist@7.7.7|v:0.3.0")
        assert result.score == pytest.approx(sum(ratio(h, s) for h, s in zip(HYP, SRC)) / 4, abs=1e-12)


def test_metric_and_backbone_of_two_distributions_are_both_named_escaping_round_trips(tmp_path):
    with installed(tmp_path / "site"):
        result = score("whole-doc:backbone=length-ratio")
        field = f"plugins:{METRIC_DIST}@{METRIC_VERSION};toy-dist@7.7.7"
        assert str(result.signature) == ("whole-doc|by_length:yes|backbone:length-ratio|model:length-ratio-v1|"
                                         f"fingerprint:0000000000|power:1|precision:fp32|{field}|v:0.3.0")
        parsed = parse_signature(str(result.signature))
        assert parse_plugins_value(parsed.get("plugins")) == {METRIC_DIST: METRIC_VERSION, "toy-dist": "7.7.7"}
        metric, said = quietly_load(str(result.signature))
        assert said == []
        again = metric.score(HYP, sources=SRC, doc_ids=IDS)
        assert str(again.signature) == str(result.signature) and again.score == result.score


def test_a_third_party_segmenter_and_aligner_are_named(tmp_path):
    with installed(tmp_path / "site"):
        result = score("asd:backbone=length-ratio,aligner=length-ratio,segmenter=comma,chunks=1")
        sig = str(result.signature)
        assert "|segmenter:comma|segmenter_version:7|" in sig
        assert sig.endswith(f"|plugins:toy-dist@7.7.7;{SEG_DIST}@{SEG_VERSION}|v:0.3.0")
        rules = score("asd:backbone=length-ratio,aligner=length-ratio,segmenter=rules,chunks=1")
        assert str(rules.signature).endswith("|plugins:toy-dist@7.7.7|v:0.3.0")  # the rules segmenter is ours
        _, said = quietly_load(sig)
        assert said == []
    with installed(tmp_path / "site2", toy="7.7.8"):
        _, said = quietly_load(sig)
        assert said == ["this run differs from the signature it was given in: plugins: signature has toy-dist 7.7.7, "
                        "this run has toy-dist 7.7.8; pip install 'toy-dist==7.7.7' reproduces it"]


@pytest.mark.parametrize("spec", ["chrf", "bleu", "slide:w=2,s=1,backbone=comet,model=x", "asd"])
def test_first_party_plugins_add_no_field(spec):
    """Every plugin of these ships in docmetrics: no field, so 0.3.0's signatures and the goldens stay."""
    metric = docmetrics.load(spec, cache=None)
    assert metric.plugin_versions() == {} and metric.plugin_fields() == []
    assert all(registry.origin_of(p).first_party for p in metric.plugins_involved())


def test_chrf_signature_is_as_0_3_0_printed_it():
    from sacrebleu import __version__ as sacrebleu_version

    result = docmetrics.load("chrf", cache=None).score(["a b c"], references=["a b d"], doc_ids=["d"])
    assert str(result.signature) == ("chrf|char_order:6|word_order:0|beta:2|lowercase:no|whitespace:no|"
                                     f"eps_smoothing:no|nrefs:1|sacrebleu:{sacrebleu_version}|v:0.3.0")


def test_parse_back_warns_naming_the_field_when_the_installed_version_differs(tmp_path, capsys):
    files = {}
    for name, lines in {"src": SRC, "hyp": HYP, "ids": IDS}.items():
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    argv = ("-i", files["hyp"], "-s", files["src"], "--doc-ids", files["ids"])
    with installed(tmp_path / "site"):
        code, out, err = run_cli(capsys, "-m", "slide:w=1,s=1,backbone=length-ratio", *argv, "-q")
        assert code == 0 and out.split(" = ")[0] == AFTER and err == ""
        number = out.split(" = ")[1].split()[0]
        code, out, err = run_cli(capsys, "-m", AFTER, *argv, "-q")  # the same version: silent
        assert code == 0 and out.startswith(f"{AFTER} = {number} ") and err == ""
        code, out, err = run_cli(capsys, "-m", BEFORE, *argv, "-q")  # 0.3.0's signature still loads, silent
        assert code == 0 and out.startswith(f"{AFTER} = {number} ") and err == ""
    with installed(tmp_path / "site-7.7.8", toy="7.7.8"):
        code, out, err = run_cli(capsys, "-m", AFTER, *argv, "-q")
        assert code == 0 and out.startswith(f"{AFTER.replace('7.7.7', '7.7.8')} = {number} ")
        assert err == ("docmetrics: warning: this run differs from the signature it was given in: plugins: signature "
                       "has toy-dist 7.7.7, this run has toy-dist 7.7.8; pip install 'toy-dist==7.7.7' reproduces "
                       "it\n")
        with pytest.warns(DocMetricsWarning, match=r"plugins: signature has toy-dist 7\.7\.7, this run has toy-dist "
                                                    r"7\.7\.8"):
            docmetrics.load(AFTER, cache=None)
    with installed(tmp_path / "site-none", toy=None):
        code, out, err = run_cli(capsys, "-m", AFTER, *argv, "-q")
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "Traceback" not in err
        assert "unknown backbone 'length-ratio'" in err
        assert "the signature's field plugins names toy-dist 7.7.7, which is not installed: pip install " \
               "'toy-dist==7.7.7'" in err
        with pytest.raises(PluginError, match="field plugins names toy-dist 7.7.7, which is not installed"):
            docmetrics.load(AFTER, cache=None)


@pytest.mark.parametrize("field, said", [
    ("plugins:toy-dist@7.7.7;ghost-dist@1.0",
     "plugins: signature has ghost-dist 1.0, which is not installed; pip install 'ghost-dist==1.0' reproduces it"),
    (f"pl:toy-dist@7.7.7;{SEG_DIST}@{SEG_VERSION}",  # the short key; the segmenter is installed but not used
     f"plugins: signature has {SEG_DIST} {SEG_VERSION}; this run uses no plugin of it (installed: {SEG_VERSION})"),
    (f"plugins:{METRIC_DIST}@{METRIC_VERSION}",  # installed, but slide is ours; the backbone's is left out
     f"plugins: signature has {METRIC_DIST} {METRIC_VERSION}; this run uses no plugin of it (installed: "
     f"{METRIC_VERSION}); plugins: this run has toy-dist 7.7.7, which the signature does not name"),
    ("plugins:Toy_Dist@7.7.7", None),  # pip's spelling of one name: the same distribution
])
def test_each_difference_of_the_plugins_field_is_one_phrase(tmp_path, field, said):
    with installed(tmp_path / "site"):
        _, warned = quietly_load(f"{SLIDE}|{field}|v:0.3.0")
    assert warned == ([f"this run differs from the signature it was given in: {said}"] if said else [])


@pytest.mark.parametrize("versions", [
    {"toy-dist": "7.7.7"},
    {"my.dist_x-Y": "1.0.0rc1+local", "a": "0!1.0.post2.dev3"},
    {"odd": "1.0;beta@2 | 50% ,=x"},  # not PEP 440, but metadata says so: it must still round-trip
])
def test_plugins_field_round_trips_through_format_and_parse(versions):
    sig = Signature("slide", [SigField("w", "w", "1"), SigField("plugins", "pl", plugins_value(versions), False)],
                    "0.3.0")
    for short in (False, True):
        parsed = parse_signature(sig.format(short=short))
        assert parse_plugins_value(parsed.get("plugins", "pl")) == versions
        assert parsed.format() == sig.format(short=short)


@pytest.mark.parametrize("field", ["plugins:toy-dist", "plugins:@1.0", "plugins:toy-dist@", "pl:a@1;;b@2",
                                   "plugins:a@1;b"])
def test_a_malformed_plugins_field_names_the_field(field):
    with pytest.raises(SpecError, match=r"signature field (plugins|pl): '.*' is not DISTRIBUTION@VERSION"):
        parse_signature(f"{SLIDE}|{field}|v:0.3.0")


def test_the_field_is_a_fact_not_a_parameter_and_a_subclass_is_not_credited_to_its_base(tmp_path):
    with installed(tmp_path / "site"):
        base = registry.load("backbone", "length-ratio")

        class Mine(base):  # defined here, registered by no distribution
            pass

        assert registry.origin_of(base).distribution == "toy-dist"
        assert registry.origin_of(Mine) is None
        # not yet loaded through the registry: found by its entry point's target, from metadata alone
        sys.modules.pop("my_metric", None)
        import my_metric

        assert registry.origin_of(my_metric.WholeDocument).dist_version == METRIC_VERSION


def test_the_signature_docs_plugins_md_shows_is_the_one_printed(tmp_path, capsys):
    text = PLUGINS_MD.read_text(encoding="utf-8")
    shown = re.search(r"Its signature names your distribution.*?```text\n(.*?)\n```", text, re.S).group(1)
    root = write_distribution(tmp_path / "site", "my-backbone", "1.0", {
        "my_backbone/__init__.py": _block_after("## Writing a backbone")},
        "[docmetrics.backbones]\nlength-ratio = my_backbone:LengthRatio\n")
    sys.path.insert(0, str(root))
    registry.refresh()
    try:
        metric = docmetrics.load("slide:w=4,s=2,backbone=length-ratio,power=2", cache=None)
        assert str(metric.score(HYP * 2, sources=SRC * 2, doc_ids=["d"] * 8).signature) == shown
    finally:
        sys.path.remove(str(root))
        sys.modules.pop("my_backbone", None)
        registry.refresh()


def test_the_score_cache_never_answers_an_upgraded_plugin_with_its_old_scores(tmp_path):
    """The signature says 7.7.8: its scores must be 7.7.8's, not 7.7.7's read back from the score cache."""
    from docmetrics.runtime import cache

    path, spec = tmp_path / "scores.sqlite", "slide:w=1,s=1,backbone=length-ratio"

    def run(site: str, toy: str) -> tuple[int, int, str, dict]:
        with installed(tmp_path / site, toy=toy), cache.ScoreCache(path) as c:
            metric = docmetrics.load(spec, cache=c)
            metric.score(HYP, sources=SRC, doc_ids=IDS)
            return c.stats.hits, c.stats.scored, c.key_for(metric.backbone), \
                cache.backbone_identity(metric.backbone)

    hits, scored, key, identity = run("a", "7.7.7")
    assert (hits, scored) == (0, 4) and identity["distribution"] == "toy-dist 7.7.7"
    assert run("b", "7.7.7")[:3] == (4, 0, key)  # the same version: answered from the cache
    hits, scored, other, identity = run("c", "7.7.8")
    assert (hits, scored) == (0, 4) and other != key and identity["distribution"] == "toy-dist 7.7.8"


def test_a_first_party_backbone_key_has_no_distribution():
    from docmetrics.runtime import cache

    backbone = docmetrics.load("slide:w=2,s=1,backbone=comet,model=x", cache=None).backbone
    backbone.fingerprint = lambda: "0" * 10  # no model here: what the key holds is the question, not the weights
    assert "distribution" not in cache.backbone_identity(backbone)
