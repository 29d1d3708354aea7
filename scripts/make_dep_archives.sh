#!/usr/bin/env bash
# Usage: scripts/make_dep_archives.sh OUTDIR
# Stand-ins for the Eigen and nlohmann/json release archives that CMake downloads when
# the packages are not installed (cmake/dependencies.cmake), made from this machine's
# Debian copies (libeigen3-dev: /usr/include/eigen3, nlohmann-json3-dev:
# /usr/include/nlohmann) and laid out as the real ones: eigen-3.4.0.tar.gz holds
# eigen-3.4.0/Eigen/..., json.tar.xz holds json/include/nlohmann/.... The archives are
# byte-for-byte reproducible (sorted, fixed owners and times), so an unchanged copy
# keeps the same SHA256 and a build using it stays incremental.
# Writes OUTDIR/eigen-3.4.0.tar.gz, OUTDIR/json.tar.xz and OUTDIR/cmake-args, the CMake
# arguments (one a line) that make a configure download these instead of the internet's.
set -euo pipefail
out=${1:?usage: make_dep_archives.sh OUTDIR}
eigen=${LIBSCALE_SYSTEM_EIGEN:-/usr/include/eigen3}
json=${LIBSCALE_SYSTEM_JSON:-/usr/include/nlohmann}
[ -f "$eigen/Eigen/Core" ] || { echo "make_dep_archives: no Eigen at $eigen (Debian: libeigen3-dev)" >&2; exit 1; }
[ -f "$json/json.hpp" ] || { echo "make_dep_archives: no nlohmann/json at $json (Debian: nlohmann-json3-dev)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/eigen-3.4.0" "$stage/json/include"
cp -R "$eigen/Eigen" "$stage/eigen-3.4.0/"
[ -d "$eigen/unsupported" ] && cp -R "$eigen/unsupported" "$stage/eigen-3.4.0/"
cp -R "$json" "$stage/json/include/nlohmann"
tar_det=(tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --mode=u+rwX,go+rX,go-w -C "$stage")
"${tar_det[@]}" -cf - eigen-3.4.0 | gzip -n -9 > "$out/eigen-3.4.0.tar.gz.tmp"
"${tar_det[@]}" -cf - json | xz -T1 -c > "$out/json.tar.xz.tmp"
# Replace only what changed, so an unchanged archive keeps its time stamp too.
for f in eigen-3.4.0.tar.gz json.tar.xz; do
  if cmp -s "$out/$f.tmp" "$out/$f"; then rm "$out/$f.tmp"; else mv "$out/$f.tmp" "$out/$f"; fi
done
eigen_sha=$(sha256sum "$out/eigen-3.4.0.tar.gz" | cut -d' ' -f1)
json_sha=$(sha256sum "$out/json.tar.xz" | cut -d' ' -f1)
cat > "$out/cmake-args" <<EOF
-DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=ON
-DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
-DLIBSCALE_EIGEN_URL=file://$out/eigen-3.4.0.tar.gz
-DLIBSCALE_EIGEN_SHA256=$eigen_sha
-DLIBSCALE_JSON_URL=file://$out/json.tar.xz
-DLIBSCALE_JSON_SHA256=$json_sha
EOF
