"""The WMT26 release reader (docmetrics.formats.wmt26, docmetrics.values.paragraphs) on a fixture built
here from the fields wmt-conference/wmt26-general-mt's README documents (a test file whose lines have
every field: a speech document with gold_transcript and a video, a social one with a screenshot and a
<br>, one with two references and entities, documents with refs {}, a second language pair) and three
system files (one complete, one whose hypotheses' paragraphs differ and whose <p> marks are broken, one
that skipped a document); the paragraph rule table-driven; each bad input an InputError naming the
file, the line and the field; and the release's own system files where a mirror of the repository is
on this machine."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from docmetrics.formats.wmt26 import read_wmt26
from docmetrics.values.errors import InputError
from docmetrics.values.paragraphs import MarkupError, paragraphs

ENDE = "eng_Latn-deu_Latn"
INSTR = {"prompt_instruction": "Translate the following text from English into German.",
         "multimodal_instruction": "Translate the text, using the attached media.",
         "evaluation_instruction": "Ensure the translation is formal."}


def doc(domain, doc, src="eng_Latn", tgt="deu_Latn", **fields):
    line = {"doc_id": f"WMT26_###_{domain}_###_{src}_###_{tgt}_###_{doc}", "domain": domain, "src_lang": src,
            "tgt_lang": tgt, "src_text": "", "video": None, "screenshot": None, **INSTR, "refs": {}}
    line.update(fields)
    return line


TEST = [
    doc("news", "n1", src_text="<p>Tom &amp; Jerry won.</p>\n<p>It rained &gt; 3 days.</p>",
        refs={"refA": "<p>Tom &amp; Jerry gewannen.</p>\n<p>Es regnete &gt; 3 Tage.</p>",
              "refB": {"ref": "<p>Tom und Jerry siegten.</p><p>Es regnete mehr als 3 Tage.</p>"}}),
    doc("speech", "id_abc_1.00-20.00", src_text="so um we go\nto the south today",
        gold_transcript="So, we go to the south today.", video={"id": "abc", "path": "videos/abc.mp4"}),
    doc("social", "1163", src_text="<p>@ann hi<br>see you</p>", screenshot={"id": "s1", "path": "shots/1163"},
        refs={"refA": "<p>@ann hallo<br>bis bald</p>"}),
    doc("news", "c1", src="ces_Latn", tgt="ukr_Cyrl", src_text="<p>Ahoj.</p>", refs={}),
]
IDS = [d["doc_id"] for d in TEST]
SYSTEMS = {
    "sysA": [(IDS[0], "<p>Tom &amp; Jerry gewannen.</p>\n<p>Es regnete.</p>"),
             (IDS[1], "Wir fahren heute in den Süden."), (IDS[2], "<p>@ann hallo<br>tschüss</p>"),
             (IDS[3], "<p>Привіт.</p>")],
    "sysB": [(IDS[2], "<P>@ann hi</P>"), (IDS[0], "<p>Tom und Jerry.\n<p>Es regnete.</p>\nDrei Tage."),
             (IDS[1], "Wir fahren.")],
    "sysC": [(IDS[0], "<p>A</p><p>B</p>"), (IDS[2], "<p>C</p>")],
}


def write(tmp_path, test=TEST, systems=SYSTEMS):
    tf = tmp_path / "wmt26-genmt.jsonl"
    tf.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in test), encoding="utf-8")
    folder = tmp_path / "systems"
    folder.mkdir(exist_ok=True)
    for name, rows in systems.items():
        (folder / f"{name}.jsonl").write_text("".join(
            json.dumps({"doc_id": d, "hypothesis": h, "metadata": {"tokens": 1}}, ensure_ascii=False) + "\n"
            for d, h in rows), encoding="utf-8")
    return tf, folder


# -- paragraphs -------------------------------------------------------------------------------------------------
PARAGRAPHS = [  # text, paragraphs (lenient), faults, strict fault or None
    ("<p>a &amp; b</p>\n<p>c<br>d</p>", ("a & b", "c<br>d"), {}, None),
    ("plain &amp; text\nline two", ("plain &amp; text\nline two",), {}, None),
    ("<P> A </P>< p>b</p >", ("A", "b"), {}, None),
    ('<p class="x">a</p>', ("a",), {}, None),
    ("<p>&lt;p&gt; is a tag</p>", ("<p> is a tag",), {}, None),
    ("<p>a\n<p>b</p>", ("a", "b"), {"unclosed": 1}, "unclosed"),
    ("<p>a</p>\n<p>b", ("a", "b"), {"unclosed": 1}, "unclosed"),
    ("x<p>a</p>y", ("x", "a", "y"), {"outside": 2}, "outside"),
    ("</p><p>a</p>", ("a",), {"stray": 1}, "stray"),
    ("<p>a</p><pre>x</pre>", ("a", "<pre>x</pre>"), {"outside": 1}, "outside"),
    ("", ("",), {}, None),
]


@pytest.mark.parametrize("text,expected,faults,strict_fault", PARAGRAPHS)
def test_paragraph_rule(text, expected, faults, strict_fault):
    got = paragraphs(text, strict=False)
    assert got.texts == expected and dict(got.faults) == faults
    if strict_fault is None:
        assert paragraphs(text, strict=True).texts == expected
    else:
        with pytest.raises(MarkupError) as e:
            paragraphs(text, strict=True)
        assert e.value.fault == strict_fault


# -- reading ----------------------------------------------------------------------------------------------------
def test_reads_every_field(tmp_path):
    tf, folder = write(tmp_path)
    data = read_wmt26(tf, folder)
    assert data.language_pairs() == [ENDE, "ces_Latn-ukr_Cyrl"]
    assert list(data.system_files) == ["sysA", "sysB", "sysC"]
    ende = data.pair("en-de")
    assert ende is data.pair(ENDE) and ende.lang == "en-de" and data.pair("cs-uk").lang == "cs-uk"
    news, speech, social = ende.documents
    assert news.source == ("Tom & Jerry won.", "It rained > 3 days.")
    assert dict(news.references) == {"refA": ("Tom & Jerry gewannen.", "Es regnete > 3 Tage."),
                                     "refB": ("Tom und Jerry siegten.", "Es regnete mehr als 3 Tage.")}
    assert speech.source == ("so um we go\nto the south today",) and speech.source_field == "src_text"
    assert speech.references == {} and speech.fields["video"] == {"id": "abc", "path": "videos/abc.mp4"}
    assert speech.fields["gold_transcript"] == "So, we go to the south today."
    assert social.source == ("@ann hi<br>see you",) and social.fields["screenshot"]["id"] == "s1"
    assert news.fields["prompt_instruction"] == INSTR["prompt_instruction"] and news.line == 1
    assert ende.reference_names == ["refA", "refB"]
    gold = read_wmt26(tf, folder, source="gold_transcript").pair(ENDE).documents
    assert gold[1].source == ("So, we go to the south today.",) and gold[1].source_field == "gold_transcript"
    assert gold[0].source_field == "src_text"  # no gold_transcript outside speech
    # a list of files, one language pair
    only = read_wmt26(tf, [folder / "sysB.jsonl"], lp="eng_Latn-deu_Latn")
    assert only.language_pairs() == [ENDE] and only.pair(ENDE).systems == ["sysB"]


def test_systems_counted_never_padded(tmp_path):
    tf, folder = write(tmp_path)
    ende = read_wmt26(tf, folder).pair(ENDE)
    assert ende.systems == ["sysA", "sysB", "sysC"] and ende.complete_systems == ["sysA", "sysB"]
    assert ende.skipped("sysC") == [IDS[1]]
    rows = {r["system"]: r for r in ende.summary()}
    assert rows["sysA"] == {"system": "sysA", "documents": 3, "of": 3, "skipped": 0, "paragraphs": 4,
                            "mismatched": 0, "faults": {}}
    # sysB: news read as 3 paragraphs (one unclosed, text outside), social 1: news mismatched
    assert (rows["sysB"]["paragraphs"], rows["sysB"]["mismatched"]) == (5, 1)
    assert rows["sysB"]["faults"] == {"unclosed": 1, "outside": 1}
    assert (rows["sysC"]["documents"], rows["sysC"]["skipped"]) == (2, 1)
    assert [s for s in read_wmt26(tf, folder).pair("ces_Latn-ukr_Cyrl").systems] == ["sysA"]


def test_testset_paragraphs_where_counts_agree_else_whole_documents(tmp_path):
    tf, folder = write(tmp_path)
    ende = read_wmt26(tf, folder).pair(ENDE)
    ts, plans = ende.testset()
    assert list(ts.systems) == ["sysA", "sysB"]
    assert [(p.unit, p.paragraphs, p.mismatched) for p in plans] == [
        ("document", 2, ("sysB 3",)), ("paragraph", 1, ()), ("paragraph", 1, ())]
    assert ts.sources == ["Tom & Jerry won.\nIt rained > 3 days.", "so um we go\nto the south today",
                          "@ann hi<br>see you"]
    assert ts.systems["sysB"][0] == "Tom und Jerry.\nEs regnete.\nDrei Tage."
    assert [d.doc_id for d in ts.documents] == IDS[:3] and ts.references is None
    ts, plans = ende.testset(["sysA"])
    assert [p.unit for p in plans] == ["paragraph"] * 3 and ts.n_segments == 4
    assert ts.systems["sysA"][:2] == ["Tom & Jerry gewannen.", "Es regnete."]
    assert plans[0].describe() == f"{IDS[0]}: 2 paragraphs as segments"
    with pytest.raises(InputError, match=r"sysC\.jsonl: system 'sysC' skipped 1 of the 3 documents"):
        ende.testset(["sysC"])
    with pytest.raises(InputError, match=r"line 2, field refs: .* no reference 'refA' \(1 of the 3"):
        ende.testset(["sysA"], ["refA"])
    # two references on the pair's documents that have them
    news = read_wmt26(tf, folder).pair(ENDE)
    news.documents = news.documents[:1]
    ts, plans = news.testset(["sysA"], ["refB", "refA"])
    assert ts.references == ["Tom und Jerry siegten.", "Es regnete mehr als 3 Tage."]
    assert ts.other_references == [["Tom & Jerry gewannen.", "Es regnete > 3 Tage."]]
    assert ts.reference_names()[0].endswith("refs.refB")


# -- bad input ---------------------------------------------------------------------------------------------------
def drop(key, i=0):
    def edit(test, systems):
        del test[i][key]
    return edit


def set_field(i, key, value):
    def edit(test, systems):
        test[i][key] = value
    return edit


def system_line(name, k, **fields):
    def edit(test, systems):
        d, h = systems[name][k]
        row = {"doc_id": d, "hypothesis": h, "metadata": {}, **fields}
        systems[name][k] = row
    return edit


BAD = [  # (id, edit of the fixture, needles)
    ("test-missing-src_text", drop("src_text"), ["wmt26-genmt.jsonl, line 1, field src_text: missing"]),
    ("test-missing-refs", drop("refs", 2), ["line 3, field refs: missing", "{} where none"]),
    ("test-missing-doc_id", drop("doc_id"), ["line 1, field doc_id: missing"]),
    ("test-missing-tgt_lang", drop("tgt_lang"), ["line 1, field tgt_lang: missing"]),
    ("test-duplicate-doc_id", lambda t, s: t.append(dict(t[0])), ["line 5, field doc_id", "given twice (also line 1)"]),
    ("test-malformed-p-source", set_field(0, "src_text", "<p>one\n<p>two</p>"),
     ["line 1, field src_text: a <p> not closed", "paragraph 1", "<p>...</p>"]),
    ("test-malformed-p-reference", set_field(2, "refs", {"refA": "hello</p>"}),
     ["line 3, field refs.refA: text outside every <p>...</p>"]),
    ("test-refs-not-object", set_field(0, "refs", ["x"]), ["line 1, field refs: [\"x\"] is not an object"]),
    ("test-ref-not-text", set_field(0, "refs", {"refA": 3}), ["line 1, field refs.refA: 3 is not a reference"]),
    ("test-doc_id-fields-disagree", set_field(0, "domain", "social"),
     ["line 1, field doc_id", "names domain 'news'", "fields say 'social'"]),
    ("test-doc_id-shape", set_field(0, "doc_id", "news_###_n1"), ["line 1, field doc_id: 'news_###_n1' is not SET"]),
    ("test-video-not-object", set_field(1, "video", "abc.mp4"), ["line 2, field video", "is not an object"]),
    ("test-instruction-not-text", set_field(0, "prompt_instruction", 5), ["line 1, field prompt_instruction"]),
    ("system-missing-hypothesis", lambda t, s: s["sysA"].__setitem__(0, {"doc_id": IDS[0], "metadata": {}}),
     ["sysA.jsonl, line 1, field hypothesis: missing"]),
    ("system-missing-metadata", lambda t, s: s["sysA"].__setitem__(0, {"doc_id": IDS[0], "hypothesis": "x"}),
     ["sysA.jsonl, line 1, field metadata: missing"]),
    ("system-hypothesis-not-text", system_line("sysB", 1, hypothesis=None),
     ["sysB.jsonl, line 2, field hypothesis: null is not a string"]),
    ("system-unknown-doc_id", system_line("sysC", 1, doc_id="WMT26_###_news_###_eng_Latn_###_deu_Latn_###_zz"),
     ["sysC.jsonl, line 2, field doc_id", "is no document of the test file", "another test set"]),
    ("system-duplicate-doc_id", lambda t, s: s["sysC"].append(s["sysC"][0]),
     ["sysC.jsonl, line 3, field doc_id", "translated twice (also line 1)"]),
]


def _materialise(systems):
    return {n: [r if isinstance(r, dict) else {"doc_id": r[0], "hypothesis": r[1], "metadata": {}} for r in rows]
            for n, rows in systems.items()}


@pytest.mark.parametrize("edit,needles", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_names_file_line_and_field(tmp_path, edit, needles):
    test = json.loads(json.dumps(TEST))
    systems = {n: list(rows) for n, rows in SYSTEMS.items()}
    edit(test, systems)
    tf = tmp_path / "wmt26-genmt.jsonl"
    tf.write_text("".join(json.dumps(d) + "\n" for d in test))
    folder = tmp_path / "systems"
    folder.mkdir()
    for name, rows in _materialise(systems).items():
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError) as e:
        read_wmt26(tf, folder)
    message = str(e.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message, (needle, message)


OTHER_BAD = [
    ("lfs-pointer", lambda t, f: (t.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:ab\n"), {}),
     ["wmt26-genmt.jsonl: a Git LFS pointer", "git lfs pull"]),
    ("empty-system-file", lambda t, f: ((f / "sysC.jsonl").write_text(""), {}), ["sysC.jsonl: no line"]),
    ("not-a-folder", lambda t, f: (None, {"systems": str(f / "nope")}), ["nope: not a folder"]),
    ("not-jsonl", lambda t, f: (None, {"systems": [str(t)[:-1]]}), ["a system file is NAME.jsonl"]),
    ("bad-source", lambda t, f: (None, {"source": "asr"}), ["source='asr': one of src_text, gold_transcript"]),
    ("unknown-lp", lambda t, f: (None, {"lp": "en-fr"}), ["no language pair 'en-fr'", ENDE]),
]


@pytest.mark.parametrize("edit,needles", [b[1:] for b in OTHER_BAD], ids=[b[0] for b in OTHER_BAD])
def test_other_bad_calls(tmp_path, edit, needles):
    tf, folder = write(tmp_path)
    _, kwargs = edit(tf, folder)
    systems = kwargs.pop("systems", folder)
    with pytest.raises(InputError) as e:
        read_wmt26(tf, systems, **kwargs)
    for needle in needles:
        assert needle in str(e.value), (needle, str(e.value))


def test_gold_transcript_missing_on_speech(tmp_path):
    test = json.loads(json.dumps(TEST))
    del test[1]["gold_transcript"]
    tf, folder = write(tmp_path, test)
    with pytest.raises(InputError, match="line 2, field gold_transcript: missing for a speech document"):
        read_wmt26(tf, folder, source="gold_transcript")
    assert read_wmt26(tf, folder).pair(ENDE).documents[1].source_field == "src_text"


# -- the release's system files ------------------------------------------------------------------------------------
MIRROR = Path(os.environ.get("WMT26_REPO", "/work/.mirror/wmt-conference+wmt26-general-mt/repo"))


@pytest.mark.skipif(not (MIRROR / "HEAD").exists() and not (MIRROR / ".git").exists(),
                    reason="no copy of wmt-conference/wmt26-general-mt (set WMT26_REPO)")
def test_release_system_files_read(tmp_path, capsys):
    """Every system file the copy holds reads, against a stand-in test file with their doc ids (the real one is a
    large file a copy may lack)."""
    import subprocess

    def git(*args):
        return subprocess.run(["git", "-C", str(MIRROR), *args], capture_output=True, check=True).stdout

    folder = tmp_path / "systems"
    folder.mkdir()
    names = git("ls-tree", "--name-only", "HEAD", "data/systems/").decode().split("\n")
    present = []
    for name in filter(None, names):
        try:
            blob = git("cat-file", "-p", f"HEAD:{name}")
        except subprocess.CalledProcessError:
            continue  # a large file this copy lacks
        if blob and not blob.startswith(b"version https://git-lfs"):
            (folder / os.path.basename(name)).write_bytes(blob)
            present.append(name)
    ids = {json.loads(line)["doc_id"] for f in folder.iterdir() for line in f.read_text().splitlines() if line}
    stub = tmp_path / "stub.jsonl"
    lines = []
    for d in sorted(ids):
        _, domain, src, tgt, name = d.split("_###_", 4)
        lines.append(json.dumps(doc(domain, name, src, tgt, src_text="<p>x</p>")) + "\n")
    stub.write_text("".join(lines))
    data = read_wmt26(stub, folder)
    docs = Counter()
    for pair in data.pairs.values():
        for row in pair.summary():
            docs[row["system"]] += row["documents"]
    assert set(docs) == {os.path.basename(p)[:-6] for p in present} and sum(docs.values()) == len(
        [1 for f in folder.iterdir() for line in f.read_text().splitlines() if line])
