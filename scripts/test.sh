#!/usr/bin/env bash
# Set up (scripts/setup.sh: packages, .venv, the package built from its sdist and
# installed), then every test: the C++ suite under AddressSanitizer and
# UndefinedBehaviorSanitizer with the fuzz corpora replayed (CMake, GoogleTest under ctest),
# the Python suite (pytest), the lint and type checks (scripts/lint.sh), and the wheel test
# (scripts/test_wheel.sh: auditwheel repair, fresh venv, main job). Extra arguments go to
# pytest. (scripts/test_fetch_deps.sh, the dependency download path's failure modes, is
# run on its own.)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
t0=$SECONDS
# Each phase's wall time, printed at the end (where CI's minutes go).
times=()
phase() { times+=("$1 $((SECONDS - t0)) s"); t0=$SECONDS; }
trap 'printf "test: %s\n" "${times[@]}"' EXIT
# ccache (paths taken relative to the tree) makes a rerun recompile only what changed, in
# both builds: the package's (setup.sh, from the sdist) and the C++ suite's below. (setup.sh
# installs ccache before it builds.)
export LIBSCALE_WERROR=ON
export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$root" CCACHE_DIR="${CCACHE_DIR:-$root/build/ccache}"
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p build
# clang-tidy, the longest check, starts as soon as it is installed (setup.sh deps: all but
# the package): beside the builds and the tests (the Python suite is mostly one process),
# at a lower priority, so that it takes what they leave. Its output is shown when it fails.
scripts/setup.sh deps
LIBSCALE_JOBS=$jobs nice -n 10 scripts/lint.sh tidy > build/tidy.log 2>&1 &
tidy_pid=$!
trap 'kill $tidy_pid 2>/dev/null || true; printf "test: %s\n" "${times[@]}"' EXIT
scripts/setup.sh
phase setup
# The C++ suite, built once: with AddressSanitizer and UndefinedBehaviorSanitizer and
# warnings as errors (cmake/sanitize.cmake), the fuzz targets' corpora replayed as tests
# (fuzz/README.md), and the calibration harness (its CUDA backend where the CUDA toolkit
# is, for one GPU architecture: this build checks that it compiles; no GPU runs it here).
# Eigen and nlohmann/json are taken the way manylinux and macOS wheel builds take them,
# downloaded by CMake at their pinned SHA256 (cmake/dependencies.cmake; here file:// stand-ins
# made from the Debian copies by scripts/make_dep_archives.sh), and
# scripts/check_dep_headers.sh checks that the compiler read those copies only.
# A folder configured otherwise (another generator, no sanitizers) is configured afresh.
if [ -f build/cpp/CMakeCache.txt ] &&
   ! { grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' build/cpp/CMakeCache.txt &&
       grep -q '^LIBSCALE_SANITIZE:BOOL=ON$' build/cpp/CMakeCache.txt; }; then
  rm -rf build/cpp
fi
# Quiet unless something fails: the build log is printed only then.
if ! { scripts/make_dep_archives.sh build/dep-archives &&
       mapfile -t fetch_args < build/dep-archives/cmake-args &&
       cmake -S . -B build/cpp -G Ninja -DLIBSCALE_BUILD_TESTS=ON -DLIBSCALE_BUILD_BENCHMARKS=ON \
         -DLIBSCALE_BUILD_PYTHON=OFF -DLIBSCALE_BUILD_FUZZERS=ON -DLIBSCALE_SANITIZE=ON -DLIBSCALE_WERROR=ON \
         -DLIBSCALE_CUDA_ARCHITECTURES=90-real "${fetch_args[@]}" &&
       cmake --build build/cpp -j "$jobs" &&
       scripts/check_dep_headers.sh build/cpp; } > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
phase "C++ build"
ctest --test-dir build/cpp --output-on-failure -j "$jobs"
phase ctest
.venv/bin/python -m pytest -q tests/python "$@"
phase pytest
# The wheel test (the wheel setup.sh built, repaired and installed in a fresh venv) starts
# now, beside the lint checks and what is left of clang-tidy; it uses its own folders and
# venv, so it shares nothing with them. Its output is shown when it ends.
scripts/test_wheel.sh > build/wheel-test.log 2>&1 &
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
