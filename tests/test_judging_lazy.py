"""``docmetrics.judging`` is the command line's import (issue 46): importing it loads no numpy or scipy (a command's
``--help`` imports it), and every public name resolves to the object of the module it names."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import docmetrics.judging as judging


def test_importing_judging_loads_no_numerics():
    code = ("import sys, docmetrics.judging\n"
            "heavy = sorted(m for m in ('numpy', 'scipy', 'torch') if m in sys.modules)\n"
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_every_public_name_is_the_object_of_its_module():
    assert sorted(judging.__all__) == sorted([*judging._WHERE, "CandidateSelection", "UnitChoice", "mbr", "rerank"])
    for name, module in judging._WHERE.items():
        assert getattr(judging, name) is getattr(importlib.import_module(module, "docmetrics.judging"), name)
    importlib.import_module("docmetrics.judging.mbr")
    assert callable(judging.mbr) and judging.mbr.__module__ == "docmetrics.judging.mbr"
    assert set(judging.__all__) <= set(dir(judging))


def test_no_module_of_the_package_shares_a_lazy_public_name():
    """A submodule named like a public name would take its place once imported (``judging.sweep`` the module, not
    the function), so none may: the only such pair, mbr, is imported when the package is."""
    modules = {p.stem for p in Path(judging.__file__).parent.glob("*.py")}
    assert modules & set(judging._WHERE) == set()
    assert modules & set(judging.__all__) == {"mbr"}


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_call"):
        _ = judging.no_such_call


def test_every_commands_help_loads_no_numerics():
    """``docmetrics CMD --help`` for every subcommand (and the main command) imports no numpy, scipy or torch,
    though each command imports ``docmetrics.judging`` (``rank --help`` once loaded numpy through AutoRank)."""
    code = ("import contextlib, io, sys\n"
            "from docmetrics.cli import main\n"
            "from docmetrics.cli.main import SUBCOMMANDS\n"
            "bad = {}\n"
            "for argv in [['--help']] + [[name, '--help'] for name in SUBCOMMANDS]:\n"
            "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            "        try:\n"
            "            main(argv)\n"
            "        except SystemExit:\n"
            "            pass\n"
            "    assert 'usage:' in out.getvalue(), argv\n"
            "    heavy = [m for m in ('numpy', 'scipy', 'torch') if m in sys.modules]\n"
            "    if heavy:\n"
            "        bad[argv[0]] = heavy\n"
            "        break\n"
            "print(bad or '')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
