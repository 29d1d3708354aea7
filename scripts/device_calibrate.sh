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
#   scripts/device_calibrate.sh steps OUT [libscale trainer-steps arguments...]
#       there, optional, where python3 has torch and transformers: builds libscale's
#       compiled module (libscale._core) from this tree for that python3 (its headers,
#       Python.h, and pybind11 carried in .device/ by 'prepare'), then runs
#       `python3 -m libscale trainer-steps` with this tree's package on PYTHONPATH (libscale
#       need not be installed there), one process per GPU through torchrun when there are
#       several (LIBSCALE_STEPS_GPUS overrides the count). Writes OUT/trainer-steps.json
#       (real FSDP2 step records; docs/cli.md) and OUT/trainer-steps.log.
#       e.g. steps OUT --model qwen3-32b --hardware h200 --layers 4,8 --seq-len 2048,8192
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
dev="$root/.device"

prepare() {
    mkdir -p "$dev" .git/info
    grep -qx '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
    scripts/make_dep_archives.sh "$dev/deps" >/dev/null
    # pybind11 (headers and CMake package, from .venv) for the 'steps' phase's Python module.
    local pb
    pb=$(compgen -G ".venv/lib/python3*/site-packages/pybind11/share/cmake/pybind11/pybind11Config.cmake" | head -1 ||
         true)
    [ -n "$pb" ] || { echo "device_calibrate: no pybind11 in .venv (run scripts/setup.sh)" >&2; exit 1; }
    rm -rf "$dev/pybind11"
    cp -R "${pb%/share/cmake/pybind11/pybind11Config.cmake}" "$dev/pybind11"
    rm -rf "$dev/pybind11/__pycache__"
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

# The CMake arguments of the carried dependency archives, one a line: their file:// URLs
# re-rooted at this copy of the tree.
dep_args() {
    [ -d "$dev/deps" ] || { echo "device_calibrate: no .device/deps (run 'prepare' here and carry .device)" >&2; exit 1; }
    sed -E "s#file://.*/([^/]+)\$#file://$dev/deps/\\1#" "$dev/deps/cmake-args"
}

run() {
    local out=${1:?usage: device_calibrate.sh run OUT [arguments]}
    shift
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    local args=()
    mapfile -t args < <(dep_args)
    [ ${#args[@]} -gt 0 ] || exit 1
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

# The trainer-steps phase: real FSDP2 steps with the machine's own torch (see the top).
steps() {
    local out=${1:?usage: device_calibrate.sh steps OUT [libscale trainer-steps arguments]}
    shift
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    local py
    py=$(command -v python3) || { echo "device_calibrate: no python3" >&2; exit 1; }
    if ! "$py" -c "import torch, transformers, numpy" 2>/dev/null; then
        echo "device_calibrate: steps needs torch, transformers and numpy in $py (pip install torch transformers)," \
             "which it does not import: $("$py" -c "import torch, transformers, numpy" 2>&1 | tail -1)" >&2
        exit 1
    fi
    [ -f "$dev/pybind11/share/cmake/pybind11/pybind11Config.cmake" ] ||
        { echo "device_calibrate: no .device/pybind11 (run 'prepare' here and carry .device)" >&2; exit 1; }
    local args=()
    mapfile -t args < <(dep_args)
    [ ${#args[@]} -gt 0 ] || exit 1
    # Only the compiled module: no harness, no CUDA (torch brings its own).
    cmake -S . -B build/device-python -G Ninja -DCMAKE_BUILD_TYPE=Release -DLIBSCALE_BUILD_TESTS=OFF \
        -DLIBSCALE_BUILD_BENCHMARKS=OFF -DLIBSCALE_BUILD_HARNESS=OFF -DLIBSCALE_BUILD_PYTHON=ON \
        -DLIBSCALE_FETCH_DEPS=ON -DPython_EXECUTABLE="$py" -Dpybind11_DIR="$dev/pybind11/share/cmake/pybind11" \
        "${args[@]}" > "$out/steps-configure.log" 2>&1 || {
        tail -30 "$out/steps-configure.log"
        echo "device_calibrate: configuring libscale._core for $py failed (it needs Python >= 3.11 and its" \
             "headers, Python.h: Debian's python3-dev)" >&2
        exit 1
    }
    cmake --build build/device-python -j "$(nproc)" --target _core > "$out/steps-build.log" 2>&1 ||
        { tail -40 "$out/steps-build.log"; exit 1; }
    local gpus=${LIBSCALE_STEPS_GPUS:-}
    if [ -z "$gpus" ]; then
        gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
        [ "$gpus" -ge 1 ] 2>/dev/null || gpus=1
    fi
    local launch=("$py")
    [ "$gpus" -gt 1 ] && launch=("$py" -m torch.distributed.run --standalone --nproc-per-node "$gpus")
    # The module built above joins the tree's pure-Python package (libscale/__init__.py
    # extends its path over both folders); the file goes to OUT whatever -o was given.
    local status=0
    PYTHONPATH="$root/build/device-python/bindings:$root/bindings${PYTHONPATH:+:$PYTHONPATH}" \
        "${launch[@]}" -m libscale trainer-steps "$@" -o "$out/trainer-steps.json" \
        > >(tee "$out/trainer-steps.log") 2> >(tee -a "$out/trainer-steps.log" >&2) || status=$?
    wait
    return "$status"
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    steps) shift; steps "$@" ;;
    *) echo "usage: scripts/device_calibrate.sh prepare | run OUT [libscale-calibrate arguments] |" \
            "steps OUT [libscale trainer-steps arguments]" >&2; exit 2 ;;
esac
