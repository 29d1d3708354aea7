#!/usr/bin/env bash
# Set up, then every test: the C++ suite (CMake, GoogleTest under ctest), the Python
# suite (pytest), the lint and type checks (scripts/lint.sh), and the wheel test (scripts/test_wheel.sh: sdist, wheel built with the
# downloaded dependencies, auditwheel repair, fresh venv, main job). Extra arguments go
# to pytest. (scripts/test_fetch_deps.sh, the dependency download path with the whole
# GoogleTest suite, is slower and run on its own.)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
t0=$SECONDS
# Each phase's wall time, printed at the end (where CI's minutes go).
times=()
phase() { times+=("$1 $((SECONDS - t0)) s"); t0=$SECONDS; }
trap 'printf "test: %s\n" "${times[@]}"' EXIT
# The core's sources are compiled by setup.sh's pip install (the package) and again by the
# C++ suite's build below, with the same flags (warnings as errors in both) and generator:
# ccache (paths taken relative to the tree) compiles them once. The wheel test builds from the sdist with
# downloaded headers, which no cache would match, so it goes without. (setup.sh installs
# ccache before it builds.)
# The same compiler by the same name, too (ccache hashes it): the one scikit-build-core takes
# from Python's sysconfig when CXX is not set.
export CXX="${CXX:-$("${LIBSCALE_PYTHON:-python3}" -c 'import sysconfig; print((sysconfig.get_config_var("CXX") or "c++").split()[0])')}"
export LIBSCALE_WARNINGS_AS_ERRORS=ON
export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$root" CCACHE_DIR="${CCACHE_DIR:-$root/build/ccache}"
scripts/setup.sh
phase setup
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p build
# Ninja, as pip's build uses: the compiler then runs from the build folder in both, so the
# relative paths ccache hashes are the same. (A folder configured for another generator is
# configured afresh.)
if [ -f build/cpp/CMakeCache.txt ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' build/cpp/CMakeCache.txt; then
  rm -rf build/cpp
fi
# Quiet unless something fails: the build log is printed only then.
# The calibration harness is built too (its CUDA backend where the CUDA toolkit is, for one
# GPU architecture: this build checks that it compiles; no GPU runs it here).
if ! { cmake -S . -B build/cpp -G Ninja -DLIBSCALE_BUILD_TESTS=ON -DLIBSCALE_BUILD_BENCHMARKS=ON \
         -DLIBSCALE_BUILD_PYTHON=OFF -DLIBSCALE_WARNINGS_AS_ERRORS=ON -DCMAKE_BUILD_TYPE=Release \
         -DLIBSCALE_CUDA_ARCHITECTURES=90-real &&
       cmake --build build/cpp -j "$jobs"; } > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
phase "C++ build"
# clang-tidy, the longest check, runs beside the tests, which leave a core mostly idle (the
# Python suite is one process); its output is shown when it fails.
LIBSCALE_JOBS=$jobs scripts/lint.sh tidy > build/tidy.log 2>&1 &
tidy_pid=$!
trap 'kill $tidy_pid 2>/dev/null || true; printf "test: %s\n" "${times[@]}"' EXIT
ctest --test-dir build/cpp --output-on-failure -j "$jobs"
phase ctest
.venv/bin/python -m pytest -q tests/python "$@"
phase pytest
# The wheel test (sdist, a compile of its own, a fresh venv) starts now, beside the lint
# checks and what is left of clang-tidy, which leave a core idle; it uses its own build
# folders and venv, so it shares nothing with them. Its output is shown when it ends.
env -u CMAKE_CXX_COMPILER_LAUNCHER LIBSCALE_JOBS=$jobs scripts/test_wheel.sh > build/wheel-test.log 2>&1 &
wheel_pid=$!
trap 'kill $tidy_pid $wheel_pid 2>/dev/null || true; printf "test: %s\n" "${times[@]}"' EXIT
# ruff, mypy --strict, stubtest (against the module setup.sh installed), clang-format; then
# the clang-tidy started above.
LIBSCALE_JOBS=$jobs scripts/lint.sh ruff mypy stubtest format
if ! wait $tidy_pid; then
  cat build/tidy.log
  echo "test: clang-tidy failed (log above, also in build/tidy.log)" >&2
  exit 1
fi
cat build/tidy.log
phase lint
if ! wait $wheel_pid; then
  cat build/wheel-test.log
  echo "test: the wheel test failed (log above, also in build/wheel-test.log)" >&2
  exit 1
fi
cat build/wheel-test.log
phase wheel
