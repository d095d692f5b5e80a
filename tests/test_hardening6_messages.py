"""Issue 45, "Vague messages and docs": each case as a careful user meets it.

1. A user value in a message is quoted shortened (``values.errors.shown``: 80 characters, an ellipsis and its
   length), a scores TSV mismatch names the odd line (measured against the systems most agree with), and the
   command line cuts any overlong word of a message as a last guard (``commands.messages.bounded``).
2. A human-clusters test without a p-value says why: zero variance, or fewer than 2 paired scores.
3. ``--wmt26`` without ``--wmt26-ref`` and ``--wmt26 ... -r``: one instruction (``--wmt26-ref NAME``) that works.
4. The LLM backbone's ``endpoint=`` is an http(s) URL with a host, refused by name otherwise.
5. ``--list`` shows the human-data formats and cluster rules; a plugin without a description says so; a plugin
   rule's header is its own definition (no "p < 0.05" for a rule that runs no test).
6. The docs: no ``../shared`` command without "the release you downloaded"; ``sample`` runs again in its own
   folder; ``rank -m`` on GenMT data prints AutoRank and the human clusters in one run; the API page's Sphinx
   roles are rendered as code.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from cli_fixtures import run_cli
from plugin_fixtures import write_distribution

import docmetrics
from docmetrics.plugin import registry
from docmetrics.values.errors import SpecError, shown

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docmetrics" / "data"
SCORES = DATA / "stored" / "scores.tsv"
GENMT = DATA / "genmt" / "ted-ende.jsonl"
WMT26 = ["--wmt26", DATA / "wmt26" / "wmt26-genmt.jsonl", "--wmt26-systems", DATA / "wmt26" / "systems", "-l", "en-de"]


# -- 1. user values quoted shortened, the right line named ---------------------------------------------------------
def test_shown_quotes_short_values_as_repr_and_cuts_long_ones_saying_their_length():
    assert shown("talk.1") == "'talk.1'" and shown(3) == "3"
    long = "d" * 1000
    assert shown(long) == f"{'d' * 80!r}… (1,000 characters)"
    assert len(shown("x" * 50_000_000)) < 120


def test_bounded_cuts_every_overlong_word_of_a_message_and_keeps_the_rest():
    from docmetrics.commands.messages import LONGEST_WORD, bounded

    short = "s.tsv, line 2: 'abc' is not a number"
    assert bounded(short) == short
    text = f"f.tsv, line 3: {'y' * 5000} is not a number; leave the cell empty"
    cut = bounded(text)
    assert cut.startswith("f.tsv, line 3: " + "y" * 120 + "… (5,000 characters)")
    assert cut.endswith("is not a number; leave the cell empty") and len(cut) < 250
    assert bounded("z" * LONGEST_WORD) == "z" * LONGEST_WORD


def _scores_with(tmp_path: Path, line: int, column: int, value: str) -> Path:
    rows = SCORES.read_text(encoding="utf-8").split("\n")
    parts = rows[line - 1].split("\t")
    parts[column] = value
    rows[line - 1] = "\t".join(parts)
    out = tmp_path / "s.tsv"
    out.write_text("\n".join(rows), encoding="utf-8")
    return out


def _human_with(tmp_path: Path, line: int, column: int, value: str) -> Path:
    rows = (DATA / "ted" / "human_seg.tsv").read_text(encoding="utf-8").split("\n")
    parts = rows[line - 1].split("\t")
    parts[column] = value
    rows[line - 1] = "\t".join(parts)
    out = tmp_path / "h.tsv"
    out.write_text("\n".join(rows), encoding="utf-8")
    return out


BIG = 50 * 1024 * 1024  # the 50 MB doc id
HUGE = 200_000
#: (id, argv builder, what the one error line must name); every row: exit 2, one line, a short stderr
LONG_VALUES = [
    ("doc_id-50MB-line-2", lambda t: ["--scores", _scores_with(t, 2, 1, "d" * BIG)],
     ["s.tsv, line 2, field doc_id", "system 'Facebook-AI' has document 'ddd", f"({BIG:,} characters)",
      "(1 segment)", "'Online-W' (and 4 other systems) has 'talk.1' (8 segments, line 26)"]),
    ("doc_id-rank", lambda t: ["rank", "--scores", _scores_with(t, 2, 1, "d" * HUGE), "-l", "en-de"],
     ["s.tsv, line 2, field doc_id", f"({HUGE:,} characters)"]),
    ("system-name", lambda t: ["--scores", _scores_with(t, 2, 0, "S" * HUGE)],
     ["s.tsv, line 2, field doc_id", "system 'SSS", f"({HUGE:,} characters)"]),
    ("score-cell", lambda t: ["--scores", _scores_with(t, 2, 2, "7" * HUGE + "x")],
     ["s.tsv, line 2, field chrF", f"({HUGE + 1:,} characters) is not a number"]),
    ("header", lambda t: ["--scores", _scores_with(t, 1, 0, "h" * HUGE)],
     ["s.tsv, line 1: the header must be", f"({HUGE + len(chr(9) + 'doc_id' + chr(9) + 'chrF' + chr(9) + 'BLEU'):,} characters)"]),
    ("human-score-cell", lambda t: ["--human", _human_with(t, 2, 5, "9" * HUGE + "x"), "--scores", SCORES],
     ["h.tsv, line 2, column score", f"({HUGE + 1:,} characters)"]),
    ("human-header", lambda t: ["--human", _human_with(t, 1, 0, "c" * HUGE), "--scores", SCORES],
     ["h.tsv, line 1", "…"]),
]


@pytest.mark.parametrize("make,needles", [r[1:] for r in LONG_VALUES], ids=[r[0] for r in LONG_VALUES])
def test_a_huge_value_in_an_input_is_quoted_shortened_at_its_line(capsys, tmp_path, make, needles):
    code, out, err = run_cli(capsys, *make(tmp_path))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and " error: " in lines[0], err[:2000]
    assert len(err) < 1200, len(err)
    for needle in needles:
        assert needle in lines[0], (needle, lines[0][:1500])


def test_a_scores_tsv_mismatch_names_the_odd_system_not_a_good_one(tmp_path):
    """Five systems agree, one has a document of its own: the message names that system's line."""
    from docmetrics.formats.stored import read_score_tsv
    from docmetrics.values.errors import InputError

    rows = SCORES.read_text(encoding="utf-8").split("\n")
    odd = next(k for k, r in enumerate(rows) if r.startswith("Nemo\t"))
    parts = rows[odd].split("\t")
    parts[1] = "talk.other"
    rows[odd] = "\t".join(parts)
    path = tmp_path / "s.tsv"
    path.write_text("\n".join(rows), encoding="utf-8")
    with pytest.raises(InputError, match=rf"line {odd + 1}, field doc_id: system 'Nemo' has document 'talk.other' "
                                         r"\(1 segment\) as its document 1, where system 'Facebook-AI' \(and 4 other "
                                         r"systems\) has 'talk.1' \(8 segments, line 2\)"):
        read_score_tsv(str(path))


