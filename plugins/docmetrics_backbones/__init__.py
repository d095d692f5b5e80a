"""First-party backbone plugins (entry-point group ``docmetrics.backbones``); one subpackage each.

:mod:`docmetrics_backbones.tiny` is not a plugin: tiny offline encoders for the plugins' testing modules.
"""
