"""The explicit runtime (docmetrics.Session): backbones keyed by their settings and never changed after
they are built, ASD's aligner built like its scorer (so ``--max-tokens`` reaches every call, in-process
and in worker processes), sessions that share nothing, and a cache read from the environment once.

The backbone here records, at every call, the token budget and batch size it runs with, its process
and its identity, in the file its model names (so worker processes report too)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from plugin_fixtures import write_distribution

import docmetrics
from docmetrics.cli import main
from docmetrics.runtime import cache
from docmetrics.runtime.session import Session

BUDGET = '''
import json
import os

from docmetrics import QE, Backbone, BackboneOutput


class Budget(Backbone):
    """Scores by text length; appends what it runs with to the file its model names."""

    name = "budget"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        with open(str(self.model) + ".built", "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\\n")

    def load(self):
        pass

    @property
    def capabilities(self):
        return frozenset({QE})

    def _record(self, method, n):
        with open(self.model, "a", encoding="utf-8") as f:
            f.write(json.dumps({"pid": os.getpid(), "obj": id(self), "method": method, "n": n,
                                "max_tokens": self.max_tokens, "batch_size": self.batch_size}) + "\\n")

    def score(self, units):
        self._record("score", len(units))
        return BackboneOutput([(len(u.mt) % 7) / 7 + 0.01 * len(u.src or "") for u in units],
                              [False] * len(units), {}, [{} for _ in units])

    def fingerprint(self):
        return "budget0"
'''

SRC = ["Das ist gut.", "Es regnet heute.", "Wir gehen nach Hause.", "Der Hund schläft.", "Ende."]
HYP = ["This is good.", "It rains today. Really.", "We go home.", "The dog sleeps.", "End."]
IDS = ["d1", "d1", "d1", "d2", "d2"]


@pytest.fixture(scope="module")
def budget_dist(tmp_path_factory):
    from docmetrics.plugin import registry

    root = write_distribution(tmp_path_factory.mktemp("site"), "docmetrics-budget", "1.0",
                              {"docmetrics_budget/__init__.py": BUDGET},
                              "[docmetrics.backbones]\nbudget = docmetrics_budget:Budget\n")
    sys.path.insert(0, str(root))
    registry.refresh()
    yield root
    sys.path.remove(str(root))
    for mod in [m for m in sys.modules if m.startswith("docmetrics_budget")]:
        del sys.modules[mod]
    registry.refresh()


@pytest.fixture()
def files(tmp_path):
    def write(name, lines):
        path = tmp_path / name
        path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return str(path)

    return {"src": write("src.txt", SRC), "hyp": write("hyp.txt", HYP), "ids": write("ids.txt", IDS)}


def calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


def asd_spec(log: Path) -> str:
    return f"asd:backbone=budget,model={log},aligner=budget,aligner_model={log},lang=de-en"


@pytest.mark.parametrize("engine", [[], ["--workers", "2"]], ids=["in-process", "workers-2"])
def test_asd_max_tokens_reaches_every_call_of_one_model_as_aligner_and_scorer(budget_dist, files, tmp_path,
                                                                              capsys, engine):
    log = tmp_path / "calls.jsonl"
    code = main(["-m", asd_spec(log), "-i", files["hyp"], "-s", files["src"], "--doc-ids", files["ids"],
                 "--max-tokens", "77", "-f", "json", *engine])
    out, err = capsys.readouterr()
    assert code == 0, err
    seen = calls(log)
    assert len(seen) >= 2  # the alignment pass and the scoring pass
    assert {c["max_tokens"] for c in seen} == {77}
    assert {c["batch_size"] for c in seen} == {None}
    if not engine:  # in-process: the aligner IS the scorer's backbone (one model, loaded once)
        assert len({c["obj"] for c in seen}) == 1
    else:
        assert len({c["pid"] for c in seen} - {__import__("os").getpid()}) >= 1  # scored in workers
    assert json.loads(out)[0]["score"] == pytest.approx(json.loads(_in_process_reference(log, files))[0]["score"])


def test_asd_max_tokens_reaches_every_call_on_ray(budget_dist, files, tmp_path, capfd, monkeypatch):
    pytest.importorskip("ray")
    monkeypatch.setenv("PYTHONPATH", str(budget_dist))  # Ray's workers import the backbone's module
    log = tmp_path / "calls.jsonl"
    code = main(["-m", asd_spec(log), "-i", files["hyp"], "-s", files["src"], "--doc-ids", files["ids"],
                 "--max-tokens", "77", "-f", "json", "--engine", "ray", "--workers", "2", "-q"])
    out, err = capfd.readouterr()  # file descriptors: Ray's C++ core writes there
    if code == 2 and "Ray did not start" in err:
        pytest.skip(f"Ray cannot start on this machine: {err.strip()}")
    assert code == 0, err
    assert "ray log level" not in err and "Traceback" not in err  # Ray's start-up line is held back
    seen = calls(log)
    assert len(seen) >= 2 and {c["max_tokens"] for c in seen} == {77}
    assert __import__("os").getpid() not in {c["pid"] for c in seen}  # every call on an actor
    assert json.loads(out)[0]["score"] == pytest.approx(json.loads(_in_process_reference(log, files))[0]["score"])


def _in_process_reference(log: Path, files: dict) -> str:
    """The same ASD run with no token budget, in this process (the numbers must not depend on it)."""
    other = log.with_name("reference.jsonl")
    from contextlib import redirect_stdout
    from io import StringIO

    buf = StringIO()
    with redirect_stdout(buf):
        assert main(["-m", asd_spec(other), "-i", files["hyp"], "-s", files["src"], "--doc-ids", files["ids"],
                     "-f", "json", "-q"]) == 0
    return buf.getvalue()


def test_two_metrics_on_one_model_with_different_budgets_each_get_theirs(budget_dist, tmp_path):
    log = tmp_path / "calls.jsonl"
    spec = f"slide:w=2,s=1,backbone=budget,model={log}"
    with Session(cache=None) as session:
        small = docmetrics.load(spec, session=session, max_tokens=10)
        large = docmetrics.load(spec, session=session, max_tokens=20)
        again = docmetrics.load(spec, session=session, max_tokens=10)
        plain = docmetrics.load(spec, session=session)
        assert small.backbone is again.backbone  # same model, same settings: one object
        assert small.backbone is not large.backbone and plain.backbone not in (small.backbone, large.backbone)
        results = {m: m.score(HYP, sources=SRC, doc_ids=IDS) for m in (small, large, plain)}
        assert small.backbone.max_tokens == 10 and large.backbone.max_tokens == 20  # never overwritten
        assert plain.backbone.max_tokens is None
    by_obj = {}
    for c in calls(log):
        by_obj.setdefault(c["obj"], set()).add(c["max_tokens"])
    assert by_obj == {id(small.backbone): {10}, id(large.backbone): {20}, id(plain.backbone): {None}}
    assert results[small].score == results[large].score == results[plain].score


def test_sessions_share_nothing(budget_dist, tmp_path):
    log = tmp_path / "calls.jsonl"
    spec = f"slide:w=1,s=1,backbone=budget,model={log}"
    with Session(cache=None) as a, Session(cache=None) as b:
        assert docmetrics.load(spec, session=a).backbone is docmetrics.load(spec, session=a).backbone
        assert docmetrics.load(spec, session=a).backbone is not docmetrics.load(spec, session=b).backbone
        assert len(a.backbones) == len(b.backbones) == 1
    # load() without a session: each metric its own
    assert docmetrics.load(spec).backbone is not docmetrics.load(spec).backbone


def test_a_session_closes_the_cache_it_opened_and_leaves_a_given_one_open(tmp_path):
    given = cache.ScoreCache(tmp_path / "given.sqlite")
    with Session(cache=given) as session:
        assert session.cache is given
    assert given.count() == 0  # still open: the caller closes it
    given.close()
    with Session(cache=tmp_path / "own.sqlite") as session:
        own = session.cache
    with pytest.raises(Exception, match="closed"):
        own.count()


def test_load_refuses_a_cache_beside_a_session(tmp_path):
    with Session(cache=None) as session, pytest.raises(docmetrics.SpecError, match="Session"):
        docmetrics.load("bleu", session=session, cache=None)


def test_a_metric_declaring_uses_neighbours_is_refused_with_the_new_name():
    """0.3.0's class attribute is no longer honoured: refused, so that it is never silently ignored."""
    with pytest.raises(docmetrics.PluginError, match=r"Old: 'uses_neighbours' .* reads_neighbours\(self\)"):
        class Old(docmetrics.Metric):
            name = "old"
            uses_neighbours = True


