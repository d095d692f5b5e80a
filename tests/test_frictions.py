"""Where a sacrebleu or COMET user's habits meet docmetrics (issue 22), one row per finding: the command
as typed, its exit status, what stderr / stdout must say and must not say.  Rows run on the toy backbone
(no model) and sacrebleu's metrics; the tests after the tables check the numbers behind the rows
against sacrebleu itself."""

from __future__ import annotations

import json
import re

import pytest
from cli_fixtures import run_cli as run
from plugin_fixtures import toy_dist  # noqa: F401

from docmetrics.plugin import registry
from docmetrics.values.errors import InputError

pytestmark = pytest.mark.usefixtures("toy_dist")

TOY = "slide:w=2,s=1,backbone=toy"


@pytest.fixture()
def files(tmp_path, monkeypatch):
    """Three documents of 2, 3 and 1 lines, two systems, two references; the working directory is
    the folder that holds them, so rows can name files as a user types them (ref.txt)."""
    texts = {
        "src.txt": ["Das ist gut.", "Es regnet heute.", "Wir gehen nach Hause.", "Der Hund schläft.",
                    "Ein neuer Tag.", "Das Ende."],
        "hyp.txt": ["This is good.", "It rains today.", "We go home.", "The dog sleeps.", "A new day.",
                    "The end."],
        "hypB.txt": ["That is fine.", "It is raining.", "We walk home now.", "Dog sleeping.", "New day.",
                     "End."],
        "ref.txt": ["This is good.", "It is raining today.", "We are going home.", "The dog is sleeping.",
                    "A new day.", "The end."],
        "ref2.txt": ["That is good.", "Today it rains.", "We go home.", "The dog sleeps.", "A new day begins.",
                     "This is the end."],
        "ids.txt": ["d1", "d1", "d2", "d2", "d2", "d3"],
        "short.txt": ["a", "b", "c", "d", "e"],
    }
    for name, lines in texts.items():
        (tmp_path / name).write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return {"dir": tmp_path, **{name: lines for name, lines in texts.items()}}


# (id, argv, exit status, what stderr+stdout must contain, what they must not contain)
PARAMETER_ROWS = [
    ("unknown-before-cross-check", ["-m", "slide:w=2,stride=1,backbone=toy", "-i", "hyp.txt", "-s", "src.txt"], 2,
     ["slide: unknown parameter 'stride'; did you mean 's' (stride)? allowed: w, s, partial, backbone, model"],
     ["must be <="]),
    ("unknown-listed-together", ["-m", "slide:w=2,stride=1,windw=3,backbone=toy", "-i", "hyp.txt", "-s", "src.txt"],
     2, ["unknown parameters 'stride', 'windw'"], ["must be <="]),
    ("unknown-close-name", ["-m", "bleu:smooth_methd=floor", "-i", "hyp.txt", "-r", "ref.txt"], 2,
     ["bleu: unknown parameter 'smooth_methd'; did you mean 'smooth_method'?"], []),
    ("hyphen-is-underscore", ["-m", "bleu:smooth-method=floor,smooth-value=0.2", "-i", "hyp.txt", "-r", "ref.txt",
                              "--doc-ids", "ids.txt"], 0, ["bleu|tokenize:13a|lowercase:no|smooth_method:floor"], []),
    ("given-twice-two-spellings", ["-m", "bleu:smooth-method=floor,smooth_method=exp", "-i", "hyp.txt", "-r",
                                   "ref.txt"], 2,
     ["bleu: parameter 'smooth_method' is given twice (as 'smooth-method' and 'smooth_method')"], []),
    ("preset-named-in-cross-check", ["-m", "slide-wmt23:w=2,backbone=toy", "-i", "hyp.txt", "-s", "src.txt"], 2,
     ["parameter 's' (6) must be <= 'w' (2)", "(in the preset slide-wmt23 = slide:w=6,s=6,",
      "from signatures/slide-wmt23.yaml; given: slide-wmt23:w=2,backbone=toy)"], []),
    ("preset-named-for-unknown", ["-m", "cometkiwi:stride=2,backbone=toy", "-i", "hyp.txt", "-s", "src.txt"], 2,
     ["unknown parameter 'stride'", "(in the preset cometkiwi = slide:w=1,s=1,"], []),
]


def check_row(capsys, argv, code, present, absent):
    got, out, err = run(capsys, *argv)
    text = err + out
    assert got == code, text
    assert "Traceback" not in text
    for piece in present:
        assert piece in text, text
    for piece in absent:
        assert piece not in text, text
    if code == 2:
        assert err.count("\n") == 1 and out == "", err  # one line, nothing on stdout


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in PARAMETER_ROWS],
                         ids=[r[0] for r in PARAMETER_ROWS])
