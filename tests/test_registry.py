"""Plugin discovery through entry points, including a third party's and broken plugins."""

import subprocess
import sys

import pytest
from plugin_fixtures import toy_dist  # noqa: F401

from docmetrics import api
from docmetrics.plugin import registry
from docmetrics.values.errors import PluginError


def test_first_party_plugins_listed():
    assert "slide" in registry.names("metric")
    assert "comet" in registry.names("backbone")
    info = registry.info("metric", "slide")
    assert info.distribution == "docmetrics" and info.available


def test_third_party_found(toy_dist):
    assert {"toy", "broken", "needsextra"} <= set(registry.names("backbone"))
    toy = registry.info("backbone", "toy")
    assert toy.distribution == "docmetrics-toy" and toy.dist_version == "0.3" and toy.available
    cls = registry.load("backbone", "toy")
    assert cls.name == "toy" and cls.__module__ == "docmetrics_toy"


def test_missing_extra_is_unavailable_with_pip_command(toy_dist):
    info = registry.info("backbone", "needsextra")
    assert not info.available
    assert info.missing == ["definitely-not-installed-xyz"]
    assert info.install_hint == 'pip install "docmetrics-toy[heavy]"'
    with pytest.raises(PluginError, match=r'pip install "docmetrics-toy\[heavy\]"'):
        registry.load("backbone", "needsextra")


def test_broken_plugin_gives_clean_error(toy_dist):
    with pytest.raises(PluginError, match="broken.*could not be loaded: this plugin is broken"):
        registry.load("backbone", "broken")


def test_unknown_name_lists_available():
    with pytest.raises(PluginError, match=r"unknown metric 'slid' \(did you mean 'slide'\?\); available: .*slide"):
        registry.load("metric", "slid")
    with pytest.raises(PluginError, match="unknown metric 'nope'"):
        api.load("nope:w=1")


def test_listing_imports_no_plugin_and_no_torch():
    code = (
        "import sys\n"
        "from docmetrics.plugin import registry, presets\n"
        "for kind in ('metric', 'backbone', 'segmenter'):\n"
        "    registry.plugins(kind)\n"
        "presets.presets()\n"
        "from docmetrics.cli import main\n"
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['--list']) == 0\n"
        "bad = [m for m in sys.modules if m.startswith(('torch', 'comet', 'transformers', 'docmetrics_'))\n"
        "       and not m.startswith('docmetrics_signatures')]\n"
        "print(bad)\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout


def test_help_imports_no_torch():
    code = (
        "import sys, contextlib, io\n"
        "from docmetrics.cli import main\n"
        "try:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert 'torch' not in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
