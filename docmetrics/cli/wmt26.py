"""The options of the WMT26 release (:mod:`docmetrics.commands.wmt26`), for docmetrics and for rank."""

from __future__ import annotations

import argparse
from typing import Any

from ..judging import human_format

#: How docmetrics explains each option of the release (rank words its own: :data:`RANK_HELP`).
HELP = {
    "--wmt26": "the test file (data/wmt26-genmt.jsonl): score the systems of the language pair -l document by "
               "document",
    "--wmt26-systems": "the system files: their folder (data/systems) or NAME.jsonl files; the systems that "
                       "translated every document of the pair are scored, the others counted",
    "--wmt26-ref": "the references of the test file's refs to score against (the first the primary); default none "
                   "(reference-free metrics)",
    "--wmt26-source": "the source text: src_text (default) or gold_transcript (speech documents' curated "
                      "transcript; src_text where a document has none)",
}
RANK_HELP = {
    "--wmt26": "the WMT26 release's test file (data/wmt26-genmt.jsonl): rank its systems, each document held as "
               "docmetrics --wmt26 holds it",
    "--wmt26-systems": "with --wmt26: the system files (their folder, or NAME.jsonl files)",
    "--wmt26-ref": "with --wmt26: the references of the test file's refs to score against (default none)",
    "--wmt26-source": "with --wmt26: the source text (default src_text)",
}
#: The release's format in the registry: what --wmt26-source takes and its default.
RELEASE = human_format("wmt26")
#: Each option's form: the same wherever it is offered.
FORMS: dict[str, dict[str, Any]] = {
    "--wmt26": {"metavar": "JSONL"},
    "--wmt26-systems": {"nargs": "+", "metavar": "PATH"},
    "--wmt26-ref": {"nargs": "+", "metavar": "NAME"},
    "--wmt26-source": {"choices": RELEASE.choices["source"], "default": RELEASE.defaults["source"]},
}


def add_release_arguments(g: argparse._ActionsContainer, helps: dict[str, str] = HELP) -> None:
    """--wmt26, --wmt26-systems, --wmt26-ref and --wmt26-source into ``g``, explained by ``helps``."""
    for flag, form in FORMS.items():
        g.add_argument(flag, help=helps[flag], **form)
