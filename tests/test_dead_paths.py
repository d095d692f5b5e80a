"""The one path left after the shims were removed: ``rank -m --wmt26`` reads each language pair of the release
through ``docmetrics.judging.read_human(format="wmt26")`` (every pair without -l), as ``rank -m --genmt`` does."""

from __future__ import annotations

from cli_fixtures import run_cli
from test_wmt26_release import write


def test_rank_m_wmt26_without_l_reads_every_pair_before_scoring(tmp_path, capsys):
    tf, folder = write(tmp_path)
    code, out, err = run_cli(capsys, "rank", "-m", "chrf", "--wmt26", tf, "--wmt26-systems", folder)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert any(ln.startswith("docmetrics rank: eng_Latn-deu_Latn: 3 documents") for ln in lines)
    assert any(ln.startswith("docmetrics rank: ces_Latn-ukr_Cyrl: 1 documents") for ln in lines)
    # read, then chrF asks for the reference the release names with --wmt26-ref
    assert lines[-1].startswith("docmetrics rank: error: chrf needs a reference: --wmt26 takes it from")
    assert "--wmt26-ref NAME" in lines[-1] and "Traceback" not in err
