#!/usr/bin/env bash
# Builds the package the way pip builds it from PyPI: the sdist first (python -m build
# --sdist), whose top-level entries must be only those that build the package, then the
# wheel from that sdist's contents (pip wheel --no-build-isolation). Writes
# build/dist/libscale-VERSION-*.whl and prints its path.
#
# scripts/setup.sh installs this wheel, so the whole Python suite runs against a module
# built from the sdist (a file the sdist leaves out fails the build or a test), and
# scripts/test_wheel.sh repairs and installs the same wheel: the sources are compiled once.
# The unpacked sdist (build/sdist-src, rewritten only where it changed) and the CMake build
# folder (build/python) persist, so a rerun rebuilds only what changed.
# Environment: LIBSCALE_WERROR (ON/OFF, default OFF), LIBSCALE_JOBS; CMAKE_CXX_COMPILER_LAUNCHER
# (ccache) passes through to CMake.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"
jobs=${LIBSCALE_JOBS:-$(nproc 2>/dev/null || echo 2)}
fail() { echo "build_wheel: FAIL: $*" >&2; exit 1; }
mkdir -p build/dist build/sdist

version=$(sed -nE 's/^project\([[:space:]]*libscale[[:space:]]+VERSION[[:space:]]+([0-9.]+).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || fail "no project(libscale VERSION ...) in CMakeLists.txt"

# 1. The sdist.
rm -f build/sdist/libscale-*.tar.gz
"$py" -m build --sdist --no-isolation -o build/sdist . > build/sdist.log 2>&1 ||
  { cat build/sdist.log; fail "sdist build failed (log above, also in build/sdist.log)"; }
sdist="build/sdist/libscale-$version.tar.gz"
[ -f "$sdist" ] || fail "no $sdist (is the sdist's version not $version?)"

# 2. Unpacked where the last run unpacked it, writing only files whose contents changed
# and removing those it no longer has, so that the build sees only real changes (and
# CMake's cache, which records the source folder, stays valid).
"$py" - "$sdist" build/sdist-src <<'EOF' || fail "unpacking the sdist failed"
import os, sys, tarfile
from pathlib import Path

sdist, dest = Path(sys.argv[1]), Path(sys.argv[2])
allowed = {"CMakeLists.txt", "pyproject.toml", "README.md", "PKG-INFO", "cmake", "libscale", "bindings", "calibration"}
seen = set()
with tarfile.open(sdist) as tar:
    members = [m for m in tar.getmembers() if m.isfile()]
    tops = {Path(m.name).parts[1] for m in members}
    extra = tops - allowed - {t for t in tops if t.startswith("LICENSE")}
    if extra:
        sys.exit(f"the sdist has unexpected top-level entries: {sorted(extra)}")
    for m in members:
        rel = Path(*Path(m.name).parts[1:])
        seen.add(rel)
        data = tar.extractfile(m).read()
        target = dest / rel
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        os.chmod(target, 0o755 if m.mode & 0o111 else 0o644)
for path in sorted(dest.rglob("*"), reverse=True):
    rel = path.relative_to(dest)
    if path.is_file() and rel not in seen:
        path.unlink()
    elif path.is_dir() and not any(path.iterdir()):
        path.rmdir()
EOF

# 3. The wheel, from the unpacked sdist.
rm -f build/dist/libscale-*.whl
if ! CMAKE_BUILD_PARALLEL_LEVEL=$jobs "$py" -m pip wheel build/sdist-src --no-deps --no-build-isolation \
       --disable-pip-version-check -q -w build/dist -Cbuild-dir="$root/build/python" \
       -Ccmake.define.LIBSCALE_WERROR="${LIBSCALE_WERROR:-OFF}" > build/wheel.log 2>&1; then
  cat build/wheel.log; fail "wheel build failed (log above, also in build/wheel.log)"
fi
wheel=$(ls build/dist/libscale-"$version"-*.whl 2>/dev/null | head -1)
[ -n "$wheel" ] || { cat build/wheel.log; fail "no libscale-$version wheel in build/dist"; }
echo "$root/$wheel"
