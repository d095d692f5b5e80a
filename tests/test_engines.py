"""Engines (issue: score at the speed of the hardware): the same scores whatever scores them.

* token-budget batching keeps its promises (checked against a brute-force reading of the batches);
* ``Workers(2)`` (two spawned processes) and ``RayEngine`` (a local Ray with 2 CPUs) give the
  in-process scores to 1e-6 for slide, doc-comet, doc-bertscore and asd (chunks of 4 units, so both
  workers get work); the chunks are the same whichever engine scores them;
* a run that fails half-way (a killed Ray run) keeps what it scored in the score cache, and the rerun
  scores only the rest;
* Ray actors live as long as the engine: 6 calls (a sweep's grid points) build the backbone at most once
  per actor; the chunk of an actor that dies is scored again on a new actor (the run goes on), and if that
  one dies too the run stops with a PluginError naming the backbone (worker processes:
  tests/test_engine_workers.py);
* a backbone that raises, or returns the wrong number of scores, is a PluginError naming it;
* bad input to the new options is exit 2 with one message; the progress bar is for terminals only.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from engine_fixtures import Counting, Killing, KillingOnce, Recording, builds, deadline
from test_template import DOCS, REF, SRC, A, B

import docmetrics
from docmetrics.algorithms.batching import token_batches
from docmetrics.plugin.backbone import QE, Backbone, BackboneOutput, Unit
from docmetrics.runtime import cache, engines
from docmetrics.runtime.session import Session
from docmetrics.values.errors import PluginError, UserError

SYSTEMS = {"A": A, "B": B, "A-copy": list(A)}
QUICKSTART = Path(docmetrics.__file__).parent / "data" / "quickstart"


# -- batching ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_tokens,max_size", [(50, None), (None, 3), (64, 4), (1, None), (None, None)])
def test_token_batches_keep_the_budget_and_cover_every_input_once(seed, max_tokens, max_size):
    rng = random.Random(seed)
    lengths = [rng.randint(1, 40) for _ in range(rng.randint(0, 60))]
    batches = token_batches(lengths, max_tokens=max_tokens, max_size=max_size)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(len(lengths)))
    for b in batches:
        width = max(lengths[i] for i in b)
        if max_tokens is not None and len(b) > 1:
            assert len(b) * width <= max_tokens
        if max_size is not None:
            assert len(b) <= max_size
    assert [lengths[i] for i in flat] == sorted(lengths, reverse=True)  # longest first
    if max_tokens is None and max_size is None:
        assert len(batches) <= 1


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("max_tokens", [64, 400, 4096])
def test_token_batches_bound_their_padding(seed, max_tokens):
    """The batches together run at most 1 + max_padding (10%) tokens per input token (issue 50; a batch of
    one input is never padded); without max_padding only the budget cuts (more padding, never less)."""
    rng = random.Random(seed)
    lengths = [max(1, int(rng.lognormvariate(3, 0.8))) for _ in range(rng.randint(1, 300))]
    batches = token_batches(lengths, max_tokens=max_tokens)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        if len(b) > 1:
            assert len(b) * max(lengths[i] for i in b) <= max_tokens
    padded = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    assert padded <= 1.10 * sum(lengths)
    loose = token_batches(lengths, max_tokens=max_tokens, max_padding=None)
    assert padded <= sum(len(b) * max(lengths[i] for i in b) for b in loose)


@pytest.mark.parametrize("bad", [-0.1, 1.0, 2])
def test_token_batches_refuse_a_padding_share_outside_0_1(bad):
    with pytest.raises(ValueError, match="max_padding"):
        token_batches([3, 2, 1], max_tokens=10, max_padding=bad)


def test_plan_chunks_is_a_function_of_the_items():
    class Plain(Backbone):
        def load(self): ...
        capabilities = frozenset({QE})
        def score(self, units): ...
        def fingerprint(self): return "x"

    bb = Plain("m")
    units = [Unit(mt="x" * (i % 7), src="s") for i in range(30)]
    chunks = engines.plan_chunks(bb, units, 8)
    assert sorted(i for c in chunks for i in c) == list(range(30))
    assert chunks == engines.plan_chunks(bb, units, 8)
    keys = [bb.chunk_key(units[i]) for c in chunks for i in c]
    assert keys == sorted(keys)


# -- the same scores from every engine ------------------------------------------------------------------
@pytest.fixture(scope="module")
def specs(tiny_kiwi_dir, tiny_comet_da_dir):
    return {
        "slide": f"slide:w=2,s=1,partial=keep,model={tiny_kiwi_dir}",
        "doc-comet": f"doc-comet:k=2,model={tiny_comet_da_dir}",
        "doc-bertscore": "doc-bertscore:k=2,model=minilm",
        "asd": f"asd:model={tiny_kiwi_dir},aligner=sentence-embedding,aligner_model=minilm",
    }


def run_all(specs, engine: engines.Engine) -> dict:
    """Every spec scored in one session on ``engine`` (closed with it)."""
    with Session(cache=None, engine=engine, device="cpu") as session:
        return {name: docmetrics.load(spec, session=session).score_systems(
            SYSTEMS, sources=SRC, references=REF, doc_ids=DOCS) for name, spec in specs.items()}


def assert_same(got: dict, want: dict) -> None:
    for name in want:
        for system in want[name]:
            g, w = got[name][system], want[name][system]
            assert g.score == pytest.approx(w.score, abs=1e-6), (name, system)
            assert [u.score for u in g.units] == pytest.approx([u.score for u in w.units], abs=1e-6)
            assert [u.truncated for u in g.units] == [u.truncated for u in w.units]
            # every counter but the cost of the run (ASD's texts embedded for alignment: each worker
            # keeps its own embedding cache, so a parallel engine embeds some texts more than once)
            cost = {"align_model_calls"}
            assert ({k: v for k, v in g.coverage.counters.items() if k not in cost}
                    == {k: v for k, v in w.coverage.counters.items() if k not in cost}), (name, system)


@pytest.fixture(scope="module")
def in_process(specs):
    return run_all(specs, engines.InProcess(chunk=4))


def test_two_worker_processes_give_the_single_process_scores(specs, in_process):
    assert_same(run_all(specs, engines.Workers(2, device="cpu", chunk=4)), in_process)


@pytest.fixture(scope="module")
def ray_engine():
    """One local Ray instance (2 CPUs) and its engine (2 actors) for the module; its workers import this
    directory's modules."""
    pytest.importorskip("ray")
    here = str(Path(__file__).parent)
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (here, saved) if p)
    engine = engines.RayEngine(workers=2, num_cpus=2, device="cpu", chunk=4)
    try:
        try:
            engine._init()  # a machine where Ray itself cannot start is no test of the engine
        except UserError as exc:
            pytest.skip(f"Ray cannot start on this machine: {exc}")
        yield engine
    finally:
        engine.close()
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def test_ray_leaves_sigterm_to_the_command(ray_engine):
    """Issue 37: ray.init makes SIGTERM sys.exit(15) (a stack dump from the command); the engine puts back
    the handler it found (here the default; the command line's stops the run as Ctrl-C does)."""
    import signal

    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_ray_gives_the_single_process_scores(specs, in_process, ray_engine):
    session = Session(cache=None, engine=ray_engine, device="cpu")  # not closed: the engine is the module's
    got = {name: docmetrics.load(spec, session=session).score_systems(
        SYSTEMS, sources=SRC, references=REF, doc_ids=DOCS) for name, spec in specs.items()}
    assert_same(got, in_process)


