#!/usr/bin/env bash
# The download path of cmake/dependencies.cmake (what manylinux and macOS wheel builds
# use), offline: the Eigen and nlohmann/json "release archives" are made from this
# machine's Debian copies (scripts/make_dep_archives.sh) and served by file:// URLs,
# with find_package disabled for both. Checks that
#   1. a wrong SHA256 stops the configure, with the variable to fix and both hashes;
#   2. an archive without the expected layout stops it, saying so;
#   3. LIBSCALE_FETCH_DEPS=OFF without the packages stops it, saying what to install;
#   4. a fresh build dir configured this way builds the core library and the GoogleTest
#      suite from the downloaded headers (not /usr/include), and the suite passes.
# Build folder: build/fetch-deps (fresh each run). Quiet unless something fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
work="$root/build/fetch-deps"
jobs=${LIBSCALE_JOBS:-$(nproc 2>/dev/null || echo 2)}
start=$SECONDS
fail() { echo "test_fetch_deps: FAIL: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
scripts/make_dep_archives.sh "$work/archives"
mapfile -t fetch_args < "$work/archives/cmake-args"
common=(-DLIBSCALE_BUILD_BENCHMARKS=OFF -DLIBSCALE_BUILD_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release)
zeros=0000000000000000000000000000000000000000000000000000000000000000

# 1. Wrong checksum.
if cmake -S . -B "$work/bad-hash" "${fetch_args[@]}" -DLIBSCALE_EIGEN_SHA256=$zeros \
     -DLIBSCALE_BUILD_TESTS=OFF "${common[@]}" > "$work/bad-hash.log" 2>&1; then
  fail "configure with a wrong LIBSCALE_EIGEN_SHA256 succeeded (log: $work/bad-hash.log)"
fi
eigen_sha=$(sha256sum "$work/archives/eigen-3.4.0.tar.gz" | cut -d' ' -f1)
grep -q "LIBSCALE_EIGEN_SHA256" "$work/bad-hash.log" &&
  grep -Eq "does not match expected value|HASH mismatch" "$work/bad-hash.log" &&
  grep -q "$zeros" "$work/bad-hash.log" && grep -q "$eigen_sha" "$work/bad-hash.log" ||
  { cat "$work/bad-hash.log"; fail "wrong-checksum configure failed without the expected message"; }

# 2. Wrong layout: an archive whose top folder is Eigen/ itself (no eigen-x.y.z/Eigen/).
mkdir -p "$work/flat"
tar -C /usr/include/eigen3 -czf "$work/flat/eigen-flat.tar.gz" Eigen
flat_sha=$(sha256sum "$work/flat/eigen-flat.tar.gz" | cut -d' ' -f1)
if cmake -S . -B "$work/bad-layout" "${fetch_args[@]}" -DLIBSCALE_EIGEN_URL="file://$work/flat/eigen-flat.tar.gz" \
     -DLIBSCALE_EIGEN_SHA256="$flat_sha" -DLIBSCALE_BUILD_TESTS=OFF "${common[@]}" > "$work/bad-layout.log" 2>&1; then
  fail "configure with a wrongly laid out archive succeeded (log: $work/bad-layout.log)"
fi
grep -q "has no Eigen/Core under its" "$work/bad-layout.log" ||
  { cat "$work/bad-layout.log"; fail "wrong-layout configure failed without the expected message"; }

# 3. Downloads forbidden, packages not found.
if cmake -S . -B "$work/no-fetch" "${fetch_args[@]}" -DLIBSCALE_FETCH_DEPS=OFF \
     -DLIBSCALE_BUILD_TESTS=OFF "${common[@]}" > "$work/no-fetch.log" 2>&1; then
  fail "configure with LIBSCALE_FETCH_DEPS=OFF and no packages succeeded (log: $work/no-fetch.log)"
fi
grep -q "Eigen3 not found and LIBSCALE_FETCH_DEPS=OFF" "$work/no-fetch.log" ||
  { cat "$work/no-fetch.log"; fail "LIBSCALE_FETCH_DEPS=OFF configure failed without the expected message"; }

# 4. Build and run the suite from the downloaded headers.
build="$work/build"
if ! cmake -S . -B "$build" "${fetch_args[@]}" -DLIBSCALE_BUILD_TESTS=ON -DLIBSCALE_WARNINGS_AS_ERRORS=ON \
     "${common[@]}" > "$work/build.log" 2>&1; then
  cat "$work/build.log"; fail "configure failed"
fi
grep -q "libscale: eigen from $build/_deps/libscale_eigen-src" "$work/build.log" &&
  grep -q "libscale: json from $build/_deps/libscale_json-src/include" "$work/build.log" ||
  { cat "$work/build.log"; fail "the configure did not take Eigen and nlohmann_json from the downloads"; }
if ! nice cmake --build "$build" -j "$jobs" --target libscale_tests >> "$work/build.log" 2>&1; then
  cat "$work/build.log"; fail "build failed"
fi
# The compiler read the downloaded Eigen and nlohmann/json only.
"$root/scripts/check_dep_headers.sh" "$build" || fail "the suite was not built from the downloaded Eigen and nlohmann/json"
"$build/tests/cpp/libscale_tests" --gtest_brief=1 > "$work/tests.log" 2>&1 ||
  { cat "$work/tests.log"; fail "libscale_tests failed"; }
echo "test_fetch_deps: ok ($(grep -Eo '[0-9]+ tests? from [0-9]+ test suites? ran' "$work/tests.log" | head -1); $((SECONDS - start)) s)"
