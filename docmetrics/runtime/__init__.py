"""Running models: scoring with deduplication and a score cache that is passed in, the backbone
pool, weight fingerprints, hub/offline helpers.
"""
