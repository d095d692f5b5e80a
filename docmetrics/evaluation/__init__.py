"""Judging metrics and test sets: significance, meta-evaluation, sweeps.  Functions return objects;
nothing here parses arguments or prints.
"""