# -- failures --------------------------------------------------------------------------------------------
def test_a_failed_run_resumes_from_the_cache(tmp_path):
    units = [Unit(mt="x" * i, src="s") for i in range(1, 13)] + [Unit(mt="boom", src="s")]
    scorer_cache = cache.ScoreCache(tmp_path / "c.sqlite", chunk_size=4)
    bb = Counting("m")
    with pytest.raises(PluginError, match="counting.*device lost"):
        Session(cache=scorer_cache).scorer().score(bb, units)
    # the chunks before the failing one were stored (chunks are ordered by length: 'boom' is 4 long)
    stored = scorer_cache.count()
    assert 0 < stored < 13
    out = Session(cache=scorer_cache).scorer().score(bb, units[:12])
    assert out.scores == [float(i) for i in range(1, 13)]
    assert scorer_cache.stats.hits == stored


def test_a_killed_ray_run_resumes_from_the_cache(tmp_path, ray_engine):
    # the failing unit is the longest: its chunk is handed out last, after others came back and were stored
    units = [Unit(mt="y" * i, src="s") for i in range(1, 30)] + [Unit(mt="boom", src="s" * 100)]
    store = cache.ScoreCache(tmp_path / "r.sqlite", chunk_size=3)
    with pytest.raises(PluginError, match="device lost"):
        Session(cache=store, engine=ray_engine).scorer().score(Counting("m"), units)
    kept = store.count()
    assert kept > 0
    out = Session(cache=store).scorer().score(Counting("m"), units[:-1])
    assert out.scores == [float(i) for i in range(1, 30)] and store.stats.hits >= kept


