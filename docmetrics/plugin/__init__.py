"""Plugin contracts: the Metric template, the Backbone base class and its protocols, the Segmenter,
the registry (entry points, credited to the distributions that register them) and the presets.
"""
