"""``docmetrics rank`` has one path for judged data (issue 46): ``--genmt``, ``--human``, ``--mtme`` and ``--wmt26``
are aliases of ``--data PATH --data-format NAME`` (their options the format's), every pair asked for is read by
``docmetrics.judging.read_human_pairs`` (a GenMT file once, also for every pair without ``-l``), and what is printed
is ``human_clusters`` / ``cluster_agreement`` / ``autorank`` / ``autorank_clusters`` of what it read."""

from __future__ import annotations

import json

import pytest
from cli_fixtures import run_cli
from test_human_clusters import DOCS, SCORES
from test_human_clusters import genmt_file as one_pair_file
from test_judging_api import genmt_rows
from test_mtme import build_tiny

from docmetrics import judging
from docmetrics.formats import genmt as genmt_format
from docmetrics.values.errors import InputError


@pytest.fixture()
def genmt(tmp_path):
    """A GenMT file of two language pairs (en-de_DE, en-cs_CZ)."""
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in genmt_rows() + genmt_rows("en-cs_CZ")),
                    encoding="utf-8")
    return path


@pytest.fixture()
def reads(monkeypatch):
    """The GenMT files read while the test runs."""
    found: list[str] = []
    real = genmt_format.read_genmt
    monkeypatch.setattr(genmt_format, "read_genmt", lambda path: found.append(str(path)) or real(path))
    return found


def shell(capsys, *argv):
    code, out, err = run_cli(capsys, "rank", *argv, "-f", "json")
    assert code == 0, err
    return json.loads(out)


def test_read_human_pairs_reads_a_genmt_file_once_for_every_pair(genmt, reads):
    found = judging.read_human_pairs(genmt)
    assert [d.lp for d in found] == ["en-de_DE", "en-cs_CZ"] and len(reads) == 1
    for data in found:
        one = judging.read_human(genmt, lp=data.lp)
        assert data.testset.systems == one.testset.systems and data.testset.lp == one.testset.lp == data.lp
        assert (data.human, data.judgements, data.notes) == (one.human, one.judgements, one.notes)
    assert [d.lp for d in judging.read_human_pairs(genmt, lps=["en-cs", "en-de"])] == ["en-cs_CZ", "en-de_DE"]
    with pytest.raises(InputError, match="name one with lp="):
        judging.read_human(genmt)  # one pair: still asked for where the file holds several


def test_rank_genmt_without_l_reads_the_file_once_and_ranks_every_pair(genmt, reads, capsys):
    printed = shell(capsys, "--genmt", genmt)
    assert len(reads) == 1
    python = [{"ranking": judging.human_clusters(data).to_dict(), "agreement": []}
              for data in judging.read_human_pairs(genmt)]
    assert printed == json.loads(json.dumps(python))
    assert [p["ranking"]["lp"] for p in printed] == ["en-de_DE", "en-cs_CZ"]


def stored_tsv(tmp_path, doc_ids=False):
    """A stored metric's segment scores for the one-pair file's systems (``doc_ids``: named as the test set of
    the file names its documents, and the reference left out, as -m scores it)."""
    tsv = tmp_path / "m.tsv"
    metric = {"good": 0.8, "fine": 0.8, "poor": 0.7, "refA": 0.6}
    systems = [s for s in SCORES if s != "refA"] if doc_ids else list(SCORES)
    tsv.write_text("system\tdoc_id\tm\n" + "".join(
        f"{s}\t{f'en-de_DE_#_{dom}_#_{d}' if doc_ids else d}\t{metric[s]}\n" for s in systems for dom, d in DOCS))
    return tsv


@pytest.mark.parametrize("extra", [[], ["--rule", "wmt24"], ["--scores", "{tsv}"], ["--scores", "{tsv}", "-f", "json"]],
                         ids=["plain", "rule", "scores", "scores-json"])
def test_an_alias_prints_what_data_with_its_format_prints(tmp_path, capsys, extra):
    path, tsv = one_pair_file(tmp_path), stored_tsv(tmp_path)
    extra = [a.format(tsv=tsv) for a in extra]
    alias = run_cli(capsys, "rank", "--genmt", path, "-l", "en-de_DE", *extra)
    data = run_cli(capsys, "rank", "--data", path, "--data-format", "genmt", "-l", "en-de_DE", *extra)
    assert alias[0] == data[0] == 0, (alias, data)
    assert alias == data


