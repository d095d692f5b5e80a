"""Plugin contracts: the Metric template, the Backbone base class and its protocols, the Segmenter,
the registry (entry points through stevedore) and the presets.
"""
