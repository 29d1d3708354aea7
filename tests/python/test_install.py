"""Installs anywhere: one version source, requires-python as tested, an sdist of only what
builds the package, the dependency download's checksum, the cibuildwheel configuration.

The wheel itself is built from the sdist by scripts/build_wheel.sh (scripts/setup.sh installs
it, so this suite runs against it), then auditwheel-repaired, installed in a fresh venv and
the main job run by scripts/test_wheel.sh; scripts/test.sh builds the C++ suite from the
downloaded dependencies, and scripts/test_fetch_deps.sh checks the download's failure modes."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

import libscale
from conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CMAKELISTS = (ROOT / "CMakeLists.txt").read_text()

# What the sdist may hold at its top level: what builds the package, and PKG-INFO.
SDIST_TOP = {"CMakeLists.txt", "pyproject.toml", "README.md", "PKG-INFO", "cmake", "libscale", "bindings",
             "calibration"}


def cmake_version() -> str:
    m = re.search(r"^project\(\s*libscale\s+VERSION\s+([0-9.]+)", CMAKELISTS, re.M)
    assert m, "no project(libscale VERSION ...) in CMakeLists.txt"
    return m.group(1)


def test_version_has_one_source():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    provider = PYPROJECT["tool"]["scikit-build"]["metadata"]["version"]
    assert provider["provider"] == "scikit_build_core.metadata.regex" and provider["input"] == "CMakeLists.txt"
    m = re.search(provider["regex"], CMAKELISTS, re.M)
    assert m and m.group("value") == cmake_version()
    # The installed package was built from this tree: same version, compiled in by CMake.
    assert libscale.__version__ == libscale._core.__version__ == cmake_version()


def test_requires_python_is_what_cmake_asks_for():
    m = re.fullmatch(r">=\s*3\.(\d+)", PYPROJECT["project"]["requires-python"])
    assert m, PYPROJECT["project"]["requires-python"]
    minor = int(m.group(1))
    bindings = (ROOT / "bindings" / "CMakeLists.txt").read_text()
    assert re.search(rf"find_package\(Python 3\.{minor} REQUIRED", bindings)
    assert sys.version_info >= (3, minor)  # and what runs these tests satisfies it


def _copy_tree(dst: Path) -> None:
    """The working tree without its build folders, environments and VCS data."""
    skip = {".git", ".venv", ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache", "__pycache__"}

    def ignore(folder: str, names: list[str]) -> set[str]:
        top = Path(folder) == ROOT
        return {n for n in names if n in skip or (top and (n.startswith("build") or n == "dist"))}

    shutil.copytree(ROOT, dst, ignore=ignore, symlinks=True)


def test_sdist_holds_only_what_builds_the_package(tmp_path):
    tree = tmp_path / "tree"
    _copy_tree(tree)
    # Without .gitignore (an unpacked sdist has none): pyproject's rules alone must do.
    (tree / ".gitignore").unlink(missing_ok=True)
    # Environments, build trees and caches that a developer may leave in the tree.
    junk = ["venv/pyvenv.cfg", "venv/lib/python3.11/site-packages/numpy/__init__.py", ".venv/pyvenv.cfg",
            "env/pyvenv.cfg", "env/lib/x.py", ".venv-py312/pyvenv.cfg", ".tox/py311/pyvenv.cfg", "build/x.o",
            "build-debug/CMakeCache.txt", "_skbuild/x", "dist/libscale-0.0.0.tar.gz", ".mypy_cache/x.json",
            ".ruff_cache/x", ".pytest_cache/x", "__pycache__/x.pyc",
            "bindings/libscale/__pycache__/cli.cpython-311.pyc",
            "bindings/libscale/_core.cpython-311-x86_64-linux-gnu.so", "libscale/build/x.o",
            "bindings/venv/pyvenv.cfg", "libscale/src/.DS_Store", "notes.txt", "scratch/x.cpp"]
    for rel in junk:
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text("junk\n")
    out = tmp_path / "dist"
    r = subprocess.run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "-o", str(out), str(tree)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    [sdist] = out.glob("libscale-*.tar.gz")
    assert sdist.name == f"libscale-{cmake_version()}.tar.gz"
    with tarfile.open(sdist) as tar:
        names = [m.name for m in tar.getmembers() if m.isfile()]
        pkg_info = tar.extractfile(f"libscale-{cmake_version()}/PKG-INFO").read().decode()
    prefix = f"libscale-{cmake_version()}/"
    assert all(n.startswith(prefix) for n in names)
    rel = {n[len(prefix):] for n in names}
    assert {r.split("/")[0] for r in rel} == SDIST_TOP
    leaked = sorted(r for r in rel if r.endswith((".so", ".pyc", ".o", "pyvenv.cfg", ".DS_Store"))
                    or {"__pycache__", "build", "venv"} & set(r.split("/")))
    assert not leaked, leaked
    needed = {"CMakeLists.txt", "pyproject.toml", "README.md", "cmake/dependencies.cmake", "cmake/embed_data.cmake",
              "libscale/CMakeLists.txt", "bindings/CMakeLists.txt", "bindings/libscale/__init__.py",
              "bindings/libscale/py.typed", "bindings/libscale/_core/__init__.pyi"}
    assert needed <= rel, sorted(needed - rel)
    # Every source the CMake build lists, and every shipped catalog, is in it.
    listed = re.findall(r"^\s*(src/\S+\.cpp)", (ROOT / "libscale" / "CMakeLists.txt").read_text(), re.M)
    assert listed and {f"libscale/{s}" for s in listed} <= rel
    data = {str(p.relative_to(ROOT)) for p in (ROOT / "calibration" / "data").rglob("*.json")}
    assert data and data <= rel
    assert not any(r.startswith(("tests/", "docs/", "scripts/", "bench/", "examples/")) for r in rel)
    assert re.search(rf"^Version: {re.escape(cmake_version())}$", pkg_info, re.M)
    assert re.search(r"^Requires-Python: >=3\.11$", pkg_info, re.M)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_wrong_checksum_stops_the_configure(tmp_path):
    # Any file will do: the checksum is checked before the archive is opened.
    archive = tmp_path / "eigen-3.4.0.tar.gz"
    (tmp_path / "eigen-3.4.0" / "Eigen").mkdir(parents=True)
    (tmp_path / "eigen-3.4.0" / "Eigen" / "Core").write_text("// not Eigen\n")
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tmp_path / "eigen-3.4.0", arcname="eigen-3.4.0")
    wrong = "0" * 64
    r = subprocess.run(["cmake", "-S", str(ROOT), "-B", str(tmp_path / "build"), "-DLIBSCALE_FETCH_DEPS=ON",
                        f"-DLIBSCALE_EIGEN_URL=file://{archive}", f"-DLIBSCALE_EIGEN_SHA256={wrong}",
                        "-DLIBSCALE_BUILD_TESTS=OFF", "-DLIBSCALE_BUILD_BENCHMARKS=OFF", "-DLIBSCALE_BUILD_PYTHON=OFF"],
                       capture_output=True, text=True, timeout=300)
    log = r.stdout + r.stderr
    assert r.returncode != 0, log
    assert "LIBSCALE_EIGEN_SHA256" in log and wrong in log, log
    assert re.search(r"does not match expected value|HASH mismatch", log), log


def test_pinned_archives_are_sha256_with_a_cited_source():
    deps = (ROOT / "cmake" / "dependencies.cmake").read_text()
    pins = dict(re.findall(r'set\((LIBSCALE_(?:EIGEN|JSON)_(?:URL|SHA256)) "([^"]+)"', deps))
    assert pins["LIBSCALE_EIGEN_URL"].endswith("/3.4.0/eigen-3.4.0.tar.gz")
    assert pins["LIBSCALE_JSON_URL"].endswith("/v3.11.3/json.tar.xz")
    for name in ("LIBSCALE_EIGEN_SHA256", "LIBSCALE_JSON_SHA256"):
        assert re.fullmatch(r"[0-9a-f]{64}", pins[name]), name
    assert "eigen-feedstock" in deps and "RealSenseID" in deps


def test_cibuildwheel_runs_the_main_job_and_needs_no_debian_package():
    cibw = PYPROJECT["tool"]["cibuildwheel"]
    commands = cibw["test-command"]
    commands = [commands] if isinstance(commands, str) else commands
    main_sh = (ROOT / "scripts" / "main.sh").read_text().replace("\\\n", " ")
    main_args = shlex.split(re.search(r'libscale"\s+(project\b.*?)"\$@"', main_sh, re.S).group(1))
    assert shlex.split(commands[0]) == ["libscale", *main_args]
    text = repr(cibw)
    assert not re.search(r"\b(apt-get|apt|dpkg|yum|dnf|brew|libeigen3-dev|nlohmann-json3-dev)\b", text), text
    assert set(cibw["linux"]) >= {"manylinux-x86_64-image"} and "macos" in cibw
