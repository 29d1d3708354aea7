#!/usr/bin/env bash
# Set up, then every test: the C++ suite (CMake + ctest) and the Python suite (pytest).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build/cpp -DCMAKE_BUILD_TYPE=Release -DLIBSCALE_BUILD_PYTHON=OFF \
      -DLIBSCALE_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build build/cpp -j "$jobs" -- --no-print-directory | grep -vE '^\[ *[0-9]+%\]|^Consolidate|^Scanning' || true
test ${PIPESTATUS[0]} -eq 0
ctest --test-dir build/cpp --output-on-failure -j "$jobs"
.venv/bin/python -m pytest -q tests/python "$@"
