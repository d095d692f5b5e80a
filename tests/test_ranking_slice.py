"""The ranking slice's one paths: the rule lines between clusters drawn by ``table(rules=...)`` for both
``HumanRanking.to_text`` and ``AutoRank.to_text`` (each had its own loop splicing rule lines into the table), and
AutoRank's scaling shared by a single ranking and its resamples (``robust_scale``/``linear_ranks`` along the last
axis)."""

from __future__ import annotations

import numpy as np

from docmetrics.judging import table
from docmetrics.judging.clusters import ClusteredSystem, HumanRanking
from docmetrics.judging.ranking import autorank, linear_ranks, resampled_autoranks, robust_scale


def test_table_draws_a_rule_above_the_rows_asked():
    text = table(["A", "B"], [["x", "1"], ["y", "2"], ["z", "3"]], rules=["", "-", "."]).splitlines()
    assert text == ["A  B", "-  -", "x  1", "-  -", "y  2", ".  .", "z  3"]
    assert table(["A"], [["x"]]) == table(["A"], [["x"]], rules=[""])


def test_human_clusters_text_rules_between_clusters_and_dots_at_a_local_mark():
    systems = [ClusteredSystem("a", 0.9, 1, None, 3, "local"), ClusteredSystem("b", 0.8, 1, None, 3, "cluster"),
               ClusteredSystem("c", 0.1, 2, None, 3, "none")]
    lines = HumanRanking("wmt26", "en-de", "src", systems, [], "1.0").to_text().splitlines()
    assert lines[1:8] == ["Cluster  System   Human  Annotations",
                          "-------  ------  ------  -----------",
                          "      1  a       0.9000            3",
                          ".......  ......  ......  ...........",
                          "      1  b       0.8000            3",
                          "-------  ------  ------  -----------",
                          "      2  c       0.1000            3"]


def test_autorank_text_rules_between_clusters_only_when_clustered():
    ranked = autorank({"m": {"a": 3.0, "b": 2.0, "c": 1.0}})
    plain = ranked.to_text().splitlines()
    assert sum(1 for x in plain if set(x) <= {"-", " "}) == 1  # the header's rule alone
    for r, c in zip(ranked.systems, (1, 1, 2)):
        r.cluster = c
    ranked.significance = {"documents": 4, "resamples": 10, "seed": 1, "alpha": 0.05}
    rules = [x for x in ranked.to_text().splitlines() if set(x) <= {"-", " "}]
    assert len(rules) == 2  # the header's, and one between clusters 1 and 2


def test_resampled_autoranks_of_one_resample_are_autoranks():
    scores = {"m1": {"a": 3.0, "b": 2.0, "c": 5.0}, "m2": {"a": 0.1, "b": 0.4, "c": 0.2}}
    ranked = autorank(scores, {"m1": True, "m2": False})
    x = np.array([[[scores[m][s] for s in "abc"]] for m in scores])
    again = resampled_autoranks(x, [True, False])[0]
    assert {r.system: r.autorank for r in ranked.systems} == dict(zip("abc", again.tolist()))
    assert linear_ranks(robust_scale([[1.0, 2.0], [2.0, 1.0]])).tolist() == [[2.0, 1.0], [1.0, 2.0]]


def test_rank_human_with_scores_compares_the_pair_the_library_chooses(tmp_path, capsys):
    """``rank --human H --scores S`` compares the stored metrics ``StoredScores.evalset`` picks for the human
    scores' pair (the command once chose the pair itself), with and without -l, as the library's calls do."""
    import json

    from cli_fixtures import run_cli

    from docmetrics.judging import cluster_agreement, human_clusters, read_human

    human = {"a": [90, 80, 85, 70, 95, 75], "b": [60, 50, 55, 65, 45, 40], "c": [10, 20, 15, 5, 25, 30]}
    metric = {"a": 0.1, "b": 0.9, "c": 0.5}
    h = tmp_path / "h.tsv"
    h.write_text("system\tdoc_id\tseg_id\tscore\n" + "".join(
        f"{s}\td\t{i + 1}\t{v}\n" for s, row in human.items() for i, v in enumerate(row)))
    s = tmp_path / "s.tsv"
    s.write_text("system\tdoc_id\tm\n" + "".join(f"{n}\td\t{metric[n]}\n" for n in human for _ in range(6)))
    want = [a.to_dict() for a in cluster_agreement(human_clusters(read_human(h)), read_human(s, format="stored"))]
    for extra in ([], ["-l", "en-de"]):
        code, out, err = run_cli(capsys, "rank", "--human", h, "--scores", s, "-f", "json", *extra)
        assert code == 0, err
        assert json.loads(out)["agreement"] == want and want[0]["pairs"] > 0
