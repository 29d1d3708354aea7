"""Packaging: public names, version, type stubs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import libscale
from conftest import ROOT

PKG = Path(libscale.__file__).parent


def test_all_names_exist():
    for name in libscale.__all__:
        assert hasattr(libscale, name), name


def test_version_matches_pyproject():
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert libscale.__version__ == version


def test_typing_marker_and_stubs_present():
    stub_dirs = {Path(p) for p in libscale.__path__}
    assert any((d / "py.typed").is_file() for d in stub_dirs)
    pyi = next(d / "_core.pyi" for d in stub_dirs if (d / "_core.pyi").is_file())
    tree = ast.parse(pyi.read_text())
    declared = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    declared |= {t.target.id for t in tree.body if isinstance(t, ast.AnnAssign)}
    public = {n for n in dir(libscale._core) if not n.startswith("__")}
    assert public <= declared, f"missing from _core.pyi: {sorted(public - declared)}"


def test_errors_hierarchy():
    assert issubclass(libscale.LibscaleError, ValueError)
    for cls in (libscale.UnknownNameError, libscale.DoesNotFitError, libscale.ParseError):
        assert issubclass(cls, libscale.LibscaleError)
        assert cls.__module__ == "libscale"