# -- 2. why a test has no p-value ----------------------------------------------------------------------------------
def _constant_human(tmp_path: Path) -> Path:
    rows = (DATA / "ted" / "human_seg.tsv").read_text(encoding="utf-8").strip().split("\n")
    out = [rows[0]] + ["\t".join(r.split("\t")[:5] + ["50"]) for r in rows[1:]]
    path = tmp_path / "const.tsv"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("rule,tests,how", [("wmt26", 9, "does not separate"), ("wmt25", 15, "does not separate"),
                                            ("wmt25-adjacent", 5, "does not separate"), ("wmt24", 15, "separates")])
def test_equal_human_scores_say_zero_variance_not_no_paired_scores(capsys, tmp_path, rule, tests, how):
    code, out, err = run_cli(capsys, "rank", "--human", _constant_human(tmp_path), "--rule", rule)
    assert code == 0, err
    note = next(line for line in out.splitlines() if "without a p-value" in line)
    assert note.startswith(f"{tests} test(s) without a p-value ({tests} with zero variance: every paired difference")
    assert "no paired scores" not in out and f"the rule {how} them" in note
    # an independent check of the cause: scipy gives no p-value where every paired difference is 0
    from scipy.stats import ttest_rel, wilcoxon

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isnan(ttest_rel([50.0] * 24, [50.0] * 24).pvalue)
        try:
            p = wilcoxon([0.0] * 24).pvalue
        except ValueError:
            p = math.nan
    assert math.isnan(p)


def test_fewer_than_two_paired_scores_is_said_as_such():
    from docmetrics.formats.judgements import from_rows
    from docmetrics.judging import human_clusters

    # two systems that judged different items: no paired score, and one score each (no variance either)
    data = from_rows({"A": [70.0, None], "B": [None, 50.0]}, ["news", "news"], source="toy", lp="en-de")
    ranking = human_clusters(data, "wmt26")
    assert ranking.tests[0].pairs == 0 and math.isnan(ranking.tests[0].p)
    assert any("(1 with fewer than 2 paired scores, e.g. A and B)" in n for n in ranking.notes), ranking.notes


