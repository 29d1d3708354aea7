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


def test_version_matches_cmakelists():
    # The one version source: CMakeLists.txt's project(libscale VERSION ...), which
    # pyproject.toml reads (dynamic version, scikit-build-core's regex provider).
    cmake = (ROOT / "CMakeLists.txt").read_text()
    version = re.search(r"^project\(\s*libscale\s+VERSION\s+([0-9.]+)", cmake, re.M).group(1)
    assert libscale.__version__ == version


def _declared(pyi: Path) -> set[str]:
    tree = ast.parse(pyi.read_text())
    declared = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    declared |= {t.target.id for t in tree.body if isinstance(t, ast.AnnAssign)}
    declared |= {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    return declared


def test_typing_marker_and_stubs_present():
    stub_dirs = {Path(p) for p in libscale.__path__}
    assert any((d / "py.typed").is_file() for d in stub_dirs)
    # The stubs are a package of .pyi files beside the extension (_core/__init__.pyi, one per
    # submodule); without an __init__.py it never shadows the compiled module.
    stubs = next(d / "_core" for d in stub_dirs if (d / "_core" / "__init__.pyi").is_file())
    assert not (stubs / "__init__.py").exists()
    assert Path(libscale._core.__file__).suffix in (".so", ".pyd")
    for name, module in [("__init__", libscale._core)] + [
            (sub, getattr(libscale._core, sub)) for sub in ("io", "spec", "estimate", "calibrate", "gate", "triage")]:
        assert module.__name__ == "libscale._core" + ("" if name == "__init__" else "." + name)
        public = {n for n in dir(module) if not n.startswith("__")}
        missing = public - _declared(stubs / f"{name}.pyi")
        assert not missing, f"missing from _core/{name}.pyi: {sorted(missing)}"


def test_errors_hierarchy():
    assert issubclass(libscale.LibscaleError, ValueError)
    for cls in (libscale.UnknownNameError, libscale.DoesNotFitError, libscale.ParseError):
        assert issubclass(cls, libscale.LibscaleError)
        assert cls.__module__ == "libscale"
