"""The persistent, content-addressed score cache (SQLite) and its hook in Metric.score_units."""

import json
import math
import sqlite3
from pathlib import Path

import pytest
from plugin_fixtures import toy_dist  # noqa: F401

from docmetrics.cli import main
from docmetrics.plugin.backbone import QE, Backbone, BackboneOutput, Unit
from docmetrics.runtime import cache
from docmetrics.runtime.session import Session
from docmetrics.values.errors import UserError
from docmetrics.values.params import Param


def scored(store, backbone, units):
    """``backbone``'s scores of ``units`` answered from ``store`` where it can: the one scorer
    (:class:`~docmetrics.runtime.session.CachingScorer`, in-process) every metric scores through."""
    return Session(cache=store).scorer().score(backbone, units)


class Recorder(Backbone):
    """Scores a unit by its text; records every call; reports context sentences as a counter."""

    name = "recorder"
    default_model = "rec-v1"
    params = (Param("scale", float, 1.0, "multiplies every score"),)

    def __init__(self, *args, fail_after=None, **kw):
        super().__init__(*args, **kw)
        self.calls = []
        self.fail_after = fail_after

    def load(self):
        pass

    @property
    def capabilities(self):
        return frozenset({QE})

    def score(self, units):
        if self.fail_after is not None and len(self.calls) >= self.fail_after:
            raise KeyboardInterrupt  # a killed run
        self.calls.append(list(units))
        scale = self.p.get("scale", 1.0)
        scores = [scale * (len(u.mt) / 7 + 0.1 * len(u.src or "") + 1e-9 * len(u.mt_context)) for u in units]
        counters = (
            {"context": sum(len(u.mt_context) for u in units)} if any(u.mt_context for u in units) else {}
        )
        return BackboneOutput(scores, [len(u.mt) > 20 for u in units], counters)

    def fingerprint(self):
        return "fp-" + str(self.model)


UNITS = [Unit(mt=f"mt {i} " + "x" * i, src=f"src {i}") for i in range(12)]


def test_hits_give_the_same_output_without_calling_the_backbone(tmp_path):
    bb = Recorder()
    with cache.ScoreCache(tmp_path / "c.sqlite") as c:
        first = scored(c, bb, UNITS)
        assert c.stats.to_dict() == {"looked_up": 12, "hits": 0, "scored": 12, "stored": 12, "unstored": 0}
        again = scored(c, bb, UNITS[3:] + UNITS[:3])
        assert c.stats.hits == 12 and len(bb.calls) == 1
    direct = bb.score(UNITS)  # what the backbone itself gives
    assert (first.scores, first.truncated, first.counters) == (direct.scores, direct.truncated, direct.counters)
    assert first.unit_counters == [{}] * len(UNITS)  # no counters: each unit's share is known (none)
    assert again.scores == first.scores[3:] + first.scores[:3]
    assert again.truncated == first.truncated[3:] + first.truncated[:3]


def test_persistent_across_instances_and_floats_round_trip(tmp_path):
    class Exact(Recorder):
        def score(self, units):
            self.calls.append(list(units))
            values = [0.1 + 0.2, 1e-300, -0.0, 5e-324, 2.0**0.5, -1e308]
            return BackboneOutput([values[i % 6] for i in range(len(units))], [False] * len(units))

    path = tmp_path / "c.sqlite"
    out = scored(cache.ScoreCache(path), Exact(), UNITS[:6])
    bb = Exact()
    c2 = cache.ScoreCache(path)  # a new process would open it the same way
    back = scored(c2, bb, UNITS[:6])
    assert bb.calls == [] and c2.stats.hits == 6
    for a, b in zip(out.scores, back.scores):
        assert a == b and math.copysign(1, a) == math.copysign(1, b)
    # NaN (which the scorer refuses from a backbone) survives the file too
    c2.store(bb, UNITS[6:7], BackboneOutput([math.nan], [False], {}, [{}]))
    (record,) = cache.ScoreCache(path).lookup(bb, UNITS[6:7]).values()
    value = record.score
    assert math.isnan(value)


@pytest.mark.parametrize("change", ["option", "fingerprint", "precision"])
def test_key_includes_the_backbone_identity(tmp_path, change):
    base = Recorder(scale=1.0)
    other = {
        "option": Recorder(scale=2.0),
        "fingerprint": Recorder("rec-v2", scale=1.0),
        "precision": Recorder(precision="bf16", scale=1.0),
    }[change]
    with cache.ScoreCache(tmp_path / "c.sqlite") as c:
        scored(c, base, UNITS)
        scored(c, other, UNITS)
        assert c.stats.hits == 0 and len(other.calls) == 1
        assert c.key_for(base) != c.key_for(other)
        # the model's path is not in the key: the same weights elsewhere hit
        moved = Recorder(scale=1.0)
        moved.model_name = lambda: "/elsewhere/rec-v1"  # type: ignore[method-assign]
        scored(c, moved, UNITS)
        assert moved.calls == [] and c.stats.hits == 12


def test_key_is_the_exact_unit_content():
    a = Unit(mt="b c", src="a")
    assert cache.unit_key(a) == cache.unit_key(Unit(mt="b c", src="a"))
    for other in (
        Unit(mt="b c", src="a", ref=""),
        Unit(mt="b c ", src="a"),
        Unit(mt="b c", src="a", mt_context=("x",)),
        Unit(mt="c", src="a", mt_context=("b",)),
        Unit(mt="b c", src=None),
    ):
        assert cache.unit_key(other) != cache.unit_key(a)