# -- 3. --wmt26 and its references: one instruction that works --------------------------------------------------
@pytest.mark.parametrize("command", [[], ["rank"]], ids=["docmetrics", "rank"])
def test_wmt26_reference_advice_is_one_instruction_that_works_when_followed(capsys, command):
    code, out, err = run_cli(capsys, *command, "-m", "chrf", *WMT26, "-q")
    assert code == 2 and err.count("\n") == 1, err
    assert "chrf needs a reference" in err and "--wmt26-ref NAME" in err and " -r" not in err
    if not command:
        assert "its references: refA" in err
    code, out, err = run_cli(capsys, *command, "-m", "chrf", *WMT26, "-r", DATA / "ted" / "ref.txt", "-q")
    assert code == 2 and err.count("\n") == 1, err
    assert "drop -r and name one of the test file's references with --wmt26-ref NAME" in err
    code, out, err = run_cli(capsys, *command, "-m", "chrf", *WMT26, "--wmt26-ref", "refA", "-q")
    assert code == 0 and "Facebook-AI" in out, err


def test_a_reference_free_metric_on_wmt26_needs_no_reference_advice(capsys):
    """The rewrite is only for a metric that needs a reference, and only with --wmt26."""
    code, out, err = run_cli(capsys, "-m", "chrf", "-i", DATA / "quickstart" / "sysA.txt", "-q")
    assert code == 2 and "-r/--reference" in err and "--wmt26" not in err


# -- 4. the LLM endpoint -------------------------------------------------------------------------------------------
ENDPOINTS = [
    ("file", "file:///etc/passwd", "scheme 'file': an endpoint is an http:// or https:// URL"),
    ("ftp", "ftp://host/v1", "scheme 'ftp': an endpoint is an http:// or https:// URL"),
    ("no-scheme", "/v1/chat", "no scheme: an endpoint is an http:// or https:// URL"),
    ("no-host", "http:///v1", "no host: give the server's base URL"),
    ("not-a-url", "http://[::1/v1", "it is not a URL"),
]


@pytest.mark.parametrize("value,needle", [r[1:] for r in ENDPOINTS], ids=[r[0] for r in ENDPOINTS])
def test_an_endpoint_that_is_not_http_is_refused_by_name(capsys, value, needle):
    spec = f"gemba-da:endpoint={value},model=served,score=parse"
    with pytest.raises(SpecError, match=re.escape(f"parameter 'endpoint' has value {value!r}; {needle}")):
        docmetrics.load(spec)
    q = DATA / "quickstart"
    code, out, err = run_cli(capsys, "-m", spec, "-i", q / "sysA.txt", "-s", q / "src.txt", "--doc-ids",
                             q / "docids.txt", "-l", "de-en")
    assert code == 2 and err.count("\n") == 1 and needle in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["http://127.0.0.1:9/v1", "HTTPS://api.example.org/v1"])
def test_an_http_endpoint_is_taken_and_named_in_the_signature(value):
    metric = docmetrics.load(f"gemba-da:endpoint={value},model=served,score=parse")  # nothing is sent on load
    assert f"endpoint:{value}" in metric.signature().format()


# -- 5. --list -----------------------------------------------------------------------------------------------------
TOY = '''
from docmetrics.judging.clusters import ClusteredSystem, HumanRanking
from docmetrics.judging.statistics import Statistic
from docmetrics.judging import EvalSet
from docmetrics.judging.formats import HumanFormat
from docmetrics.judging.rules import ClusterRule


def alphabetical(data):
    return HumanRanking("alpha", data.lp, data.source,
                        [ClusteredSystem(s, 0.0, k + 1, None, 0) for k, s in enumerate(sorted(data.systems))], [],
                        "none")


def top(data):
    return 1.0


FORMAT = HumanFormat("toyh", "a toy human-score file", lambda p: p.endswith(".toyh"), lambda p, lp, o: None)
RULE = ClusterRule("alpha", definition="alphabetical, one system a cluster", rank=alphabetical)
TOP = Statistic("top_agree", "system", "the top system agrees", "top", compute=top)
NAMED = "toy"
QUIET = Statistic(NAMED, "system", NAMED, NAMED, compute=top)
'''


