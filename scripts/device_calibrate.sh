#!/usr/bin/env bash
# The harness on a lent GPU machine that reaches no network: build libscale-calibrate
# there from this tree and run it, with what the build needs carried in .device/.
#
#   scripts/device_calibrate.sh prepare
#       here: writes .device/ (git-ignored through .git/info/exclude): the Eigen and
#       nlohmann/json archives CMake would download (scripts/make_dep_archives.sh) and
#       cudnn-frontend's headers from .venv (scripts/setup.sh installs them).
#   scripts/device_calibrate.sh run OUT [libscale-calibrate arguments...]
#       there: configures with .device/, finds NCCL and cuDNN in the CUDA install or in
#       python3's nvidia-* packages, builds for the GPU present (native), records
#       nvidia-smi, runs the harness into OUT/run and copies its three files and the logs
#       to OUT (flat: the device returns two folder levels at most).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
dev="$root/.device"

prepare() {
    mkdir -p "$dev"
    grep -qx '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
    scripts/make_dep_archives.sh "$dev/deps" >/dev/null
    local fe
    fe=$(compgen -G ".venv/lib/python3*/site-packages/include/cudnn_frontend.h" | head -1 || true)
    [ -n "$fe" ] || { echo "device_calibrate: no cudnn-frontend headers in .venv (run scripts/setup.sh)" >&2; exit 1; }
    # Its headers include one another as "../include/...": the folder must be named include.
    rm -rf "$dev/cudnn_frontend"
    mkdir -p "$dev/cudnn_frontend/include"
    cp -R "$(dirname "$fe")"/. "$dev/cudnn_frontend/include/"
    du -sh "$dev"
}

# A python3 package's folder (nvidia.nccl, nvidia.cudnn), or nothing.
package_dir() {
    python3 -c "import importlib, sys; m = importlib.import_module(sys.argv[1]); print(list(m.__path__)[0])" "$1" \
        2>/dev/null || true
}

run() {
    local out=${1:?usage: device_calibrate.sh run OUT [arguments]}
    shift
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    [ -d "$dev/deps" ] || { echo "device_calibrate: no .device/deps (run 'prepare' here and carry .device)" >&2; exit 1; }
    local args=()
    # The archives' file:// URLs, re-rooted at this copy of the tree.
    mapfile -t args < <(sed -E "s#file://.*/([^/]+)\$#file://$dev/deps/\\1#" "$dev/deps/cmake-args")
    args+=(-DLIBSCALE_CUDNN_FRONTEND_INCLUDE="$dev/cudnn_frontend/include")
    # NCCL and cuDNN: the CUDA install's, else the nvidia-* wheels PyTorch brings.
    local libpath=""
    if [ ! -f /usr/local/cuda/include/nccl.h ]; then
        local nccl; nccl=$(package_dir nvidia.nccl)
        if [ -n "$nccl" ]; then
            args+=(-DLIBSCALE_NCCL_INCLUDE="$nccl/include" -DLIBSCALE_NCCL_LIBRARY="$(ls "$nccl"/lib/libnccl.so* | head -1)")
            libpath="$nccl/lib"
        fi
    fi
    if [ ! -f /usr/local/cuda/include/cudnn.h ]; then
        local cudnn; cudnn=$(package_dir nvidia.cudnn)
        if [ -n "$cudnn" ]; then
            args+=(-DLIBSCALE_CUDNN_INCLUDE="$cudnn/include" -DLIBSCALE_CUDNN_LIBRARY="$(ls "$cudnn"/lib/libcudnn.so* | head -1)")
            libpath="${libpath:+$libpath:}$cudnn/lib"
        fi
    fi
    local arch=native
    command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || arch=90-real
    { nvidia-smi -q || true; } > "$out/nvidia-smi.txt" 2>&1
    cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release -DLIBSCALE_BUILD_TESTS=OFF \
        -DLIBSCALE_BUILD_BENCHMARKS=OFF -DLIBSCALE_BUILD_PYTHON=OFF -DLIBSCALE_FETCH_DEPS=ON \
        -DLIBSCALE_CUDA_ARCHITECTURES="$arch" "${args[@]}" > "$out/configure.log" 2>&1 ||
        { tail -30 "$out/configure.log"; exit 1; }
    grep 'libscale:' "$out/configure.log" || true
    cmake --build build/device -j "$(nproc)" --target libscale-calibrate > "$out/build.log" 2>&1 ||
        { tail -40 "$out/build.log"; exit 1; }
    local status=0
    LD_LIBRARY_PATH="${libpath:+$libpath:}${LD_LIBRARY_PATH:-}" \
        build/device/calibration/libscale-calibrate --out "$out/run" "$@" 2> "$out/stderr.log" || status=$?
    cat "$out/stderr.log" >&2
    for f in measurements.json calibration.json report.json; do
        [ -f "$out/run/$f" ] && cp "$out/run/$f" "$out/$f"
    done
    rm -rf "$out/run"
    return "$status"
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    *) echo "usage: scripts/device_calibrate.sh prepare | run OUT [libscale-calibrate arguments]" >&2; exit 2 ;;
esac
