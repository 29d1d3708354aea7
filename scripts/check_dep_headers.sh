#!/usr/bin/env bash
# Usage: scripts/check_dep_headers.sh BUILD_DIR
# Passes when the objects of a CMake build read Eigen and nlohmann/json from the copies
# CMake downloaded (_deps/libscale_*-src) and never from /usr/include; the C++ suite of
# scripts/test.sh and the fetch-fallback test both build that way. What the compiler read comes from its
# dependency files (Ninja keeps them in its log; Makefiles in *.o.d).
set -euo pipefail
build=${1:?usage: check_dep_headers.sh BUILD_DIR}
if [ -f "$build/build.ninja" ]; then
  ninja_bin=$(sed -n 's/^CMAKE_MAKE_PROGRAM:[A-Z]*=//p' "$build/CMakeCache.txt")
  deps=$("${ninja_bin:-ninja}" -C "$build" -t deps)
else
  deps=$(find "$build" -name '*.o.d' -print0 | xargs -0 cat)
fi
grep -q "_deps/libscale_eigen-src/Eigen/Core" <<<"$deps" || { echo "no object read the downloaded Eigen" >&2; exit 1; }
grep -q "_deps/libscale_json-src/include/nlohmann/json.hpp" <<<"$deps" ||
  { echo "no object read the downloaded nlohmann/json" >&2; exit 1; }
if grep -Eq "/usr/include/(eigen3|nlohmann)/" <<<"$deps"; then
  echo "some object read the system Eigen or nlohmann/json instead of the downloads" >&2
  exit 1
fi
