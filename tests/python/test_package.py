"""Packaging: public names, version, type stubs."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

import libscale
from conftest import ROOT, load_script

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


def test_option_typeddicts_are_the_option_tables():
    # bindings/libscale/_option_types.py is what scripts/make_option_types.py writes from the
    # option tables: a new option is a new key without a hand edit.
    make = load_script("make_option_types")
    assert make.TARGET.read_text(encoding="utf-8") == make.render(), "run scripts/regenerate.sh"
    from libscale import _option_types

    for group, cls in make.GROUPS.items():
        keys = set(getattr(_option_types, cls).__annotations__)
        assert {o.name for o in libscale.options.options(group)} <= keys, group
    assert "gpus" not in _option_types.CountsAndJobOptions.__annotations__


def test_mypy_sees_option_names_and_types_through_the_api(tmp_path):
    # The public signatures are typed: a misspelt option, a wrong choice and a wrong result
    # attribute are type errors, the correct call is not.
    api = pytest.importorskip("mypy.api")
    good = tmp_path / "good.py"
    good.write_text('import libscale\n'
                    's = libscale.estimate_step("qwen3-32b", "b300", gpus=8, strategy="hsdp")\n'
                    'p = libscale.project("qwen3-32b", "b300", gpus=[8, 16], tokens=1e9, scaling="weak")\n'
                    'x: float = s.step_time_s\n')
    bad = tmp_path / "bad.py"
    bad.write_text('import libscale\n'
                   'libscale.estimate_step("qwen3-32b", "b300", gpu=8)\n'
                   'libscale.estimate_step("qwen3-32b", "b300", strategy="fsdp3")\n'
                   'libscale.project("qwen3-32b", "b300", scaling="strongest")\n')
    path = str(ROOT / "bindings")  # the package's source and the stubs of its compiled module
    args = ["--no-incremental", "--ignore-missing-imports", "--follow-imports=silent"]
    env_path = os.environ.get("MYPYPATH")
    os.environ["MYPYPATH"] = path
    try:
        out_good, _, rc_good = api.run([*args, str(good)])
        out_bad, _, rc_bad = api.run([*args, str(bad)])
    finally:
        if env_path is None:
            os.environ.pop("MYPYPATH", None)
        else:
            os.environ["MYPYPATH"] = env_path
    assert rc_good == 0, out_good
    assert rc_bad == 1 and out_bad.count("error:") == 3, out_bad
    assert '"gpu"' in out_bad and "fsdp3" in out_bad and "strongest" in out_bad, out_bad


def test_result_fields_are_the_compiled_results():
    # bindings/libscale/_result_fields.py is what scripts/make_result_fields.py writes from the
    # stubs; every field of a compiled result is a typed property of its Python result
    # (no __getattr__ forwarding), reading the same value.
    make = load_script("make_result_fields")
    assert make.TARGET.read_text(encoding="utf-8") == make.render(), "run scripts/regenerate.sh"
    step = libscale.estimate_step("qwen3-32b", "b300", gpus=8)
    assert not hasattr(type(step), "__getattr__")
    for f in libscale._core.estimate.step_fields():
        assert isinstance(type(step).__dict__.get(f["name"]) or getattr(type(step), f["name"]), property)
        assert getattr(step, f["name"]) == getattr(step.raw, f["name"])
    with pytest.raises(AttributeError):
        step.no_such_field  # noqa: B018


def test_compare_uses_plan_not_both_ways():
    # libscale.compare builds on libscale.plan; plan (and the comparison it returns, in
    # _comparison) never imports compare, not even lazily.
    package = ROOT / "bindings" / "libscale"
    for name in ("plan.py", "_comparison.py"):
        tree = ast.parse((package / name).read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "compare" not in imported and "libscale.compare" not in imported, name
    assert "plan" in {n.module for n in ast.walk(ast.parse((package / "compare.py").read_text(encoding="utf-8")))
                      if isinstance(n, ast.ImportFrom)}
