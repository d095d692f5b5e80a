"""Pure algorithms over value types: windows, context fitting, aggregation, resampling,
grids.  stdlib and numpy only; no model, no plugin, no I/O.
"""
