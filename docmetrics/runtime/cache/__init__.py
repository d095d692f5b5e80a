"""A persistent, content-addressed cache of backbone scores (SQLite).

Every unit a backbone scores is stored under two keys:

* the **backbone key**: a hash of the backbone's identity: its entry-point name and class, the
  fingerprint of the model's weights (:meth:`Backbone.fingerprint`), the precision, its options
  (every backbone parameter, e.g. ``scale`` or ``lang``), the versions of the libraries it
  records in signatures and the docmetrics version (and, for a third party's backbone, its distribution's
  name and version: the signature's ``plugins`` field);
* the **unit key**: a hash of the exact :class:`~docmetrics.plugin.backbone.Unit` (``mt``, ``src``,
  ``ref`` and the three context tuples).

So a SLIDE chunk scored for one grid point of a sweep is not scored again for another, and an
interrupted run resumes where it stopped: misses are scored in chunks of ``chunk_size`` units and
each chunk is committed (one transaction) before the next is scored, so a crash or a full disk
leaves whole chunks.

The cache is **off** unless asked for: ``docmetrics --cache [PATH]``, ``docmetrics sweep`` (on by
default, ``--no-cache`` turns it off), ``Session(cache=PATH)`` or ``docmetrics.load(..., cache=)`` in
Python, or the environment variable ``DOCMETRICS_SCORE_CACHE`` (``1`` for the default file, or a path;
``0`` off), read once when a :class:`~docmetrics.runtime.session.Session` is made.
The default file is ``scores.sqlite`` in ``$DOCMETRICS_CACHE`` (or ``~/.cache/docmetrics``).

What the key leaves out, on purpose: the model's path or hub id (the fingerprint identifies the
weights wherever they are), the device and the batch size (they change a score only by float noise;
a cache filled on a GPU serves CPU runs).  Per-unit counters (e.g. context sentences dropped) are
stored when they can be attributed to a unit (all zero, or a chunk of one unit); units whose
counters cannot be attributed are scored but not stored (counted as ``unstored``), so a rerun
reports the same counters as an uncached run.

**A cache that survives damage** (every failure below is a :class:`~docmetrics.values.errors.UserError`
naming the file: exit status 2 on the command line, never a traceback; notices are
:class:`~docmetrics.values.errors.DocMetricsWarning`):

* *Not a cache* (not an SQLite file, or an SQLite file whose tables are not exactly this cache's,
  e.g. another program's ``scores`` table): refused, and never renamed or modified.
* *Another format version* (a newer docmetrics, or an unknown one): refused, left as it is.  The format
  of docmetrics 0.2.0 (format 1, rows without a checksum) is upgraded in place, once, in one
  transaction: each row gets the checksum of its content as stored; then format 2 (docmetrics 0.3.0)
  gets the ``detail`` column (a unit's error spans and answer, JSON; NULL where there are none, so no
  checksum changes).
* *Damaged* (SQLite reports a malformed file): checked on opening with ``PRAGMA quick_check`` when
  the file is at most :data:`QUICK_CHECK_MAX_BYTES` (256 MiB, about a million units; a fraction of a
  second), and by SQLite's own page checks on every read.  A damaged cache found on opening is set
  aside (renamed ``FILE.damaged-N``, with its ``-wal``/``-shm`` files) and a new, empty one started in
  its place, with a warning; found during a run, it is set aside the same way and the run stops
  (run it again to start afresh).  A damaged file that cannot be recognised as a cache (its schema is
  unreadable), or that is read-only here, is refused and left in place.
* *A full disk* (or any write failure): the chunk being written is rolled back, the run stops, and
  the message says how to resume: run the same command with the same cache; what was stored is reused.
* *Read-only* (the file or its directory not writable): used read-only with a warning; stored scores
  are used, new ones are not stored.
* *Tampered rows*: every row carries a checksum of its keys and value; a row whose checksum does not
  match is ignored (a miss: scored again, and stored afresh), and :meth:`ScoreCache.close` warns
  once: "N tampered rows in score cache FILE ignored".  The checksum catches damage and hand edits,
  not a forger who recomputes it.

The hook is :class:`docmetrics.runtime.session.CachingScorer`, which the API hands to every
metric.  Importing this package imports only the standard library.

The modules: :mod:`.keys` (what a score is stored under), :mod:`.rows` (a unit's record as a row, its
checksum), :mod:`.file` (the SQLite file: its format, opening, upgrades, damage and failures),
:mod:`.store` (:class:`ScoreCache`: lookups and stores, counted); opening a cache is here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ..engines import DEFAULT_CHUNK  # one chunk scored by an engine, one transaction here
from .file import QUICK_CHECK_MAX_BYTES, CacheError, default_path
from .keys import backbone_identity, unit_key
from .rows import attribute_counters
from .store import CacheStats, ScoreCache

__all__ = [
    "ENV", "DEFAULT_CHUNK", "QUICK_CHECK_MAX_BYTES", "CacheError", "CacheStats", "ScoreCache", "attribute_counters",
    "backbone_identity", "default_path", "environment_path", "unit_key",
]

ENV = "DOCMETRICS_SCORE_CACHE"


def environment_path(environ: Mapping[str, str]) -> str | Path | None:
    """The file ``$DOCMETRICS_SCORE_CACHE`` names in ``environ`` (``1``/``yes``/``on``/``true``: the default
    file; a path: that file), None where it names none (unset, empty or ``0``/``no``/``off``/``false``).  A
    :class:`~docmetrics.runtime.session.Session` reads it once, when it is made."""
    value = environ.get(ENV, "").strip()
    if not value or value.lower() in ("0", "no", "off", "false"):
        return None
    return default_path() if value.lower() in ("1", "yes", "on", "true") else value