def test_a_human_file_is_one_language_pair(tmp_path, capsys):
    tsv = tmp_path / "human.tsv"
    tsv.write_text("system\tdoc_id\tseg_id\tscore\n" + "".join(f"{s}\td\t{k}\t{k}\n" for s in "AB" for k in range(3)))
    code, out, err = run_cli(capsys, "rank", "--human", tsv, "-l", "en-de,en-cs")
    assert code == 2 and "one file holds one language pair; give at most one -l" in err


def test_human_alias_options_are_the_formats_options(tmp_path, capsys):
    tsv = tmp_path / "human.tsv"
    tsv.write_text("system\tdoc_id\tseg_id\tmqm\n" + "".join(
        f"{s}\td{k // 4}\t{k % 4}\t{-abs(hash((s, k)) % 7)}\n" for s in ("A", "B", "C") for k in range(8)))
    alias = shell(capsys, "--human", tsv, "--human-column", "mqm", "--lower-is-better", "--rule", "wmt24")
    data = shell(capsys, "--data", tsv, "--data-format", "human-tsv", "--data-option", "column=mqm",
                 "lower_is_better=true", "--rule", "wmt24")
    python = judging.human_clusters(judging.read_human(tsv, column="mqm", lower_is_better=True), "wmt24")
    assert alias == data == {"ranking": json.loads(json.dumps(python.to_dict())), "agreement": []}


def test_mtme_clusters_are_read_human_of_the_folder_without_a_reference(tmp_path, capsys):
    root = tmp_path / "mtme"
    build_tiny(root)  # two references, no standard one: none is needed for the human scores
    data = judging.read_human(root, format="mtme", testset="toy", lp="en-de")
    assert data.testset.references is None and any("none is in use" in n for n in data.notes)
    python = {"ranking": json.loads(json.dumps(judging.human_clusters(data).to_dict())), "agreement": []}
    code, out, err = run_cli(capsys, "rank", "--mtme", root, "-t", "toy", "-l", "en-de", "-f", "json")
    assert code == 0 and json.loads(out) == python, err
    assert "none is in use" not in err  # the reader's note on the test set: said where -m scores it
    assert shell(capsys, "--data", root, "--data-option", "testset=toy", "-l", "en-de") == python
    # -m scores the test set: the note said, in the command line's words; a reference named: scored against it
    code, out, err = run_cli(capsys, "rank", "-m", "chrf", "--mtme", root, "-t", "toy", "-l", "en-de")
    assert code == 2 and "none is in use; choose one with --ref to score against it" in err
    # the error names the option that fixes it and the references to choose from, never -r (--mtme refuses it)
    assert "chrf needs a reference: --mtme" in err and "name one with --ref NAME" in err and "refA" in err
    assert "-r/--reference" not in err
    assert shell(capsys, "-m", "chrf", "--mtme", root, "-t", "toy", "-l", "en-de", "--ref", "refA")["systems"]
    assert judging.read_human(root, format="mtme", testset="toy", lp="en-de", ref="refA").notes == ()


def test_live_metrics_with_paired_bs_and_stored_scores_on_data_as_on_the_alias(tmp_path, capsys):
    path, tsv = one_pair_file(tmp_path), stored_tsv(tmp_path, doc_ids=True)
    argv = ["-m", "chrf", "-l", "en-de_DE", "--scores", tsv, "--paired-bs", "--paired-bs-n", "30"]
    alias = shell(capsys, *argv, "--genmt", path)
    data = shell(capsys, *argv, "--data", path)
    assert alias == data and "significance" in data and "human_clusters" in data
    assert {m["name"] for m in data["metrics"]} == {"chrf", "m"}


def test_the_registries_have_public_listers():
    assert [r.name for r in judging.cluster_rules(plugins=False)] == ["wmt25", "wmt25-adjacent", "wmt24", "wmt26"]
    assert all(r.definition for r in judging.cluster_rules(plugins=False))
    names = [f.name for f in judging.human_formats(plugins=False)]
    assert {"genmt", "human-tsv", "mtme", "wmt26", "stored"} <= set(names) and len(names) == len(set(names))


def test_read_human_pairs_of_the_wmt26_release_equals_read_human_per_pair(tmp_path):
    from test_wmt26_release import write

    tf, folder = write(tmp_path)
    found = judging.read_human_pairs(tf, format="wmt26", systems=folder)
    assert [d.lp for d in found] == ["eng_Latn-deu_Latn", "ces_Latn-ukr_Cyrl"]
    for data in found:
        one = judging.read_human(tf, format="wmt26", systems=folder, lp=data.lp)
        assert (data.testset.systems, data.testset.lp, data.notes) == (one.testset.systems, one.testset.lp, one.notes)
        assert data.testset.documents == one.testset.documents and data.testset.sources == one.testset.sources