def test_ray_actors_build_the_backbone_once_for_every_call(ray_engine, tmp_path):
    """A sweep of 6 grid points on one engine: each actor builds the model once, not once per point."""
    log = tmp_path / "builds.log"
    items = [Unit(mt="z" * i, src="s") for i in range(1, 8)]
    want = {tuple(c): out.scores for c, out in engines.InProcess(chunk=2).map(Counting("m"), "score", items)}
    for _ in range(6):
        got = {tuple(c): out.scores for c, out in ray_engine.map(Recording(str(log)), "score", items, chunk=2)}
        assert got == want
    built = builds(log)
    built.pop(os.getpid())  # the copies made here, to send
    assert 1 <= sum(built.values()) <= 2 and set(built.values()) == {1}


def test_a_chunk_whose_ray_actor_died_is_scored_again_on_a_new_actor(ray_engine, tmp_path):
    before = ray_engine.started
    items = [Unit(mt=t, src="s") for t in ("a", "bb", "die")]
    with deadline():
        got = dict((tuple(c), out.scores) for c, out in ray_engine.map(
            KillingOnce(f"{os.getpid()}:{tmp_path / 'died'}"), "score", items, chunk=1))
    assert (tmp_path / "died").exists() and got == {(0,): [1.0], (1,): [2.0], (2,): [3.0]}
    assert ray_engine.started > before


def test_a_lost_ray_actor_is_retried_once_then_named(ray_engine, capfd):
    before = ray_engine.started
    items = [Unit(mt="a", src="s"), Unit(mt="die", src="s")]
    with deadline(), pytest.raises(PluginError) as info:
        list(ray_engine.map(Killing(str(os.getpid())), "score", items, chunk=1))
    message = str(info.value)
    assert "backbone 'killing'" in message and "died, and so did the new actor" in message
    assert "chunks already scored were kept" in message
    assert "worker died" not in capfd.readouterr().out  # stdout is for results, not Ray's notices
    assert ray_engine.started > before  # a new actor took the chunk again


@pytest.mark.parametrize("engine", ["in-process", "workers"])
def test_a_backbone_that_raises_is_a_plugin_error_naming_it(engine):
    units = [Unit(mt="a", src="s"), Unit(mt="boom", src="s")]
    eng = engines.InProcess() if engine == "in-process" else engines.Workers(2, device="cpu", chunk=1)
    with eng, pytest.raises(PluginError, match=r"backbone 'counting'.*RuntimeError: device lost"):
        Session(cache=None, engine=eng).scorer().score(Counting("m"), units)


def test_a_backbone_that_returns_too_few_scores_is_named():
    class Short(Counting):
        def score(self, units):
            return BackboneOutput([0.5], [False])

    with pytest.raises(PluginError, match="returned 1 scores for 3 units"):
        Session(cache=None).scorer().score(Short("m"), [Unit(mt=c, src="s") for c in "abc"])


def test_a_fully_cached_run_never_loads_the_model(tmp_path):
    store = cache.ScoreCache(tmp_path / "c.sqlite")
    units = [Unit(mt="x" * i, src="s") for i in range(1, 6)]

    class Loading(Counting):
        def score(self, units):
            self.load()
            return super().score(units)

    Loading.loads = 0
    first = Session(cache=store).scorer().score(Loading("m"), units)
    assert Loading.loads == 1
    again = Session(cache=store).scorer().score(Loading("m"), units)
    assert Loading.loads == 1 and again.scores == first.scores


# -- progress --------------------------------------------------------------------------------------------
class Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal():
    log = io.StringIO()
    bar = engines.Progress(100, "slide", stream=log)
    bar(50)
    bar.close()
    assert log.getvalue() == ""
    tty = Tty()
    bar = engines.Progress(100, "slide", stream=tty)
    bar(50)
    bar.close()
    assert "slide" in tty.getvalue()
    quiet = Tty()
    bar = engines.Progress(100, "slide", stream=quiet, quiet=True)
    bar(50)
    bar.close()
    assert quiet.getvalue() == ""


# -- the command line -------------------------------------------------------------------------------------
def cli(*args: str, env_python: str = "") -> subprocess.CompletedProcess:
    code = env_python + "from docmetrics.cli import main; raise SystemExit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300)


