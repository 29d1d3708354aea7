#!/usr/bin/env bash
# Prints a hash of everything that goes into the package (sources, data, build files, the
# README the sdist carries): scripts/setup.sh rebuilds the wheel when it changes, and
# scripts/test_wheel.sh refuses a wheel built before the last change.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
find libscale bindings calibration/data cmake CMakeLists.txt pyproject.toml README.md -type f \
     -not -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