def test_parameters(files, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


def test_a_bad_preset_file_is_named(files, capsys, tmp_path, monkeypatch):
    folder = tmp_path / "presets"
    folder.mkdir()
    (folder / "mine.yaml").write_text("name: mine\nspec: slide:w=x,backbone=toy\n", encoding="utf-8")
    monkeypatch.setenv("DOCMETRICS_PRESETS", str(folder))
    code, out, err = run(capsys, "-m", "mine", "-i", "hyp.txt", "-s", "src.txt")
    assert code == 2 and err.count("\n") == 1
    assert "parameter 'w' has value 'x'" in err and "(in the preset mine = slide:w=x,backbone=toy, from " in err
    assert str(folder / "mine.yaml") in err


# -- one name, one spelling ------------------------------------------------------------------------------------
CONTEXT_ROWS = [
    # (metric, spec parameters, the value the metric reads, the signature field as 0.3.0 printed it)
    ("doc-comet", {"hyp_context": "mt"}, "mt", "hyp-context:mt"),
    ("doc-comet", {"hyp-context": "mt"}, "mt", "hyp-context:mt"),
    ("doc-comet", {"context": "hyp"}, "mt", "hyp-context:mt"),
    ("doc-bertscore", {"hyp_context": "mt"}, "mt", "hyp-context:mt"),
    ("doc-bertscore", {"hyp-context": "ref"}, "ref", "hyp-context:ref"),
    ("doc-prism", {"hyp_context": "mt"}, "hyp", "context:hyp"),
    ("doc-prism", {"context": "hyp"}, "hyp", "context:hyp"),
    ("doc-prism", {"hyp-context": "ref"}, "ref", "context:ref"),
]


@pytest.mark.parametrize("metric,params,value,field", CONTEXT_ROWS,
                         ids=[f"{r[0]}-{next(iter(r[1]))}" for r in CONTEXT_ROWS])
def test_one_name_for_whose_context_the_hypothesis_gets(metric, params, value, field):
    cls = registry.load("metric", metric)
    cls.check_params(params)
    m = cls(None, **{k.replace("-", "_"): v for k, v in params.items()})
    assert m.p["hyp_context"] == value
    fields = [f"{f.key}:{f.value}" for f in m.metric_fields()]
    assert field in fields  # signatures print what 0.3.0 printed: they parse back unchanged
    assert m.param_values()[field.split(":")[0]] == value


def test_the_describe_text_names_the_spellings(capsys):
    code, out, _ = run(capsys, "--describe", "doc-prism")
    assert code == 0
    assert re.search(r"hyp_context +str +default ref +one of ref, hyp \(mt = hyp\)", out)
    assert "also spelled: context (the signature prints context)" in out


@pytest.mark.parametrize("metric,key,name", [("doc-bertscore", "hyp-context", "hyp_context"),
                                             ("doc-prism", "context", "hyp_context"),
                                             ("bleu", "smooth-method", "smooth_method"),
                                             ("asd", "aligner-model", "aligner_model"),
                                             ("slide", "p", "partial")])
def test_a_signature_key_finds_its_parameter(metric, key, name):
    """What signatures of 0.3.0 print (hyp-context, context, short keys) finds the parameter."""
    from docmetrics.values.params import find_param

    assert find_param(registry.load("metric", metric).params, key).name == name


def json_of(capsys, argv):
    code, out, err = run(capsys, *argv, "-f", "json")
    assert code == 0, err
    return json.loads(out)


# -- sacrebleu's and COMET's spellings ------------------------------------------------------------------------
SPELLING_ROWS = [
    ("positional-reference-first", ["ref.txt", "-i", "hyp.txt", "-m", "bleu"], 2,
     ["docmetrics takes the reference as -r FILE: docmetrics -i hyp.txt -m bleu -r ref.txt"], ["subcommand"]),
    ("positional-references-first", ["ref.txt", "ref2.txt", "-i", "hyp.txt", "-m", "bleu"], 2,
     ["docmetrics -i hyp.txt -m bleu -r ref.txt ref2.txt"], []),
    ("positional-reference-after-m", ["-i", "hyp.txt", "-m", "bleu", "ref.txt"], 2,
     ["docmetrics takes the reference as -r FILE: docmetrics -m bleu -i hyp.txt -r ref.txt"], ["unknown metric"]),
    ("not-a-file-is-still-a-subcommand", ["sweeep", "-m", "bleu"], 2, ["unknown subcommand 'sweeep'"], []),
    ("tok", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-tok", "intl"], 2,
     ["-tok is not a docmetrics option", "-m bleu:tokenize=intl"], ["unrecognized"]),
    ("tokenize=", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--tokenize=char"], 2, ["-m bleu:tokenize=char"],
     []),
    ("lc", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-lc"], 2, ["-m bleu:lowercase=yes"], []),
    ("smooth-method", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--smooth-method", "floor"], 2,
     ["-m bleu:smooth_method=floor"], []),
    ("smooth-value", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-sv", "0.2"], 2,
     ["-m bleu:smooth_method=floor,smooth_value=0.2"], []),
    ("c", ["-m", "chrf", "-i", "hyp.txt", "-r", "ref.txt", "-c"], 2, ["-m chrf:char_order=6,word_order=2"], []),
    ("chrf-word-order", ["-m", "chrf", "-i", "hyp.txt", "-r", "ref.txt", "--chrf-word-order", "2"], 2,
     ["-m chrf:word_order=2"], []),
    ("cw", ["-m", "chrf", "-i", "hyp.txt", "-r", "ref.txt", "-cw", "2"], 2, ["-m chrf:word_order=2"], []),
    ("chrf-whitespace", ["-m", "chrf", "-i", "hyp.txt", "-r", "ref.txt", "--chrf-whitespace"], 2,
     ["-m chrf:whitespace=yes"], []),
    ("ter-normalized", ["-m", "ter", "-i", "hyp.txt", "-r", "ref.txt", "--ter-normalized"], 2,
     ["-m ter:normalized=yes"], []),
    ("sentence-level", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--sentence-level"], 2,
     ["use --level seg"], []),
    ("sl", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-sl"], 2, ["use --level seg"], []),
    ("test-set", ["-m", "bleu", "--test-set", "wmt23"], 2, ["downloads no test set", "--mtme ROOT -t TESTSET"], []),
    ("language-pair", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--language-pair", "en-de"], 2,
     ["use -l SRC-TGT"], []),
    ("origlang", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-ol", "en"], 2, ["by original language"], []),
    ("num-refs", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-nr", "2"], 2, ["-r ref1.txt ref2.txt"], []),
    ("encoding", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-e", "latin-1"], 2, ["docmetrics reads UTF-8"],
     []),
    ("comet-enable-context", ["-m", "comet", "-i", "hyp.txt", "--enable-context"], 2, ["-m doc-comet:k=2"], []),
    ("comet-num-workers", ["-m", "comet", "-i", "hyp.txt", "--num_workers", "2"], 2, ["use --workers N"], []),
    ("preset-cometkiwi", ["-m", "cometkiwi:backbone=toy", "-i", "hyp.txt", "-s", "src.txt", "--doc-ids", "ids.txt"],
     0, ["slide|w:1|s:1|partial:drop|backbone:toy"], []),
    ("preset-listed", ["--list"], 0,
     ["comet                      = doc-comet:k=0,backbone=comet,model=Unbabel/wmt22-comet-da",
      "cometkiwi                  = slide:w=1,s=1,", "xcomet                     = slide:w=1,s=1,"], []),
    ("preset-beside-backbone", ["--describe", "comet"], 0,
     ["preset comet = doc-comet:k=0", "comet is also a backbone: docmetrics --describe comet@docmetrics"], []),
    ("sacrebleu-signature", ["-m", "BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0", "-i", "hyp.txt",
                             "-r", "ref.txt", "--doc-ids", "ids.txt"], 0,
     ["is sacrebleu's signature: computed as -m bleu:tokenize=13a,lowercase=no,smooth_method=exp",
      "bleu|tokenize:13a|lowercase:no|smooth_method:exp|smooth_value:none|nrefs:1|eff:no|sacrebleu:"], ["unknown"]),
    ("sacrebleu-signature-differs", ["-m", "BLEU|#:2|c:mixed|e:no|tok:13a|s:exp|v:1.0.0", "-i", "hyp.txt", "-r",
                                     "ref.txt", "--doc-ids", "ids.txt"], 0,
     ["warning: this run differs from the signature it was given in: nrefs: signature has '2', this run has '1'; "
      "sacrebleu: signature has '1.0.0'"], []),
    ("sacrebleu-signature-eff-yes", ["-m", "BLEU|nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0", "-i",
                                     "hyp.txt", "-r", "ref.txt"], 2, ["'eff:yes' is BLEU with effective order"], []),
    ("signature-each-field-once", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--doc-ids", "ids.txt"], 0,
     ["bleu|tokenize:13a|lowercase:no|smooth_method:exp|smooth_value:none|nrefs:1|eff:no|sacrebleu:"],
     ["|tok:13a", "|smooth:exp", "|case:"]),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in SPELLING_ROWS],
                         ids=[r[0] for r in SPELLING_ROWS])
def test_spellings(files, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


@pytest.mark.parametrize("name,spec", [("comet", "doc-comet:k=0,backbone=comet,model=Unbabel/wmt22-comet-da"),
                                       ("cometkiwi", "slide:w=1,s=1,partial=drop,backbone=comet,"
                                                     "model=Unbabel/wmt22-cometkiwi-da"),
                                       ("xcomet", "slide:w=1,s=1,partial=drop,backbone=comet,model=Unbabel/XCOMET-XL,"
                                                  "qe=no")])
def test_comet_users_names_are_presets_of_sentence_level_metrics(name, spec):
    from docmetrics import api
    from docmetrics.values.spec import parse_spec

    metric, raw, _ = api.resolve(name)
    base = parse_spec(spec)
    assert (metric, raw) == (base.name, base.params)
    registry.load("metric", metric).check_params(raw)
    assert not registry.load("metric", metric)(None, **{k: v for k, v in raw.items()
                                                          if k in ("k", "w", "s", "partial")}).reads_neighbours()


@pytest.mark.parametrize("signature,spec", [
    ("BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0",
     "bleu:tokenize=13a,lowercase=no,smooth_method=exp"),
    ("BLEU|#:1|c:lc|e:no|tok:intl|s:floor[0.20]|v:2.6.0",
     "bleu:tokenize=intl,lowercase=yes,smooth_method=floor,smooth_value=0.20"),
    ("BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:add-k[1]|version:2.6.0",
     "bleu:tokenize=13a,lowercase=no,smooth_method=add-k"),
    ("chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0",
     "chrf:beta=2,word_order=0,char_order=6,whitespace=no,lowercase=no,eps_smoothing=no"),
    ("chrF1++|#:1|c:lc|e:no|nc:4|nw:2|s:yes|v:2.6.0",
     "chrf:beta=1,word_order=2,char_order=4,whitespace=yes,lowercase=yes,eps_smoothing=yes"),
    ("TER|nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0",
     "ter:case_sensitive=no,normalized=no,asian_support=no,no_punct=no"),
    ("TER|#:1|c:mixed|t:tercom|nr:yes|pn:no|as:yes|v:2.6.0",
     "ter:case_sensitive=yes,normalized=yes,asian_support=yes,no_punct=yes"),
])
def test_a_sacrebleu_signature_is_read_as_the_same_metric(signature, spec):
    from docmetrics.values.sacrebleu_signature import read_sacrebleu_signature

    assert read_sacrebleu_signature(signature).spec == spec
    assert read_sacrebleu_signature("bleu|tokenize:13a|v:0.3.0") is None  # ours, lower case


@pytest.mark.parametrize("metric,sacre_name,options", [
    ("bleu", "BLEU", {}), ("bleu:tokenize=char,lowercase=yes,smooth_method=floor,smooth_value=0.3", "BLEU",
                           {"tokenize": "char", "lowercase": True, "smooth_method": "floor", "smooth_value": 0.3}),
    ("chrf:word_order=2", "CHRF", {"word_order": 2}), ("ter:case_sensitive=yes", "TER", {"case_sensitive": True}),
])
def test_sacrebleus_signature_recomputes_sacrebleus_number(files, capsys, metric, sacre_name, options):
    """sacrebleu's own signature of a score, given to -m, gives sacrebleu's number."""
    import sacrebleu.metrics

    sacre = getattr(sacrebleu.metrics, sacre_name)(**options)
    got = sacre.corpus_score(files["hyp.txt"], [files["ref.txt"], files["ref2.txt"]])
    text = f"{got.name}|{sacre.get_signature().format()}"
    [result] = json_of(capsys, ["-m", text, "-i", "hyp.txt", "-r", "ref.txt", "ref2.txt", "--doc-ids", "ids.txt"])
    assert result["score"] == pytest.approx(got.score, abs=1e-9)
    assert "|nrefs:2|" in result["signature"]


# -- several references ------------------------------------------------------------------------------------
REFERENCE_ROWS = [
    ("repeated-r-accumulates", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-r", "ref2.txt", "--doc-ids",
                                "ids.txt"], 0, ["|nrefs:2|"], []),
    ("r-takes-several", ["-m", "chrf", "-i", "hyp.txt", "-r", "ref.txt", "ref2.txt", "--doc-ids", "ids.txt"], 0,
     ["|nrefs:2|"], ["unrecognized"]),
    ("neural-refuses", ["-m", "slide:w=1,s=1,backbone=toy,model=toy-ref", "-i", "hyp.txt", "-s", "src.txt", "-r",
                        "ref.txt", "ref2.txt", "--doc-ids", "ids.txt"], 2,
     ["slide takes one reference, and 2 were given (ref.txt, ref2.txt)", "give one reference"], []),
    ("lengths-name-the-second", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "short.txt"], 2,
     ["inputs have different lengths", "short.txt: 5 lines"], []),
    ("stdin-once", ["-m", "bleu", "-i", "-", "-r", "-"], 2, ["-i and -r all read stdin"], []),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in REFERENCE_ROWS],
                         ids=[r[0] for r in REFERENCE_ROWS])
def test_references(files, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


@pytest.mark.parametrize("spec,family,options", [("bleu", "BLEU", {}), ("chrf:word_order=2", "CHRF", {"word_order": 2}),
                                                 ("ter", "TER", {}), ("bleu:smooth_method=floor", "BLEU",
                                                                      {"smooth_method": "floor"})])
@pytest.mark.parametrize("refs", [["ref.txt", "ref2.txt"], ["ref2.txt", "ref.txt"], ["ref2.txt"]])
def test_several_references_as_sacrebleu_computes_them(files, capsys, spec, family, options, refs):
    """Corpus, per-document and per-segment scores against every reference, each equal to sacrebleu's
    (corpus_score / sentence_score with all the references)."""
    import sacrebleu.metrics

    sacre = getattr(sacrebleu.metrics, family)(**options)
    sentence = getattr(sacrebleu.metrics, family)(**options, **({"effective_order": True} if family == "BLEU" else {}))
    ref_lines = [files[r] for r in refs]
    [result] = json_of(capsys, ["-m", spec, "-i", "hyp.txt", "-r", *refs, "--doc-ids", "ids.txt", "--level", "seg"])
    assert result["score"] == pytest.approx(sacre.corpus_score(files["hyp.txt"], ref_lines).score, abs=1e-9)
    assert f"|nrefs:{len(refs)}|" in result["signature"]
    for i, unit in enumerate(result["units"]):
        expected = sentence.sentence_score(files["hyp.txt"][i], [r[i] for r in ref_lines]).score
        assert unit["score"] == pytest.approx(expected, abs=1e-9)
    for doc, (a, b) in zip(result["docs"], [(0, 2), (2, 5), (5, 6)]):
        expected = sacre.corpus_score(files["hyp.txt"][a:b], [r[a:b] for r in ref_lines]).score
        assert doc["score"] == pytest.approx(expected, abs=1e-9)


def test_d_bleu_with_several_references(files, capsys):
    import sacrebleu.metrics

    docs = [(0, 2), (2, 5), (5, 6)]
    joined = [[" ".join(lines[a:b]) for a, b in docs]
              for lines in (files["hyp.txt"], files["ref.txt"], files["ref2.txt"])]
    [result] = json_of(capsys, ["-m", "d-bleu", "-i", "hyp.txt", "-r", "ref.txt", "ref2.txt", "--doc-ids", "ids.txt"])
    expected = sacrebleu.metrics.BLEU().corpus_score(joined[0], joined[1:]).score
    assert result["score"] == pytest.approx(expected, abs=1e-9)


def test_the_test_set_keeps_every_reference(files):
    from docmetrics.values import io
    from docmetrics.values.testset import TestSet

    ts = io.read_testset(["hyp.txt"], "src.txt", ["ref.txt", "ref2.txt"], "ids.txt")
    assert ts.all_references == [files["ref.txt"], files["ref2.txt"]] and ts.references == files["ref.txt"]
    assert ts.reference_names() == ["ref.txt", "ref2.txt"]
    api = TestSet.from_lists(files["hyp.txt"], references=[files["ref.txt"], files["ref2.txt"]])
    assert api.all_references == [files["ref.txt"], files["ref2.txt"]]
    with pytest.raises(InputError, match="short.txt: 5 lines"):
        io.read_testset(["hyp.txt"], None, ["ref.txt", "short.txt"])


# -- say what was lost; small things ----------------------------------------------------------------------------
LONG = "A very long hypothesis sentence that goes on and on well past the toy backbone's eighty characters."


@pytest.fixture()
def long_hyp(files):
    lines = list(files["hyp.txt"])
    lines[0] = lines[3] = LONG  # the toy marks a unit truncated when its MT is over 80 characters
    (files["dir"] / "long.txt").write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return "long.txt"


LOST_ROWS = [
    ("truncated-warned", ["-m", "slide:w=2,s=1,backbone=toy", "-i", "long.txt", "-s", "src.txt", "--doc-ids",
                          "ids.txt"], 0,
     ["warning: slide [long.txt]: 3 of 3 units (100.0%) were cut at the model's maximum input length, so their scores "
      "miss the end of the input; use smaller windows (w=2 sentences now; slide:w=1,s=1 scores one sentence at a "
      "time), or a model that takes longer inputs"], []),
    ("truncated-one-sentence-windows", ["-m", "slide:w=1,s=1,backbone=toy", "-i", "long.txt", "-s", "src.txt",
                                        "--doc-ids", "ids.txt"], 0,
     ["2 of 6 units (33.3%) were cut", "use a model that takes longer inputs (each window is one segment already",
      "asd:unit=segment"],
     []),
    ("truncated-within-limit", ["-m", "slide:w=1,s=1,backbone=toy", "-i", "long.txt", "-s", "src.txt", "--doc-ids",
                                "ids.txt", "--max-truncated", "0.5"], 0, ["2 of 6 units (33.3%) were cut"], []),
    ("max-truncated-percent", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--max-truncated", "5"], 2,
     ["--max-truncated 5: a share from 0 to 1"], []),
    ("nothing-truncated-nothing-said", ["-m", "slide:w=1,s=1,backbone=toy", "-i", "hyp.txt", "-s", "src.txt",
                                        "--doc-ids", "ids.txt"], 0, ["0 truncated"], ["were cut"]),
    ("no-truncation-without-a-model", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--doc-ids", "ids.txt"], 0,
     ["bleu [hyp.txt]: 6 units, coverage 6/6 segments (100.0%)"], ["truncated"]),
    ("no-doc-id-warning-sentence-level", ["-m", "bleu", "slide:w=1,s=1,backbone=toy", "-i", "hyp.txt", "-s",
                                          "src.txt", "-r", "ref.txt"], 0, [], ["no doc ids"]),
    ("doc-id-warning-for-windows", ["-m", "slide:w=2,s=1,backbone=toy", "-i", "hyp.txt", "-s", "src.txt"], 0,
     ["warning: no doc ids (--doc-ids): the whole input is scored as ONE document"], []),
    ("bleu-detail", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--doc-ids", "ids.txt"], 0,
     [" (BP = ", " ratio = ", " hyp_len = ", " ref_len = "], []),
    ("sacrebleu-width", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--doc-ids", "ids.txt", "-b"], 0, [], []),
    ("labels-per-spec", ["-m", "slide:w=1,s=1,backbone=toy", "slide:w=2,s=1,backbone=toy", "-i", "hyp.txt", "-s",
                         "src.txt", "--doc-ids", "ids.txt"], 0,
     ["docmetrics: slide:w=1,s=1,backbone=toy [hyp.txt]: 6 units", "docmetrics: slide:w=2,s=1,backbone=toy [hyp.txt]: "],
     ["docmetrics: slide [hyp.txt]"]),
    ("label-one-spec", ["-m", "slide:w=1,s=1,backbone=toy", "bleu", "-i", "hyp.txt", "-s", "src.txt", "-r", "ref.txt",
                        "--doc-ids", "ids.txt"], 0, ["docmetrics: slide [hyp.txt]: 6 units"], []),
    ("score-only-systems", ["-m", "bleu", "chrf", "-i", "hyp.txt", "hypB.txt", "-r", "ref.txt", "-b", "-q"], 0,
     ["hyp.txt\t", "hypB.txt\t"], []),
    ("describe-tool", ["--describe", "vat"], 0, ["tool vat: docmetrics vat: build a variance-aware test set",
                                                 "Run: docmetrics vat --help"], ["unknown name"]),
    ("list-descriptions", ["--list"], 0,
     ["SLIDE: windows of w sentences at stride s", "COMET models (CometKiwi, COMET-DA, COMET-QE, XCOMET)",
      "STATUS / DESCRIPTION", "docmetrics vat: build a variance-aware test set"], []),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in LOST_ROWS], ids=[r[0] for r in LOST_ROWS])
def test_what_was_lost_and_small_things(files, long_hyp, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


def test_max_truncated_fails_above_the_share(files, long_hyp, capsys):
    code, out, err = run(capsys, "-m", "slide:w=1,s=1,backbone=toy", "-i", "long.txt", "-s", "src.txt", "--doc-ids",
                                  "ids.txt", "--max-truncated", "0.25")
    assert code == 2 and out == "" and "Traceback" not in err  # no score printed
    assert err.splitlines()[-1] == (
        "docmetrics: error: slide [long.txt]: 2 of 6 units (33.3%) were cut at the model's maximum input length, so "
        "their scores miss the end of the input; use a model that takes longer inputs (each window is one segment "
        "already; a segment of several sentences, e.g. a paragraph, is scored whole, uncut, by asd:unit=segment) "
        "(more than --max-truncated 0.25)")


def test_bleu_detail_is_sacrebleus(files, capsys):
    import sacrebleu.metrics

    got = sacrebleu.metrics.BLEU().corpus_score(files["hyp.txt"], [files["ref.txt"], files["ref2.txt"]])
    [result] = json_of(capsys, ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "ref2.txt", "--doc-ids", "ids.txt"])
    detail = result["detail"]
    assert detail["precisions"] == pytest.approx(got.precisions) and detail["bp"] == pytest.approx(got.bp)
    assert (detail["hyp_len"], detail["ref_len"], detail["counts"], detail["totals"]) == (
        got.sys_len, got.ref_len, got.counts, got.totals)
    assert detail["ratio"] == pytest.approx(got.ratio) and detail["text"] == got._verbose
    code, out, _ = run(capsys, "-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "ref2.txt", "--doc-ids", "ids.txt")
    assert f" = {got.score:.1f} {got._verbose} (6 units" in out  # sacrebleu's width (1) and its line


@pytest.mark.parametrize("family,spec,keys", [("CHRF", "chrf:word_order=2", ("char_order", "word_order", "beta")),
                                              ("TER", "ter", ("num_edits", "ref_length"))])
def test_chrf_and_ter_detail(files, capsys, family, spec, keys):
    import sacrebleu.metrics

    sacre = getattr(sacrebleu.metrics, family)(**({"word_order": 2} if family == "CHRF" else {}))
    got = sacre.corpus_score(files["hyp.txt"], [files["ref.txt"]])
    [result] = json_of(capsys, ["-m", spec, "-i", "hyp.txt", "-r", "ref.txt", "--doc-ids", "ids.txt"])
    assert {k: result["detail"][k] for k in keys} == pytest.approx({k: getattr(got, k) for k in keys})


def test_sacrebleu_width_and_explicit_width(files, capsys):
    import sacrebleu.metrics

    score = sacrebleu.metrics.BLEU().corpus_score(files["hyp.txt"], [files["ref.txt"]]).score
    code, out, _ = run(capsys, "-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-b", "-q")
    assert out == f"{score:.1f}\n"
    code, out, _ = run(capsys, "-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "-b", "-q", "-w", "4")
    assert out == f"{score:.4f}\n"


def test_score_only_with_several_systems_is_system_tab_scores(files, capsys):
    import sacrebleu.metrics

    code, out, _ = run(capsys, "-m", "bleu", "chrf", "-i", "hyp.txt", "hypB.txt", "-r", "ref.txt", "-b", "-q")
    lines = [line.split("\t") for line in out.splitlines()]
    assert [r[0] for r in lines] == ["hyp.txt", "hypB.txt"]
    for row, name in zip(lines, ("hyp.txt", "hypB.txt")):
        bleu = sacrebleu.metrics.BLEU().corpus_score(files[name], [files["ref.txt"]]).score
        chrf = sacrebleu.metrics.CHRF().corpus_score(files[name], [files["ref.txt"]]).score
        assert row[1:] == [f"{bleu:.1f}", f"{chrf:.1f}"]


@pytest.mark.parametrize("cache", [None, "scores.sqlite"], ids=["no-cache", "cache"])
def test_ctrl_c_says_what_was_kept(files, capsys, monkeypatch, cache):
    from docmetrics_toy import ToyBackbone

    def interrupted(self, units):
        raise KeyboardInterrupt

    monkeypatch.setattr(ToyBackbone, "score", interrupted)
    monkeypatch.delenv("DOCMETRICS_SCORE_CACHE", raising=False)
    argv = ["-m", "slide:w=1,s=1,backbone=toy", "-i", "hyp.txt", "-s", "src.txt", "--doc-ids", "ids.txt"]
    code, out, err = run(capsys, *argv + (["--cache", cache] if cache else []))
    assert code == 130 and "Traceback" not in err
    if cache:
        assert (f"interrupted (the score cache {cache} keeps every chunk scored before the interruption; the same "
                f"command resumes from it: docmetrics {' '.join(argv)} --cache {cache})") in err
    else:
        assert ("interrupted (no score cache was on, so the scores computed so far are lost; with --cache, the same "
                "command run again resumes where it stopped)") in err


# -- the bad-input battery ----------------------------------------------------------------------------------------
@pytest.fixture()
def battery(files):
    d = files["dir"]
    (d / "deep.jsonl").write_text('{"mt": ' + "[" * 100_000 + "]" * 100_000 + "}\n", encoding="utf-8")
    (d / "empty.txt").write_text("\n" * 6, encoding="utf-8")
    refs = list(files["ref.txt"])
    refs[1] = refs[4] = ""
    (d / "holes.txt").write_text("".join(x + "\n" for x in refs), encoding="utf-8")
    (d / "tabids.txt").write_text("a\tb\na\tb\nc\nc\nc\nd\n", encoding="utf-8")
    (d / "nosrc.jsonl").write_text('{"doc_id": "d", "src": null, "mt": "x"}\n', encoding="utf-8")
    return d


BATTERY_ROWS = [
    ("jsonl-nested-100000-deep", ["-m", "bleu", "-i", "deep.jsonl"], 2,
     ["deep.jsonl, line 1: a JSON value nested more than 64 levels deep; a line holds one JSON object with "
      "doc_id, src, mt, ref (a segment)"],
     ["RecursionError"]),
    ("hypotheses-all-empty", ["-m", "bleu", "-i", "empty.txt", "-r", "ref.txt", "--doc-ids", "ids.txt"], 0,
     ["warning: empty.txt: every line is empty, so the system output looks missing"], []),
    ("empty-reference-lines", ["-m", "bleu", "-i", "hyp.txt", "-r", "holes.txt", "--doc-ids", "ids.txt"], 0,
     ["warning: holes.txt: 2 of 6 reference lines are empty (line 2, 5)"], []),
    ("name-at-nothing", ["-m", "slide@", "-i", "hyp.txt", "-s", "src.txt"], 2,
     ["metric spec 'slide@': no distribution follows '@'; write NAME, or NAME@DISTRIBUTION"], []),
    ("name-at-bad-dist", ["-m", "slide@bad!dist", "-i", "hyp.txt", "-s", "src.txt"], 2,
     ["'bad!dist' is not a distribution name", "NAME@DISTRIBUTION to pick one distribution's plugin"], []),
    ("name-at-twice", ["-m", "slide@docmetrics@x", "-i", "hyp.txt", "-s", "src.txt"], 2,
     ["it has more than one '@'; write NAME, or NAME@DISTRIBUTION"], []),
    ("model-empty", ["-m", "slide:model=", "-i", "hyp.txt", "-s", "src.txt"], 2,
     ["parameter 'model' has value ''; it is empty: give a hub id or a local directory"], ["licence"]),
    ("model-path-escapes", ["-m", "slide:w=1,s=1,model=/nonexistent/a\x1b[31mb\nc", "-i", "hyp.txt", "-s", "src.txt",
                            "--doc-ids", "ids.txt"], 2, ["/nonexistent/a\\x1b[31mb\\nc"], ["\x1b"]),
    ("tab-in-doc-id", ["-m", "bleu", "-i", "hyp.txt", "-r", "ref.txt", "--doc-ids", "tabids.txt", "--level", "doc",
                       "-q"], 0,
     ["warning: --level doc: 1 doc id(s) hold a tab or a line break (e.g. 'a\\tb'), written as a space"], []),
    ("jsonl-src-null", ["-m", "slide:backbone=toy", "-i", "nosrc.jsonl"], 2,
     ["slide needs the source: pass it with -s/--source (JSONL input: a 'src' in every object)"], []),
    ("grid-backwards", ["sweep", "-m", "slide:backbone=toy", "--grid", "w=3..1", "-i", "hyp.txt", "-s", "src.txt",
                        "--doc-ids", "ids.txt"], 2,
     ["--grid 'w=3..1': the range runs down from 3 to 1 and holds no value; write w=1..3"], []),
    ("grid-empty", ["sweep", "-m", "slide:backbone=toy", "--grid", "w=1..2", "s=5..w", "-i", "hyp.txt", "-s",
                    "src.txt", "--doc-ids", "ids.txt"], 2, ["--grid s=5..w: the range is empty"], []),
]


@pytest.mark.parametrize("argv,code,present,absent", [r[1:] for r in BATTERY_ROWS], ids=[r[0] for r in BATTERY_ROWS])
def test_bad_input_battery(files, battery, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


@pytest.mark.parametrize("argv", [["-i", "/dev/zero", "-r", "ref.txt"], ["-r", "/dev/zero"]],
                         ids=["hypothesis", "reference"])
def test_an_input_that_never_ends_is_refused(files, capsys, monkeypatch, argv):
    """/dev/zero (or an MTME file that never ends: MTME reads through the same reader) stops at the bound
    with a message, instead of a MemoryError."""
    from docmetrics.values import io

    monkeypatch.setattr(io, "MAX_INPUT_BYTES", 1 << 16)
    argv = argv if "-i" in argv else ["-i", "hyp.txt", *argv]
    check_row(capsys, ["-m", "bleu", *argv], 2,
              ["/dev/zero: more than 65536 bytes (docmetrics reads an input whole); is it the right file"], [])


def test_nothing_on_stdin_says_that_i_was_absent(files, capsys, monkeypatch):
    import io as stdio
    import sys

    class Piped:
        buffer = stdio.BytesIO(b"")

        def isatty(self):
            return False

    monkeypatch.setattr(sys, "stdin", Piped())
    check_row(capsys, ["-m", "bleu", "-r", "ref.txt"], 2,
              ["no -i was given, so the system output was read from stdin, which was empty: give it with -i HYP"], [])


def test_vat_keeps_every_reference(files, capsys):
    """docmetrics vat -r ref.txt ref2.txt filters on BLEU against both and writes both, filtered alike."""
    code, out, err = run(capsys, "vat", "-m", "sentence-bleu", "-i", "hyp.txt", "hypB.txt", "-r", "ref.txt",
                                  "ref2.txt", "--doc-ids", "ids.txt", "-o", "vat", "-p", "50")
    assert code == 0, err
    assert "BLEU|nrefs:2|" in out
    record = json.loads((files["dir"] / "vat" / "vat.json").read_text(encoding="utf-8"))
    kept = [n - 1 for n in record["kept_lines"]]
    for name in ("ref.txt", "ref2.txt"):
        written = (files["dir"] / "vat" / name).read_text(encoding="utf-8").splitlines()
        assert written == [files[name][i] for i in kept]