@pytest.fixture()
def toy_listed(tmp_path):
    root = write_distribution(tmp_path / "site", "docmetrics-toy-listed", "2.5", {"toy_listed/__init__.py": TOY},
                              "[docmetrics.human_formats]\ntoyh = toy_listed:FORMAT\n"
                              "[docmetrics.cluster_rules]\nalpha = toy_listed:RULE\n"
                              "[docmetrics.statistics]\ntop_agree = toy_listed:TOP\nquiet = toy_listed:QUIET\n")
    sys.path.insert(0, str(root))
    registry.refresh()
    yield root
    sys.path.remove(str(root))
    sys.modules.pop("toy_listed", None)
    registry.refresh()


def _section(out: str, title: str) -> list[str]:
    lines = out.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith(title))
    end = next((k for k in range(start + 1, len(lines)) if not lines[k].startswith("  ")), len(lines))
    return lines[start + 2:end]


def test_list_shows_every_format_and_rule_with_a_description(capsys):
    from docmetrics.judging.clusters import RULES
    from docmetrics.judging.formats import builtin

    code, out, err = run_cli(capsys, "--list")
    assert code == 0, err
    formats = _section(out, "Human-data formats")
    assert [row.split()[0] for row in formats] == [f.name for f in builtin()]
    assert all(f.title in row for f, row in zip(builtin(), formats))
    rules = _section(out, "Cluster rules")
    assert [row.split()[0] for row in rules] == list(RULES)
    assert all(RULES[row.split()[0]] in row and "docmetrics " in row for row in rules)


def test_list_describes_plugin_formats_rules_and_statistics_or_says_it_cannot(capsys, toy_listed):
    code, out, err = run_cli(capsys, "--list")
    assert code == 0, err
    row = {r.split()[0]: r for title in ("Human-data formats", "Cluster rules", "Meta-evaluation statistics")
           for r in _section(out, title)}
    assert "docmetrics-toy-listed 2.5" in row["toyh"] and row["toyh"].endswith("a toy human-score file")
    assert row["alpha"].endswith("alphabetical, one system a cluster")
    assert row["top_agree"].endswith("the top system agrees")
    assert row["quiet"].endswith("(no description: its source gives none)")  # a title that is not a literal