@pytest.mark.parametrize("params, message, shown", [
    (("workers",), "workers=0 is not a whole number >= 1", "--workers 0 is not a whole number >= 1"),
    (("cache",), "give another path with cache=PATH", "give another path with --cache PATH"),
    (("sources",), "pass it with sources= (why)", "pass it with -s/--source (why)"),
    (("device",), "device=cuda: none; use device=cpu or device=auto", "--device cuda: none; use --device cpu or --device auto"),
    ((), "workers=0 stays", "workers=0 stays"),  # a parameter the error does not declare is left alone
    (("workers",), "max_workers=3, workers=2", "max_workers=3, --workers 2"),
])
def test_errors_name_parameters_and_the_cli_writes_its_flags(params, message, shown):
    from docmetrics.cli.errors import in_flags

    assert in_flags(docmetrics.UserError(message, params=params)) == shown


def test_a_bad_cache_path_through_the_api_and_the_cli(tmp_path, capsys, budget_dist, files):
    folder = tmp_path / "dir.sqlite"
    folder.mkdir()
    with pytest.raises(docmetrics.UserError, match=r"give a file with cache=PATH"):
        Session(cache=folder)
    code = main(["-m", f"slide:w=1,s=1,backbone=budget,model={tmp_path / 'log'}", "-i", files["hyp"], "-s",
                 files["src"], "--cache", str(folder)])
    assert code == 2 and "give a file with --cache PATH" in capsys.readouterr().err