def test_workers_on_the_command_line_give_the_same_scores(tiny_kiwi_dir):
    q = QUICKSTART
    base = ["-m", f"slide:w=2,s=1,model={tiny_kiwi_dir}", "-i", str(q / "sysA.txt"), str(q / "sysB.txt"),
            "-s", str(q / "src.txt"), "--doc-ids", str(q / "docids.txt"), "-f", "json", "-q", "--device", "cpu"]
    one = cli(*base)
    two = cli(*base, "--workers", "2", "--max-tokens", "300")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    scores = [[r["score"] for r in json.loads(run.stdout)] for run in (one, two)]
    assert len(scores[0]) == 2 and scores[1] == pytest.approx(scores[0], abs=1e-6)


BLOCK_RAY = (
    "import sys\n"
    "class _NoRay:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'ray' or name.startswith('ray.'):\n"
    "            raise ImportError('No module named ray')\n"
    "sys.meta_path.insert(0, _NoRay())\n"
)


@pytest.mark.parametrize("args,culprit,python", [
    (["--workers", "0"], "--workers", ""),
    (["--workers", "two"], "--workers", ""),
    (["--max-tokens", "0"], "--max-tokens", ""),
    (["--batch-size", "-3"], "--batch-size", ""),
    (["--engine", "ray", "--ray-address", "127.0.0.1:1"], "--ray-address 127.0.0.1:1", ""),
    (["--engine", "ray", "--ray-address", "nonsense"], "--ray-address", ""),
    (["--ray-address", "127.0.0.1:6379"], "--ray-address needs --engine ray", ""),
    (["--engine", "ray"], "docmetrics[ray]", BLOCK_RAY),
])
def test_bad_engine_options_are_exit_2_naming_the_option(args, culprit, python):
    q = QUICKSTART
    r = cli("-m", "slide:w=2,s=1", "-i", str(q / "sysA.txt"), "-s", str(q / "src.txt"),
            "--doc-ids", str(q / "docids.txt"), *args, env_python=python)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and culprit in r.stderr
    assert len(r.stderr.strip().splitlines()) <= 2


@pytest.mark.parametrize("name", ["slide", "doc-comet"])
def test_a_rerun_the_cache_answers_never_loads_the_comet_model(name, specs, tmp_path, monkeypatch):
    """Capabilities come from hparams.yaml, the fingerprint from the checkpoint file, doc-comet's
    separator from the encoder's tokenizer files: a fully cached rerun loads no weights."""
    from docmetrics_backbones.comet.backbone import CometBackbone

    with cache.ScoreCache(tmp_path / "c.sqlite") as store:
        first = docmetrics.load(specs[name], device="cpu", cache=store).score_systems(
            SYSTEMS, sources=SRC, references=REF, doc_ids=DOCS)
        monkeypatch.setattr(CometBackbone, "load", lambda self: pytest.fail("the model was loaded"))
        metric = docmetrics.load(specs[name], device="cpu", cache=store)
        again = metric.score_systems(SYSTEMS, sources=SRC, references=REF, doc_ids=DOCS)
    assert {s: r.score for s, r in again.items()} == {s: r.score for s, r in first.items()}
    assert again["A"].signature.format() == first["A"].signature.format()


def test_the_declared_separator_is_the_loaded_tokenizers(tiny_comet_da_dir):
    from docmetrics_backbones.comet.backbone import CometBackbone

    bb = CometBackbone(str(tiny_comet_da_dir), device="cpu")
    declared = bb.context_separator()
    assert bb._model is None
    bb.load()
    assert declared == bb.context_separator() == bb._model.encoder.tokenizer.sep_token


@pytest.mark.parametrize("quiet", [False, True])
def test_ray_says_it_is_starting_before_it_starts(tmp_path, capsys, monkeypatch, quiet):
    """Issue 37: --engine ray printed nothing for 150 s; now a note on stderr (none with -q) before Ray starts
    (here ray.init fails at once, so that the note is seen to come first)."""
    ray = pytest.importorskip("ray")
    from cli_fixtures import run_cli

    def init(**kwargs):
        raise RuntimeError("no raylet")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", init)
    (tmp_path / "h.txt").write_text("a b\nc d\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("a b\nc e\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "-m", "doc-bertscore:model=minilm,k=0", "-i", tmp_path / "h.txt", "-r",
                             tmp_path / "r.txt", "--engine", "ray", *(["-q"] if quiet else []))
    assert code == 2 and "Ray did not start (RuntimeError: no raylet)" in err, err
    note = "docmetrics: --engine ray: starting Ray here (this can take a minute)..."
    assert (note in err) is not quiet and (quiet or err.index(note) < err.index("Ray did not start")), err
