"""The judged-data formats docmetrics reads: one module per form (GenMT, WMT25 TSV, WMT26, human TSV, raw MQM,
MTME score files, stored metric scores).  Each reads files into plain values (:mod:`docmetrics.values`); the
registry that recognises them is :mod:`docmetrics.judging.formats`."""