def test_list_imports_no_plugin_and_no_torch_with_plugins_installed(toy_listed):
    heavy = {"torch", "toy_listed", "comet", "transformers"}
    code = (f"import sys\nsys.path.insert(0, {str(toy_listed)!r})\nfrom docmetrics.cli import main\n"
            f"main(['--list'])\nprint(sorted({{m.split('.')[0] for m in sys.modules}} & {heavy!r}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"
    assert "toyh" in proc.stdout and "alpha" in proc.stdout


def test_a_plugin_rule_header_is_its_definition_and_a_builtin_rule_says_its_threshold(capsys, toy_listed):
    code, out, err = run_cli(capsys, "rank", "--genmt", GENMT, "-l", "en-de", "--rule", "alpha")
    assert code == 0, err
    assert out.splitlines()[0].endswith("rule alpha (alphabetical, one system a cluster)")
    assert "p < 0.05" not in out and "scipy" not in out
    code, out, err = run_cli(capsys, "rank", "--genmt", GENMT, "-l", "en-de", "--rule", "wmt26")
    assert code == 0 and out.splitlines()[0].endswith("local mark where only the adjacent pair differs; p < 0.05)")


# -- 6. the docs ---------------------------------------------------------------------------------------------------
def test_every_command_on_shared_data_is_marked_as_the_release_you_downloaded():
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        if page.name == "changelog.md":
            continue
        text = page.read_text(encoding="utf-8")
        for m in re.finditer(r"```bash\n(.*?)```", text, re.S):
            if not any(line.startswith("docmetrics ") and "../shared" in line for line in m.group(1).splitlines()):
                continue
            before = text[max(0, m.start() - 700):m.start()]
            assert "release you downloaded" in before, f"{page.name}: {m.group(1)[:80]}"


def test_sample_runs_again_in_its_own_folder_and_refuses_a_foreign_file(capsys, tmp_path):
    from docmetrics.plugin.sample_models import sample_model_folders

    out = tmp_path / "sample"
    assert run_cli(capsys, "sample", out, "-q")[0] == 0
    for folder in sample_model_folders()[:2]:  # what --models wrote earlier
        (out / folder).mkdir(parents=True)
        (out / folder / "config.json").write_text("{}", encoding="utf-8")
    code, printed, err = run_cli(capsys, "sample", out, "-q")
    assert code == 0, err
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    code, printed, err = run_cli(capsys, "sample", out, "-q")
    assert code == 2 and f"{out / 'notes.txt'} (not a file of the sample data)" in err and "--force" in err
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_rank_with_metrics_on_genmt_prints_autorank_and_the_human_clusters(capsys):
    code, out, err = run_cli(capsys, "rank", "-m", "chrf", "bleu", "--genmt", GENMT, "-l", "en-de", "--rule", "wmt24",
                             "-f", "json", "-q")
    assert code == 0, err
    data = json.loads(out)
    human = data["human_clusters"]
    assert human["ranking"]["rule"] == "wmt24"
    cluster = {s["system"]: s["cluster"] for s in human["ranking"]["systems"]}
    scores = {m: {s["system"]: s["scores"][m] for s in data["systems"]} for m in ("chrf", "bleu")}
    for a in human["agreement"]:  # each agreement recounted from the two rankings
        sys_ = [s for s in cluster if s in scores[a["metric"]]]
        pairs = [(x, y) for i, x in enumerate(sys_) for y in sys_[i + 1:] if cluster[x] != cluster[y]]
        agree = sum((scores[a["metric"]][x] - scores[a["metric"]][y]) * (cluster[y] - cluster[x]) > 0
                    for x, y in pairs)
        assert (a["pairs"], a["agree"]) == (len(pairs), agree)
    code, text, err = run_cli(capsys, "rank", "-m", "chrf", "--genmt", GENMT, "-l", "en-de", "-q")
    assert code == 0 and text.index("AutoRank en-de_DE") < text.index("Human clusters en-de_DE") < text.index(
        "Agreement with the human clusters")


@pytest.mark.parametrize("args,needle", [
    (["--rule", "wmt26", "-i", DATA / "ted" / "sys" / "UEdin.txt", "-r", DATA / "ted" / "ref.txt"],
     "--rule with -m: the human clusters beside AutoRank are drawn from the test set's own human scores"),
    (["--human", DATA / "ted" / "human_seg.tsv"], "a --human file holds no test set: rank it without -m"),
], ids=["rule-without-human-data", "human-tsv"])
def test_rank_with_metrics_and_no_human_test_set_says_what_gives_both(capsys, args, needle):
    code, out, err = run_cli(capsys, "rank", "-m", "chrf", *args)
    assert code == 2 and err.count("\n") == 1 and needle in err


def _roles_extension():
    spec = importlib.util.spec_from_file_location("griffe_roles", ROOT / "docs" / "_ext" / "griffe_roles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("text,plain", [
    (":class:`~docmetrics.values.result.Result`", "`Result`"),
    (":func:`docmetrics.api.load`", "`docmetrics.api.load`"),
    (":mod:`docmetrics.formats.wmt26`", "`docmetrics.formats.wmt26`"),
    (":data:`FAULTS` and :meth:`Wmt26Pair.testset`", "`FAULTS` and `Wmt26Pair.testset`"),
    (":class:`the result <docmetrics.values.result.Result>`", "`the result`"),
    (":py:class:`~a.b.C` wraps :class:`~docmetrics.values\n.errors.UserError`", "`C` wraps `UserError`"),
    ("no role, ``code`` stays", "no role, ``code`` stays"),
])
def test_the_api_page_renders_sphinx_roles_as_code(text, plain):
    pytest.importorskip("griffe")
    assert _roles_extension().plain(text) == plain


def test_the_api_pages_docstrings_hold_no_role_the_extension_leaves():
    pytest.importorskip("griffe")
    plain = _roles_extension().plain
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for target in re.findall(r"^::: ([\w.]+)$", page, re.M):
        module, _, attr = target.rpartition(".")
        try:
            obj = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            obj = importlib.import_module(target)
        docs = [inspect.getdoc(obj) or ""] + [inspect.getdoc(v) or "" for v in vars(obj).values()
                                              if callable(v) or isinstance(v, property)] if not isinstance(
            obj, type(sys)) else [inspect.getdoc(obj) or ""] + [inspect.getdoc(v) or "" for v in vars(obj).values()
                                                                if getattr(v, "__module__", None) == obj.__name__]
        for doc in docs:
            assert not re.search(r":\w+:`", plain(doc)), (target, re.search(r".{0,40}:\w+:`.{0,40}", plain(doc)))

