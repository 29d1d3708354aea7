#!/usr/bin/env bash
# Runs one libFuzzer target (fuzz/README.md) until 1,000,000 executions or 10 minutes,
# whichever comes first, niced, on a working corpus seeded from the committed one.
#   fuzz/run.sh TARGET [BUILD_DIR [EXTRA libFuzzer flags...]]
#   e.g. fuzz/run.sh hf_config build/fuzz -max_total_time=60
# New inputs go to $LIBSCALE_FUZZ_WORK/TARGET (default build/fuzz-work/TARGET), crash
# files to $LIBSCALE_FUZZ_WORK/artifacts/; the committed corpus is only read. Merge what
# is worth keeping afterwards with -merge=1 (README).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target=${1:?usage: fuzz/run.sh TARGET [BUILD_DIR [libFuzzer flags...]]}
build=${2:-build/fuzz}
shift $(( $# >= 2 ? 2 : 1 ))
cd "$root"
bin="$build/fuzz/fuzz_$target"
[ -x "$bin" ] || { echo "run.sh: no $bin; build it first (fuzz/README.md)" >&2; exit 2; }
# Longest input per format: a little above the largest real example in the corpus.
case "$target" in
    calibration_json) max_len=20000 ;;
    measurements_json) max_len=16384 ;;
    hf_config | hardware_json | torchtitan_log | triage_stream) max_len=8192 ;;
    nvidia_smi_csv | dcgm_prometheus) max_len=4096 ;;
    lengths_jsonl) max_len=2048 ;;
    lengths_npy) max_len=1024 ;;
    lengths_raw) max_len=256 ;;
    *) echo "run.sh: unknown target '$target'" >&2; exit 2 ;;
esac
work=${LIBSCALE_FUZZ_WORK:-$build-work}
mkdir -p "$work/$target" "$work/artifacts"
dict=()
[ -f "fuzz/dict/$target.dict" ] && dict=(-dict="fuzz/dict/$target.dict")
exec nice "$bin" -runs=1000000 -max_total_time=600 -rss_limit_mb=2048 -timeout=10 -max_len=$max_len \
    "${dict[@]}" -print_final_stats=1 -artifact_prefix="$work/artifacts/$target-" "$@" \
    "$work/$target" "fuzz/corpus/$target"
