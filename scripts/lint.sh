#!/usr/bin/env bash
# Lint and type checks; exits non-zero when any of them finds something (all run, so one
# run reports every kind of finding). Configurations: pyproject.toml ([tool.ruff],
# [tool.mypy]), .clang-format, .clang-tidy.
#   1. ruff check          the package, tests, scripts, benchmarks (not `ruff format`: the
#                          code keeps hand-aligned tables the formatter would undo)
#   2. mypy --strict       the package (libscale._core typed by its .pyi stubs),
#                          scripts/make_stubs.py, make_schemas.py, make_option_types.py and make_result_fields.py
#   3. stubtest            the stubs in bindings/libscale/_core against the compiled module:
#                          the one installed in .venv (scripts/setup.sh), or the one found on
#                          LIBSCALE_MODULE_PATH (e.g. build/dev/bindings:bindings)
#   4. clang-format        --dry-run --Werror on libscale/, bindings/src, tests/cpp, bench,
#                          calibration, fuzz
#   5. clang-tidy          (.venv's, pinned by scripts/setup.sh) on the core's sources
#                          (libscale/src) and the fuzz targets (fuzz/),
#                          with the compile commands of
#                          build/lint (configured here, nothing compiled); a file is checked
#                          again only when it, a library header, .clang-tidy or the compile
#                          commands changed since it last passed (LIBSCALE_TIDY_CACHE=0: all;
#                          LIBSCALE_TIDY_FILES="a.cpp b.cpp": only those)
# Usage: scripts/lint.sh [ruff|mypy|stubtest|format|tidy ...]   (default: all five)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"
jobs=${LIBSCALE_JOBS:-$(nproc 2>/dev/null || echo 2)}
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(ruff mypy stubtest format tidy)
failed=()
start=$SECONDS

run_ruff() { "$py" -m ruff check --quiet .; }

run_mypy() { "$py" -m mypy && "$py" -m mypy scripts/make_stubs.py scripts/make_schemas.py scripts/make_option_types.py scripts/make_result_fields.py; }

run_stubtest() {
    # The runtime module from LIBSCALE_MODULE_PATH or the installed package; the stubs
    # always from this tree (MYPYPATH comes before the installed copies).
    PYTHONPATH="${LIBSCALE_MODULE_PATH:-}" MYPYPATH="$root/bindings" \
        "$py" -m mypy.stubtest --concise --mypy-config-file pyproject.toml libscale._core
}

# Files git tracks plus new ones it does not ignore, that exist (not deleted in the tree).
files_of() {
    git ls-files --cached --others --exclude-standard -- "$@" | sort -u |
        while read -r f; do [ -f "$f" ] && echo "$f"; done
}

cpp_files() {
    files_of 'libscale/*.cpp' 'libscale/*.hpp' 'bindings/src/*.cpp' 'bindings/src/*.hpp' \
             'tests/cpp/*.cpp' 'tests/cpp/*.hpp' 'bench/*.cpp' 'bench/*.hpp' \
             'calibration/*.cpp' 'calibration/*.hpp' 'calibration/*.cu' 'fuzz/*.cpp' 'fuzz/*.hpp'
}

run_format() { cpp_files | xargs -r clang-format --dry-run --Werror; }

run_tidy() {
    local build=build/lint
    mkdir -p build
    # The fuzz targets too (their replay form: any compiler, fuzz/README.md).
    cmake -S . -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DLIBSCALE_BUILD_PYTHON=OFF \
          -DLIBSCALE_BUILD_TESTS=OFF -DLIBSCALE_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Release \
          -DLIBSCALE_BUILD_FUZZERS=ON -DLIBSCALE_FUZZ_ENGINE=replay \
          > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; return 1; }
    # What every source's result depends on besides the source itself.
    local common
    common=$( { "$root/.venv/bin/clang-tidy" --version; cat .clang-tidy "$build/compile_commands.json" \
                 $(files_of 'libscale/*.hpp' 'fuzz/*.hpp'); } | sha256sum | cut -c1-64)
    local ok="$build/tidy-ok"
    [ "${LIBSCALE_TIDY_CACHE:-1}" = 0 ] && rm -rf "$ok"
    mkdir -p "$ok"
    export LINT_BUILD="$build" LINT_OK="$ok" LINT_COMMON="$common" LINT_TIDY="$root/.venv/bin/clang-tidy"
    # One clang-tidy per source, $jobs at a time; a clean result is remembered by key.
    local files=${LIBSCALE_TIDY_FILES:-$(files_of 'libscale/src/*.cpp' 'fuzz/*.cpp')}
    printf '%s\n' $files | xargs -r -P "$jobs" -n 1 bash -c '
        key=$( { echo "$LINT_COMMON $1"; cat "$1"; } | sha256sum | cut -c1-64)
        [ -e "$LINT_OK/$key" ] && exit 0
        if out=$("$LINT_TIDY" -p "$LINT_BUILD" --quiet "$1" 2>&1); then
            touch "$LINT_OK/$key"
        else
            printf "%s\n" "$out" | grep -v -E "^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$"
            exit 1
        fi' _
}

for s in "${steps[@]}"; do
    t=$SECONDS
    case "$s" in
        ruff|mypy|stubtest|format|tidy) ;;
        *) echo "lint: unknown step '$s'; valid: ruff, mypy, stubtest, format, tidy" >&2; exit 2 ;;
    esac
    if "run_$s"; then
        echo "lint: $s ok [$((SECONDS - t)) s]"
    else
        echo "lint: $s FAILED [$((SECONDS - t)) s]" >&2
        failed+=("$s")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "lint: failed: ${failed[*]} [$((SECONDS - start)) s]" >&2
    exit 1
fi
echo "lint: all passed [$((SECONDS - start)) s]"
