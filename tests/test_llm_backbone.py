"""The llm backbone (issue 32) on a tiny random chat LLM built offline (docmetrics_backbones.llm.testing):
the GEMBA parse on realistic answers, spans mapped into the MT, constrained decoding, the expected score
against an independent computation from the logits, greedy answers against a hand-written greedy loop,
batch sizes, the score cache, SLIDE and --human end to end, an OpenAI-compatible endpoint served from a
loopback server (the same scores; 500, time-outs and dropped connections exit 2, the cache keeps what was
scored), and bad input rows."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest
from cli_fixtures import run_cli

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from docmetrics_backbones.llm.backbone import LlmBackbone  # noqa: E402
from docmetrics_backbones.llm.parse import QuotedError, map_spans, parse_answer  # noqa: E402
from docmetrics_backbones.llm.prompts import builtin_prompts, load_prompt  # noqa: E402
from docmetrics_backbones.llm.testing import build_tiny_llm, model_answerer, openai_server  # noqa: E402

import docmetrics  # noqa: E402
from docmetrics.runtime import cache as cache_module  # noqa: E402
from docmetrics.values.units import Unit  # noqa: E402

DATA = Path(docmetrics.__file__).parent / "data" / "quickstart"
SRC = (DATA / "src.txt").read_text(encoding="utf-8").splitlines()
HYP = (DATA / "sysA.txt").read_text(encoding="utf-8").splitlines()
HYP_B = (DATA / "sysB.txt").read_text(encoding="utf-8").splitlines()
UNITS = [Unit(mt=h, src=s) for h, s in zip(HYP + HYP_B, SRC + SRC)]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_llm(tmp_path_factory.mktemp("llm"))


def backbone(tiny, **kw):
    kw.setdefault("lang", "en-de")
    return LlmBackbone(str(tiny), **kw)


def quickstart(*extra):
    return ["-i", DATA / "sysA.txt", DATA / "sysB.txt", "-s", DATA / "src.txt", "--doc-ids", DATA / "docids.txt",
            "-l", "en-de", *extra]


# -- the GEMBA parse, table-driven -------------------------------------------------------------------------
MQM_ANSWER = ('Critical:\nno-error\nMajor:\naccuracy/mistranslation - "Hund"\naccuracy/omission - "the red"\n'
              'Minor:\nfluency/grammar - "läuft"\nstyle/awkward - "im Park"\n')
PARSE_CASES = [
    ("number", "85", 85.0),
    ("number", "Score: 85", 85.0),
    ("number", "85/100", 85.0),        # two numbers, but exactly N/100
    ("number", "85/100, maybe 90", None),
    ("number", "I would give it 80 or 85.", None),
    ("number", "No score can be given.", None),
    ("number", "150", None),
    ("number", "['73']", 73.0),
    ("last-number", "The translation has minor issues. **Score: 85**", 85.0),
    ("last-number", "Errors: 2 minor. Final score: 78", 78.0),
    ("last-number", "80 or 85", 85.0),
    ("last-number", "It scores 250 out of 1000", None),
    ("last-number", "none", None),
    ("mqm", MQM_ANSWER, -12.0),        # major 5 + 5, minor 1 + 1
    ("mqm", "Critical:\nno-error\nMajor:\nno-error\nMinor:\nno-error\n", 0.0),
    ("mqm", 'Critical:\naccuracy/addition - "x"\nnon-translation - "y"\nMajor:\nfluency - "z"\n', -25.0),  # capped
    ("mqm", "Minor:\n" + "".join(f'fluency/spelling - "w{i}"\n' for i in range(7)), -5.0),  # at most 5 errors
    ("mqm", "Major:\naccuracy/mistranslation\nMinor:\nstyle/awkward\n", -6.0),  # errors without spans
    ("mqm", "The translation looks fine to me.", None),  # no structure: unparsed, never a silent 0
]


@pytest.mark.parametrize("rule,answer,expected", PARSE_CASES)
def test_gemba_parse(rule, answer, expected):
    assert parse_answer(rule, answer, 0, 100).score == expected


def test_spans_first_match_after_the_previous_and_unmatched_counted():
    mt = "Der Hund läuft im Park, der Hund schläft."
    errors = parse_answer("mqm", MQM_ANSWER, 0, 100).errors
    spans, unmatched = map_spans(errors, mt)
    assert spans == [(4, 8, "major"), (9, 14, "minor"), (15, 22, "minor")] and unmatched == 1  # "the red": source
    again, _ = map_spans([QuotedError("minor", "x", "Hund"), QuotedError("minor", "x", "Hund")], mt)
    assert again == [(4, 8, "minor"), (28, 32, "minor")]  # the second "Hund" after the first
    assert map_spans([QuotedError("major", "x", None)], mt) == ([], 0)


def test_shipped_prompts_parse_and_name_their_rule():
    assert set(builtin_prompts()) == {"gemba-da", "gemba-mqm", "gemba-esa", "gemba-esa-wmt25"}
    rules = {n: (load_prompt(n).rule, len(load_prompt(n).steps)) for n in builtin_prompts()}
    assert rules == {"gemba-da": ("number", 1), "gemba-mqm": ("mqm", 1), "gemba-esa": ("number", 2),
                     "gemba-esa-wmt25": ("last-number", 2)}


# -- the tiny model ----------------------------------------------------------------------------------------
def independent_prompts(tiny, prompt_name="gemba-da"):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tiny))
    prompt = load_prompt(prompt_name)
    out = []
    for u in UNITS:
        values = {"source_lang": "English", "target_lang": "German", "source_seg": u.src, "target_seg": u.mt,
                  "context": ""}
        text = tok.apply_chat_template(prompt.messages(0, values), add_generation_prompt=True, tokenize=False)
        out.append(tok(text, add_special_tokens=False)["input_ids"])
    return tok, out


def test_constrained_decoding_always_gives_a_score_in_range(tiny):
    for prompt in ("gemba-da", "gemba-esa"):
        out = backbone(tiny, prompt=prompt, score="constrained", max_new_tokens=6).score(UNITS)
        assert all(0 <= s <= 100 and s == int(s) for s in out.scores), out.scores
        assert not any(c.get("answers_unparsed") for c in out.unit_counters)
        assert len(set(out.scores)) > 1  # the tiny model's scores vary
        records = out.records()
        for r in records:
            assert r.answer.split("\n@@ score\n")[-1].strip() == f"{int(r.score)}"


def test_expected_score_equals_an_independent_computation_from_the_logits(tiny):
    from transformers import AutoModelForCausalLM

    tok, prompts = independent_prompts(tiny)
    model = AutoModelForCausalLM.from_pretrained(str(tiny)).eval()
    numbers = {i: int(t) for i, t in ((i, tok.decode([i])) for i in range(len(tok)))
               if t.strip().isdigit() and t in (t.strip(), " " + t.strip()) and 0 <= int(t) <= 100}
    assert sorted(set(numbers.values())) == list(range(101))
    want = []
    with torch.no_grad():
        for ids in prompts:  # one unit at a time, no padding
            p = torch.softmax(model(torch.tensor([ids])).logits[0, -1].double(), -1)
            mass = sum(float(p[i]) for i in numbers)
            want.append(sum(float(p[i]) * v for i, v in numbers.items()) / mass)
    got = backbone(tiny, score="expected").score(UNITS).scores  # batched, left-padded: float32 rounding only
    assert got == pytest.approx(want, abs=1e-4)


def test_greedy_answers_equal_a_hand_written_greedy_loop(tiny):
    tok, prompts = independent_prompts(tiny)
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(tiny)).eval()
    n = 10
    want = []
    with torch.no_grad():
        for ids in prompts:
            seq = list(ids)
            for _ in range(n):
                nxt = int(torch.argmax(model(torch.tensor([seq])).logits[0, -1]))
                if nxt == tok.eos_token_id:
                    break
                seq.append(nxt)
            want.append(tok.decode(seq[len(ids):], skip_special_tokens=True))
    out = backbone(tiny, score="parse", max_new_tokens=n, max_unparsed=1.0).score(UNITS)
    assert [r.answer for r in out.records()] == want


@pytest.mark.parametrize("score", ["expected", "constrained", "parse"])
def test_batch_sizes_1_5_32_give_the_same_scores(tiny, score):
    """Tolerance: 1e-4 absolute on the 0-100 scale for expected scores (padding changes the float32 logits'
    rounding only: about 1e-7 relative); constrained and parsed answers are identical."""
    runs = [backbone(tiny, score=score, batch_size=b, max_new_tokens=8, max_unparsed=1.0).score(UNITS)
            for b in (1, 5, 32)]
    for out in runs[1:]:
        assert out.scores == pytest.approx(runs[0].scores, abs=1e-4)
        if score != "expected":
            assert [r.answer for r in out.records()] == [r.answer for r in runs[0].records()]


def test_the_cache_returns_the_stored_answer_without_loading_the_model(tiny, tmp_path, monkeypatch):
    from docmetrics_backbones.llm import local

    spec = f"slide:w=1,s=1,backbone=llm,model={tiny},lang=en-de,score=parse,max_new_tokens=6,max_unparsed=1"
    testset = docmetrics.TestSet.from_lists({"a": HYP}, SRC, None, ["d"] * len(HYP))
    results = []
    for run in ("scored", "cached"):
        if run == "cached":
            monkeypatch.setattr(local.LocalModel, "__init__", lambda *a, **k: pytest.fail("the model was loaded"))
        with cache_module.ScoreCache(tmp_path / "scores.sqlite") as store:
            session = docmetrics.Session(cache=store)
            (result,) = docmetrics.load(spec, session=session).compute(testset)
            session.close()
        results.append([(u.score, u.answer) for u in result.units])
    assert results[0] == results[1] and all(a for _, a in results[0])


def test_slide_w2_end_to_end_and_human_meta_evaluation(tiny, tmp_path, capsys):
    spec = f"slide:w=2,s=1,backbone=llm,model={tiny},score=expected"
    code, out, err = run_cli(capsys, "-q", "-m", spec, *quickstart("--level", "chunk", "-f", "json"))
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 2 and all(0 <= r["score"] <= 100 for r in rows)
    assert "prompt_fingerprint:" in rows[0]["signature"] and "decoding:next-token-probs" in rows[0]["signature"]
    assert all(u["answer"].startswith("expected ") for u in rows[0]["units"])
    human = tmp_path / "human.tsv"
    human.write_text("system\tscore\n" + "".join(f"{r['system']}\t{i}\n" for i, r in enumerate(rows)),
                     encoding="utf-8")
    code, out, err = run_cli(capsys, "-q", "-m", spec, *quickstart("--human", human, "-f", "json"))
    assert code == 0, err
    (ev,) = json.loads(out)
    assert ev["accuracy"] in (0.0, 1.0)


def test_document_context_is_shown_before_the_segment(tiny):
    b = backbone(tiny, score="constrained")
    unit = Unit(mt=HYP[2], src=SRC[2], src_context=tuple(SRC[:2]), mt_context=tuple(HYP[:2]))
    b.load()
    shown = b.prompt.messages(0, dict(b._values(unit, 0), context="X"))
    ids, dropped = b._fit(0, unit, b._values(unit, 0), 0)
    text = b._lm.tok.decode(ids)
    assert SRC[0] in text and HYP[1] in text and text.index(HYP[1]) < text.index(HYP[2]) and dropped == 0
    assert "X" in shown[-1]["content"]
    code = backbone(tiny, score="constrained").score([unit]).scores[0]
    assert 0 <= code <= 100


# -- spans through the pipeline (a scripted judge behind the endpoint) --------------------------------------------
def test_mqm_spans_reach_the_json_and_unmatched_are_counted(tmp_path, capsys):
    def judge(messages, max_tokens, logprobs, top_logprobs):
        mt = messages[-1]["content"].split("translation:\n```")[1].split("```")[0]
        word = mt.split()[1]
        return {"content": f'Critical:\nno-error\nMajor:\naccuracy/mistranslation - "{word}"\n'
                           'Minor:\naccuracy/omission - "not in the text"\n'}

    with openai_server(judge) as server:
        code, out, err = run_cli(capsys, "-q", "-m", f"gemba-mqm:endpoint={server.url},model=tiny",
                                 *quickstart("--level", "chunk", "-f", "json"))
    assert code == 0, err
    rows = json.loads(out)
    for row in rows:
        assert row["score"] == -6.0  # a major (5) and a minor (1) error
        for u, hyp in zip(row["units"], HYP if row["system"].endswith("sysA.txt") else HYP_B):
            word = hyp.split()[1]
            assert u["spans"] == [{"start": hyp.index(word), "end": hyp.index(word) + len(word), "severity": "major"}]
            assert 'accuracy/mistranslation' in u["answer"]


# -- the endpoint ------------------------------------------------------------------------------------------------
def test_endpoint_gives_the_same_scores_as_in_process(tiny):
    units = UNITS[:6]
    with openai_server(model_answerer(tiny)) as server:
        for score, extra in (("parse", {"max_new_tokens": 8, "max_unparsed": 1.0}),
                             ("expected", {"top_logprobs": 1000})):
            remote = LlmBackbone("tiny", endpoint=server.url, lang="en-de", score=score, **extra).score(units)
            local = backbone(tiny, score=score, **extra).score(units)
            assert remote.scores == pytest.approx(local.scores, abs=1e-5)
            if score == "parse":
                assert [r.answer for r in remote.records()] == [r.answer for r in local.records()]
        assert server.bodies[0]["temperature"] == 0 and server.bodies[0]["seed"] == 0


@pytest.mark.parametrize("fault,says", [("500", "answered HTTP 500"), ("hang", "did not finish answering within"),
                                        ("drop", "")])
def test_endpoint_faults_exit_2_naming_it_and_the_cache_keeps_what_was_scored(tiny, tmp_path, capsys, fault, says):
    answer = model_answerer(tiny, max_new_tokens=4)
    spec = "slide:w=1,s=1,backbone=llm,model=tiny,lang=en-de,score=parse,max_new_tokens=4,max_unparsed=1,timeout=1"
    testset = docmetrics.TestSet.from_lists({"a": HYP}, SRC, None, ["d"] * len(HYP))
    path = tmp_path / "scores.sqlite"
    with openai_server(answer, fail=lambda n: fault if n == 5 else None) as server:
        store = cache_module.ScoreCache(path, chunk_size=2)
        session = docmetrics.Session(cache=store)
        with pytest.raises(docmetrics.UserError) as info:
            docmetrics.load(f"{spec},endpoint={server.url}", session=session).compute(testset)
        session.close()
        store.close()
        assert server.url in str(info.value) and says in str(info.value)
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    # the same server, healthy again (endpoint= is in the signature): the chunks scored before are not asked again
    with openai_server(answer, port=port) as server:
        store = cache_module.ScoreCache(path, chunk_size=2)
        session = docmetrics.Session(cache=store)
        docmetrics.load(f"{spec},endpoint={server.url}", session=session).compute(testset)
        session.close()
        store.close()
        assert server.requests == len(set(zip(HYP, SRC))) - 4
    with openai_server(answer, fail=lambda n: fault) as server:  # the CLI: exit 2, one line naming it
        code, out, err = run_cli(capsys, "-q", "-m", f"{spec},endpoint={server.url}", "-i", DATA / "sysA.txt", "-s",
                                 DATA / "src.txt")
    assert code == 2 and server.url in err and len(err.strip().splitlines()) == 1, err


def test_the_sandboxed_chat_template_writes_what_transformers_writes(tiny):
    from docmetrics_backbones.llm.chat_template import ChatTemplate
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tiny), local_files_only=True)
    messages = [{"role": "system", "content": "Judge."}, {"role": "user", "content": "Score: {x}\n«Tee»"},
                {"role": "assistant", "content": "85"}, {"role": "user", "content": "again"}]
    ours = ChatTemplate(tok.chat_template, "t").render(messages, {k: v for k, v in tok.special_tokens_map.items()
                                                                  if isinstance(v, str)})
    assert ours == tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)


# -- hostile endpoints (issue 37): no redirect, a deadline per request, a capped reply ----------------------------
def _constant(*args, **kwargs):
    return {"content": "90"}


HOSTILE_ENDPOINTS = [  # (what the first server does, what the one line says)
    ("302 {other}/chat/completions", "answered HTTP 302 (Found), a redirect to {other}/chat/completions"),
    ("307 {other}/chat/completions", "answered HTTP 307 (Temporary Redirect), a redirect to {other}"),
    ("301 {other}/chat/completions", "follows no redirect"),
    ("trickle", "did not finish answering within 1 s (timeout= limits the whole request)"),
    ("huge", "bytes in reply to a chat request of at most 8 tokens"),
]


@pytest.mark.parametrize("fault,says", HOSTILE_ENDPOINTS)
def test_hostile_endpoint_rows_exit_2_and_the_key_stays_home(capsys, monkeypatch, fault, says):
    import time

    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    with openai_server(_constant) as other:
        fault = fault.format(other=other.url)
        with openai_server(_constant, fail=lambda n: fault) as server:
            start = time.monotonic()
            code, out, err = run_cli(capsys, "-q", "-m", f"gemba-da:endpoint={server.url},model=tiny,score=parse,"
                                     "max_new_tokens=8,timeout=1", *quickstart())
            took = time.monotonic() - start
            assert server.keys[0] == "Bearer sk-secret"  # the endpoint named gets the key ...
        assert other.requests == 0 and other.keys == []  # ... and no other host: nothing followed there
    assert code == 2 and out == "" and says.format(other=other.url) in err, err
    assert server.url in err and "sk-secret" not in err and len(err.strip().splitlines()) == 1, err
    assert took < 10, took  # trickle: the deadline is per request (before: each read waited up to timeout=)


# -- bad input rows: exit 2, one line --------------------------------------------------------------------------
def _closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def bad_rows(tiny, tmp_path):
    bert = tmp_path / "bert"
    bert.mkdir(exist_ok=True)
    (bert / "config.json").write_text(json.dumps({"model_type": "bert", "architectures": ["BertModel"]}))
    missing = tmp_path / "missing.txt"
    missing.write_text(load_prompt("gemba-da").path and Path(load_prompt("gemba-da").path).read_text(
        encoding="utf-8").replace("{target_seg}", "the translation"), encoding="utf-8")
    typo = tmp_path / "typo.txt"
    typo.write_text(Path(load_prompt("gemba-da").path).read_text(encoding="utf-8").replace("{source_seg}",
                    "{source_seg} {sourse_lang}"), encoding="utf-8")
    plain = build_tiny_llm(tmp_path / "plain", chat_template=False)
    deep = tmp_path / "deep"  # issue 37: a config far larger than its weights is refused before torch builds it
    shutil.copytree(tiny, deep)
    config = json.loads((deep / "config.json").read_text(encoding="utf-8"))
    (deep / "config.json").write_text(json.dumps(dict(config, num_hidden_layers=100000)), encoding="utf-8")
    return [
        (f"model={deep}", f"model '{deep}': {deep}/config.json describes a model of about"),
        (f"model={bert}", "not a causal"),
        (f"model={tiny},prompt={missing}", "no {target_seg} placeholder"),
        (f"model={tiny},prompt={typo}", "unknown placeholder {sourse_lang}"),
        (f"model=tiny,endpoint=http://127.0.0.1:{_closed_port()}/v1,score=parse", "cannot be reached"),
        (f"model={plain}", "no chat template"),
        (f"model={tiny},prompt=gemba-mqm,score=expected", "use score=parse"),
        (f"model={tiny},names=xx", "CODE:Name"),
        *hostile_templates(tiny, tmp_path),
    ]


def hostile_templates(tiny, tmp_path):
    """Issue 37: chat templates that loop for hours, read files, escape the sandbox or never end: each a row."""
    rows = []
    for name, text, says in [
        ("nested-range", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
         "stopped: it ran more than 1,000,000 loop steps and calls; a chat template only lays out the messages"),
        ("include", "{% include '/etc/passwd' %}", "includes, imports or extends '/etc/passwd'"),
        ("escape", "{{ messages.__class__.__mro__[1].__subclasses__() }}", "refused by the sandbox"),
        ("huge-string", "{{ 'x' * 10000000000 }}", "stopped: it builds a sequence of 1 x 10000000000 items with '*'"),
        ("recursion", "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "failed while writing the conversation "
                                                                            "(RecursionError"),
        ("syntax", "{% for x in %}", ", line 1: not a Jinja template"),
    ]:
        path = tmp_path / f"{name}.jinja"
        path.write_text(text, encoding="utf-8")
        rows.append((f"model={tiny},chat_template={path}", f"chat_template={path}" + ("" if name == "syntax" else ": ")
                     + says))
    big = tmp_path / "big.jinja"
    big.write_text("x" * ((1 << 20) + 1), encoding="utf-8")
    rows += [(f"model={tiny},chat_template=/dev/zero", "chat_template=/dev/zero: cannot be read (not a regular file"),
             (f"model={tiny},chat_template={big}", f"chat_template={big}: cannot be read (larger than 1 MiB")]
    own = build_tiny_llm(tmp_path / "own", chat_template=False)  # a checkpoint whose own template is hostile
    config = json.loads((own / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["chat_template"] = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    (own / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    rows.append((f"model={own}", f"the chat template of model '{own}' ({own}/tokenizer_config.json or "
                                 "chat_template.jinja): stopped: it ran more than 1,000,000"))
    return rows


def test_bad_input_rows_exit_2_with_one_line(tiny, tmp_path, capsys):
    import time

    for extra, says in bad_rows(tiny, tmp_path):
        start = time.monotonic()
        code, out, err = run_cli(capsys, "-q", "-m", f"slide:w=1,s=1,backbone=llm,{extra}", *quickstart())
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, (extra, err)
        assert time.monotonic() - start < 30, extra  # a hostile template stops at once (before: killed after 150 s)
    code, out, err = run_cli(capsys, "-q", "-m", f"gemba-da:model={tiny}", *quickstart()[:-2], "-l", "en-xx")
    assert code == 2 and "cannot name language 'xx'" in err, err
