"""Value types: plain data with no behaviour beyond parsing and validating itself (errors, params,
specs, signatures, test sets, units, results, input readers, versions).  Imports nothing above it.
"""
