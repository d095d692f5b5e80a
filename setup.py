"""Packages are found, not listed: the core (docmetrics*), every package under plugins/, and the
presets folder signatures/ (installed as docmetrics_signatures).  Metadata, dependencies, extras and
entry points are in setup.cfg."""

from setuptools import find_packages, setup

plugin_packages = find_packages("plugins")
setup(
    packages=find_packages(include=["docmetrics", "docmetrics.*"]) + plugin_packages + ["docmetrics_signatures"],
    package_dir={
        "docmetrics_signatures": "signatures",
        **{top: f"plugins/{top}" for top in {p.split(".")[0] for p in plugin_packages}},
    },
)