def test_counters_are_cached_only_where_they_belong_to_a_unit(tmp_path):
    ctx = [Unit(mt=f"m{i}", src="s", mt_context=("a",) * (i % 3)) for i in range(6)]
    zero = [Unit(mt=f"z{i}", src="s", mt_context=()) for i in range(3)]
    uncached = Recorder().score(ctx)
    with cache.ScoreCache(tmp_path / "c.sqlite", chunk_size=4) as c:
        bb = Recorder()
        out = scored(c, bb, ctx)
        assert out.counters == uncached.counters == {"context": 6}
        # contexts 0,1,2,0 | 1,2: each chunk's counter (3 and 3) cannot be split among its units,
        # so nothing is stored (a rerun must report the same counters)
        assert c.stats.stored == 0 and c.stats.unstored == 6
        one = cache.ScoreCache(tmp_path / "d.sqlite", chunk_size=1)
        assert scored(one, Recorder(), ctx).counters == {"context": 6} and one.stats.stored == 6
        rerun = scored(cache.ScoreCache(tmp_path / "d.sqlite", chunk_size=1), bb, ctx)
        assert rerun.counters == {"context": 6} and rerun.scores == out.scores
        scored(c, bb, zero)
        assert c.stats.stored == 3  # no counters at all: stored


def test_an_interrupted_call_resumes_from_what_was_committed(tmp_path):
    path = tmp_path / "c.sqlite"
    reference = Recorder().score(UNITS)
    killed = Recorder(fail_after=2)
    c = cache.ScoreCache(path, chunk_size=5)
    with pytest.raises(KeyboardInterrupt):
        scored(c, killed, UNITS)
    assert c.count() == 10  # two chunks of 5 were committed before the "kill"
    c2 = cache.ScoreCache(path, chunk_size=5)
    bb = Recorder()
    out = scored(c2, bb, UNITS)
    assert c2.stats.hits == 10 and c2.stats.scored == 2 and [len(x) for x in bb.calls] == [2]
    assert out.scores == reference.scores and out.truncated == reference.truncated


def test_bad_cache_file_is_a_user_error(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(UserError, match="bad.sqlite"):
        cache.ScoreCache(bad)
    db = sqlite3.connect(tmp_path / "old.sqlite")
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema','0');"
    )
    db.commit()
    db.close()
    with pytest.raises(UserError, match="not a docmetrics score cache"):
        cache.ScoreCache(tmp_path / "old.sqlite")  # more in test_cache_faults.py


@pytest.mark.parametrize("value, where", [
    (None, None), ("", None), ("0", None), ("off", None), ("1", "default"), ("yes", "default"),
    ("{tmp}/env.sqlite", "{tmp}/env.sqlite"),
])
def test_cache_from_the_environment_is_read_when_a_session_is_made(tmp_path, value, where):
    from docmetrics.runtime.session import Session

    environ = {} if value is None else {cache.ENV: value.format(tmp=tmp_path)}
    with Session(environ=environ) as session:
        expected = None if where is None else cache.default_path() if where == "default" else \
            Path(where.format(tmp=tmp_path))
        assert (session.cache.path if session.cache is not None else None) == expected
    # read once: a session made before the variable changes keeps what it read
    with Session(environ=environ) as before:
        environ[cache.ENV] = str(tmp_path / "other.sqlite")
        assert (before.cache.path if before.cache is not None else None) == expected


# -- through Metric.score_units and the command line (toy backbone) -------------------------------------
SRC = [f"Source sentence {i} with words" for i in range(9)]
HYP = [f"Satz {i} mit Wörtern {'x' * i}" for i in range(9)]
IDS = ["d1"] * 4 + ["d2"] * 5


@pytest.fixture()
def files(tmp_path):
    def w(name, lines):
        p = tmp_path / name
        p.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return str(p)

    return {"src": w("src.txt", SRC), "hyp": w("hyp.txt", HYP), "ids": w("ids.txt", IDS)}


def test_cli_cache_flag(toy_dist, files, capsys, tmp_path, monkeypatch):
    from docmetrics_toy import ToyBackbone

    monkeypatch.delenv(cache.ENV, raising=False)
    path = tmp_path / "scores.sqlite"
    args = [
        "-m",
        "slide:w=3,s=1,backbone=toy",
        "-i",
        files["hyp"],
        "-s",
        files["src"],
        "--doc-ids",
        files["ids"],
        "-f",
        "json",
        "--level",
        "chunk",
    ]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert not path.exists()  # off by default
    assert main(args + ["--cache", str(path)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == plain and "5 distinct units, 0 from cache" in err and path.exists()
    ToyBackbone.calls.clear()
    assert main(args + ["--cache", str(path)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == plain and "5 from cache (100.0%)" in err
    assert ToyBackbone.calls == []  # the backbone was not asked at all
    assert main(args) == 0 and "score cache" not in capsys.readouterr().err  # --cache was for that run only


def test_backbone_state_is_part_of_the_key(tmp_path):
    """Scores that depend on test-set state (idf from the references) are keyed by that state, and
    never cached when the state is 'the units of this call'."""

    class Stateful(Recorder):
        state = {"idf_corpus": "refs-1"}

        def cache_state(self):
            return dict(self.state)

    bb = Stateful()
    c = cache.ScoreCache(tmp_path / "s.sqlite")
    scored(c, bb, UNITS[:4])
    scored(c, bb, UNITS[:4])
    assert len(bb.calls) == 1  # same state: answered from the cache
    bb.state = {"idf_corpus": "refs-2"}
    scored(c, bb, UNITS[:4])
    assert len(bb.calls) == 2  # another reference set: scored again
    bb.state = {"idf_corpus": "units-of-the-call"}
    stored = c.stats.stored
    scored(c, bb, UNITS[:4])
    scored(c, bb, UNITS[:4])
    assert len(bb.calls) == 4 and c.stats.stored == stored
