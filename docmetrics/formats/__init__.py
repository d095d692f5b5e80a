"""The judged-data formats docmetrics reads, one module per form (GenMT, WMT26, WMT26's cESA, WMT25 TSV, raw MQM,
human TSV; the files of MTME scores and stored metric scores).  A module that defines ``FORMAT`` (a
:class:`~docmetrics.formats.base.HumanFormat`: its recogniser and its reader to an
:class:`~docmetrics.formats.base.EvalSet`) is one of docmetrics' own formats; the registry that tries them is
:mod:`docmetrics.judging.formats`.  The readers give plain values (:mod:`docmetrics.values`); nothing here prints."""
