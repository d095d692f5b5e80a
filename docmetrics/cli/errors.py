"""The one error wrapper of the command line: a user's mistake is one message and exit status 2,
never a traceback (``--debug`` shows one); Ctrl-C is exit 130; a closed pipe (``| head``) ends
quietly; warnings from libraries stay out of the way unless ``--debug``."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import sys
import warnings
from typing import Any, Callable

from ..commands.messages import bounded, printable
from ..values.errors import DocMetricsWarning, UserError

__all__ = ["guarded", "setup_warnings", "FLAGS", "in_flags"]

#: The flag the command line takes for each library parameter an error may name (``name=VALUE``).
FLAGS = {
    "cache": "--cache", "workers": "--workers", "engine": "--engine", "ray_address": "--ray-address",
    "device": "--device", "max_tokens": "--max-tokens", "batch_size": "--batch-size", "sources": "-s/--source",
    "references": "-r/--reference", "doc_ids": "--doc-ids", "precision": "--precision", "lang": "-l",
    "candidates": "-c", "unit": "--unit", "paragraph_ids": "--paragraph-ids", "prune_top_k": "--prune-top-k",
    "prune_metric": "--prune-metric",
}


def in_flags(exc: UserError) -> str:
    """The message of ``exc`` with the parameters it names (``workers=0``) written as the command line's
    flags (``--workers 0``)."""
    text = str(exc)
    for param in getattr(exc, "params", ()):
        flag = FLAGS.get(param)
        if flag:
            text = re.sub(rf"(?<![\w-]){re.escape(param)}=(?=\S)", flag + " ", text)
            text = re.sub(rf"(?<![\w-]){re.escape(param)}=", flag, text)
    return text


def setup_warnings(debug: bool) -> None:
    def show(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
        print(f"docmetrics: warning: {bounded(str(message))}", file=sys.stderr)

    if not debug:
        # transformers' own logging ("Token indices sequence length is longer than...", "Some weights
        # of ... were not used") too; read when transformers is first imported, so set it before
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        logging.getLogger("transformers").setLevel(logging.ERROR)  # what quiet_libraries() restores
        # library chatter (pkg_resources, Lightning, transformers) stays out of the way; docmetrics'
        # own warnings are printed explicitly with warn(), or raised as DocMetricsWarning below the CLI
        warnings.showwarning = show  # type: ignore[assignment]
        warnings.filterwarnings("ignore")
        warnings.filterwarnings("always", category=DocMetricsWarning)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is, so that it stops as after Ctrl-C (workers stopped, the
    cache closed) instead of dying with a stack."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise Terminated()


@contextlib.contextmanager
def _sigterm_stops() -> Any:
    """SIGTERM raises :class:`Terminated` in the main thread while the command runs (where nobody set
    another handler); the previous handler afterwards."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def guarded(who: str, debug: bool, run: Callable[[], int], *, interrupted: str | Callable[[], str] = "") -> int:
    """``run()``, with every expected failure turned into one line on stderr and an exit status;
    ``interrupted`` (or what it returns, asked at the time) says after Ctrl-C or SIGTERM what was kept."""
    setup_warnings(debug)
    try:
        with _sigterm_stops():
            code = int(run() or 0)
        sys.stdout.flush()
        return code
    except UserError as exc:
        if debug:
            raise
        print(f"{who}: error: {printable(bounded(in_flags(exc)))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt as exc:
        said = interrupted() if callable(interrupted) else interrupted
        what = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
        print(f"{who}: {what}" + (f" ({said})" if said else ""), file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130
    except BrokenPipeError:
        # the reader went away (`| head`): stop quietly, and keep Python from complaining at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        if debug or exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        # a full disk under the output (`> file`, or a file the command writes)
        print(f"{who}: error: cannot write {exc.filename or 'the output'} ({exc.strerror}): free some space "
              "and run the same command again", file=sys.stderr)
        try:
            sys.stdout.flush()
        except OSError:  # what stdout still holds cannot be written: drop it, quietly at exit too
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 2
