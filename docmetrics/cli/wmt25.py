"""The command line's options of :mod:`docmetrics.commands.wmt25`."""

from __future__ import annotations

import argparse

from ..judging import Submission, human_format


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("WMT25 metrics task files (wmt-conference/wmt25-mteval)")
    g.add_argument("--wmt25-tsv", metavar="TSV",
                   help="score the systems of the task's test TSV (doc_id, segment_id, source_lang, target_lang, "
                        "set_id, system_id, source_segment, hypothesis_segment, reference_segment, domain_name, "
                        "method) for the language pair -l (the only one where it holds one)")
    g.add_argument("--wmt25-set", metavar="SET_ID", default=human_format("wmt25-tsv").defaults["set_id"],
                   help="the set_id to score (default: %(default)s, the set the task's scorer keeps; a challenge "
                        "set's name otherwise)")
    g.add_argument("--write-submission", metavar="FILE",
                   help=f"write the metric's segment scores as a submission: the TSV's lines of the pair with a "
                        f"{Submission.SCORE_FIELD!r} column (one metric: one -m, or one stored metric), the signature "
                        f"in FILE{Submission.SIGNATURE_SUFFIX}")