def test_a_sweep_of_6_points_on_2_ray_actors_builds_the_model_once_per_actor(budget_dist, files, tmp_path, capsys,
                                                                           monkeypatch):
    pytest.importorskip("ray")
    import os

    monkeypatch.setenv("PYTHONPATH", str(budget_dist))
    log = tmp_path / "calls.jsonl"
    code = main(["sweep", "-m", f"slide:s=1,partial=keep,backbone=budget,model={log}", "--grid", "w=1..6", "-i", files["hyp"],
                 files["src"], "-s", files["src"], "--doc-ids", files["ids"], "--no-cache", "--engine", "ray",
                 "--workers", "2", "-f", "json", "-q"])
    out, err = capsys.readouterr()
    if code == 2 and "Ray did not start" in err:
        pytest.skip(f"Ray cannot start on this machine: {err.strip()}")
    assert code == 0, err
    points = json.loads(out)["points"]
    assert len(points) == 6 and all(p.get("skipped") in (None, "") for p in points)
    scored_in = {c["pid"] for c in calls(log)}
    assert os.getpid() not in scored_in and 1 <= len(scored_in) <= 2  # every call on one of the 2 actors
    built = [int(x) for x in Path(str(log) + ".built").read_text().split()]
    on_actors = [pid for pid in built if pid != os.getpid()]
    assert len(on_actors) == len(set(on_actors)) <= 2  # each actor built the model once, not once per point


def test_load_names_an_unknown_parameter_before_any_check_between_parameters():
    with pytest.raises(docmetrics.SpecError, match=r"unknown parameter 'stride'; did you mean 's'"):
        docmetrics.load("slide:w=2,stride=1")


def test_load_reads_a_sacrebleu_signature_as_the_metric_it_names():
    import sacrebleu

    hyps, refs = ["the cat sat on the mat", "a dog barked"], ["the cat sat on a mat", "the dog barked loudly"]
    metric = docmetrics.load("BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0")
    assert metric.name == "bleu" and metric.requested_signature is not None
    assert metric.score(hyps, references=refs).score == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score)
