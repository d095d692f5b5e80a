"""Named, citable presets of published configurations (YAML files in this folder)."""
